//! `canopy merge`: scale-out step 3, the buckets' outputs into the files
//! `run` writes (`canopy::merge`).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use canopy::merge::{mark_complete, merge, set_names, switch_in};
use canopy_output::lock::{FolderLock, LockMode};
use canopy_output::switch::OutputSwitch;
use std::time::Instant;

#[derive(clap::Args)]
pub struct MergeArgs {
    /// Work folder written by `canopy partition`.
    #[arg(long)]
    work: PathBuf,
    /// Output folder holding buckets/ from `canopy extract`; the merged files go here.
    #[arg(long)]
    out: PathBuf,
}

/// `canopy merge`: exit 0, 1 when some records were rejected (as `run`),
/// 2 when a rank or bucket is not finished or does not match, when
/// another process holds the output folder, or when it cannot be written.
pub fn command(args: MergeArgs) -> anyhow::Result<ExitCode> {
    let start = Instant::now();
    // Read only, by as many as like; a `run --work` into it waits.
    let work_lock = FolderLock::try_lock(&args.work, LockMode::Shared)?;
    if let Some(warning) = work_lock.warning() {
        eprintln!("canopy: {warning}");
    }
    // `articles.parquet` is known to be in the set once the buckets'
    // settings are read (`--format parquet` given to `extract`).
    let mut switch = OutputSwitch::begin(&args.out, &set_names(None, false))
        .with_context(|| format!("output folder {}", args.out.display()))?;
    for note in switch.notes() {
        eprintln!("canopy: {note}");
    }
    let merged = merge(&args.work, &args.out, switch.dir())?;
    let seconds = start.elapsed().as_secs_f64();
    let threads = rayon::current_num_threads();
    canopy::stats::write(
        switch.dir(),
        &merged.stats,
        &merged.method,
        seconds,
        threads,
    )?;
    mark_complete(switch.dir(), merged.parquet, None)?;
    switch_in(&mut switch, None, merged.parquet, crate::progress::note)?;
    let stats = merged.stats;
    eprintln!(
        "canopy: merged {} pages, {} clusters, {} wrappers, {} rejected into {}; {}",
        stats.articles,
        stats.clusters,
        stats.wrappers,
        stats.rejects,
        args.out.display(),
        stats.records_line()
    );
    Ok(ExitCode::from(u8::from(stats.rejects > 0)))
}
