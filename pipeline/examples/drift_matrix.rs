//! Measurement for `docs/wrappers.md`: wrapper reuse across big9's four
//! template years, and the speed of a reuse run against a fresh one.
//!
//! ```sh
//! cargo build --release -p canopy-cli
//! cargo run --release -p canopy-cli --example drift_matrix
//! ```
//!
//! 1. The drift matrix: wrappers learned on year L (`canopy run`), then
//!    `canopy run A --wrappers L/wrappers.jsonl` for every year A: clusters
//!    per wrapper status, mean bigram F1 against a fresh run on A, and F1 of
//!    `canopy wrappers apply` (no learning).
//! 2. Template fit: for every cluster of year A, the containment of its
//!    best-matching saved template (year L) in each of its pages, the figure
//!    `reuse.page_containment` is set against.
//! 3. pages/s of a fresh run and of a reuse run (its own wrappers) on the
//!    dev corpora, best of 3 wall times.

#[path = "../tests/years/mod.rs"]
mod years;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use canopy_cluster::{site_key, Signature};
use canopy_dom::{Document, DomOptions};
use canopy_ingest::{Event, IngestOptions};
use canopy_reuse::{containment, SavedWrappers, Thresholds};
use years::{canopy, jsonl, mean_f1, status_counts, year_gold, year_warc, YEARS};

fn bin() -> PathBuf {
    let exe = std::env::current_exe().expect("own path");
    let bin = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/release/examples")
        .join("canopy");
    assert!(
        bin.exists(),
        "build the binary first: cargo build --release -p canopy"
    );
    bin
}

/// Each page's signature, by record id.
fn signatures(warc: &Path) -> BTreeMap<String, (String, Signature)> {
    // The default run's drop lists (configs/default.toml, `[dom]`).
    let config: toml::Table = include_str!("../../configs/default.toml")
        .parse()
        .expect("configs/default.toml");
    let names = |key: &str| -> Vec<String> {
        config["dom"][key]
            .as_array()
            .expect(key)
            .iter()
            .filter_map(|v| v.as_str().map(str::to_lowercase))
            .collect()
    };
    let dom = DomOptions {
        drop_id_class: names("drop_id_class"),
        section_anchors: names("section_anchors"),
        ..DomOptions::default()
    };
    let options = IngestOptions {
        max_page_bytes: 16 << 20,
        max_decoded_bytes: 64 << 20,
        ..IngestOptions::default()
    };
    let mut out = BTreeMap::new();
    canopy_ingest::read_warc(warc, &options, &mut |event| {
        if let Event::Page(page) = event {
            let sig = Signature::of(&Document::parse(&page.html, &dom));
            out.insert(page.record_id, (site_key(&page.url), sig));
        }
    })
    .expect("readable WARC");
    out
}

/// Containment of each page in its cluster's best saved template, split by
/// whether the cluster's site had a wrapper of the same year.
fn fits(saved: &Path, run: &Path, warc: &Path) -> Vec<f64> {
    let (saved, _) = SavedWrappers::load(&saved.join("wrappers.jsonl")).expect("wrappers");
    let sigs = signatures(warc);
    let mut clusters: BTreeMap<String, Vec<&Signature>> = BTreeMap::new();
    let mut site_of: BTreeMap<String, String> = BTreeMap::new();
    for a in jsonl(&run.join("articles.jsonl")) {
        let (site, sig) = &sigs[a["record_id"].as_str().unwrap()];
        let cluster = a["cluster"].as_str().unwrap().to_string();
        site_of.insert(cluster.clone(), site.clone());
        clusters.entry(cluster).or_default().push(sig);
    }
    let mut out = Vec::new();
    for (cluster, pages) in &clusters {
        if pages.len() < 2 {
            continue;
        }
        if let Some(m) = saved.best_match(&site_of[cluster], pages, &Thresholds::default()) {
            let saved = saved.get(m.index);
            out.extend(
                pages
                    .iter()
                    .map(|p| containment(&saved.sketch, saved.paths, p)),
            );
        }
    }
    out
}

fn best_of_3(args: &[&str]) -> f64 {
    let bin = bin();
    (0..3)
        .map(|_| {
            let out = tempfile::tempdir().unwrap();
            let start = Instant::now();
            canopy(&bin, args, out.path());
            start.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    let bin = bin();
    let fresh: BTreeMap<&str, tempfile::TempDir> = YEARS
        .iter()
        .map(|&y| {
            let out = tempfile::tempdir().unwrap();
            canopy(&bin, &["run", year_warc(y).to_str().unwrap()], out.path());
            (y, out)
        })
        .collect();

    println!("| learn → apply | reused | relearned | new | none | F1 reuse run | F1 fresh | F1 `wrappers apply` | page fit (min–max) |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for learn in YEARS {
        let wrappers = fresh[learn].path().join("wrappers.jsonl");
        for apply in YEARS {
            let warc = year_warc(apply);
            let gold = year_gold(apply);
            let run = tempfile::tempdir().unwrap();
            let args = [
                "run",
                warc.to_str().unwrap(),
                "--wrappers",
                wrappers.to_str().unwrap(),
            ];
            canopy(&bin, &args, run.path());
            let only = tempfile::tempdir().unwrap();
            let args = [
                "wrappers",
                "apply",
                "--wrappers",
                wrappers.to_str().unwrap(),
                warc.to_str().unwrap(),
            ];
            canopy(&bin, &args, only.path());
            let counts = status_counts(run.path());
            let n = |s: &str| counts.get(s).copied().unwrap_or(0);
            let fit = fits(fresh[learn].path(), run.path(), &warc);
            let (lo, hi) = fit.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &f| {
                (lo.min(f), hi.max(f))
            });
            println!(
                "| {learn} → {apply} | {} | {} | {} | {} | {:.4} | {:.4} | {:.4} | {lo:.2}–{hi:.2} |",
                n("reused"),
                n("relearned"),
                n("new"),
                n("none"),
                mean_f1(run.path(), &gold),
                mean_f1(fresh[apply].path(), &gold),
                mean_f1(only.path(), &gold),
            );
        }
    }

    println!();
    println!("| input | pages | fresh run | reuse run (own wrappers) | speed-up |");
    println!("|---|---|---|---|---|");
    let corpora = years::big9().join("..");
    for name in ["big9", "dragnet"] {
        let warc = corpora.join(name).join(format!("{name}.warc.gz"));
        let warc = warc.to_str().unwrap();
        let learned = tempfile::tempdir().unwrap();
        canopy(&bin, &["run", warc], learned.path());
        let pages = jsonl(&learned.path().join("articles.jsonl")).len() as f64;
        let wrappers = learned.path().join("wrappers.jsonl");
        let fresh_s = best_of_3(&["run", warc]);
        let reuse_s = best_of_3(&["run", warc, "--wrappers", wrappers.to_str().unwrap()]);
        println!(
            "| {name}.warc.gz | {pages} | {:.0} pages/s | {:.0} pages/s | {:.2}× |",
            pages / fresh_s,
            pages / reuse_s,
            fresh_s / reuse_s
        );
    }
}
