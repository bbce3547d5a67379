//! Blocks that are not the article by their role: what the page's markup
//! says an element is for (HTML's sectioning elements, ARIA roles, names).

use canopy_dom::{has_token, local_name, marks_main_content, Document, NodeId};
use rustc_hash::FxHashMap;

use super::names::{NameScratch, Prior};
use crate::TextCounts;

/// Whether the markup says `n` is navigation, a complementary box, the
/// page's footer or a dialog: HTML's `nav`, `aside`, `footer`, `dialog`
/// and `menu`; the ARIA roles of the same (`navigation`, `complementary`,
/// `contentinfo`, `dialog`, `alertdialog`, `search`); a modal
/// (`aria-modal`). These are the standards' own words for the parts of a
/// page that are not its main content, in every language.
pub(crate) fn is_page_furniture(doc: &Document, n: NodeId) -> bool {
    if matches!(doc.tag(n), "nav" | "aside" | "footer" | "dialog" | "menu") {
        return true;
    }
    if doc
        .attr_named(n, &local_name!("aria-modal"))
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
    {
        return true;
    }
    doc.attr_named(n, &local_name!("role")).is_some_and(|role| {
        role.split_ascii_whitespace().any(|r| {
            matches!(
                r.to_ascii_lowercase().as_str(),
                "navigation"
                    | "complementary"
                    | "contentinfo"
                    | "dialog"
                    | "alertdialog"
                    | "search"
            )
        })
    })
}

/// Whether the markup says `n` is the page's main content or an article
/// ([`canopy_dom::marks_main_content`]), or schema.org's `itemprop=text`
/// (a creative work's text).
pub(crate) fn is_content_element(doc: &Document, n: NodeId) -> bool {
    marks_main_content(doc.tag(n), |a| doc.attr(n, a))
        || has_token(doc.attr_named(n, &local_name!("itemprop")), &["text"])
}

/// Most of the page's prose a box named for a role holds: less than
/// this share. The prior's role words come from the wrappers of 2012-era
/// sites, and today's builders name their layout with the same words
/// (`elementor-widget`, Drupal's `view` and `pane`, `tabs`): a "widget"
/// that holds a seventh of the page's prose or more is where the article
/// is, while share bars, author boxes and newsletter boxes hold a few
/// lines (related lists, which can be long, are lists of teasers, and
/// furniture by their shape). Chosen on trafbench among 0.5 (all but the
/// page's layout), 0.4, 0.35, 0.3, 0.25, 0.2 and 0.15: 0.15 finds the
/// most text there; big9 and dragnet do not move (docs/quality-log.md).
const NAMED_BOX_SHARE: f64 = 0.15;

/// Per element: whether it is boilerplate by its role (furniture: HTML's
/// and ARIA's words, [`is_page_furniture`], or a list of teasers,
/// [`is_teaser_list`]; or a box whose names the prior calls a role that is
/// not the article, [`Prior::element`]), and its name weight. An element
/// holding half of the page's prose or more is never boilerplate: it is
/// the page's layout, whatever it is called; nor is a box named for a role
/// that holds [`NAMED_BOX_SHARE`] of it, nor boxes of one shape (tag and
/// class) that together hold half of it.
pub(crate) struct Roles {
    pub boilerplate: Vec<bool>,
    /// Whether the element is boilerplate by its markup or shape
    /// ([`is_page_furniture`], [`is_teaser_list`]), not only by its names.
    pub furniture: Vec<bool>,
    pub weight: Vec<f64>,
}

impl Roles {
    pub fn of(doc: &Document, prior: &Prior, prose: &[u32], counts: &TextCounts) -> Roles {
        let len = doc.len();
        let page_prose = prose[doc.body()];
        let mut words = NameScratch::default();
        let mut boilerplate = vec![false; len];
        let mut furniture = vec![false; len];
        let mut weight = vec![0.0; len];
        let mut named = vec![false; len];
        for n in 0..len {
            if doc.element(n).is_none() {
                continue;
            }
            let (w, role) = prior.element(doc, n, &mut words);
            weight[n] = w;
            let small = 2 * u64::from(prose[n]) < u64::from(page_prose);
            furniture[n] = small && (is_page_furniture(doc, n) || is_teaser_list(doc, n, counts));
            // A paragraph, heading or list item is prose by its tag, whatever
            // its names (`wp-block-paragraph`): names mark boxes.
            named[n] = role
                && !super::is_prose_block(doc.tag(n))
                && f64::from(prose[n]) < NAMED_BOX_SHARE * f64::from(page_prose);
            boilerplate[n] = furniture[n] || (small && named[n]);
        }
        // Boxes of one name that together hold half of the page's prose are
        // its layout, as one box holding it is: a page builder's columns
        // (`wp-block-column`), sections or widgets, each a small part of
        // the article.
        let mut shape_prose: FxHashMap<(&str, &str), u64> = FxHashMap::default();
        for n in (0..len).filter(|&n| named[n]) {
            *shape_prose.entry(shape(doc, n)).or_default() += u64::from(prose[n]);
        }
        for n in (0..len).filter(|&n| named[n] && !furniture[n]) {
            if 2 * shape_prose[&shape(doc, n)] >= u64::from(page_prose) {
                boilerplate[n] = false;
            }
        }
        Roles {
            boilerplate,
            furniture,
            weight,
        }
    }

    /// The article's heading outweighs names: an element holding it is
    /// not boilerplate by its names (Blogger calls the post a "widget").
    pub fn spare(&mut self, doc: &Document, heading: NodeId) {
        for a in std::iter::once(heading).chain(doc.ancestors(heading)) {
            if !self.furniture[a] {
                self.boilerplate[a] = false;
            }
        }
    }
}

/// An element's shape: its tag and class attribute.
fn shape(doc: &Document, n: NodeId) -> (&str, &str) {
    (
        doc.tag(n),
        doc.attr_named(n, &local_name!("class")).unwrap_or(""),
    )
}

/// Fewest items a list of teasers has.
const TEASER_ITEMS: usize = 3;

/// Longest teaser, in characters: a headline and a blurb. Article sections
/// are longer.
const TEASER_CHARS: u32 = 600;

/// Whether `n` is a list of teasers: at least [`TEASER_ITEMS`] children of
/// one shape (tag and class) making most of its children and holding half
/// of its text or more, two thirds of which are short ([`TEASER_CHARS`])
/// and hold a link that is a fair part of their text (a headline: a sixth
/// or more). Related posts, "more news", a blog module's latest posts:
/// other pages' headlines and blurbs, whatever the page calls them. A run
/// of paragraphs is one shape too, but never a list of teasers.
pub(crate) fn is_teaser_list(doc: &Document, n: NodeId, counts: &TextCounts) -> bool {
    let children: Vec<NodeId> = doc
        .children(n)
        .filter(|&c| doc.element(c).is_some())
        .collect();
    if children.len() < TEASER_ITEMS {
        return false;
    }
    let mut shapes: Vec<((&str, &str), usize)> = Vec::new();
    for &c in &children {
        match shapes.iter_mut().find(|(s, _)| *s == shape(doc, c)) {
            Some((_, k)) => *k += 1,
            None => shapes.push((shape(doc, c), 1)),
        }
    }
    let Some(&(common, k)) = shapes.iter().max_by_key(|(_, k)| *k) else {
        return false;
    };
    // Paragraphs are prose by their tag, links or not (a run of short
    // paragraphs that each cite a source).
    if k < TEASER_ITEMS || 2 * k < children.len() || matches!(common.0, "p" | "blockquote") {
        return false;
    }
    let teaser = |c: NodeId| {
        let chars = counts.chars(c);
        chars > 0
            && chars <= TEASER_CHARS
            && (c + 1..doc.node(c).end)
                .any(|d| doc.tag(d) == "a" && 6 * counts.chars(d) >= chars && counts.chars(d) >= 10)
    };
    let items: Vec<NodeId> = children
        .into_iter()
        .filter(|&c| shape(doc, c) == common)
        .collect();
    // The items are the list's text: a paragraph beside a row of figures
    // whose captions link to their images is an article, not a list.
    let in_items: u32 = items.iter().map(|&c| counts.chars(c)).sum();
    2 * in_items >= counts.chars(n)
        && 3 * items.iter().filter(|&&c| teaser(c)).count() >= 2 * items.len()
}
