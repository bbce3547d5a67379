//! One page alone: [`extract_page`].

use std::collections::HashMap;

use canopy_site::{process_site, Backlog, SiteInput, SiteSettings};
use canopy_types::{Article, PageRecord, Reject, Stage};

use crate::Settings;

/// A page as `canopy run` reads one: `html` decoded to UTF-8 (byte order
/// mark, `charset` of `content_type`, `<meta>` prescan, then chardetng),
/// with no WARC record around it; rejected as `canopy run` rejects such a
/// response when the bytes are binary, not text.
pub fn page_record(
    url: &str,
    html: &[u8],
    content_type: Option<&str>,
) -> Result<PageRecord, Box<Reject>> {
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
        .map_err(|e| Box::new(reject(&record, Stage::Settings, e.to_string())))?;
    alone(record, &site_settings)
}

/// The article of `record` as a site of one page, or why there is none.
pub(crate) fn alone(record: PageRecord, settings: &SiteSettings) -> Result<Article, Box<Reject>> {
    let site = canopy_cluster::site_key(&record.url);
    // What a reject names of the page: not its HTML, which the site takes.
    let page = reject(&record, Stage::Extract, String::new());
    let failed = |reason: String| {
        Box::new(Reject {
            reason,
            ..page.clone()
        })
    };
    let out = process_site(
        &site,
        SiteInput::Records(vec![record]),
        &HashMap::new(),
        settings,
        &Backlog::default(),
    )
    .map_err(|e| failed(e.to_string()))?;
    match (
        out.articles.into_iter().next(),
        out.rejects.into_iter().next(),
    ) {
        (Some(article), _) if !article.text.trim().is_empty() => Ok(article),
        (Some(_), _) => Err(failed("the page has no article text".into())),
        (None, Some(reject)) => Err(Box::new(reject)),
        (None, None) => Err(failed("nothing extracted".into())),
    }
}

/// A reject of `record` at `stage`.
fn reject(record: &PageRecord, stage: Stage, reason: String) -> Reject {
    Reject {
        source: record.source.clone(),
        record_id: Some(record.record_id.clone()),
        url: Some(record.url.clone()),
        stage,
        reason,
    }
}
