//! One pass over a page's bytes for a page of a known template: the
//! elements the tree would hold, their tag paths and the byte ranges of
//! the matches of a site's saved wrappers, without building the tree
//! (issue #40's fast path, `docs/performance.md`, "A streaming pass over
//! the pages of a known template").
//!
//! - [`scan`]: the tags of the page, found by memchr, nothing decoded.
//! - the tree builder's stack of open elements followed from those tags
//!   (`tree.rs`), giving each element of the body its parent, its step
//!   label and where it ends.
//! - [`follow`]: both, over one page: a [`Pass`] (each pattern's regions,
//!   the body's elements, the template signature [`Pass::signature`]), or
//!   why the page needs the full parse ([`Unfollowed`]).
//! - [`Pass::skeleton`] (`skeleton.rs`): the page of the regions and of
//!   what metadata reads wherever it stands, alone (the head, each inside
//!   its ancestors), to parse in place of the whole page.
//!
//! What the pass gives is what `canopy_dom::Document` holds with the same
//! options: the elements html5ever builds, less the dropped tags, hidden
//! elements and what the drop list's page-wide rules drop (a named block
//! holding less than half of the page's text, a comment section), with
//! their subtrees (`tree/tests.rs`,
//! `the_pass_finds_the_trees_elements_on_every_page_it_follows`, checks it
//! on every page of the corpora).

mod scan;
mod skeleton;
mod text_len;
mod texts;
mod tree;

pub use scan::{raw_text, scan, Attr, Attrs, Stop, Token};
pub use tree::{Pass, Region, Unfollowed, MAX_PATTERNS};

use canopy_dom::DomOptions;
use canopy_forest::{ElementType, Pattern};

/// Follows `html` through the tree builder's stack; the matches of each
/// of `patterns` become the pass's regions for it. `options` are the
/// parse's (`canopy_dom::DomOptions`): a page past its depth or byte cap
/// takes the full parse, and a region inside a block the drop list names
/// and the tree drops is left out.
pub fn follow(html: &str, patterns: &[&Pattern], options: &DomOptions) -> Result<Pass, Unfollowed> {
    if html.len() > options.max_bytes {
        return Err(Unfollowed::TooLong);
    }
    if patterns.len() > MAX_PATTERNS {
        return Err(Unfollowed::ManyPatterns);
    }
    if memchr::memmem::find(html.as_bytes(), canopy_dom::KEPT_MARK.as_bytes()).is_some() {
        // The page's own mark would keep what the drop list drops in its
        // skeleton.
        return Err(Unfollowed::KeptMark);
    }
    if patterns
        .iter()
        .any(|p| matches!(p.ty, ElementType::Dfs { .. }))
    {
        return Err(Unfollowed::DfsPattern);
    }
    let mut tree = tree::Tree::new(html, patterns, options);
    match scan(html, |token| tree.token(token)) {
        Ok(()) => tree.finish(),
        Err(Stop::Consumer(why)) => Err(why),
        Err(Stop::ForeignBreakout) => Err(Unfollowed::Foreign),
    }
}
