//! The `canopy` command: WARC files and feeds in, articles and per-site
//! XPath wrappers out. The work happens in the `crates/`; this binary reads
//! the settings, runs the stages in order and reports.
//!
//! Exit codes: 0 all records used, 1 done but some records were rejected
//! (see `rejects.jsonl`), 2 bad usage, an unusable output directory, or a
//! folder another canopy process holds.

mod backlog;
mod config;
mod dedup;
mod eval;
mod extract;
mod fallback;
mod feed_trust;
mod fingerprint;
mod html_files;
mod index;
mod inputs;
mod merge;
mod method;
mod page;
mod page_codec;
mod pages;
mod partition;
mod reuse;
mod run;
mod signatures;
mod site;
mod spanfile;
mod spill;
mod streams;
mod threads;
mod title;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use canopy_output::switch::OutputSwitch;
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
    formats: Vec<config::Format>,
    /// Duplicates left out: exact (captures of one URL but the latest, pages
    /// of identical HTML but the first, within a site) or none (default:
    /// the config's `dedup.mode`, exact).
    #[arg(long, value_enum)]
    dedup: Option<dedup::DedupMode>,
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
                config::normalise_languages(&self.languages).context("--lang")?;
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

/// The folder a file is written into (`.` for a bare file name).
fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Where `--wet` goes: a file directly in `--out` is part of the output
/// set (written into the new folder and switched with it); any other
/// path is written in place, atomically, just before the switch.
enum WetPlace {
    /// Its name in `--out`.
    InSet(String),
    /// Its absolute path.
    Elsewhere(PathBuf),
}

impl WetPlace {
    /// Checks early that `wet`'s folder can be written (created if
    /// missing), so a bad path fails before hours of work. The path must be a new or a regular file, never `-` (standard
    /// output) nor a device, FIFO or symlink, which the file would be
    /// renamed over (`canopy_output::check_replaceable`).
    fn of(wet: &Path, out: &Path) -> anyhow::Result<WetPlace> {
        anyhow::ensure!(
            wet != Path::new("-"),
            "writing the WET file to standard output (-) is not supported: give a file path"
        );
        canopy_output::check_replaceable(wet)?;
        let parent = parent_dir(wet);
        std::fs::create_dir_all(parent)?;
        tempfile::tempfile_in(parent)?;
        let name = wet
            .file_name()
            .and_then(|n| n.to_str())
            .with_context(|| format!("{} names no file", wet.display()))?;
        std::fs::create_dir_all(out)?;
        if parent.canonicalize()? != out.canonicalize()? {
            return Ok(WetPlace::Elsewhere(std::path::absolute(wet)?));
        }
        anyhow::ensure!(
            !merge::set_names(None).contains(&name),
            "{} is one of the run's outputs",
            wet.display()
        );
        Ok(WetPlace::InSet(name.to_string()))
    }

    fn name_in_set(&self) -> Option<&str> {
        match self {
            WetPlace::InSet(name) => Some(name),
            WetPlace::Elsewhere(_) => None,
        }
    }

    /// Where to write it (`staging`: the new set's folder), and how
    /// `_SUCCESS` names it.
    fn paths(&self, staging: &Path) -> (PathBuf, PathBuf) {
        match self {
            WetPlace::InSet(name) => (staging.join(name), PathBuf::from(name)),
            WetPlace::Elsewhere(path) => (path.clone(), path.clone()),
        }
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
    let expect = match fingerprint::extraction_settings(&config, method, args.wrappers.as_deref()) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("canopy: {e:#}");
            return ExitCode::from(2);
        }
    };
    let wet = match args
        .wet
        .as_deref()
        .map(|p| WetPlace::of(p, &args.out))
        .transpose()
    {
        Ok(w) => w,
        Err(e) => {
            eprintln!("canopy: --wet: {e:#}");
            return ExitCode::from(2);
        }
    };
    if let Some(work) = &args.work {
        let same = |a: &Path, b: &Path| matches!((a.canonicalize(), b.canonicalize()), (Ok(a), Ok(b)) if a == b);
        if same(work, &args.out) {
            eprintln!("canopy: --work must be another folder than --out");
            return ExitCode::from(2);
        }
    }
    let wet_name = wet.as_ref().and_then(WetPlace::name_in_set);
    // Locks --out (a second run into it fails here, at once) and makes the
    // folder the new outputs are written into.
    let mut switch = match OutputSwitch::begin(&args.out, &merge::set_names(wet_name)) {
        Ok(s) => {
            for note in s.notes() {
                eprintln!("canopy: {note}");
            }
            s
        }
        Err(e) => {
            eprintln!(
                "canopy: output folder {} is not usable: {e}",
                args.out.display()
            );
            return ExitCode::from(2);
        }
    };
    if let Err(code) = threads::start(config.run.threads, config.run.pin_threads) {
        return code;
    }
    let entries = match args.inputs.entries() {
        Ok(e) => e,
        Err(e) => {
            eprintln!("canopy: {e:#}");
            return ExitCode::from(2);
        }
    };
    let result = run::run_all(
        &entries,
        switch.dir(),
        args.work.as_deref(),
        &config,
        method,
        reuse,
        &expect,
    )
    .and_then(|(out, seconds)| {
        let staging = switch.dir().to_path_buf();
        let listed = match &wet {
            Some(wet) => {
                let (path, listed) = wet.paths(&staging);
                run::write_wet(&path, &staging.join("articles.jsonl"))?;
                Some(listed)
            }
            None => None,
        };
        merge::mark_complete(&staging, listed.as_deref())?;
        merge::switch_in(&mut switch, wet_name)?;
        Ok((out, seconds))
    });
    match result {
        Ok((out, seconds)) => {
            eprintln!(
                "canopy: {} pages from {:.1} MB in {seconds:.1}s ({:.0} pages/s): {} clusters, {}, \
                 {} pages by wrapper, {} by page-level method; {} revisits, {} records skipped ({} duplicates), {} rejected{}{}",
                out.articles,
                out.bytes as f64 / 1e6,
                out.articles as f64 / seconds.max(1e-9),
                out.clusters,
                plural(out.wrappers, "wrapper"),
                out.by_wrapper,
                out.articles - out.by_wrapper,
                out.revisits,
                out.all_skipped(),
                out.duplicates,
                out.rejects,
                merge::lang_filtered_note(&out.lang_filtered),
                feed_trust::dropped_note(out.feed_items_foreign),
            );
            eprintln!("canopy: {}", out.records_line());
            if args.wrappers.is_some() {
                match run::wrapper_statuses(switch.out()) {
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
        Command::Eval(args) => eval::run(args),
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
