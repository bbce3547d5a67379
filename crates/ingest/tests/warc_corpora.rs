//! `read_warc` and `decode_html` against the real corpora in ../shared/corpora.

mod common;

use std::collections::HashMap;

use canopy_ingest::{
    decode_html, read_warc, read_warc_bytes, read_warc_split, Event, IngestOptions, PageRecord,
    SplitItem,
};
use canopy_test_support::example_arc_plain;
use common::{corpus_file, manifest, pages, read_all, rejects};

fn squash(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

/// Every manifest record appears exactly once as a page, with its URL.
fn check_corpus_pages(corpus: &str, expected: usize) {
    let (events, stats) = read_all(&format!("{corpus}/{corpus}.warc.gz"));
    let pages = pages(&events);
    assert_eq!(pages.len(), expected, "{corpus}: page count");
    assert_eq!(stats.html as usize, expected);
    assert_eq!(stats.records, stats.accounted(), "{corpus}: {stats:?}");
    assert!(
        rejects(&events).is_empty(),
        "{corpus}: unexpected rejects {:?}",
        rejects(&events)
    );
    assert!(
        stats.skipped() > 0,
        "{corpus}: requests and non-HTML responses are skipped"
    );
    let mut by_id: HashMap<&str, usize> = HashMap::new();
    for p in &pages {
        *by_id.entry(p.record_id.as_str()).or_default() += 1;
        assert!(p.record_id.starts_with('<') && p.record_id.ends_with('>'));
        assert_eq!(p.status, Some(200));
    }
    let rows = manifest(corpus);
    assert_eq!(rows.len(), expected);
    for row in &rows {
        assert_eq!(
            by_id.get(row["record_id"].as_str()),
            Some(&1),
            "{corpus}: record {} once",
            row["record_id"]
        );
    }
    let urls: HashMap<&str, &str> = pages
        .iter()
        .map(|p| (p.record_id.as_str(), p.url.as_str()))
        .collect();
    for row in &rows {
        assert_eq!(
            urls[row["record_id"].as_str()],
            row["url"],
            "{corpus}: URL of {}",
            row["id"]
        );
    }
}

#[test]
fn big9_has_exactly_200_pages_one_per_manifest_record() {
    check_corpus_pages("big9", 200);
}

#[test]
fn dragnet_has_exactly_732_pages_one_per_manifest_record() {
    check_corpus_pages("dragnet", 732);
}

#[test]
fn gzip_offsets_point_at_member_starts() {
    let path = corpus_file("big9/big9.warc.gz");
    let bytes = std::fs::read(&path).unwrap();
    let (events, _) = read_all("big9/big9.warc.gz");
    let mut last = None;
    for p in pages(&events) {
        let off = p.source.offset.expect("offset") as usize;
        assert_eq!(
            bytes.get(off..off + 3),
            Some(&[0x1f, 0x8b, 0x08][..]),
            "gzip member at {off}"
        );
        assert!(last.is_none_or(|l| l < off), "offsets increase");
        last = Some(off);
        assert!(p.source.file.ends_with("big9.warc.gz"));
    }
    // Uncompressed WARC: offsets point at "WARC/".
    let path = corpus_file("warc/resiliparse/warcfile.warc");
    let bytes = std::fs::read(&path).unwrap();
    let (events, _) = read_all("warc/resiliparse/warcfile.warc");
    let pages = pages(&events);
    assert!(!pages.is_empty());
    for p in pages {
        let off = p.source.offset.expect("offset") as usize;
        assert_eq!(
            bytes.get(off..off + 5),
            Some(&b"WARC/"[..]),
            "record start at {off}"
        );
    }
}

#[test]
fn warc_pages_equal_decoded_corpus_html() {
    for corpus in ["big9", "dragnet"] {
        let (events, _) = read_all(&format!("{corpus}/{corpus}.warc.gz"));
        let by_id: HashMap<&str, &PageRecord> = pages(&events)
            .into_iter()
            .map(|p| (p.record_id.as_str(), p))
            .collect();
        let rows = manifest(corpus);
        for row in rows.iter().step_by(23) {
            let raw = std::fs::read(corpus_file(&format!("{corpus}/{}", row["html"]))).unwrap();
            let (text, charset) = decode_html(&raw, None);
            let page = by_id[row["record_id"].as_str()];
            assert_eq!(
                squash(&text),
                squash(&page.html),
                "{}: WARC page differs from html file",
                row["id"]
            );
            assert_eq!(charset, page.charset, "{}", row["id"]);
        }
    }
}

/// Corpus pages whose bytes are not valid UTF-8 decode without U+FFFD and
/// contain their gold title's words.
#[test]
fn non_utf8_pages_decode_cleanly_and_contain_gold_title() {
    let mut checked = 0;
    let mut legacy = 0;
    for corpus in ["big9", "dragnet"] {
        for row in manifest(corpus) {
            let raw = std::fs::read(corpus_file(&format!("{corpus}/{}", row["html"]))).unwrap();
            if std::str::from_utf8(&raw).is_ok() {
                continue;
            }
            checked += 1;
            let (text, charset) = decode_html(&raw, None);
            eprintln!("{} {charset}", row["id"]);
            legacy += usize::from(charset != "UTF-8");
            assert!(
                !text.contains('\u{FFFD}'),
                "{}: replacement characters with {charset}",
                row["id"]
            );
            let gold =
                std::fs::read_to_string(corpus_file(&format!("{corpus}/{}", row["gold"]))).unwrap();
            let title = gold.lines().next().unwrap_or_default();
            let lower = text.to_lowercase();
            let words: Vec<String> = title
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| w.len() >= 3)
                .map(str::to_lowercase)
                .collect();
            assert!(!words.is_empty(), "{}: gold title has words", row["id"]);
            let found = words.iter().filter(|w| lower.contains(w.as_str())).count();
            assert!(
                found * 10 >= words.len() * 9,
                "{}: only {found}/{} title words of {title:?} found ({charset})",
                row["id"],
                words.len()
            );
        }
    }
    assert!(
        checked >= 8,
        "expected several non-UTF-8 corpus pages, found {checked}"
    );
    assert!(
        legacy >= 4,
        "expected several pages decoded with a legacy charset, found {legacy}"
    );
}

#[test]
fn clueweb_quirk_file_yields_29_japanese_pages() {
    let (events, stats) = read_all("warc/resiliparse/clueweb-quirk.warc.gz");
    let pages = pages(&events);
    assert_eq!(pages.len(), 29);
    assert_eq!(stats.responses, 29);
    for p in pages {
        assert!(p.url.starts_with("http://www.uraharajuku.st/"), "{}", p.url);
        assert_eq!(p.charset, "EUC-JP");
        let cjk = p
            .html
            .chars()
            .filter(|c| matches!(*c as u32, 0x3040..=0x30FF | 0x4E00..=0x9FFF))
            .count();
        let bad = p.html.chars().filter(|&c| c == '\u{FFFD}').count();
        assert!(cjk > 100, "{}: only {cjk} CJK characters", p.record_id);
        assert!(
            bad * 10 < cjk,
            "{}: {bad} replacement characters vs {cjk} CJK",
            p.record_id
        );
    }
}

#[test]
fn truncated_record_is_rejected_and_earlier_records_kept() {
    let (events, stats) = read_all("warc/warcio/example-trunc.warc");
    // Two warcinfo records, the broken response, the two bytes its
    // Content-Length leaves out (warcio: "Record not followed by newline,
    // perhaps Content-Length is invalid") and the request after them.
    assert_eq!(stats.records, 5);
    assert_eq!(stats.records, stats.accounted());
    let rejects = rejects(&events);
    assert_eq!(rejects.len(), 2, "{rejects:?}");
    assert!(
        rejects[1].reason.contains("not a WARC record: 6 bytes"),
        "{}",
        rejects[1].reason
    );
    let r = rejects[0];
    assert_eq!(
        r.record_id.as_deref(),
        Some("<urn:uuid:a9c51e3e-0221-11e7-bf66-0242ac120005>")
    );
    assert!(r.reason.contains("truncated"), "{}", r.reason);
    assert_eq!(r.url.as_deref(), Some("http://example.com/"));
    assert!(r.source.offset.is_some_and(|o| o > 0));

    // A gzip file cut off in the middle of its first record.
    let (events, _) = read_all("warc/resiliparse/clipped.warc.gz");
    let rejects = crate::rejects(&events);
    assert_eq!(rejects.len(), 1, "{rejects:?}");
    assert!(
        rejects[0].reason.contains("truncated"),
        "{}",
        rejects[0].reason
    );
}

#[test]
fn wrong_chunk_sizes_still_produce_the_page() {
    let (events, _) = read_all("warc/warcio/example-wrong-chunks.warc.gz");
    let pages = pages(&events);
    assert_eq!(pages.len(), 1);
    assert!(
        pages[0].html.contains("Example Domain"),
        "{}",
        &pages[0].html
    );
}

#[test]
fn chunked_bodies_are_dechunked() {
    let (events, _) = read_all("warc/warcio/example-iana.org-chunked.warc");
    let pages = pages(&events);
    assert_eq!(pages.len(), 1);
    let html = &pages[0].html;
    let start = html.trim_start();
    assert!(
        start.to_ascii_lowercase().starts_with("<!doctype html"),
        "{:?}",
        start.get(..40)
    );
    assert!(
        html.trim_end().ends_with("</html>"),
        "chunk framing left at the end"
    );
}

#[test]
fn revisits_are_counted() {
    let (events, stats) = read_all("warc/pywb/dupes.warc.gz");
    assert_eq!(stats.revisits, 9);
    assert_eq!(stats.records, 25);
    assert!(rejects(&events).is_empty());
    let (_, iana) = read_all("warc/pywb/iana.warc.gz");
    assert_eq!(iana.revisits, 123);
}

#[test]
fn html_resource_records_are_pages() {
    let (events, _) = read_all("warc/warcio/example-resource.warc.gz");
    let pages = pages(&events);
    assert_eq!(pages.len(), 1);
    assert_eq!(pages[0].status, None);
}

#[test]
fn common_crawl_extract_reads_all_responses() {
    for f in [
        "warc/resiliparse/warcfile.warc",
        "warc/resiliparse/warcfile.warc.gz",
    ] {
        let (events, stats) = read_all(f);
        assert_eq!(stats.records, 50, "{f}");
        assert_eq!(stats.responses, 16, "{f}");
        assert_eq!(
            pages(&events).len() as u64 + stats.rejected,
            16,
            "{f}: every response is a page or a reject"
        );
        assert!(pages(&events).len() >= 14, "{f}");
    }
}

/// The ARC file (one gzip member per record: the version block, then an
/// HTTP response for http://example.com/) is read as Common Crawl's older
/// crawls are: the response becomes a page, offset = its gzip member.
#[test]
fn arc_files_are_read() {
    let (events, stats) = read_all("warc/warcio/example.arc.gz");
    assert!(rejects(&events).is_empty(), "{events:?}");
    let pages = pages(&events);
    assert_eq!(pages.len(), 1);
    assert_eq!((stats.records, stats.html, stats.skipped()), (2, 1, 1));
    let page = pages[0];
    assert_eq!(page.url, "http://example.com/");
    assert_eq!(page.status, Some(200));
    assert_eq!(page.record_id, "", "ARC records have no id");
    assert!(page.html.contains("<title>Example Domain</title>"));
    // The second gzip member starts at byte 171 (the first holds the
    // version block).
    assert_eq!(page.source.offset, Some(171));
}

/// The same ARC decompressed (a plain `.arc`, generated here), whole and
/// cut inside its response: byte offsets of the record's header line, and
/// a cut record is a reject naming it.
#[test]
fn plain_and_truncated_arc_files() {
    let (plain, header_at) = example_arc_plain();
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("example.arc");
    std::fs::write(&whole, &plain).unwrap();
    let mut events = Vec::new();
    read_warc(&whole, &IngestOptions::default(), &mut |e| events.push(e)).unwrap();
    let got = pages(&events);
    assert_eq!(got.len(), 1, "{events:?}");
    assert_eq!(got[0].source.offset, Some(header_at));
    assert!(got[0].html.contains("Example Domain"));

    let cut = dir.path().join("cut.arc");
    std::fs::write(&cut, &plain[..plain.len() - 300]).unwrap();
    let mut events = Vec::new();
    read_warc(&cut, &IngestOptions::default(), &mut |e| events.push(e)).unwrap();
    assert!(pages(&events).is_empty());
    let r = rejects(&events);
    assert_eq!(r.len(), 1, "{events:?}");
    assert_eq!(r[0].stage, canopy_types::Stage::Arc);
    assert_eq!(r[0].source.offset, Some(header_at));
    assert_eq!(r[0].url.as_deref(), Some("http://example.com/"));
    assert!(r[0]
        .reason
        .starts_with("truncated record: expected 1591 payload bytes"));
}

/// ARC bytes held in memory (as the fuzz targets hand them over) are told
/// from WARC bytes by their content and read as the file is: gzipped (at
/// the offset of the record's member) and plain (at its header line's).
/// Bytes that only open like an ARC end in one reject, not a panic.
#[test]
fn arc_bytes_in_memory_are_read_as_the_file_is() {
    let gz = std::fs::read(corpus_file("warc/warcio/example.arc.gz")).unwrap();
    let (from_file, _) = read_all("warc/warcio/example.arc.gz");
    let html = &pages(&from_file)[0].html;
    let (plain, header_at) = example_arc_plain();
    for (bytes, offset) in [(gz, 171), (plain.clone(), header_at)] {
        let mut events = Vec::new();
        let stats = read_warc_bytes("mem.arc", bytes, &IngestOptions::default(), &mut |e| {
            events.push(e)
        });
        assert_eq!((stats.records, stats.html, stats.skipped()), (2, 1, 1));
        let got = pages(&events);
        assert_eq!(got.len(), 1, "{events:?}");
        assert_eq!(&got[0].html, html);
        assert_eq!(got[0].source.offset, Some(offset));
    }
    for cut in [b"filedesc://".len(), 40] {
        let mut events = Vec::new();
        let stats = read_warc_bytes(
            "cut.arc",
            plain[..cut].to_vec(),
            &IngestOptions::default(),
            &mut |e| events.push(e),
        );
        assert_eq!(stats.records, stats.accounted(), "{stats:?}");
        let r = rejects(&events);
        assert_eq!(r.len(), 1, "{events:?}");
        assert_eq!(r[0].stage, canopy_types::Stage::Arc);
    }
}

#[test]
fn missing_file_is_an_error() {
    let path = std::path::Path::new("/nonexistent/canopy/no.warc.gz");
    let result = read_warc(path, &IngestOptions::default(), &mut |_| {});
    assert!(result.is_err());
}

#[test]
fn page_size_limit_rejects_large_pages() {
    let path = corpus_file("big9/years/2017.warc.gz");
    let opts = IngestOptions {
        max_page_bytes: 50_000,
        ..IngestOptions::default()
    };
    let mut events = Vec::new();
    let stats = read_warc(&path, &opts, &mut |e| events.push(e)).unwrap();
    assert!(stats.rejected > 0);
    assert_eq!(stats.html + stats.rejected, 50);
    for r in rejects(&events) {
        assert_eq!(r.stage, canopy_types::Stage::Http);
        assert!(r.reason.contains("max_page_bytes"), "{}", r.reason);
        assert!(r.record_id.is_some() && r.source.offset.is_some());
    }
}

#[test]
fn every_small_test_warc_is_read_without_error() {
    let files = edge_case_warcs();
    for rel in &files {
        let mut events = Vec::new();
        let stats = read_warc(&corpus_file(rel), &IngestOptions::default(), &mut |e| {
            events.push(e)
        })
        .unwrap();
        assert_eq!(stats.rejected as usize, rejects(&events).len(), "{rel}");
        assert_eq!(stats.records, stats.accounted(), "{rel}: {stats:?}");
        assert!(
            stats.records > 0 || stats.rejected > 0,
            "{rel}: nothing read and nothing rejected"
        );
    }
    assert!(files.len() >= 17, "found only {} WARC files", files.len());
}

/// The WARC and ARC files of the edge-case corpus (`warc/<tool>/`, plain
/// or gzipped), relative to the corpora folder, sorted.
fn edge_case_warcs() -> Vec<String> {
    let mut files = Vec::new();
    for sub in std::fs::read_dir(corpus_file("warc")).expect("edge-case folder") {
        let sub = sub.expect("entry").path();
        if !sub.is_dir() {
            continue;
        }
        let tool = sub.file_name().unwrap().to_string_lossy().to_string();
        for f in std::fs::read_dir(&sub).expect("tool folder") {
            let name = f.expect("entry").file_name().to_string_lossy().to_string();
            if [".warc", ".warc.gz", ".arc", ".arc.gz"]
                .iter()
                .any(|ext| name.ends_with(ext))
            {
                files.push(format!("warc/{tool}/{name}"));
            }
        }
    }
    files.sort();
    files
}

/// `read_warc_split` with the payloads decoded later, in reverse order (as
/// a pool of threads may), gives `read_warc`'s events and counts, on every
/// real WARC and ARC file of the edge-case corpus and on the dev corpora.
#[test]
fn split_reading_decodes_to_the_same_events() {
    let opts = IngestOptions::default();
    let mut files = edge_case_warcs();
    files.extend(["big9/big9.warc.gz".into(), "dragnet/dragnet.warc.gz".into()]);
    assert!(files.len() >= 20, "edge-case corpus found: {files:?}");
    let mut payloads_seen = 0;
    for rel in &files {
        let (events, stats) = read_all(rel);
        let mut items = Vec::new();
        let read = read_warc_split(&corpus_file(rel), &opts, &mut |item| items.push(item))
            .expect("WARC opens");
        let mut decoded: Vec<Option<Event>> = Vec::with_capacity(items.len());
        let mut later = canopy_ingest::WarcStats::default();
        for item in items.into_iter().rev() {
            decoded.push(match item {
                SplitItem::Event(event) => Some(event),
                SplitItem::Payload(payload) => {
                    payloads_seen += 1;
                    match payload.decode(&opts) {
                        Ok(event) => {
                            later.count(&event);
                            Some(event)
                        }
                        Err(why) => {
                            later.skip(why);
                            None
                        }
                    }
                }
            });
        }
        decoded.reverse();
        let split: Vec<Event> = decoded.into_iter().flatten().collect();
        assert_eq!(split, events, "{rel}: events");
        let total = read.plus(&later);
        assert_eq!(
            (
                total.records,
                total.html,
                total.feeds,
                total.skipped(),
                total.rejected
            ),
            (
                stats.records,
                stats.html,
                stats.feeds,
                stats.skipped(),
                stats.rejected
            ),
            "{rel}: counts"
        );
    }
    assert!(
        payloads_seen > 900,
        "payloads decoded apart: {payloads_seen}"
    );
}
