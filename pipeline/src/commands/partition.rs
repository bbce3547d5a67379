//! `canopy partition`: scale-out step 1, one rank's share of the inputs
//! into per-site bucket files (`canopy::partition`).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use canopy::partition::partition;
use canopy_buckets::Layout;
use canopy_output::lock::{FolderLock, LockMode};
use canopy_output::Durability;

#[derive(clap::Args)]
pub struct PartitionArgs {
    /// The inputs, as for `run`: every rank gets the same list.
    #[command(flatten)]
    inputs: crate::inputs::InputArgs,
    /// Work folder shared by all ranks (created if missing).
    #[arg(long)]
    work: PathBuf,
    /// This rank: it reads the files i (in sorted order) with i mod W == R.
    #[arg(long, default_value_t = 0)]
    rank: u32,
    /// Number of ranks W.
    #[arg(long, default_value_t = 1)]
    world_size: u32,
    /// Number of buckets B (the same for every rank).
    #[arg(long, default_value_t = canopy_buckets::DEFAULT_BUCKETS)]
    buckets: u32,
    /// Settings file overlaid on configs/default.toml (the [ingest] keys apply).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Worker threads for compression (default: one per core).
    #[arg(long)]
    threads: Option<usize>,
    /// Let feeds found inside the WARCs give signifiers to pages of other
    /// sites than their own (`ingest.trust_feeds`; docs/robustness.md).
    #[arg(long)]
    trust_feeds: bool,
}

/// `canopy partition`: exit 0 when the rank is done (its rejects are
/// counted in its marker and reported by `merge`), 2 on bad usage or an
/// unwritable work folder.
pub fn command(args: PartitionArgs) -> anyhow::Result<ExitCode> {
    let (mut config, _) = crate::settings::resolve_settings(
        args.config.as_deref(),
        None,
        None,
        args.threads,
        canopy_site::Method::Forest,
        &[],
    )?;
    config.ingest.trust_feeds |= args.trust_feeds;
    crate::threads::start(config.run.threads, config.run.pin_threads)?;
    let layout = Layout {
        world_size: args.world_size,
        buckets: args.buckets,
    };
    // Ranks share the folder; `run --work` on it is kept out.
    std::fs::create_dir_all(&args.work)
        .with_context(|| format!("cannot create work folder {}", args.work.display()))?;
    let _lock = FolderLock::try_lock(&args.work, LockMode::Shared)?;
    if let Some(warning) = _lock.warning() {
        eprintln!("canopy: {warning}");
    }
    let inputs = canopy::inputs::expand(&args.inputs.entries()?)?;
    let bar = crate::progress::bytes_bar("partitioning");
    let fingerprint = canopy::fingerprint::work_fingerprint(&inputs.files, layout, &config);
    let result = partition(
        &inputs,
        &fingerprint,
        &args.work,
        args.rank,
        layout,
        &config,
        Durability::Synced,
        &bar,
    );
    bar.finish_and_clear();
    let (m, already) = result?;
    eprintln!(
        "canopy: rank {} of {}{}: {} files, {:.1} MB, {} pages and {} feed items into {} buckets, {} rejected{}",
        m.rank,
        m.world_size,
        if already { " was already done" } else { "" },
        m.files,
        m.bytes as f64 / 1e6,
        m.pages,
        m.feed_items,
        m.buckets,
        m.rejects,
        canopy_site::feed_trust::dropped_note(m.feed_items_foreign),
    );
    Ok(ExitCode::SUCCESS)
}
