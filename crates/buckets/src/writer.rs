//! Spilling one rank's records into its bucket files.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use canopy_output::Durability;
use rayon::prelude::*;
use serde::Serialize;
use tempfile::{NamedTempFile, TempPath};

use crate::{bucket_dir, bucket_of, data_name, rank_name, InputPos, Item, PageKeys, Record};

/// One line of a bucket's index file: which site a record belongs to and
/// where its frame sits in the data file.
#[derive(Serialize)]
struct IndexLine<'a> {
    site: &'a str,
    pos: InputPos,
    feed: bool,
    offset: u64,
    len: u64,
    /// A page's HTML bytes, decoded (none for a feed item): what a site's
    /// pages weigh before they are read back (`Entry::html`).
    #[serde(skip_serializing_if = "Option::is_none")]
    html: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    keys: Option<PageKeys>,
}

/// The two (temporary) files of one bucket, and their writers while open.
struct BucketFile {
    data: TempPath,
    index: TempPath,
    /// `None` while closed to keep the open files under the writer's bound.
    open: Option<OpenFiles>,
    offset: u64,
    /// The writer's clock when the bucket was last written to.
    used: u64,
}

struct OpenFiles {
    data: BufWriter<File>,
    index: BufWriter<File>,
}

impl OpenFiles {
    fn new(data: File, index: File) -> OpenFiles {
        OpenFiles {
            data: BufWriter::with_capacity(1 << 16, data),
            index: BufWriter::new(index),
        }
    }

    /// Writes out what is buffered and closes both files.
    fn close(mut self) -> io::Result<()> {
        self.data.flush()?;
        self.index.flush()
    }
}

/// Writes one rank's share of every bucket. Files are created on first use
/// under temporary names and renamed by [`RankWriter::finish`], so a rank
/// killed midway leaves only dot-files that no reader opens.
///
/// At most `MAX_OPEN_BUCKETS` buckets have their files open at once
/// (two descriptors and 72 KiB of buffers each): past that, the bucket
/// written to least recently is flushed and closed, and opened again for
/// appending when its next record comes. The bytes written are the same
/// whatever the bound; only `--buckets` above it pays for the reopening.
pub struct RankWriter {
    work: PathBuf,
    rank: u32,
    buckets: u32,
    files: Vec<Option<BucketFile>>,
    /// The buckets whose files are open, by when they were last used.
    open: BTreeMap<u64, u32>,
    clock: u64,
    max_open: usize,
    durability: Durability,
    /// Whether frames are LZ4 compressed ([`RankWriter::stored`]).
    compress: bool,
}

/// Buckets whose files one rank's writer keeps open at once: 256
/// descriptors, a quarter of the 1024 that is the usual default limit
/// (`ulimit -n`), leaving the rest to the input file, the pool's threads
/// and the libraries. `canopy run` uses at most 64 buckets
/// ([`crate::DEFAULT_BUCKETS`]), so it never closes one early; only
/// `canopy partition --buckets` above 128 does.
pub const MAX_OPEN_BUCKETS: usize = 128;

impl RankWriter {
    pub fn new(work: &Path, rank: u32, buckets: u32, durability: Durability) -> RankWriter {
        RankWriter {
            work: work.to_path_buf(),
            rank,
            buckets,
            files: (0..buckets).map(|_| None).collect(),
            open: BTreeMap::new(),
            clock: 0,
            max_open: MAX_OPEN_BUCKETS,
            durability,
            compress: true,
        }
    }

    /// Keeps at most `n` (at least 1) buckets open instead of
    /// `MAX_OPEN_BUCKETS` (for tests of the closing and reopening).
    pub fn max_open(mut self, n: usize) -> RankWriter {
        self.max_open = n.max(1);
        self
    }

    /// Writes frames without compressing them (`frame.rs`): for a scratch
    /// folder of a small input, where LZ4 costs CPU and saves nothing
    /// that matters.
    pub fn stored(mut self) -> RankWriter {
        self.compress = false;
        self
    }

    /// Spills `records` (each with its site key): encoded in parallel, one
    /// frame per record (`frame.rs`), written in the order given.
    pub fn write_batch(&mut self, records: Vec<(String, Record)>) -> io::Result<()> {
        self.write_keyed_batch(records.into_iter().map(|(s, r)| (s, r, None)).collect())
    }

    /// [`RankWriter::write_batch`] with each page's deduplication keys,
    /// written into the index.
    pub fn write_keyed_batch(
        &mut self,
        records: Vec<(String, Record, Option<PageKeys>)>,
    ) -> io::Result<()> {
        let compress = self.compress;
        type Encoded = (
            String,
            InputPos,
            Option<u64>,
            Option<PageKeys>,
            io::Result<crate::frame::Frame>,
        );
        let frames: Vec<Encoded> = records
            .into_par_iter()
            .map(|(site, record, keys)| {
                let html = match &record.item {
                    Item::Page(page) => Some(page.html.len() as u64),
                    Item::Feed(_) => None,
                };
                (
                    site,
                    record.pos,
                    html,
                    keys,
                    crate::frame::encode(record, compress),
                )
            })
            .collect();
        for (site, pos, html, keys, frame) in frames {
            let frame = frame?;
            let bucket = bucket_of(&site, self.buckets);
            let file = self.open(bucket)?;
            let line = IndexLine {
                site: &site,
                pos,
                feed: html.is_none(),
                offset: file.offset,
                len: frame.len() as u64,
                html,
                keys,
            };
            let open = file.open.as_mut().expect("open() opens it");
            frame.write_to(&mut open.data)?;
            serde_json::to_writer(&mut open.index, &line)?;
            open.index.write_all(b"\n")?;
            file.offset += frame.len() as u64;
        }
        Ok(())
    }

    /// The files of `bucket`, open: created or reopened as needed.
    fn open(&mut self, bucket: u32) -> io::Result<&mut BucketFile> {
        self.clock += 1;
        let index = bucket as usize;
        let state = self.files[index]
            .as_ref()
            .map(|f| (f.open.is_some(), f.used));
        match state {
            Some((true, used)) => {
                self.open.remove(&used);
            }
            Some((false, _)) => {
                self.make_room()?;
                let file = self.files[index].as_mut().expect("matched");
                let append = |path: &TempPath| OpenOptions::new().append(true).open(path);
                file.open = Some(OpenFiles::new(append(&file.data)?, append(&file.index)?));
            }
            None => {
                self.make_room()?;
                let dir = bucket_dir(&self.work, bucket);
                std::fs::create_dir_all(&dir)?;
                let temp = |what: &str| {
                    tempfile::Builder::new()
                        .prefix(&format!(".{}.{what}.", rank_name(self.rank)))
                        .suffix(".tmp")
                        .tempfile_in(&dir)
                        .map(NamedTempFile::into_parts)
                };
                let (data, data_path) = temp("data")?;
                let (index_file, index_path) = temp("index")?;
                self.files[index] = Some(BucketFile {
                    data: data_path,
                    index: index_path,
                    open: Some(OpenFiles::new(data, index_file)),
                    offset: 0,
                    used: 0,
                });
            }
        }
        self.open.insert(self.clock, bucket);
        let file = self.files[index].as_mut().expect("set above");
        file.used = self.clock;
        Ok(file)
    }

    /// Closes the least recently used buckets until one more may open.
    fn make_room(&mut self) -> io::Result<()> {
        while self.open.len() >= self.max_open {
            let Some((_, bucket)) = self.open.pop_first() else {
                break;
            };
            if let Some(open) = self.files[bucket as usize]
                .as_mut()
                .and_then(|f| f.open.take())
            {
                open.close()?;
            }
        }
        Ok(())
    }

    /// Flushes, syncs (if [`Durability::Synced`]) and renames every bucket file this rank wrote
    /// (buckets it has no records for get no file).
    pub fn finish(self) -> io::Result<()> {
        let name = rank_name(self.rank);
        for (bucket, file) in self.files.into_iter().enumerate() {
            let Some(file) = file else { continue };
            let dir = bucket_dir(&self.work, bucket as u32);
            let (data, index) = match file.open {
                Some(open) => {
                    let data = open.data.into_inner().map_err(|e| e.into_error())?;
                    let index = open.index.into_inner().map_err(|e| e.into_error())?;
                    (Some(data), Some(index))
                }
                None => (None, None),
            };
            for (path, open, final_name) in [
                (file.data, data, data_name(self.rank)),
                (file.index, index, format!("{name}.index.jsonl")),
            ] {
                if self.durability == Durability::Synced {
                    // A closed file is opened again to be synced: fsync
                    // flushes the file, whichever descriptor asks.
                    match open {
                        Some(f) => f.sync_all()?,
                        None => File::open(&path)?.sync_all()?,
                    }
                } else {
                    drop(open);
                }
                path.persist(dir.join(final_name)).map_err(|e| e.error)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use canopy_types::FeedItem;

    fn records(n: u32) -> Vec<(String, Record)> {
        (0..n)
            .map(|i| {
                let site = format!("site{}.example", i % 13);
                let item = Item::Feed(FeedItem {
                    url: format!("http://{site}/{i}"),
                    title: format!("title {i}"),
                    description: "d".repeat(i as usize),
                });
                let pos = InputPos { file: 0, seq: i };
                (site, Record { pos, item })
            })
            .collect()
    }

    /// Every file under `dir`, by path relative to it, with its bytes.
    fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
        let mut out = BTreeMap::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                } else {
                    let bytes = std::fs::read(&p).unwrap();
                    out.insert(p.strip_prefix(dir).unwrap().to_path_buf(), bytes);
                }
            }
        }
        out
    }

    #[test]
    fn closing_buckets_to_bound_open_files_writes_the_same_bytes() {
        let write = |max_open: usize, durability| {
            let dir = tempfile::tempdir().unwrap();
            let mut w = RankWriter::new(dir.path(), 0, 11, durability).max_open(max_open);
            w.write_batch(records(200)).unwrap();
            w.write_batch(records(50)).unwrap();
            w.finish().unwrap();
            (tree(dir.path()), dir)
        };
        let (all_open, _a) = write(MAX_OPEN_BUCKETS, Durability::Unsynced);
        // Two files for each bucket with records, no temporary left.
        let buckets: std::collections::BTreeSet<u32> = records(13)
            .iter()
            .map(|(site, _)| bucket_of(site, 11))
            .collect();
        assert!(buckets.len() > 5, "{buckets:?}");
        assert_eq!(all_open.len(), 2 * buckets.len(), "{:?}", all_open.keys());
        assert!(all_open.keys().all(|p| !p.to_string_lossy().contains("/.")));
        for n in [1, 2, 5] {
            for durability in [Durability::Unsynced, Durability::Synced] {
                assert_eq!(write(n, durability).0, all_open, "max_open {n}");
            }
        }
    }
}
