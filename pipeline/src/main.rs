//! The `canopy` command: WARC files and feeds in, articles and per-site
//! XPath wrappers out. The work happens in the `crates/`; this binary reads
//! the settings, runs the stages in order and reports.
//!
//! Exit codes: 0 all records used, 1 done but some records were rejected
//! (see `rejects.jsonl`), 2 bad usage or an unusable output directory.

mod backlog;
mod config;
mod eval;
mod extract;
mod fallback;
mod feed_trust;
mod index;
mod merge;
mod method;
mod page_codec;
mod pages;
mod partition;
mod reuse;
mod run;
mod signatures;
mod site;
mod spanfile;
mod spill;
mod threads;
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
    /// Scale-out step 1: spill one rank's share of the inputs into per-site bucket files.
    Partition(partition::PartitionArgs),
    /// Scale-out step 2: extract one bucket, read from every rank.
    Extract(extract::ExtractArgs),
    /// Scale-out step 3: merge the buckets' outputs into the files `run` writes.
    Merge(merge::MergeArgs),
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
    #[command(flatten)]
    settings: SettingsArgs,
    /// Also write the articles as WET (as for `run`).
    #[arg(long)]
    wet: Option<PathBuf>,
}

impl From<ApplyArgs> for RunArgs {
    fn from(a: ApplyArgs) -> RunArgs {
        RunArgs {
            inputs: a.inputs,
            out: a.out,
            settings: a.settings,
            wrappers: Some(a.wrappers),
            wet: a.wet,
            work: None,
            trust_feeds: false,
        }
    }
}

/// The settings flags of `run`, `wrappers apply` and `extract`, overlaid
/// on the config file (every step of one run must get the same).
#[derive(clap::Args)]
pub struct SettingsArgs {
    /// Where signifiers come from (default: the config's, "tfidf").
    #[arg(long, value_enum)]
    signifiers: Option<SignifierSource>,
    /// Signifiers kept per page (default 10).
    #[arg(long)]
    top_k: Option<usize>,
    /// Extraction method: forest, forest-feeds, coverage, or a page-level
    /// method (docs/algorithms.md).
    #[arg(long, default_value = "forest")]
    method: Method,
    /// Worker threads (default: one per core).
    #[arg(long)]
    threads: Option<usize>,
    /// Settings file overlaid on configs/default.toml.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Article renderings: text, html, markdown (comma-separated or repeated;
    /// `text` is always written).
    #[arg(long = "format", value_enum, value_delimiter = ',')]
    formats: Vec<config::Format>,
}

impl SettingsArgs {
    /// The config file overlaid with these flags.
    pub fn resolve(&self) -> anyhow::Result<(Config, Method)> {
        resolve_settings(
            self.config.as_deref(),
            self.signifiers,
            self.top_k,
            self.threads,
            self.method,
            &self.formats,
        )
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
    #[command(flatten)]
    settings: SettingsArgs,
    /// Last run's wrappers.jsonl: reuse the wrappers whose template still
    /// fits, relearn the drifted ones (docs/wrappers.md).
    #[arg(long)]
    wrappers: Option<PathBuf>,
    /// Also write the articles as WET (WARC conversion records) to this file
    /// (.warc.gz: one gzip member per record; .warc: plain).
    #[arg(long)]
    wet: Option<PathBuf>,
    /// Work folder for the bucket files (default: a temporary folder inside
    /// --out, removed at the end). A given folder is kept, and a rerun skips
    /// its finished steps.
    #[arg(long)]
    work: Option<PathBuf>,
    /// Let feeds found inside the WARCs give signifiers to pages of other
    /// sites than their own (`ingest.trust_feeds`; feed files given as
    /// inputs are always used).
    #[arg(long)]
    trust_feeds: bool,
}

/// The config file overlaid with settings flags (`partition` passes only
/// its own).
fn resolve_settings(
    config: Option<&Path>,
    signifiers: Option<SignifierSource>,
    top_k: Option<usize>,
    threads: Option<usize>,
    method: Method,
    formats: &[config::Format],
) -> anyhow::Result<(Config, Method)> {
    let mut config = Config::load(config)?;
    if let Some(s) = signifiers {
        config.signifiers.source = s;
    }
    if let Some(k) = top_k {
        anyhow::ensure!((1..=64).contains(&k), "--top-k must be between 1 and 64");
        config.signifiers.top_k = k;
    }
    if let Some(t) = threads {
        config.run.threads = t;
    }
    if !formats.is_empty() {
        config.run.formats = formats.to_vec();
    }
    let method = match (method, config.signifiers.source) {
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
    let (mut config, method) = match args.settings.resolve() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("canopy: {e:#}");
            return ExitCode::from(2);
        }
    };
    config.ingest.trust_feeds |= args.trust_feeds;
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
    if let Err(code) = threads::start(config.run.threads, config.run.pin_threads) {
        return code;
    }
    match run::run_all(
        &args.inputs,
        &args.out,
        args.work.as_deref(),
        &config,
        method,
        reuse,
    ) {
        Ok((out, seconds)) => {
            if let Some(Err(e)) = args
                .wet
                .as_deref()
                .map(|p| run::write_wet(p, &args.out.join("articles.jsonl")))
            {
                eprintln!("canopy: {e:#}");
                return ExitCode::from(2);
            }
            if let Err(e) = merge::mark_complete(&args.out, args.wet.as_deref()) {
                eprintln!("canopy: {e:#}");
                return ExitCode::from(2);
            }
            eprintln!(
                "canopy: {} pages from {:.1} MB in {seconds:.1}s ({:.0} pages/s): {} clusters, {} wrappers, \
                 {} pages by wrapper, {} by page-level method; {} revisits, {} records skipped, {} rejected{}",
                out.articles,
                out.bytes as f64 / 1e6,
                out.articles as f64 / seconds.max(1e-9),
                out.clusters,
                out.wrappers,
                out.by_wrapper,
                out.articles - out.by_wrapper,
                out.revisits,
                out.skipped,
                out.rejects,
                feed_trust::dropped_note(out.feed_items_foreign),
            );
            if args.wrappers.is_some() {
                match run::wrapper_statuses(&args.out) {
                    Ok(counts) => {
                        let count = |status: &str| counts.get(status).copied().unwrap_or(0);
                        eprintln!(
                            "canopy: saved wrappers: {} clusters reused, {} relearned, {} drifted, {} new, {} without",
                            count("reused"),
                            count("relearned"),
                            count("drifted"),
                            count("new"),
                            count("none"),
                        );
                    }
                    Err(e) => eprintln!("canopy: {e:#}"),
                }
            }
            if out.rejects == 0 {
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
        Command::Partition(args) => partition::command(args),
        Command::Extract(args) => extract::command(args),
        Command::Merge(args) => merge::command(args),
    }
}
