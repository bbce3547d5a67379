//! Scoring and corpus reading shared by the evaluation examples.
//!
//! Tokens are lowercase runs of Unicode alphanumeric characters (each CJK
//! character a token); F1 of the bigram *sets* of output and gold, per page;
//! empty output scores 0.

// Each example uses only some of these helpers.
#![allow(dead_code)]

use std::collections::HashSet;

pub use canopy_extract::is_cjk;

/// The tokens of `s`: lowercase alphanumeric runs, each CJK character alone.
pub fn tokens(s: &str) -> Vec<String> {
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

/// The set of token bigrams of `s`.
pub fn bigrams(s: &str) -> HashSet<(String, String)> {
    let t = tokens(s);
    t.windows(2).map(|w| (w[0].clone(), w[1].clone())).collect()
}

/// F1 of the bigram set of `out` against the gold bigram set; 0 when
/// either is empty or they share nothing.
pub fn f1(out: &str, gold: &HashSet<(String, String)>) -> f64 {
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

/// `s` with every run of whitespace replaced by one space, trimmed.
pub fn norm(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The first line of the gold after the title with at least 8 words
/// (normalised), or the empty string if there is none.
pub fn first_body_sentence(gold: &str) -> String {
    gold.lines()
        .skip(1)
        .map(norm)
        .find(|l| l.split(' ').count() >= 8)
        .unwrap_or_default()
}

/// The corpora directory: the first command-line argument, by default the
/// shared corpora of the workspace.
pub fn corpora_dir() -> String {
    std::env::args().nth(1).unwrap_or_else(|| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpora").to_string()
    })
}

/// Calls `f(cols, html, gold)` for each page of `{root}/manifest.tsv`, in
/// manifest order: the page's manifest columns, its HTML and its gold text
/// (both read with invalid UTF-8 replaced).
pub fn for_each_page(root: &str, mut f: impl FnMut(&[&str], &str, &str)) {
    let manifest = std::fs::read_to_string(format!("{root}/manifest.tsv"))
        .unwrap_or_else(|e| panic!("{root}/manifest.tsv: {e}"));
    for line in manifest.lines().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        let html = std::fs::read(format!("{root}/{}", cols[6])).expect("html");
        let gold = std::fs::read(format!("{root}/{}", cols[7])).expect("gold");
        let html = String::from_utf8_lossy(&html);
        let gold = String::from_utf8_lossy(&gold);
        f(&cols, &html, &gold);
    }
}
