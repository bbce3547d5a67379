//! `canopy page`: one page's article on standard output, the same article
//! `canopy run --method page` writes for that page in a crawl.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};

use common::{bin, canopy, corpus_file, jsonl, manifest};

/// trafbench's first pages by `canopy page FILE --url URL --format json`
/// against the lines of `canopy run --method page` on trafbench's WARC.
#[test]
fn a_page_gets_the_article_a_crawl_gives_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    canopy(&[
        "run".as_ref(),
        corpus_file("trafbench/trafbench.warc.gz").as_os_str(),
        "--method".as_ref(),
        "page".as_ref(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    let articles = jsonl(&out.join("articles.jsonl"));
    let rows = manifest("trafbench");
    let mut compared = 0;
    for row in rows.iter().take(30) {
        let Some(expected) = articles.iter().find(|a| a["url"] == row["url"].as_str()) else {
            continue;
        };
        let html = corpus_file(&format!("trafbench/html/{}.html", row["id"]));
        let output = Command::new(bin())
            .arg("page")
            .arg(&html)
            .args(["--url", &row["url"], "--format", "json"])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", row["id"]);
        let got: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(got["text"], expected["text"], "{}", row["id"]);
        assert_eq!(got["title"], expected["title"], "{}", row["id"]);
        compared += 1;
    }
    assert!(compared >= 25, "only {compared} pages compared");
}

#[test]
fn formats_standard_input_and_a_page_without_an_article() {
    let html = b"<html><head><title>Night crawl</title></head><body><nav><a href='/'>Home</a></nav>\
        <article><h1>Night crawl</h1><p>The crawler wakes at midnight and reads the sites it \
        knows, one after another, until the morning comes and the index is fresh again.</p>\
        <p>It keeps what it read in WARC files, one record per page, for the extractor.</p></article></body></html>";
    let page = |args: &[&str], input: &[u8]| {
        let mut child = Command::new(bin())
            .arg("page")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(input).unwrap();
        let out = child.wait_with_output().unwrap();
        (
            out.status.code().unwrap(),
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    let (code, text, _) = page(&[], html);
    assert_eq!(code, 0);
    assert!(text.starts_with("Night crawl\n"), "{text}");
    assert!(text.contains("reads the sites it knows"), "{text}");
    assert!(!text.contains("Home"), "{text}");
    let (_, md, _) = page(&["--format", "markdown"], html);
    assert!(md.starts_with("# Night crawl"), "{md}");
    let (_, h, _) = page(
        &["--format", "html", "--url", "https://example.org/a"],
        html,
    );
    assert!(h.contains("<p>The crawler wakes"), "{h}");
    let (code, json, _) = page(
        &["--format", "json", "--url", "https://example.org/a"],
        html,
    );
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["site"], "example.org");
    assert_eq!(v["title"], "Night crawl");
    let (code, out, err) = page(&[], b"<html><body></body></html>");
    assert_eq!((code, out.as_str()), (1, ""));
    assert!(err.contains("no article"), "{err}");
    let (code, _, err) = page(&["/no/such/page.html"], b"");
    assert_eq!(code, 2);
    assert!(err.contains("cannot read"), "{err}");
}
