//! `canopy run` and `canopy wrappers apply`: one call of `canopy::run`.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::inputs::InputArgs;
use crate::settings::SettingsArgs;
use crate::{progress, threads};

#[derive(clap::Args)]
pub struct RunArgs {
    #[command(flatten)]
    inputs: InputArgs,
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

#[derive(clap::Args)]
pub struct ApplyArgs {
    /// A wrappers.jsonl written by `canopy run`.
    #[arg(long)]
    wrappers: PathBuf,
    #[command(flatten)]
    inputs: InputArgs,
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

/// `learn`: false for `wrappers apply` (extraction only). Exit 0, or 1
/// when records were rejected.
pub fn command(args: RunArgs, learn: bool) -> anyhow::Result<ExitCode> {
    let (mut config, method) = args.settings.resolve()?;
    config.ingest.trust_feeds |= args.trust_feeds;
    let settings = canopy::Settings::new(config, method);
    let inputs = args.inputs.entries()?;
    let config = &settings.config;
    threads::start(config.run.threads, config.run.pin_threads)?;
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
        pages: progress::pages_bar(),
        note: progress::note,
    };
    let report = canopy::run(&request, &settings, &progress)?;
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
    Ok(ExitCode::from(u8::from(out.rejects > 0)))
}

/// "1 wrapper", "2 wrappers".
fn plural(n: u64, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}
