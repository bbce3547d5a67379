//! `canopy merge`: the buckets' sorted outputs and the ranks' rejects,
//! combined by a streaming k-way merge into the files `run` writes (and
//! the buckets' prior counts summed into `prior.tsv`),
//! in the same order, each atomically; `_SUCCESS` is removed before the
//! first and written by [`mark_complete`] once every output is in place.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use canopy_buckets::{
    article_key, bucket_out_dir, merge_csv, merge_jsonl, reject_key, wrapper_key,
};
use canopy_output::write_atomic;

/// What a finished run (or merge) adds up to, for the summary line.
#[derive(Debug, Default, Clone)]
pub struct RunStats {
    pub bytes: u64,
    pub articles: u64,
    pub by_wrapper: u64,
    pub wrappers: u64,
    pub clusters: u64,
    pub revisits: u64,
    pub skipped: u64,
    pub rejects: u64,
    /// Feed items dropped for speaking for another site than their feed's.
    pub feed_items_foreign: u64,
}

#[derive(clap::Args)]
pub struct MergeArgs {
    /// Work folder written by `canopy partition`.
    #[arg(long)]
    work: PathBuf,
    /// Output folder holding buckets/ from `canopy extract`; the merged files go here.
    #[arg(long)]
    out: PathBuf,
}

/// Merges the outputs of every bucket under `buckets_root/buckets/` and the
/// rejects of every rank of `work` into `out`.
pub fn merge(work: &Path, buckets_root: &Path, out: &Path) -> anyhow::Result<RunStats> {
    let (layout, ranks) = canopy_buckets::complete_layout(work)?;
    let mut stats = RunStats::default();
    for r in &ranks {
        stats.bytes += r.bytes;
        stats.revisits += r.revisits;
        stats.skipped += r.skipped;
        stats.rejects += r.rejects;
        stats.feed_items_foreign += r.feed_items_foreign;
    }
    let mut dirs = Vec::with_capacity(layout.buckets as usize);
    let mut missing = Vec::new();
    for k in 0..layout.buckets {
        let dir = bucket_out_dir(buckets_root, k);
        match canopy_buckets::read_bucket_marker(&dir)? {
            Some(m) => {
                stats.articles += m.articles;
                stats.by_wrapper += m.by_wrapper;
                stats.wrappers += m.wrappers;
                stats.clusters += m.clusters;
                stats.rejects += m.rejects;
            }
            None => missing.push(k),
        }
        dirs.push(dir);
    }
    anyhow::ensure!(
        missing.is_empty(),
        "{} of {} buckets have not been extracted into {} (bucket {:?}{})",
        missing.len(),
        layout.buckets,
        buckets_root.join("buckets").display(),
        &missing[..missing.len().min(10)],
        if missing.len() > 10 { ", …" } else { "" }
    );
    let files = |name: &str| -> Vec<PathBuf> { dirs.iter().map(|d| d.join(name)).collect() };
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let ctx = || format!("cannot write into {}", out.display());
    canopy_output::success::begin(out).with_context(ctx)?;
    // The ranks' (ingest) and the buckets' (time budget) rejects.
    let rejects: Vec<PathBuf> = (0..layout.world_size)
        .map(|r| work.join("rejects").join(format!("rank-{r:05}.jsonl")))
        .chain(files("rejects.jsonl"))
        .collect();
    // `articles.jsonl`, most of the bytes, on this thread while another
    // merges the three smaller files: the end of a run is serial otherwise.
    let (articles, others) = std::thread::scope(|scope| {
        let others = scope.spawn(|| -> std::io::Result<()> {
            write_atomic(out, "wrappers.jsonl", |w| {
                merge_jsonl(&files("wrappers.jsonl"), wrapper_key, w).map(drop)
            })?;
            write_atomic(out, "summary.csv", |w| {
                merge_csv(&files("summary.csv"), 2, w).map(drop)
            })?;
            write_atomic(out, "rejects.jsonl", |w| {
                merge_jsonl(&rejects, reject_key, w).map(drop)
            })
        });
        let articles = write_atomic(out, "articles.jsonl", |w| {
            merge_jsonl(&files("articles.jsonl"), article_key, w).map(drop)
        });
        let others = others
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (articles, others)
    });
    articles.with_context(ctx)?;
    others.with_context(ctx)?;
    // What the wrappers taught the page-level prior, summed over buckets.
    let mut prior = canopy_extract::PriorCounts::default();
    for path in files("prior.tsv") {
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
        };
        let counts = canopy_extract::PriorCounts::from_tsv(&text)
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        prior.add(&counts);
    }
    write_atomic(out, "prior.tsv", |w| w.write_all(prior.to_tsv().as_bytes())).with_context(ctx)?;
    Ok(stats)
}

/// The files [`merge`] writes into the output folder.
pub const OUTPUTS: [&str; 5] = [
    "articles.jsonl",
    "wrappers.jsonl",
    "summary.csv",
    "rejects.jsonl",
    "prior.tsv",
];

/// Writes `out/_SUCCESS` (`canopy_output::success`) over the [`OUTPUTS`]
/// and `extra` (the `--wet` file): call it after the run's last output.
pub fn mark_complete(out: &Path, extra: Option<&Path>) -> anyhow::Result<()> {
    // `extra` is relative to the working folder, the outputs to `out`.
    let extra = extra.map(std::path::absolute).transpose()?;
    let files: Vec<PathBuf> = OUTPUTS.iter().map(PathBuf::from).chain(extra).collect();
    canopy_output::success::finish(out, &files)
        .with_context(|| format!("cannot write {}/_SUCCESS", out.display()))
}

/// `canopy merge`: exit 0, 1 when some records were rejected (as `run`),
/// 2 when a rank or bucket is not finished or the output cannot be written.
pub fn command(args: MergeArgs) -> ExitCode {
    match merge(&args.work, &args.out, &args.out)
        .and_then(|stats| mark_complete(&args.out, None).map(|()| stats))
    {
        Ok(stats) => {
            eprintln!(
                "canopy: merged {} pages, {} clusters, {} wrappers, {} rejected into {}",
                stats.articles,
                stats.clusters,
                stats.wrappers,
                stats.rejects,
                args.out.display()
            );
            ExitCode::from(if stats.rejects == 0 { 0 } else { 1 })
        }
        Err(e) => {
            eprintln!("canopy: {e:#}");
            ExitCode::from(2)
        }
    }
}
