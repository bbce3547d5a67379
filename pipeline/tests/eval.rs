//! `canopy eval` on big9 with Forest: one CSV row per page, a mean bigram F1
//! of at least 0.90, and a clear error for a missing gold file; on trafbench
//! (snippets, no feeds): the snippet counts, forest-feeds left out.

use std::path::PathBuf;
use std::process::Command;

mod common;

fn corpus(name: &str) -> PathBuf {
    common::corpus_file(name)
}

#[test]
fn eval_forest_on_big9() {
    let out = tempfile::tempdir().unwrap();
    let result = Command::new(env!("CARGO_BIN_EXE_canopy"))
        .arg("eval")
        .arg("--corpus")
        .arg(corpus("big9"))
        .args(["--method", "forest", "--out"])
        .arg(out.path())
        .output()
        .unwrap();
    assert!(
        result.status.success(),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    let stdout = String::from_utf8_lossy(&result.stdout);
    assert!(stdout.contains("| forest |"), "{stdout}");

    let mut reader = csv::Reader::from_path(out.path().join("eval.csv")).unwrap();
    let headers = reader.headers().unwrap().clone();
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let (method, f1) = (col("method"), col("bigram_f1"));
    let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.unwrap()).collect();
    let forest: Vec<&csv::StringRecord> = rows.iter().filter(|r| &r[method] == "forest").collect();
    assert_eq!(forest.len(), 200);
    let mean = forest
        .iter()
        .map(|r| r[f1].parse::<f64>().unwrap())
        .sum::<f64>()
        / forest.len() as f64;
    assert!(mean >= 0.90, "mean bigram F1 {mean:.4}");
    let md = std::fs::read_to_string(out.path().join("eval.md")).unwrap();
    assert!(md.contains("Bigram F1 per template group"), "{md}");
}

#[test]
fn eval_scores_trafbench_by_snippets() {
    let out = tempfile::tempdir().unwrap();
    // The default methods: forest, and forest-feeds, which needs the feeds
    // trafbench has not.
    let result = Command::new(env!("CARGO_BIN_EXE_canopy"))
        .arg("eval")
        .arg("--corpus")
        .arg(corpus("trafbench"))
        .arg("--out")
        .arg(out.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert!(result.status.success(), "{stderr}");
    assert!(stderr.contains("not running forest-feeds"), "{stderr}");

    let mut reader = csv::Reader::from_path(out.path().join("eval.csv")).unwrap();
    let headers = reader.headers().unwrap().clone();
    assert_eq!(
        headers.iter().collect::<Vec<_>>(),
        ["method", "id", "site", "tp", "fn", "fp", "tn", "served_by"]
    );
    let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.unwrap()).collect();
    assert_eq!(rows.len(), 489);
    assert!(rows.iter().all(|r| &r[0] == "forest"));
    let sum = |i: usize| {
        rows.iter()
            .map(|r| r[i].parse::<usize>().unwrap())
            .sum::<usize>()
    };
    let (tp, fn_, fp) = (sum(3), sum(4), sum(5));
    let f = 2.0 * tp as f64 / (2 * tp + fp + fn_) as f64;
    assert!(f >= 0.80, "snippet F {f:.3}");
    let md = std::fs::read_to_string(out.path().join("eval.md")).unwrap();
    assert!(md.contains("| forest | "), "{md}");
    assert!(
        md.contains("Not run, for want of a `feeds/` folder: forest-feeds."),
        "{md}"
    );
}

#[test]
fn eval_names_a_missing_gold_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("manifest.tsv"),
        "id\turl\trecord_id\tsite\tgroup\tlang\thtml\tgold\torig_id\n\
         p1\thttp://x/\t<urn:1>\tx\tx@1\ten\thtml/p1.html\tgold/p1.txt\t-\n",
    )
    .unwrap();
    let result = Command::new(env!("CARGO_BIN_EXE_canopy"))
        .arg("eval")
        .arg("--corpus")
        .arg(dir.path())
        .arg("--out")
        .arg(dir.path().join("out"))
        .output()
        .unwrap();
    assert_eq!(result.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert!(stderr.contains("gold/p1.txt"), "{stderr}");
}
