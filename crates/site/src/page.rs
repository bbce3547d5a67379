//! A parsed page of a site, with what every method needs.

use std::collections::HashMap;
use std::sync::OnceLock;
use std::time::Duration;

use canopy_dom::Document;
use canopy_forest::NodeTerms;
use canopy_signifiers::{detect_language, Analyzer, Language, PageLanguage, Stems, TermId};
use canopy_types::{FeedItem, PageRecord};

/// A parsed page with what every method needs.
pub struct Page<'f> {
    /// Its position among the site's pages ([`crate::pages::SitePages`]).
    pub index: usize,
    /// Its record, without the HTML (freed once parsed).
    pub record: PageRecord,
    pub doc: Document,
    /// The language it declares, which its article's `lang` falls back on.
    pub lang: PageLanguage,
    /// The language its terms are analysed in ([`Page::analysis`]).
    analysis: OnceLock<Language>,
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
            analysis: OnceLock::new(),
            feed,
            spent,
        }
    }

    /// The language its terms are analysed in: its `<html lang>` if that
    /// names a language with a stemmer, else the one its first 2000
    /// characters of body text are surely written in
    /// ([`detect_language`]). Found when learning first asks, so a page
    /// that a saved wrapper or the page-level path serves is never
    /// analysed.
    pub fn analysis(&self) -> Language {
        *self.analysis.get_or_init(|| {
            let doc = &self.doc;
            // The first 2000 characters of the body's text, without
            // concatenating all of it first.
            let sample: String = doc
                .text_nodes(doc.body())
                .flat_map(|(_, t)| t.chars())
                .take(2000)
                .collect();
            detect_language(doc.lang(), &sample)
        })
    }

    /// The terms of each of its text nodes, with ids of its own (0, 1, …
    /// in order of first appearance), and the stems of those ids: analysed
    /// by this thread's analyzer, whose ids mean nothing elsewhere.
    pub fn terms(&self) -> (NodeTerms, Stems) {
        Analyzer::with_thread_analyzer(|analyzer| {
            let mut buf: Vec<TermId> = Vec::new();
            let mut terms = NodeTerms::build(&self.doc, |text, out| {
                buf.clear();
                analyzer.analyze(text, self.analysis(), &mut buf);
                out.extend(buf.iter().map(|t| t.0));
            });
            let stems = analyzer.stems(terms.renumber().into_iter().map(TermId));
            (terms, stems)
        })
    }

    /// The distinct stems of its body, in order of first appearance: what
    /// the idf of a small cluster of its site counts of it
    /// ([`crate::pages::SitePages::body_stems`]).
    pub fn body_stems(&self) -> Stems {
        let (terms, stems) = self.terms();
        let stems: Vec<&str> = stems.iter().collect();
        let body = self.doc.body();
        let mut seen = vec![false; stems.len()];
        terms
            .of_range(body, self.doc.node(body).end)
            .iter()
            .filter(|&&t| !std::mem::replace(&mut seen[t as usize], true))
            .map(|&t| stems[t as usize])
            .collect()
    }
}
