//! `canopy run`: the whole pipeline, stage by stage.
//!
//! 1. ingest: WARC files and feed files → page records, feed items, rejects
//! 2. group pages by site
//! 3. per site, in parallel (rayon): parse, cluster by template, learn a
//!    Forest wrapper per cluster, extract each page ([`crate::site`])
//! 4. write `articles.jsonl`, `wrappers.jsonl`, `summary.csv`,
//!    `rejects.jsonl`, each sorted and written atomically

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::Context;
use canopy_ingest::{Event, IngestOptions};
use canopy_output::{write_jsonl, write_summary};
use canopy_types::{Article, FeedItem, PageRecord, Reject, SourceRef, WrapperRecord};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;

use crate::config::Config;
use crate::method::Method;
use crate::reuse::Reuse;
use crate::site::{process_site, SiteOutput, SiteSettings};

/// What ingest produced.
#[derive(Default)]
pub struct Ingested {
    pub pages: Vec<PageRecord>,
    /// Feed items by normalised URL (the first item seen for a URL wins).
    pub feeds: HashMap<String, FeedItem>,
    pub rejects: Vec<Reject>,
    pub revisits: u64,
    pub skipped: u64,
    pub bytes: u64,
}

/// The outputs of a run, sorted.
#[derive(Default)]
pub struct RunOutput {
    pub articles: Vec<Article>,
    pub wrappers: Vec<WrapperRecord>,
    pub summary: Vec<canopy_output::SummaryRow>,
    pub rejects: Vec<Reject>,
}

/// Whether a file is a feed document (by name), as opposed to a WARC.
fn is_feed_file(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    [".rss", ".atom", ".xml", ".json", ".rdf", ".feed"]
        .iter()
        .any(|ext| name.ends_with(ext))
}

fn is_warc_file(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    [".warc", ".warc.gz", ".arc", ".arc.gz"]
        .iter()
        .any(|ext| name.ends_with(ext))
}

/// Expands folders (recursively, sorted) into WARC and feed files.
pub fn expand_inputs(inputs: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for input in inputs {
        if input.is_dir() {
            let mut stack = vec![input.clone()];
            while let Some(dir) = stack.pop() {
                let mut entries: Vec<PathBuf> = std::fs::read_dir(&dir)
                    .with_context(|| format!("cannot read folder {}", dir.display()))?
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .collect();
                entries.sort();
                for e in entries.into_iter().rev() {
                    if e.is_dir() {
                        stack.push(e);
                    } else if is_warc_file(&e) || is_feed_file(&e) {
                        files.push(e);
                    }
                }
            }
        } else if input.exists() {
            files.push(input.clone());
        } else {
            anyhow::bail!("input not found: {}", input.display());
        }
    }
    files.sort();
    files.dedup();
    Ok(files)
}

/// Reads every input file. A file that cannot be read becomes a reject;
/// the others go on.
pub fn ingest(files: &[PathBuf], config: &Config, progress: &ProgressBar) -> Ingested {
    let options = IngestOptions {
        max_page_bytes: config.ingest.max_page_bytes,
        max_decoded_bytes: config.ingest.max_decoded_bytes,
    };
    let mut out = Ingested::default();
    for file in files {
        let name = file.display().to_string();
        progress.set_message(name.clone());
        out.bytes += std::fs::metadata(file).map(|m| m.len()).unwrap_or(0);
        if is_feed_file(file) && !is_warc_file(file) {
            match canopy_ingest::read_feed_file(file) {
                Ok(items) => add_feed_items(&mut out.feeds, items),
                Err(reject) => out.rejects.push(reject),
            }
            progress.inc(1);
            continue;
        }
        let result = canopy_ingest::read_warc(file, &options, &mut |event| match event {
            Event::Page(page) => out.pages.push(page),
            Event::Feed { items, .. } => add_feed_items(&mut out.feeds, items),
            Event::Reject(r) => out.rejects.push(r),
        });
        match result {
            Ok(stats) => {
                out.revisits += stats.revisits;
                out.skipped += stats.skipped;
            }
            Err(e) => out.rejects.push(Reject {
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
    out
}

fn add_feed_items(feeds: &mut HashMap<String, FeedItem>, items: Vec<FeedItem>) {
    for item in items {
        feeds
            .entry(canopy_ingest::normalize_url(&item.url))
            .or_insert(item);
    }
}

/// Runs the site stage over ingested pages.
pub fn process(
    ingested: &Ingested,
    config: &Config,
    method: Method,
    progress: &ProgressBar,
    reuse: Option<Arc<Reuse>>,
) -> anyhow::Result<RunOutput> {
    let mut settings = SiteSettings::new(config, method)?;
    settings.reuse = reuse.clone();
    let mut sites: BTreeMap<String, Vec<&PageRecord>> = BTreeMap::new();
    for page in &ingested.pages {
        sites
            .entry(canopy_cluster::site_key(&page.url))
            .or_default()
            .push(page);
    }
    for pages in sites.values_mut() {
        pages.sort_by(|a, b| (&a.url, &a.record_id).cmp(&(&b.url, &b.record_id)));
    }
    progress.set_length(sites.len() as u64);
    let sites: Vec<(String, Vec<&PageRecord>)> = sites.into_iter().collect();
    let outputs: Vec<SiteOutput> = sites
        .par_iter()
        // One site per task, so a large site does not hold back the small
        // ones queued behind it on the same worker.
        .with_max_len(1)
        .map(|(site, pages)| {
            let out = process_site(site, pages, &ingested.feeds, &settings);
            progress.inc(1);
            out
        })
        .collect();

    let mut run = RunOutput {
        rejects: ingested.rejects.clone(),
        ..RunOutput::default()
    };
    for out in outputs {
        run.articles.extend(out.articles);
        run.wrappers.extend(out.wrappers);
        run.summary.extend(out.summary);
        run.rejects.extend(out.rejects);
    }
    if let Some(reuse) = &reuse {
        reuse.carry_over(|s| sites.iter().any(|(t, _)| t == s), &mut run);
    }
    run.articles.sort_by(|a, b| {
        (&a.site, &a.cluster, &a.url, &a.record_id).cmp(&(
            &b.site,
            &b.cluster,
            &b.url,
            &b.record_id,
        ))
    });
    // Carried-over wrappers keep their cluster name, which may repeat
    // tonight's: the template breaks the tie.
    run.wrappers.sort_by(|a, b| {
        (&a.site, &a.cluster, &a.template).cmp(&(&b.site, &b.cluster, &b.template))
    });
    run.summary
        .sort_by(|a, b| (&a.site, &a.cluster).cmp(&(&b.site, &b.cluster)));
    run.rejects.sort_by(|a, b| {
        (&a.source.file, a.source.offset, &a.record_id, &a.reason).cmp(&(
            &b.source.file,
            b.source.offset,
            &b.record_id,
            &b.reason,
        ))
    });
    Ok(run)
}

/// Writes the four output files.
pub fn write_outputs(out_dir: &Path, run: &RunOutput) -> anyhow::Result<()> {
    std::fs::create_dir_all(out_dir)
        .with_context(|| format!("cannot create {}", out_dir.display()))?;
    let ctx = || format!("cannot write into {}", out_dir.display());
    write_jsonl(out_dir, "articles.jsonl", &run.articles).with_context(ctx)?;
    write_jsonl(out_dir, "wrappers.jsonl", &run.wrappers).with_context(ctx)?;
    write_summary(out_dir, &run.summary).with_context(ctx)?;
    write_jsonl(out_dir, "rejects.jsonl", &run.rejects).with_context(ctx)?;
    Ok(())
}

/// Writes the articles as a WET file: one `conversion` record per article,
/// carrying its source response's `WARC-Date` and `WARC-Record-ID`.
pub fn write_wet(path: &Path, ingested: &Ingested, run: &RunOutput) -> anyhow::Result<()> {
    let dates: HashMap<&str, &str> = ingested
        .pages
        .iter()
        .filter_map(|p| Some((p.record_id.as_str(), p.date.as_deref()?)))
        .collect();
    let records: Vec<canopy_output::wet::WetRecord<'_>> = run
        .articles
        .iter()
        .map(|a| canopy_output::wet::WetRecord {
            url: &a.url,
            refers_to: &a.record_id,
            date: dates.get(a.record_id.as_str()).copied(),
            text: &a.text,
        })
        .collect();
    canopy_output::wet::write_wet(path, &records)
        .with_context(|| format!("cannot write {}", path.display()))
}

/// A progress bar on stderr, hidden when stderr is not a terminal.
pub fn progress_bar(len: u64, what: &str) -> ProgressBar {
    let bar = ProgressBar::new(len);
    if let Ok(style) = ProgressStyle::with_template(&format!(
        "{{spinner}} {what} [{{bar:30}}] {{pos}}/{{len}} {{wide_msg}}"
    )) {
        bar.set_style(style);
    }
    bar
}

/// Runs the whole pipeline and writes its outputs; returns the run and the
/// ingest figures for the summary line.
pub fn run_all(
    inputs: &[PathBuf],
    out_dir: Option<&Path>,
    config: &Config,
    method: Method,
    reuse: Option<Arc<Reuse>>,
) -> anyhow::Result<(Ingested, RunOutput, f64)> {
    let start = Instant::now();
    let files = expand_inputs(inputs)?;
    let bar = progress_bar(files.len() as u64, "reading");
    let ingested = ingest(&files, config, &bar);
    bar.finish_and_clear();
    let bar = progress_bar(0, "sites");
    let run = process(&ingested, config, method, &bar, reuse)?;
    bar.finish_and_clear();
    if let Some(dir) = out_dir {
        write_outputs(dir, &run)?;
    }
    Ok((ingested, run, start.elapsed().as_secs_f64()))
}
