//! Throughput of `Analyzer::analyze` on the big9 gold texts, and a look at the
//! signifiers of one group.
//!
//! `cargo run --release -p canopy-signifiers --example analyze_speed [CORPUS_DIR]`
//! (default: `../shared/corpora/big9` beside the repository).

use std::time::Instant;

use canopy_signifiers::{detect_language, top_k_tfidf, Analyzer};

fn main() {
    let dir = std::env::args().nth(1).unwrap_or_else(|| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpora/big9").to_string()
    });
    let manifest = std::fs::read_to_string(format!("{dir}/manifest.tsv")).expect("manifest.tsv");
    let mut texts = Vec::new();
    for line in manifest.lines().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        let gold = std::fs::read_to_string(format!("{dir}/{}", cols[7])).expect("gold text");
        texts.push((cols[4].to_string(), cols[5].to_string(), gold));
    }
    let bytes: usize = texts.iter().map(|(_, _, t)| t.len()).sum();

    // Analyze line by line (as Forest does per text node); several rounds on a
    // fresh analyzer each, so both cold (stemming) and warm (memo) are in it.
    let rounds = 20;
    let mut terms = 0usize;
    let start = Instant::now();
    for _ in 0..rounds {
        let mut analyzer = Analyzer::new();
        let mut out = Vec::new();
        for (_, lang, text) in &texts {
            let lang = detect_language(Some(lang), "");
            for line in text.lines() {
                out.clear();
                analyzer.analyze(line, lang, &mut out);
                terms += out.len();
            }
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{} texts, {:.2} MB, {rounds} rounds: {:.1} MB/s, {:.1} M terms/s",
        texts.len(),
        bytes as f64 / 1e6,
        (bytes * rounds) as f64 / 1e6 / secs,
        terms as f64 / 1e6 / secs
    );

    // Warm only: the memo already holds every surface form.
    let mut analyzer = Analyzer::new();
    let mut out = Vec::new();
    for (_, lang, text) in &texts {
        analyzer.analyze(text, detect_language(Some(lang), ""), &mut out);
    }
    let start = Instant::now();
    for _ in 0..rounds {
        for (_, lang, text) in &texts {
            let lang = detect_language(Some(lang), "");
            for line in text.lines() {
                out.clear();
                analyzer.analyze(line, lang, &mut out);
            }
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "warm memo: {:.1} MB/s",
        (bytes * rounds) as f64 / 1e6 / secs
    );

    // The signifiers of the first group.
    if std::env::var_os("SHOW").is_some() {
        let group = std::env::var("SHOW").unwrap();
        let mut analyzer = Analyzer::new();
        let pages: Vec<(Vec<_>, String)> = texts
            .iter()
            .filter(|(g, _, _)| *g == group)
            .map(|(_, lang, text)| {
                let mut out = Vec::new();
                analyzer.analyze(text, detect_language(Some(lang), ""), &mut out);
                (out, text.lines().next().unwrap_or("").to_string())
            })
            .collect();
        let bags: Vec<&[_]> = pages.iter().map(|(p, _)| p.as_slice()).collect();
        for ((_, title), top) in pages.iter().zip(top_k_tfidf(&bags, &analyzer, 10)) {
            let top: Vec<&str> = top.iter().map(|&(t, _)| analyzer.term(t)).collect();
            println!("{title}\n    {}", top.join(" "));
        }
    }
}
