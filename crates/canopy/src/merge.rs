//! `canopy merge`: the buckets' sorted outputs and the ranks' rejects,
//! combined by a streaming k-way merge into the files `run` writes (and
//! the buckets' prior counts summed into `prior.tsv`), in the same order,
//! into a new folder that [`mark_complete`] ends with `_SUCCESS` and
//! `canopy_output::switch` puts in place of the output folder in one step.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::error::{ensure, Context};
use canopy_buckets::{
    article_key, bucket_out_dir, duplicate_key, merge_csv, merge_jsonl, reject_key, wrapper_key,
};
use canopy_output::switch::OutputSwitch;
use canopy_output::write_atomic;
use canopy_site::config::DedupConfig;
use canopy_site::dedup::DedupMode;
use std::io::Write;

use crate::near_dedup::{NearFilter, Removed};

/// What a finished run (or merge) adds up to, for the summary line.
#[derive(Debug, Default, Clone)]
pub struct RunStats {
    /// Input bytes read.
    pub bytes: u64,
    /// Records read ([`canopy_buckets::RankMarker::records`]): each is one
    /// of the articles, feeds, revisits, skips and rejects below.
    pub records: u64,
    /// Articles written.
    pub articles: u64,
    /// Articles served by a wrapper.
    pub by_wrapper: u64,
    /// Wrappers written.
    pub wrappers: u64,
    /// Template clusters (rows of `summary.csv`).
    pub clusters: u64,
    /// Feed records and files read.
    pub feeds: u64,
    /// WARC revisit records.
    pub revisits: u64,
    /// Records skipped on reading (requests, metadata, non-HTML payloads,
    /// empty bodies).
    pub skipped: u64,
    /// `skipped` by reason (`canopy_ingest::Skip::name`).
    pub skipped_by: BTreeMap<String, u64>,
    /// Pages left out as duplicates (lines of `duplicates.jsonl`): skipped
    /// records too. Exact duplicates, and `near_duplicates`.
    pub duplicates: u64,
    /// Of the `duplicates`, articles left out as near duplicates
    /// (`dedup.mode = "near"`).
    pub near_duplicates: u64,
    /// Lines of `rejects.jsonl`: rejected records, and `wrapper_rejects`.
    pub rejects: u64,
    /// Lines of the saved wrappers file that could not be used.
    pub wrapper_rejects: u64,
    /// Feed items dropped for speaking for another site than their feed's.
    pub feed_items_foreign: u64,
    /// Pages whose article was left out for its language
    /// (`run.languages`, `--lang`), by language code.
    pub lang_filtered: BTreeMap<String, u64>,
}

/// `", N left out by language (zh 38, ja 2)"` for the articles left out
/// by `run.languages` (`--lang`), most first; empty when none were.
pub fn lang_filtered_note(filtered: &BTreeMap<String, u64>) -> String {
    let total: u64 = filtered.values().sum();
    if total == 0 {
        return String::new();
    }
    let mut by_count: Vec<(&String, &u64)> = filtered.iter().collect();
    by_count.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    let each: Vec<String> = by_count.iter().map(|(l, n)| format!("{l} {n}")).collect();
    format!(", {total} left out by language ({})", each.join(", "))
}

impl RunStats {
    /// The records whose outcome the counts hold.
    pub fn accounted(&self) -> u64 {
        self.articles
            + self.feeds
            + self.revisits
            + self.all_skipped()
            + self.record_rejects()
            + self.lang_filtered.values().sum::<u64>()
    }

    /// The records skipped: on reading, and as duplicates.
    pub fn all_skipped(&self) -> u64 {
        self.skipped + self.duplicates
    }

    /// The rejects that are records of the inputs.
    fn record_rejects(&self) -> u64 {
        self.rejects - self.wrapper_rejects
    }

    /// `", N near"` when articles were left out as near duplicates.
    pub fn near_note(&self) -> String {
        if self.near_duplicates == 0 {
            String::new()
        } else {
            format!(", {} near", self.near_duplicates)
        }
    }

    /// The run's figures, for its summary on stderr.
    pub fn records_line(&self) -> String {
        let mut line = format!(
            "{} records read: {} articles, {} feeds, {} revisits, {} skipped ({} duplicates{}), {} rejected",
            self.records,
            self.articles,
            self.feeds,
            self.revisits,
            self.all_skipped(),
            self.duplicates,
            self.near_note(),
            self.record_rejects()
        );
        line += &lang_filtered_note(&self.lang_filtered);
        if self.wrapper_rejects > 0 {
            line += &format!(
                "; {} lines of the saved wrappers rejected",
                self.wrapper_rejects
            );
        }
        line
    }
}

/// What [`merge`] wrote.
#[derive(Debug, Clone)]
pub struct Merged {
    /// The counts, for the summary line and `stats.json`.
    pub stats: RunStats,
    /// The method the buckets were extracted with (`--method`).
    pub method: String,
    /// Whether `articles.parquet` was written (the buckets were extracted
    /// with `--format parquet`).
    pub parquet: bool,
}

/// Merges the outputs of every bucket under `buckets_root/buckets/` and the
/// rejects of every rank of `work` into `out`, and converts the articles
/// to `articles.parquet` when the buckets were extracted with `--format
/// parquet`. Every bucket must have been extracted from this partition,
/// all with the same settings.
pub fn merge(work: &Path, buckets_root: &Path, out: &Path) -> crate::Result<Merged> {
    let partition = canopy_buckets::complete_layout(work)?;
    let (layout, ranks) = (partition.layout, partition.ranks);
    let digest = partition.fingerprint.digest();
    // The first bucket's settings, which every other must share.
    let mut settings: Option<(u32, serde_json::Value)> = None;
    let mut foreign = Vec::new();
    let mut stats = RunStats::default();
    for r in &ranks {
        stats.bytes += r.bytes;
        stats.records += r.records;
        stats.feeds += r.feeds;
        stats.revisits += r.revisits;
        stats.skipped += r.skipped;
        for (reason, n) in &r.skipped_by {
            *stats.skipped_by.entry(reason.clone()).or_default() += n;
        }
        stats.rejects += r.rejects;
        stats.feed_items_foreign += r.feed_items_foreign;
    }
    let mut dirs = Vec::with_capacity(layout.buckets as usize);
    let mut missing = Vec::new();
    for k in 0..layout.buckets {
        let dir = bucket_out_dir(buckets_root, k);
        match canopy_buckets::read_bucket_marker(&dir)? {
            Some(m) => {
                let theirs = settings.get_or_insert_with(|| (k, m.settings.clone()));
                let differences = m.differences(&digest, &theirs.1);
                if !differences.is_empty() {
                    foreign.push(format!(
                        "bucket {k} ({} vs bucket {})",
                        canopy_buckets::fingerprint::describe(&differences),
                        theirs.0
                    ));
                }
                stats.articles += m.articles;
                stats.by_wrapper += m.by_wrapper;
                stats.wrappers += m.wrappers;
                stats.clusters += m.clusters;
                stats.rejects += m.rejects;
                stats.wrapper_rejects += m.wrapper_rejects;
                stats.duplicates += m.duplicates;
                for (lang, n) in m.lang_filtered {
                    *stats.lang_filtered.entry(lang).or_default() += n;
                }
            }
            None => missing.push(k),
        }
        dirs.push(dir);
    }
    ensure!(
        Usage,
        missing.is_empty(),
        "{} of {} buckets have not been extracted into {} (bucket {:?}{})",
        missing.len(),
        layout.buckets,
        buckets_root.join("buckets").display(),
        &missing[..missing.len().min(10)],
        if missing.len() > 10 { ", …" } else { "" }
    );
    ensure!(
        Usage,
        foreign.is_empty(),
        "the buckets in {} were not all extracted from the partition in {} with the same \
         settings: {}{}. Extract them again into a fresh --out, with the same flags for every bucket",
        buckets_root.join("buckets").display(),
        work.display(),
        foreign.iter().take(5).cloned().collect::<Vec<_>>().join("; "),
        if foreign.len() > 5 { "; …" } else { "" }
    );
    // Every record read ends as one article, feed, revisit, skip or
    // reject: any difference is a record lost (or counted twice).
    ensure!(
        Invalid,
        stats.records == stats.accounted(),
        "the records do not add up ({}): canopy lost track of {} records; this is a bug",
        stats.records_line(),
        stats.records.abs_diff(stats.accounted())
    );
    let files = |name: &str| -> Vec<PathBuf> { dirs.iter().map(|d| d.join(name)).collect() };
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let ctx = || format!("cannot write into {}", out.display());
    // The ranks' (ingest) and the buckets' (time budget) rejects.
    let rejects: Vec<PathBuf> = (0..layout.world_size)
        .map(|r| {
            work.join(crate::partition::REJECTS_DIR)
                .join(crate::partition::rank_rejects_file(r))
        })
        .chain(files("rejects.jsonl"))
        .collect();
    // Near deduplication (`dedup.mode = "near"`) reads the settings the
    // buckets were extracted with.
    let near = settings
        .as_ref()
        .and_then(|(_, s)| s.get("config")?.get("dedup"))
        .and_then(|d| serde_json::from_value::<DedupConfig>(d.clone()).ok())
        .filter(|d| d.mode == DedupMode::Near);
    // `articles.jsonl`, most of the bytes, on this thread while another
    // merges the smaller files: the end of a run is serial otherwise.
    // `duplicates.jsonl` waits for the near duplicates, if any are sought.
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
            })?;
            if near.is_some() {
                return Ok(());
            }
            write_atomic(out, "duplicates.jsonl", |w| {
                merge_jsonl(&files("duplicates.jsonl"), duplicate_key, w).map(drop)
            })
        });
        let articles = merge_articles(&files("articles.jsonl"), out, near.as_ref());
        let others = others
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (articles, others)
    });
    let removed = articles.with_context(ctx)?;
    others.with_context(ctx)?;
    if near.is_some() {
        write_near_duplicates(&removed, &files("duplicates.jsonl"), out).with_context(ctx)?;
        let n = removed.len() as u64;
        stats.articles -= n;
        stats.by_wrapper -= removed.iter().filter(|r| r.by_wrapper).count() as u64;
        stats.duplicates += n;
        stats.near_duplicates = n;
    }
    // What the wrappers taught the page-level prior, summed over buckets.
    let mut prior = canopy_extract::PriorCounts::default();
    for path in files("prior.tsv") {
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
        };
        let counts = canopy_extract::PriorCounts::from_tsv(&text)
            .map_err(|e| crate::Error::Invalid(format!("{}: {e}", path.display())))?;
        prior.add(&counts);
    }
    write_atomic(out, "prior.tsv", |w| w.write_all(prior.to_tsv().as_bytes())).with_context(ctx)?;
    // Every bucket's settings are the first's (checked above).
    let settings = settings.map(|(_, s)| s).unwrap_or_default();
    let formats = |name: &str| {
        settings["config"]["run"]["formats"]
            .as_array()
            .is_some_and(|f| f.iter().any(|f| f == name))
    };
    let parquet = formats("parquet");
    if parquet {
        let renderings = canopy_parquet::Renderings {
            html: formats("html"),
            markdown: formats("markdown"),
        };
        write_parquet(out, renderings)?;
    }
    Ok(Merged {
        stats,
        method: settings["method"].as_str().unwrap_or_default().to_string(),
        parquet,
    })
}

/// Merges the buckets' `articles` into `out/articles.jsonl`, leaving out
/// the near duplicates when `near` says so; returns those.
fn merge_articles(
    articles: &[PathBuf],
    out: &Path,
    near: Option<&DedupConfig>,
) -> std::io::Result<Vec<Removed>> {
    let mut removed = Vec::new();
    write_atomic(out, "articles.jsonl", |w| match near {
        None => merge_jsonl(articles, article_key, w).map(drop),
        Some(config) => {
            let mut filter = NearFilter::new(w, config);
            merge_jsonl(articles, article_key, &mut filter)?;
            removed = filter.finish()?;
            Ok(())
        }
    })?;
    Ok(removed)
}

/// `out/duplicates.jsonl`: the buckets' exact duplicates (`exact`) and the
/// near duplicates `removed`, in one order.
fn write_near_duplicates(
    removed: &[Removed],
    exact: &[PathBuf],
    out: &Path,
) -> std::io::Result<()> {
    let mut listing = tempfile::Builder::new()
        .prefix(".near-duplicates-")
        .tempfile_in(out)?;
    {
        let mut w = std::io::BufWriter::new(listing.as_file_mut());
        crate::near_dedup::write_listing(removed, &out.join("articles.jsonl"), &mut w)?;
        w.flush()?;
    }
    let inputs: Vec<PathBuf> = exact
        .iter()
        .cloned()
        .chain([listing.path().to_path_buf()])
        .collect();
    write_atomic(out, "duplicates.jsonl", |w| {
        merge_jsonl(&inputs, duplicate_key, w).map(drop)
    })
}

/// `out/articles.parquet` from `out/articles.jsonl` (`canopy_parquet`).
fn write_parquet(out: &Path, renderings: canopy_parquet::Renderings) -> crate::Result<()> {
    let jsonl = out.join("articles.jsonl");
    let articles =
        std::fs::File::open(&jsonl).with_context(|| format!("cannot read {}", jsonl.display()))?;
    canopy_output::write_atomic_send(out, PARQUET, canopy_output::Durability::Synced, |w| {
        canopy_parquet::write_articles(std::io::BufReader::new(articles), w, renderings).map(drop)
    })
    .with_context(|| format!("cannot write {} from {}", PARQUET, jsonl.display()))
}

/// The files every output set holds: what [`merge`] writes, and
/// `stats.json` (`crate::stats`), written by the run or merge after it.
pub const OUTPUTS: [&str; 7] = [
    "articles.jsonl",
    "wrappers.jsonl",
    "summary.csv",
    "rejects.jsonl",
    "duplicates.jsonl",
    "prior.tsv",
    crate::stats::STATS,
];

/// The articles as Parquet, in the set with `--format parquet`.
pub const PARQUET: &str = "articles.parquet";

/// The names of an output set in `--out`: the [`OUTPUTS`], [`PARQUET`]
/// when written, `_SUCCESS`, and the WET file when it is written inside
/// `--out` (`wet`, its name).
pub fn set_names(wet: Option<&str>, parquet: bool) -> Vec<&str> {
    OUTPUTS
        .iter()
        .copied()
        .chain(parquet.then_some(PARQUET))
        .chain([canopy_output::success::SUCCESS])
        .chain(wet)
        .collect()
}

/// Writes `out/_SUCCESS` (`canopy_output::success`) over the [`OUTPUTS`],
/// [`PARQUET`] if `parquet`, and `extra` (the `--wet` file: a name in
/// `out`, or an absolute path elsewhere): call it after the run's last
/// output.
pub fn mark_complete(out: &Path, parquet: bool, extra: Option<&Path>) -> crate::Result<()> {
    let files: Vec<PathBuf> = OUTPUTS
        .iter()
        .copied()
        .chain(parquet.then_some(PARQUET))
        .map(PathBuf::from)
        .chain(extra.map(Path::to_path_buf))
        .collect();
    canopy_output::success::finish(out, &files)
        .with_context(|| format!("cannot write {}/_SUCCESS", out.display()))
}

/// Puts the set written into `switch`'s folder in place of `--out`
/// (`wet`: the WET file's name when it is part of the set; `parquet`:
/// whether `articles.parquet` is), with a `note` when that was not one
/// step.
pub fn switch_in(
    switch: &mut OutputSwitch,
    wet: Option<&str>,
    parquet: bool,
    note: fn(&str),
) -> crate::Result<()> {
    let switched = switch
        .commit(&set_names(wet, parquet))
        .with_context(|| format!("cannot put the new outputs in {}", switch.out().display()))?;
    if let Some(text) = switched.note {
        note(&text);
    }
    Ok(())
}
