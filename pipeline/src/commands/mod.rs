//! The subcommands: their flags, the call into the library that does the
//! work, what they print and their exit codes.

pub mod eval;
pub mod extract;
pub mod index;
pub mod merge;
pub mod page;
pub mod partition;
pub mod run;
