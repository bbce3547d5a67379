//! The subcommands whose work is one call into `canopy`: their flags, the
//! call, what they print and their exit codes.

pub mod eval;
pub mod extract;
pub mod merge;
pub mod partition;
