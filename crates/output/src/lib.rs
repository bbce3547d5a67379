//! Writers for Canopy's output files, each written atomically: the data go
//! to a temporary file in the output directory, which is then renamed over
//! the final name, so a reader never sees a half-written file and a run
//! killed midway leaves the previous output (or nothing) in place.
//!
//! The files and their contract are described in the README:
//! `articles.jsonl`, `wrappers.jsonl`, `summary.csv`, `rejects.jsonl`.

use std::io::{self, BufWriter, Write};
use std::path::Path;

use serde::Serialize;

/// One row of `summary.csv`: what happened to one cluster.
#[derive(Debug, Clone, Serialize)]
pub struct SummaryRow {
    pub site: String,
    pub cluster: String,
    pub pages: usize,
    /// Pages whose article came from the cluster's wrapper.
    pub wrapper_matches: usize,
    /// Pages served by the page-level fallback.
    pub fallbacks: usize,
    /// Wall time spent on the cluster (learning and extraction), in milliseconds.
    pub millis: u64,
}

/// Whether an atomic write also waits for the data to reach the disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// fsync before the rename: the file survives a machine crash whole.
    Synced,
    /// Rename only: still whole or absent if the process is killed, but a
    /// machine crash may lose it. For scratch files that are removed at the
    /// end of a run (each fsync costs tens of milliseconds on a busy disk).
    Unsynced,
}

/// Writes `dir/name` atomically with `fill`.
pub fn write_atomic(
    dir: &Path,
    name: &str,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    write_atomic_as(dir, name, Durability::Synced, fill)
}

/// [`write_atomic`] with a choice of [`Durability`].
pub fn write_atomic_as(
    dir: &Path,
    name: &str,
    durability: Durability,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let tmp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".tmp")
        .tempfile_in(dir)?;
    {
        let mut w = BufWriter::new(tmp.as_file());
        fill(&mut w)?;
        w.flush()?;
    }
    if durability == Durability::Synced {
        tmp.as_file().sync_all()?;
    }
    tmp.persist(dir.join(name)).map_err(|e| e.error)?;
    Ok(())
}

/// Writes one JSON object per line.
pub fn write_jsonl<T: Serialize>(dir: &Path, name: &str, items: &[T]) -> io::Result<()> {
    write_jsonl_as(dir, name, items, Durability::Synced)
}

/// [`write_jsonl`] with a choice of [`Durability`].
pub fn write_jsonl_as<T: Serialize>(
    dir: &Path,
    name: &str,
    items: &[T],
    durability: Durability,
) -> io::Result<()> {
    write_atomic_as(dir, name, durability, |w| {
        for item in items {
            serde_json::to_writer(&mut *w, item)?;
            w.write_all(b"\n")?;
        }
        Ok(())
    })
}

/// Writes `summary.csv`.
pub fn write_summary(dir: &Path, rows: &[SummaryRow]) -> io::Result<()> {
    write_summary_as(dir, rows, Durability::Synced)
}

/// [`write_summary`] with a choice of [`Durability`].
pub fn write_summary_as(dir: &Path, rows: &[SummaryRow], durability: Durability) -> io::Result<()> {
    write_atomic_as(dir, "summary.csv", durability, |w| {
        let mut csv = csv::Writer::from_writer(w);
        for row in rows {
            csv.serialize(row).map_err(io::Error::other)?;
        }
        csv.flush()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jsonl_and_csv_are_written_whole_with_no_temporary_left() {
        let dir = tempfile::tempdir().unwrap();
        write_jsonl(
            dir.path(),
            "a.jsonl",
            &[serde_json::json!({"x": 1}), serde_json::json!({"x": 2})],
        )
        .unwrap();
        let rows = [SummaryRow {
            site: "s".into(),
            cluster: "s/0".into(),
            pages: 2,
            wrapper_matches: 1,
            fallbacks: 1,
            millis: 3,
        }];
        write_summary(dir.path(), &rows).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("a.jsonl")).unwrap(),
            "{\"x\":1}\n{\"x\":2}\n"
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("summary.csv")).unwrap(),
            "site,cluster,pages,wrapper_matches,fallbacks,millis\ns,s/0,2,1,1,3\n"
        );
        let names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
    }

    #[test]
    fn a_failed_write_leaves_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        write_jsonl(dir.path(), "a.jsonl", &[1]).unwrap();
        let err = write_atomic(dir.path(), "a.jsonl", |w| {
            w.write_all(b"partial")?;
            Err(io::Error::other("killed"))
        });
        assert!(err.is_err());
        assert_eq!(
            std::fs::read_to_string(dir.path().join("a.jsonl")).unwrap(),
            "1\n"
        );
    }
}
