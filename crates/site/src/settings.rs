//! What the site stage is given ([`SiteSettings`], from the TOML settings
//! and the method) and what it gives back ([`SiteOutput`]).

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use canopy_dom::{Deadline, DomOptions};
use canopy_extract::{CleanOptions, Prior, PriorCounts, SiteEvidence};
use canopy_forest::ForestOptions;
use canopy_output::SummaryRow;
use canopy_signifiers::PageLanguage;
use canopy_types::{Article, PageRecord, Reject, Stage, WrapperRecord};

use crate::config::{Config, Format, SignifierSource};
use crate::method::{Method, PageMethod};
use crate::page::Page;
use crate::reuse::Reuse;
use crate::spill::{ArticleSink, ArticleSpill};

/// Everything one site contributes to the outputs.
#[derive(Default)]
pub struct SiteOutput {
    pub articles: Vec<Article>,
    /// A large site writes its articles here instead.
    pub spilled: Option<ArticleSpill>,
    pub wrappers: Vec<WrapperRecord>,
    pub summary: Vec<SummaryRow>,
    /// Pages stopped by their time budget (stage `budget`).
    pub rejects: Vec<Reject>,
    /// What the site's wrappers show about the names of article blocks
    /// (the page-level extractor's prior, learned from the crawl).
    pub evidence: SiteEvidence,
    /// Articles left out for their language (`run.languages`), by code.
    pub lang_filtered: BTreeMap<String, u64>,
}

/// The settings a site run needs, resolved once.
#[derive(Clone)]
pub struct SiteSettings {
    pub method: Method,
    /// Page-level methods whose selections, joined, serve the pages no
    /// wrapper serves (`extract.fallback = "wlr+r4"`).
    pub fallback: Vec<PageMethod>,
    pub dom: DomOptions,
    pub forest: ForestOptions,
    pub template_threshold: f64,
    /// Most pages of a site grouped exactly (0: all); see
    /// [`canopy_cluster::group_site_templates`].
    pub max_group_pages: usize,
    /// Most pages a wrapper is learned from (0: all), evenly spaced in URL
    /// order ([`canopy_cluster::evenly_spaced`]).
    pub max_learn_pages: usize,
    /// Most pages of a site held parsed together (0: all); a larger site's
    /// parsed pages are read back from disk as each step needs them
    /// (`SitePages`).
    pub max_resident_pages: usize,
    /// Most bytes of HTML of a site held parsed together (0: no bound):
    /// a parsed page weighs more than its HTML, and a site of a few large
    /// pages can weigh more than thousands of ordinary ones.
    pub max_resident_bytes: u64,
    pub top_k: usize,
    pub signifiers: SignifierSource,
    pub clean: CleanOptions,
    /// Saved wrappers to reuse (`--wrappers`, `wrappers apply`).
    pub reuse: Option<Arc<Reuse>>,
    /// `run.page_budget_ms`; `None` when 0.
    pub page_budget: Option<Duration>,
    pub render: Render,
    /// What names say about blocks, for the page-level extractor: the
    /// shipped prior (`configs/prior.tsv`) plus, for a bucket's single
    /// pages, what its wrappers taught.
    pub prior: Arc<Prior>,
    /// The counts `prior` was made from.
    pub prior_counts: Arc<PriorCounts>,
    /// `extract.crawl_prior`: single pages use what the bucket's wrappers teach.
    pub crawl_prior: bool,
    /// `extract.prior_pages`: pages of a cluster whose wrapper selection
    /// teaches the prior.
    pub prior_pages: usize,
    /// `forest.validate`: each wrapper is checked against the page-level
    /// path (`check_wrapper`).
    pub validate: bool,
    /// `dedup.mode`: which of a site's pages are left out as duplicates
    /// before it is processed ([`crate::dedup`]).
    pub dedup: crate::dedup::DedupMode,
    /// `run.languages`: the languages of the articles written (empty: all).
    /// Pages of other languages are clustered, learned from and extracted
    /// like any other; only their articles are left out, and counted.
    pub languages: Vec<String>,
}

/// The renderings of an article written besides its text (`--format`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Render {
    pub html: bool,
    pub markdown: bool,
}

/// The page-level prior of `extract.prior` and the counts it was made
/// from. The shipped one (`""`, compiled in) is parsed once per process:
/// the library makes a page's settings on every `canopy::extract_page`
/// call, and parsing its 37 KB table took ~0.9 ms of a dragnet page's
/// ~2.4 ms there (Python's `canopy.extract`, docs/python.md). A prior
/// file is read each time, as it may change between calls.
fn prior_of(
    extract: &crate::config::ExtractConfig,
) -> Result<(Arc<Prior>, Arc<PriorCounts>), crate::Error> {
    static SHIPPED: OnceLock<(Arc<Prior>, Arc<PriorCounts>)> = OnceLock::new();
    let made = |extract: &crate::config::ExtractConfig| {
        extract
            .prior_counts()
            .map(|counts| (Arc::new(Prior::from_counts(&counts)), Arc::new(counts)))
    };
    if !extract.prior.is_empty() {
        return made(extract);
    }
    if let Some(shipped) = SHIPPED.get() {
        return Ok(shipped.clone());
    }
    let shipped = made(extract)?;
    Ok(SHIPPED.get_or_init(|| shipped).clone())
}

impl SiteSettings {
    pub fn new(config: &Config, method: Method) -> Result<SiteSettings, crate::Error> {
        let fallback = config
            .extract
            .fallback
            .split('+')
            .map(|m| m.trim().parse::<PageMethod>())
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| crate::Error::Settings(format!("extract.fallback: {e}")))?;
        let (prior, prior_counts) = prior_of(&config.extract)?;
        let (signifiers, measure) = match method {
            Method::ForestFeeds => (SignifierSource::Feeds, canopy_forest::Measure::Forest),
            Method::Coverage => (config.signifiers.source, canopy_forest::Measure::Coverage),
            Method::Forest => (config.signifiers.source, config.forest.measure),
            Method::Page(_) => (config.signifiers.source, config.forest.measure),
        };
        Ok(SiteSettings {
            method,
            fallback,
            dom: DomOptions {
                max_depth: config.dom.max_depth,
                max_bytes: config.dom.max_bytes,
                max_nodes: config.dom.max_nodes,
                drop_id_class: config
                    .dom
                    .drop_id_class
                    .iter()
                    .map(|s| s.to_lowercase())
                    .collect(),
                section_anchors: config
                    .dom
                    .section_anchors
                    .iter()
                    .map(|s| s.to_lowercase())
                    .collect(),
                page_text: None,
                page_link_host: None,
            },
            forest: ForestOptions {
                measure,
                untyped: config.forest.untyped,
                narrow: config.forest.narrow,
            },
            template_threshold: config.cluster.template_threshold,
            max_group_pages: config.cluster.max_group_pages,
            max_learn_pages: config.forest.max_learn_pages,
            max_resident_pages: config.run.max_resident_pages,
            max_resident_bytes: config.run.max_resident_bytes,
            top_k: config.signifiers.top_k,
            signifiers,
            clean: CleanOptions {
                residue: config.extract.residue,
                link_density: config.extract.link_density,
                paragraph_link_density: config.extract.paragraph_link_density,
                media_text: config
                    .extract
                    .media_text
                    .iter()
                    .map(|s| s.to_lowercase())
                    .collect(),
                title_lead: config.extract.title_lead,
                notices: config.extract.notices,
                forms: config.extract.forms,
                attributions: config.extract.attributions,
                offsite_lists: config.extract.offsite_lists,
                orphan_labels: config.extract.orphan_labels,
            },
            reuse: None,
            page_budget: Some(Duration::from_millis(config.run.page_budget_ms))
                .filter(|b| !b.is_zero()),
            render: Render {
                html: config.run.formats.contains(&Format::Html),
                markdown: config.run.formats.contains(&Format::Markdown),
            },
            prior,
            prior_counts,
            crawl_prior: config.extract.crawl_prior,
            prior_pages: config.extract.prior_pages,
            validate: config.forest.validate,
            dedup: config.dedup.mode,
            languages: config.run.languages.clone(),
        })
    }

    /// Whether an article in language `lang` is written (`run.languages`).
    fn keeps_language(&self, lang: &str) -> bool {
        self.languages.is_empty() || self.languages.iter().any(|l| l == lang)
    }

    /// Gives the article of a page in `lang` its `lang` (its ISO 639-1
    /// code, [`PageLanguage::of_text`], `und` when nothing is known) and
    /// hands it to `articles` when that language is kept, else counts it in
    /// `filtered`. Only the articles a run writes are detected: the
    /// page-level articles a wrapper's check compares, or a fallback that
    /// loses to the wrapper, never are.
    pub(crate) fn emit(
        &self,
        mut article: Article,
        lang: PageLanguage,
        articles: &mut ArticleSink<'_>,
        filtered: &mut BTreeMap<String, u64>,
    ) -> std::io::Result<()> {
        article.lang = lang.of_text(&article.text).unwrap_or("und").to_string();
        if self.keeps_language(&article.lang) {
            articles.push(article)
        } else {
            *filtered.entry(article.lang).or_default() += 1;
            Ok(())
        }
    }

    /// Whether a site of `pages` pages and `html` bytes of HTML is held
    /// parsed whole.
    pub fn holds(&self, pages: usize, html: u64) -> bool {
        (self.max_resident_pages == 0 || pages <= self.max_resident_pages)
            && (self.max_resident_bytes == 0 || html <= self.max_resident_bytes)
    }

    /// Whether a method reads a page's siblings (BlockExtractor).
    pub(crate) fn reads_siblings(&self) -> bool {
        match self.method {
            Method::Page(method) => method == PageMethod::BlockExtractor,
            _ => self.fallback.contains(&PageMethod::BlockExtractor),
        }
    }

    /// What is left of a page's budget for its extraction.
    pub(crate) fn extraction_deadline(&self, page: &Page<'_>) -> Deadline {
        Deadline::after(self.page_budget.map(|b| b.saturating_sub(page.spent)))
    }

    /// The reject for a page over its budget.
    pub(crate) fn budget_reject(&self, record: &PageRecord, what: &str) -> Reject {
        Reject {
            source: record.source.clone(),
            record_id: Some(record.record_id.clone()).filter(|r| !r.is_empty()),
            url: Some(record.url.clone()).filter(|u| !u.is_empty()),
            stage: Stage::Budget,
            reason: format!(
                "page_budget_ms {} exceeded: {what}",
                self.page_budget.unwrap_or_default().as_millis()
            ),
        }
    }

    /// The name written in `method` for pages a wrapper served.
    pub(crate) fn wrapper_method_name(&self) -> &'static str {
        match (self.method, self.signifiers) {
            (Method::Coverage, _) => "coverage",
            (_, SignifierSource::Feeds) => "forest-feeds",
            _ => "forest",
        }
    }
}
