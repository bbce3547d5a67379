//! `canopy run`: the whole pipeline as the three scale-out steps in one
//! process, through a work folder (`crates/buckets`), so that memory follows
//! the largest site rather than the crawl:
//!
//! 1. partition (rank 0 of 1): stream the WARC and feed files once, spill
//!    page records and feed items to per-site buckets ([`crate::partition`])
//! 2. extract every bucket (rayon across buckets and, inside, across sites):
//!    parse, cluster by template, learn a Forest wrapper per cluster,
//!    extract each page ([`crate::extract`], [`canopy_site`]); in a work
//!    folder of the run's own, a bucket's pages are deleted once extracted
//! 3. merge the buckets' sorted outputs into `articles.jsonl`,
//!    `wrappers.jsonl`, `summary.csv`, `rejects.jsonl` ([`crate::merge`]),
//!    and `articles.parquet` with `--format parquet`,
//!    in a new folder that then takes the place of `--out` in one step
//!    (`canopy_output::switch`, called by `main.rs`)

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use crate::error::Context;
use canopy_buckets::Layout;
use canopy_output::lock::{FolderLock, LockMode};
use canopy_output::Durability;
use canopy_types::Article;
use indicatif::ProgressBar;

use crate::config::Config;
use crate::merge::Merged;
use canopy_site::Method;
use canopy_site::Reuse;
use canopy_site::SiteSettings;

/// What a run shows on the way: the progress bars it moves (bytes read,
/// then pages extracted) and the notes it makes (a kept work folder
/// started over, a lock the file system does not keep, an output switch
/// that was not one step). [`Progress::hidden`] shows nothing; the command
/// line draws styled bars and prints the notes on stderr.
pub struct Progress {
    /// Input bytes read (the partition).
    pub reading: ProgressBar,
    /// Pages extracted or left out as duplicates, of all the partition
    /// found (its length is set once the partition is done).
    pub pages: ProgressBar,
    /// Called with each note, a sentence without a prefix.
    pub note: fn(&str),
}

impl Progress {
    /// Bars that draw nothing, notes that go nowhere.
    pub fn hidden() -> Progress {
        Progress {
            reading: ProgressBar::hidden(),
            pages: ProgressBar::hidden(),
            note: |_| {},
        }
    }
}

/// How many feeds rank `rank` rejected on reading (stage `feed`), and the
/// first one's file and reason, from the work folder's rejects.
fn feed_rejects(work: &Path, rank: u32) -> (usize, Option<String>) {
    let path = work
        .join(crate::partition::REJECTS_DIR)
        .join(crate::partition::rank_rejects_file(rank));
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let feeds: Vec<canopy_types::Reject> = text
        .lines()
        .filter_map(|line| serde_json::from_str::<canopy_types::Reject>(line).ok())
        .filter(|r| r.stage == canopy_types::Stage::Feed)
        .collect();
    let first = feeds
        .first()
        .map(|r| format!("{}: {}", r.source.file, r.reason));
    (feeds.len(), first)
}

/// Runs the whole pipeline into `out_dir` (the folder a run's new outputs
/// are written into before the switch, `canopy_output::switch`) through
/// the work folder `work` (default: a temporary folder inside `out_dir`,
/// removed at the end; a given one is locked and kept, and its finished
/// ranks and buckets are not redone if they were made from the same
/// inputs and settings, `expect` being the extraction's). Returns what
/// the merge wrote (the run's figures) and the run's wall time.
#[allow(clippy::too_many_arguments)]
pub fn run_all(
    inputs: &[PathBuf],
    out_dir: &Path,
    work: Option<&Path>,
    config: &Config,
    method: Method,
    reuse: Option<Arc<Reuse>>,
    expect: &serde_json::Value,
    progress: &Progress,
) -> crate::Result<(Merged, f64)> {
    let start = Instant::now();
    let inputs = crate::inputs::expand(inputs)?;
    std::fs::create_dir_all(out_dir)
        .with_context(|| format!("cannot create {}", out_dir.display()))?;
    // A work folder of our own is scratch, removed at the end: no fsyncs
    // (about 400 of them, seconds on a busy disk). A given one is kept for
    // reruns, so its files are synced like the scale-out steps'.
    let scratch = work.is_none();
    let temp;
    let _lock;
    let (work, durability) = match work {
        Some(w) => {
            std::fs::create_dir_all(w)
                .with_context(|| format!("cannot create work folder {}", w.display()))?;
            let lock = FolderLock::try_lock(w, LockMode::Exclusive)?;
            if let Some(warning) = lock.warning() {
                (progress.note)(&warning.to_string());
            }
            _lock = lock;
            (w, Durability::Synced)
        }
        None => {
            temp = tempfile::Builder::new()
                .prefix(".work-")
                .tempdir_in(out_dir)
                .with_context(|| format!("cannot create a work folder in {}", out_dir.display()))?;
            (temp.path(), Durability::Unsynced)
        }
    };
    // Fewer buckets for smaller inputs (each costs files); same outputs.
    // A stream's size is not known before it is read: as many buckets as
    // for a large input, so that a large stream's sites are spread.
    let streams = inputs.files.iter().any(|f| crate::inputs::is_stream(f));
    let input_bytes: u64 = inputs
        .files
        .iter()
        .map(|f| std::fs::metadata(f).map_or(0, |m| m.len()))
        .sum();
    let layout = Layout {
        world_size: 1,
        buckets: if streams {
            canopy_buckets::DEFAULT_BUCKETS
        } else {
            canopy_buckets::buckets_for(input_bytes)
        },
    };
    let mut fingerprint = crate::fingerprint::work_fingerprint(&inputs.files, layout, config);
    // Standard input is another stream at every run: a kept work folder
    // read from it is never reused.
    for input in &mut fingerprint.inputs {
        if input.path == crate::inputs::STDIN {
            input.mtime_ns = Some(crate::fingerprint::now_ns());
        }
    }
    if !scratch {
        reuse_or_start_over(work, &fingerprint, progress.note)?;
    }
    let bar = &progress.reading;
    let (rank, _) = crate::partition::partition(
        &inputs,
        &fingerprint,
        work,
        0,
        layout,
        config,
        durability,
        bar,
    )?;
    bar.finish_and_clear();
    // A method that reads feed items would quietly be another without
    // them (tf-idf signifiers, or no text): refused instead.
    if canopy_site::needs_feeds(config, method) && rank.feeds == 0 {
        let with = if method.uses_feeds() {
            ""
        } else {
            " with --signifiers feeds"
        };
        // The run stops before any output: a feed it could not read says
        // why here, or the operator would look for feeds that were given.
        return Err(crate::Error::Usage(match feed_rejects(work, 0) {
            (0, _) => format!(
                "--method {method}{with} needs feeds, and the inputs hold none: give feed \
                 files (.rss, .atom, .xml, .json) or WARCs with feed responses"
            ),
            (1, first) => format!(
                "--method {method}{with} needs feeds, and the feed given could not be read: {}",
                first.unwrap_or_default()
            ),
            (n, first) => format!(
                "--method {method}{with} needs feeds, and none of the {n} feeds given could \
                 be read (the first: {})",
                first.unwrap_or_default()
            ),
        }));
    }

    // One bucket after another, sites in parallel inside each, from this
    // thread (outside the pool), which writes each site's outputs in order
    // while the pool works on the next sites (`extract_bucket`).
    let extracted = work.join("extracted");
    let mut settings = SiteSettings::new(config, method)?;
    settings.reuse = reuse;
    let digest = fingerprint.digest();
    let mut told = false;
    let bar = &progress.pages;
    bar.set_length(rank.pages);
    let stats = std::thread::scope(|scope| {
        for k in 0..rank.buckets {
            let dir = canopy_buckets::bucket_out_dir(&extracted, k);
            // A bucket of a kept work folder extracted with other settings
            // is extracted again (the partition is reused).
            if let Some(done) = canopy_buckets::read_bucket_marker(&dir)? {
                let differences = done.differences(&digest, expect);
                if !differences.is_empty() {
                    if !told {
                        (progress.note)(&format!(
                            "--work {}: its buckets were extracted with other settings \
                             ({}): extracting them again",
                            work.display(),
                            canopy_buckets::fingerprint::describe(&differences)
                        ));
                        told = true;
                    }
                    std::fs::remove_dir_all(&dir)
                        .with_context(|| format!("cannot remove {}", dir.display()))?;
                }
            }
            crate::extract::extract_bucket(work, k, &dir, &settings, expect, durability, bar)?;
            // In a work folder of our own, a bucket's pages are not read
            // again: their disk space is freed as the run goes, on a thread
            // of its own while the next bucket (or the merge) runs. What
            // this misses, the folder's removal at the end gets.
            if scratch {
                let pages = canopy_buckets::bucket_dir(work, k);
                scope.spawn(move || std::fs::remove_dir_all(pages));
            }
        }
        bar.finish_and_clear();
        crate::merge::merge(work, &extracted, out_dir)
    })?;
    Ok((stats, start.elapsed().as_secs_f64()))
}

/// Makes a given work folder ready for a partition with `fingerprint`:
/// one made from the same inputs and settings is reused (its finished
/// steps are skipped); one of `run`'s made from others is started over,
/// with a line on stderr naming what differs (what a nightly job rerun on
/// new files with the same `--work` needs); a scale-out partition (more
/// than one rank) is refused, being another job's.
fn reuse_or_start_over(
    work: &Path,
    fingerprint: &canopy_buckets::WorkFingerprint,
    note: fn(&str),
) -> crate::Result<()> {
    let old = canopy_buckets::read_work_fingerprint(work)?;
    if old.as_ref() == Some(fingerprint) {
        return Ok(());
    }
    let marker = canopy_buckets::read_rank_marker(work, 0)?;
    let world_size = old
        .as_ref()
        .map(|f| f.world_size)
        .or(marker.as_ref().map(|m| m.world_size));
    if let Some(w) = world_size.filter(|&w| w != 1) {
        return Err(crate::Error::Usage(format!(
            "--work {} holds a partition of {w} ranks (canopy partition): run starts over \
             only its own work folders; give run another --work",
            work.display()
        )));
    }
    let why = match (&old, &marker) {
        (Some(old), _) => Some(canopy_buckets::fingerprint::describe(
            &old.differences(fingerprint),
        )),
        (None, Some(_)) => Some("made by an older canopy, without a fingerprint".to_string()),
        // No partition began: anything of one is leftovers, removed
        // without a word.
        (None, None) => None,
    };
    if let Some(why) = why {
        note(&format!(
            "--work {}: made from other inputs or settings ({why}): starting it over",
            work.display()
        ));
    }
    canopy_buckets::clear_work(work)
        .with_context(|| format!("cannot clear work folder {}", work.display()))
}

/// Writes the articles of `articles` (an `articles.jsonl`) as a WET file:
/// one `conversion` record per article, carrying its source response's
/// `WARC-Date` and `WARC-Record-ID`. The file is read twice (the `warcinfo`
/// record's id and date depend on all the articles), one article at a time.
pub fn write_wet(path: &Path, articles: &Path) -> crate::Result<()> {
    let each_article =
        |each: &mut dyn FnMut(&canopy_output::wet::WetRecord<'_>) -> std::io::Result<()>| {
            let file = std::fs::File::open(articles)?;
            for (n, line) in std::io::BufRead::lines(std::io::BufReader::new(file)).enumerate() {
                let a: Article = serde_json::from_str(&line?).map_err(|e| {
                    std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        format!("line {} of {}: {e}", n + 1, articles.display()),
                    )
                })?;
                each(&canopy_output::wet::WetRecord {
                    url: &a.url,
                    refers_to: &a.record_id,
                    date: a.warc_date.as_deref(),
                    text: &a.text,
                })?;
            }
            Ok(())
        };
    canopy_output::wet::write_wet_streamed(path, each_article).with_context(|| {
        format!(
            "cannot write {} from {}",
            path.display(),
            articles.display()
        )
    })
}

/// How many clusters of the run in `out_dir` got each `wrapper` status
/// (`reused`, `relearned`, …), from its `summary.csv`.
pub fn wrapper_statuses(out_dir: &Path) -> crate::Result<BTreeMap<String, usize>> {
    let path = out_dir.join("summary.csv");
    let invalid = |e: csv::Error| crate::Error::Invalid(format!("{}: {e}", path.display()));
    let mut reader = csv::Reader::from_path(&path).map_err(invalid)?;
    let column = reader
        .headers()
        .map_err(invalid)?
        .iter()
        .position(|h| h == "wrapper")
        .ok_or_else(|| crate::Error::Invalid(format!("no wrapper column in {}", path.display())))?;
    let mut counts = BTreeMap::new();
    for row in reader.records() {
        let row = row.map_err(invalid)?;
        *counts.entry(row[column].to_string()).or_insert(0) += 1;
    }
    Ok(counts)
}
