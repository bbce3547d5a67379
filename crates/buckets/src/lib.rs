//! Per-site bucket files in a work directory: the shuffle by site that lets
//! Canopy read a crawl once, in bounded memory, on one machine or many.
//!
//! `canopy partition` streams its share of the input files and spills each
//! page record (and each feed item, keyed by the site of its URL) into
//! bucket [`bucket_of`]`(site, B)`; `canopy extract` reads one bucket from
//! every rank, one site at a time; `canopy merge` combines the buckets'
//! sorted outputs with a streaming k-way merge. The layout:
//!
//! ```text
//! WORK/fingerprint.json                   what the partition is made from (`fingerprint.rs`)
//! WORK/rank-RRRRR.done                    marker: W, B, the rank's counts, fingerprint digests
//! WORK/rejects/rank-RRRRR.jsonl           the rank's rejects, sorted
//! WORK/bucket-KKKKK/rank-RRRRR.data       records, one LZ4 frame each (`frame.rs`)
//! WORK/bucket-KKKKK/rank-RRRRR.index.jsonl  site, input position, offset, length of each,
//!                                         a page's HTML bytes and deduplication keys ([`PageKeys`])
//! OUT/buckets/bucket-KKKKK/{articles.jsonl,wrappers.jsonl,summary.csv,rejects.jsonl,
//!                           duplicates.jsonl,done.json}
//! ```
//!
//! Every file is written to a temporary name and renamed when whole, and a
//! rank's marker is written last, so a killed rank leaves nothing that
//! `extract` reads (it refuses to start until all W markers exist and
//! carry the folder's fingerprint).

pub mod fingerprint;
mod frame;
mod layout;
pub mod lz4;
mod merge;
mod reader;
mod writer;

pub use fingerprint::{claim_work, read_work_fingerprint, InputFile, WorkFingerprint, FINGERPRINT};
pub use layout::{
    bucket_dir, bucket_out_dir, check_layout, clear_work, complete_layout, read_bucket_marker,
    read_rank_marker, write_bucket_marker, write_rank_marker, BucketMarker, Layout, LayoutError,
    Partition, RankMarker, BUCKET_MARKER,
};
pub use merge::{article_key, duplicate_key, merge_csv, merge_jsonl, reject_key, wrapper_key};
pub use reader::{read_bucket_index, BucketReader, Entry};
pub use writer::RankWriter;

use canopy_types::{FeedItem, PageRecord};
use serde::{Deserialize, Serialize};

/// The layout of a work folder's frames (`frame.rs`) and index lines
/// (`reader.rs`, `writer.rs`), in its fingerprint: raised whenever either
/// changes, so that a folder written by a canopy of another layout is
/// refused by name, not read as damaged.
/// 0 is a fingerprint written before layouts were numbered.
pub const WORK_FORMAT: u32 = 1;

/// What exact deduplication compares of a page, written into the bucket
/// index beside its record, so that `extract` knows a site's duplicates
/// from the index alone, before it reads a page (`crates/site/src/dedup.rs`
/// computes them in `partition` and chooses from them in `extract`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageKeys {
    /// XXH3-128 (seed 0) of the URL's deduplication key
    /// (`canopy_ingest::dedup_url`), high half first.
    pub url: [u64; 2],
    /// `WARC-Date` in microseconds since 1970 (UTC), when it parses as RFC 3339.
    pub date: Option<i64>,
    /// XXH3-128 (seed 0) of the decoded HTML, high half first.
    pub body: [u64; 2],
}

impl PageKeys {
    /// XXH3-128 (seed 0) of `bytes` as two halves, high first: a specified
    /// hash, the same on every machine and build.
    pub fn hash(bytes: &[u8]) -> [u64; 2] {
        let h = twox_hash::XxHash3_128::oneshot(bytes);
        [(h >> 64) as u64, h as u64]
    }
}

/// Buckets when `--buckets` is not given, and the most `canopy run` uses.
pub const DEFAULT_BUCKETS: u32 = 64;

/// Input bytes per bucket that `canopy run` aims at ([`buckets_for`]).
pub const BUCKET_INPUT_BYTES: u64 = 32 << 20;

/// The buckets `canopy run` uses for `input_bytes` of input files: one per
/// [`BUCKET_INPUT_BYTES`], at least 1 and at most [`DEFAULT_BUCKETS`].
/// Every bucket costs files to create and remove, which on the dev corpora
/// (13 MB) took a tenth of the run; outputs are the same whatever B is.
/// The cap bounds the open files and write buffers of `partition` (two
/// files per bucket); past it, a bucket's index grows by about 80 bytes a
/// record in memory, and larger crawls are for the scale-out steps with `--buckets`.
pub fn buckets_for(input_bytes: u64) -> u32 {
    let b = input_bytes.div_ceil(BUCKET_INPUT_BYTES);
    b.clamp(1, u64::from(DEFAULT_BUCKETS)) as u32
}

/// The stable hash of a site key: XXH64 (seed 0) of its UTF-8 bytes. The
/// algorithm is specified (xxhash.com) and does not change between Rust
/// versions, machines or runs, unlike `std`'s `DefaultHasher`.
pub fn site_hash(site: &str) -> u64 {
    xxh64(site.as_bytes())
}

/// XXH64 (seed 0) of `bytes`: site hashes and frame checksums.
fn xxh64(bytes: &[u8]) -> u64 {
    twox_hash::XxHash64::oneshot(0, bytes)
}

/// The bucket a site's records go to: `site_hash(site) mod buckets`.
pub fn bucket_of(site: &str, buckets: u32) -> u32 {
    (site_hash(site) % u64::from(buckets.max(1))) as u32
}

/// Where a record was read: the file's index in the sorted, expanded input
/// list and the record's sequence number among the records kept from that
/// file. Sorting by it restores the order a single reader sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct InputPos {
    pub file: u32,
    pub seq: u32,
}

/// What a bucket holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Item {
    Page(PageRecord),
    Feed(FeedItem),
}

/// One line of a bucket data file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    pub pos: InputPos,
    pub item: Item,
}

fn rank_name(rank: u32) -> String {
    format!("rank-{rank:05}")
}

/// A rank's data file in a bucket folder.
fn data_name(rank: u32) -> String {
    format!("{}.data", rank_name(rank))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn site_hash_is_xxh64_seed_0() {
        // Reference values of the XXH64 specification.
        assert_eq!(site_hash(""), 0xEF46_DB37_51D8_E999);
        assert_eq!(site_hash("abc"), 0x44BC_2CF5_AD77_0999);
        assert_eq!(bucket_of("abc", 64), (0x44BC_2CF5_AD77_0999u64 % 64) as u32);
    }

    #[test]
    fn buckets_grow_with_the_input_up_to_the_default() {
        assert_eq!(buckets_for(0), 1);
        assert_eq!(buckets_for(13_000_000), 1);
        assert_eq!(buckets_for(BUCKET_INPUT_BYTES + 1), 2);
        assert_eq!(buckets_for(205 << 20), 7);
        assert_eq!(buckets_for(2060 << 20), DEFAULT_BUCKETS);
        assert_eq!(buckets_for(u64::MAX), DEFAULT_BUCKETS);
    }
}
