//! `canopy index` and `canopy search`: a tantivy index of `articles.jsonl`
//! (crates/index) and queries against it.
//!
//! Exit codes: `index` 0 every line indexed, 1 some lines were not articles
//! (listed on stderr), 2 unreadable input or unwritable index; `search` 0,
//! or 2 when the index cannot be opened.

use std::path::PathBuf;
use std::process::ExitCode;

use canopy_index::{build_index, plain_query, ArticleIndex};

#[derive(clap::Args)]
pub struct IndexArgs {
    /// The articles.jsonl of a `canopy run`.
    pub articles: PathBuf,
    /// Index folder (replaced if it holds an index; created if missing).
    #[arg(long)]
    pub out: PathBuf,
}

#[derive(clap::Args)]
pub struct SearchArgs {
    /// Index folder made by `canopy index`.
    pub index: PathBuf,
    /// Query in tantivy's syntax: words, "phrases", AND/OR, -word, site:NAME,
    /// title_en:word, date:[2013-01-01T00:00:00Z TO *].
    pub query: String,
    /// Hits to print.
    #[arg(long, default_value_t = 10)]
    pub limit: usize,
    /// Take the query as plain words (for a pasted title): no syntax.
    #[arg(long)]
    pub plain: bool,
}

pub fn run_index(args: IndexArgs) -> anyhow::Result<ExitCode> {
    let report = build_index(&args.articles, &args.out)?;
    for (line, reason) in &report.skipped {
        eprintln!(
            "canopy: {}:{line}: not an article: {reason}",
            args.articles.display()
        );
    }
    eprintln!(
        "canopy: indexed {} articles into {} ({} lines skipped)",
        report.indexed,
        args.out.display(),
        report.skipped.len()
    );
    Ok(ExitCode::from(u8::from(!report.skipped.is_empty())))
}

pub fn run_search(args: SearchArgs) -> anyhow::Result<ExitCode> {
    let query = if args.plain {
        plain_query(&args.query)
    } else {
        args.query.clone()
    };
    let (hits, warnings) =
        ArticleIndex::open(&args.index).and_then(|i| i.search(&query, args.limit))?;
    for w in warnings {
        eprintln!("canopy: query: {w} (that part is left out)");
    }
    for (rank, hit) in hits.iter().enumerate() {
        let date = hit
            .date
            .as_deref()
            .map(|d| format!(", {d}"))
            .unwrap_or_default();
        println!("{}. {:.3}  {}", rank + 1, hit.score, hit.title);
        println!("   {}  ({}, {}{date})", hit.url, hit.site, hit.language);
        println!("   {}", hit.snippet);
    }
    if hits.is_empty() {
        eprintln!("canopy: no hits");
    }
    Ok(ExitCode::SUCCESS)
}
