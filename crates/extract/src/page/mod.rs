//! Canopy's page-level extractor: the article of a page that no wrapper
//! serves (single-page sites, the long tail of a crawl, pages a wrapper
//! misses), from the page alone and a prior learned from the crawl's
//! wrappers.
//!
//! 1. **Blocks** ([`blocks`]): every block of text is worth its characters
//!    outside links, less its links and a small cost; an element is worth
//!    the sum over its blocks, so the article's container is where that
//!    sum peaks (a readability-style score that needs no word list).
//! 2. **Roles** ([`roles`]): what the markup says a block is for. HTML's
//!    and ARIA's own words for page furniture (`nav`, `aside`, `footer`,
//!    `role=complementary`, a modal) and lists of teasers (other pages'
//!    headlines) count against the article wherever they stand; names the
//!    prior knows for roles that are not the article (`share`, `related`,
//!    `sidebar`: [`Prior`]) count against it too. An element holding half
//!    of the page's prose, or the article's heading, is never boilerplate.
//! 3. **Container** ([`choose`]): the element of highest worth that starts
//!    at or after the article's heading, nearer the heading the better;
//!    then narrowed to a credible container inside it that holds most of
//!    its prose (the markup's `<article>` or `<main>`, an element named
//!    like article containers), widened to its siblings worth something
//!    (paragraphs; a box only when it is worth a fair part of the
//!    container),
//!    and to the article's head (its heading and what stands between the
//!    heading and the body, at every level down to the body: a standfirst
//!    in the article's header box).
//! 4. **Pruning** ([`prune`]): inside the selection, furniture anywhere;
//!    boxes worth less than nothing by their own text (more link text than
//!    prose: a share bar, a promotion, an embed's link list) anywhere;
//!    boxes named for a role before the article's first paragraph or after
//!    its last; loose text beside the paragraphs (bylines, dates, labels)
//!    once the article is written in paragraphs; headings (and bold labels
//!    followed by links) that head nothing. The caller's cleaning (`clean_selection`: link-dense blocks,
//!    captions, forms, notices) does the rest.
//!
//! Nothing here depends on the page's language: lengths are characters,
//! the prior's words are the markup's names.
//!
//! ```
//! use canopy_dom::{Document, DomOptions};
//! use canopy_extract::{page, PageContext, Prior};
//!
//! let html = "<body><nav><a href=/>Home</a> <a href=/news>News</a></nav>\
//!     <div id=post><h1>Mars rover finds water</h1><p>The rover found traces of \
//!     water in the crater, the agency said on Monday, after months of \
//!     drilling.</p><p>Scientists had long suspected it, and the samples now \
//!     confirm it.</p></div><aside><p>About us: a long text about the site and \
//!     its many authors, its history and its mission.</p></aside></body>";
//! let doc = Document::parse(html, &DomOptions::default());
//! let heading = (0..doc.len()).find(|&n| doc.tag(n) == "h1");
//! let prior = Prior::default();
//! let selection = page(&doc, &PageContext { heading, prior: &prior });
//! assert_eq!(selection.roots.len(), 1);
//! assert_eq!(doc.attr(selection.roots[0], "id"), Some("post"));
//! ```

mod blocks;
mod choose;
mod names;
mod prune;
mod roles;

use canopy_dom::{Document, NodeId};

use blocks::Blocks;
pub use choose::outermost;
pub use names::{Prior, PriorCounts, SiteEvidence};
use roles::Roles;

/// What the page says about itself besides its tree, and what the crawl
/// taught.
#[derive(Debug, Clone, Copy)]
pub struct PageContext<'a> {
    /// The article's heading: the `<h1>`–`<h3>` that the page's title
    /// confirms, if any.
    pub heading: Option<NodeId>,
    /// What names say about blocks ([`Prior`]).
    pub prior: &'a Prior,
}

/// The extractor's answer: the elements whose text is the article, and the
/// nodes inside them that are not.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageSelection {
    /// In page order, none inside another.
    pub roots: Vec<NodeId>,
    /// Nodes inside the roots whose text is left out (elements with their
    /// subtrees, and loose text nodes), in page order.
    pub pruned: Vec<NodeId>,
}

/// The article of `doc`.
pub fn page(doc: &Document, ctx: &PageContext<'_>) -> PageSelection {
    let blocks = Blocks::of(doc);
    let counts = crate::TextCounts::of(doc);
    let mut roles = Roles::of(doc, ctx.prior, &blocks.prose, &counts);
    // A heading inside the page's furniture (a menu's entry for this very
    // page, a sidebar's "now reading") is not the article's. The
    // article's heading outweighs names: what holds it is not boilerplate.
    let heading = ctx
        .heading
        .filter(|&h| !doc.ancestors(h).any(|a| roles.furniture[a]));
    if let Some(h) = heading {
        roles.spare(doc, h);
    }
    let value = blocks.values(doc, &roles.boilerplate);
    let roots = choose::selection(doc, heading, &blocks, &roles, &value);
    let pruned = prune::pruned(doc, &roots, heading, &blocks, &roles);
    PageSelection { roots, pruned }
}

/// The page furniture inside `roots` chosen otherwise (a wrapper's
/// selection), in page order: elements the markup calls navigation, a
/// complementary box, a footer or a dialog (`roles::is_page_furniture`:
/// a "Further reading" `aside` between paragraphs), each holding less
/// than half of its root's text (more is the root's layout). Only the
/// markup's own words: lists of teasers and names, which the page-level
/// extractor also prunes, take a wrapper's lists of links the article
/// itself makes (a post's list of products) on the dev corpora.
pub fn furniture_within(doc: &Document, roots: &[NodeId]) -> Vec<NodeId> {
    let chars = |n: NodeId| u64::from(crate::TextCounts::of_subtree(doc, n).0);
    let mut out = Vec::new();
    for &r in roots {
        // Counted only when the root holds furniture (most do not).
        let mut root_chars = None;
        let mut n = r + 1;
        while n < doc.node(r).end {
            if doc.element(n).is_some()
                && roles::is_page_furniture(doc, n)
                && 2 * chars(n) < *root_chars.get_or_insert_with(|| chars(r))
            {
                out.push(n);
                n = doc.node(n).end;
            } else {
                n += 1;
            }
        }
    }
    out
}

/// Whether text in a block of this tag is prose by its tag: paragraphs,
/// headings, list items, quotes, code, table cells.
fn is_prose_block(tag: &str) -> bool {
    matches!(
        tag,
        "p" | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "li"
            | "dd"
            | "dt"
            | "blockquote"
            | "pre"
            | "td"
            | "th"
            | "caption"
    )
}

#[cfg(test)]
mod tests;
