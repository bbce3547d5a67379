//! Helpers shared by the end-to-end tests of the `canopy` binary: the
//! corpora, running the binary, reading what it wrote.

// Each test file uses only some of these.
#![allow(dead_code, unused_imports)]

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

pub use canopy_test_support::{corpora, corpus_file, jsonl, manifest, noise};

/// The files of a run's output set (without `--wet` and `--format
/// parquet`), in the order `canopy run` documents them.
pub const OUTPUT_SET: [&str; 8] = [
    "articles.jsonl",
    "wrappers.jsonl",
    "summary.csv",
    "rejects.jsonl",
    "duplicates.jsonl",
    "prior.tsv",
    "stats.json",
    "_SUCCESS",
];

/// The bytes of the output file `name` in `dir` as two runs of the same
/// inputs compare them (empty when it is missing): `stats.json` without
/// its `measured` part (threads, time, memory: this run's), `_SUCCESS`
/// without the line of `stats.json` (whose hash covers that part); every
/// other file whole, byte for byte.
pub fn comparable(dir: &Path, name: &str) -> Vec<u8> {
    let bytes = std::fs::read(dir.join(name)).unwrap_or_default();
    match name {
        "stats.json" if !bytes.is_empty() => {
            let mut stats: serde_json::Value = serde_json::from_slice(&bytes)
                .unwrap_or_else(|e| panic!("{}/stats.json: {e}", dir.display()));
            let measured = stats.as_object_mut().and_then(|o| o.remove("measured"));
            assert!(
                measured.is_some(),
                "{}/stats.json: no measured part",
                dir.display()
            );
            serde_json::to_vec_pretty(&stats).unwrap()
        }
        "_SUCCESS" => String::from_utf8(bytes)
            .unwrap()
            .lines()
            .filter(|l| !l.ends_with("  stats.json"))
            .flat_map(|l| [l, "\n"])
            .collect::<String>()
            .into_bytes(),
        _ => bytes,
    }
}

/// [`comparable`] of every file of [`OUTPUT_SET`] in `dir`.
pub fn comparable_set(dir: &Path) -> Vec<Vec<u8>> {
    OUTPUT_SET.iter().map(|n| comparable(dir, n)).collect()
}

/// `stats.json`'s `counts` in `dir`.
pub fn stats_counts(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("stats.json")).unwrap();
    let stats: serde_json::Value = serde_json::from_str(&text).unwrap();
    stats["counts"].clone()
}

/// The binary under test.
pub fn bin() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_canopy"))
}

/// `canopy ARGS`, asserting it finished (exit 0, or 1 with rejects).
pub fn canopy<S: AsRef<OsStr>>(args: &[S]) -> Output {
    canopy_test_support::run_finished(bin(), args)
}

/// `input` through the scale-out steps into `out`: partitioned by `ranks`
/// ranks into `buckets` buckets in `work`, each bucket extracted with
/// `extract_flags`, then merged. Each step must exit 0.
pub fn scale_out(
    input: &Path,
    work: &Path,
    out: &Path,
    ranks: u32,
    buckets: u32,
    extract_flags: &[&str],
) {
    let step = |args: Vec<&OsStr>| {
        let done = Command::new(bin()).args(&args).output().unwrap();
        assert_eq!(
            done.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&done.stderr)
        );
    };
    let (world, buckets_flag) = (ranks.to_string(), buckets.to_string());
    for rank in 0..ranks {
        let rank = rank.to_string();
        step(vec![
            "partition".as_ref(),
            input.as_os_str(),
            "--work".as_ref(),
            work.as_os_str(),
            "--rank".as_ref(),
            rank.as_ref(),
            "--world-size".as_ref(),
            world.as_ref(),
            "--buckets".as_ref(),
            buckets_flag.as_ref(),
        ]);
    }
    for bucket in 0..buckets {
        let bucket = bucket.to_string();
        let mut args: Vec<&OsStr> = vec![
            "extract".as_ref(),
            "--work".as_ref(),
            work.as_os_str(),
            "--bucket".as_ref(),
            bucket.as_ref(),
            "--out".as_ref(),
            out.as_os_str(),
        ];
        args.extend(extract_flags.iter().map(OsStr::new));
        step(args);
    }
    step(vec![
        "merge".as_ref(),
        "--work".as_ref(),
        work.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
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
    /// The output file `name` as runs compare them ([`comparable`]).
    pub fn comparable(&self, name: &str) -> Vec<u8> {
        comparable(&self.out, name)
    }
    /// This run's peak resident memory in bytes, as its `stats.json`
    /// measured it: its own, not that of other runs the test process
    /// waited for (`RUSAGE_CHILDREN` is the largest of them all, so a test
    /// running beside a heavy one would read the heavy one's peak).
    pub fn peak_memory(&self) -> u64 {
        let text = std::fs::read_to_string(self.out.join("stats.json")).unwrap();
        let stats: serde_json::Value = serde_json::from_str(&text).unwrap();
        stats["measured"]["peak_memory_bytes"]
            .as_u64()
            .unwrap_or_else(|| panic!("{}/stats.json: no peak memory", self.out.display()))
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
