//! A large site's articles, on disk until the site is written.
//!
//! A bucket's outputs are sorted by (site, cluster, URL), so a site's
//! articles are written once the sites before it are, and are held until
//! then. For a large site (more than `run.max_resident_pages` pages or
//! `run.max_resident_bytes` of HTML, whose
//! parsed pages wait on disk, [`crate::pages`]) that would grow with the
//! site (≈ 5 KB a page as JSON on the dev corpora, twice that with
//! `--format html`), so its clusters write their
//! articles as they are extracted, as the JSON lines of `articles.jsonl`,
//! into one temporary file in the bucket's output folder, unlinked from the
//! start where the file system allows it (`tempfile::tempfile_in`). Each
//! cluster writes segments of its own; the site's writer copies them in
//! cluster order.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use canopy_types::Article;

/// A cluster's articles are appended to the file in segments of about
/// this many bytes (the clusters of a site run in parallel).
const SEGMENT_BYTES: usize = 1 << 20;

/// One site's articles in a temporary file.
pub struct ArticleSpill {
    /// Where the file is, for errors.
    dir: PathBuf,
    inner: Mutex<Inner>,
}

struct Inner {
    file: File,
    segments: Vec<Segment>,
}

/// Lines `offset..offset + len` of the file: segment `seq` of `cluster`.
struct Segment {
    cluster: String,
    seq: usize,
    offset: u64,
    len: u64,
    counts: Counts,
}

/// Articles and those a wrapper served, for the bucket's marker.
#[derive(Debug, Default, PartialEq)]
pub struct Counts {
    pub articles: u64,
    pub by_wrapper: u64,
}

impl ArticleSpill {
    pub fn new_in(dir: &Path) -> io::Result<ArticleSpill> {
        let file = tempfile::tempfile_in(dir).map_err(|e| in_dir(dir, e))?;
        Ok(ArticleSpill {
            dir: dir.to_path_buf(),
            inner: Mutex::new(Inner {
                file,
                segments: Vec::new(),
            }),
        })
    }

    /// Appends segment `seq` of `cluster`: `lines`, holding `counts`.
    fn append(&self, cluster: &str, seq: usize, counts: Counts, lines: &[u8]) -> io::Result<()> {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let write = |file: &mut File| {
            let offset = file.seek(SeekFrom::End(0))?;
            file.write_all(lines).map(|()| offset)
        };
        let offset = write(&mut inner.file).map_err(|e| in_dir(&self.dir, e))?;
        inner.segments.push(Segment {
            cluster: cluster.to_string(),
            seq,
            offset,
            len: lines.len() as u64,
            counts,
        });
        Ok(())
    }

    /// Copies the articles into `out`, clusters in the order of their
    /// names and each cluster's in the order it wrote them.
    pub fn copy_to(self, out: &mut dyn Write) -> io::Result<Counts> {
        let mut inner = self.inner.into_inner().unwrap_or_else(|e| e.into_inner());
        inner
            .segments
            .sort_by(|a, b| (&a.cluster, a.seq).cmp(&(&b.cluster, b.seq)));
        let mut counts = Counts::default();
        for s in &inner.segments {
            // The segment's bytes, and how many there were.
            let mut read = || {
                inner.file.seek(SeekFrom::Start(s.offset))?;
                io::copy(&mut (&inner.file).take(s.len), out)
            };
            let copied = read().map_err(|e| in_dir(&self.dir, e))?;
            if copied != s.len {
                return Err(in_dir(
                    &self.dir,
                    io::Error::new(io::ErrorKind::UnexpectedEof, "shorter than written"),
                ));
            }
            counts.articles += s.counts.articles;
            counts.by_wrapper += s.counts.by_wrapper;
        }
        Ok(counts)
    }
}

/// `error` of the temporary article file in `dir`.
fn in_dir(dir: &Path, error: io::Error) -> io::Error {
    temporary_file_error("article", dir, error)
}

/// `error` of a temporary file of `what` in `dir`, saying which.
pub(crate) fn temporary_file_error(what: &str, dir: &Path, error: io::Error) -> io::Error {
    io::Error::new(
        error.kind(),
        format!("temporary {what} file in {}: {error}", dir.display()),
    )
}

/// Where a cluster puts its articles: a vector, or its site's spill.
pub enum ArticleSink<'s> {
    Held(Vec<Article>),
    Spilled(ClusterSpill<'s>),
}

/// A cluster's articles on their way into its site's spill.
pub struct ClusterSpill<'s> {
    spill: &'s ArticleSpill,
    cluster: String,
    lines: Vec<u8>,
    seq: usize,
    /// Of the lines not yet appended.
    counts: Counts,
}

impl<'s> ArticleSink<'s> {
    /// The sink of `cluster`: into `spill` if there is one.
    pub fn new(spill: Option<&'s ArticleSpill>, cluster: &str) -> ArticleSink<'s> {
        match spill {
            None => ArticleSink::Held(Vec::new()),
            Some(spill) => ArticleSink::Spilled(ClusterSpill {
                spill,
                cluster: cluster.to_string(),
                lines: Vec::new(),
                seq: 0,
                counts: Counts::default(),
            }),
        }
    }

    /// Takes the cluster's next article; a spilled cluster's articles must
    /// come in their output order.
    pub fn push(&mut self, article: Article) -> io::Result<()> {
        match self {
            ArticleSink::Held(articles) => articles.push(article),
            ArticleSink::Spilled(s) => {
                serde_json::to_writer(&mut s.lines, &article)?;
                s.lines.push(b'\n');
                s.counts.articles += 1;
                s.counts.by_wrapper += u64::from(article.wrapper.is_some());
                if s.lines.len() >= SEGMENT_BYTES {
                    s.flush()?;
                }
            }
        }
        Ok(())
    }

    /// The held articles (none when spilled), once the rest is written.
    pub fn finish(self) -> io::Result<Vec<Article>> {
        match self {
            ArticleSink::Held(articles) => Ok(articles),
            ArticleSink::Spilled(mut s) => {
                s.flush()?;
                Ok(Vec::new())
            }
        }
    }
}

impl ClusterSpill<'_> {
    fn flush(&mut self) -> io::Result<()> {
        if self.lines.is_empty() {
            return Ok(());
        }
        let counts = std::mem::take(&mut self.counts);
        self.spill
            .append(&self.cluster, self.seq, counts, &self.lines)?;
        self.seq += 1;
        self.lines.clear();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn article(cluster: &str, url: &str, wrapper: bool) -> Article {
        Article {
            url: url.to_string(),
            site: "s".to_string(),
            cluster: cluster.to_string(),
            text: "x".repeat(SEGMENT_BYTES / 3),
            wrapper: wrapper.then(|| "//p".to_string()),
            ..Article::default()
        }
    }

    #[test]
    fn clusters_come_out_in_name_order_whatever_order_they_wrote_in() {
        let dir = tempfile::tempdir().unwrap();
        let spill = ArticleSpill::new_in(dir.path()).unwrap();
        // `s/2` sorts after `s/10`; both write several segments, interleaved.
        let mut two = ArticleSink::new(Some(&spill), "s/2");
        let mut ten = ArticleSink::new(Some(&spill), "s/10");
        let mut expected = Vec::new();
        for i in 0..4 {
            two.push(article("s/2", &format!("u{i}"), i % 2 == 0))
                .unwrap();
            ten.push(article("s/10", &format!("u{i}"), false)).unwrap();
        }
        assert!(two.finish().unwrap().is_empty());
        assert!(ten.finish().unwrap().is_empty());
        // Each cluster wrote more than one segment.
        let segments = spill.inner.lock().unwrap().segments.len();
        assert!(segments >= 4, "{segments} segments");
        for cluster in ["s/10", "s/2"] {
            for i in 0..4 {
                expected.push((cluster.to_string(), format!("u{i}")));
            }
        }
        let mut out = Vec::new();
        let counts = spill.copy_to(&mut out).unwrap();
        let got: Vec<(String, String)> = out
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| {
                let a: Article = serde_json::from_slice(l).unwrap();
                (a.cluster, a.url)
            })
            .collect();
        assert_eq!(got, expected);
        assert_eq!(
            counts,
            Counts {
                articles: 8,
                by_wrapper: 2
            }
        );
    }

    #[test]
    fn a_held_sink_keeps_its_articles() {
        let mut sink = ArticleSink::new(None, "s/0");
        sink.push(article("s/0", "u", true)).unwrap();
        assert_eq!(sink.finish().unwrap().len(), 1);
    }
}
