//! Exact deduplication (`dedup.mode`, `--dedup`): copies of a corpus give
//! the outputs of one copy, whatever the ranks and threads; of two
//! captures of one URL the latest is kept and the other counted and
//! listed; `--dedup none` keeps every page.

mod common;

use std::path::Path;

use canopy_test_support::warc_response_at;
use common::{corpora, jsonl, run, Run};
use serde_json::Value;

/// The figures of the run's records line: (records, articles, skipped,
/// duplicates).
fn figures(r: &Run) -> (u64, u64, u64, u64) {
    let line = r
        .stderr
        .lines()
        .find(|l| l.contains(" records read: "))
        .unwrap_or_else(|| panic!("no records line in {}", r.stderr));
    let n: Vec<u64> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter(|n| !n.is_empty())
        .map(|n| n.parse().unwrap())
        .collect();
    let [records, articles, feeds, revisits, skipped, duplicates, rejected] = n[..] else {
        panic!("{line}");
    };
    assert_eq!(
        records,
        articles + feeds + revisits + skipped + rejected,
        "{line}"
    );
    (records, articles, skipped, duplicates)
}

fn ok(r: Run) -> Run {
    assert_eq!(r.code, 0, "{}", r.stderr);
    r
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn three_copies_of_a_corpus_give_the_outputs_of_one_across_ranks_and_threads() {
    let tmp = tempfile::tempdir().unwrap();
    let copies = tmp.path().join("copies");
    std::fs::create_dir(&copies).unwrap();
    // Real copies: the input list reads one inode once.
    for i in 0..3 {
        std::fs::copy(
            corpora().join("big9/big9.warc.gz"),
            copies.join(format!("copy{i}.warc.gz")),
        )
        .unwrap();
    }
    let first = copies.join("copy0.warc.gz");
    let one = ok(run(&[&first], &tmp.path().join("one"), &[]));
    let three = ok(run(
        &[&copies],
        &tmp.path().join("three"),
        &["--threads", "1"],
    ));
    let (records, articles, skipped, duplicates) = figures(&one);
    assert_eq!(duplicates, 0, "big9 holds no duplicate");
    assert_eq!(
        figures(&three),
        (
            3 * records,
            articles,
            3 * skipped + 2 * articles,
            2 * articles
        )
    );
    // The first copy is kept: even `source` is the same.
    for name in [
        "articles.jsonl",
        "wrappers.jsonl",
        "summary.csv",
        "prior.tsv",
    ] {
        assert!(one.file(name) == three.file(name), "{name} differs");
    }
    let listed = jsonl(&three.out.join("duplicates.jsonl"));
    assert_eq!(listed.len() as u64, 2 * articles);
    for d in &listed {
        assert_eq!(d["reason"], "same URL", "{d}");
        assert_eq!(d["kept"]["source"]["file"], s(&first), "{d}");
        assert_eq!(d["kept"]["record_id"], d["record_id"], "{d}");
        assert_ne!(d["source"]["file"], s(&first), "{d}");
    }

    // Each copy read by another rank, two threads: the same bytes,
    // duplicates.jsonl included.
    let (work, out) = (tmp.path().join("work"), tmp.path().join("merged"));
    common::scale_out(&copies, &work, &out, 3, 4, &["--threads", "2"]);
    for name in common::OUTPUT_SET.iter().filter(|n| **n != "_SUCCESS") {
        let merged = common::comparable(&out, name);
        assert!(
            merged == three.comparable(name),
            "{name}: merge differs from run"
        );
    }
}

/// A page of its own text, `n` telling pages apart.
fn page(n: &str) -> String {
    let body: String = (0..12)
        .map(|k| format!("<p>Sentence {k} of the {n} page, long enough to be an article.</p>"))
        .collect();
    format!("<html><head><title>{n}</title></head><body><article><h1>{n}</h1>{body}</article></body></html>")
}

const HEAD: &str = "HTTP/1.1 200 OK\nContent-Type: text/html; charset=utf-8\n";

/// A built WARC: `/story` captured three times (the newest second in the
/// file, one as a `utm_` variant), and `/mirror` with `/other`'s HTML.
fn captures(dir: &Path) -> std::path::PathBuf {
    let records = [
        (
            1,
            "http://news.example/story",
            "2024-03-01T00:00:00Z",
            page("old"),
        ),
        (
            2,
            "http://news.example/story/",
            "2024-05-01T00:00:00Z",
            page("new"),
        ),
        (
            3,
            "http://news.example/story?utm_source=feed",
            "2024-04-01T00:00:00Z",
            page("middle"),
        ),
        (
            4,
            "http://news.example/other",
            "2024-01-01T00:00:00Z",
            page("other"),
        ),
        (
            5,
            "http://news.example/mirror",
            "2024-06-01T00:00:00Z",
            page("other"),
        ),
    ];
    let mut warc = Vec::new();
    for (id, uri, date, html) in &records {
        warc.extend(warc_response_at(*id, uri, date, HEAD, html.as_bytes()));
    }
    let path = dir.join("captures.warc");
    std::fs::write(&path, warc).unwrap();
    path
}

fn id(n: u32) -> String {
    format!("<urn:uuid:00000000-0000-0000-0000-{n:012}>")
}

#[test]
fn of_two_captures_of_one_url_the_latest_is_kept_and_the_other_listed() {
    let tmp = tempfile::tempdir().unwrap();
    let warc = captures(tmp.path());
    let r = ok(run(&[&warc], &tmp.path().join("out"), &[]));
    assert_eq!(figures(&r), (5, 2, 3, 3));
    let mut kept: Vec<String> = r
        .articles()
        .iter()
        .map(|a| a["record_id"].as_str().unwrap().to_string())
        .collect();
    kept.sort();
    // The latest capture of /story (id 2), the first page of the HTML
    // that /other and /mirror share (id 4).
    assert_eq!(kept, [id(2), id(4)]);
    assert!(r.article("http://news.example/story/").unwrap()["text"]
        .as_str()
        .unwrap()
        .contains("of the new page"));
    let listed = jsonl(&r.out.join("duplicates.jsonl"));
    let got: Vec<(String, String, String, String)> = listed
        .iter()
        .map(|d: &Value| {
            (
                d["record_id"].as_str().unwrap().into(),
                d["reason"].as_str().unwrap().into(),
                d["kept"]["record_id"].as_str().unwrap().into(),
                d["warc_date"].as_str().unwrap().into(),
            )
        })
        .collect();
    let row = |n, reason: &str, kept, date: &str| (id(n), reason.into(), id(kept), date.into());
    assert_eq!(
        got,
        [
            row(5, "same HTML", 4, "2024-06-01T00:00:00Z"),
            row(1, "same URL", 2, "2024-03-01T00:00:00Z"),
            row(3, "same URL", 2, "2024-04-01T00:00:00Z"),
        ]
    );
    for d in &listed {
        assert_eq!(d["site"], "news.example");
        assert_eq!(d["source"]["file"], s(&warc));
        assert!(d["source"]["offset"].is_u64(), "{d}");
    }
    assert!(
        r.stderr.contains("3 skipped (3 duplicates)"),
        "{}",
        r.stderr
    );
}

#[test]
fn dedup_none_keeps_every_capture() {
    let tmp = tempfile::tempdir().unwrap();
    let warc = captures(tmp.path());
    let flag = ok(run(
        &[&warc],
        &tmp.path().join("flag"),
        &["--dedup", "none"],
    ));
    assert_eq!(figures(&flag), (5, 5, 0, 0));
    assert!(jsonl(&flag.out.join("duplicates.jsonl")).is_empty());
    let mut ids: Vec<String> = flag
        .articles()
        .iter()
        .map(|a| a["record_id"].as_str().unwrap().to_string())
        .collect();
    ids.sort();
    assert_eq!(ids, (1..=5).map(id).collect::<Vec<_>>());
    // The config key does the same.
    let config = tmp.path().join("none.toml");
    std::fs::write(&config, "[dedup]\nmode = \"none\"\n").unwrap();
    let keyed = ok(run(
        &[&warc],
        &tmp.path().join("config"),
        &["--config", s(&config)],
    ));
    assert!(keyed.file("articles.jsonl") == flag.file("articles.jsonl"));
}
