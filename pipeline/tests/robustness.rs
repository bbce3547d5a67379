//! Bad input, faults and determinism: `canopy run` end to end on the real
//! edge cases of `../shared/corpora` (WARC quirks, truncation, ARC, feeds),
//! on pathological pages generated here (never committed), on bad usage,
//! and on reruns. See `docs/robustness.md` for the measured behaviour.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use canopy_test_support::warc_response as response;
use common::{corpora, run, Run};
use serde_json::Value;

mod common;

/// Generous bound on one run over a pathological input (release build).
const TIME_BOUND: Duration = Duration::from_secs(60);

/// Peak memory one page may cost at default settings (the bound).
const PAGE_MEMORY_BOUND: u64 = 1 << 30;

fn canopy(args: &[&std::ffi::OsStr]) -> (i32, String) {
    let output = Command::new(common::bin())
        .args(args)
        .output()
        .expect("cannot start canopy");
    (
        output.status.code().expect("canopy was killed by a signal"),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// The run finished (0 or 1), 1 exactly when rejects.jsonl is non-empty,
/// every reject names its file and has an offset, record id and reason
/// field, and nothing but the five outputs is left in the folder.
fn check_contract(r: &Run, what: &str) {
    assert!(
        r.code == 0 || r.code == 1,
        "{what}: exit code {} ({})",
        r.code,
        r.stderr
    );
    let rejects = r.rejects();
    assert_eq!(
        r.code == 1,
        !rejects.is_empty(),
        "{what}: exit code {} with {} rejects",
        r.code,
        rejects.len()
    );
    check_records_line(r, what);
    for rej in &rejects {
        let file = rej["source"]["file"].as_str().unwrap_or_default();
        assert!(!file.is_empty(), "{what}: reject without file: {rej}");
        assert!(
            rej["source"].get("offset").is_some(),
            "{what}: no offset: {rej}"
        );
        for key in ["record_id", "url", "stage"] {
            assert!(rej.get(key).is_some(), "{what}: no {key}: {rej}");
        }
        assert!(
            !rej["reason"].as_str().unwrap_or_default().is_empty(),
            "{what}: reject without reason: {rej}"
        );
    }
    let mut names: Vec<String> = std::fs::read_dir(&r.out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut want = common::OUTPUT_SET;
    want.sort();
    assert_eq!(
        names, want,
        "{what}: only the six outputs and the marker, no temporary files"
    );
    assert_eq!(
        success_marker(&r.out),
        Some(true),
        "{what}: _SUCCESS matches"
    );
}

/// The run's summary says how many records it read and what became of
/// them ("N records read: A articles, F feeds, V revisits, S skipped (D
/// duplicates), R rejected"): they add up, and the articles, duplicates
/// and rejects are the lines written.
fn check_records_line(r: &Run, what: &str) {
    let line = r
        .stderr
        .lines()
        .find_map(|l| {
            l.strip_prefix("canopy: ")
                .filter(|l| l.contains(" records read: "))
        })
        .unwrap_or_else(|| panic!("{what}: no records line in {}", r.stderr));
    let numbers: Vec<u64> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter(|n| !n.is_empty())
        .map(|n| n.parse().unwrap())
        .collect();
    let [records, articles, feeds, revisits, skipped, duplicates, rejected] = numbers[..] else {
        panic!("{what}: {line}");
    };
    assert_eq!(
        records,
        articles + feeds + revisits + skipped + rejected,
        "{what}: {line}"
    );
    assert_eq!(articles as usize, r.articles().len(), "{what}: {line}");
    assert_eq!(rejected as usize, r.rejects().len(), "{what}: {line}");
    assert_eq!(
        duplicates as usize,
        common::jsonl(&r.out.join("duplicates.jsonl")).len(),
        "{what}: {line}"
    );
    assert!(duplicates <= skipped, "{what}: {line}");
    check_stats_counts(
        r,
        [
            records, articles, feeds, revisits, skipped, duplicates, rejected,
        ],
        what,
    );
}

/// `stats.json`'s counts are the records line's `figures` (records,
/// articles, feeds, revisits, skipped, duplicates, rejected), add up the
/// same way, and their breakdowns are the lines of `rejects.jsonl` and
/// `duplicates.jsonl`.
fn check_stats_counts(r: &Run, figures: [u64; 7], what: &str) {
    let counts = common::stats_counts(&r.out);
    let n = |key: &str| {
        counts[key]
            .as_u64()
            .unwrap_or_else(|| panic!("{what}: stats.json has no count {key}: {counts}"))
    };
    let keys = [
        "records",
        "articles",
        "feeds",
        "revisits",
        "skipped",
        "duplicates",
        "rejected",
    ];
    assert_eq!(keys.map(n), figures, "{what}: stats.json {counts}");
    assert_eq!(
        n("records"),
        n("articles")
            + n("feeds")
            + n("revisits")
            + n("skipped")
            + n("rejected")
            + n("left_out_by_language"),
        "{what}: stats.json's records add up"
    );
    assert_eq!(
        n("skipped"),
        n("skipped_on_reading") + n("duplicates"),
        "{what}"
    );
    assert_eq!(
        n("articles"),
        n("by_wrapper") + n("by_page_method"),
        "{what}"
    );
    let by_reason = counts["skipped_on_reading_by_reason"]
        .as_object()
        .unwrap_or_else(|| panic!("{what}: no skipped_on_reading_by_reason: {counts}"));
    assert_eq!(
        by_reason.values().map(|v| v.as_u64().unwrap()).sum::<u64>(),
        n("skipped_on_reading"),
        "{what}: the skips by reason add up"
    );
    let tally = |file: &str, key: &str| {
        let mut by: std::collections::BTreeMap<String, u64> = Default::default();
        for line in common::jsonl(&r.out.join(file)) {
            *by.entry(line[key].as_str().unwrap().to_string())
                .or_default() += 1;
        }
        serde_json::to_value(by).unwrap()
    };
    assert_eq!(
        counts["rejects_by_stage"],
        tally("rejects.jsonl", "stage"),
        "{what}"
    );
    for (stage, kinds) in counts["rejects_by_reason"].as_object().unwrap() {
        let sum: u64 = kinds
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.as_u64().unwrap())
            .sum();
        assert_eq!(
            Some(sum),
            counts["rejects_by_stage"][stage].as_u64(),
            "{what}: the {stage} rejects by reason add up"
        );
    }
    assert_eq!(
        counts["duplicates_by_reason"],
        tally("duplicates.jsonl", "reason"),
        "{what}"
    );
}

/// `None` when `dir/_SUCCESS` is absent, else whether every file it lists
/// has the SHA-256 it gives, as coreutils' `sha256sum --check --strict`
/// judges it (not canopy's own code).
fn success_marker(dir: &Path) -> Option<bool> {
    if !dir.join("_SUCCESS").exists() {
        return None;
    }
    let check = Command::new("sha256sum")
        .args(["--check", "--strict", "--quiet", "_SUCCESS"])
        .current_dir(dir)
        .output()
        .expect("sha256sum (coreutils) is installed");
    Some(check.status.success())
}

// ---------------------------------------------------------------------------
// 1. The real edge cases in ../shared/corpora

/// (file under warc/, articles, rejects, text every reject's reason contains)
const WARC_CASES: &[(&str, usize, usize, &str)] = &[
    ("resiliparse/warcfile.warc", 16, 0, ""),
    ("resiliparse/warcfile.warc.gz", 16, 0, ""),
    // ClueWeb09: LF-only headers, no HTTP Content-Type; quirks mode reads it.
    ("resiliparse/clueweb-quirk.warc.gz", 29, 0, ""),
    // The file ends inside the first record's payload.
    ("resiliparse/clipped.warc.gz", 0, 1, "truncated record"),
    ("warcio/example.warc", 1, 0, ""),
    ("warcio/example.warc.gz", 1, 0, ""),
    // The response's gzip body is cut off.
    // Its response's gzip body is cut, and its Content-Length leaves out
    // two bytes, which are a stretch that is not a record.
    ("warcio/example-trunc.warc", 0, 2, "truncated gzip content"),
    // Chunk sizes that do not add up: the raw body is kept.
    ("warcio/example-wrong-chunks.warc.gz", 1, 0, ""),
    ("warcio/example-iana.org-chunked.warc", 1, 0, ""),
    ("warcio/example-bad-non-chunked.warc.gz", 1, 0, ""),
    // Only request records.
    ("warcio/example-digest.warc", 0, 0, ""),
    ("warcio/example-resource.warc.gz", 1, 0, ""),
    // ARC, read as WARC records are.
    ("warcio/example.arc.gz", 1, 0, ""),
    // Revisits are counted, not rejected.
    ("pywb/dupes.warc.gz", 1, 0, ""),
    ("pywb/iana.warc.gz", 18, 0, ""),
    ("pywb/example-wget-1-14.warc.gz", 1, 0, ""),
    ("pywb/example-wpull.warc.gz", 1, 0, ""),
    ("jwarc/cc.warc.gz", 1, 0, ""),
    // A gzip header with an extra field; only a warcinfo record inside.
    ("jwarc/gzip_extra_sl.warc.gz", 0, 0, ""),
];

#[test]
fn every_corpus_warc_runs_to_the_end() {
    let warc = corpora().join("warc");
    let tmp = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for (i, &(file, articles, rejects, reason)) in WARC_CASES.iter().enumerate() {
        let path = warc.join(file);
        assert!(path.is_file(), "missing corpus file {}", path.display());
        let r = run(&[&path], &tmp.path().join(i.to_string()), &[]);
        check_contract(&r, file);
        let got = (r.articles().len(), r.rejects().len());
        if got != (articles, rejects) {
            failures.push(format!(
                "{file}: {} articles, {} rejects; expected {articles}, {rejects}: {:?}",
                got.0,
                got.1,
                r.rejects()
            ));
        }
        for rej in r.rejects() {
            assert_eq!(rej["source"]["file"], path.display().to_string());
        }
        assert!(
            rejects == 0
                || r.rejects()
                    .iter()
                    .any(|rej| rej["reason"].as_str().unwrap().contains(reason)),
            "{file}: no reject says {reason:?}: {:?}",
            r.rejects()
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `stats.json` on the WARC edge cases together (revisits, duplicates,
/// rejects of three stages): its counts are the summary lines', it is
/// listed in `_SUCCESS`, and its measured part is there.
#[test]
fn stats_json_holds_the_summary_lines_counts() {
    let tmp = tempfile::tempdir().unwrap();
    let r = run(&[&corpora().join("warc")], tmp.path(), &["--threads", "2"]);
    check_contract(&r, "warc corpus");
    let counts = common::stats_counts(&r.out);
    // Measured (2026-11-26): 549 records, 135 revisits, 25 duplicates,
    // rejects of the stages warc, http and feed; skipped on reading, 288
    // records of other types, 30 payloads that are no page, 2 empty bodies.
    for reason in ["record type", "not a page", "empty body"] {
        assert!(
            counts["skipped_on_reading_by_reason"][reason].as_u64() > Some(0),
            "{reason}: {counts}"
        );
    }
    assert!(counts["revisits"].as_u64() > Some(0), "{counts}");
    assert!(counts["duplicates"].as_u64() > Some(0), "{counts}");
    assert!(
        counts["rejects_by_stage"].as_object().unwrap().len() >= 3,
        "{counts}"
    );
    // The kinds of reason, without their particulars (figures, the bytes
    // read, the parser's message).
    let by_reason = &counts["rejects_by_reason"];
    for (stage, kind) in [
        ("warc", "truncated record"),
        ("warc", "not a WARC record"),
        ("http", "truncated gzip content"),
        ("feed", "feed parse error"),
    ] {
        assert_eq!(
            by_reason[stage][kind].as_u64(),
            Some(1),
            "{stage} {kind}: {counts}"
        );
    }
    // The first summary line's figures.
    let line = r
        .stderr
        .lines()
        .find(|l| l.contains(" clusters, "))
        .unwrap();
    let words: Vec<&str> = line.split_whitespace().collect();
    let before = |next: &[&str]| -> Option<u64> {
        let w = words.windows(next.len() + 1).find(|w| w[1..] == *next);
        w.map(|w| w[0].parse().unwrap())
    };
    assert_eq!(
        counts["clusters"].as_u64(),
        before(&["clusters,"]),
        "{line}"
    );
    assert_eq!(
        counts["wrappers"].as_u64(),
        before(&["wrappers,"]),
        "{line}"
    );
    assert_eq!(
        counts["by_wrapper"].as_u64(),
        before(&["pages", "by", "wrapper,"]),
        "{line}"
    );
    let stats: serde_json::Value =
        serde_json::from_slice(&std::fs::read(r.out.join("stats.json")).unwrap()).unwrap();
    let mut keys: Vec<&String> = stats.as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(keys, ["canopy", "counts", "measured", "method"]);
    assert_eq!(stats["method"], "forest");
    let measured = &stats["measured"];
    assert_eq!(measured["threads"], 2);
    assert!(measured["seconds"].as_f64() > Some(0.0), "{measured}");
    assert!(
        measured["peak_memory_bytes"].as_u64() > Some(1 << 20),
        "{measured}"
    );
    let manifest = std::fs::read_to_string(r.out.join("_SUCCESS")).unwrap();
    assert!(
        manifest.lines().any(|l| l.ends_with("  stats.json")),
        "{manifest}"
    );
}

/// Regression: `stats.json`'s peak memory was `getrusage`'s, which Linux
/// carries across `execve`: a run started by a parent holding 900 MiB
/// reported 913 MiB for a 22 MiB run. Here this test process holds
/// 768 MiB, touched, while it runs `canopy` on `data/`.
#[test]
fn stats_json_peak_memory_is_the_runs_own() {
    const HELD: usize = 768 << 20;
    let held = std::hint::black_box(vec![1u8; HELD]);
    let tmp = tempfile::tempdir().unwrap();
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data");
    let r = run(&[&data], tmp.path(), &[]);
    check_contract(&r, "data");
    let peak = r.peak_memory();
    assert!(
        peak > 1 << 20 && peak < (HELD / 2) as u64,
        "peak {peak} bytes"
    );
    drop(held);
}

#[test]
fn corpus_rejects_name_the_record() {
    let warc = corpora().join("warc");
    let tmp = tempfile::tempdir().unwrap();
    // A truncated record: the reject carries its offset, id and URL.
    let r = run(
        &[&warc.join("resiliparse/clipped.warc.gz")],
        tmp.path(),
        &[],
    );
    let rej = &r.rejects()[0];
    assert_eq!(rej["source"]["offset"], 0);
    assert_eq!(rej["stage"], "warc");
    assert_eq!(
        rej["record_id"],
        "<urn:uuid:f3dfa8fa-f031-4a38-90cc-1dcee3d07bb5>"
    );
    assert!(rej["url"].as_str().unwrap().contains("houstonpress.com"));
    let r = run(
        &[&warc.join("warcio/example-trunc.warc")],
        &tmp.path().join("trunc"),
        &[],
    );
    let rej = &r.rejects()[0];
    assert_eq!(rej["source"]["offset"], 1197);
    assert_eq!(rej["stage"], "http");
    assert_eq!(rej["url"], "http://example.com/");
    assert!(rej["record_id"].as_str().unwrap().starts_with("<urn:uuid:"));
    // A plain ARC file (generated) whose second record is cut: the first
    // record's page is kept, the cut one is a reject at its header's byte
    // offset, with its URL; ARC has no record ids.
    let body = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<html><title>Arc page</title><p>An ARC record.</p></html>";
    let version = "1 0 Canopy\nURL IP-address Archive-date Content-type Archive-length\n";
    let mut arc = format!(
        "filedesc://cut.arc 0.0.0.0 20240101000000 text/plain {}\n{version}\n",
        version.len()
    );
    arc += &format!(
        "http://arc.example/a 1.2.3.4 20240101000000 text/html {}\n{body}\n",
        body.len()
    );
    let second_at = arc.len();
    arc += &format!(
        "http://arc.example/b 1.2.3.4 20240101000000 text/html {}\n{}",
        body.len() + 100,
        body
    );
    let arc = arc.into_bytes();
    let cut = tmp.path().join("cut.arc");
    std::fs::write(&cut, &arc).unwrap();
    let r = run(&[&cut], &tmp.path().join("arc"), &[]);
    check_contract(&r, "cut ARC");
    assert_eq!(r.code, 1);
    assert!(r.article("http://arc.example/a").is_some());
    let rejects = r.rejects();
    assert_eq!(rejects.len(), 1, "{rejects:?}");
    let rej = &rejects[0];
    assert_eq!(rej["stage"], "arc");
    assert_eq!(rej["url"], "http://arc.example/b");
    assert_eq!(rej["record_id"], Value::Null);
    assert_eq!(rej["source"]["offset"], second_at as u64);
    assert!(rej["reason"]
        .as_str()
        .unwrap()
        .starts_with("truncated record"));
}

/// Feed files that are rejected (the rest give items and no rejects).
const BAD_FEEDS: &[(&str, &str)] = &[
    ("feed-rs/atom/atom_entry_1.xml", "has a link"),
    ("feed-rs/atom/atom_example_7.xml", "has a link"),
    ("feed-rs/atom/atom_pub_spec_1.xml", "has a link"),
    ("feed-rs/rss0/rss_0.91_missing_id.xml", "has a link"),
    ("feed-rs/rss0/rss_0.92_spec_1.xml", "has a link"),
    ("feed-rs/rss2/rss_2.0_ghost_1.xml", "has a link"),
    ("feed-rs/rss2/rss_2.0_invalid_1.xml", "feed parse error"),
    ("feed-rs/xml/xml_iso8859.xml", "no root element"),
    ("feed-rs/xml/xml_sample_1.xml", "no root element"),
    ("feed-rs/xml/xml_sample_2.xml", "no root element"),
];

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for e in entries {
        if e.is_dir() {
            files_under(&e, out);
        } else if !e
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("LICENSE")
        {
            out.push(e);
        }
    }
}

#[test]
fn every_corpus_feed_gives_no_articles() {
    let feeds = corpora().join("feeds");
    let mut files = Vec::new();
    files_under(&feeds, &mut files);
    assert!(files.len() > 50, "feed corpus looks incomplete");
    let tmp = tempfile::tempdir().unwrap();
    let mut rejected = Vec::new();
    for (i, path) in files.iter().enumerate() {
        let rel = path
            .strip_prefix(&feeds)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let r = run(&[path], &tmp.path().join(i.to_string()), &[]);
        check_contract(&r, &rel);
        assert!(
            r.articles().is_empty(),
            "{rel}: a feed alone makes no article"
        );
        if let Some(rej) = r.rejects().first() {
            assert_eq!(r.rejects().len(), 1, "{rel}");
            assert_eq!(rej["stage"], "feed", "{rel}");
            let expected = BAD_FEEDS.iter().find(|(f, _)| *f == rel);
            assert!(expected.is_some(), "{rel} unexpectedly rejected: {rej}");
            assert!(rej["reason"]
                .as_str()
                .unwrap()
                .contains(expected.unwrap().1));
            rejected.push(rel);
        }
    }
    assert_eq!(rejected.len(), BAD_FEEDS.len(), "rejected: {rejected:?}");
}

// ---------------------------------------------------------------------------
// 2. Pathological pages, generated here

const GOOD_URL: &str = "http://good.example/after";
const GOOD_SENTENCE: &str =
    "This good page comes after the bad one and must still become an article.";

fn good_page() -> Vec<u8> {
    format!(
        "<!DOCTYPE html><html><head><title>Good page</title></head><body><article><h1>Good page</h1><p>{}</p></article></body></html>",
        [GOOD_SENTENCE; 20].join(" ")
    )
    .into_bytes()
}

const HTML_HEAD: &str = "HTTP/1.1 200 OK\nContent-Type: text/html; charset=utf-8\n";

/// A gzip member of `data`. A minimal encoder, so the test needs no
/// compression crate: one fixed-Huffman deflate block of literals, with runs
/// of a repeated byte as length-258, distance-1 matches (so 256 MiB of
/// spaces take 1.5 MB: a gzip bomb).
fn gzip(data: &[u8]) -> Vec<u8> {
    struct Bits {
        out: Vec<u8>,
        acc: u64,
        n: u32,
    }
    impl Bits {
        /// `len` bits of `value`, least significant first.
        fn put(&mut self, value: u32, len: u32) {
            self.acc |= u64::from(value) << self.n;
            self.n += len;
            while self.n >= 8 {
                self.out.push(self.acc as u8);
                self.acc >>= 8;
                self.n -= 8;
            }
        }
        /// A Huffman code, most significant bit first.
        fn code(&mut self, code: u32, len: u32) {
            let rev = code.reverse_bits() >> (32 - len);
            self.put(rev, len);
        }
        fn literal(&mut self, b: u8) {
            if b < 144 {
                self.code(0x30 + u32::from(b), 8);
            } else {
                self.code(0x190 + u32::from(b) - 144, 9);
            }
        }
    }
    let mut crc_table = [0u32; 256];
    for (i, e) in crc_table.iter_mut().enumerate() {
        let mut c = i as u32;
        for _ in 0..8 {
            c = if c & 1 != 0 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
        }
        *e = c;
    }
    let crc = !data.iter().fold(!0u32, |c, &b| {
        crc_table[((c ^ u32::from(b)) & 0xff) as usize] ^ (c >> 8)
    });
    let mut bits = Bits {
        out: vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255],
        acc: 0,
        n: 0,
    };
    bits.put(1, 1); // final block
    bits.put(1, 2); // fixed Huffman
    let mut i = 0;
    while i < data.len() {
        bits.literal(data[i]);
        let mut j = i + 1;
        while data.len() - j >= 258 && data[j..j + 258].iter().all(|&b| b == data[i]) {
            bits.code(285 - 280 + 0xC0, 8); // length 258
            bits.code(0, 5); // distance 1
            j += 258;
        }
        i = j;
    }
    bits.code(0, 7); // end of block
    if bits.n > 0 {
        bits.out.push(bits.acc as u8); // the last, partial byte
    }
    let mut out = bits.out;
    out.extend_from_slice(&crc.to_le_bytes());
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out
}

/// A `.warc.gz` (one member per record) with the bad record first and the
/// good page after it.
fn bad_then_good(dir: &Path, name: &str, head: &str, body: &[u8]) -> PathBuf {
    let path = dir.join(format!("{name}.warc.gz"));
    let mut out = gzip(&response(
        1,
        &format!("http://bad.example/{name}"),
        head,
        body,
    ));
    out.extend(gzip(&response(2, GOOD_URL, HTML_HEAD, &good_page())));
    std::fs::write(&path, out).unwrap();
    path
}

/// Runs a WARC of a bad record then a good page: bounded time, the good
/// page's article is there. Returns the run for more checks.
fn check_bad_then_good(name: &str, path: &Path, out: &Path, extra: &[&str]) -> Run {
    let r = run(&[path], out, extra);
    eprintln!("{name}: {:.2}s, exit {}", r.took.as_secs_f64(), r.code);
    assert!(r.took < TIME_BOUND, "{name} took {:?}", r.took);
    check_contract(&r, name);
    let peak = r.peak_memory();
    assert!(peak < PAGE_MEMORY_BOUND, "{name}: peak RSS {peak} bytes");
    let good = r
        .article(GOOD_URL)
        .unwrap_or_else(|| panic!("{name}: the page after the bad one is lost: {}", r.stderr));
    assert!(good["text"].as_str().unwrap().contains(GOOD_SENTENCE));
    r
}

/// [`check_bad_then_good`] on an HTML page `body` served as
/// `http://bad.example/<name>` (in a temporary folder): the run exits 0,
/// and the bad page's article text is returned.
fn bad_page_text(name: &str, body: &str) -> String {
    let tmp = tempfile::tempdir().unwrap();
    let path = bad_then_good(tmp.path(), name, HTML_HEAD, body.as_bytes());
    let r = check_bad_then_good(name, &path, &tmp.path().join("out"), &[]);
    assert_eq!(r.code, 0, "{name}");
    let article = r.article(&format!("http://bad.example/{name}"));
    let article = article.unwrap_or_else(|| panic!("{name}: no article"));
    article["text"].as_str().unwrap().to_string()
}

fn only_reject(r: &Run, name: &str, stage: &str, reason: &str) {
    let rejects = r.rejects();
    assert_eq!(rejects.len(), 1, "{name}: {rejects:?}");
    let rej = &rejects[0];
    assert_eq!(rej["stage"], stage, "{name}: {rej}");
    assert!(
        rej["reason"].as_str().unwrap().contains(reason),
        "{name}: {rej}"
    );
    assert_eq!(rej["source"]["offset"], 0, "{name}");
    assert_eq!(
        rej["record_id"], "<urn:uuid:00000000-0000-0000-0000-000000000001>",
        "{name}"
    );
    assert_eq!(r.code, 1);
}

/// Regression: 100,000 nested `<div>`s took 36 s in html5ever's tree
/// builder (quadratic in depth); canopy-dom now cuts such a parse.
#[test]
fn nesting_depth_100000() {
    let tmp = tempfile::tempdir().unwrap();
    let n = 100_000;
    let body = format!(
        "<html><body><p>shallow text</p>{}deep text{}</body></html>",
        "<div>".repeat(n),
        "</div>".repeat(n)
    );
    let path = bad_then_good(tmp.path(), "deep", HTML_HEAD, body.as_bytes());
    let r = check_bad_then_good("deep", &path, &tmp.path().join("out"), &[]);
    assert_eq!(r.code, 0);
    assert!(r.took < Duration::from_secs(20), "deep took {:?}", r.took);
    assert!(r.article("http://bad.example/deep").is_some());
}

/// Regression: 600 nested `<div>`s (just past dom.max_depth) around a
/// million paragraphs took 8 s: every `<p>` scanned the 600 open elements.
#[test]
fn moderately_deep_and_wide() {
    let tmp = tempfile::tempdir().unwrap();
    let body = format!(
        "<html><body>{}{}</body></html>",
        "<div>".repeat(600),
        "<p>x</p>".repeat(1_000_000)
    );
    let path = bad_then_good(tmp.path(), "deepwide", HTML_HEAD, body.as_bytes());
    let r = check_bad_then_good("deepwide", &path, &tmp.path().join("out"), &[]);
    assert_eq!(r.code, 0);
    assert!(
        r.took < Duration::from_secs(20),
        "deepwide took {:?}",
        r.took
    );
}

/// Regression: a `Content-Length` larger than its record swallowed the
/// next good record, and a gzip member that was not a WARC record (an HTTP
/// message alone, `WARC/2.0`, a lower-case version line) was dropped:
/// neither appeared in the articles nor in the rejects, and the run said
/// exit 0. Every record read now ends as an article, a counted skip or a
/// reject, and the summary's figures add up (`check_contract`).
#[test]
fn damaged_framing_loses_no_record() {
    let tmp = tempfile::tempdir().unwrap();
    let good = |id: u32| {
        response(
            id,
            &format!("http://site{id}.example/page"),
            HTML_HEAD,
            &good_page(),
        )
    };
    let with_length = |record: Vec<u8>, delta: i64| {
        let text = String::from_utf8(record).unwrap();
        let (head, rest) = text.split_once("Content-Length: ").unwrap();
        let (length, tail) = rest.split_once("\r\n").unwrap();
        let length = length.parse::<i64>().unwrap() + delta;
        format!("{head}Content-Length: {length}\r\n{tail}").into_bytes()
    };
    let with_version = |record: Vec<u8>, version: &str| {
        String::from_utf8(record)
            .unwrap()
            .replacen("WARC/1.0", version, 1)
            .into_bytes()
    };
    let http_alone = [
        HTML_HEAD.replace('\n', "\r\n").as_bytes(),
        b"\r\n<p>orphan</p>\r\n\r\n",
    ]
    .concat();
    let records = [
        good(1),
        with_length(good(2), 700),
        good(3),
        http_alone,
        good(4),
        with_version(good(5), "WARC/2.0"),
        good(6),
        with_version(good(7), "warc/1.0"),
        good(8),
    ];
    let path = tmp.path().join("damaged.warc.gz");
    std::fs::write(
        &path,
        records.iter().flat_map(|r| gzip(r)).collect::<Vec<u8>>(),
    )
    .unwrap();
    let r = run(&[&path], &tmp.path().join("out"), &[]);
    check_contract(&r, "damaged framing");
    let urls: Vec<String> = r
        .articles()
        .iter()
        .map(|a| a["url"].as_str().unwrap().to_string())
        .collect();
    let want: Vec<String> = [1, 3, 4, 6, 8]
        .iter()
        .map(|id| format!("http://site{id}.example/page"))
        .collect();
    assert_eq!(urls, want);
    let reasons: Vec<String> = r
        .rejects()
        .iter()
        .map(|rej| format!("{} {}", rej["record_id"], rej["reason"]))
        .collect();
    assert_eq!(reasons.len(), 4, "{reasons:#?}");
    assert!(
        reasons[0].contains("Content-Length runs past the record"),
        "{}",
        reasons[0]
    );
    for (reason, id) in reasons[1..]
        .iter()
        .zip(["null", "000000000005", "000000000007"])
    {
        assert!(reason.contains("not a WARC record"), "{reason}");
        assert!(reason.contains(id), "{reason}");
    }
}

/// Regression: a 0.5 MB page with 300 formatting elements left open (each
/// of its own attributes) before 40,000 paragraphs made html5ever re-create
/// all 300 in every paragraph: 12 million nodes, 2.2 GB, 8.7 s. The tree
/// builder now stops at `dom.max_nodes`; the page keeps its first part.
#[test]
fn unclosed_formatting_elements_before_many_paragraphs() {
    let tags = [
        "b", "i", "font", "em", "strong", "u", "s", "small", "tt", "code",
    ];
    let open: String = (0..300)
        .map(|k| format!("<{} data-k=\"{k}\">", tags[k % tags.len()]))
        .collect();
    let paragraphs: String = (0..40_000).map(|k| format!("<p>para {k}")).collect();
    let body = format!("<html><body><p>{open}{paragraphs}</body></html>");
    let text = bad_page_text("formatting", &body);
    assert!(text.contains("para 1000"), "{:?}", text.get(..200));
    assert!(!text.contains("para 39999"));
}

/// Regression: a site was held parsed whole up to `run.max_resident_pages`
/// (1000) pages whatever they weighed, and a parsed page of dense markup
/// weighs ≈ 12 times its HTML: 1000 pages of a million bytes of `<p>x</p>`
/// on one host held 12 GB. A site of more HTML than
/// `run.max_resident_bytes` now waits on disk, and its clusters learn from
/// no more HTML than that. Here 100 such pages (1.3 GB held whole) against
/// a bound of 16 MiB; the default bound (128 MiB) is the same mechanism.
#[test]
fn a_site_of_heavy_pages_is_not_held_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("heavy.warc");
    let mut warc = Vec::new();
    for p in 0..100u32 {
        let body = format!(
            "<html><head><title>Heavy {p}</title></head><body><div>{}</div></body></html>",
            format!("<p>x{p}</p>").repeat(100_000)
        );
        warc.extend(response(
            p + 1,
            &format!("http://heavy.example/{p:03}"),
            HTML_HEAD,
            body.as_bytes(),
        ));
    }
    std::fs::write(&path, warc).unwrap();
    let config = tmp.path().join("heavy.toml");
    std::fs::write(&config, "[run]\nmax_resident_bytes = 16777216\n").unwrap();
    let r = run(
        &[&path],
        &tmp.path().join("out"),
        &["--config", config.to_str().unwrap(), "--threads", "2"],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    check_contract(&r, "heavy site");
    assert_eq!(r.articles().len(), 100);
    let peak = r.peak_memory();
    assert!(peak < PAGE_MEMORY_BOUND, "peak RSS {peak} bytes");
}

#[test]
fn page_of_50_mb() {
    let tmp = tempfile::tempdir().unwrap();
    let para = format!("<p>{}</p>\n", "lorem ipsum dolor sit amet ".repeat(40));
    let body = format!(
        "<html><body>{}</body></html>",
        para.repeat(50_000_000 / para.len())
    );
    let path = bad_then_good(tmp.path(), "big", HTML_HEAD, body.as_bytes());
    // Default: over ingest.max_page_bytes (16 MiB), rejected.
    let r = check_bad_then_good("big", &path, &tmp.path().join("out"), &[]);
    only_reject(&r, "big", "http", "exceeds max_page_bytes");
    // Accepted with a larger cap: dom.max_bytes (16 MiB) cuts the parse.
    let config = tmp.path().join("big.toml");
    std::fs::write(&config, "[ingest]\nmax_page_bytes = 67108864\n").unwrap();
    let r = check_bad_then_good(
        "big, accepted",
        &path,
        &tmp.path().join("out2"),
        &["--config", config.to_str().unwrap()],
    );
    assert_eq!(r.code, 0);
    let big = r.article("http://bad.example/big").unwrap();
    assert!(big["text"].as_str().unwrap().len() > 1_000_000);
}

#[test]
fn one_million_siblings() {
    let tmp = tempfile::tempdir().unwrap();
    let body = format!("<html><body>{}</body></html>", "<p>x</p>".repeat(1_000_000));
    let path = bad_then_good(tmp.path(), "siblings", HTML_HEAD, body.as_bytes());
    let r = check_bad_then_good("siblings", &path, &tmp.path().join("out"), &[]);
    assert_eq!(r.code, 0);
    assert!(r.article("http://bad.example/siblings").is_some());
}

/// Regression: 150 nested headings around 9 MB of paragraphs held each
/// heading's whole text at once to compare it with the title: 1.4 GB and
/// 8 s for one page. A heading past a headline's length is not read whole
/// (`canopy_metadata::heading`); `check_bad_then_good` bounds the memory.
#[test]
fn nested_headings_around_a_long_text() {
    let open: String = (0..150)
        .map(|k| format!("<div><h{}><span>", 1 + k % 3))
        .collect();
    let paragraphs: String = (0..20_000)
        .map(|k| format!("<p>{}</p>", format!("word{k} ").repeat(50)))
        .collect();
    let body = format!(
        "<html><head><title>word1 word1 word1 word1</title></head><body>{open}{paragraphs}</body></html>"
    );
    let text = bad_page_text("headings", &body);
    assert!(text.contains("word19999"), "{:?}", text.get(..200));
}

/// Regression: a site whose pages put 15,000 paragraphs in one container
/// 300 inline elements deep took 20 s a page: a wrapper selecting
/// the paragraphs weighed each one's parent by counting the parent's whole
/// subtree again (`canopy_extract::residue`'s cleaning region now holds the
/// parents). Every page of the site is an article.
#[test]
fn a_site_of_paragraphs_deep_in_one_container() {
    let tmp = tempfile::tempdir().unwrap();
    let page = |k: usize| {
        let paragraphs: String = (0..15_000)
            .map(|i| format!("<p>{}</p>", format!("w{} ", i + k).repeat(50)))
            .collect();
        format!(
            "<html><head><title>Page {k} of the deep site</title></head><body>{}{paragraphs}</body></html>",
            "<span>".repeat(300)
        )
    };
    let mut warc = Vec::new();
    for k in 0..3 {
        let url = format!("http://deep.example/post/{k}.html");
        warc.extend(gzip(&response(
            k as u32 + 1,
            &url,
            HTML_HEAD,
            page(k).as_bytes(),
        )));
    }
    warc.extend(gzip(&response(4, GOOD_URL, HTML_HEAD, &good_page())));
    let path = tmp.path().join("deep.warc.gz");
    std::fs::write(&path, warc).unwrap();
    let r = run(&[&path], &tmp.path().join("out"), &[]);
    eprintln!("deep site: {:.2}s, exit {}", r.took.as_secs_f64(), r.code);
    assert!(r.took < TIME_BOUND, "deep site took {:?}", r.took);
    check_contract(&r, "deep site");
    assert_eq!(r.code, 0);
    for k in 0..3 {
        let article = r
            .article(&format!("http://deep.example/post/{k}.html"))
            .unwrap();
        assert!(article["text"]
            .as_str()
            .unwrap()
            .contains(&format!("w{} ", 14_999 + k)));
    }
}

/// Regression: each empty comment anchor (`<a name="comments">`) walked
/// every later sibling of its section to drop it, so 100,000 anchors in one
/// container walked 10 billion siblings; a walk now stops where an earlier
/// one went on.
#[test]
fn a_hundred_thousand_comment_anchors() {
    let sections: String = (0..100_000)
        .map(|k| format!("<p>reader {k}</p><a name=\"comment-{k}\"></a>"))
        .collect();
    let body = format!(
        "<html><body><article><p>{}</p>{sections}</article></body></html>",
        "The article itself. ".repeat(20)
    );
    let text = bad_page_text("anchors", &body);
    assert!(
        text.contains("reader 0") && !text.contains("reader 1"),
        "{text}"
    );
}

/// Markup at the extremes of what the tree builder and metadata read, one
/// page of each kind on a site of its own, then the good page: each ends
/// as an article within the bounds; where the extreme adds next to no
/// text, the article is the page's own paragraph (written before the
/// extreme, so a cut parse keeps it); what metadata reads stays within its
/// caps.
#[test]
fn markup_extremes_each_end_as_an_article() {
    let kinds: Vec<(&str, String, String)> = vec![
        // Text foster-parented out of a table, row after row.
        (
            "foster",
            String::new(),
            format!(
                "<table>{}</table>",
                "<tr>foster text <b>b</b> ".repeat(100_000)
            ),
        ),
        // Foreign content nested past any depth cap.
        (
            "svg",
            String::new(),
            format!("<svg>{}x</svg>", "<g>".repeat(100_000)),
        ),
        (
            "math",
            String::new(),
            format!("<math>{}x", "<mi>".repeat(50_000)),
        ),
        // Template contents nested (a fragment of its own each).
        (
            "template",
            String::new(),
            format!("{}x", "<template>".repeat(50_000)),
        ),
        // A select's options, each closing the one before.
        (
            "select",
            String::new(),
            format!("<select>{}</select>", "<option>x".repeat(200_000)),
        ),
        // Metadata: author metas far past the candidates read, one time
        // element after another, a JSON-LD array nested past serde_json's
        // recursion limit.
        (
            "metas",
            (0..200_000)
                .map(|i| format!("<meta name=\"author\" content=\"Author {i}\">"))
                .collect(),
            String::new(),
        ),
        (
            "times",
            String::new(),
            (0..300_000)
                .map(|i| format!("<time datetime=\"2012-07-{:02}\">x</time>", i % 28 + 1))
                .collect(),
        ),
        (
            "jsonld",
            format!(
                "<script type=\"application/ld+json\">{}{}</script>",
                "[".repeat(100_000),
                "]".repeat(100_000)
            ),
            String::new(),
        ),
    ];
    let paragraph = |kind: &str| {
        format!("The own paragraph of the {kind} page, long enough to be its article text. ")
            .repeat(5)
    };
    let tmp = tempfile::tempdir().unwrap();
    let mut warc = Vec::new();
    for (i, (kind, head, body)) in kinds.iter().enumerate() {
        let page = format!(
            "<!DOCTYPE html><html><head><title>The {kind} page</title>{head}</head><body><article><p>{}</p></article>{body}</body></html>",
            paragraph(kind)
        );
        let url = format!("http://{kind}.example/page");
        warc.extend(gzip(&response(
            i as u32 + 1,
            &url,
            HTML_HEAD,
            page.as_bytes(),
        )));
    }
    warc.extend(gzip(&response(
        kinds.len() as u32 + 1,
        GOOD_URL,
        HTML_HEAD,
        &good_page(),
    )));
    let path = tmp.path().join("extremes.warc.gz");
    std::fs::write(&path, warc).unwrap();
    let r = check_bad_then_good("extremes", &path, &tmp.path().join("out"), &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    for (kind, ..) in &kinds {
        let article = r
            .article(&format!("http://{kind}.example/page"))
            .unwrap_or_else(|| panic!("{kind}: no article"));
        let text = article["text"].as_str().unwrap();
        // Text foster-parented out of a table and the time elements' text
        // are a block far longer than the paragraph.
        if !["foster", "times"].contains(kind) {
            assert!(text.contains(paragraph(kind).trim()), "{kind}: {text:.300}");
        } else {
            assert!(!text.is_empty(), "{kind}");
        }
    }
    let authors = r.article("http://metas.example/page").unwrap()["authors"].clone();
    let authors = authors.as_array().unwrap();
    assert!(
        !authors.is_empty() && authors.len() <= 32,
        "{} authors",
        authors.len()
    );
    assert_eq!(authors[0], "Author 0");
    let times = r.article("http://times.example/page").unwrap();
    assert_eq!(
        times["date"].as_str().unwrap().get(..10),
        Some("2012-07-01")
    );
}

/// Regression: random bytes served as text/html became a 222 KB article of
/// mojibake; they are now rejected.
#[test]
fn binary_garbage_declared_html() {
    let tmp = tempfile::tempdir().unwrap();
    let garbage = common::noise(1 << 20);
    let path = bad_then_good(tmp.path(), "garbage", HTML_HEAD, &garbage);
    let r = check_bad_then_good("garbage", &path, &tmp.path().join("out"), &[]);
    only_reject(&r, "garbage", "http", "binary content");
}

#[test]
fn invalid_utf8_throughout() {
    let tmp = tempfile::tempdir().unwrap();
    let mut body = b"<html><body><p>".to_vec();
    for _ in 0..100_000 {
        body.extend_from_slice(&[0xff, 0xfe, 0xc3, 0x28, 0xa0, 0xa1, 0xe2, 0x28, 0xa1]);
    }
    body.extend_from_slice(b"</p></body></html>");
    let path = bad_then_good(tmp.path(), "invalid", HTML_HEAD, &body);
    let r = check_bad_then_good("invalid", &path, &tmp.path().join("out"), &[]);
    // Kept: the declared UTF-8 loses the cross-check and a detected
    // single-byte charset decodes every byte.
    assert_eq!(r.code, 0);
    assert!(r.article("http://bad.example/invalid").is_some());
}

#[test]
fn gzip_bomb_as_http_content_coding() {
    let tmp = tempfile::tempdir().unwrap();
    let bomb = gzip(&vec![b' '; 256 << 20]);
    assert!(bomb.len() < 4 << 20, "{} bytes of gzip", bomb.len());
    let head = format!("{HTML_HEAD}Content-Encoding: gzip\n");
    let path = bad_then_good(tmp.path(), "bomb", &head, &bomb);
    let r = check_bad_then_good("bomb", &path, &tmp.path().join("out"), &[]);
    only_reject(&r, "bomb", "http", "content decoding exceeded cap");
}

/// A page whose parse passes `run.page_budget_ms` is stopped and rejected
/// (stage `budget`); the other pages of its site, same template, still
/// become articles. 500 nested `<div>`s (under `dom.max_depth`, so nothing
/// is flattened or cut) around 400,000 paragraphs: every `<p>` scans the
/// 500 open elements, about a second of parsing, far over 200 ms; the good
/// pages take well under a millisecond each.
#[test]
fn page_over_its_time_budget_is_rejected_and_the_site_goes_on() {
    let tmp = tempfile::tempdir().unwrap();
    let slow = format!(
        "<html><head><title>Slow</title></head><body>{}{}</body></html>",
        "<div>".repeat(500),
        "<p>x</p>".repeat(400_000)
    );
    let path = tmp.path().join("budget.warc");
    let mut warc = response(1, "http://good.example/slow", HTML_HEAD, slow.as_bytes());
    let good_urls: Vec<String> = (1..=3).map(|i| format!("{GOOD_URL}{i}")).collect();
    for (i, url) in good_urls.iter().enumerate() {
        // Told apart by a comment: pages of identical HTML are duplicates.
        let mut page = good_page();
        page.extend(format!("<!-- page {i} -->").bytes());
        warc.extend(response(2 + i as u32, url, HTML_HEAD, &page));
    }
    std::fs::write(&path, warc).unwrap();
    let config = tmp.path().join("budget.toml");
    std::fs::write(&config, "[run]\npage_budget_ms = 200\n").unwrap();

    let r = run(
        &[&path],
        &tmp.path().join("out"),
        &["--config", config.to_str().unwrap()],
    );
    eprintln!("budget: {:.2}s, exit {}", r.took.as_secs_f64(), r.code);
    assert!(r.took < TIME_BOUND, "budget run took {:?}", r.took);
    check_contract(&r, "budget");
    let rejects = r.rejects();
    assert_eq!(rejects.len(), 1, "{rejects:?}");
    let rej = &rejects[0];
    assert_eq!(rej["stage"], "budget", "{rej}");
    assert_eq!(rej["url"], "http://good.example/slow");
    assert_eq!(rej["source"]["offset"], 0);
    assert_eq!(
        rej["record_id"],
        "<urn:uuid:00000000-0000-0000-0000-000000000001>"
    );
    let reason = rej["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("page_budget_ms 200 exceeded: time budget exceeded while parsing"),
        "{rej}"
    );
    assert_eq!(r.code, 1);
    assert!(r.article("http://good.example/slow").is_none());
    for url in &good_urls {
        let good = r
            .article(url)
            .unwrap_or_else(|| panic!("{url} lost: {}", r.stderr));
        assert!(good["text"].as_str().unwrap().contains(GOOD_SENTENCE));
    }

    // Without a budget (0) the same page is parsed whole and kept: the
    // reject above came from the budget, not from the page.
    std::fs::write(&config, "[run]\npage_budget_ms = 0\n").unwrap();
    let r = run(
        &[&path],
        &tmp.path().join("out0"),
        &["--config", config.to_str().unwrap()],
    );
    check_contract(&r, "no budget");
    assert_eq!(r.code, 0, "{:?}", r.rejects());
    assert!(r.article("http://good.example/slow").is_some());
    assert_eq!(r.articles().len(), 4);
}

#[test]
fn gzip_bomb_as_warc_member() {
    let tmp = tempfile::tempdir().unwrap();
    // One gzip member holding a record with 256 MiB of payload.
    let body = vec![b' '; 256 << 20];
    let member = gzip(&response(
        1,
        "http://bad.example/warcbomb",
        HTML_HEAD,
        &body,
    ));
    drop(body);
    assert!(member.len() < 4 << 20);
    let path = tmp.path().join("warcbomb.warc.gz");
    let mut out = member;
    out.extend(gzip(&response(2, GOOD_URL, HTML_HEAD, &good_page())));
    std::fs::write(&path, out).unwrap();
    let r = check_bad_then_good("warcbomb", &path, &tmp.path().join("out"), &[]);
    only_reject(
        &r,
        "warcbomb",
        "warc",
        "record payload exceeds 67108864 bytes",
    );
}

/// A `.warc.gz` with a corrupt member of 400 KB after 300 KB of whole ones,
/// read in segments (crates/ingest/src/gzip_segments.rs): the corrupt
/// record is a reject, the pages before and after it are kept (reading
/// resumes at the next member, crates/ingest/src/resync.rs), and the
/// outputs are the same with one thread and two.
#[test]
fn corrupt_member_gives_the_same_outputs_whatever_the_thread_count() {
    let tmp = tempfile::tempdir().unwrap();
    let original = std::fs::read(corpora().join("big9/years/2005.warc.gz")).unwrap();
    let corrupt = canopy_test_support::corrupt_gzip_member("http://bad.example/crc");
    let (bytes, _) = canopy_test_support::insert_member(&original, 300_000, &corrupt);
    let path = tmp.path().join("crc.warc.gz");
    std::fs::write(&path, bytes).unwrap();
    let one = run(&[&path], &tmp.path().join("one"), &["--threads", "1"]);
    let two = run(&[&path], &tmp.path().join("two"), &["--threads", "2"]);
    check_contract(&one, "crc");
    assert!(
        one.rejects()
            .iter()
            .any(|r| r["url"] == "http://bad.example/crc"),
        "the corrupt record is a reject: {:?}",
        one.rejects()
    );
    let whole = run(
        &[&corpora().join("big9/years/2005.warc.gz")],
        &tmp.path().join("whole"),
        &[],
    );
    assert_eq!(
        one.articles().len(),
        whole.articles().len(),
        "every page of the file around the corrupt member is kept"
    );
    for file in [
        "articles.jsonl",
        "rejects.jsonl",
        "wrappers.jsonl",
        "stats.json",
    ] {
        let a = one.comparable(file);
        let b = two.comparable(file);
        assert!(a == b, "{file} differs between one thread and two");
    }
}

/// A file cut in the middle of its last record: the earlier page is kept
/// and the cut record is a reject.
#[test]
fn truncated_file_keeps_earlier_pages() {
    let tmp = tempfile::tempdir().unwrap();
    for gz in [false, true] {
        let good = response(1, GOOD_URL, HTML_HEAD, &good_page());
        let cut = response(2, "http://bad.example/cut", HTML_HEAD, &good_page());
        let cut = &cut[..cut.len() / 2];
        let (name, bytes) = if gz {
            let mut b = gzip(&good);
            let g = gzip(&response(
                2,
                "http://bad.example/cut",
                HTML_HEAD,
                &good_page(),
            ));
            b.extend_from_slice(&g[..g.len() / 2]);
            ("cut.warc.gz", b)
        } else {
            ("cut.warc", [good.as_slice(), cut].concat())
        };
        let path = tmp.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let r = run(&[&path], &tmp.path().join(format!("out-{gz}")), &[]);
        check_contract(&r, name);
        assert!(r.article(GOOD_URL).is_some(), "{name}");
        assert_eq!(r.code, 1, "{name}");
        assert_eq!(r.rejects().len(), 1, "{name}: {:?}", r.rejects());
    }
}

// ---------------------------------------------------------------------------
// 3. Exit codes

#[test]
fn exit_codes() {
    let warc = corpora().join("warc");
    let good = warc.join("warcio/example.warc");
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let o = out.as_os_str();
    let g = good.as_os_str();
    let os = |s: &'static str| std::ffi::OsStr::new(s);

    assert_eq!(run(&[&good], &out, &[]).code, 0, "all records used");
    let r = run(&[&warc.join("warcio/example-trunc.warc")], &out, &[]);
    assert_eq!(r.code, 1, "some rejects");

    let bad_config = tmp.path().join("bad.toml");
    std::fs::write(&bad_config, "[ingest]\nno_such_key = 1\n").unwrap();
    let not_a_dir = tmp.path().join("file");
    std::fs::write(&not_a_dir, "x").unwrap();
    let cases: Vec<(&str, Vec<&std::ffi::OsStr>)> = vec![
        ("no arguments", vec![]),
        ("unknown command", vec![os("frobnicate")]),
        ("run without inputs", vec![os("run"), os("--out"), o]),
        ("run without --out", vec![os("run"), g]),
        (
            "unknown flag",
            vec![os("run"), g, os("--out"), o, os("--bogus")],
        ),
        (
            "unknown method",
            vec![os("run"), g, os("--out"), o, os("--method"), os("magic")],
        ),
        (
            "bad --top-k",
            vec![os("run"), g, os("--out"), o, os("--top-k"), os("0")],
        ),
        (
            "unknown config key",
            vec![
                os("run"),
                g,
                os("--out"),
                o,
                os("--config"),
                bad_config.as_os_str(),
            ],
        ),
        (
            "missing config",
            vec![
                os("run"),
                g,
                os("--out"),
                o,
                os("--config"),
                os("/nonexistent/c.toml"),
            ],
        ),
        (
            "missing input",
            vec![os("run"), os("/nonexistent/x.warc"), os("--out"), o],
        ),
        (
            "unwritable --out",
            vec![os("run"), g, os("--out"), os("/proc/x")],
        ),
        (
            "--out is a file",
            vec![os("run"), g, os("--out"), not_a_dir.as_os_str()],
        ),
    ];
    for (what, args) in cases {
        let (code, stderr) = canopy(&args);
        assert_eq!(code, 2, "{what}: {stderr}");
        assert!(!stderr.is_empty(), "{what}: says why");
    }
    assert_eq!(canopy(&[os("--help")]).0, 0);
    assert_eq!(canopy(&[os("--version")]).0, 0);
}

// ---------------------------------------------------------------------------
// 4. Crash safety and determinism

#[test]
fn reruns_are_byte_identical_and_failed_runs_leave_outputs_alone() {
    let c = corpora();
    let inputs = [
        c.join("warc/resiliparse/clueweb-quirk.warc.gz"),
        c.join("warc/resiliparse/warcfile.warc.gz"),
        c.join("warc/pywb/iana.warc.gz"),
        c.join("warc/resiliparse/clipped.warc.gz"),
        c.join("feeds/trafilatura/feed2.rss"),
    ];
    let inputs: Vec<&Path> = inputs.iter().map(|p| p.as_path()).collect();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let read = |name: &str| common::comparable(&out, name);
    let names = common::OUTPUT_SET;
    // Every file in the output folder, by name: the comparison covers all
    // of them, not a chosen few.
    let listing = || {
        let mut files: Vec<String> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        files.sort();
        files
    };

    let first = run(&inputs, &out, &["--threads", "1"]);
    check_contract(&first, "first run");
    assert_eq!(first.code, 1);
    let mut sorted_names = names.map(String::from).to_vec();
    sorted_names.sort();
    assert_eq!(
        listing(),
        sorted_names,
        "the output folder holds the five files and _SUCCESS only"
    );
    let before: Vec<Vec<u8>> = names.iter().map(|n| read(n)).collect();
    assert!(before[0].len() > 10_000);
    assert!(before[2].len() > 100, "summary.csv has rows");
    for (what, extra) in [
        ("two threads", vec!["--threads", "2"]),
        ("two threads again", vec!["--threads", "2"]),
        ("one thread again", vec!["--threads", "1"]),
        ("seven threads", vec!["--threads", "7"]),
    ] {
        let r = run(&inputs, &out, &extra);
        check_contract(&r, what);
        assert_eq!(listing(), sorted_names, "{what}");
        for (n, b) in names.iter().zip(&before) {
            assert!(read(n) == *b, "{what}: {n} differs");
        }
    }
    // A run that fails on usage does not touch the previous outputs.
    let (code, _) = canopy(&[
        "run".as_ref(),
        inputs[0].as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
        "--method".as_ref(),
        "magic".as_ref(),
    ]);
    assert_eq!(code, 2);
    for (n, b) in names.iter().zip(&before) {
        assert!(read(n) == *b, "{n} changed by a failed run");
    }
    // Outputs replace whatever was there.
    std::fs::write(out.join("articles.jsonl"), "stale\n").unwrap();
    let r = run(&inputs, &out, &[]);
    check_contract(&r, "over stale files");
    assert!(read("articles.jsonl") == before[0]);
}

/// A run killed (SIGKILL) at any point leaves `--out` holding one run's
/// complete set, every file byte-identical to that run's and `_SUCCESS`
/// matching them, or (before any run finished there) no set at all, and
/// nothing else: the new set is written in a folder beside `--out` and
/// exchanged with it in one step (`canopy_output::switch`). The kills
/// alternate between two inputs and are spread over the whole run, most
/// around its end (the merge and the switch). What a kill leaves beside
/// `--out` is removed by the next run, whose lock the killed one does not
/// hold; the rerun gives the same bytes.
#[test]
fn killed_runs_leave_no_partial_output_and_a_rerun_repairs() {
    let inputs = [
        corpora().join("big9/big9.warc.gz"),
        corpora().join("warc/pywb/iana.warc.gz"),
    ];
    let tmp = tempfile::tempdir().unwrap();
    let mut names = common::OUTPUT_SET;
    names.sort();
    // Per input: how long a whole run takes, and the bytes of each file.
    let references: Vec<(Duration, Vec<Vec<u8>>)> = inputs
        .iter()
        .enumerate()
        .map(|(i, input)| {
            let dir = tmp.path().join(format!("reference-{i}"));
            let r = run(&[input], &dir, &["--threads", "2"]);
            check_contract(&r, "reference");
            let files = names.iter().map(|n| common::comparable(&dir, n));
            (r.took, files.collect())
        })
        .collect();
    assert!(references[0].1[0] != references[1].1[0]);
    let out = tmp.path().join("out");
    let listing = |dir: &Path| -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    // Kills spread over the whole run, most of them around the merge and
    // the switch at its end (in twentieths of a whole run).
    let mut left = [0usize; 3];
    let mut some_set = false;
    for (i, twentieths) in [
        0u32, 4, 10, 14, 16, 17, 18, 19, 20, 21, 22, 23, 24, 26, 17, 18, 19, 20, 21, 22, 23,
    ]
    .into_iter()
    .enumerate()
    {
        let (input, (full, _)) = (&inputs[i % 2], &references[i % 2]);
        let mut child = Command::new(common::bin())
            .args(["run".as_ref(), input.as_os_str(), "--out".as_ref()])
            .arg(&out)
            .args(["--threads", "2"])
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(*full * twentieths / 20);
        let _ = child.kill();
        let _ = child.wait();
        let here = listing(&out);
        if here.is_empty() {
            // No run has finished into the folder yet.
            assert!(!some_set, "kill {i} at {twentieths}/20: the set is gone");
            left[0] += 1;
        } else {
            assert_eq!(
                here, names,
                "kill {i} at {twentieths}/20: the set's files and nothing else"
            );
            let got: Vec<Vec<u8>> = names.iter().map(|n| common::comparable(&out, n)).collect();
            let whole = references.iter().position(|(_, files)| *files == got);
            let Some(which) = whole else {
                panic!("kill {i} at {twentieths}/20: files of no single complete run")
            };
            assert_eq!(success_marker(&out), Some(true), "kill {i}");
            left[which + 1] += 1;
            some_set = true;
        }
        // Beside the folder: at most what this kill left (a new set not
        // yet switched in, or the old one not yet removed); the next run
        // removes it.
        let beside: Vec<String> = listing(tmp.path())
            .into_iter()
            .filter(|n| n.starts_with('.'))
            .collect();
        assert!(
            beside.len() <= 1 && beside.iter().all(|n| n.starts_with(".out.canopy-")),
            "kill {i}: {beside:?}"
        );
    }
    eprintln!(
        "kills that left no set: {}, input 0's whole set: {}, input 1's: {}",
        left[0], left[1], left[2]
    );
    // What a kill between creating a temporary and renaming it left in
    // older versions: the next run drops it with the old set.
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join(".articles.jsonl.k1ll3d.tmp"), "half").unwrap();
    let rerun = run(&[&inputs[0]], &out, &["--threads", "2"]);
    check_contract(&rerun, "rerun after kills");
    for (n, want) in names.iter().zip(&references[0].1) {
        assert!(common::comparable(&out, n) == *want, "rerun: {n} differs");
    }
    let beside: Vec<String> = listing(tmp.path())
        .into_iter()
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(beside.is_empty(), "{beside:?}");
}

/// A name of the output set taken by a folder (or a link, a FIFO…) is
/// refused before any work, with exit 2, and the old set stays whole with
/// its `_SUCCESS` (it used to be found after `articles.jsonl` had been
/// replaced, leaving files of two runs). With `--wet` outside `--out`, the
/// WET file is in the manifest by its absolute path.
#[test]
fn a_name_of_the_set_in_the_way_is_refused_before_any_output_changes() {
    let c = corpora();
    let (first, second) = (
        c.join("warc/resiliparse/warcfile.warc.gz"),
        c.join("warc/pywb/iana.warc.gz"),
    );
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    check_contract(&run(&[&first], &out, &[]), "first run");
    let old_articles = std::fs::read(out.join("articles.jsonl")).unwrap();
    std::fs::remove_file(out.join("wrappers.jsonl")).unwrap();
    std::fs::create_dir_all(out.join("wrappers.jsonl").join("in-the-way")).unwrap();
    let failed = run(&[&second], &out, &[]);
    assert_eq!(failed.code, 2, "{}", failed.stderr);
    assert!(
        failed
            .stderr
            .contains("wrappers.jsonl is a folder, not a file canopy wrote"),
        "{}",
        failed.stderr
    );
    assert!(std::fs::read(out.join("articles.jsonl")).unwrap() == old_articles);
    std::fs::remove_dir_all(out.join("wrappers.jsonl")).unwrap();
    let wet = tmp.path().join("wet dir").join("text.warc.wet.gz");
    std::fs::create_dir_all(wet.parent().unwrap()).unwrap();
    let r = run(&[&second], &out, &["--wet", wet.to_str().unwrap()]);
    check_contract(&r, "rerun with --wet");
    let manifest = std::fs::read_to_string(out.join("_SUCCESS")).unwrap();
    let listed: Vec<&str> = manifest
        .lines()
        .map(|l| l.split_once("  ").unwrap().1)
        .collect();
    assert_eq!(
        listed,
        [
            "articles.jsonl",
            "wrappers.jsonl",
            "summary.csv",
            "rejects.jsonl",
            "duplicates.jsonl",
            "prior.tsv",
            "stats.json",
            wet.to_str().unwrap()
        ]
    );
}

// ---------------------------------------------------------------------------
// 5. Security

/// Feed XML never resolves external entities (nor expands an entity bomb).
#[test]
fn feeds_never_resolve_external_entities() {
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
    let marker = passwd
        .lines()
        .next()
        .filter(|l| !l.is_empty())
        .unwrap_or("root:x:0:0")
        .to_string();
    let tmp = tempfile::tempdir().unwrap();
    let feed = |entity: &str, text: &str| {
        format!(
            "<?xml version=\"1.0\"?>\n<!DOCTYPE rss [{entity}]>\n<rss version=\"2.0\"><channel><title>t {text}</title>\
             <item><title>Good page {text}</title><link>{GOOD_URL}</link><description>about {text}</description></item>\
             </channel></rss>"
        )
    };
    let xxe = feed("<!ENTITY x SYSTEM \"file:///etc/passwd\">", "&x;");
    let lol = {
        let mut e = String::from("<!ENTITY l0 \"lol\">");
        for i in 1..10 {
            e.push_str(&format!(
                "<!ENTITY l{i} \"{}\">",
                format!("&l{};", i - 1).repeat(10)
            ));
        }
        feed(&e, "&l9;")
    };
    for (name, doc) in [("xxe", xxe), ("lol", lol)] {
        let feed_path = tmp.path().join(format!("{name}.rss"));
        std::fs::write(&feed_path, &doc).unwrap();
        // The same feed inside the WARC too, beside the page it names.
        let warc_path = tmp.path().join(format!("{name}.warc.gz"));
        let mut w = gzip(&response(1, GOOD_URL, HTML_HEAD, &good_page()));
        w.extend(gzip(&response(
            2,
            "http://good.example/feed.rss",
            "HTTP/1.1 200 OK\nContent-Type: application/rss+xml\n",
            doc.as_bytes(),
        )));
        std::fs::write(&warc_path, w).unwrap();
        for method in ["forest", "forest-feeds"] {
            let out = tmp.path().join(format!("{name}-{method}"));
            let r = run(&[&warc_path, &feed_path], &out, &["--method", method]);
            assert!(r.took < TIME_BOUND, "{name}: {:?}", r.took);
            check_contract(&r, name);
            assert!(r.article(GOOD_URL).is_some());
            for f in [
                "articles.jsonl",
                "wrappers.jsonl",
                "rejects.jsonl",
                "summary.csv",
            ] {
                let text = std::fs::read_to_string(out.join(f)).unwrap();
                assert!(!text.contains(&marker), "{name}: {f} holds /etc/passwd");
                assert!(
                    !text.contains("lollollollollol"),
                    "{name}: {f} expanded the bomb"
                );
            }
            assert!(!r.stderr.contains(&marker));
        }
    }
}
