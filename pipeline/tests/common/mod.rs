//! Helpers shared by the end-to-end tests of the `canopy` binary: the
//! corpora, running the binary, reading what it wrote.

// Each test file uses only some of these.
#![allow(dead_code, unused_imports)]

use std::ffi::OsStr;
use std::path::Path;
use std::process::Output;

pub use canopy_test_support::{corpora, corpus_file, jsonl, manifest};

/// The binary under test.
pub fn bin() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_canopy"))
}

/// `canopy ARGS`, asserting it finished (exit 0, or 1 with rejects).
pub fn canopy<S: AsRef<OsStr>>(args: &[S]) -> Output {
    canopy_test_support::run_finished(bin(), args)
}

/// The articles a run wrote into `out`.
pub fn articles(out: &Path) -> Vec<serde_json::Value> {
    jsonl(&out.join("articles.jsonl"))
}
