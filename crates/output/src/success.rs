//! `_SUCCESS`: the marker that an output folder holds one complete run.
//!
//! Each output file is replaced atomically, but one at a time, so a run
//! killed between two renames leaves whole files of two different runs.
//! As Hadoop and Spark jobs do, a run removes `_SUCCESS` before it replaces
//! any output ([`begin`]) and writes it after the last one is in place
//! ([`finish`]). A reader (a scheduler's sensor, the next stage) takes the
//! folder only when `_SUCCESS` is there.
//!
//! Unlike Hadoop's empty marker, this one is a manifest: one line per
//! output, its SHA-256 and its name, in the format of coreutils'
//! `sha256sum`, so `cd OUT && sha256sum --check --strict _SUCCESS` checks that
//! the files are the ones the run wrote (e.g. after a copy, or a later
//! partial overwrite by hand). Names are relative to the folder; a file
//! elsewhere (`--wet PATH`) is named by its absolute path.

use std::fmt::Write as _;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::write_atomic;

/// The marker's file name (Hadoop's, which schedulers already watch for).
pub const SUCCESS: &str = "_SUCCESS";

/// Starts replacing the output set in `dir`: removes `dir/_SUCCESS`, and
/// syncs the folder so that the removal reaches the disk before any output
/// changes (a machine crash cannot bring the old marker back next to new
/// files). No marker is fine.
pub fn begin(dir: &Path) -> io::Result<()> {
    match std::fs::remove_file(dir.join(SUCCESS)) {
        Ok(()) => sync_dir(dir),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// Ends the output set: writes `dir/_SUCCESS` listing `files` (relative to
/// `dir`, or absolute) with the SHA-256 of their bytes as they are on disk
/// now. Call it once every output is in place; the folders holding them are
/// synced first, so the marker never reaches the disk before the renames
/// it vouches for.
pub fn finish(dir: &Path, files: &[PathBuf]) -> io::Result<()> {
    let dir_abs = std::path::absolute(dir)?;
    let mut manifest = String::new();
    let mut synced: Vec<PathBuf> = Vec::new();
    for file in files {
        let path = std::path::absolute(dir.join(file))?;
        let parent = path.parent().unwrap_or(&dir_abs).to_path_buf();
        if !synced.contains(&parent) {
            sync_dir(&parent)?;
            synced.push(parent);
        }
        let name = match path.strip_prefix(&dir_abs) {
            Ok(relative) => relative,
            Err(_) => path.as_path(),
        };
        manifest_line(&mut manifest, &sha256_hex(&path)?, &name.to_string_lossy());
    }
    write_atomic(dir, SUCCESS, |w| w.write_all(manifest.as_bytes()))?;
    sync_dir(dir)
}

/// One `sha256sum` line: `HEX  NAME`. A name holding a backslash or a line
/// break is escaped and the line starts with a backslash, as coreutils does.
fn manifest_line(out: &mut String, hex: &str, name: &str) {
    if name.contains(['\\', '\n', '\r']) {
        let escaped = name
            .replace('\\', "\\\\")
            .replace('\n', "\\n")
            .replace('\r', "\\r");
        let _ = writeln!(out, "\\{hex}  {escaped}");
    } else {
        let _ = writeln!(out, "{hex}  {name}");
    }
}

/// The SHA-256 of a file's bytes, in lower-case hex.
fn sha256_hex(path: &Path) -> io::Result<String> {
    let mut file = File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0; 1 << 16];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(buf.get(..n).unwrap_or_default());
    }
    Ok(hasher
        .finalize()
        .iter()
        .fold(String::with_capacity(64), |mut hex, b| {
            let _ = write!(hex, "{b:02x}");
            hex
        }))
}

/// Flushes a folder's entries (creations, renames, removals) to disk.
/// Folders cannot be opened as files on Windows; there it does nothing.
pub(crate) fn sync_dir(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    File::open(dir)?.sync_all()?;
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    /// `sha256sum --check --strict _SUCCESS` in `dir`: coreutils, not this
    /// crate, judges the manifest.
    fn sha256sum_check(dir: &Path) -> bool {
        Command::new("sha256sum")
            .args(["--check", "--strict", "--quiet", SUCCESS])
            .current_dir(dir)
            .output()
            .expect("sha256sum (coreutils) is installed")
            .status
            .success()
    }

    #[test]
    fn the_manifest_is_sha256sum_format_and_written_last() {
        let tmp = tempfile::tempdir().unwrap();
        let (dir, elsewhere) = (tmp.path().join("out"), tmp.path().join("wet"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::create_dir_all(&elsewhere).unwrap();
        begin(&dir).unwrap(); // no marker yet: fine
        crate::write_jsonl(&dir, "a.jsonl", &[1, 2]).unwrap();
        std::fs::write(elsewhere.join("x y.warc.gz"), b"wet").unwrap();
        let files = [PathBuf::from("a.jsonl"), elsewhere.join("x y.warc.gz")];
        finish(&dir, &files).unwrap();
        assert_eq!(names(&dir), ["_SUCCESS", "a.jsonl"]);
        let manifest = std::fs::read_to_string(dir.join(SUCCESS)).unwrap();
        // printf '1\n2\n' | sha256sum; printf wet | sha256sum
        let wet = std::path::absolute(elsewhere.join("x y.warc.gz")).unwrap();
        assert_eq!(
            manifest,
            format!(
                "a6e2b7a040683432de03a18fd8a1939a2fdf82585b364bfc874bdd4095c4cae1  a.jsonl\n\
                 {}  {}\n",
                "534c51e17770c9b7a5aa186bec09fd9470653e25f39651277bcc2fb1f620acd0",
                wet.display()
            )
        );
        assert!(sha256sum_check(&dir));
        // A file changed after the run no longer matches.
        std::fs::write(dir.join("a.jsonl"), "1\n3\n").unwrap();
        assert!(!sha256sum_check(&dir));
        // The next run removes the marker before it replaces anything.
        begin(&dir).unwrap();
        assert_eq!(names(&dir), ["a.jsonl"]);
    }

    #[test]
    fn names_with_a_backslash_or_line_break_are_escaped_as_sha256sum_does() {
        let mut out = String::new();
        manifest_line(&mut out, "ab", "a\\b\nc");
        manifest_line(&mut out, "cd", "plain name");
        assert_eq!(out, "\\ab  a\\\\b\\nc\ncd  plain name\n");
    }
}
