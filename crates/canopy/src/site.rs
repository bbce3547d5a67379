//! All pages of one site in memory: [`extract_site`].

use std::collections::HashMap;

use canopy_buckets::{Entry, InputPos};
use canopy_output::SummaryRow;
use canopy_site::dedup::{self, DedupMode, Line, Named};
use canopy_site::{process_site, Backlog, SiteInput, SiteSettings};
use canopy_types::{Article, PageRecord, Reject, WrapperRecord};

use crate::{Error, Result, Settings};

/// A page left out as a duplicate: one line of `duplicates.jsonl`.
pub type Duplicate = Line;

/// What one site gives: the lines `canopy run` writes for it, in the same
/// order (`serde_json` of each item is its line, of each row its CSV row).
#[derive(Debug, Clone, Default)]
pub struct SiteResult {
    /// `articles.jsonl`: one per page kept, sorted by (cluster, URL).
    pub articles: Vec<Article>,
    /// `wrappers.jsonl`: one per template that got a wrapper.
    pub wrappers: Vec<WrapperRecord>,
    /// `summary.csv`: one row per template cluster.
    pub summary: Vec<SummaryRow>,
    /// Pages that gave no article, with their reasons.
    pub rejects: Vec<Reject>,
    /// `duplicates.jsonl`: pages left out (`dedup.mode`).
    pub duplicates: Vec<Duplicate>,
}

/// The site key pages are grouped by (their registrable domain's host):
/// what a scale-out job shuffles records on, so that each site's pages
/// meet in one [`extract_site`] call.
pub fn site_key(url: &str) -> String {
    canopy_cluster::site_key(url)
}

/// Everything `canopy run` does to one site, in process: `records` are the
/// site's pages in the order they were read (that order breaks ties, as a
/// run's input order does); exact duplicates are left out
/// (`dedup.mode`), the rest are grouped by template, a wrapper is learned
/// and checked per template, and every page gets its article from its
/// wrapper or from the page-level path.
///
/// Pages of several sites are taken as one site (the first page's key):
/// group them by [`site_key`] first.
pub fn extract_site(records: Vec<PageRecord>, settings: &Settings) -> Result<SiteResult> {
    extract_with(records, &settings.site()?, settings.config.dedup.mode)
}

/// [`extract_site`] with the site stage's settings.
pub(crate) fn extract_with(
    records: Vec<PageRecord>,
    site_settings: &SiteSettings,
    dedup: DedupMode,
) -> Result<SiteResult> {
    let Some(first) = records.first() else {
        return Ok(SiteResult::default());
    };
    let site = site_key(&first.url);
    let (kept, duplicates) = leave_out_duplicates(&site, records, dedup);
    let out = process_site(
        &site,
        SiteInput::Records(kept),
        &HashMap::new(),
        site_settings,
        &Backlog::default(),
    )
    .map_err(|error| Error::Io {
        what: format!("site {site}"),
        error,
    })?;
    let mut result = SiteResult {
        articles: out.articles,
        wrappers: out.wrappers,
        summary: out.summary,
        rejects: out.rejects,
        duplicates,
    };
    result.articles.sort_by(crate::order::article_order);
    result.wrappers.sort_by(crate::order::wrapper_order);
    result
        .summary
        .sort_by(|a, b| (&a.site, &a.cluster).cmp(&(&b.site, &b.cluster)));
    crate::order::sort_rejects(&mut result.rejects);
    Ok(result)
}

/// The pages processed (sorted by URL, then read order, as a run hands
/// them to the site stage) and the duplicates left out, by the rule of
/// `canopy_site::dedup` on the pages' positions in `records`.
fn leave_out_duplicates(
    site: &str,
    records: Vec<PageRecord>,
    mode: DedupMode,
) -> (Vec<PageRecord>, Vec<Duplicate>) {
    let entries: Vec<Entry> = records
        .iter()
        .enumerate()
        .map(|(seq, page)| Entry {
            rank: 0,
            pos: InputPos {
                file: 0,
                seq: u32::try_from(seq).unwrap_or(u32::MAX),
            },
            feed: false,
            offset: seq as u64,
            len: 0,
            html: page.html.len() as u64,
            keys: Some(dedup::page_keys(page)),
        })
        .collect();
    let (kept, dups) = dedup::select(&entries, mode);
    let at = |e: &Entry| e.offset as usize;
    let mut lines: Vec<Line> = dups
        .iter()
        .map(|d| {
            Line::new(
                site,
                Named::of(&records[at(&d.entry)]),
                d.reason,
                Named::of(&records[at(&d.kept)]),
            )
        })
        .collect();
    dedup::sort_lines(&mut lines);
    let mut keep = vec![false; records.len()];
    for e in &kept {
        keep[at(e)] = true;
    }
    let mut pages: Vec<PageRecord> = records
        .into_iter()
        .zip(keep)
        .filter_map(|(page, keep)| keep.then_some(page))
        .collect();
    pages.sort_by(|a, b| (&a.url, &a.record_id).cmp(&(&b.url, &b.record_id)));
    (pages, lines)
}
