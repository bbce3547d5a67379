//! Writers for Canopy's output files, each written atomically: the data go
//! to a temporary file in the output directory, which is then renamed over
//! the final name, so a reader never sees a half-written file and a run
//! killed midway leaves the previous output (or nothing) in place.
//!
//! The files and their contract are described in the README:
//! `articles.jsonl`, `wrappers.jsonl`, `summary.csv`, `rejects.jsonl`, and
//! the optional WET file ([`wet`]). A run writes its whole set into a new
//! folder and switches it in place of the output folder in one step
//! ([`switch`]), under the folder's lock ([`lock`]); [`success`]'s
//! `_SUCCESS` manifest lists the set's files and their SHA-256.

pub mod lock;
pub mod success;
pub mod switch;
pub mod wet;

use std::io::{self, BufWriter, Write};
use std::path::Path;

use canopy_types::{Decision, WrapperStatus};
use serde::Serialize;

/// One row of `summary.csv`: what happened to one cluster. No wall time:
/// every output file is a function of the input alone (byte-identical
/// across runs and thread counts); timing goes to the stderr summary line.
#[derive(Debug, Clone, Serialize)]
pub struct SummaryRow {
    pub site: String,
    pub cluster: String,
    pub pages: usize,
    /// Pages whose article came from the cluster's wrapper.
    pub wrapper_matches: usize,
    /// Pages served by the page-level fallback.
    pub fallbacks: usize,
    /// What became of the cluster's wrapper (`docs/wrappers.md`).
    pub wrapper: WrapperStatus,
    /// The wrapper's check against the page-level path; empty in the
    /// CSV when there is no wrapper or no check.
    pub check: Option<Decision>,
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

/// Refuses to replace `path` unless nothing is there or a regular file is.
/// An output is renamed over its path, and a rename replaces whatever the
/// path names: a symlink itself (not the file it points to), a FIFO, a
/// device node (`--wet /dev/stdout` run as root would replace `/dev/stdout`
/// with a regular file). Such a path is an operator's mistake or a trap, so
/// it is an error, never written through. (Checked before the rename; a
/// path changed between the check and the rename is not caught.)
pub fn check_replaceable(path: &Path) -> io::Result<()> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    let t = meta.file_type();
    if t.is_file() {
        return Ok(());
    }
    let kind = if t.is_symlink() {
        "a symlink"
    } else if t.is_dir() {
        "a folder"
    } else {
        "a special file (device, FIFO or socket)"
    };
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "{} is {kind}, not a regular file: refusing to replace it \
             (outputs are written beside their path and renamed over it)",
            path.display()
        ),
    ))
}

/// Writes `dir/name` atomically with `fill`. Refused ([`check_replaceable`])
/// when `dir/name` is there and not a regular file.
///
/// Temporary files left by an earlier run that was killed before its
/// rename (`.NAME.*.tmp`) are removed first, so a rerun leaves only the
/// finished file. (Two writers into one folder at once would remove each
/// other's temporary: the commands that write a folder hold its lock,
/// [`lock`].)
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
    write_atomic_send(dir, name, durability, |w| fill(w))
}

/// [`write_atomic_as`] for a writer that must be [`Send`] (Parquet's
/// `ArrowWriter` asks for one).
pub fn write_atomic_send(
    dir: &Path,
    name: &str,
    durability: Durability,
    fill: impl FnOnce(&mut (dyn Write + Send)) -> io::Result<()>,
) -> io::Result<()> {
    check_replaceable(&dir.join(name))?;
    remove_stale_temps(dir, name);
    let prefix = format!(".{name}.");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    // tempfile creates 0600 files; an output is for others to read, so it
    // gets the mode `File::create` gives (0666 less the umask).
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let tmp = builder.tempfile_in(dir)?;
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

/// Removes `dir/.NAME.*.tmp`: what [`write_atomic`] leaves when killed.
/// Best effort: a file that cannot be removed is left, and the write goes on.
fn remove_stale_temps(dir: &Path, name: &str) {
    let prefix = format!(".{name}.");
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let file_name = file_name.to_string_lossy();
        if file_name.starts_with(&prefix) && file_name.ends_with(".tmp") {
            let _ = std::fs::remove_file(entry.path());
        }
    }
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
            wrapper: WrapperStatus::New,
            check: Some(Decision::Agree),
        }];
        write_summary(dir.path(), &rows).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("a.jsonl")).unwrap(),
            "{\"x\":1}\n{\"x\":2}\n"
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("summary.csv")).unwrap(),
            "site,cluster,pages,wrapper_matches,fallbacks,wrapper,check\ns,s/0,2,1,1,new,agree\n"
        );
        let names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
        // The mode a file made by `File::create` gets (0666 less the umask),
        // not tempfile's 0600.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let plain = dir.path().join("plain");
            std::fs::File::create(&plain).unwrap();
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&dir.path().join("a.jsonl")), mode(&plain));
        }
    }

    #[test]
    fn temporaries_of_a_killed_run_are_removed_by_the_next_write() {
        let dir = tempfile::tempdir().unwrap();
        // What a run killed between creating and renaming its temporary leaves.
        std::fs::write(dir.path().join(".a.jsonl.Xy12ab.tmp"), "half").unwrap();
        // Not ours: other names, and the finished file of another output.
        std::fs::write(dir.path().join(".b.jsonl.Xy12ab.tmp"), "b").unwrap();
        std::fs::write(dir.path().join("a.jsonl.tmp"), "user file").unwrap();
        write_jsonl(dir.path(), "a.jsonl", &[1]).unwrap();
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, [".b.jsonl.Xy12ab.tmp", "a.jsonl", "a.jsonl.tmp"]);
    }

    #[cfg(unix)]
    #[test]
    fn only_a_missing_path_or_a_regular_file_is_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target.jsonl");
        std::fs::write(&target, "theirs\n").unwrap();
        std::os::unix::fs::symlink(&target, dir.path().join("link.jsonl")).unwrap();
        std::fs::create_dir(dir.path().join("folder.jsonl")).unwrap();
        let status = std::process::Command::new("mkfifo")
            .arg(dir.path().join("fifo.jsonl"))
            .status()
            .unwrap();
        assert!(status.success());
        for (name, kind) in [
            ("link.jsonl", "a symlink"),
            ("folder.jsonl", "a folder"),
            ("fifo.jsonl", "a special file"),
        ] {
            let err = write_jsonl(dir.path(), name, &[1]).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::InvalidInput, "{name}");
            assert!(err.to_string().contains(kind), "{name}: {err}");
        }
        // Nothing was replaced, nothing was left.
        assert!(std::fs::symlink_metadata(dir.path().join("link.jsonl"))
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "theirs\n");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 4);
        // A regular file, or nothing, is replaced.
        write_jsonl(dir.path(), "target.jsonl", &[1]).unwrap();
        write_jsonl(dir.path(), "new.jsonl", &[2]).unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "1\n");
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
