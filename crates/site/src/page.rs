//! A parsed page of a site, with what every method needs.

use std::collections::HashMap;
use std::time::Duration;

use canopy_dom::Document;
use canopy_signifiers::PageLanguage;
use canopy_types::{FeedItem, PageRecord};

/// A parsed page with what every method needs.
pub struct Page<'f> {
    /// Its position among the site's pages ([`crate::pages::SitePages`]).
    pub index: usize,
    /// Its record, without the HTML (freed once parsed).
    pub record: PageRecord,
    pub doc: Document,
    /// The language its terms are analysed in, and the one its article
    /// reports.
    pub lang: PageLanguage,
    pub feed: Option<&'f FeedItem>,
    /// Time spent on this page so far (its parse); its extraction gets
    /// what is left of the page budget.
    pub spent: Duration,
}

impl<'f> Page<'f> {
    /// A page with its feed item from `feeds`; `index` is left 0 until its
    /// site numbers its pages.
    pub fn new(
        record: PageRecord,
        doc: Document,
        lang: PageLanguage,
        spent: Duration,
        feeds: &'f HashMap<String, FeedItem>,
    ) -> Page<'f> {
        let feed = feeds.get(&canopy_ingest::normalize_url(&record.url));
        Page {
            index: 0,
            record,
            doc,
            lang,
            feed,
            spent,
        }
    }
}
