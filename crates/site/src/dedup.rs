//! Exact deduplication of a site's pages (`dedup.mode`, `--dedup`).
//!
//! `partition` writes each page's keys into the bucket index
//! ([`page_keys`]: its URL's deduplication key, its `WARC-Date` and its
//! HTML, hashed); `extract` chooses, from the index alone, which of a
//! site's pages go on to clustering, learning and the outputs ([`select`]),
//! and lists the others in `duplicates.jsonl`, each naming the page kept in
//! its place ([`write_listing`]). Every capture of one URL is in one site,
//! so one bucket: the choice needs no other bucket, rank or thread.
//!
//! The rule, in this order:
//!
//! 1. **Same URL** (`canopy_ingest::dedup_url`: the feed join's
//!    normalisation without tracking parameters): the capture with the
//!    latest `WARC-Date` is kept (a record without a date, or with one that
//!    is not RFC 3339, counts as the oldest); between equal dates, the first
//!    in input order (input file index, then the record's place in its
//!    file). The latest capture is the page as the site last served it; the
//!    input order is the one every rank and thread count agrees on, and
//!    keeps the first of several copies of one file.
//! 2. **Same HTML** (the decoded page, byte for byte), among the pages left:
//!    the first in input order is kept. A page served under two URLs of its
//!    site (a mirror path, a parameter that changes nothing) is one page.
//!
//! A duplicate of a duplicate names the page finally kept.

use std::collections::HashMap;
use std::io::{self, Write};

use canopy_buckets::{BucketReader, Entry, InputPos, Item, PageKeys};
use canopy_types::{PageRecord, SourceRef};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// What deduplication leaves out (`dedup.mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum DedupMode {
    /// Every page is processed.
    None,
    /// Captures of one URL and pages of identical HTML within a site.
    Exact,
    /// `Exact`, then articles whose text is a near duplicate of an article
    /// kept before them, crawl-wide (`crate::near`, at the merge).
    Near,
}

/// The keys [`select`] compares, for the bucket index.
pub fn page_keys(page: &PageRecord) -> PageKeys {
    PageKeys {
        url: PageKeys::hash(canopy_ingest::dedup_url(&page.url).as_bytes()),
        date: page
            .date
            .as_deref()
            .and_then(|d| chrono::DateTime::parse_from_rfc3339(d.trim()).ok())
            .map(|d| d.timestamp_micros()),
        body: PageKeys::hash(page.html.as_bytes()),
    }
}

/// Why a page was left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// Another capture of its URL was kept.
    SameUrl,
    /// A page of identical HTML was kept.
    SameHtml,
}

impl Reason {
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::SameUrl => "same URL",
            Reason::SameHtml => "same HTML",
        }
    }
}

/// A page left out, and the page kept in its place.
#[derive(Debug, Clone, Copy)]
pub struct Duplicate {
    pub entry: Entry,
    pub kept: Entry,
    pub reason: Reason,
}

/// Splits a site's index entries into those processed (feed items, and the
/// pages kept) and its duplicates (in input order), by the rule of this
/// module (`Near` leaves out the same pages here: its near duplicates are
/// found later, among the articles). Entries without keys (feed items) are
/// always kept.
pub fn select(entries: &[Entry], mode: DedupMode) -> (Vec<Entry>, Vec<Duplicate>) {
    if mode == DedupMode::None {
        return (entries.to_vec(), Vec::new());
    }
    let (mut pages, mut kept): (Vec<(Entry, PageKeys)>, Vec<Entry>) = (Vec::new(), Vec::new());
    for e in entries {
        match e.keys {
            Some(keys) => pages.push((*e, keys)),
            None => kept.push(*e),
        }
    }
    pages.sort_by_key(|(e, _)| e.pos);
    // Same URL: the latest date wins; a tie keeps the first in input order.
    let mut url_winner: HashMap<[u64; 2], usize> = HashMap::new();
    for (i, (_, keys)) in pages.iter().enumerate() {
        let winner = url_winner.entry(keys.url).or_insert(i);
        if keys.date > pages[*winner].1.date {
            *winner = i;
        }
    }
    // Same HTML, among the URLs' winners: the first in input order.
    let mut body_winner: HashMap<[u64; 2], usize> = HashMap::new();
    let mut final_of: Vec<usize> = (0..pages.len()).collect();
    for (i, (_, keys)) in pages.iter().enumerate() {
        if url_winner[&keys.url] == i {
            final_of[i] = *body_winner.entry(keys.body).or_insert(i);
        }
    }
    let mut duplicates = Vec::new();
    for (i, (entry, keys)) in pages.iter().enumerate() {
        let url = url_winner[&keys.url];
        let (target, reason) = if url != i {
            (final_of[url], Reason::SameUrl)
        } else if final_of[i] != i {
            (final_of[i], Reason::SameHtml)
        } else {
            kept.push(*entry);
            continue;
        };
        duplicates.push(Duplicate {
            entry: *entry,
            kept: pages[target].0,
            reason,
        });
    }
    (kept, duplicates)
}

/// A page as `duplicates.jsonl` names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Named {
    pub url: String,
    pub record_id: String,
    pub source: SourceRef,
    pub warc_date: Option<String>,
}

impl Named {
    pub fn of(page: &PageRecord) -> Named {
        Named {
            url: page.url.clone(),
            record_id: page.record_id.clone(),
            source: page.source.clone(),
            warc_date: page.date.clone(),
        }
    }
}

/// One line of `duplicates.jsonl`: a page left out, why, and the page
/// kept in its place.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Line {
    pub site: String,
    pub url: String,
    pub record_id: String,
    pub source: SourceRef,
    pub warc_date: Option<String>,
    /// `same URL` or `same HTML`.
    pub reason: String,
    pub kept: Named,
}

impl Line {
    /// The line of `page`, left out of `site` for `reason`, `kept` in its
    /// place.
    pub fn new(site: &str, page: Named, reason: Reason, kept: Named) -> Line {
        Line {
            site: site.to_string(),
            url: page.url,
            record_id: page.record_id,
            source: page.source,
            warc_date: page.warc_date,
            reason: reason.as_str().to_string(),
            kept,
        }
    }
}

/// The order of `duplicates.jsonl` within a site: (url, file, offset,
/// record id).
pub fn sort_lines(lines: &mut [Line]) {
    lines.sort_by(|a, b| {
        (&a.url, &a.source.file, a.source.offset, &a.record_id).cmp(&(
            &b.url,
            &b.source.file,
            b.source.offset,
            &b.record_id,
        ))
    });
}

/// Records read at once to name the duplicates.
const CHUNK: usize = 256;

/// Writes a line of `duplicates.jsonl` for each of `site`'s `duplicates`
/// into `w`, in the file's order (url, file, offset, record id), and
/// returns how many. Reads each duplicate's and each kept page's record
/// (without its HTML, once decoded) for its URL, record id and source.
pub fn write_listing(
    reader: &BucketReader,
    site: &str,
    duplicates: &[Duplicate],
    w: &mut dyn Write,
) -> io::Result<u64> {
    let mut wanted: Vec<Entry> = duplicates.iter().flat_map(|d| [d.entry, d.kept]).collect();
    wanted.sort_by_key(|e| (e.rank, e.offset));
    wanted.dedup_by_key(|e| e.pos);
    let mut named: HashMap<InputPos, Named> = HashMap::with_capacity(wanted.len());
    for chunk in wanted.chunks(CHUNK) {
        let frames = reader.read_frames(chunk)?;
        let records: Vec<io::Result<(InputPos, Named)>> = chunk
            .par_iter()
            .zip(frames)
            .map(|(entry, frame)| {
                let record = reader.decode(entry, frame)?;
                match record.item {
                    Item::Page(p) => Ok((
                        entry.pos,
                        Named {
                            url: p.url,
                            record_id: p.record_id,
                            source: p.source,
                            warc_date: p.date,
                        },
                    )),
                    Item::Feed(_) => Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        "a feed item indexed with a page's keys",
                    )),
                }
            })
            .collect();
        for r in records {
            let (pos, n) = r?;
            named.insert(pos, n);
        }
    }
    let mut lines: Vec<Line> = duplicates
        .iter()
        .map(|d| {
            Line::new(
                site,
                named[&d.entry.pos].clone(),
                d.reason,
                named[&d.kept.pos].clone(),
            )
        })
        .collect();
    sort_lines(&mut lines);
    for line in &lines {
        serde_json::to_writer(&mut *w, line)?;
        w.write_all(b"\n")?;
    }
    Ok(lines.len() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(seq: u32, url: &str, date: Option<i64>, body: &str) -> Entry {
        Entry {
            rank: 0,
            pos: InputPos { file: 0, seq },
            feed: false,
            offset: u64::from(seq) * 100,
            len: 100,
            html: body.len() as u64,
            keys: Some(PageKeys {
                url: PageKeys::hash(canopy_ingest::dedup_url(url).as_bytes()),
                date,
                body: PageKeys::hash(body.as_bytes()),
            }),
        }
    }

    fn seqs(entries: &[Entry]) -> Vec<u32> {
        let mut s: Vec<u32> = entries.iter().map(|e| e.pos.seq).collect();
        s.sort();
        s
    }

    #[test]
    fn the_latest_capture_of_a_url_is_kept_ties_to_the_first() {
        let entries = [
            entry(0, "http://a.example/x", Some(10), "old"),
            entry(1, "http://a.example/x?utm_source=feed", Some(20), "new"),
            entry(2, "http://a.example/x/", Some(20), "new again"),
            entry(3, "http://a.example/y", None, "y"),
            entry(4, "http://a.example/y", None, "y, later"),
        ];
        let (kept, dups) = select(&entries, DedupMode::Exact);
        assert_eq!(seqs(&kept), [1, 3]);
        let got: Vec<(u32, u32, Reason)> = dups
            .iter()
            .map(|d| (d.entry.pos.seq, d.kept.pos.seq, d.reason))
            .collect();
        assert_eq!(
            got,
            [
                (0, 1, Reason::SameUrl),
                (2, 1, Reason::SameUrl),
                (4, 3, Reason::SameUrl)
            ]
        );
        let (kept, dups) = select(&entries, DedupMode::None);
        assert_eq!((kept.len(), dups.len()), (5, 0));
    }

    #[test]
    fn identical_html_keeps_the_first_and_chains_resolve_to_the_page_kept() {
        let entries = [
            entry(0, "http://a.example/p", Some(5), "same"),
            entry(1, "http://a.example/q", Some(9), "other"),
            entry(2, "http://a.example/q", Some(9), "same"),
            entry(3, "http://a.example/r", Some(9), "same"),
            entry(4, "http://a.example/q", Some(1), "older"),
            entry(5, "http://a.example/r", Some(1), "r, older"),
        ];
        let (kept, dups) = select(&entries, DedupMode::Exact);
        // /q's winner is seq 1 (date 9, first); seq 3 has /p's HTML.
        assert_eq!(seqs(&kept), [0, 1]);
        let got: Vec<(u32, u32, Reason)> = dups
            .iter()
            .map(|d| (d.entry.pos.seq, d.kept.pos.seq, d.reason))
            .collect();
        assert_eq!(
            got,
            [
                (2, 1, Reason::SameUrl),
                (3, 0, Reason::SameHtml),
                (4, 1, Reason::SameUrl),
                (5, 0, Reason::SameUrl)
            ]
        );
        // A feed item (no keys) is always kept.
        let feed = Entry {
            feed: true,
            keys: None,
            ..entry(9, "http://a.example/p", None, "")
        };
        let (kept, _) = select(&[feed, entries[0], entries[3]], DedupMode::Exact);
        assert_eq!(seqs(&kept), [0, 9]);
    }
}
