//! Shared helpers for the integration tests: locating the read-only corpora.
#![allow(dead_code, unused_imports)]

use canopy_ingest::{read_warc, Event, IngestOptions, PageRecord, Reject, WarcStats};

pub use canopy_test_support::{corpora, corpus_file, manifest};

/// Reads a whole WARC, collecting events and stats.
pub fn read_all(rel: &str) -> (Vec<Event>, WarcStats) {
    let path = corpus_file(rel);
    let mut events = Vec::new();
    let stats =
        read_warc(&path, &IngestOptions::default(), &mut |e| events.push(e)).expect("WARC opens");
    (events, stats)
}

/// The pages among `events`.
pub fn pages(events: &[Event]) -> Vec<&PageRecord> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Page(p) => Some(p),
            _ => None,
        })
        .collect()
}

/// The rejects among `events`.
pub fn rejects(events: &[Event]) -> Vec<&Reject> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Reject(r) => Some(r),
            _ => None,
        })
        .collect()
}
