//! Shared helpers for the integration tests: locating the read-only corpora.
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::PathBuf;

use canopy_ingest::{read_warc, Event, IngestOptions, WarcStats};

/// `../shared/corpora` relative to the workspace root. Panics with a clear
/// message when it is missing, so tests never pass vacuously.
pub fn corpora() -> PathBuf {
    let dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/corpora"
    ));
    assert!(
        dir.join("README.md").is_file(),
        "test corpora not found at {} (expected ../shared/corpora next to the workspace root)",
        dir.display()
    );
    dir
}

/// A corpus file path, asserting it exists.
pub fn corpus_file(rel: &str) -> PathBuf {
    let p = corpora().join(rel);
    assert!(p.exists(), "corpus file missing: {}", p.display());
    p
}

/// One manifest row as column name → value.
pub type Row = HashMap<String, String>;

/// Reads `<corpus>/manifest.tsv`.
pub fn manifest(corpus: &str) -> Vec<Row> {
    let path = corpus_file(&format!("{corpus}/manifest.tsv"));
    let text = std::fs::read_to_string(&path).expect("manifest is UTF-8");
    let mut lines = text.lines();
    let header: Vec<String> = lines
        .next()
        .expect("manifest header")
        .split('\t')
        .map(String::from)
        .collect();
    lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            header
                .iter()
                .cloned()
                .zip(l.split('\t').map(String::from))
                .collect()
        })
        .collect()
}

/// Reads a whole WARC, collecting events and stats.
pub fn read_all(rel: &str) -> (Vec<Event>, WarcStats) {
    let path = corpus_file(rel);
    let mut events = Vec::new();
    let stats =
        read_warc(&path, &IngestOptions::default(), &mut |e| events.push(e)).expect("WARC opens");
    (events, stats)
}
