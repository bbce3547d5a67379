//! One page alone: [`extract_page`].

use std::collections::HashMap;

use canopy_site::{process_site, Backlog, SiteInput, SiteOutput};
use canopy_types::{Article, PageRecord, Reject};

use crate::Settings;

/// A page as `canopy run` reads one: `html` decoded to UTF-8 (byte order
/// mark, `charset` of `content_type`, `<meta>` prescan, then chardetng),
/// with no WARC record around it.
pub fn page_record(url: &str, html: &[u8], content_type: Option<&str>) -> PageRecord {
    canopy_ingest::page_record(
        url.to_string(),
        String::new(),
        String::new(),
        html,
        content_type,
    )
}

/// The article of one page alone, as `canopy page` prints it: the page
/// goes through the site path as a site of one page (the page-level
/// extractor, with the shipped prior). A page that gives no article (no
/// text, over a budget, no site in its URL) is a [`Reject`] saying why.
pub fn extract_page(record: PageRecord, settings: &Settings) -> Result<Article, Box<Reject>> {
    let site_settings = settings
        .site()
        .map_err(|e| Box::new(reject(&record, "settings", e.to_string())))?;
    let site = canopy_cluster::site_key(&record.url);
    let kept = record.clone();
    let out = process_site(
        &site,
        SiteInput::Records(vec![record]),
        &HashMap::new(),
        &site_settings,
        &Backlog::default(),
    )
    .map_err(|e| Box::new(reject(&kept, "extract", e.to_string())))?;
    only_article(out, &kept)
}

/// The article of a site of one page, or why there is none.
pub(crate) fn only_article(out: SiteOutput, record: &PageRecord) -> Result<Article, Box<Reject>> {
    match (
        out.articles.into_iter().next(),
        out.rejects.into_iter().next(),
    ) {
        (Some(article), _) if !article.text.trim().is_empty() => Ok(article),
        (Some(_), _) => Err(Box::new(reject(
            record,
            "extract",
            "the page has no article text".into(),
        ))),
        (None, Some(reject)) => Err(Box::new(reject)),
        (None, None) => Err(Box::new(reject(
            record,
            "extract",
            "nothing extracted".into(),
        ))),
    }
}

/// A reject of `record` at `stage`.
pub(crate) fn reject(record: &PageRecord, stage: &str, reason: String) -> Reject {
    Reject {
        source: record.source.clone(),
        record_id: Some(record.record_id.clone()),
        url: Some(record.url.clone()),
        stage: stage.to_string(),
        reason,
    }
}
