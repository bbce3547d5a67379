//! big9's template years (`../shared/corpora/big9/years/<year>.warc.gz`):
//! running `canopy` on them and scoring the articles against the gold.
//! Shared by `tests/reuse.rs` and `examples/drift_matrix.rs`.

// Each user takes only some of these helpers.
#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

pub const YEARS: [&str; 4] = ["2005", "2009", "2013", "2017"];

pub use canopy_test_support::jsonl;

pub fn big9() -> PathBuf {
    canopy_test_support::corpus_file("big9/years")
        .parent()
        .unwrap()
        .to_path_buf()
}

pub fn year_warc(year: &str) -> PathBuf {
    big9().join("years").join(format!("{year}.warc.gz"))
}

/// The gold texts of one year's pages (manifest `group` = `site@year`), by
/// record id.
pub fn year_gold(year: &str) -> BTreeMap<String, String> {
    let dir = big9();
    canopy_test_support::manifest("big9")
        .into_iter()
        .filter(|r| r["group"].rsplit('@').next() == Some(year))
        .map(|r| {
            let g = std::fs::read_to_string(dir.join(&r["gold"])).unwrap();
            (r["record_id"].clone(), g)
        })
        .collect()
}

/// Runs `canopy ARGS... --out OUT` (exit 0 or 1 expected) and returns stderr.
pub fn canopy(bin: &Path, args: &[&str], out: &Path) -> String {
    let out = out.to_str().unwrap();
    let output = canopy_test_support::run_finished(bin, &[args, &["--out", out]].concat());
    String::from_utf8_lossy(&output.stderr).into_owned()
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
