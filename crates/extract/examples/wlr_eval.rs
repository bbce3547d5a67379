//! Throwaway measurement: mean bigram F1 of the WLR variants on the shared
//! corpora (big9, dragnet), and pages per second.
//!
//! `cargo run --release -p canopy-extract --example wlr_eval [corpora_dir]`
//!
//! Tokens are lowercase runs of Unicode alphanumeric characters (each CJK
//! character a token); F1 of the bigram *sets* of output and gold, per page;
//! empty output scores 0; the mean is over all pages of the manifest.

#[path = "common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use canopy_dom::{Document, DomOptions};
use canopy_extract::{wlr_with, Relevance, WlrVariant};

use common::{bigrams, corpora_dir, f1, first_body_sentence, for_each_page, norm};

fn main() {
    let dir = corpora_dir();
    let configs: Vec<(String, WlrVariant, Relevance)> = WlrVariant::ALL
        .iter()
        .map(|&v| (v.name().to_string(), v, Relevance::RelativeToMax))
        .chain([(
            "wlr-literal".to_string(),
            WlrVariant::Wlr,
            Relevance::Literal,
        )])
        .collect();
    for corpus in ["big9", "dragnet"] {
        let root = format!("{dir}/{corpus}");
        let mut sums = vec![0.0; configs.len()];
        let mut times = vec![Duration::ZERO; configs.len()];
        let mut parse_time = Duration::ZERO;
        let mut pages = 0usize;
        let mut bytes = 0usize;
        for_each_page(&root, |cols, html, gold_text| {
            let gold = bigrams(gold_text);
            bytes += html.len();
            let t = Instant::now();
            let doc = Document::parse(html, &DomOptions::default());
            parse_time += t.elapsed();
            for (i, (_, v, r)) in configs.iter().enumerate() {
                let t = Instant::now();
                let nodes = wlr_with(&doc, *v, *r);
                times[i] += t.elapsed();
                let text: Vec<String> = nodes.iter().map(|&n| doc.inner_text(n)).collect();
                let score = f1(&text.join("\n"), &gold);
                sums[i] += score;
                if i == 3 && std::env::var_os("WLR_EVAL_PAGES").is_some() {
                    let out = norm(&text.join("\n"));
                    let first = first_body_sentence(gold_text);
                    println!(
                        "PAGE {} {} {:.3} {}",
                        cols[0],
                        cols[4],
                        score,
                        !first.is_empty() && out.contains(&first)
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
        for (i, (name, _, _)) in configs.iter().enumerate() {
            println!(
                "  {name:12} mean bigram F1 {:.4}   method alone {:.0} pages/s",
                sums[i] / pages as f64,
                pages as f64 / times[i].as_secs_f64()
            );
        }
    }
}
