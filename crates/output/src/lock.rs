//! Advisory locks on folders, so that two `canopy` processes never write
//! one output or work folder at once: the second fails at once with a
//! clear message instead of removing the first one's files.
//!
//! The lock is `flock(2)` on the folder itself (opened read-only), through
//! rustix: it follows the folder (an inode), not its name, and the kernel
//! releases it when the process ends however it ends (a SIGKILL, a crash),
//! so a killed run never blocks the next one. Advisory: only processes that
//! ask for it are kept out (every `canopy` command that writes does).
//!
//! Exclusive for a process that owns the folder (`run`, `merge` on `--out`,
//! `run --work`); shared for the scale-out steps that run many at once in
//! one folder (`partition` ranks, `extract` buckets), which still keep an
//! exclusive holder out and are kept out by one.
//!
//! Some network file systems have no `flock` (Lustre without `-o flock`,
//! some NFS set-ups): there the folder is used unlocked and
//! [`FolderLock::unsupported`] says why, for a warning.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

/// How a folder is held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockMode {
    /// One holder, nobody else.
    Exclusive,
    /// Any number of shared holders, no exclusive one.
    Shared,
}

/// A held lock; released when dropped (or when the process ends).
#[derive(Debug)]
pub struct FolderLock {
    /// The open folder the lock is on; `None` when the file system has no
    /// `flock`.
    _file: Option<File>,
    unsupported: Option<io::Error>,
    path: PathBuf,
}

/// Why a folder could not be locked.
#[derive(Debug)]
pub enum LockError {
    /// Another process holds it (the folder named).
    Busy(PathBuf),
    /// The folder cannot be opened.
    Io(PathBuf, io::Error),
}

impl std::fmt::Display for LockError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LockError::Busy(path) => write!(
                f,
                "{} is in use by another canopy process (it holds the folder's lock); \
                 wait for it to end, or give another folder",
                path.display()
            ),
            LockError::Io(path, e) => write!(f, "cannot lock {}: {e}", path.display()),
        }
    }
}

impl std::error::Error for LockError {}

impl From<LockError> for io::Error {
    fn from(e: LockError) -> io::Error {
        let kind = match &e {
            LockError::Busy(_) => io::ErrorKind::WouldBlock,
            LockError::Io(_, e) => e.kind(),
        };
        io::Error::new(kind, e.to_string())
    }
}

/// How often a busy folder is tried, and the wait between two tries: half
/// a second in all, far above the moment between a fork and its exec and
/// far below any run that holds a folder.
const BUSY_TRIES: u32 = 20;
const BUSY_WAIT: std::time::Duration = std::time::Duration::from_millis(25);

impl FolderLock {
    /// Locks the folder `dir` (which must exist) without waiting for a
    /// run: a folder another process holds is [`LockError::Busy`].
    pub fn try_lock(dir: &Path, mode: LockMode) -> Result<FolderLock, LockError> {
        let file = File::open(dir).map_err(|e| LockError::Io(dir.to_path_buf(), e))?;
        let mut result = flock(&file, mode);
        // A process spawned by another thread of the lock's holder (a test
        // harness, a Python caller running other work) holds a copy of the
        // lock's file from its fork until its exec, milliseconds after the
        // holder let go: a folder still busy after BUSY_TRIES tries is held.
        for _ in 1..BUSY_TRIES {
            if !matches!(&result, Err(e) if e.kind() == io::ErrorKind::WouldBlock) {
                break;
            }
            std::thread::sleep(BUSY_WAIT);
            result = flock(&file, mode);
        }
        match result {
            Ok(()) => Ok(FolderLock {
                _file: Some(file),
                unsupported: None,
                path: dir.to_path_buf(),
            }),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                Err(LockError::Busy(dir.to_path_buf()))
            }
            // ENOLCK, EOPNOTSUPP, ENOSYS, EINVAL: no flock on this file
            // system. Refusing would make Canopy unusable there; the
            // caller warns.
            Err(e) => Ok(FolderLock {
                _file: None,
                unsupported: Some(e),
                path: dir.to_path_buf(),
            }),
        }
    }

    /// Why the folder is not really locked, if it is not.
    pub fn unsupported(&self) -> Option<&io::Error> {
        self.unsupported.as_ref()
    }

    /// The folder locked.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A warning line for stderr when the folder could not be locked.
    pub fn warning(&self) -> Option<String> {
        self.unsupported.as_ref().map(|e| {
            format!(
                "warning: cannot lock {} ({e}): a second canopy process writing it at \
                 the same time would not be stopped",
                self.path.display()
            )
        })
    }
}

#[cfg(unix)]
fn flock(file: &File, mode: LockMode) -> io::Result<()> {
    use rustix::fs::FlockOperation;
    let op = match mode {
        LockMode::Exclusive => FlockOperation::NonBlockingLockExclusive,
        LockMode::Shared => FlockOperation::NonBlockingLockShared,
    };
    rustix::fs::flock(file, op).map_err(io::Error::from)
}

#[cfg(not(unix))]
fn flock(_file: &File, _mode: LockMode) -> io::Result<()> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "folder locks are implemented for Unix only",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exclusive_keeps_everyone_out_and_shared_holders_share() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let first = FolderLock::try_lock(d, LockMode::Exclusive).unwrap();
        assert!(first.unsupported().is_none(), "tmpfs has flock");
        assert!(matches!(
            FolderLock::try_lock(d, LockMode::Exclusive),
            Err(LockError::Busy(_))
        ));
        assert!(matches!(
            FolderLock::try_lock(d, LockMode::Shared),
            Err(LockError::Busy(_))
        ));
        drop(first);
        let a = FolderLock::try_lock(d, LockMode::Shared).unwrap();
        let b = FolderLock::try_lock(d, LockMode::Shared).unwrap();
        let busy = FolderLock::try_lock(d, LockMode::Exclusive).unwrap_err();
        assert!(busy
            .to_string()
            .contains("in use by another canopy process"));
        drop((a, b));
        FolderLock::try_lock(d, LockMode::Exclusive).unwrap();
    }

    #[test]
    fn the_lock_follows_the_folder_not_its_name() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::create_dir(&a).unwrap();
        let held = FolderLock::try_lock(&a, LockMode::Exclusive).unwrap();
        std::fs::rename(&a, &b).unwrap();
        assert!(matches!(
            FolderLock::try_lock(&b, LockMode::Exclusive),
            Err(LockError::Busy(_))
        ));
        std::fs::create_dir(&a).unwrap();
        FolderLock::try_lock(&a, LockMode::Exclusive).unwrap();
        drop(held);
    }
}
