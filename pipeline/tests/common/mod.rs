//! Helpers shared by the end-to-end tests of the `canopy` binary: the
//! corpora, running the binary, reading what it wrote.

// Each test file uses only some of these.
#![allow(dead_code, unused_imports)]

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

pub use canopy_test_support::{corpora, corpus_file, jsonl, manifest};

/// The files of a run's output set (without `--wet`), in the order
/// `canopy run` documents them.
pub const OUTPUT_SET: [&str; 7] = [
    "articles.jsonl",
    "wrappers.jsonl",
    "summary.csv",
    "rejects.jsonl",
    "duplicates.jsonl",
    "prior.tsv",
    "_SUCCESS",
];

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

/// What a `canopy run` did: its exit code, its stderr, how long it took
/// and where it wrote.
pub struct Run {
    pub code: i32,
    pub stderr: String,
    pub took: Duration,
    pub out: PathBuf,
}

impl Run {
    pub fn articles(&self) -> Vec<serde_json::Value> {
        articles(&self.out)
    }
    pub fn rejects(&self) -> Vec<serde_json::Value> {
        jsonl(&self.out.join("rejects.jsonl"))
    }
    /// The article of `url`, if the run wrote one.
    pub fn article(&self, url: &str) -> Option<serde_json::Value> {
        self.articles().into_iter().find(|a| a["url"] == url)
    }
    /// The bytes of the output file `name`.
    pub fn file(&self, name: &str) -> Vec<u8> {
        std::fs::read(self.out.join(name)).unwrap()
    }
}

/// `canopy run INPUTS --out OUT EXTRA`, timed, whatever its exit code.
pub fn run(inputs: &[&Path], out: &Path, extra: &[&str]) -> Run {
    let start = Instant::now();
    let output = Command::new(bin())
        .arg("run")
        .args(inputs)
        .arg("--out")
        .arg(out)
        .args(extra)
        .output()
        .expect("cannot start canopy");
    Run {
        code: output.status.code().expect("canopy was killed by a signal"),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        took: start.elapsed(),
        out: out.to_path_buf(),
    }
}
