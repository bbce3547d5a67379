//! `canopy partition`: read this rank's share of the input files once and
//! spill every page record and feed item into per-site bucket files
//! (`crates/buckets`), so that `extract` finds all of a site's pages in
//! one bucket whichever rank read them.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use canopy_buckets::{InputPos, Item, Layout, RankMarker, RankWriter, Record};
use canopy_ingest::{Event, IngestOptions};
use canopy_output::Durability;
use canopy_types::{FeedItem, Reject, SourceRef};
use indicatif::ProgressBar;

use crate::config::Config;
use crate::run::{expand_inputs, is_feed_file, is_warc_file, progress_bar, sort_rejects};

/// Records are compressed in parallel batches of about this many bytes of
/// HTML (bounded memory: one batch at a time).
const BATCH_BYTES: usize = 8 << 20;

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

/// A rank's records, batched for parallel compression.
struct Spill {
    writer: RankWriter,
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
        self.writer.write_batch(&self.batch)?;
        self.batch.clear();
        self.batch_bytes = 0;
        Ok(())
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
    let mut spill = Spill {
        writer: RankWriter::new(work, rank, layout.buckets, durability),
        batch: Vec::new(),
        batch_bytes: 0,
        marker: RankMarker {
            rank,
            world_size: layout.world_size,
            buckets: layout.buckets,
            ..RankMarker::default()
        },
    };
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
        let result = canopy_ingest::read_warc(file, &options, &mut |event| {
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
            return Err(e).with_context(|| format!("cannot write buckets in {}", work.display()));
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
    let ctx = || format!("cannot write buckets in {}", work.display());
    spill.flush().with_context(ctx)?;
    let Spill {
        writer, mut marker, ..
    } = spill;
    writer.finish().with_context(ctx)?;
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
