//! Spilling one rank's records into its bucket files.

use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use canopy_output::Durability;
use rayon::prelude::*;
use serde::Serialize;
use tempfile::NamedTempFile;

use crate::{bucket_dir, bucket_of, data_name, rank_name, InputPos, Item, Record};

/// One line of a bucket's index file: which site a record belongs to and
/// where its frame sits in the data file.
#[derive(Serialize)]
struct IndexLine<'a> {
    site: &'a str,
    pos: InputPos,
    feed: bool,
    offset: u64,
    len: u64,
}

/// The two open (temporary) files of one bucket.
struct BucketFile {
    data: BufWriter<NamedTempFile>,
    index: BufWriter<NamedTempFile>,
    offset: u64,
}

/// Writes one rank's share of every bucket. Files are created on first use
/// under temporary names and renamed by [`RankWriter::finish`], so a rank
/// killed midway leaves only dot-files that no reader opens.
pub struct RankWriter {
    work: PathBuf,
    rank: u32,
    buckets: u32,
    files: Vec<Option<BucketFile>>,
    durability: Durability,
    /// Whether frames are LZ4 compressed ([`RankWriter::stored`]).
    compress: bool,
}

impl RankWriter {
    pub fn new(work: &Path, rank: u32, buckets: u32, durability: Durability) -> RankWriter {
        RankWriter {
            work: work.to_path_buf(),
            rank,
            buckets,
            files: (0..buckets).map(|_| None).collect(),
            durability,
            compress: true,
        }
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
        let compress = self.compress;
        let frames: Vec<(String, InputPos, bool, io::Result<Vec<u8>>)> = records
            .into_par_iter()
            .map(|(site, record)| {
                let (pos, feed) = (record.pos, matches!(record.item, Item::Feed(_)));
                (site, pos, feed, crate::frame::encode(record, compress))
            })
            .collect();
        for (site, pos, feed, frame) in frames {
            let frame = frame?;
            let bucket = bucket_of(&site, self.buckets);
            let file = self.open(bucket)?;
            file.data.write_all(&frame)?;
            let line = IndexLine {
                site: &site,
                pos,
                feed,
                offset: file.offset,
                len: frame.len() as u64,
            };
            serde_json::to_writer(&mut file.index, &line)?;
            file.index.write_all(b"\n")?;
            file.offset += frame.len() as u64;
        }
        Ok(())
    }

    fn open(&mut self, bucket: u32) -> io::Result<&mut BucketFile> {
        let slot = &mut self.files[bucket as usize];
        if slot.is_none() {
            let dir = bucket_dir(&self.work, bucket);
            std::fs::create_dir_all(&dir)?;
            let temp = |what: &str| {
                tempfile::Builder::new()
                    .prefix(&format!(".{}.{what}.", rank_name(self.rank)))
                    .suffix(".tmp")
                    .tempfile_in(&dir)
            };
            *slot = Some(BucketFile {
                data: BufWriter::with_capacity(1 << 16, temp("data")?),
                index: BufWriter::new(temp("index")?),
                offset: 0,
            });
        }
        Ok(slot.as_mut().expect("opened above"))
    }

    /// Flushes, syncs (if [`Durability::Synced`]) and renames every bucket file this rank wrote
    /// (buckets it has no records for get no file).
    pub fn finish(self) -> io::Result<()> {
        let name = rank_name(self.rank);
        for (bucket, file) in self.files.into_iter().enumerate() {
            let Some(file) = file else { continue };
            let dir = bucket_dir(&self.work, bucket as u32);
            for (writer, final_name) in [
                (file.data, data_name(self.rank)),
                (file.index, format!("{name}.index.jsonl")),
            ] {
                let temp = writer.into_inner().map_err(|e| e.into_error())?;
                if self.durability == Durability::Synced {
                    temp.as_file().sync_all()?;
                }
                temp.persist(dir.join(final_name)).map_err(|e| e.error)?;
            }
        }
        Ok(())
    }
}
