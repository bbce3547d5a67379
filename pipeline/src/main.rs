//! The `canopy` command: WARC files and feeds in, articles and per-site
//! XPath wrappers out. The work happens in the `crates/`; this binary reads
//! the settings, runs the stages in order and reports.
//!
//! Exit codes: 0 all records used, 1 done but some records were rejected
//! (see `rejects.jsonl`), 2 bad usage, an unusable output directory, or a
//! folder another canopy process holds.

mod commands;
mod index;
mod inputs;
mod page;
mod progress;
mod threads;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use canopy::{Config, Format, Method, SignifierSource};
use clap::{Parser, Subcommand};

use crate::commands::{eval, extract, merge, partition};

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
    /// Extract one page (a file, a URL or standard input) with the page-level path.
    Page(page::PageArgs),
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
    /// Print a shell completion script (e.g. `canopy completions bash > /etc/bash_completion.d/canopy`).
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff; `canopy man | man -l -`).
    Man,
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
    #[command(flatten)]
    inputs: inputs::InputArgs,
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
    /// Extraction method (docs/algorithms.md).
    ///
    /// Site level (a wrapper per template, the rest by `page`):
    ///   forest          Forest's structural patterns, tf-idf signifiers (default)
    ///   forest-feeds    Forest with signifiers from feed items (needs feeds)
    ///   coverage        wrappers ranked by signifier coverage
    /// Page level (every page alone):
    ///   page            Canopy's page-level extractor
    ///   sigfeed         the feed item's signifiers located in the page (needs feeds)
    ///   description     the feed item's description (needs feeds)
    ///   wlr, cnr, wnr, clr   WLR and its variants (word/character, node/line ratios)
    ///   r4              R4's text-density blocks
    ///   blockextractor  BlockExtractor's blocks
    ///   density         text density (Sun et al.)
    #[arg(long, default_value = "forest", verbatim_doc_comment)]
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
    formats: Vec<Format>,
    /// Duplicates left out: exact (captures of one URL but the latest, pages
    /// of identical HTML but the first, within a site) or none (default:
    /// the config's `dedup.mode`, exact).
    #[arg(long, value_enum)]
    dedup: Option<canopy_site::dedup::DedupMode>,
    /// Write only the articles in these languages: ISO 639-1 codes, `und`
    /// for pages of no known language (comma-separated or repeated;
    /// `run.languages`). The others are counted, not written; their pages
    /// still take part in learning wrappers.
    #[arg(long = "lang", value_delimiter = ',')]
    languages: Vec<String>,
}

impl SettingsArgs {
    /// The config file overlaid with these flags.
    pub fn resolve(&self) -> anyhow::Result<(Config, Method)> {
        let (mut config, method) = resolve_settings(
            self.config.as_deref(),
            self.signifiers,
            self.top_k,
            self.threads,
            self.method,
            &self.formats,
        )?;
        if let Some(mode) = self.dedup {
            config.dedup.mode = mode;
        }
        if !self.languages.is_empty() {
            config.run.languages =
                canopy_site::config::normalise_languages(&self.languages).context("--lang")?;
        }
        Ok((config, method))
    }
}

#[derive(clap::Args)]
struct RunArgs {
    #[command(flatten)]
    inputs: inputs::InputArgs,
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
    /// Work folder for the bucket files (default: a temporary folder beside
    /// --out, removed at the end). A given folder is kept: a rerun with the
    /// same inputs and settings skips its finished steps, one with others
    /// starts it over.
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
    formats: &[Format],
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

/// `learn`: false for `wrappers apply` (extraction only).
fn run(args: RunArgs, learn: bool) -> ExitCode {
    let settings = match args.settings.resolve() {
        Ok((mut config, method)) => {
            config.ingest.trust_feeds |= args.trust_feeds;
            canopy::Settings::new(config, method)
        }
        Err(e) => {
            eprintln!("canopy: {e:#}");
            return ExitCode::from(2);
        }
    };
    let inputs = match args.inputs.entries() {
        Ok(e) => e,
        Err(e) => {
            eprintln!("canopy: {e:#}");
            return ExitCode::from(2);
        }
    };
    let config = &settings.config;
    if let Err(code) = threads::start(config.run.threads, config.run.pin_threads) {
        return code;
    }
    let request = canopy::RunRequest {
        inputs,
        out: args.out,
        work: args.work,
        wet: args.wet,
        wrappers: args.wrappers,
        apply_only: !learn,
    };
    let progress = canopy::Progress {
        reading: progress::bytes_bar("reading"),
        sites: progress::sites_bar(),
    };
    let report = match canopy::run(&request, &settings, &progress) {
        Ok(report) => report,
        Err(e) => {
            eprintln!("canopy: {e}");
            return ExitCode::from(2);
        }
    };
    let out = &report.stats;
    eprintln!(
        "canopy: {} pages from {:.1} MB in {:.1}s ({:.0} pages/s): {} clusters, {}, \
         {} pages by wrapper, {} by page-level method; {} revisits, {} records skipped ({} duplicates), {} rejected{}{}",
        out.articles,
        out.bytes as f64 / 1e6,
        report.seconds,
        out.articles as f64 / report.seconds.max(1e-9),
        out.clusters,
        plural(out.wrappers, "wrapper"),
        out.by_wrapper,
        out.articles - out.by_wrapper,
        out.revisits,
        out.all_skipped(),
        out.duplicates,
        out.rejects,
        canopy::merge::lang_filtered_note(&out.lang_filtered),
        canopy_site::feed_trust::dropped_note(out.feed_items_foreign),
    );
    eprintln!("canopy: {}", out.records_line());
    if let Some(counts) = &report.wrapper_statuses {
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
    if out.rejects == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// "1 wrapper", "2 wrappers".
fn plural(n: u64, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
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
        Command::Page(args) => page::command(args),
        Command::Eval(args) => eval::command(args),
        Command::Index(args) => index::run_index(args),
        Command::Search(args) => index::run_search(args),
        Command::Partition(args) => partition::command(args),
        Command::Extract(args) => extract::command(args),
        Command::Merge(args) => merge::command(args),
        Command::Completions { shell } => {
            let mut command = <Cli as clap::CommandFactory>::command();
            clap_complete::generate(shell, &mut command, "canopy", &mut std::io::stdout());
            ExitCode::SUCCESS
        }
        Command::Man => {
            let command = <Cli as clap::CommandFactory>::command();
            match clap_mangen::Man::new(command).render(&mut std::io::stdout()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("canopy: cannot write the manual page: {e}");
                    ExitCode::from(2)
                }
            }
        }
    }
}
