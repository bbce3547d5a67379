//! `canopy extract`: scale-out step 2, one bucket (`canopy::extract`).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use canopy::extract::{extract_bucket, site_settings};
use canopy_buckets::LayoutError;
use canopy_output::lock::{FolderLock, LockMode};
use canopy_output::Durability;

#[derive(clap::Args)]
pub struct ExtractArgs {
    /// Work folder written by `canopy partition` (every rank must have finished).
    #[arg(long)]
    work: PathBuf,
    /// The bucket to extract, 0 to B-1.
    #[arg(long)]
    bucket: u32,
    /// Output folder: the bucket's files go to OUT/buckets/bucket-KKKKK/.
    #[arg(long)]
    out: PathBuf,
    #[command(flatten)]
    settings: crate::settings::SettingsArgs,
    /// Last run's wrappers.jsonl, as for `run --wrappers`.
    #[arg(long)]
    wrappers: Option<PathBuf>,
}

/// `canopy extract`: exit 0 when the bucket is done, 2 when the partition
/// is not complete (a rank marker is missing), on bad usage or on an
/// unreadable work folder or unwritable output folder.
pub fn command(args: ExtractArgs) -> anyhow::Result<ExitCode> {
    let (config, method) = args.settings.resolve()?;
    let settings = site_settings(&config, method, args.wrappers.as_deref())?;
    let expect =
        canopy::fingerprint::extraction_settings(&config, method, args.wrappers.as_deref())?;
    // Buckets are extracted side by side: shared locks, which keep a
    // `run` or `merge` out of both folders while any extract works.
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    let _locks = [
        FolderLock::try_lock(&args.work, LockMode::Shared)?,
        FolderLock::try_lock(&args.out, LockMode::Shared)?,
    ];
    for warning in _locks.iter().filter_map(FolderLock::warning) {
        eprintln!("canopy: {warning}");
    }
    crate::threads::start(config.run.threads, config.run.pin_threads)?;
    let dir = canopy_buckets::bucket_out_dir(&args.out, args.bucket);
    let bar = crate::progress::pages_counter();
    let result = extract_bucket(
        &args.work,
        args.bucket,
        &dir,
        &settings,
        &expect,
        Durability::Synced,
        &bar,
    );
    bar.finish_and_clear();
    let (m, already) = result.map_err(|e| {
        let unfinished = matches!(
            &e,
            canopy::Error::Layout(LayoutError::MissingRanks { .. } | LayoutError::NoRanks)
        );
        let e = anyhow::Error::new(e);
        if unfinished {
            e.context(format!(
                "cannot extract bucket {} from {}",
                args.bucket,
                args.work.display()
            ))
        } else {
            e
        }
    })?;
    eprintln!(
        "canopy: bucket {}{}: {} sites, {} pages, {} clusters, {} wrappers, {} pages by wrapper{}",
        m.bucket,
        if already { " was already done" } else { "" },
        m.sites,
        m.articles,
        m.clusters,
        m.wrappers,
        m.by_wrapper,
        canopy::merge::lang_filtered_note(&m.lang_filtered),
    );
    Ok(ExitCode::SUCCESS)
}
