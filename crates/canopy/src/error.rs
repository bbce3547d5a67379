//! [`Error`]: why a call could not do its work, as a type a caller can
//! match on. A bad record is never one: it is a [`canopy_types::Reject`]
//! with its reason, and the rest goes on.

use std::fmt::Display;
use std::io;

use canopy_buckets::LayoutError;
use canopy_output::lock::LockError;

/// Why a call could not do its work.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Settings that cannot be used, or a settings or wrappers file that
    /// cannot be read.
    #[error(transparent)]
    Settings(#[from] canopy_site::Error),
    /// A file or folder that cannot be read or written.
    #[error("{}", said_after(.what, .error))]
    Io {
        /// What was being read or written.
        what: String,
        /// Why it failed.
        error: io::Error,
    },
    /// A work folder whose partition is not complete or not this one.
    #[error(transparent)]
    Layout(#[from] LayoutError),
    /// A folder another canopy process holds, or that cannot be locked.
    #[error(transparent)]
    Locked(#[from] LockError),
    /// A request that cannot be carried out as given: an input that does
    /// not exist, a method that needs feeds the inputs lack, a folder
    /// given twice, a bucket that is not in the partition.
    #[error("{0}")]
    Usage(String),
    /// Data of Canopy's own that does not read back (a prior, an input
    /// list, a work folder's counts), with where and why.
    #[error("{0}")]
    Invalid(String),
}

/// `error` said after `what`, or alone when `what` is empty.
fn said_after(what: &str, error: &io::Error) -> String {
    if what.is_empty() {
        error.to_string()
    } else {
        format!("{what}: {error}")
    }
}

impl From<io::Error> for Error {
    /// An I/O error whose caller adds nothing to what it says.
    fn from(error: io::Error) -> Error {
        Error::Io {
            what: String::new(),
            error,
        }
    }
}

/// A `Result` of this crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// This error with `what` said first (`what: error`).
    fn within(self, what: impl Display) -> Error {
        match self {
            Error::Io { what: inner, error } => Error::Io {
                what: if inner.is_empty() {
                    what.to_string()
                } else {
                    format!("{what}: {inner}")
                },
                error,
            },
            Error::Usage(m) => Error::Usage(format!("{what}: {m}")),
            other => Error::Invalid(format!("{what}: {other}")),
        }
    }
}

/// What was being done when an operation failed, as anyhow's `Context`
/// says it, for this crate's results.
pub(crate) trait Context<T> {
    /// The error said after `what`.
    fn context(self, what: impl Display) -> Result<T>;
    /// The error said after `what()`, computed only on failure.
    fn with_context<D: Display>(self, what: impl FnOnce() -> D) -> Result<T>;
}

impl<T> Context<T> for io::Result<T> {
    fn context(self, what: impl Display) -> Result<T> {
        self.map_err(|error| Error::Io {
            what: what.to_string(),
            error,
        })
    }

    fn with_context<D: Display>(self, what: impl FnOnce() -> D) -> Result<T> {
        self.map_err(|error| Error::Io {
            what: what().to_string(),
            error,
        })
    }
}

impl<T> Context<T> for Result<T> {
    fn context(self, what: impl Display) -> Result<T> {
        self.map_err(|e| e.within(what))
    }

    fn with_context<D: Display>(self, what: impl FnOnce() -> D) -> Result<T> {
        self.map_err(|e| e.within(what()))
    }
}

/// Returns `Err(Error::$kind(format!(...)))` unless `$cond`.
macro_rules! ensure {
    ($kind:ident, $cond:expr, $($arg:tt)+) => {
        if !$cond {
            return Err($crate::Error::$kind(format!($($arg)+)));
        }
    };
}
pub(crate) use ensure;
