//! What a work folder was made from, so that finished ranks and buckets
//! are reused only for the inputs and settings that made them.
//!
//! A partition's content is decided by its input list (each file's path as
//! given, size and modification time: a file rewritten or touched counts
//! as another), the shape (W ranks, B buckets), the settings that change
//! what is spilled (the config's `[ingest]` table), Canopy's version and
//! the layout of the folder's files ([`crate::WORK_FORMAT`]).
//! The first rank to start writes them as `WORK/fingerprint.json`
//! ([`claim_work`], never over another's), a rank given anything else is
//! refused, and every rank marker carries the digest of the whole
//! fingerprint and of the rank's own share of the files, which `extract`
//! and `merge` check against the folder's ([`crate::complete_layout`]).
//! A bucket's marker carries the work digest and the extraction settings
//! it was made with (`BucketMarker`).

use std::io;
use std::path::Path;

use canopy_output::Durability;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::LayoutError;

/// The file name of a work folder's fingerprint.
pub const FINGERPRINT: &str = "fingerprint.json";

/// Differences named in one message; the rest are counted.
const SHOWN_DIFFERENCES: usize = 6;

/// One input file as the partition saw it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputFile {
    /// As given (and expanded): it is also the name rejects carry.
    pub path: String,
    /// `None` when the file could not be looked at.
    pub size: Option<u64>,
    /// Modification time, nanoseconds since 1970 (before it: negative).
    pub mtime_ns: Option<i64>,
}

impl InputFile {
    /// The file at `path` now.
    pub fn stat(path: &Path) -> InputFile {
        let meta = std::fs::metadata(path).ok();
        let mtime_ns = meta.as_ref().and_then(|m| m.modified().ok()).map(|t| {
            match t.duration_since(std::time::UNIX_EPOCH) {
                Ok(d) => i64::try_from(d.as_nanos()).unwrap_or(i64::MAX),
                Err(e) => i64::try_from(e.duration().as_nanos()).map_or(i64::MIN, |n| -n),
            }
        });
        InputFile {
            path: path.display().to_string(),
            size: meta.map(|m| m.len()),
            mtime_ns,
        }
    }
}

/// What decides a partition's content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkFingerprint {
    /// Canopy's version.
    pub canopy: String,
    /// The layout of the folder's frames and index lines
    /// ([`crate::WORK_FORMAT`]); 0 when the fingerprint predates it.
    #[serde(default)]
    pub format: u32,
    pub world_size: u32,
    pub buckets: u32,
    /// The settings that change what is spilled, by name.
    pub settings: Value,
    /// The expanded input list, in order (file i goes to rank i mod W).
    pub inputs: Vec<InputFile>,
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

impl WorkFingerprint {
    /// SHA-256 of the whole fingerprint (its JSON: struct fields in order,
    /// object keys sorted).
    pub fn digest(&self) -> String {
        sha256_hex(&serde_json::to_vec(self).expect("a fingerprint serialises"))
    }

    /// SHA-256 of rank `rank`'s share: its files with their index.
    pub fn share_digest(&self, rank: u32) -> String {
        let share: Vec<(usize, &InputFile)> = self
            .inputs
            .iter()
            .enumerate()
            .filter(|(i, _)| *i as u64 % u64::from(self.world_size.max(1)) == u64::from(rank))
            .collect();
        let doc = serde_json::json!({"rank": rank, "world_size": self.world_size, "files": share});
        sha256_hex(&serde_json::to_vec(&doc).expect("a share serialises"))
    }

    /// What differs from `theirs`, one phrase each (`self` is the folder's,
    /// `theirs` the one a command was given), the most telling first.
    pub fn differences(&self, theirs: &WorkFingerprint) -> Vec<String> {
        let mut out = Vec::new();
        if self.format != theirs.format {
            out.push(format!(
                "work-folder format {} (work folder) vs {} (given)",
                self.format, theirs.format
            ));
        }
        if self.world_size != theirs.world_size {
            out.push(format!(
                "--world-size {} (work folder) vs {} (given)",
                self.world_size, theirs.world_size
            ));
        }
        if self.buckets != theirs.buckets {
            out.push(format!(
                "--buckets {} (work folder) vs {} (given)",
                self.buckets, theirs.buckets
            ));
        }
        input_differences(&self.inputs, &theirs.inputs, &mut out);
        json_differences("config", &self.settings, &theirs.settings, &mut out);
        if self.canopy != theirs.canopy {
            out.push(format!(
                "made by canopy {}, this is canopy {}",
                self.canopy, theirs.canopy
            ));
        }
        out
    }
}

/// The differences of two input lists: files only in one, files whose
/// size or time changed, and (when the files are the same) their order.
fn input_differences(ours: &[InputFile], theirs: &[InputFile], out: &mut Vec<String>) {
    let by_path = |list: &[InputFile]| -> std::collections::BTreeMap<String, InputFile> {
        list.iter().map(|f| (f.path.clone(), f.clone())).collect()
    };
    let (a, b) = (by_path(ours), by_path(theirs));
    let mut files = Vec::new();
    for (path, f) in &a {
        match b.get(path) {
            None => files.push(format!("{path} (only in the work folder's list)")),
            Some(g) if g.size != f.size => files.push(format!(
                "{path} (size {} vs {})",
                show(f.size),
                show(g.size)
            )),
            Some(g) if g.mtime_ns != f.mtime_ns => {
                files.push(format!("{path} (modified since)"));
            }
            Some(_) => {}
        }
    }
    for path in b.keys().filter(|p| !a.contains_key(*p)) {
        files.push(format!("{path} (not in the work folder's list)"));
    }
    if files.is_empty() && ours != theirs {
        files.push("the same files in another order".to_string());
    }
    if !files.is_empty() {
        out.push(format!(
            "{} input file{} differ{}: {}",
            files.len(),
            if files.len() == 1 { "" } else { "s" },
            if files.len() == 1 { "s" } else { "" },
            shown(&files)
        ));
    }
}

fn show(n: Option<u64>) -> String {
    n.map_or("unknown".to_string(), |n| n.to_string())
}

/// The first [`SHOWN_DIFFERENCES`] of `items`, and how many more.
fn shown(items: &[String]) -> String {
    let mut s = items
        .iter()
        .take(SHOWN_DIFFERENCES)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > SHOWN_DIFFERENCES {
        s.push_str(&format!(" and {} more", items.len() - SHOWN_DIFFERENCES));
    }
    s
}

/// The keys (dotted paths under `path`) whose values differ between two
/// JSON documents, with both values: "config.extract.link_density 0.5
/// (work folder) vs 0.6 (given)".
pub fn json_differences(path: &str, ours: &Value, theirs: &Value, out: &mut Vec<String>) {
    match (ours, theirs) {
        (Value::Object(a), Value::Object(b)) => {
            let keys: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
            for key in keys {
                let null = Value::Null;
                let (x, y) = (a.get(key).unwrap_or(&null), b.get(key).unwrap_or(&null));
                json_differences(&format!("{path}.{key}"), x, y, out);
            }
        }
        (a, b) if a != b => {
            let brief = |v: &Value| {
                let s = v.to_string();
                if s.chars().count() > 40 {
                    format!("{}…", s.chars().take(40).collect::<String>())
                } else {
                    s
                }
            };
            out.push(format!("{path} {} vs {}", brief(a), brief(b)));
        }
        _ => {}
    }
}

/// The differences as one phrase for a message.
pub fn describe(differences: &[String]) -> String {
    if differences.is_empty() {
        "nothing named differs".to_string()
    } else {
        shown(differences)
    }
}

/// The fingerprint of the partition in `work`, if one was written.
pub fn read_work_fingerprint(work: &Path) -> io::Result<Option<WorkFingerprint>> {
    crate::layout::read_json(&work.join(FINGERPRINT))
}

/// Makes `fingerprint` the one of `work`: written if `work` has none
/// (never over another's, even by a rank starting at the same moment),
/// else compared with it. Another fingerprint is
/// [`LayoutError::Mismatch`], naming what differs.
pub fn claim_work(
    work: &Path,
    fingerprint: &WorkFingerprint,
    durability: Durability,
) -> Result<(), LayoutError> {
    let path = work.join(FINGERPRINT);
    let mut builder = tempfile::Builder::new();
    builder.prefix(".fingerprint.json.").suffix(".tmp");
    // Readable as the other files of the folder (tempfile makes 0600).
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut tmp = builder.tempfile_in(work)?;
    serde_json::to_writer(&mut tmp, fingerprint).map_err(io::Error::other)?;
    io::Write::write_all(&mut tmp, b"\n")?;
    if durability == Durability::Synced {
        tmp.as_file().sync_all()?;
    }
    match tmp.persist_noclobber(&path) {
        Ok(_) => return Ok(()),
        Err(e) if e.error.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e.error.into()),
    }
    let theirs = read_work_fingerprint(work)?
        .ok_or_else(|| io::Error::other(format!("{} vanished", path.display())))?;
    if &theirs == fingerprint {
        return Ok(());
    }
    Err(LayoutError::Mismatch(format!(
        "{} was partitioned from other inputs or settings: {}. Give every rank the same \
         inputs, --world-size, --buckets and --config, or use another work folder",
        work.display(),
        describe(&theirs.differences(fingerprint))
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fp(inputs: &[(&str, u64)]) -> WorkFingerprint {
        WorkFingerprint {
            canopy: "0.1.0".into(),
            format: crate::WORK_FORMAT,
            world_size: 2,
            buckets: 4,
            settings: serde_json::json!({"ingest": {"max_page_bytes": 10}}),
            inputs: inputs
                .iter()
                .map(|(p, s)| InputFile {
                    path: p.to_string(),
                    size: Some(*s),
                    mtime_ns: Some(1),
                })
                .collect(),
        }
    }

    #[test]
    fn differences_name_the_files_and_keys() {
        let a = fp(&[("a.warc", 1), ("b.warc", 2)]);
        let mut b = fp(&[("a.warc", 1), ("b.warc", 3), ("c.warc", 4)]);
        b.settings = serde_json::json!({"ingest": {"max_page_bytes": 20}});
        b.buckets = 8;
        let d = a.differences(&b);
        assert_eq!(
            d,
            [
                "--buckets 4 (work folder) vs 8 (given)",
                "2 input files differ: b.warc (size 2 vs 3), c.warc (not in the work folder's list)",
                "config.ingest.max_page_bytes 10 vs 20",
            ]
        );
        assert_eq!(a.differences(&a.clone()), Vec::<String>::new());
        let swapped = fp(&[("b.warc", 2), ("a.warc", 1)]);
        assert_eq!(
            a.differences(&swapped),
            ["1 input file differs: the same files in another order"]
        );
    }

    #[test]
    fn digests_change_with_any_input_and_shares_with_their_files() {
        let a = fp(&[("a.warc", 1), ("b.warc", 2), ("c.warc", 3)]);
        let b = fp(&[("a.warc", 1), ("b.warc", 2), ("c.warc", 4)]);
        assert_ne!(a.digest(), b.digest());
        assert_eq!(a.digest(), a.clone().digest());
        // Rank 1 reads b.warc only, the same in both; rank 0 reads c.warc.
        assert_eq!(a.share_digest(1), b.share_digest(1));
        assert_ne!(a.share_digest(0), b.share_digest(0));
    }

    #[test]
    fn the_first_claim_wins_and_another_is_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let a = fp(&[("a.warc", 1)]);
        claim_work(dir.path(), &a, Durability::Unsynced).unwrap();
        claim_work(dir.path(), &a, Durability::Unsynced).unwrap();
        let b = fp(&[("a.warc", 1), ("z.warc", 9)]);
        let err = claim_work(dir.path(), &b, Durability::Unsynced).unwrap_err();
        assert!(
            err.to_string()
                .contains("z.warc (not in the work folder's list)"),
            "{err}"
        );
        assert_eq!(read_work_fingerprint(dir.path()).unwrap(), Some(a));
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "no temporary left");
    }
}
