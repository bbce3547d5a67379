//! `canopy partition`: read this rank's share of the input files once and
//! spill every page record and feed item into per-site bucket files
//! (`crates/buckets`), so that `extract` finds all of a site's pages in
//! one bucket whichever rank read them.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{sync_channel, SyncSender};

use crate::error::{ensure, Context};
use canopy_buckets::{
    InputPos, Item, Layout, PageKeys, RankMarker, RankWriter, Record, WorkFingerprint,
};
use canopy_ingest::{Event, IngestOptions, Skip, SkipCounts};
use canopy_output::Durability;
use canopy_types::{FeedItem, Reject, SourceRef, Stage};
use indicatif::ProgressBar;
use rayon::prelude::*;

use crate::config::Config;
use crate::inputs::Inputs;
use crate::order::sort_rejects;

/// Records are encoded in parallel batches of about this many bytes of
/// HTML. Bounded memory: the batch being filled, one queued and the one
/// being written. Small enough that the pool starts decoding soon after
/// the reading does and finishes soon after it ends (4 MiB left it idle
/// for the first fifth of big9's reading), and holds less (two-thread big9
/// runs peaked at 47 MB with 4 MiB, 42 MB with 1 MiB).
const BATCH_BYTES: usize = 1 << 20;

/// Compressed bytes of a `.warc.gz` inflated as one piece on the pool
/// (about 0.6 MB of records; big9 in 27 pieces). Two-thread runs of big9
/// and dragnet: 64 and 128 KiB gave the same times; on big9, 256 KiB left
/// the pool's decoding waiting behind the pieces (docs/performance.md,
/// "Threads").
const INFLATE_SEGMENT_BYTES: usize = 128 << 10;

/// What the reading thread hands on, in input order: a payload still to
/// decode, or an event decided while reading, each with its file's index.
enum Read {
    Payload(u32, canopy_ingest::Payload),
    Event(u32, Event),
    Feed(u32, Vec<FeedItem>),
}

impl Read {
    fn bytes(&self) -> usize {
        match self {
            Read::Payload(_, p) => p.len(),
            Read::Event(_, Event::Page(p)) => p.html.len(),
            Read::Event(_, _) => 0,
            Read::Feed(_, items) => items.iter().map(|f| f.description.len()).sum(),
        }
    }
}

/// The reading thread's side: batches what it reads for the writer thread,
/// so that reading the next batch overlaps decoding and writing this one.
struct Spill {
    writer: SyncSender<Vec<Read>>,
    batch: Vec<Read>,
    batch_bytes: usize,
}

impl Spill {
    fn push(&mut self, read: Read) -> std::io::Result<()> {
        self.batch_bytes += read.bytes();
        self.batch.push(read);
        if self.batch_bytes >= BATCH_BYTES {
            self.flush()?;
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

/// The writer thread's side: decodes each batch's payloads on the rayon
/// pool (HTTP and charset decoding are most of the reading's CPU after
/// gzip), then numbers the records in input order, counts them and spills
/// them. Numbering after decoding keeps the bucket files independent of the
/// thread count.
#[derive(Default)]
struct Sequencer {
    /// The file being numbered and its next position.
    file: u32,
    seq: u32,
    pages: u64,
    feeds: u64,
    feed_items: u64,
    skipped: SkipCounts,
    rejects: Vec<Reject>,
    /// `ingest.trust_feeds`: a feed inside a WARC may speak for other sites.
    trust_feeds: bool,
    /// Items of feeds inside WARCs dropped for linking to another site.
    feed_items_foreign: u64,
}

/// A batch entry once decoded.
enum Decoded {
    /// Skipped on purpose: not HTML nor a feed, or an empty body.
    Skipped(Skip),
    Event(Event),
    /// The items of a feed file.
    Feed(Vec<FeedItem>),
}

impl Sequencer {
    /// The batch's records with their sites, and each page's
    /// deduplication keys ([`crate::dedup::page_keys`]).
    fn records(
        &mut self,
        batch: Vec<Read>,
        options: &IngestOptions,
    ) -> Vec<(String, Record, Option<PageKeys>)> {
        let decoded: Vec<(u32, Decoded, Option<PageKeys>)> = batch
            .into_par_iter()
            .map(|read| match read {
                Read::Payload(file, payload) => (
                    file,
                    payload
                        .decode(options)
                        .map_or_else(Decoded::Skipped, Decoded::Event),
                ),
                Read::Event(file, event) => (file, Decoded::Event(event)),
                Read::Feed(file, items) => (file, Decoded::Feed(items)),
            })
            .map(|(file, decoded)| {
                let keys = match &decoded {
                    Decoded::Event(Event::Page(page)) => Some(crate::dedup::page_keys(page)),
                    _ => None,
                };
                (file, decoded, keys)
            })
            .collect();
        let mut records = Vec::with_capacity(decoded.len());
        for (file, decoded, keys) in decoded {
            if file != self.file {
                (self.file, self.seq) = (file, 0);
            }
            let items = match decoded {
                Decoded::Skipped(why) => {
                    self.skipped.add(why);
                    continue;
                }
                Decoded::Event(Event::Reject(reject)) => {
                    self.rejects.push(reject);
                    continue;
                }
                // Where a page becomes one of its site's: a page whose URL
                // names no web site is a reject, not a page of site "".
                Decoded::Event(Event::Page(page)) => {
                    match canopy_cluster::page_site(&page.url) {
                        Ok(site) => {
                            self.pages += 1;
                            records.push((site, self.next(file, Item::Page(page)), keys));
                        }
                        Err(reason) => self.rejects.push(Reject {
                            source: page.source,
                            record_id: Some(page.record_id).filter(|r| !r.is_empty()),
                            url: Some(page.url).filter(|u| !u.is_empty()),
                            stage: Stage::Url,
                            reason,
                        }),
                    }
                    continue;
                }
                Decoded::Event(Event::Feed { url, items, .. }) if !self.trust_feeds => {
                    self.feeds += 1;
                    let (own, foreign) = crate::feed_trust::own_site_items(&url, items);
                    self.feed_items_foreign += foreign;
                    own
                }
                // Trusted: feed files (the operator named them), and any
                // feed with `ingest.trust_feeds`.
                Decoded::Event(Event::Feed { items, .. }) | Decoded::Feed(items) => {
                    self.feeds += 1;
                    items
                }
            };
            // Keyed by the site of its link: Forest's feed signifiers join
            // an item to the page with the same URL.
            for item in items {
                self.feed_items += 1;
                let site = canopy_cluster::site_key(&item.url);
                records.push((site, self.next(file, Item::Feed(item)), None));
            }
        }
        records
    }

    fn next(&mut self, file: u32, item: Item) -> Record {
        let pos = InputPos {
            file,
            seq: self.seq,
        };
        self.seq += 1;
        Record { pos, item }
    }
}

/// The work folder's folder of the ranks' rejects of reading.
pub(crate) const REJECTS_DIR: &str = "rejects";

/// The file in [`REJECTS_DIR`] of rank `rank`'s rejects: written by
/// [`partition`], read by the merge (and by `run` to say why no feed was
/// read).
pub(crate) fn rank_rejects_file(rank: u32) -> String {
    format!("rank-{rank:05}.jsonl")
}

/// Partitions the files of rank `layout`/`rank` among `inputs` (the sorted,
/// expanded input list, whose `fingerprint` this is) into `work`. Returns
/// the rank's marker and whether the rank had already finished (then
/// nothing is read or written). A work folder partitioned from other
/// inputs or settings is an error naming what differs. The rejects of the
/// expansion itself (folders that cannot be read, special files) are rank
/// 0's: every rank expands the same list.
#[allow(clippy::too_many_arguments)]
pub fn partition(
    inputs: &Inputs,
    fingerprint: &WorkFingerprint,
    work: &Path,
    rank: u32,
    layout: Layout,
    config: &Config,
    durability: Durability,
    progress: &ProgressBar,
) -> crate::Result<(RankMarker, bool)> {
    ensure!(
        Usage,
        layout.world_size >= 1,
        "--world-size must be at least 1"
    );
    ensure!(
        Usage,
        rank < layout.world_size,
        "--rank {rank} is not below --world-size {}",
        layout.world_size
    );
    ensure!(
        Usage,
        (1..=99_999).contains(&layout.buckets),
        "--buckets must be between 1 and 99999"
    );
    std::fs::create_dir_all(work)
        .with_context(|| format!("cannot create work folder {}", work.display()))?;
    canopy_buckets::check_layout(work, layout)?;
    canopy_buckets::claim_work(work, fingerprint, durability)?;
    let (digest, share) = (fingerprint.digest(), fingerprint.share_digest(rank));
    if let Some(done) = canopy_buckets::read_rank_marker(work, rank)? {
        // The folder's fingerprint is this one (claimed above): a marker
        // of another is an older canopy's, or was copied in.
        ensure!(
            Usage,
            done.work == digest && done.share == share,
            "{} holds a marker of rank {rank} partitioned from other inputs than its {}: \
             partition again into a fresh work folder",
            work.display(),
            canopy_buckets::FINGERPRINT
        );
        return Ok((done, true));
    }

    let options = IngestOptions {
        // One reading thread inflating a whole .warc.gz paced the
        // partition of a two-thread run (docs/performance.md, "Threads").
        // With one thread too, so that a corrupt member is reported the
        // same way whatever the thread count (gzip_segments.rs).
        inflate_segments: Some(INFLATE_SEGMENT_BYTES),
        ..crate::records::ingest_options(config)
    };
    // The writer thread decodes and encodes each batch on the rayon pool
    // and writes it while this thread reads the next one.
    let (sender, batches) = sync_channel::<Vec<Read>>(1);
    let mut writer = RankWriter::new(work, rank, layout.buckets, durability);
    // `canopy run`'s own scratch folder (not synced, removed at the end)
    // with a single bucket holds under 32 MiB of input: its frames are
    // stored, not LZ4 compressed, which saved ~4 % of the run's CPU on the
    // dev corpora (docs/performance.md). Shared and larger work folders
    // stay compressed.
    if durability == Durability::Unsynced && layout.buckets == 1 {
        writer = writer.stored();
    }
    let mut marker = RankMarker {
        rank,
        world_size: layout.world_size,
        buckets: layout.buckets,
        work: digest,
        share,
        ..RankMarker::default()
    };
    let (read, written) = std::thread::scope(|scope| {
        let writing = scope.spawn(|| -> std::io::Result<Sequencer> {
            let mut sequencer = Sequencer {
                trust_feeds: config.ingest.trust_feeds,
                ..Sequencer::default()
            };
            for batch in batches {
                writer.write_keyed_batch(sequencer.records(batch, &options))?;
            }
            writer.finish()?;
            Ok(sequencer)
        });
        let mut spill = Spill {
            writer: sender,
            batch: Vec::new(),
            batch_bytes: 0,
        };
        let read = read_files(
            &inputs.files,
            rank,
            layout,
            &options,
            &mut spill,
            &mut marker,
            progress,
        )
        .and_then(|rejects| spill.flush().map(|()| rejects));
        drop(spill.writer);
        let written = match writing.join() {
            Ok(r) => r,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        (read, written)
    });
    let ctx = || format!("cannot write buckets in {}", work.display());
    // The writer's own error says more than the closed channel.
    let sequencer = written.with_context(ctx)?;
    let mut rejects = read.with_context(ctx)?;
    rejects.extend(sequencer.rejects);
    if rank == 0 {
        // Inputs the expansion could not read count as read, rejected.
        marker.records += inputs.rejects.len() as u64;
        rejects.extend(inputs.rejects.iter().cloned());
    }
    marker.pages = sequencer.pages;
    marker.feeds = sequencer.feeds;
    marker.feed_items = sequencer.feed_items;
    marker.feed_items_foreign = sequencer.feed_items_foreign;
    add_skipped(&mut marker, &sequencer.skipped);
    sort_rejects(&mut rejects);
    marker.rejects = rejects.len() as u64;
    let rejects_dir = work.join(REJECTS_DIR);
    std::fs::create_dir_all(&rejects_dir).with_context(ctx)?;
    canopy_output::write_jsonl_as(&rejects_dir, &rank_rejects_file(rank), &rejects, durability)
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
    marker: &mut RankMarker,
    progress: &ProgressBar,
) -> std::io::Result<Vec<Reject>> {
    let mut rejects: Vec<Reject> = Vec::new();
    let mine: Vec<(usize, &PathBuf)> = files
        .iter()
        .enumerate()
        .filter(|(i, _)| *i as u64 % u64::from(layout.world_size) == u64::from(rank))
        .collect();
    // In bytes of the local files (a stream's size is not known before
    // it is read): the bar moves with each record's offset in its file.
    let sizes: Vec<u64> = mine
        .iter()
        .map(|(_, f)| std::fs::metadata(f).map_or(0, |m| m.len()))
        .collect();
    progress.set_length(sizes.iter().sum());
    let mut done = 0u64;
    for ((index, file), size) in mine.into_iter().zip(sizes) {
        let index = index as u32;
        let name = file.display().to_string();
        progress.set_message(name.clone());
        marker.files += 1;
        if !crate::inputs::is_stream(file) {
            marker.bytes += std::fs::metadata(file).map(|m| m.len()).unwrap_or(0);
        }
        // An HTML file, a feed file, and a file that cannot be opened, count as one
        // record each; a WARC's records are counted as it is read.
        match crate::inputs::kind(file) {
            crate::inputs::Kind::Html => {
                marker.records += 1;
                match crate::html_files::read_page(file, options) {
                    Ok(page) => spill.push(Read::Event(index, Event::Page(page)))?,
                    Err(reject) => rejects.push(*reject),
                }
            }
            crate::inputs::Kind::Feed => {
                marker.records += 1;
                match canopy_ingest::read_feed_file(file, options) {
                    Ok(items) => spill.push(Read::Feed(index, items))?,
                    Err(reject) => rejects.push(reject),
                }
            }
            _ => {
                let mut spill_error = None;
                let mut on_item = |item: canopy_ingest::SplitItem| {
                    if spill_error.is_some() {
                        return;
                    }
                    if let Some(offset) = item.offset() {
                        progress.set_position(done + offset.min(size));
                    }
                    let read = match item {
                        canopy_ingest::SplitItem::Payload(payload) => Read::Payload(index, payload),
                        canopy_ingest::SplitItem::Event(event) => Read::Event(index, event),
                    };
                    if let Err(e) = spill.push(read) {
                        spill_error = Some(e);
                    }
                };
                let result = if crate::inputs::is_stream(file) {
                    crate::streams::read(file, options, &mut on_item).map(|(stats, bytes)| {
                        marker.bytes += bytes;
                        stats
                    })
                } else {
                    canopy_ingest::read_warc_split(file, options, &mut on_item)
                };
                if let Some(e) = spill_error {
                    return Err(e);
                }
                match result {
                    Ok(stats) => {
                        marker.records += stats.records;
                        marker.revisits += stats.revisits;
                        add_skipped(marker, &stats.skipped_by);
                    }
                    Err(e) => {
                        marker.records += 1;
                        rejects.push(Reject {
                            source: SourceRef {
                                file: name,
                                offset: None,
                            },
                            record_id: None,
                            url: None,
                            stage: Stage::Warc,
                            reason: format!("cannot open: {e}"),
                        });
                    }
                }
            }
        }
        done += size;
        progress.set_position(done);
    }
    Ok(rejects)
}

/// Counts `skips` into the rank's marker, in all and by reason.
fn add_skipped(marker: &mut RankMarker, skips: &SkipCounts) {
    marker.skipped += skips.total();
    for (reason, n) in skips.by_name() {
        *marker.skipped_by.entry(reason.to_string()).or_default() += n;
    }
}
