//! The `canopy` command: WARC files and feeds in, articles and per-site
//! XPath wrappers out. The work happens in the `crates/`; this binary reads
//! the settings, runs the stages in order and reports.
//!
//! Exit codes: 0 all records used, 1 done but some records were rejected
//! (see `rejects.jsonl`), 2 bad usage or an unusable output directory.

mod config;
mod eval;
mod index;
mod method;
mod reuse;
mod run;
mod site;
mod title;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::config::{Config, SignifierSource};
use crate::method::Method;

#[derive(Parser)]
#[command(
    name = "canopy",
    version,
    about = "Clean articles and per-site XPath wrappers from web crawls"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Extract the articles of WARC files (and feeds), learning a wrapper per template.
    Run(RunArgs),
    /// Score methods (and peer tools) on an evaluation corpus against its gold texts.
    Eval(eval::EvalArgs),
    /// Saved wrappers (docs/wrappers.md).
    #[command(subcommand)]
    Wrappers(WrappersCommand),
    /// Build a tantivy search index from an articles.jsonl.
    Index(index::IndexArgs),
    /// Search an index built by `canopy index`.
    Search(index::SearchArgs),
}

#[derive(Subcommand)]
enum WrappersCommand {
    /// Extract with saved wrappers only, no learning; pages no saved wrapper
    /// fits go to the page-level fallback.
    Apply(ApplyArgs),
}

#[derive(clap::Args)]
struct ApplyArgs {
    /// A wrappers.jsonl written by `canopy run`.
    #[arg(long)]
    wrappers: PathBuf,
    /// WARC files (.warc, .warc.gz) or folders of them.
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// Output folder (created if missing).
    #[arg(long)]
    out: PathBuf,
    /// Worker threads (default: one per core).
    #[arg(long)]
    threads: Option<usize>,
    /// Settings file overlaid on configs/default.toml.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Article renderings: text, html, markdown (as for `run`).
    #[arg(long = "format", value_enum, value_delimiter = ',')]
    formats: Vec<config::Format>,
    /// Also write the articles as WET (as for `run`).
    #[arg(long)]
    wet: Option<PathBuf>,
}

impl From<ApplyArgs> for RunArgs {
    fn from(a: ApplyArgs) -> RunArgs {
        RunArgs {
            inputs: a.inputs,
            out: a.out,
            signifiers: None,
            top_k: None,
            method: Method::Forest,
            threads: a.threads,
            config: a.config,
            wrappers: Some(a.wrappers),
            formats: a.formats,
            wet: a.wet,
        }
    }
}

#[derive(clap::Args)]
struct RunArgs {
    /// WARC files (.warc, .warc.gz), feed files (.rss, .atom, .xml, .json) or folders of them.
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// Output folder (created if missing).
    #[arg(long)]
    out: PathBuf,
    /// Where signifiers come from (default: the config's, "tfidf").
    #[arg(long, value_enum)]
    signifiers: Option<SignifierSource>,
    /// Signifiers kept per page (default 10).
    #[arg(long)]
    top_k: Option<usize>,
    /// Extraction method: forest, forest-feeds, coverage, wlr, cnr, wnr, clr.
    #[arg(long, default_value = "forest")]
    method: Method,
    /// Worker threads (default: one per core).
    #[arg(long)]
    threads: Option<usize>,
    /// Settings file overlaid on configs/default.toml.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Last run's wrappers.jsonl: reuse the wrappers whose template still
    /// fits, relearn the drifted ones (docs/wrappers.md).
    #[arg(long)]
    wrappers: Option<PathBuf>,
    /// Article renderings: text, html, markdown (comma-separated or repeated;
    /// `text` is always written).
    #[arg(long = "format", value_enum, value_delimiter = ',')]
    formats: Vec<config::Format>,
    /// Also write the articles as WET (WARC conversion records) to this file
    /// (.warc.gz: one gzip member per record; .warc: plain).
    #[arg(long)]
    wet: Option<PathBuf>,
}

/// Resolves the settings from the config file and the flags.
fn settings(args: &RunArgs) -> anyhow::Result<(Config, Method)> {
    let mut config = Config::load(args.config.as_deref())?;
    if let Some(s) = args.signifiers {
        config.signifiers.source = s;
    }
    if let Some(k) = args.top_k {
        anyhow::ensure!((1..=64).contains(&k), "--top-k must be between 1 and 64");
        config.signifiers.top_k = k;
    }
    if let Some(t) = args.threads {
        config.run.threads = t;
    }
    if !args.formats.is_empty() {
        config.run.formats = args.formats.clone();
    }
    let method = match (args.method, config.signifiers.source) {
        (Method::Forest, SignifierSource::Feeds) => Method::ForestFeeds,
        (m, _) => m,
    };
    Ok((config, method))
}

/// Checks early that the output folder can be written, so a bad path fails
/// before hours of work rather than after.
fn check_out_dir(dir: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir)?;
    tempfile::tempfile_in(dir)?;
    Ok(())
}

/// The folder a file is written into (`.` for a bare file name).
fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// `learn`: false for `wrappers apply` (extraction only).
fn run(args: RunArgs, learn: bool) -> ExitCode {
    let (config, method) = match settings(&args) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("canopy: {e:#}");
            return ExitCode::from(2);
        }
    };
    let reuse = match args
        .wrappers
        .as_deref()
        .map(|path| reuse::Reuse::load(path, &config.reuse, learn))
        .transpose()
    {
        Ok(r) => r.map(std::sync::Arc::new),
        Err(e) => {
            eprintln!("canopy: {e:#}");
            return ExitCode::from(2);
        }
    };
    if let Err(e) = check_out_dir(&args.out) {
        eprintln!(
            "canopy: output folder {} is not writable: {e}",
            args.out.display()
        );
        return ExitCode::from(2);
    }
    if let Some(Err(e)) = args.wet.as_deref().map(|p| check_out_dir(parent_dir(p))) {
        eprintln!("canopy: --wet: {e:#}");
        return ExitCode::from(2);
    }
    if let Err(e) = rayon::ThreadPoolBuilder::new()
        .num_threads(config.run.threads)
        .build_global()
    {
        eprintln!("canopy: cannot start threads: {e}");
        return ExitCode::from(2);
    }
    match run::run_all(&args.inputs, Some(&args.out), &config, method, reuse) {
        Ok((ingested, out, seconds)) => {
            if let Some(Err(e)) = args
                .wet
                .as_deref()
                .map(|p| run::write_wet(p, &ingested, &out))
            {
                eprintln!("canopy: {e:#}");
                return ExitCode::from(2);
            }
            let fallback = out.articles.iter().filter(|a| a.wrapper.is_none()).count();
            eprintln!(
                "canopy: {} pages from {:.1} MB in {seconds:.1}s ({:.0} pages/s): {} clusters, {} wrappers, \
                 {} pages by wrapper, {} by page-level method; {} revisits, {} records skipped, {} rejected",
                out.articles.len(),
                ingested.bytes as f64 / 1e6,
                out.articles.len() as f64 / seconds.max(1e-9),
                out.summary.len(),
                out.wrappers.len(),
                out.articles.len() - fallback,
                fallback,
                ingested.revisits,
                ingested.skipped,
                out.rejects.len(),
            );
            if args.wrappers.is_some() {
                let count =
                    |status: &str| out.summary.iter().filter(|r| r.wrapper == status).count();
                eprintln!(
                    "canopy: saved wrappers: {} clusters reused, {} relearned, {} drifted, {} new, {} without",
                    count("reused"),
                    count("relearned"),
                    count("drifted"),
                    count("new"),
                    count("none"),
                );
            }
            if out.rejects.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Err(e) => {
            eprintln!("canopy: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    match cli.command {
        Command::Run(args) => run(args, true),
        Command::Wrappers(WrappersCommand::Apply(args)) => run(args.into(), false),
        Command::Eval(args) => eval::run(args),
        Command::Index(args) => index::run_index(args),
        Command::Search(args) => index::run_search(args),
    }
}
