//! Scores a folder of extracted texts against a corpus's gold standard.
//!
//! ```text
//! cargo run --release -p canopy-score --example score_dir -- \
//!     --corpus ../shared/corpora/big9 --pred /tmp/peers/big9/trafilatura
//! ```
//!
//! Reads CORPUS/manifest.tsv (columns `id` and `gold`), scores PRED/<id>.txt against the
//! gold text for every page (a missing prediction file counts as no output, score 0) and
//! prints the mean bigram, token and LCS precision, recall and F1 over all the manifest's
//! pages, plus one tab-separated summary line (`--tsv` prints only that line). For
//! comparison with benchmarks that leave failed pages out, it also prints the bigram F1
//! over only the pages whose prediction has at least one token.

use std::path::PathBuf;
use std::process::ExitCode;

use canopy_score::{mean, score_page, tokens, PageScore};

fn usage() -> ExitCode {
    eprintln!("usage: score_dir --corpus DIR --pred DIR [--tsv]");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let mut corpus = None;
    let mut pred = None;
    let mut tsv_only = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--corpus" => corpus = args.next().map(PathBuf::from),
            "--pred" => pred = args.next().map(PathBuf::from),
            "--tsv" => tsv_only = true,
            _ => return usage(),
        }
    }
    let (Some(corpus), Some(pred)) = (corpus, pred) else {
        return usage();
    };

    let manifest = match std::fs::read_to_string(corpus.join("manifest.tsv")) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("cannot read {}/manifest.tsv: {e}", corpus.display());
            return ExitCode::FAILURE;
        }
    };
    let mut lines = manifest.lines();
    let header: Vec<&str> = lines.next().unwrap_or("").split('\t').collect();
    let col = |name: &str| header.iter().position(|h| *h == name);
    let (Some(id_col), Some(gold_col)) = (col("id"), col("gold")) else {
        eprintln!("manifest.tsv has no id/gold columns");
        return ExitCode::FAILURE;
    };

    let mut scores: Vec<PageScore> = Vec::new();
    let mut with_output: Vec<PageScore> = Vec::new();
    let mut missing = 0;
    for line in lines.filter(|l| !l.is_empty()) {
        let fields: Vec<&str> = line.split('\t').collect();
        let id = fields[id_col];
        let gold_path = corpus.join(fields[gold_col]);
        let gold = match std::fs::read_to_string(&gold_path) {
            Ok(g) => g,
            Err(e) => {
                eprintln!("cannot read {}: {e}", gold_path.display());
                return ExitCode::FAILURE;
            }
        };
        let output = match std::fs::read(pred.join(format!("{id}.txt"))) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(_) => {
                missing += 1;
                String::new()
            }
        };
        let score = score_page(&output, &gold);
        if !tokens(&output).is_empty() {
            with_output.push(score);
        }
        scores.push(score);
    }

    let m = mean(&scores);
    if !tsv_only {
        println!(
            "{} pages ({} without a prediction file) from {}",
            scores.len(),
            missing,
            pred.display()
        );
        println!("{:<8} {:>9} {:>9} {:>9}", "", "precision", "recall", "F1");
        for (name, prf) in [("bigram", m.bigram), ("token", m.token), ("lcs", m.lcs)] {
            println!(
                "{name:<8} {:>9.4} {:>9.4} {:>9.4}",
                prf.precision, prf.recall, prf.f1
            );
        }
        println!(
            "bigram F1 over the {} pages with output: {:.4}",
            with_output.len(),
            mean(&with_output).bigram.f1
        );
    }
    println!(
        "{}\t{}\t{:.4}\t{:.4}\t{:.4}\t{:.4}\t{:.4}\t{:.4}\t{:.4}\t{:.4}\t{:.4}",
        pred.display(),
        scores.len(),
        m.bigram.precision,
        m.bigram.recall,
        m.bigram.f1,
        m.token.precision,
        m.token.recall,
        m.token.f1,
        m.lcs.precision,
        m.lcs.recall,
        m.lcs.f1
    );
    ExitCode::SUCCESS
}
