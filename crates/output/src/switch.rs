//! The output set switched in one step.
//!
//! A run writes its whole output set (`articles.jsonl`, …, `_SUCCESS`)
//! into a new folder beside `--out`, `PARENT/.NAME.canopy-XXXXXX`, and
//! then exchanges the two folders with one `renameat2(RENAME_EXCHANGE)`:
//! whoever looks at `--out` (a reader, a kill, a machine crash once the
//! parent folder is synced) sees the old set whole or the new set whole,
//! never files of two runs. `--out` stays the same path; the old set, now
//! at the hidden name, is then removed.
//!
//! Other files kept in `--out` (an index, `buckets/` of the scale-out
//! steps, notes) are not the run's: after the exchange they are moved from
//! the old folder into the new one, each with one rename. A kill in that
//! short window leaves them in the hidden folder, and the next run into
//! the same `--out` moves them back before anything else. What counts as
//! the run's (so is replaced, not kept): the set's fixed names, the names
//! the old folder's `_SUCCESS` lists (a WET file of the last run inside
//! `--out`), and Canopy's own temporaries (`.NAME.*.tmp`, `.work-XXXXXX`,
//! `.canopy-*`).
//!
//! A folder a run is still filling holds the file [`STAGING_MARKER`]: a
//! stale folder with it (a kill before the exchange) is all Canopy's and
//! removed whole; one without it is an old `--out` after an exchange, whose
//! other files go back first. The marker is removed just before the
//! exchange, when the folder holds only the new set and the `_SUCCESS` that
//! lists it.
//!
//! Where the exchange is not possible the set is written into
//! `OUT/.canopy-staging-XXXXXX` and its files are renamed into `--out` one
//! by one, `_SUCCESS` removed first and written last (the crash safety of
//! [`crate::success`]): when `--out` is a mount point or the process's
//! working folder (a shell sitting in it would be left in the removed old
//! folder), when its parent cannot be written or the new folder cannot get
//! `--out`'s owner, group and mode, and when the exchange itself fails
//! (a file system without `RENAME_EXCHANGE`, e.g. some NFS; systems other
//! than Linux and macOS).

use std::collections::BTreeSet;
use std::io;
use std::path::{Path, PathBuf};

use crate::lock::{FolderLock, LockMode};
use crate::success::{sync_dir, SUCCESS};

/// The file that marks a folder as a run's unfinished new set.
pub const STAGING_MARKER: &str = ".canopy-staging";

/// Prefix of the staging folder inside `--out` when there is no exchange.
const INNER_PREFIX: &str = ".canopy-staging-";

/// Prefix of the scratch work folders older versions kept in `--out`.
const OLD_WORK_PREFIX: &str = ".work-";

/// Random characters in a staging (or scratch) folder's name: tempfile's
/// default, in its alphabet of ASCII letters and digits.
const RANDOM_LEN: usize = 6;

/// How the new set gets into `--out`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SwitchMode {
    /// One `renameat2(RENAME_EXCHANGE)` of two sibling folders.
    Exchange,
    /// The files one by one, `_SUCCESS` last.
    PerFile,
}

/// An output folder being replaced: locked, with a staging folder for the
/// new set. Dropped without [`OutputSwitch::commit`] (an error), the
/// staging folder is removed and `--out` is left as it was.
#[derive(Debug)]
pub struct OutputSwitch {
    out: PathBuf,
    staging: PathBuf,
    mode: SwitchMode,
    /// Why the exchange is not used, if it is not.
    why_per_file: Option<String>,
    /// The set's fixed names.
    names: BTreeSet<String>,
    _out_lock: FolderLock,
    _staging_lock: FolderLock,
    /// Warnings for stderr: a folder not locked, stale folders not
    /// cleaned up.
    notes: Vec<String>,
    state: State,
    /// Tests stop a commit after this many steps, as a kill would.
    #[cfg(test)]
    stop_after: Option<usize>,
    #[cfg(test)]
    steps: usize,
}

/// Where a switch is: what a drop (an error) may remove.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// The staging folder holds the new set in progress: removed on drop.
    Staging,
    /// Exchanged (the staging path holds the old folder) or done: nothing
    /// is removed on drop.
    Switched,
    /// Stopped by a test as a kill would: nothing is removed on drop.
    #[cfg(test)]
    Killed,
}

/// What [`OutputSwitch::commit`] did.
#[derive(Debug)]
pub struct Switched {
    pub mode: SwitchMode,
    /// A line for stderr when the exchange was not used, or when something
    /// after the switch could not be done (the old folder left behind).
    pub note: Option<String>,
}

impl OutputSwitch {
    /// Locks `out` (created if missing) and makes the folder the new set is
    /// written into ([`OutputSwitch::dir`]). `names` are the files of the
    /// set in `out` (`_SUCCESS` included): a name taken by anything but a
    /// regular file is an error here, before any work. Stale folders of
    /// killed runs into `out` are cleaned up first, their other files put
    /// back.
    pub fn begin(out: &Path, names: &[&str]) -> io::Result<OutputSwitch> {
        std::fs::create_dir_all(out)?;
        let out = out.canonicalize()?;
        let out_lock = FolderLock::try_lock(&out, LockMode::Exclusive)?;
        let mut notes: Vec<String> = out_lock.warning().into_iter().collect();
        let names: BTreeSet<String> = names
            .iter()
            .map(|n| n.to_string())
            .chain([SUCCESS.to_string()])
            .collect();
        for name in &names {
            let path = out.join(name);
            match std::fs::symlink_metadata(&path) {
                Ok(m) if !m.file_type().is_file() => {
                    return Err(io::Error::new(
                        io::ErrorKind::AlreadyExists,
                        format!(
                            "{} is {}, not a file canopy wrote: move it away",
                            path.display(),
                            kind_of(&m.file_type())
                        ),
                    ))
                }
                _ => {}
            }
        }
        // The folder must be writable: the set or the other files go in.
        tempfile::tempfile_in(&out)?;
        // Only a run's staging folder holds the marker; one left in `out`
        // by a kill just after an exchange would make the next old folder
        // look disposable.
        remove_if_present(&out.join(STAGING_MARKER))?;
        notes.extend(recover_stale(&out, &names));

        let (staging, why_per_file) = match sibling_staging(&out) {
            Ok(staging) => (staging, None),
            Err(why) => (inner_staging(&out)?, Some(why)),
        };
        let mode = if why_per_file.is_none() {
            SwitchMode::Exchange
        } else {
            SwitchMode::PerFile
        };
        // New and ours: nobody else can hold it.
        let staging_lock = FolderLock::try_lock(&staging, LockMode::Exclusive)?;
        Ok(OutputSwitch {
            out,
            staging,
            mode,
            why_per_file,
            names,
            _out_lock: out_lock,
            _staging_lock: staging_lock,
            notes,
            state: State::Staging,
            #[cfg(test)]
            stop_after: None,
            #[cfg(test)]
            steps: 0,
        })
    }

    /// Where the new set is written.
    pub fn dir(&self) -> &Path {
        &self.staging
    }

    /// `--out`, resolved (symbolic links followed: the folder replaced is
    /// the one a link points to).
    pub fn out(&self) -> &Path {
        &self.out
    }

    pub fn mode(&self) -> SwitchMode {
        self.mode
    }

    /// Warnings from [`OutputSwitch::begin`] for stderr: `--out` could not
    /// be locked (no `flock` on its file system), or what a killed run
    /// left could not be cleaned up.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// Puts the new set in place of `--out`'s: `set` names the files of
    /// [`OutputSwitch::dir`] that make it (`_SUCCESS` among them, written
    /// last). Anything else in the staging folder is dropped. `--out` stays
    /// locked until the switch is dropped.
    pub fn commit(&mut self, set: &[&str]) -> io::Result<Switched> {
        let set: BTreeSet<String> = set.iter().map(|n| n.to_string()).collect();
        match self.mode {
            SwitchMode::Exchange => self.commit_exchange(&set),
            SwitchMode::PerFile => {
                self.per_file(&set)?;
                self.state = State::Switched;
                Ok(Switched {
                    mode: SwitchMode::PerFile,
                    note: self
                        .why_per_file
                        .as_ref()
                        .map(|why| format!("outputs replaced one by one, _SUCCESS last ({why})")),
                })
            }
        }
    }

    fn commit_exchange(&mut self, set: &BTreeSet<String>) -> io::Result<Switched> {
        // Everything but the set goes now (the scratch work folder is
        // removed by its owner before): the folder swapped in is the set.
        for entry in std::fs::read_dir(&self.staging)? {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if !set.contains(&name) && name != STAGING_MARKER {
                remove_entry(&entry.path())?;
            }
        }
        self.step()?;
        // `_SUCCESS` was written last and its folder synced
        // (`success::finish`): the set is on disk. The marker's removal
        // needs no sync of its own: were it lost in a machine crash, the
        // marker would be left in `--out`, where the next run removes it.
        std::fs::remove_file(self.staging.join(STAGING_MARKER))?;
        self.step()?;
        if let Err(e) = exchange(&self.staging, &self.out) {
            self.per_file(set)?;
            self.state = State::Switched;
            return Ok(Switched {
                mode: SwitchMode::PerFile,
                note: Some(format!(
                    "cannot exchange {} and {} ({e}): outputs replaced one by one, _SUCCESS last",
                    self.staging.display(),
                    self.out.display()
                )),
            });
        }
        // From here on the staging path holds the old folder, which a drop
        // must not remove (other files of the user's may still be in it).
        self.state = State::Switched;
        // The exchange on disk before the run says it is done.
        if let Some(parent) = self.out.parent() {
            sync_dir(parent)?;
        }
        self.step()?;
        // The old folder's other files go into the new `--out`.
        let (old, out) = (self.staging.clone(), self.out.clone());
        let mut names = self.names.clone();
        names.extend(set.iter().cloned());
        let blocked = carry_over(&old, &out, &names, &mut || self.step()).map_err(|e| {
            io::Error::new(
                e.kind(),
                format!(
                    "{e}; the new outputs are in {}, and the files of yours still in {} \
                     go back with the next run into it",
                    out.display(),
                    old.display()
                ),
            )
        })?;
        // No sync: a file whose move back a machine crash loses is still
        // in the old folder, which the next run empties into `--out`.
        if !blocked.is_empty() {
            return Ok(Switched {
                mode: SwitchMode::Exchange,
                note: Some(format!(
                    "{} keeps files that could not go back into {} (an entry of the same name \
                     is there: {}): look at them and remove the folder",
                    old.display(),
                    self.out.display(),
                    blocked.join(", ")
                )),
            });
        }
        self.step()?;
        let note = dispose(&old, &mut || self.step()).err().map(|e| {
            format!(
                "the old outputs are left in {} ({e}); the next run into {} removes them",
                old.display(),
                self.out.display()
            )
        });
        Ok(Switched {
            mode: SwitchMode::Exchange,
            note,
        })
    }

    /// A point where a test may stop the commit as a kill would.
    #[cfg(test)]
    fn step(&mut self) -> io::Result<()> {
        self.steps += 1;
        if self.stop_after == Some(self.steps) {
            self.state = State::Killed;
            return Err(io::Error::other("killed (test)"));
        }
        Ok(())
    }

    #[cfg(not(test))]
    #[inline(always)]
    fn step(&mut self) -> io::Result<()> {
        Ok(())
    }

    /// The files of `set` renamed into `--out` one by one: `_SUCCESS`
    /// removed first and written last, so a kill in between leaves no
    /// marker beside files of two runs.
    fn per_file(&self, set: &BTreeSet<String>) -> io::Result<()> {
        crate::success::begin(&self.out)?;
        for name in set.iter().filter(|n| *n != SUCCESS) {
            std::fs::rename(self.staging.join(name), self.out.join(name))?;
        }
        sync_dir(&self.out)?;
        if set.contains(SUCCESS) {
            std::fs::rename(self.staging.join(SUCCESS), self.out.join(SUCCESS))?;
            sync_dir(&self.out)?;
        }
        // Best effort: what is left is scratch.
        let _ = std::fs::remove_dir_all(&self.staging);
        Ok(())
    }
}

impl Drop for OutputSwitch {
    fn drop(&mut self) {
        if self.state == State::Staging {
            let _ = std::fs::remove_dir_all(&self.staging);
        }
    }
}

/// What a non-file in the way is, for the message.
fn kind_of(t: &std::fs::FileType) -> &'static str {
    if t.is_dir() {
        "a folder"
    } else if t.is_symlink() {
        "a symbolic link"
    } else {
        "a special file (device, FIFO or socket)"
    }
}

fn remove_if_present(path: &Path) -> io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

fn remove_entry(path: &Path) -> io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(path),
        Ok(_) => std::fs::remove_file(path),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// The prefix of `out`'s sibling staging folders: `.NAME.canopy-`.
fn sibling_prefix(out: &Path) -> Option<String> {
    let name = out.file_name()?.to_str()?;
    Some(format!(".{name}.canopy-"))
}

/// Whether `name` is `prefix` followed by exactly a staging folder's random
/// part (so that `out.canopy-`'s folders are never taken for `out`'s).
fn is_staging_name(name: &str, prefix: &str) -> bool {
    name.strip_prefix(prefix).is_some_and(|rest| {
        rest.len() == RANDOM_LEN && rest.bytes().all(|b| b.is_ascii_alphanumeric())
    })
}

/// Makes `PARENT/.NAME.canopy-XXXXXX` with `out`'s mode, owner and group,
/// marked as a staging folder; or says why the exchange is not used.
fn sibling_staging(out: &Path) -> Result<PathBuf, String> {
    let (Some(parent), Some(prefix)) = (out.parent(), sibling_prefix(out)) else {
        return Err("no parent folder".into());
    };
    if std::env::current_dir()
        .and_then(|d| d.canonicalize())
        .is_ok_and(|cwd| cwd == out)
    {
        return Err("--out is the working folder".into());
    }
    let meta = std::fs::metadata(out).map_err(|e| e.to_string())?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let parent_dev = std::fs::metadata(parent).map_err(|e| e.to_string())?.dev();
        if meta.dev() != parent_dev {
            return Err(format!("{} is a mount point", out.display()));
        }
    }
    let staging = tempfile::Builder::new()
        .prefix(&prefix)
        .rand_bytes(RANDOM_LEN)
        .tempdir_in(parent)
        .map_err(|e| format!("cannot create a folder in {}: {e}", parent.display()))?
        .keep();
    if let Err(why) = like(&staging, &meta).and_then(|()| mark(&staging)) {
        let _ = std::fs::remove_dir_all(&staging);
        return Err(why);
    }
    Ok(staging)
}

/// Gives `staging` the mode, owner and group of `out` (its metadata): the
/// folder that takes `--out`'s place must look the same to its users.
fn like(staging: &Path, out: &std::fs::Metadata) -> Result<(), String> {
    std::fs::set_permissions(staging, out.permissions()).map_err(|e| e.to_string())?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let now = std::fs::metadata(staging).map_err(|e| e.to_string())?;
        if (now.uid(), now.gid()) != (out.uid(), out.gid()) {
            // Works for root, and for a group of ours; anything else is
            // checked below.
            let _ = std::os::unix::fs::chown(staging, Some(out.uid()), Some(out.gid()));
            // chown may clear the set-group-ID bit.
            let _ = std::fs::set_permissions(staging, out.permissions());
        }
        let now = std::fs::metadata(staging).map_err(|e| e.to_string())?;
        if (now.uid(), now.gid(), now.mode()) != (out.uid(), out.gid(), out.mode()) {
            return Err(format!(
                "a new folder cannot get the owner, group and mode of --out (uid {}, gid {}, mode {:o})",
                out.uid(),
                out.gid(),
                out.mode() & 0o7777
            ));
        }
    }
    Ok(())
}

fn mark(staging: &Path) -> Result<(), String> {
    std::fs::write(staging.join(STAGING_MARKER), b"").map_err(|e| e.to_string())
}

/// `OUT/.canopy-staging-XXXXXX`, for the file-by-file switch.
fn inner_staging(out: &Path) -> io::Result<PathBuf> {
    let staging = tempfile::Builder::new()
        .prefix(INNER_PREFIX)
        .rand_bytes(RANDOM_LEN)
        .tempdir_in(out)?
        .keep();
    std::fs::write(staging.join(STAGING_MARKER), b"")?;
    Ok(staging)
}

/// Exchanges the folders `a` and `b` in one step.
#[cfg(any(
    target_os = "linux",
    target_os = "android",
    target_os = "macos",
    target_os = "ios"
))]
fn exchange(a: &Path, b: &Path) -> io::Result<()> {
    use rustix::fs::{renameat_with, RenameFlags, CWD};
    renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE).map_err(io::Error::from)
}

#[cfg(not(any(
    target_os = "linux",
    target_os = "android",
    target_os = "macos",
    target_os = "ios"
)))]
fn exchange(_a: &Path, _b: &Path) -> io::Result<()> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "no folder exchange on this system",
    ))
}

/// The top-level names a folder's `_SUCCESS` lists (its set's files in the
/// folder; absolute names, elsewhere, are not).
fn listed_in_success(dir: &Path) -> BTreeSet<String> {
    let Ok(text) = std::fs::read_to_string(dir.join(SUCCESS)) else {
        return BTreeSet::new();
    };
    text.lines()
        .filter_map(|line| {
            let (escaped, line) = match line.strip_prefix('\\') {
                Some(rest) => (true, rest),
                None => (false, line),
            };
            let (_, name) = line.split_once("  ")?;
            let name = if escaped {
                unescape(name)
            } else {
                name.to_string()
            };
            (!name.contains('/')).then_some(name)
        })
        .collect()
}

/// The reverse of `sha256sum`'s escaping of names (`\\`, `\n`, `\r`).
fn unescape(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut chars = name.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

/// Whether an entry of an old output folder is Canopy's (replaced with
/// the set) rather than a file kept there by someone else.
fn is_canopys(name: &str, set: &BTreeSet<String>) -> bool {
    if set.contains(name)
        || name == STAGING_MARKER
        || is_staging_name(name, OLD_WORK_PREFIX)
        || is_staging_name(name, INNER_PREFIX)
    {
        return true;
    }
    // `write_atomic`'s temporaries: `.NAME.XXXXXX.tmp`.
    name.strip_prefix('.')
        .and_then(|n| n.strip_suffix(".tmp"))
        .and_then(|n| n.rsplit_once('.'))
        .is_some_and(|(base, _)| set.contains(base))
}

/// Moves the entries of `old` that are not Canopy's (`names`, and what
/// `old`'s `_SUCCESS` lists) into `out`. Returns the names that could not
/// go because `out` has an entry of that name.
fn carry_over(
    old: &Path,
    out: &Path,
    names: &BTreeSet<String>,
    step: &mut dyn FnMut() -> io::Result<()>,
) -> io::Result<Vec<String>> {
    let mut set = names.clone();
    set.extend(listed_in_success(old));
    let mut blocked = Vec::new();
    for entry in std::fs::read_dir(old)? {
        let entry = entry?;
        let name = entry.file_name();
        let text = name.to_string_lossy();
        if is_canopys(&text, &set) {
            continue;
        }
        let target = out.join(&name);
        if std::fs::symlink_metadata(&target).is_ok() {
            blocked.push(text.into_owned());
            continue;
        }
        std::fs::rename(entry.path(), target)?;
        step()?;
    }
    Ok(blocked)
}

/// Marks `old` as all Canopy's and removes it: a kill during the removal
/// leaves a folder the next run removes whole.
fn dispose(old: &Path, step: &mut dyn FnMut() -> io::Result<()>) -> io::Result<()> {
    std::fs::write(old.join(STAGING_MARKER), b"")?;
    step()?;
    std::fs::remove_dir_all(old)
}

/// Cleans up after runs into `out` that were killed: their staging folders
/// beside `out` (removed whole when marked; otherwise an old `--out` whose
/// other files go back into `out` first), their staging folders inside
/// `out`, and the `.work-*` scratch folders older versions kept in `out`.
/// A folder another process holds is left alone. Best effort: what cannot
/// be cleaned up is left, and said in the warnings returned.
fn recover_stale(out: &Path, names: &BTreeSet<String>) -> Vec<String> {
    let mut notes = Vec::new();
    let mut stale: Vec<(PathBuf, bool)> = Vec::new();
    if let (Some(parent), Some(prefix)) = (out.parent(), sibling_prefix(out)) {
        for entry in std::fs::read_dir(parent).into_iter().flatten().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if is_staging_name(&name, &prefix) && entry.file_type().is_ok_and(|t| t.is_dir()) {
                stale.push((entry.path(), true));
            }
        }
    }
    for entry in std::fs::read_dir(out).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if (is_staging_name(&name, INNER_PREFIX) || is_staging_name(&name, OLD_WORK_PREFIX))
            && entry.file_type().is_ok_and(|t| t.is_dir())
        {
            stale.push((entry.path(), false));
        }
    }
    for (dir, sibling) in stale {
        // Held: a live process's (not a run into `out`: we hold `out`).
        let Ok(_held) = FolderLock::try_lock(&dir, LockMode::Exclusive) else {
            continue;
        };
        if sibling && !dir.join(STAGING_MARKER).exists() {
            match carry_over(&dir, out, names, &mut || Ok(())) {
                Ok(blocked) if blocked.is_empty() => {}
                Ok(blocked) => {
                    notes.push(format!(
                        "warning: {} holds files a killed run did not put back into {} \
                         because it has files of the same name ({}): look at them and remove the folder",
                        dir.display(),
                        out.display(),
                        blocked.join(", ")
                    ));
                    continue;
                }
                Err(e) => {
                    notes.push(format!(
                        "warning: cannot put the files of {} back into {}: {e}",
                        dir.display(),
                        out.display()
                    ));
                    continue;
                }
            }
        }
        if let Err(e) = dispose(&dir, &mut || Ok(())) {
            notes.push(format!("warning: cannot remove {}: {e}", dir.display()));
        }
    }
    notes
}

#[cfg(test)]
mod tests;
