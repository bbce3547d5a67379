//! `read_warc` on small WARC files built by the test (in a temp directory):
//! feeds inside WARCs, status handling, content/transfer coding and caps.

use std::io::Write;
use std::path::{Path, PathBuf};

mod common;

use canopy_ingest::{read_warc, Event, IngestOptions, WarcStats};
use canopy_test_support::warc_response as response;
use flate2::write::GzEncoder;
use flate2::Compression;
use tempfile::TempDir;

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut enc = GzEncoder::new(Vec::new(), Compression::default());
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

/// Writes the records as a `.warc.gz` with one gzip member per record, in
/// a temporary folder removed when the returned guard drops, and returns
/// the guard, the file's path and each member's offset.
fn write_warc(name: &str, records: &[Vec<u8>]) -> (TempDir, PathBuf, Vec<u64>) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    let mut out = Vec::new();
    let mut offsets = Vec::new();
    for r in records {
        offsets.push(out.len() as u64);
        out.extend_from_slice(&gzip(r));
    }
    std::fs::write(&path, out).unwrap();
    (dir, path, offsets)
}

fn read(path: &Path, opts: &IngestOptions) -> (Vec<Event>, WarcStats) {
    let mut events = Vec::new();
    let stats = read_warc(path, opts, &mut |e| events.push(e)).unwrap();
    (events, stats)
}

const PAGE: &str =
    "<!DOCTYPE html><html><head><title>Grüße</title></head><body><p>Hallo Welt</p></body></html>";

#[test]
fn codings_statuses_feeds_and_offsets() {
    let chunked_gz = {
        let gz = gzip(PAGE.as_bytes());
        let (a, b) = gz.split_at(10);
        let mut c = format!("{:x}\r\n", a.len()).into_bytes();
        c.extend_from_slice(a);
        c.extend_from_slice(format!("\r\n{:x}\r\n", b.len()).as_bytes());
        c.extend_from_slice(b);
        c.extend_from_slice(b"\r\n0\r\n\r\n");
        c
    };
    let rss = b"<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>t</title>\
        <item><title>A &amp; B</title><link>/news/a.html</link><description>&lt;b&gt;Bold&lt;/b&gt; text</description></item>\
        </channel></rss>";
    let json_feed = br#"{"version": "https://jsonfeed.org/version/1.1", "title": "j",
        "items": [{"id": "1", "url": "https://example.org/j/1", "title": "J one", "content_html": "<p>x</p>"}]}"#;
    let records = vec![
        response(1, "http://example.com/plain", "HTTP/1.1 200 OK\nContent-Type: text/html; charset=utf-8\n", PAGE.as_bytes()),
        response(
            2,
            "http://example.com/chunked-gzip",
            "HTTP/1.1 200 OK\nContent-Type: text/html\nTransfer-Encoding: chunked\nContent-Encoding: gzip\n",
            &chunked_gz,
        ),
        response(3, "http://example.com/missing", "HTTP/1.1 404 Not Found\nContent-Type: text/html\n", PAGE.as_bytes()),
        response(4, "http://example.com/feed.xml", "HTTP/1.1 200 OK\nContent-Type: text/xml\n", rss),
        response(5, "http://example.com/feed.json", "HTTP/1.1 200 OK\nContent-Type: application/json\n", json_feed),
        response(6, "http://example.com/logo.png", "HTTP/1.1 200 OK\nContent-Type: image/png\n", b"\x89PNG...."),
        response(7, "http://example.com/sniffed", "HTTP/1.1 200 OK\n", PAGE.as_bytes()),
        response(8, "http://example.com/redirect", "HTTP/1.1 301 Moved\nLocation: /x\nContent-Type: text/html\n", b""),
        response(9, "http://example.com/bad-feed", "HTTP/1.1 200 OK\nContent-Type: application/rss+xml\n", b"<rss><channel>"),
    ];
    let (_dir, path, offsets) = write_warc("mixed.warc.gz", &records);
    let (events, stats) = read(&path, &IngestOptions::default());
    assert_eq!(stats.records, 9);
    assert_eq!(stats.responses, 9);
    assert_eq!(stats.html, 3);
    assert_eq!(stats.feeds, 2);
    assert_eq!(stats.rejected, 2);
    assert_eq!(stats.skipped(), 2, "image and empty redirect");

    let mut pages = 0;
    for e in &events {
        match e {
            Event::Page(p) => {
                pages += 1;
                assert_eq!(p.html, PAGE, "{}", p.url);
                assert_eq!(p.charset, "UTF-8");
                assert_eq!(p.status, Some(200));
                let idx: usize = p
                    .record_id
                    .trim_end_matches('>')
                    .rsplit('-')
                    .next()
                    .unwrap()
                    .parse()
                    .unwrap();
                assert_eq!(
                    p.source.offset,
                    Some(offsets[idx - 1]),
                    "offset of {}",
                    p.url
                );
            }
            Event::Feed { url, items, source } => {
                assert!(source.offset.is_some());
                if url.ends_with(".xml") {
                    assert_eq!(items.len(), 1);
                    assert_eq!(items[0].url, "http://example.com/news/a.html");
                    assert_eq!(items[0].title, "A & B");
                    assert_eq!(items[0].description, "Bold text");
                } else {
                    assert_eq!(items[0].url, "https://example.org/j/1");
                    assert_eq!(items[0].description, "x");
                }
            }
            Event::Reject(r) => {
                if r.url.as_deref() == Some("http://example.com/missing") {
                    assert_eq!(r.stage, canopy_types::Stage::Http);
                    assert_eq!(r.reason, "HTTP status 404");
                    assert_eq!(
                        r.record_id.as_deref(),
                        Some("<urn:uuid:00000000-0000-0000-0000-000000000003>")
                    );
                    assert_eq!(r.source.offset, Some(offsets[2]));
                } else {
                    assert_eq!(r.url.as_deref(), Some("http://example.com/bad-feed"));
                    assert_eq!(r.stage, canopy_types::Stage::Feed);
                }
            }
        }
    }
    assert_eq!(pages, 3);
}

#[test]
fn gzip_bomb_is_rejected_at_the_cap() {
    let bomb = gzip(&vec![b' '; 8 << 20]);
    let records = vec![
        response(
            1,
            "http://example.com/bomb",
            "HTTP/1.1 200 OK\nContent-Type: text/html\nContent-Encoding: gzip\n",
            &bomb,
        ),
        response(
            2,
            "http://example.com/after",
            "HTTP/1.1 200 OK\nContent-Type: text/html\n",
            PAGE.as_bytes(),
        ),
    ];
    let (_dir, path, _) = write_warc("bomb.warc.gz", &records);
    let opts = IngestOptions {
        max_decoded_bytes: 1 << 20,
        ..IngestOptions::default()
    };
    let (events, stats) = read(&path, &opts);
    assert_eq!(stats.rejected, 1);
    assert_eq!(stats.html, 1, "the record after the bomb is still read");
    match &events[0] {
        Event::Reject(r) => assert_eq!(r.reason, "content decoding exceeded cap"),
        other => panic!("expected a reject, got {other:?}"),
    }
}

#[test]
fn single_gzip_member_for_whole_file_works() {
    let records = [
        response(
            1,
            "http://example.com/a",
            "HTTP/1.1 200 OK\nContent-Type: text/html\n",
            PAGE.as_bytes(),
        ),
        response(
            2,
            "http://example.com/b",
            "HTTP/1.1 200 OK\nContent-Type: text/html\n",
            PAGE.as_bytes(),
        ),
    ];
    let (_dir, path, _) = write_warc("single-member.warc.gz", &[records.concat()]);
    let (events, stats) = read(&path, &IngestOptions::default());
    assert_eq!(stats.html, 2);
    assert_eq!(events.len(), 2);
}

#[test]
fn a_file_without_warc_records_gives_one_reject() {
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes) in [
        ("garbage.warc", b"this is not\na WARC file\n".to_vec()),
        ("empty.warc", Vec::new()),
        ("garbage.warc.gz", gzip(b"<html>nope</html>")),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let (events, stats) = read(&path, &IngestOptions::default());
        // The file counts as one record that could not be read.
        assert_eq!((stats.records, stats.rejected), (1, 1), "{name}");
        assert_eq!(events.len(), 1, "{name}");
        match &events[0] {
            Event::Reject(r) => {
                assert!(r.reason.contains("no WARC records"), "{name}: {}", r.reason)
            }
            other => panic!("{name}: {other:?}"),
        }
    }
}

/// A response record whose `Content-Length` is off by `delta` bytes.
fn response_with_length_off(id: u32, delta: i64) -> Vec<u8> {
    let good = response(
        id,
        &format!("http://example.com/{id}"),
        "HTTP/1.1 200 OK\nContent-Type: text/html\n",
        PAGE.as_bytes(),
    );
    let text = String::from_utf8(good).unwrap();
    let (head, rest) = text.split_once("Content-Length: ").unwrap();
    let (length, tail) = rest.split_once("\r\n").unwrap();
    let length = length.parse::<i64>().unwrap() + delta;
    format!("{head}Content-Length: {length}\r\n{tail}").into_bytes()
}

fn page(id: u32) -> Vec<u8> {
    response_with_length_off(id, 0)
}

/// The ways the same records are laid out in a file.
#[derive(Debug, Clone, Copy)]
enum Layout {
    Plain,
    MemberPerRecord,
    OneMember,
}

fn layout_bytes(layout: Layout, records: &[Vec<u8>]) -> Vec<u8> {
    match layout {
        Layout::Plain => records.concat(),
        Layout::MemberPerRecord => records.iter().flat_map(|r| gzip(r)).collect(),
        Layout::OneMember => gzip(&records.concat()),
    }
}

/// Reads `records` laid out each way: the pages are those of `pages`
/// (by id), each reject's reason contains one of `rejects`, in order, and
/// every record read is accounted for.
fn check_framing(what: &str, records: &[Vec<u8>], pages: &[u32], rejects: &[&str]) {
    for layout in [Layout::Plain, Layout::MemberPerRecord, Layout::OneMember] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("damaged.warc");
        std::fs::write(&path, layout_bytes(layout, records)).unwrap();
        let (events, stats) = read(&path, &IngestOptions::default());
        let got_pages: Vec<String> = common::pages(&events)
            .iter()
            .map(|p| p.url.clone())
            .collect();
        let want: Vec<String> = pages
            .iter()
            .map(|id| format!("http://example.com/{id}"))
            .collect();
        assert_eq!(got_pages, want, "{what}, {layout:?}: pages");
        let reasons: Vec<&str> = common::rejects(&events)
            .iter()
            .map(|r| r.reason.as_str())
            .collect();
        assert_eq!(
            reasons.len(),
            rejects.len(),
            "{what}, {layout:?}: {reasons:?}"
        );
        for (reason, want) in reasons.iter().zip(rejects) {
            assert!(reason.contains(want), "{what}, {layout:?}: {reason}");
        }
        assert_eq!(
            stats.records,
            stats.accounted(),
            "{what}, {layout:?}: every record read is accounted for ({stats:?})"
        );
    }
}

const RUNS_PAST: &str = "Content-Length runs past the record";
const NOT_A_RECORD: &str = "not a WARC record";

/// Regression: a `Content-Length` larger than its record swallowed the
/// records after it, which appeared nowhere (plain, per-record gzip and
/// whole-file gzip alike). The record is rejected and the next one read,
/// however far past it the length runs: into the next record's body, a few
/// bytes into its version line, or past the end of the file.
#[test]
fn a_content_length_too_long_loses_no_record_after_it() {
    for delta in [600, 1_000_000_000, 5, 13, 14] {
        let records = [
            page(1),
            response_with_length_off(2, delta),
            page(3),
            page(4),
        ];
        check_framing(
            &format!("length +{delta}"),
            &records,
            &[1, 3, 4],
            &[RUNS_PAST],
        );
    }
    let records = [page(1), page(2), response_with_length_off(3, 600)];
    check_framing("the last, +600", &records, &[1, 2], &["truncated record"]);
}

/// A `Content-Length` that takes in only part of the blank line between
/// records leaves its record whole.
#[test]
fn a_content_length_into_the_separator_is_no_error() {
    for delta in 1..=4 {
        let records = [page(1), response_with_length_off(2, delta), page(3)];
        check_framing(&format!("length +{delta}"), &records, &[1, 2, 3], &[]);
    }
}

/// A `Content-Length` too short leaves the rest of the record between
/// records: it is a reject of its own, and the record before it keeps
/// what its length covers.
#[test]
fn a_content_length_too_short_leaves_a_stretch_that_is_rejected() {
    let records = [page(1), response_with_length_off(2, -40), page(3)];
    check_framing("length -40", &records, &[1, 2, 3], &[NOT_A_RECORD]);
}

/// Regression: a stretch that opens with something other than a WARC
/// header (an HTTP message alone, `WARC/2.0`, a lower-case `warc/1.0`) was
/// skipped without a word. It is one reject; the records around it are read.
#[test]
fn a_stretch_that_is_not_a_record_is_rejected() {
    let http_alone =
        b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>orphan</p>\r\n\r\n".to_vec();
    let version = |v: &str| {
        let text = String::from_utf8(page(9)).unwrap();
        text.replacen("WARC/1.0", v, 1).into_bytes()
    };
    for (what, stray) in [
        ("HTTP alone", http_alone),
        ("WARC/2.0", version("WARC/2.0")),
        ("lower case", version("warc/1.0")),
    ] {
        let records = [page(1), stray.clone(), page(3)];
        check_framing(what, &records, &[1, 3], &[NOT_A_RECORD]);
        let records = [stray.clone(), page(1), page(3)];
        check_framing(&format!("{what} first"), &records, &[1, 3], &[NOT_A_RECORD]);
        let records = [page(1), page(3), stray];
        check_framing(&format!("{what} last"), &records, &[1, 3], &[NOT_A_RECORD]);
    }
}

/// Blank lines between records, LF-only or CRLF, are separators, not
/// stretches to reject.
#[test]
fn blank_lines_between_records_are_separators() {
    let records = [page(1), b"\n\r\n  \n".to_vec(), page(2), b"\r\n".to_vec()];
    check_framing("blank lines", &records, &[1, 2], &[]);
}

/// A stream that is no WARC (standard input fed from the wrong command, a
/// URL serving something else) may never end: past `max_decoded_bytes`
/// without a record start, reading stops with one reject. A file of the
/// same bytes ends, and is read to its end as before; a shorter stretch
/// before a record is one reject and the record is read.
#[test]
fn a_stream_without_records_is_given_up_past_the_largest_record() {
    use std::io::Read;
    let opts = IngestOptions {
        max_decoded_bytes: 1 << 20,
        ..IngestOptions::default()
    };
    let read_stream = |reader: Box<dyn Read + Send>| {
        let mut rejects = Vec::new();
        let mut payloads = 0;
        let stats =
            canopy_ingest::read_warc_stream_split("-", reader, &opts, &mut |item| match item {
                canopy_ingest::SplitItem::Event(Event::Reject(r)) => rejects.push(r.reason),
                canopy_ingest::SplitItem::Payload(_) => payloads += 1,
                canopy_ingest::SplitItem::Event(_) => {}
            });
        (stats, rejects, payloads)
    };
    let line = b"<p>not a WARC record</p>\n";
    let long = std::io::repeat(b'x').take(4 << 20);
    let (stats, rejects, _) = read_stream(Box::new(line.chain(long)));
    assert_eq!(stats.records, stats.accounted(), "{stats:?}");
    assert_eq!(rejects.len(), 1, "{rejects:?}");
    assert!(
        rejects[0].contains("gave up past 1048576 bytes without a record"),
        "{rejects:?}"
    );
    // The same bytes as a file: read to the end, no record found.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("junk.warc");
    let mut bytes = line.to_vec();
    bytes.resize(4 << 20, b'x');
    std::fs::write(&path, &bytes).unwrap();
    let (events, _) = read(&path, &opts);
    let reasons: Vec<&str> = common::rejects(&events)
        .iter()
        .map(|r| r.reason.as_str())
        .collect();
    assert_eq!(reasons.len(), 1, "{reasons:?}");
    assert!(reasons[0].starts_with("no WARC records found (not a WARC file)"));
    // Under the bound, a stretch then a record: both read.
    let mut stream = vec![b'x'; 1000];
    stream.push(b'\n');
    stream.extend(page(1));
    let (_, rejects, payloads) = read_stream(Box::new(std::io::Cursor::new(stream)));
    assert_eq!((rejects.len(), payloads), (1, 1), "{rejects:?}");
}
