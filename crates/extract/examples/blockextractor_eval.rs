//! Throwaway measurement: mean bigram F1 of BlockExtractor (with and
//! without redundancy removal) and Sigfeed on the shared corpora (big9,
//! dragnet), and pages per second.
//!
//! `cargo run --release -p canopy-extract --example blockextractor_eval [corpora_dir]`
//!
//! Scoring as in `wlr_eval`: tokens are lowercase runs of Unicode
//! alphanumeric characters (each CJK character a token); F1 of the bigram
//! *sets* of output and gold, per page; empty output scores 0; the mean is
//! over all pages of the manifest. Siblings for redundancy removal: the
//! other pages of the manifest with the same `site`. Sigfeed keywords: the
//! words of the page's `<title>` and meta/og description (what the feed
//! item carries, corpora README) minus a short English stop-word list.

#[path = "common/mod.rs"]
mod common;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use canopy_dom::{Document, DomOptions};
use canopy_extract::{blockextractor_with, sigfeed, BlockExtractorOptions};

use common::{bigrams, corpora_dir, f1, first_body_sentence, for_each_page, norm, tokens};

const STOP: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "has", "have", "he", "her",
    "his", "in", "is", "it", "its", "of", "on", "or", "she", "that", "the", "their", "this", "to",
    "was", "were", "will", "with", "news", "com", "s", "t",
];

fn keywords(doc: &Document) -> Vec<String> {
    let mut text = doc.title();
    for name in ["description", "og:description"] {
        if let Some(d) = doc.meta(name) {
            text.push(' ');
            text.push_str(d);
            break;
        }
    }
    let mut k: Vec<String> = tokens(&text)
        .into_iter()
        .filter(|w| !STOP.contains(&w.as_str()))
        .collect();
    k.sort();
    k.dedup();
    k
}

fn main() {
    let dir = corpora_dir();
    let verbose = std::env::var_os("BE_EVAL_PAGES").is_some();
    // Overrides for sensitivity runs: BE_DELTA (max_distance), BE_THRESHOLD.
    let delta: f64 = std::env::var("BE_DELTA")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0.1);
    let threshold: f64 = std::env::var("BE_THRESHOLD")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(canopy_extract::DEFAULT_THRESHOLD);
    for corpus in ["big9", "dragnet"] {
        let root = format!("{dir}/{corpus}");
        let mut docs = Vec::new();
        let mut golds = Vec::new();
        let mut firsts = Vec::new();
        let mut sites = Vec::new();
        let mut ids = Vec::new();
        let mut parse_time = Duration::ZERO;
        for_each_page(&root, |cols, html, gold| {
            let t = Instant::now();
            docs.push(Document::parse(html, &DomOptions::default()));
            parse_time += t.elapsed();
            firsts.push(first_body_sentence(gold));
            golds.push(bigrams(gold));
            sites.push(cols[3].to_string());
            ids.push(cols[0].to_string());
        });
        let mut by_site: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, s) in sites.iter().enumerate() {
            by_site.entry(s).or_default().push(i);
        }
        let pages = docs.len();
        let names = ["be (no redundancy)", "be (redundancy)", "sigfeed"];
        let mut sums = [0.0; 3];
        let mut times = [Duration::ZERO; 3];
        for i in 0..pages {
            let doc = &docs[i];
            let siblings: Vec<&Document> = by_site[sites[i].as_str()]
                .iter()
                .filter(|&&j| j != i)
                .map(|&j| &docs[j])
                .collect();
            let text = |nodes: Vec<usize>| {
                nodes
                    .iter()
                    .map(|&n| doc.inner_text(n))
                    .collect::<Vec<_>>()
                    .join("\n")
            };
            let mut scores = [0.0; 3];
            let mut found = [false; 3];
            for (k, score) in scores.iter_mut().enumerate() {
                let t = Instant::now();
                let nodes = match k {
                    0 => blockextractor_with(
                        doc,
                        &[],
                        &BlockExtractorOptions {
                            redundancy: false,
                            threshold,
                            ..Default::default()
                        },
                    ),
                    1 => blockextractor_with(
                        doc,
                        &siblings,
                        &BlockExtractorOptions {
                            max_distance: delta,
                            threshold,
                            ..Default::default()
                        },
                    ),
                    _ => {
                        let kw = keywords(doc);
                        let kw: Vec<&str> = kw.iter().map(String::as_str).collect();
                        sigfeed(doc, &kw)
                    }
                };
                times[k] += t.elapsed();
                let out = text(nodes);
                found[k] = !firsts[i].is_empty() && norm(&out).contains(&firsts[i]);
                *score = f1(&out, &golds[i]);
                sums[k] += *score;
            }
            if verbose {
                println!(
                    "PAGE {} {} {:.3} {:.3} {:.3} {:?}",
                    ids[i], sites[i], scores[0], scores[1], scores[2], found
                );
            }
        }
        println!(
            "{corpus}: {pages} pages, parse {:.0} pages/s",
            pages as f64 / parse_time.as_secs_f64()
        );
        for k in 0..3 {
            println!(
                "  {:20} mean bigram F1 {:.4}   method alone {:.0} pages/s",
                names[k],
                sums[k] / pages as f64,
                pages as f64 / times[k].as_secs_f64()
            );
        }
    }
}
