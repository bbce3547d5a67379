//! big9's template years (`../shared/corpora/big9/years/<year>.warc.gz`):
//! running `canopy` on them and scoring the articles against the gold.
//! Shared by `tests/reuse.rs` and `examples/drift_matrix.rs`.

// Each user takes only some of these helpers.
#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;

pub const YEARS: [&str; 4] = ["2005", "2009", "2013", "2017"];

pub fn big9() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpora/big9");
    assert!(
        dir.join("years").is_dir(),
        "the shared corpora must sit beside the repository: {}",
        dir.display()
    );
    dir
}

pub fn year_warc(year: &str) -> PathBuf {
    big9().join("years").join(format!("{year}.warc.gz"))
}

/// The gold texts of one year's pages (manifest `group` = `site@year`), by
/// record id.
pub fn year_gold(year: &str) -> BTreeMap<String, String> {
    let dir = big9();
    let text = std::fs::read_to_string(dir.join("manifest.tsv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (rid, group, gold) = (col("record_id"), col("group"), col("gold"));
    lines
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .filter(|f| f[group].rsplit('@').next() == Some(year))
        .map(|f| {
            let g = std::fs::read_to_string(dir.join(f[gold])).unwrap();
            (f[rid].to_string(), g)
        })
        .collect()
}

/// Runs `canopy ARGS... --out OUT` (exit 0 or 1 expected) and returns stderr.
pub fn canopy(bin: &Path, args: &[&str], out: &Path) -> String {
    let output = Command::new(bin)
        .args(args)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        matches!(output.status.code(), Some(0) | Some(1)),
        "canopy {args:?} failed: {stderr}"
    );
    stderr
}

pub fn jsonl(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Mean bigram F1 of a run's articles against the gold (a missing article
/// scores 0).
pub fn mean_f1(out: &Path, gold: &BTreeMap<String, String>) -> f64 {
    let articles = jsonl(&out.join("articles.jsonl"));
    let by_id: HashMap<&str, &str> = articles
        .iter()
        .map(|a| {
            (
                a["record_id"].as_str().unwrap(),
                a["text"].as_str().unwrap(),
            )
        })
        .collect();
    let scores: Vec<canopy_score::PageScore> = gold
        .iter()
        .map(|(rid, g)| canopy_score::score_page(by_id.get(rid.as_str()).copied().unwrap_or(""), g))
        .collect();
    canopy_score::mean(&scores).bigram.f1
}

/// One row of `summary.csv`: (site, cluster, pages, wrapper status).
pub struct ClusterRow {
    pub site: String,
    pub cluster: String,
    pub pages: usize,
    pub status: String,
}

pub fn summary(out: &Path) -> Vec<ClusterRow> {
    let mut reader = csv::Reader::from_path(out.join("summary.csv")).unwrap();
    let headers = reader.headers().unwrap().clone();
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let (site, cluster, pages, status) =
        (col("site"), col("cluster"), col("pages"), col("wrapper"));
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            ClusterRow {
                site: r[site].to_string(),
                cluster: r[cluster].to_string(),
                pages: r[pages].parse().unwrap(),
                status: r[status].to_string(),
            }
        })
        .collect()
}

/// Clusters per wrapper status.
pub fn status_counts(out: &Path) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for row in summary(out) {
        *counts.entry(row.status).or_default() += 1;
    }
    counts
}

/// The portable XPaths of a run's wrappers, by site.
pub fn xpaths_by_site(out: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut by_site: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for w in jsonl(&out.join("wrappers.jsonl")) {
        by_site
            .entry(w["site"].as_str().unwrap().to_string())
            .or_default()
            .insert(w["xpath_portable"].to_string());
    }
    by_site
}
