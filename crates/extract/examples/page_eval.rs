//! Measurement: mean bigram F1 of the page-level methods R4 and text
//! density (and WLR for reference) on the shared corpora (big9, dragnet),
//! and pages per second.
//!
//! `cargo run --release -p canopy-extract --example page_eval [corpora_dir]`
//!
//! `PAGE_EVAL_PAGES=r4` (or `density`, `density_text`, `wlr`) prints one line
//! per page: id, site, F1, whether the gold's first body sentence is in the
//! output, number of output nodes.
//!
//! Tokens are lowercase runs of Unicode alphanumeric characters (each CJK
//! character a token); F1 of the bigram *sets* of output and gold, per page;
//! empty output scores 0; the mean is over all pages of the manifest.

#[path = "common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use canopy_dom::{Document, DomOptions};
use canopy_extract::{
    density, density_text, density_with, r4, r4_without_post_process, wlr, DensityTags, WlrVariant,
};

use common::{bigrams, corpora_dir, f1, first_body_sentence, for_each_page, norm};

type Method = fn(&Document) -> String;

fn join(doc: &Document, nodes: &[usize]) -> String {
    let text: Vec<String> = nodes.iter().map(|&n| doc.inner_text(n)).collect();
    text.join("\n")
}

fn main() {
    let dir = corpora_dir();
    let methods: [(&str, Method); 7] = [
        ("r4", |d| join(d, &r4(d))),
        ("r4_no_post", |d| join(d, &r4_without_post_process(d))),
        ("density", |d| join(d, &density(d))),
        ("density_text", density_text),
        ("density_s+e", |d| {
            join(d, &density_with(d, DensityTags::StartAndEnd))
        }),
        ("wlr", |d| join(d, &wlr(d, WlrVariant::Wlr))),
        ("body", |d| d.inner_text(d.body())),
    ];
    let detail = std::env::var("PAGE_EVAL_PAGES").ok();
    for corpus in ["big9", "dragnet"] {
        let root = format!("{dir}/{corpus}");
        let mut sums = vec![0.0; methods.len()];
        let mut empty = vec![0usize; methods.len()];
        let mut times = vec![Duration::ZERO; methods.len()];
        let mut parse_time = Duration::ZERO;
        let mut pages = 0usize;
        let mut bytes = 0usize;
        for_each_page(&root, |cols, html, gold_text| {
            let gold = bigrams(gold_text);
            bytes += html.len();
            let t = Instant::now();
            let doc = Document::parse(html, &DomOptions::default());
            parse_time += t.elapsed();
            for (i, (name, method)) in methods.iter().enumerate() {
                let t = Instant::now();
                let text = method(&doc);
                times[i] += t.elapsed();
                let score = f1(&text, &gold);
                sums[i] += score;
                if text.trim().is_empty() {
                    empty[i] += 1;
                }
                if detail.as_deref() == Some(*name) {
                    let out = norm(&text);
                    let first = first_body_sentence(gold_text);
                    println!(
                        "PAGE {} {} {:.3} {} {}",
                        cols[0],
                        cols[3],
                        score,
                        !first.is_empty() && out.contains(&first),
                        out.len()
                    );
                }
            }
            pages += 1;
        });
        println!(
            "{corpus}: {pages} pages, {:.1} MB, parse {:.0} pages/s",
            bytes as f64 / 1e6,
            pages as f64 / parse_time.as_secs_f64()
        );
        for (i, (name, _)) in methods.iter().enumerate() {
            println!(
                "  {name:12} mean bigram F1 {:.4}   empty {:4}   method+text {:.0} pages/s",
                sums[i] / pages as f64,
                empty[i],
                pages as f64 / times[i].as_secs_f64()
            );
        }
    }
}
