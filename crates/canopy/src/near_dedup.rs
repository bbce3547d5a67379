//! `dedup.mode = "near"`: the articles of the whole run, as the merge
//! writes them into `articles.jsonl`, each left out when its text is a
//! near duplicate of an article written before it (`canopy_site::near`:
//! MinHash over word shingles, LSH bands, the estimate checked against
//! `dedup.threshold`). The merge's order, (site, cluster, url, record id),
//! is the same in `run` and in partition/extract/merge whatever the ranks,
//! buckets and threads, so which article is kept is too.
//!
//! Only the articles kept are remembered, by their signature (4 bytes a
//! hash) and band keys, never by their text: a near duplicate is of an
//! article kept, and a chain of them names the first. The pages left out
//! here were still clustered and learned from (they were extracted); the
//! exact duplicates never were.

use std::borrow::Cow;
use std::collections::HashMap;
use std::io::{self, BufRead, Write};
use std::path::Path;

use canopy_site::config::DedupConfig;
use canopy_site::near::{similarity, MinHash};
use canopy_types::SourceRef;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// Articles read, then signed in parallel, at once.
const BATCH: usize = 512;

/// The `reason` of a near duplicate's line in `duplicates.jsonl`.
pub const REASON: &str = "near duplicate";

/// An article left out as a near duplicate.
#[derive(Debug, Clone)]
pub struct Removed {
    site: String,
    url: String,
    record_id: String,
    source: Option<SourceRef>,
    warc_date: Option<String>,
    /// A wrapper served it (for `RunStats::by_wrapper`).
    pub by_wrapper: bool,
    /// The line of `articles.jsonl` (from 0) of the article kept in its place.
    kept_line: u64,
    /// The MinHash estimate of their Jaccard similarity.
    similarity: f64,
}

/// The fields of an `articles.jsonl` line this step reads.
#[derive(Deserialize)]
struct ArticleLine<'a> {
    site: String,
    url: String,
    record_id: String,
    #[serde(borrow)]
    text: Cow<'a, str>,
    #[serde(default)]
    wrapper: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    warc_date: Option<String>,
    #[serde(default)]
    source: Option<SourceRef>,
}

/// A [`Write`] between the merge of the buckets' articles and
/// `articles.jsonl`: passes on each line (an article) that is no near
/// duplicate of one passed on before, and keeps the others' names.
pub struct NearFilter<'w> {
    out: &'w mut dyn Write,
    minhash: MinHash,
    threshold: f64,
    /// Bytes of a line not yet ended.
    pending: Vec<u8>,
    /// Whole lines waiting to be signed.
    batch: Vec<Vec<u8>>,
    /// Lines written.
    written: u64,
    /// The signatures of the articles kept, one after another.
    signatures: Vec<u32>,
    /// The line of each signature's article.
    lines: Vec<u64>,
    /// Band key → the first article kept with it (index of its signature).
    first: HashMap<u64, u32>,
    /// Band key → later articles kept with it: a pair that shared a band
    /// but fell under the threshold (rare).
    more: HashMap<u64, Vec<u32>>,
    removed: Vec<Removed>,
}

impl<'w> NearFilter<'w> {
    /// A filter into `out` with the `[dedup]` settings `config`.
    pub fn new(out: &'w mut dyn Write, config: &DedupConfig) -> NearFilter<'w> {
        NearFilter {
            out,
            minhash: config.minhash(),
            threshold: config.threshold,
            pending: Vec::new(),
            batch: Vec::with_capacity(BATCH),
            written: 0,
            signatures: Vec::new(),
            lines: Vec::new(),
            first: HashMap::new(),
            more: HashMap::new(),
            removed: Vec::new(),
        }
    }

    /// Writes out the lines still held and returns the articles left out,
    /// in the order of `articles.jsonl`.
    pub fn finish(mut self) -> io::Result<Vec<Removed>> {
        if !self.pending.is_empty() {
            let mut line = std::mem::take(&mut self.pending);
            line.push(b'\n');
            self.batch.push(line);
        }
        self.sift()?;
        Ok(self.removed)
    }

    /// The signature of kept article `slot`.
    fn signature(&self, slot: u32) -> &[u32] {
        let n = self.minhash.len();
        &self.signatures[slot as usize * n..(slot as usize + 1) * n]
    }

    /// Signs the batch's articles in parallel, then decides on each in
    /// order.
    fn sift(&mut self) -> io::Result<()> {
        let batch = std::mem::take(&mut self.batch);
        let minhash = &self.minhash;
        let signed: Vec<io::Result<(ArticleLine<'_>, Option<Vec<u32>>)>> = batch
            .par_iter()
            .map(|line| {
                let article: ArticleLine = serde_json::from_slice(line).map_err(|e| {
                    io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!("an article of the merge: {e}"),
                    )
                })?;
                let signature = minhash.signature(&article.text);
                Ok((article, signature))
            })
            .collect();
        for (line, signed) in batch.iter().zip(signed) {
            let (article, signature) = signed?;
            let Some(signature) = signature else {
                self.write_line(line)?;
                continue;
            };
            let keys: Vec<u64> = self.minhash.band_keys(&signature).collect();
            let mut candidates: Vec<u32> = Vec::new();
            for key in &keys {
                candidates.extend(self.first.get(key));
                candidates.extend(self.more.get(key).into_iter().flatten());
            }
            candidates.sort_unstable();
            candidates.dedup();
            // The first article kept (in the file's order) that is near
            // enough.
            let near = candidates.iter().find_map(|&slot| {
                let s = similarity(&signature, self.signature(slot));
                (s >= self.threshold).then_some((slot, s))
            });
            match near {
                Some((slot, s)) => self.removed.push(Removed {
                    site: article.site,
                    url: article.url,
                    record_id: article.record_id,
                    source: article.source,
                    warc_date: article.warc_date,
                    by_wrapper: article.wrapper.is_some(),
                    kept_line: self.lines[slot as usize],
                    similarity: s,
                }),
                None => {
                    let slot = u32::try_from(self.lines.len()).map_err(|_| {
                        io::Error::other("more than 2^32 articles for near deduplication")
                    })?;
                    for key in keys {
                        match self.first.entry(key) {
                            std::collections::hash_map::Entry::Vacant(v) => {
                                v.insert(slot);
                            }
                            std::collections::hash_map::Entry::Occupied(_) => {
                                self.more.entry(key).or_default().push(slot)
                            }
                        }
                    }
                    self.signatures.extend_from_slice(&signature);
                    self.lines.push(self.written);
                    self.write_line(line)?;
                }
            }
        }
        self.batch = batch;
        self.batch.clear();
        Ok(())
    }

    fn write_line(&mut self, line: &[u8]) -> io::Result<()> {
        self.out.write_all(line)?;
        self.written += 1;
        Ok(())
    }
}

impl Write for NearFilter<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let Some(end) = buf.iter().rposition(|&b| b == b'\n') else {
            self.pending.extend_from_slice(buf);
            return Ok(buf.len());
        };
        let mut whole = std::mem::take(&mut self.pending);
        whole.extend_from_slice(&buf[..=end]);
        self.pending.extend_from_slice(&buf[end + 1..]);
        for line in whole.split_inclusive(|&b| b == b'\n') {
            self.batch.push(line.to_vec());
            if self.batch.len() >= BATCH {
                self.sift()?;
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// A page as a near duplicate's line names it: an article's fields.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Named {
    site: String,
    url: String,
    record_id: String,
    source: Option<SourceRef>,
    warc_date: Option<String>,
}

/// One near duplicate's line of `duplicates.jsonl`: the fields of an exact
/// duplicate's (`canopy_site::dedup::Line`), the estimated `similarity`,
/// and the site of the article `kept`.
#[derive(Debug, Clone, Serialize)]
struct Line {
    site: String,
    url: String,
    record_id: String,
    source: Option<SourceRef>,
    warc_date: Option<String>,
    reason: &'static str,
    similarity: f64,
    kept: Named,
}

impl Line {
    /// Its place in `duplicates.jsonl` (`canopy_buckets::duplicate_key`):
    /// site, url, file, offset, record id.
    fn order(&self) -> (&str, &str, &str, Option<u64>, &str) {
        let (file, offset) = self
            .source
            .as_ref()
            .map_or(("", None), |s| (s.file.as_str(), s.offset));
        (&self.site, &self.url, file, offset, &self.record_id)
    }
}

/// Writes the lines of `removed` (sorted as `duplicates.jsonl`: site, url,
/// file, offset, record id) into `w`, naming each one's kept article from `articles`
/// (the `articles.jsonl` just written, read once, only the lines needed
/// parsed).
pub fn write_listing(removed: &[Removed], articles: &Path, w: &mut dyn Write) -> io::Result<()> {
    let mut wanted: Vec<u64> = removed.iter().map(|r| r.kept_line).collect();
    wanted.sort_unstable();
    wanted.dedup();
    let mut named: HashMap<u64, Named> = HashMap::with_capacity(wanted.len());
    let mut reader = io::BufReader::new(std::fs::File::open(articles)?);
    let mut line = Vec::new();
    let mut n = 0u64;
    for &want in &wanted {
        loop {
            line.clear();
            if reader.read_until(b'\n', &mut line)? == 0 {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    format!("{} ends before line {}", articles.display(), want + 1),
                ));
            }
            n += 1;
            if n - 1 == want {
                break;
            }
        }
        let a: ArticleLine = serde_json::from_slice(&line)?;
        named.insert(
            want,
            Named {
                site: a.site,
                url: a.url,
                record_id: a.record_id,
                source: a.source,
                warc_date: a.warc_date,
            },
        );
    }
    let mut lines: Vec<Line> = removed
        .iter()
        .map(|r| Line {
            site: r.site.clone(),
            url: r.url.clone(),
            record_id: r.record_id.clone(),
            source: r.source.clone(),
            warc_date: r.warc_date.clone(),
            reason: REASON,
            similarity: r.similarity,
            kept: named[&r.kept_line].clone(),
        })
        .collect();
    lines.sort_by(|a, b| a.order().cmp(&b.order()));
    for line in &lines {
        serde_json::to_writer(&mut *w, line)?;
        w.write_all(b"\n")?;
    }
    Ok(())
}
