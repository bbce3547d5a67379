//! A cluster's wrapper checked against the page-level path, and how the
//! cluster's pages are then served (`docs/algorithms.md`, "How a wrapper
//! is validated"; the decision itself is `canopy_extract::check_wrapper`).

use canopy_cluster::evenly_spaced;
use canopy_dom::{Document, NodeId};
use canopy_extract::{check_wrapper, Extraction, Residue, TextCounts};
use canopy_forest::Wrapper;
use canopy_types::{Decision, WrapperCheck};

use super::{
    article_title, page_level_selection, text_chars, wrapper_selection, Chosen, ClusterPages, Role,
    Selection, SiteSettings,
};
use crate::page::Page;

/// Pages of a cluster its wrapper is checked on: the fewest on which a
/// line can repeat. Each is extracted once more, by the page-level path: 2
/// pages cost 5 % of dragnet's CPU and 8 % of big9's, 4 pages 13 %, and on
/// the dev corpora 2, 4 and 8 pages give the same decisions.
const CHECK_PAGES: usize = 2;

/// A wrapper's check against the page-level path, and what the wrapper
/// selected on the pages it was checked on.
pub(super) struct Checked {
    pub figures: WrapperCheck,
    /// The length of the wrapper's text on each checked page it matched.
    pub wrapper_text_chars: Vec<usize>,
    /// The wrapper's selection on each page checked now, with the page's
    /// position among those it was checked from: its extraction takes it
    /// rather than selecting again (none for a saved check).
    pub selections: Vec<(usize, Selection)>,
}

impl Checked {
    pub fn wrapper_serves(&self) -> bool {
        self.figures.decision != Decision::Page
    }
}

/// The wrapper that serves a cluster's pages: the one chosen, unless its
/// check gave them to the page-level path.
pub(super) fn serving<'w>(chosen: &'w Chosen, check: Option<&Checked>) -> Serve<'w> {
    Serve {
        wrapper: chosen
            .wrapper
            .as_ref()
            .filter(|_| check.is_none_or(Checked::wrapper_serves)),
        median_chars: check.map_or(0, |c| median(&c.wrapper_text_chars)),
    }
}

/// The median of `values` (the lower one of an even count); 0 for none.
pub(super) fn median(values: &[usize]) -> usize {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    sorted
        .get(sorted.len().saturating_sub(1) / 2)
        .copied()
        .unwrap_or(0)
}

/// `wrapper` checked against the page-level path (`extract.fallback`) on
/// up to [`CHECK_PAGES`] of `held` (the cluster's pages, or its learning
/// sample), evenly spaced ([`check_wrapper`]).
pub(super) fn check_against_page_path(
    c: &ClusterPages<'_, '_>,
    wrapper: &Wrapper,
    held: &[&Page<'_>],
    titles: &[&str],
    residue: &Residue,
    settings: &SiteSettings,
) -> Checked {
    let positions: Vec<usize> = (0..held.len()).collect();
    let positions = evenly_spaced(&positions, CHECK_PAGES);
    let both = c.backlog.map(&positions, |&i| {
        let title = article_title(held[i], c.site, titles);
        let teaches = c.teaches(held[i], settings);
        both_extractions(
            held[i], wrapper, &title, c.siblings, residue, settings, teaches,
        )
    });
    let by_wrapper: Vec<Extraction<'_>> = both.iter().map(|b| b.by_wrapper()).collect();
    let by_page: Vec<Extraction<'_>> = both.iter().map(|b| b.by_page()).collect();
    let figures = check_wrapper(&by_wrapper, &by_page);
    let wrapper_text_chars = by_wrapper
        .iter()
        .filter_map(|e| text_chars(e.text))
        .collect();
    Checked {
        figures,
        wrapper_text_chars,
        selections: positions
            .into_iter()
            .zip(both)
            .map(|(i, b)| (i, b.wrapper))
            .collect(),
    }
}

/// A reused wrapper's check: the one saved with it. The saved template
/// fits the cluster's pages, so the decision made on that template's pages
/// when the wrapper was learned stands; the text lengths are tonight's, on
/// the pages a new check would compare (`chosen.selections`, one for each
/// page the reuse was checked on). `None` for a wrapper saved without a
/// check, which is checked now.
pub(super) fn saved_check(chosen: &Chosen) -> Option<Checked> {
    let figures = chosen.reused.as_ref()?.check.clone()?;
    let selections: Vec<&Selection> = chosen.selections.iter().collect();
    Some(Checked {
        figures,
        wrapper_text_chars: evenly_spaced(&selections, CHECK_PAGES)
            .iter()
            .filter_map(|s| text_chars(&s.text))
            .collect(),
        selections: Vec::new(),
    })
}

/// A page extracted by a wrapper and by the page-level path, for
/// [`check_wrapper`].
pub(super) struct Both {
    /// The wrapper's selection.
    pub wrapper: Selection,
    /// The share of the wrapper's selected text that is link text.
    wrapper_links: f64,
    /// The page-level path's text, and its link share.
    page: (String, f64),
}

impl Both {
    pub fn by_wrapper(&self) -> Extraction<'_> {
        Extraction {
            text: &self.wrapper.text,
            link_share: self.wrapper_links,
        }
    }

    pub fn by_page(&self) -> Extraction<'_> {
        Extraction {
            text: &self.page.0,
            link_share: self.page.1,
        }
    }
}

/// A page extracted by `wrapper`, and by the page-level path
/// (`extract.fallback`); `teaches`: whether the page teaches the site's
/// prior ([`wrapper_selection`]).
pub(super) fn both_extractions(
    page: &Page<'_>,
    wrapper: &Wrapper,
    title: &str,
    siblings: &[&Page<'_>],
    residue: &Residue,
    settings: &SiteSettings,
    teaches: bool,
) -> Both {
    let by_wrapper = wrapper_selection(Some(wrapper), page, residue, settings, teaches);
    let (text, nodes, _, _) = page_level_selection(
        page,
        &settings.fallback,
        title,
        siblings,
        Role::Fallback(&settings.clean),
        &settings.prior,
    );
    Both {
        wrapper_links: link_share(&page.doc, &by_wrapper.nodes),
        wrapper: by_wrapper,
        page: (text, link_share(&page.doc, &nodes)),
    }
}

/// The share of the text of `nodes` (none inside another) that is link
/// text.
fn link_share(doc: &Document, nodes: &[NodeId]) -> f64 {
    let (mut chars, mut links) = (0u64, 0u64);
    for &n in nodes {
        let (c, l) = TextCounts::of_subtree(doc, n);
        chars += u64::from(c);
        links += u64::from(l);
    }
    if chars == 0 {
        0.0
    } else {
        links as f64 / chars as f64
    }
}

/// A wrapper text shorter than this share of the template's median is
/// checked against the page-level path ([`Serve::is_short`]). On the dev
/// corpora the shortest texts wrappers select are 0.03–0.19 of their
/// cluster's median, and are short posts: the share is just above them.
const SHORT_SHARE: f64 = 0.2;

/// The page-level path serves a page whose wrapper text is short when its
/// own text reaches this share of the template's median: then the wrapper
/// missed this page's article (a page of another type, a gallery), rather
/// than the article being short. On the dev corpora's short wrapper texts
/// the page-level path's text stays under a fifth of the median.
const TYPICAL_SHARE: f64 = 0.5;

/// How a cluster's pages are served.
#[derive(Clone, Copy)]
pub(super) struct Serve<'w> {
    /// The wrapper serving them (`None`: the page-level path serves all).
    pub wrapper: Option<&'w Wrapper>,
    /// The median length of the wrapper's text (characters) on the pages
    /// it was checked on; 0: unknown.
    pub median_chars: usize,
}

impl Serve<'_> {
    /// Whether a wrapper text of `chars` characters is far shorter than
    /// the template's typical one.
    pub fn is_short(&self, chars: usize) -> bool {
        self.median_chars > 0 && (chars as f64) < SHORT_SHARE * self.median_chars as f64
    }

    /// Whether a text of `chars` characters is a typical article's length
    /// for the template.
    pub fn is_typical(&self, chars: usize) -> bool {
        chars as f64 >= TYPICAL_SHARE * self.median_chars as f64
    }
}
