//! `canopy partition`: read this rank's share of the input files once and
//! spill every page record and feed item into per-site bucket files
//! (`crates/buckets`), so that `extract` finds all of a site's pages in
//! one bucket whichever rank read them.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::mpsc::{sync_channel, SyncSender};

use anyhow::Context;
use canopy_buckets::{InputPos, Item, Layout, RankMarker, RankWriter, Record};
use canopy_ingest::{Event, IngestOptions};
use canopy_output::Durability;
use canopy_types::{FeedItem, Reject, SourceRef};
use indicatif::ProgressBar;

use crate::config::Config;
use crate::run::{expand_inputs, is_feed_file, is_warc_file, progress_bar, sort_rejects};

/// Records are encoded in parallel batches of about this many bytes of
/// HTML. Bounded memory: the batch being filled, one queued and the one
/// being written.
const BATCH_BYTES: usize = 4 << 20;

#[derive(clap::Args)]
pub struct PartitionArgs {
    /// WARC files, feed files or folders of them, as for `run`: every rank gets the same list.
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
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
}

/// A rank's records, batched for parallel encoding and handed to the
/// writer thread, so that reading the next batch overlaps writing this one.
struct Spill {
    writer: SyncSender<Vec<(String, Record)>>,
    batch: Vec<(String, Record)>,
    batch_bytes: usize,
    marker: RankMarker,
}

impl Spill {
    fn push(&mut self, pos: InputPos, item: Item) -> std::io::Result<()> {
        let (site, bytes) = match &item {
            Item::Page(p) => {
                self.marker.pages += 1;
                (canopy_cluster::site_key(&p.url), p.html.len())
            }
            // Keyed by the site of its link: Forest's feed signifiers join
            // an item to the page with the same URL.
            Item::Feed(f) => {
                self.marker.feed_items += 1;
                (canopy_cluster::site_key(&f.url), f.description.len())
            }
        };
        self.batch.push((site, Record { pos, item }));
        self.batch_bytes += bytes;
        if self.batch_bytes >= BATCH_BYTES {
            self.flush()?;
        }
        Ok(())
    }

    fn push_feed(&mut self, file: u32, seq: &mut u32, items: Vec<FeedItem>) -> std::io::Result<()> {
        for item in items {
            self.push(InputPos { file, seq: *seq }, Item::Feed(item))?;
            *seq += 1;
        }
        Ok(())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.batch_bytes = 0;
        if self.batch.is_empty() {
            return Ok(());
        }
        self.writer
            .send(std::mem::take(&mut self.batch))
            // The writer stopped on an error, which its join reports.
            .map_err(|_| std::io::Error::other("the bucket writer stopped"))
    }
}

/// Partitions the files of rank `layout`/`rank` among `files` (the sorted,
/// expanded input list) into `work`. Returns the rank's marker and whether
/// the rank had already finished (then nothing is read or written).
pub fn partition(
    files: &[PathBuf],
    work: &Path,
    rank: u32,
    layout: Layout,
    config: &Config,
    durability: Durability,
    progress: &ProgressBar,
) -> anyhow::Result<(RankMarker, bool)> {
    anyhow::ensure!(layout.world_size >= 1, "--world-size must be at least 1");
    anyhow::ensure!(
        rank < layout.world_size,
        "--rank {rank} is not below --world-size {}",
        layout.world_size
    );
    anyhow::ensure!(
        (1..=99_999).contains(&layout.buckets),
        "--buckets must be between 1 and 99999"
    );
    std::fs::create_dir_all(work)
        .with_context(|| format!("cannot create work folder {}", work.display()))?;
    canopy_buckets::check_layout(work, layout)?;
    if let Some(done) = canopy_buckets::read_rank_marker(work, rank)? {
        return Ok((done, true));
    }

    let options = IngestOptions {
        max_page_bytes: config.ingest.max_page_bytes,
        max_decoded_bytes: config.ingest.max_decoded_bytes,
    };
    // The writer thread encodes each batch on the rayon pool and writes it
    // while this thread reads the next one.
    let (sender, batches) = sync_channel::<Vec<(String, Record)>>(1);
    let mut writer = RankWriter::new(work, rank, layout.buckets, durability);
    // `canopy run`'s own scratch folder (not synced, removed at the end)
    // with a single bucket holds under 32 MiB of input: its frames are
    // stored, not LZ4 compressed, which saved ~4 % of the run's CPU on the
    // dev corpora (docs/performance.md). Shared and larger work folders
    // stay compressed.
    if durability == Durability::Unsynced && layout.buckets == 1 {
        writer = writer.stored();
    }
    let (read, written) = std::thread::scope(|scope| {
        let writing = scope.spawn(move || -> std::io::Result<()> {
            for batch in batches {
                writer.write_batch(batch)?;
            }
            writer.finish()
        });
        let mut spill = Spill {
            writer: sender,
            batch: Vec::new(),
            batch_bytes: 0,
            marker: RankMarker {
                rank,
                world_size: layout.world_size,
                buckets: layout.buckets,
                ..RankMarker::default()
            },
        };
        let read = read_files(files, rank, layout, &options, &mut spill, progress)
            .and_then(|rejects| spill.flush().map(|()| rejects));
        drop(spill.writer);
        let written = match writing.join() {
            Ok(r) => r,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        (read.map(|rejects| (rejects, spill.marker)), written)
    });
    let ctx = || format!("cannot write buckets in {}", work.display());
    // The writer's own error says more than the closed channel.
    written.with_context(ctx)?;
    let (mut rejects, mut marker) = read.with_context(ctx)?;
    sort_rejects(&mut rejects);
    marker.rejects = rejects.len() as u64;
    let rejects_dir = work.join("rejects");
    std::fs::create_dir_all(&rejects_dir).with_context(ctx)?;
    canopy_output::write_jsonl_as(
        &rejects_dir,
        &format!("rank-{rank:05}.jsonl"),
        &rejects,
        durability,
    )
    .with_context(ctx)?;
    // Last: the marker says everything above is whole.
    canopy_buckets::write_rank_marker(work, &marker, durability).with_context(ctx)?;
    Ok((marker, false))
}

/// Reads this rank's files (those i with i mod W == R) into `spill`.
/// Returns the records rejected while reading; an error only when the
/// spill fails.
fn read_files(
    files: &[PathBuf],
    rank: u32,
    layout: Layout,
    options: &IngestOptions,
    spill: &mut Spill,
    progress: &ProgressBar,
) -> std::io::Result<Vec<Reject>> {
    let mut rejects: Vec<Reject> = Vec::new();
    let mine: Vec<(usize, &PathBuf)> = files
        .iter()
        .enumerate()
        .filter(|(i, _)| *i as u64 % u64::from(layout.world_size) == u64::from(rank))
        .collect();
    progress.set_length(mine.len() as u64);
    for (index, file) in mine {
        let index = index as u32;
        let name = file.display().to_string();
        progress.set_message(name.clone());
        spill.marker.files += 1;
        spill.marker.bytes += std::fs::metadata(file).map(|m| m.len()).unwrap_or(0);
        let mut seq = 0u32;
        if is_feed_file(file) && !is_warc_file(file) {
            match canopy_ingest::read_feed_file(file) {
                Ok(items) => spill.push_feed(index, &mut seq, items)?,
                Err(reject) => rejects.push(reject),
            }
            progress.inc(1);
            continue;
        }
        let mut spill_error = None;
        let result = canopy_ingest::read_warc(file, options, &mut |event| {
            if spill_error.is_some() {
                return;
            }
            let pushed = match event {
                Event::Page(page) => {
                    let pos = InputPos { file: index, seq };
                    seq += 1;
                    spill.push(pos, Item::Page(page))
                }
                Event::Feed { items, .. } => spill.push_feed(index, &mut seq, items),
                Event::Reject(r) => {
                    rejects.push(r);
                    Ok(())
                }
            };
            if let Err(e) = pushed {
                spill_error = Some(e);
            }
        });
        if let Some(e) = spill_error {
            return Err(e);
        }
        match result {
            Ok(stats) => {
                spill.marker.revisits += stats.revisits;
                spill.marker.skipped += stats.skipped;
            }
            Err(e) => rejects.push(Reject {
                source: SourceRef {
                    file: name,
                    offset: None,
                },
                record_id: None,
                url: None,
                stage: "warc".into(),
                reason: format!("cannot open: {e}"),
            }),
        }
        progress.inc(1);
    }
    Ok(rejects)
}

/// `canopy partition`: exit 0 when the rank is done (its rejects are
/// counted in its marker and reported by `merge`), 2 on bad usage or an
/// unwritable work folder.
pub fn command(args: PartitionArgs) -> ExitCode {
    let config = match crate::resolve_settings(
        args.config.as_deref(),
        None,
        None,
        args.threads,
        crate::method::Method::Forest,
        &[],
    ) {
        Ok((config, _)) => config,
        Err(e) => {
            eprintln!("canopy: {e:#}");
            return ExitCode::from(2);
        }
    };
    if let Err(code) = crate::start_threads(config.run.threads) {
        return code;
    }
    let layout = Layout {
        world_size: args.world_size,
        buckets: args.buckets,
    };
    let result = expand_inputs(&args.inputs).and_then(|files| {
        let bar = progress_bar(0, "partitioning");
        let r = partition(
            &files,
            &args.work,
            args.rank,
            layout,
            &config,
            Durability::Synced,
            &bar,
        );
        bar.finish_and_clear();
        r
    });
    match result {
        Ok((m, already)) => {
            eprintln!(
                "canopy: rank {} of {}{}: {} files, {:.1} MB, {} pages and {} feed items into {} buckets, {} rejected",
                m.rank,
                m.world_size,
                if already { " was already done" } else { "" },
                m.files,
                m.bytes as f64 / 1e6,
                m.pages,
                m.feed_items,
                m.buckets,
                m.rejects
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("canopy: {e:#}");
            ExitCode::from(2)
        }
    }
}
