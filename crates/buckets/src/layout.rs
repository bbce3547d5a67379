//! Paths of the work directory and the completion markers.

use std::collections::BTreeMap;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use canopy_output::Durability;
use serde::{de::DeserializeOwned, Deserialize, Serialize};
use serde_json::Value;

use crate::fingerprint::{json_differences, read_work_fingerprint, WorkFingerprint, FINGERPRINT};
use crate::rank_name;

/// The file name of a bucket's completion marker in its output folder.
pub const BUCKET_MARKER: &str = "done.json";

/// `WORK/bucket-KKKKK`.
pub fn bucket_dir(work: &Path, bucket: u32) -> PathBuf {
    work.join(format!("bucket-{bucket:05}"))
}

/// `OUT/buckets/bucket-KKKKK`.
pub fn bucket_out_dir(out: &Path, bucket: u32) -> PathBuf {
    out.join("buckets").join(format!("bucket-{bucket:05}"))
}

/// A finished rank: written last by `partition`, as `WORK/rank-RRRRR.done`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RankMarker {
    pub rank: u32,
    pub world_size: u32,
    pub buckets: u32,
    /// Input files read by this rank, and their size in bytes.
    pub files: u64,
    pub bytes: u64,
    /// Records spilled to buckets.
    pub pages: u64,
    pub feed_items: u64,
    /// Lines of `WORK/rejects/rank-RRRRR.jsonl`.
    pub rejects: u64,
    pub revisits: u64,
    pub skipped: u64,
    /// `skipped` by reason (`canopy_ingest::Skip::name`).
    #[serde(default)]
    pub skipped_by: BTreeMap<String, u64>,
    /// What the rank read, each of which ends as exactly one page, feed,
    /// revisit, skip or reject: WARC and ARC records (a stretch that is not
    /// a record and an unreadable rest of a file count as one each), feed
    /// files, and inputs that could not be read.
    #[serde(default)]
    pub records: u64,
    /// Feed documents whose items were spilled (feed responses in WARCs
    /// and feed files).
    #[serde(default)]
    pub feeds: u64,
    /// The digest of the work folder's fingerprint this rank was
    /// partitioned for (empty: an older Canopy's marker).
    #[serde(default)]
    pub work: String,
    /// The digest of this rank's share of the input files.
    #[serde(default)]
    pub share: String,
    /// Items of feeds inside WARCs dropped because they link to another
    /// site than the feed's (`ingest.trust_feeds`).
    #[serde(default)]
    pub feed_items_foreign: u64,
}

/// A finished bucket: written last by `extract`, as
/// `OUT/buckets/bucket-KKKKK/done.json`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BucketMarker {
    pub bucket: u32,
    pub sites: u64,
    pub articles: u64,
    /// Articles a wrapper served (the rest came from a page-level method).
    pub by_wrapper: u64,
    pub wrappers: u64,
    /// Rows of the bucket's `summary.csv`.
    pub clusters: u64,
    /// Lines of the bucket's `rejects.jsonl` (pages over their time budget).
    #[serde(default)]
    pub rejects: u64,
    /// Of those, the lines of the saved wrappers file (`--wrappers`) that
    /// could not be used: rejects that are no record of the inputs.
    #[serde(default)]
    pub wrapper_rejects: u64,
    /// Pages left out as duplicates: lines of the bucket's
    /// `duplicates.jsonl`, counted as skipped records.
    #[serde(default)]
    pub duplicates: u64,
    /// Pages extracted whose article was left out because its language is
    /// not among the languages kept (`run.languages`, `--lang`), by
    /// language code.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub lang_filtered: BTreeMap<String, u64>,
    /// The digest of the work folder's fingerprint it was extracted from.
    #[serde(default)]
    pub work: String,
    /// The settings it was extracted with (method, config, saved
    /// wrappers…; null: an older Canopy's marker).
    #[serde(default)]
    pub settings: Value,
}

impl BucketMarker {
    /// The bucket's pages: each ends as an article, a duplicate, a reject
    /// of its own (not a saved wrapper's) or an article left out for its
    /// language.
    pub fn pages(&self) -> u64 {
        self.articles
            + self.duplicates
            + self.rejects.saturating_sub(self.wrapper_rejects)
            + self.lang_filtered.values().sum::<u64>()
    }

    /// What differs between the partition and settings this bucket was
    /// extracted from and `work` (a fingerprint digest) and `settings`;
    /// empty when it may be reused.
    pub fn differences(&self, work: &str, settings: &Value) -> Vec<String> {
        let mut out = Vec::new();
        if self.work != work {
            out.push("extracted from another partition of the work folder".to_string());
        }
        if self.settings.is_null() {
            out.push("extracted by an older canopy, which did not record its settings".into());
        } else {
            json_differences("settings", &self.settings, settings, &mut out);
        }
        out
    }
}

/// The shape every rank of one partition agrees on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    pub world_size: u32,
    pub buckets: u32,
}

/// Why a work directory cannot be used (yet).
#[derive(Debug)]
pub enum LayoutError {
    /// Some ranks have not finished (or not started).
    MissingRanks {
        missing: Vec<u32>,
        world_size: u32,
    },
    /// No rank has finished: nothing says what W is.
    NoRanks,
    /// Markers disagree with each other or with the flags given.
    Mismatch(String),
    Io(io::Error),
}

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LayoutError::MissingRanks {
                missing,
                world_size,
            } => {
                let shown: Vec<String> = missing.iter().take(10).map(|r| r.to_string()).collect();
                write!(
                    f,
                    "{} of {world_size} ranks have not finished partitioning (no marker for rank {}{})",
                    missing.len(),
                    shown.join(", "),
                    if missing.len() > 10 { ", …" } else { "" }
                )
            }
            LayoutError::NoRanks => write!(f, "no rank has finished partitioning (no rank-*.done)"),
            LayoutError::Mismatch(m) => write!(f, "{m}"),
            LayoutError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for LayoutError {}

impl From<io::Error> for LayoutError {
    fn from(e: io::Error) -> Self {
        LayoutError::Io(e)
    }
}

pub(crate) fn read_json<T: DeserializeOwned>(path: &Path) -> io::Result<Option<T>> {
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| io::Error::other(format!("{}: {e}", path.display()))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

fn write_json<T: Serialize>(
    dir: &Path,
    name: &str,
    value: &T,
    durability: Durability,
) -> io::Result<()> {
    canopy_output::write_atomic_as(dir, name, durability, |w| {
        serde_json::to_writer(&mut *w, value)?;
        w.write_all(b"\n")
    })
}

pub fn read_rank_marker(work: &Path, rank: u32) -> io::Result<Option<RankMarker>> {
    read_json(&work.join(format!("{}.done", rank_name(rank))))
}

pub fn write_rank_marker(
    work: &Path,
    marker: &RankMarker,
    durability: Durability,
) -> io::Result<()> {
    write_json(
        work,
        &format!("{}.done", rank_name(marker.rank)),
        marker,
        durability,
    )
}

pub fn read_bucket_marker(dir: &Path) -> io::Result<Option<BucketMarker>> {
    read_json(&dir.join(BUCKET_MARKER))
}

pub fn write_bucket_marker(
    dir: &Path,
    marker: &BucketMarker,
    durability: Durability,
) -> io::Result<()> {
    write_json(dir, BUCKET_MARKER, marker, durability)
}

/// The rank markers present in `work`, sorted by rank.
fn rank_markers(work: &Path) -> io::Result<Vec<RankMarker>> {
    let mut markers = Vec::new();
    let entries = match std::fs::read_dir(work) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(markers),
        Err(e) => return Err(e),
    };
    for entry in entries {
        let path = entry?.path();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if name.starts_with("rank-") && name.ends_with(".done") {
            if let Some(m) = read_json::<RankMarker>(&path)? {
                markers.push(m);
            }
        }
    }
    markers.sort_by_key(|m| m.rank);
    Ok(markers)
}

/// Checks that the markers already in `work` were written with the same W
/// and B as `layout` (a partition must not mix shapes).
pub fn check_layout(work: &Path, layout: Layout) -> Result<(), LayoutError> {
    for m in rank_markers(work)? {
        if m.world_size != layout.world_size || m.buckets != layout.buckets {
            return Err(LayoutError::Mismatch(format!(
                "{} holds rank {} of a partition with --world-size {} --buckets {}, \
                 not --world-size {} --buckets {}: use the same values for every rank, \
                 or another work folder",
                work.display(),
                m.rank,
                m.world_size,
                m.buckets,
                layout.world_size,
                layout.buckets
            )));
        }
    }
    Ok(())
}

/// A finished partition: its layout, every rank's marker (their counts
/// feed the run summary) and the work folder's fingerprint.
#[derive(Debug, Clone)]
pub struct Partition {
    pub layout: Layout,
    pub ranks: Vec<RankMarker>,
    pub fingerprint: WorkFingerprint,
}

/// The finished partition in `work`: every rank 0..W has its marker, all
/// agree on W and B, and each was written for the folder's fingerprint
/// (the same input list, and its own share of it).
pub fn complete_layout(work: &Path) -> Result<Partition, LayoutError> {
    let markers = rank_markers(work)?;
    let first = markers.first().ok_or(LayoutError::NoRanks)?;
    let layout = Layout {
        world_size: first.world_size,
        buckets: first.buckets,
    };
    check_layout(work, layout)?;
    let missing: Vec<u32> = (0..layout.world_size)
        .filter(|r| !markers.iter().any(|m| m.rank == *r))
        .collect();
    if !missing.is_empty() {
        return Err(LayoutError::MissingRanks {
            missing,
            world_size: layout.world_size,
        });
    }
    let fingerprint = read_work_fingerprint(work)?.ok_or_else(|| {
        LayoutError::Mismatch(format!(
            "{} has no {FINGERPRINT} (partitioned by an older canopy): partition again \
             into a fresh work folder",
            work.display()
        ))
    })?;
    if fingerprint.format != crate::WORK_FORMAT {
        return Err(LayoutError::Mismatch(format!(
            "{} holds work-folder format {}, written by another canopy; this one reads \
             format {}: partition again into a fresh work folder",
            work.display(),
            fingerprint.format,
            crate::WORK_FORMAT
        )));
    }
    let digest = fingerprint.digest();
    let foreign: Vec<String> = markers
        .iter()
        .filter_map(|m| {
            if m.work != digest {
                Some(format!("rank {} (another input list or settings)", m.rank))
            } else if m.share != fingerprint.share_digest(m.rank) {
                Some(format!("rank {} (another share of the files)", m.rank))
            } else {
                None
            }
        })
        .collect();
    if !foreign.is_empty() {
        return Err(LayoutError::Mismatch(format!(
            "{} holds ranks partitioned from other inputs than its {FINGERPRINT}: {}. \
             Every rank must be given the same inputs; partition again into a fresh work folder",
            work.display(),
            foreign.join(", ")
        )));
    }
    Ok(Partition {
        layout,
        ranks: markers,
        fingerprint,
    })
}

/// Removes what a partition and `run`'s extraction wrote in `work` (rank
/// markers first, so a kill midway leaves no marker vouching for what is
/// gone), and nothing else: `work` may be a folder with other files.
pub fn clear_work(work: &Path) -> io::Result<()> {
    let names = |pred: &dyn Fn(&str) -> bool| -> io::Result<Vec<PathBuf>> {
        let mut paths = Vec::new();
        for entry in std::fs::read_dir(work)? {
            let entry = entry?;
            if pred(&entry.file_name().to_string_lossy()) {
                paths.push(entry.path());
            }
        }
        Ok(paths)
    };
    let remove = |path: &Path| -> io::Result<()> {
        match std::fs::symlink_metadata(path) {
            Ok(m) if m.is_dir() => std::fs::remove_dir_all(path),
            Ok(_) => std::fs::remove_file(path),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(e),
        }
    };
    for path in names(&|n| n.starts_with("rank-") && n.ends_with(".done"))? {
        remove(&path)?;
    }
    for path in names(&|n| {
        n == FINGERPRINT
            || n == "rejects"
            // `canopy run`'s extracted buckets (`run.rs`).
            || n == "extracted"
            || n.starts_with("bucket-")
            // Temporaries of markers and of the fingerprint.
            || (n.starts_with(".rank-") || n.starts_with(".fingerprint.json.")) && n.ends_with(".tmp")
    })? {
        remove(&path)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marker(rank: u32, world_size: u32, buckets: u32) -> RankMarker {
        RankMarker {
            rank,
            world_size,
            buckets,
            ..RankMarker::default()
        }
    }

    #[test]
    fn layout_needs_every_rank_and_one_shape() {
        let dir = tempfile::tempdir().unwrap();
        let work = dir.path();
        assert!(matches!(complete_layout(work), Err(LayoutError::NoRanks)));
        write_rank_marker(work, &marker(0, 3, 8), Durability::Unsynced).unwrap();
        write_rank_marker(work, &marker(2, 3, 8), Durability::Unsynced).unwrap();
        match complete_layout(work) {
            Err(LayoutError::MissingRanks { missing, .. }) => assert_eq!(missing, vec![1]),
            other => panic!("{other:?}"),
        }
        assert!(check_layout(
            work,
            Layout {
                world_size: 3,
                buckets: 8
            }
        )
        .is_ok());
        assert!(matches!(
            check_layout(
                work,
                Layout {
                    world_size: 3,
                    buckets: 16
                }
            ),
            Err(LayoutError::Mismatch(_))
        ));
        write_rank_marker(work, &marker(1, 3, 8), Durability::Unsynced).unwrap();
        // Markers without the folder's fingerprint (an older canopy's).
        let err = complete_layout(work).unwrap_err();
        assert!(err.to_string().contains("has no fingerprint.json"), "{err}");
        let fingerprint = WorkFingerprint {
            canopy: "0.1.0".into(),
            format: crate::WORK_FORMAT,
            world_size: 3,
            buckets: 8,
            settings: Value::Null,
            inputs: Vec::new(),
        };
        crate::claim_work(work, &fingerprint, Durability::Unsynced).unwrap();
        let err = complete_layout(work).unwrap_err();
        assert!(
            err.to_string().contains("rank 0 (another input list"),
            "{err}"
        );
        for r in 0..3 {
            let m = RankMarker {
                work: fingerprint.digest(),
                share: fingerprint.share_digest(r),
                ..marker(r, 3, 8)
            };
            write_rank_marker(work, &m, Durability::Unsynced).unwrap();
        }
        let partition = complete_layout(work).unwrap();
        assert_eq!(
            (
                partition.layout.world_size,
                partition.layout.buckets,
                partition.ranks.len()
            ),
            (3, 8, 3)
        );
        assert_eq!(read_rank_marker(work, 1).unwrap().unwrap().rank, 1);
        // A rank's share swapped for another's is refused too.
        let wrong = RankMarker {
            work: fingerprint.digest(),
            share: fingerprint.share_digest(2),
            ..marker(1, 3, 8)
        };
        write_rank_marker(work, &wrong, Durability::Unsynced).unwrap();
        let err = complete_layout(work).unwrap_err();
        assert!(err.to_string().contains("rank 1 (another share"), "{err}");
        std::fs::create_dir(work.join("mine")).unwrap();
        clear_work(work).unwrap();
        let left: Vec<String> = std::fs::read_dir(work)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(left, ["mine"]);
    }

    #[test]
    fn a_folder_of_another_layout_is_refused_by_its_format() {
        let dir = tempfile::tempdir().unwrap();
        let work = dir.path();
        let ours = WorkFingerprint {
            canopy: "0.1.0".into(),
            format: crate::WORK_FORMAT,
            world_size: 1,
            buckets: 1,
            settings: Value::Null,
            inputs: Vec::new(),
        };
        // What a canopy that did not number its layout wrote: no `format`.
        let mut old = serde_json::to_value(&ours).unwrap();
        old.as_object_mut().unwrap().remove("format");
        std::fs::write(work.join(FINGERPRINT), old.to_string()).unwrap();
        let theirs = read_work_fingerprint(work).unwrap().unwrap();
        assert_eq!(theirs.format, 0);
        let m = RankMarker {
            work: theirs.digest(),
            share: theirs.share_digest(0),
            ..marker(0, 1, 1)
        };
        write_rank_marker(work, &m, Durability::Unsynced).unwrap();
        let err = complete_layout(work).unwrap_err().to_string();
        assert!(
            err.contains(&format!(
                "work-folder format 0, written by another canopy; this one reads format {}",
                crate::WORK_FORMAT
            )),
            "{err}"
        );
        let err = crate::claim_work(work, &ours, Durability::Unsynced)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(&format!(
                "work-folder format 0 (work folder) vs {} (given)",
                crate::WORK_FORMAT
            )),
            "{err}"
        );
    }
}
