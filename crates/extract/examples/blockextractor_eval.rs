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

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use canopy_dom::{Document, DomOptions};
use canopy_extract::{blockextractor_with, sigfeed, BlockExtractorOptions};

fn is_cjk(c: char) -> bool {
    matches!(c as u32, 0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x2FFFF)
}

fn tokens(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for c in s.chars() {
        if is_cjk(c) {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            out.push(c.to_string());
        } else if c.is_alphanumeric() {
            cur.extend(c.to_lowercase());
        } else if !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn bigrams(s: &str) -> HashSet<(String, String)> {
    let t = tokens(s);
    t.windows(2).map(|w| (w[0].clone(), w[1].clone())).collect()
}

fn f1(out: &str, gold: &HashSet<(String, String)>) -> f64 {
    let o = bigrams(out);
    if o.is_empty() || gold.is_empty() {
        return 0.0;
    }
    let common = o.intersection(gold).count() as f64;
    if common == 0.0 {
        return 0.0;
    }
    let p = common / o.len() as f64;
    let r = common / gold.len() as f64;
    2.0 * p * r / (p + r)
}

const STOP: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "has", "have", "he", "her",
    "his", "in", "is", "it", "its", "of", "on", "or", "she", "that", "the", "their", "this", "to",
    "was", "were", "will", "with", "news", "com", "s", "t",
];

fn norm(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

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
    let dir = std::env::args().nth(1).unwrap_or_else(|| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpora").to_string()
    });
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
        let manifest = std::fs::read_to_string(format!("{root}/manifest.tsv"))
            .unwrap_or_else(|e| panic!("{root}/manifest.tsv: {e}"));
        let mut docs = Vec::new();
        let mut golds = Vec::new();
        let mut firsts = Vec::new();
        let mut sites = Vec::new();
        let mut ids = Vec::new();
        let mut parse_time = Duration::ZERO;
        for line in manifest.lines().skip(1) {
            let cols: Vec<&str> = line.split('\t').collect();
            let html = std::fs::read(format!("{root}/{}", cols[6])).expect("html");
            let gold = std::fs::read(format!("{root}/{}", cols[7])).expect("gold");
            let html = String::from_utf8_lossy(&html);
            let t = Instant::now();
            docs.push(Document::parse(&html, &DomOptions::default()));
            parse_time += t.elapsed();
            let gold = String::from_utf8_lossy(&gold).into_owned();
            firsts.push(
                gold.lines()
                    .skip(1)
                    .map(norm)
                    .find(|l| l.split(' ').count() >= 8)
                    .unwrap_or_default(),
            );
            golds.push(bigrams(&gold));
            sites.push(cols[3].to_string());
            ids.push(cols[0].to_string());
        }
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
