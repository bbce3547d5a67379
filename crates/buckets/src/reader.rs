//! Reading one bucket from every rank: the index first (small), then each
//! site's records by offset, so only the sites in progress are in memory.

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::{bucket_dir, data_name, rank_name, InputPos, PageKeys, Record};

/// Where one record of a bucket is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    pub rank: u32,
    pub pos: InputPos,
    /// A feed item (otherwise a page record).
    pub feed: bool,
    pub offset: u64,
    pub len: u64,
    /// A page's HTML bytes, decoded (0 for a feed item, and in an index
    /// written before it was recorded): what a site's pages weigh, known
    /// before they are read.
    pub html: u64,
    /// A page's deduplication keys (none for a feed item).
    pub keys: Option<PageKeys>,
}

#[derive(Deserialize)]
struct IndexLine {
    site: String,
    pos: InputPos,
    feed: bool,
    offset: u64,
    len: u64,
    #[serde(default)]
    html: u64,
    #[serde(default)]
    keys: Option<PageKeys>,
}

fn invalid(path: &Path, what: impl std::fmt::Display) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("{}: {what}", path.display()),
    )
}

/// The index of bucket `bucket` over ranks `0..world_size`, by site. A rank
/// with no record in the bucket has no file. Every entry must lie inside
/// its rank's data file: a damaged `len` or `offset` is an error here,
/// before anything is allocated for it.
pub fn read_bucket_index(
    work: &Path,
    bucket: u32,
    world_size: u32,
) -> io::Result<BTreeMap<String, Vec<Entry>>> {
    let dir = bucket_dir(work, bucket);
    let mut sites: BTreeMap<String, Vec<Entry>> = BTreeMap::new();
    for rank in 0..world_size {
        let path = dir.join(format!("{}.index.jsonl", rank_name(rank)));
        let file = match File::open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => return Err(invalid(&path, e)),
        };
        let data = dir.join(data_name(rank));
        let data_len = std::fs::metadata(&data)
            .map_err(|e| invalid(&data, e))?
            .len();
        for (n, line) in BufReader::new(file).lines().enumerate() {
            let line = line.map_err(|e| invalid(&path, e))?;
            let l: IndexLine = serde_json::from_str(&line).map_err(|e| invalid(&path, e))?;
            check_span(l.offset, l.len, data_len)
                .map_err(|what| invalid(&path, format!("line {}: {what}", n + 1)))?;
            sites.entry(l.site).or_default().push(Entry {
                rank,
                pos: l.pos,
                feed: l.feed,
                offset: l.offset,
                len: l.len,
                html: l.html,
                keys: l.keys,
            });
        }
    }
    Ok(sites)
}

/// Whether `len` bytes at `offset` lie inside a data file of `file_len`
/// bytes; if not, what is wrong, for the error.
fn check_span(offset: u64, len: u64, file_len: u64) -> Result<(), String> {
    match offset.checked_add(len) {
        Some(end) if end <= file_len => Ok(()),
        _ => Err(format!(
            "record of {len} bytes at offset {offset} past the end of the data file \
             ({file_len} bytes): the index is damaged"
        )),
    }
}

/// Reads records of one bucket by their index entries.
pub struct BucketReader {
    dir: PathBuf,
}

impl BucketReader {
    pub fn new(work: &Path, bucket: u32) -> BucketReader {
        BucketReader {
            dir: bucket_dir(work, bucket),
        }
    }

    /// The frames at `entries` as stored, in the order given, for
    /// [`BucketReader::decode`] to decode, on other threads if the caller
    /// likes: reading is a copy from the page cache, decoding (checksum,
    /// LZ4, JSON, UTF-8) most of the cost of a record.
    pub fn read_frames(&self, entries: &[Entry]) -> io::Result<Vec<Vec<u8>>> {
        let mut files = Files::default();
        entries
            .iter()
            .map(|e| {
                let mut frame = Vec::new();
                files.read(self, e, &mut frame)?;
                Ok(frame)
            })
            .collect()
    }

    /// The record in `frame`, read at `entry` (consumed: a page's HTML may
    /// be the frame's buffer).
    pub fn decode(&self, entry: &Entry, frame: Vec<u8>) -> io::Result<Record> {
        crate::frame::decode(frame).map_err(|err| {
            invalid(
                &self.dir.join(data_name(entry.rank)),
                format!("record at {}: {err}", entry.offset),
            )
        })
    }
}

/// The data files of a bucket opened so far, by rank, with their lengths.
#[derive(Default)]
struct Files(HashMap<u32, (PathBuf, File, u64)>);

impl Files {
    /// Reads the frame at `e` into `frame`.
    fn read(&mut self, reader: &BucketReader, e: &Entry, frame: &mut Vec<u8>) -> io::Result<()> {
        let (path, file, file_len) = match self.0.entry(e.rank) {
            std::collections::hash_map::Entry::Occupied(o) => o.into_mut(),
            std::collections::hash_map::Entry::Vacant(v) => {
                let path = reader.dir.join(data_name(e.rank));
                let file = File::open(&path).map_err(|err| invalid(&path, err))?;
                let len = file.metadata().map_err(|err| invalid(&path, err))?.len();
                v.insert((path, file, len))
            }
        };
        // Entries come from the checked index; one made by hand is checked
        // too, so that no length allocates more than the file holds.
        check_span(e.offset, e.len, *file_len).map_err(|what| invalid(path, what))?;
        let len = usize::try_from(e.len).map_err(|err| invalid(path, err))?;
        // Read into the vector's spare room, not into bytes zeroed first.
        frame.clear();
        frame.reserve_exact(len);
        let read = file
            .seek(SeekFrom::Start(e.offset))
            .and_then(|_| Read::by_ref(file).take(e.len).read_to_end(frame))
            .map_err(|err| invalid(path, err))?;
        if read != len {
            return Err(invalid(path, "data file shorter than its index says"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{bucket_of, Item, RankWriter};
    use canopy_types::{FeedItem, PageRecord, SourceRef};

    fn page(url: &str, seq: u32) -> (String, Record) {
        let site = url.split('/').nth(2).unwrap().to_string();
        let record = Record {
            pos: InputPos { file: 0, seq },
            item: Item::Page(PageRecord {
                url: url.into(),
                record_id: format!("<urn:{seq}>"),
                source: SourceRef {
                    file: "a.warc.gz".into(),
                    offset: Some(u64::from(seq) * 100),
                },
                status: Some(200),
                charset: "UTF-8".into(),
                date: Some("2012-07-24T00:11:00Z".into()),
                content_language: None,
                html: format!("<p>page {seq} ünïcode</p>"),
            }),
        };
        (site, record)
    }

    #[test]
    fn records_come_back_by_site_and_offset() {
        let dir = tempfile::tempdir().unwrap();
        let work = dir.path();
        let mut records = vec![
            page("http://a.example/1", 0),
            page("http://b.example/1", 1),
            page("http://a.example/2", 2),
        ];
        records.push((
            "a.example".into(),
            Record {
                pos: InputPos { file: 1, seq: 0 },
                item: Item::Feed(FeedItem {
                    url: "http://a.example/1".into(),
                    title: "T".into(),
                    description: "D".into(),
                }),
            },
        ));
        let mut writer = RankWriter::new(work, 1, 4, canopy_output::Durability::Synced);
        writer.write_batch(records.clone()).unwrap();
        writer.finish().unwrap();

        let bucket = bucket_of("a.example", 4);
        let index = read_bucket_index(work, bucket, 2).unwrap();
        let entries = &index["a.example"];
        assert_eq!(entries.len(), 3);
        assert!(entries.iter().all(|e| e.rank == 1));
        assert_eq!(entries.iter().filter(|e| e.feed).count(), 1);
        let expected: Vec<Record> = [0, 2, 3].iter().map(|&i| records[i].1.clone()).collect();
        // No temporary file is left behind.
        let names: Vec<String> = std::fs::read_dir(bucket_dir(work, bucket))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(names.iter().all(|n| !n.starts_with('.')), "{names:?}");

        // Frames read as stored decode, on any thread, to the records.
        let reader = BucketReader::new(work, bucket);
        let frames = reader.read_frames(entries).unwrap();
        let decoded: Vec<Record> = std::thread::scope(|s| {
            let reader = &reader;
            let handles: Vec<_> = entries
                .iter()
                .zip(frames.clone())
                .map(|(e, f)| s.spawn(move || reader.decode(e, f).unwrap()))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert_eq!(decoded, expected);
        // A damaged frame is an error naming the data file and the offset.
        let mut damaged = frames[1].clone();
        let last = damaged.len() - 1;
        damaged[last] ^= 0x55;
        let err = reader.decode(&entries[1], damaged).unwrap_err().to_string();
        assert!(err.contains(&data_name(1)), "{err}");
        assert!(
            err.contains(&format!("record at {}", entries[1].offset)),
            "{err}"
        );
    }

    #[test]
    fn an_index_entry_past_the_data_file_is_an_error_not_an_allocation() {
        let dir = tempfile::tempdir().unwrap();
        let work = dir.path();
        let mut writer = RankWriter::new(work, 0, 1, canopy_output::Durability::Unsynced);
        writer
            .write_batch(vec![
                page("http://a.example/1", 0),
                page("http://a.example/2", 1),
            ])
            .unwrap();
        writer.finish().unwrap();
        let index_path = bucket_dir(work, 0).join("rank-00000.index.jsonl");
        let good = std::fs::read_to_string(&index_path).unwrap();
        let entries = read_bucket_index(work, 0, 1).unwrap()["a.example"].clone();
        let reader = BucketReader::new(work, 0);
        for (from, to) in [
            (
                format!("\"len\":{}", entries[1].len),
                "\"len\":999999999999".to_string(),
            ),
            (
                format!("\"len\":{}", entries[1].len),
                format!("\"len\":{}", u64::MAX),
            ),
            (
                format!("\"offset\":{}", entries[1].offset),
                format!("\"offset\":{}", u64::MAX - 1),
            ),
        ] {
            std::fs::write(&index_path, good.replacen(&from, &to, 1)).unwrap();
            let err = read_bucket_index(work, 0, 1).unwrap_err().to_string();
            assert!(err.contains("line 2: record of"), "{err}");
            assert!(err.contains("the index is damaged"), "{err}");
            // An entry made by hand is refused by the reader too.
            let mut bad = entries[1];
            bad.len = 1 << 40;
            let err = reader.read_frames(&[bad]).unwrap_err().to_string();
            assert!(err.contains("past the end of the data file"), "{err}");
        }
    }
}
