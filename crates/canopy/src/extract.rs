//! `canopy extract`: one bucket, from every rank's bucket file, one site at
//! a time (rayon across sites): cluster, learn wrappers, extract
//! ([`canopy_site`]); the bucket's outputs are written sorted, then its
//! completion marker.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::{ensure, Context};
use canopy_buckets::{
    article_key, merge_csv, merge_jsonl, wrapper_key, BucketMarker, BucketReader, Entry, Item,
};
use canopy_extract::{Prior, PriorCounts};
use canopy_output::{write_atomic_as, write_jsonl_as, Durability};
use canopy_types::{FeedItem, PageRecord, Reject, WrapperRecord};
use indicatif::ProgressBar;

use crate::config::Config;
use crate::dedup::Duplicate;
use crate::order::{article_order, wrapper_order};
use canopy_site::Backlog;
use canopy_site::Method;
use canopy_site::Reuse;
use canopy_site::{process_site, SiteInput, SiteOutput, SiteSettings};

/// The records at `entries`: read in order, decoded in parallel as
/// `backlog` allows (decoding is most of the cost of reading a record).
fn load(
    reader: &BucketReader,
    entries: &[Entry],
    backlog: &Backlog,
) -> std::io::Result<Vec<canopy_buckets::Record>> {
    let frames = reader.read_frames(entries)?;
    backlog
        .map(entries.iter().zip(frames), |(entry, frame)| {
            reader.decode(entry, frame)
        })
        .into_iter()
        .collect()
}

/// A site's pages (sorted by URL, then input order) and its feed items by
/// normalised URL (the first in input order wins), as `run` always had.
fn site_input(
    records: Vec<canopy_buckets::Record>,
) -> (Vec<PageRecord>, HashMap<String, FeedItem>) {
    let mut records = records;
    records.sort_by_key(|r| r.pos);
    let mut pages = Vec::new();
    let mut feeds = HashMap::new();
    for r in records {
        match r.item {
            Item::Page(p) => pages.push(p),
            Item::Feed(f) => {
                feeds
                    .entry(canopy_ingest::normalize_url(&f.url))
                    .or_insert(f);
            }
        }
    }
    // Stable: equal (url, record_id) keep input order.
    pages.sort_by(|a, b| (&a.url, &a.record_id).cmp(&(&b.url, &b.record_id)));
    (pages, feeds)
}

/// Records (pages and feed items) of the sites started but not yet written,
/// per thread of the pool. Most sites of a crawl have a page or two, so a
/// window counted in sites (it was 4 per thread) drains while the writing
/// thread waits for the CPU or for a slow site at its head, and the pool
/// idles: two-thread dragnet runs kept their cores 82 % busy with 4
/// records per thread, 91 % with 16, 93–96 % from 64 on, while peak RSS
/// grew from 38 to 46 MB at 64 and 60 MB at 256 (a worker waiting inside
/// one site's parallel loop takes up another site, whose pages it then
/// holds too). docs/performance.md, "Threads".
const AHEAD_RECORDS_PER_THREAD: usize = 64;

/// Runs `work` on every item of `items` in the rayon pool and hands the
/// results to `sink` in item order, on the calling thread. Items are
/// started while the items started but not yet handed on weigh at most
/// `budget` in all (`weight`; an item alone may weigh more), so memory
/// holds that many results, not all of them, and no worker waits for a
/// slow item (a window with a barrier would). `work` also gets the
/// [`Backlog`] of items handed to the pool and not yet begun, which its
/// own parallel loops follow. Called from inside the pool, where blocking
/// would take a worker away, it runs the items one after another.
fn for_each_ordered<T: Sync, R: Send>(
    items: &[T],
    budget: usize,
    weight: impl Fn(&T) -> usize,
    work: impl Fn(&T, &Backlog) -> R + Sync,
    mut sink: impl FnMut(R) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let backlog = Backlog::default();
    if rayon::current_thread_index().is_some() {
        return items.iter().try_for_each(|item| sink(work(item, &backlog)));
    }
    let backlog = &backlog;
    rayon::in_place_scope(|scope| {
        // A task that panics still sends (its panic), so that this thread
        // does not wait for it forever; the panic goes on from here.
        let (sender, results) = std::sync::mpsc::channel::<(usize, std::thread::Result<R>)>();
        let work = &work;
        let start = |i: usize| {
            let sender = sender.clone();
            backlog.queued();
            scope.spawn(move |_| {
                backlog.started();
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    work(&items[i], backlog)
                }));
                // The receiver is gone only when the sink failed.
                let _ = sender.send((i, result));
            });
        };
        let mut started = 0;
        // Weight of the items started but not yet handed on.
        let mut in_flight = 0;
        let mut done: BTreeMap<usize, std::thread::Result<R>> = BTreeMap::new();
        for i in 0..items.len() {
            let first = started;
            while started < items.len()
                && (started == i || in_flight + weight(&items[started]) <= budget)
            {
                in_flight += weight(&items[started]);
                started += 1;
            }
            // Heaviest first (the pool takes them in this order): a heavy
            // item started last would run alone at the end of the window.
            let mut batch: Vec<usize> = (first..started).collect();
            batch.sort_by_key(|&n| std::cmp::Reverse(weight(&items[n])));
            for n in batch {
                start(n);
            }
            let result = loop {
                if let Some(r) = done.remove(&i) {
                    break r;
                }
                let (j, r) = results
                    .recv()
                    .map_err(|_| std::io::Error::other("a site task stopped"))?;
                done.insert(j, r);
            };
            in_flight -= weight(&items[i]);
            match result {
                Ok(r) => sink(r)?,
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        Ok(())
    })
}

fn write_line(w: &mut dyn Write, item: &impl serde::Serialize) -> std::io::Result<()> {
    serde_json::to_writer(&mut *w, item)?;
    w.write_all(b"\n")
}

/// Extracts bucket `bucket` of `work` into `dir` with `settings` (and its
/// saved wrappers, if any; `expect` is what they are,
/// [`crate::fingerprint::extraction_settings`]). Returns its marker and
/// whether it had already been done (then nothing is read or written). A
/// bucket done from another partition or with other settings is an error
/// naming what differs (`run` removes such a bucket first).
///
/// Sites are processed in parallel but written in order (the index is a
/// `BTreeMap`), each site's outputs sorted; every output is sorted by site
/// first, so the bucket's files come out as if they had been sorted whole,
/// without holding them: memory follows the sites in progress.
///
/// The sites' wrappers teach the page-level extractor's prior what the
/// bucket's article blocks are called (`SiteEvidence`): the bucket's
/// counts are written as `prior.tsv`. With `extract.crawl_prior` the sites
/// of two pages or more go first and the single pages second, with the
/// shipped prior plus what the bucket taught; each pass writes its own
/// sorted files, merged into the bucket's at the end.
pub fn extract_bucket(
    work: &Path,
    bucket: u32,
    dir: &Path,
    settings: &SiteSettings,
    expect: &serde_json::Value,
    durability: Durability,
    progress: &ProgressBar,
) -> crate::Result<(BucketMarker, bool)> {
    let partition = canopy_buckets::complete_layout(work)?;
    let (layout, digest) = (partition.layout, partition.fingerprint.digest());
    if let Some(done) = canopy_buckets::read_bucket_marker(dir)? {
        let differences = done.differences(&digest, expect);
        ensure!(
            Usage,
            differences.is_empty(),
            "{} was extracted with other inputs or settings ({}): give every extract the \
             same flags and config, or another --out (or remove that folder to extract it again)",
            dir.display(),
            canopy_buckets::fingerprint::describe(&differences)
        );
        progress.inc(done.pages());
        return Ok((done, true));
    }
    ensure!(
        Usage,
        bucket < layout.buckets,
        "--bucket {bucket} is not below the partition's {} buckets",
        layout.buckets
    );
    let index = canopy_buckets::read_bucket_index(work, bucket, layout.world_size)?;
    let reader = BucketReader::new(work, bucket);
    // Duplicates are left out here, from the index alone: they are never
    // read for processing, so they count as no page of their site.
    let mut duplicates: Vec<(String, Vec<Duplicate>)> = Vec::new();
    let sites: Vec<(String, Vec<Entry>)> = index
        .into_iter()
        .map(|(site, entries)| {
            let (kept, dups) = crate::dedup::select(&entries, settings.dedup);
            if !dups.is_empty() {
                duplicates.push((site.clone(), dups));
            }
            (site, kept)
        })
        .collect();
    progress.inc(duplicates.iter().map(|(_, d)| d.len() as u64).sum());

    let mut rejects = Vec::new();
    let mut carried = Vec::new();
    if let Some(reuse) = &settings.reuse {
        // Saved wrappers of this bucket's sites that sent no page tonight go
        // on unchanged; the bad lines of the saved file are reported once,
        // by bucket 0.
        let ours = |s: &str| canopy_buckets::bucket_of(s, layout.buckets) == bucket;
        carried = reuse.saved.unseen_sites(|s| {
            !ours(s) || sites.binary_search_by(|(t, _)| t.as_str().cmp(s)).is_ok()
        });
        carried.sort_by(wrapper_order);
        if bucket == 0 {
            rejects.extend(reuse.rejects.iter().cloned());
        }
    }
    let wrapper_rejects = rejects.len() as u64;
    let mut marker = BucketMarker {
        bucket,
        sites: sites.len() as u64,
        wrapper_rejects,
        work: digest,
        settings: expect.clone(),
        ..BucketMarker::default()
    };
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let ctx = || format!("cannot write into {}", dir.display());

    let mut prior = PriorCounts::default();
    let single =
        |(_, entries): &(String, Vec<Entry>)| entries.iter().filter(|e| !e.feed).count() < 2;
    let two_passes = settings.crawl_prior && sites.iter().any(single) && !sites.iter().all(single);
    if !two_passes {
        let pass = Pass {
            dir,
            durability,
            progress,
            marker: &mut marker,
            rejects: &mut rejects,
            prior: &mut prior,
        };
        extract_sites(&reader, &sites, carried, settings, pass).with_context(ctx)?;
    } else {
        // The sites of two pages or more, then the single pages with what
        // they taught, each into a folder of its own; then merged into the
        // bucket's files.
        let (single, several): (Vec<_>, Vec<_>) = sites.into_iter().partition(single);
        let parts = [dir.join(".pass-1"), dir.join(".pass-2")];
        let part_ctx = |i: usize| format!("cannot write into {}", parts[i].display());
        let pass = Pass {
            dir: &parts[0],
            durability: Durability::Unsynced,
            progress,
            marker: &mut marker,
            rejects: &mut rejects,
            prior: &mut prior,
        };
        extract_sites(&reader, &several, carried, settings, pass).with_context(|| part_ctx(0))?;
        let taught = SiteSettings {
            prior: Arc::new(Prior::with_crawl(&settings.prior_counts, &prior)),
            ..settings.clone()
        };
        let pass = Pass {
            dir: &parts[1],
            durability: Durability::Unsynced,
            progress,
            marker: &mut marker,
            rejects: &mut rejects,
            prior: &mut PriorCounts::default(),
        };
        extract_sites(&reader, &single, Vec::new(), &taught, pass).with_context(|| part_ctx(1))?;
        let files = |name: &str| -> Vec<PathBuf> { parts.iter().map(|d| d.join(name)).collect() };
        let merged = (|| -> std::io::Result<()> {
            write_atomic_as(dir, "articles.jsonl", durability, |w| {
                merge_jsonl(&files("articles.jsonl"), article_key, w).map(drop)
            })?;
            write_atomic_as(dir, "wrappers.jsonl", durability, |w| {
                merge_jsonl(&files("wrappers.jsonl"), wrapper_key, w).map(drop)
            })?;
            write_atomic_as(dir, "summary.csv", durability, |w| {
                merge_csv(&files("summary.csv"), 2, w).map(drop)
            })?;
            for part in &parts {
                std::fs::remove_dir_all(part)?;
            }
            Ok(())
        })();
        merged.with_context(ctx)?;
    }
    write_atomic_as(dir, "duplicates.jsonl", durability, |w| {
        for (site, dups) in &duplicates {
            marker.duplicates += crate::dedup::write_listing(&reader, site, dups, w)?;
        }
        Ok(())
    })
    .with_context(ctx)?;
    crate::order::sort_rejects(&mut rejects);
    write_jsonl_as(dir, "rejects.jsonl", &rejects, durability).with_context(ctx)?;
    write_atomic_as(dir, "prior.tsv", durability, |w| {
        w.write_all(prior.to_tsv().as_bytes())
    })
    .with_context(ctx)?;
    marker.rejects = rejects.len() as u64;
    canopy_buckets::write_bucket_marker(dir, &marker, durability).with_context(ctx)?;
    Ok((marker, false))
}

/// Where one pass over some of a bucket's sites writes, and what it adds
/// up.
struct Pass<'a> {
    dir: &'a Path,
    durability: Durability,
    progress: &'a ProgressBar,
    marker: &'a mut BucketMarker,
    rejects: &'a mut Vec<Reject>,
    /// What the sites' wrappers teach the prior.
    prior: &'a mut PriorCounts,
}

/// Extracts `sites` (sorted) into `articles.jsonl`, `wrappers.jsonl` (with
/// the `carried` wrappers, sorted) and `summary.csv` in `pass.dir`.
fn extract_sites(
    reader: &BucketReader,
    sites: &[(String, Vec<Entry>)],
    carried: Vec<WrapperRecord>,
    settings: &SiteSettings,
    pass: Pass<'_>,
) -> std::io::Result<()> {
    let Pass {
        dir,
        durability,
        progress,
        marker,
        rejects,
        prior,
    } = pass;
    std::fs::create_dir_all(dir)?;
    write_atomic_as(dir, "articles.jsonl", durability, |articles| {
        write_atomic_as(dir, "wrappers.jsonl", durability, |wrappers| {
            write_atomic_as(dir, "summary.csv", durability, |summary| {
                let mut summary = csv::Writer::from_writer(summary);
                let mut carried = carried.into_iter().peekable();
                let budget = AHEAD_RECORDS_PER_THREAD * rayon::current_num_threads();
                let work = |(site, entries): &(String, Vec<Entry>), backlog: &Backlog| {
                    let pages = entries.iter().filter(|e| !e.feed).count();
                    let html = entries.iter().map(|e| e.html).sum();
                    let out = if settings.holds(pages, html) {
                        let (pages, feeds) = site_input(load(reader, entries, backlog)?);
                        process_site(site, SiteInput::Records(pages), &feeds, settings, backlog)?
                    } else {
                        let (feed_entries, page_entries): (Vec<Entry>, Vec<Entry>) =
                            entries.iter().partition(|e| e.feed);
                        let (_, feeds) = site_input(load(reader, &feed_entries, backlog)?);
                        let input = SiteInput::Bucket {
                            reader,
                            entries: page_entries,
                            spill_dir: dir,
                        };
                        process_site(site, input, &feeds, settings, backlog)?
                    };
                    progress.inc(pages as u64);
                    Ok(out)
                };
                let records = |(_, entries): &(String, Vec<Entry>)| entries.len();
                let write_site = |out: std::io::Result<SiteOutput>| {
                    let mut out = out?;
                    // A site's articles are held or spilled, not both: the
                    // held ones are written first.
                    debug_assert!(out.articles.is_empty() || out.spilled.is_none());
                    out.articles.sort_by(article_order);
                    for a in &out.articles {
                        write_line(articles, a)?;
                    }
                    marker.articles += out.articles.len() as u64;
                    marker.by_wrapper +=
                        out.articles.iter().filter(|a| a.wrapper.is_some()).count() as u64;
                    if let Some(spilled) = out.spilled {
                        let counts = spilled.copy_to(articles)?;
                        marker.articles += counts.articles;
                        marker.by_wrapper += counts.by_wrapper;
                    }
                    out.wrappers.sort_by(wrapper_order);
                    for w in &out.wrappers {
                        // Equal keys: tonight's first, as a stable sort of
                        // tonight's followed by the carried ones.
                        while let Some(c) = carried.next_if(|c| wrapper_order(c, w).is_lt()) {
                            write_line(wrappers, &c)?;
                            marker.wrappers += 1;
                        }
                        write_line(wrappers, w)?;
                    }
                    marker.wrappers += out.wrappers.len() as u64;
                    out.summary
                        .sort_by(|a, b| (&a.site, &a.cluster).cmp(&(&b.site, &b.cluster)));
                    for row in &out.summary {
                        summary.serialize(row).map_err(std::io::Error::other)?;
                    }
                    marker.clusters += out.summary.len() as u64;
                    rejects.extend(out.rejects);
                    for (lang, n) in out.lang_filtered {
                        *marker.lang_filtered.entry(lang).or_default() += n;
                    }
                    prior.add(&out.evidence.counts());
                    Ok(())
                };
                for_each_ordered(sites, budget, records, work, write_site)?;
                for c in carried {
                    write_line(wrappers, &c)?;
                    marker.wrappers += 1;
                }
                summary.flush()
            })
        })
    })
}

/// The site stage's settings, with the saved wrappers of `wrappers` (read
/// for learning: drifted ones are relearned).
pub fn site_settings(
    config: &Config,
    method: Method,
    wrappers: Option<&Path>,
) -> crate::Result<SiteSettings> {
    let mut settings = SiteSettings::new(config, method)?;
    settings.reuse = wrappers
        .map(|path| Reuse::load(path, &config.reuse, true))
        .transpose()?
        .map(Arc::new);
    Ok(settings)
}

#[cfg(test)]
mod tests {
    use super::for_each_ordered;

    #[test]
    fn results_are_handed_on_in_item_order() {
        let items: Vec<u64> = (0..300).collect();
        let mut seen = Vec::new();
        for_each_ordered(
            &items,
            8,
            |_| 1,
            |&i, _| {
                // Uneven work, so that tasks finish out of order.
                std::thread::sleep(std::time::Duration::from_micros((i * 7919) % 700));
                i * 2
            },
            |r| {
                seen.push(r);
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(seen, items.iter().map(|i| i * 2).collect::<Vec<_>>());
    }

    #[test]
    fn an_item_sees_the_items_not_yet_begun() {
        let items: Vec<u32> = (0..40).collect();
        let mut others_wait = Vec::new();
        for_each_ordered(
            &items,
            40,
            |_| 1,
            |_, backlog| {
                std::thread::sleep(std::time::Duration::from_millis(1));
                backlog.others_wait()
            },
            |waiting| {
                others_wait.push(waiting);
                Ok(())
            },
        )
        .unwrap();
        // The first item ran while the others were queued; the last, once
        // every other item had begun.
        assert_eq!((others_wait[0], others_wait[39]), (true, false));
    }

    #[test]
    fn the_window_holds_at_most_the_budget() {
        use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
        // (index, weight): weights 1 to 20, some alone above the budget of
        // 16; every 25th item is slow, so that the others run ahead of it.
        let items: Vec<(usize, usize)> = (0..200).map(|i| (i, 1 + (i * 7) % 20)).collect();
        let (begun, handed_on, widest) = (
            AtomicUsize::new(0),
            AtomicUsize::new(0),
            AtomicUsize::new(0),
        );
        for_each_ordered(
            &items,
            16,
            |&(_, w)| w,
            |&(i, w), _| {
                // Begun and not yet handed on, this item included.
                let ahead = begun.fetch_add(w, SeqCst) + w - handed_on.load(SeqCst);
                widest.fetch_max(ahead, SeqCst);
                if i % 25 == 0 {
                    std::thread::sleep(std::time::Duration::from_millis(3));
                }
                w
            },
            |w| {
                handed_on.fetch_add(w, SeqCst);
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(handed_on.into_inner(), begun.into_inner());
        // The budget, or one item above it alone (weight 20).
        let widest = widest.into_inner();
        assert!(widest <= 20, "{widest} begun ahead of the writer");
    }

    #[test]
    fn a_failing_sink_stops_the_run() {
        let items: Vec<u32> = (0..100).collect();
        let mut seen = 0;
        let result = for_each_ordered(
            &items,
            4,
            |_| 1,
            |&i, _| i,
            |i| {
                seen += 1;
                if i == 10 {
                    return Err(std::io::Error::other("disk full"));
                }
                Ok(())
            },
        );
        assert_eq!(result.unwrap_err().to_string(), "disk full");
        assert_eq!(seen, 11);
    }

    #[test]
    fn a_panicking_item_panics_here_instead_of_hanging() {
        let items: Vec<u32> = (0..50).collect();
        let result = std::panic::catch_unwind(|| {
            for_each_ordered(
                &items,
                4,
                |_| 1,
                |&i, _| {
                    assert_ne!(i, 17, "item 17");
                    i
                },
                |_| Ok(()),
            )
        });
        assert!(result.is_err());
    }
}
