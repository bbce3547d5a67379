//! `canopy run --format` and the metadata fields of `articles.jsonl`, end
//! to end on big9 (`../shared/corpora`).

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

fn big9() -> PathBuf {
    common::corpus_file("big9/big9.warc.gz")
}

fn run(args: &[&str], out: &Path) -> Vec<serde_json::Value> {
    let output = Command::new(env!("CARGO_BIN_EXE_canopy"))
        .arg("run")
        .arg(big9())
        .args(args)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    std::fs::read_to_string(out.join("articles.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn formats_add_fields_without_changing_text_and_stay_deterministic() {
    let dirs: Vec<tempfile::TempDir> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let plain = run(&[], dirs[0].path());
    let one = run(
        &[
            "--format",
            "text,html",
            "--format",
            "markdown",
            "--threads",
            "1",
        ],
        dirs[1].path(),
    );
    run(
        &["--format", "html,markdown", "--threads", "2"],
        dirs[2].path(),
    );
    // Same bytes whatever the thread count.
    let bytes = |d: &tempfile::TempDir| std::fs::read(d.path().join("articles.jsonl")).unwrap();
    assert!(
        bytes(&dirs[1]) == bytes(&dirs[2]),
        "articles.jsonl differs between thread counts"
    );

    assert_eq!(plain.len(), one.len());
    for (p, f) in plain.iter().zip(&one) {
        // The renderings never change the text; without --format they are absent.
        assert_eq!(p["text"], f["text"]);
        assert!(p.get("html").is_none() && p.get("markdown").is_none());
        // Metadata keys are always there (null when the page has none).
        for key in ["authors", "date", "site_name", "canonical_url", "top_image"] {
            assert!(p.get(key).is_some(), "{key} missing");
        }
        let html = f["html"].as_str().unwrap();
        let md = f["markdown"].as_str().unwrap();
        assert!(!html.contains("<script") && !html.contains("javascript:"));
        assert_eq!(html.is_empty(), md.is_empty());
    }
    // A wrapper-served page's HTML has the paragraphs of its text.
    let served: Vec<&serde_json::Value> = one.iter().filter(|a| a["wrapper"].is_string()).collect();
    assert!(served
        .iter()
        .all(|a| a["html"].as_str().unwrap().contains("<p>")
            || a["html"].as_str().unwrap().contains("<li>")
            || a["html"].as_str().unwrap().contains("<td>")));

    // BBC 2017 (big9-00155): JSON-LD "datePublished": "2017-03-28T08:31:53+01:00",
    // "author": "Dave Lee"; og:site_name "BBC News"; <link rel="canonical">.
    let bbc = one
        .iter()
        .find(|a| a["url"] == "http://www.bbc.com/news/technology-39416231")
        .unwrap();
    assert_eq!(bbc["date"], "2017-03-28T08:31:53+01:00");
    assert_eq!(bbc["authors"], serde_json::json!(["Dave Lee"]));
    assert_eq!(bbc["site_name"], "BBC News");
    assert_eq!(
        bbc["canonical_url"],
        "http://www.bbc.com/news/technology-39416231"
    );
}
