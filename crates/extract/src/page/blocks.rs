//! The page's text blocks and what each is worth as article text.
//!
//! A block is a block-level element with text of its own (the text not
//! inside a nested block): a paragraph, a list item, a cell, a `div` with
//! loose text. Each is worth its characters outside links, less twice its
//! link characters and a small cost: a paragraph is worth its length, a
//! list of links less than nothing; headings are worth nothing either way.
//! An element's worth is the sum over the blocks of its subtree, so the
//! article's container is where the worth peaks: going up from it takes in
//! menus and link lists, which cost more than they bring; going down leaves
//! paragraphs out.

use canopy_dom::{is_block, is_heading, Document};

use crate::text_counts::non_white_chars;

/// What a block costs before its text counts, in characters: a block of
/// fewer characters outside links (a bullet, a one-word label) is worth
/// nothing. Small, so that short lines of an article (a recipe's
/// ingredients, a dialogue) still add up; menus cost through their links.
/// Chosen on trafbench among 0, 5, 10, 25 and 40 (docs/quality-log.md).
const BLOCK_COST: f64 = 5.0;

/// Link characters count against a block this many times: a list of
/// links is worth less than nothing, a paragraph with a few links stays
/// prose. Chosen on trafbench among 1, 2, 3 and 4.
const LINK_WEIGHT: f64 = 2.0;

/// Whether an element opens a block of its own (a line break does not:
/// text around a `<br>` belongs to the enclosing block).
fn opens_block(tag: &str) -> bool {
    is_block(tag) && !matches!(tag, "br" | "hr")
}

/// Per-node figures of a page's blocks.
pub(crate) struct Blocks {
    /// The block each node's text belongs to (itself for a block).
    pub block_of: Vec<usize>,
    /// Characters of each block's own text (0 for other nodes).
    pub own_chars: Vec<u32>,
    /// Value of each block's own text ([`Blocks::of`]).
    pub own_value: Vec<f64>,
    /// Characters of text in blocks of positive value in each subtree: the
    /// prose an element holds.
    pub prose: Vec<u32>,
}

impl Blocks {
    pub fn of(doc: &Document) -> Blocks {
        let len = doc.len();
        let mut block_of = vec![0usize; len];
        let mut in_link = vec![false; len];
        let mut own_chars = vec![0u32; len];
        let mut own_link_chars = vec![0u32; len];
        // Parents come before children in the arena.
        for n in 0..len {
            let parent = doc.node(n).parent;
            let tag = doc.tag(n);
            let inherited_link = parent.is_some_and(|p| in_link[p]);
            in_link[n] = inherited_link || tag == "a";
            block_of[n] = match (doc.element(n).is_some() && opens_block(tag), parent) {
                (true, _) | (false, None) => n,
                (false, Some(p)) => block_of[p],
            };
            if let Some(t) = doc.text(n) {
                let chars = non_white_chars(t);
                let b = block_of[n];
                own_chars[b] += chars;
                if in_link[n] {
                    own_link_chars[b] += chars;
                }
            }
        }
        let mut own_value = vec![0.0; len];
        for n in 0..len {
            if own_chars[n] == 0 || is_heading(doc.tag(n)) {
                continue;
            }
            let links = f64::from(own_link_chars[n]);
            let prose = f64::from(own_chars[n]) - links;
            own_value[n] = prose - LINK_WEIGHT * links - BLOCK_COST;
        }
        let mut prose: Vec<u32> = (0..len)
            .map(|n| {
                if own_value[n] > 0.0 {
                    own_chars[n] - own_link_chars[n]
                } else {
                    0
                }
            })
            .collect();
        subtree_sums(doc, &mut prose);
        Blocks {
            block_of,
            own_chars,
            own_value,
            prose,
        }
    }

    /// Each node's worth by its text alone: the sum of its subtree's block
    /// values, whatever the markup calls the blocks.
    pub fn worth(&self, doc: &Document) -> Vec<f64> {
        let mut worth = self.own_value.clone();
        subtree_sums(doc, &mut worth);
        worth
    }

    /// Each node's value: the sum of its subtree's block values, where a
    /// block inside an element marked in `boilerplate` counts against,
    /// whatever its text (a sidebar's "about" paragraph, a cookie notice).
    pub fn values(&self, doc: &Document, boilerplate: &[bool]) -> Vec<f64> {
        let len = doc.len();
        let mut inside = vec![false; len];
        let mut value = vec![0.0; len];
        for n in 0..len {
            inside[n] = boilerplate[n] || doc.node(n).parent.is_some_and(|p| inside[p]);
            value[n] = if inside[n] {
                -self.own_value[n].abs()
            } else {
                self.own_value[n]
            };
        }
        subtree_sums(doc, &mut value);
        value
    }
}

/// Turns per-node figures into sums over each node's subtree: children
/// come after their parents in the arena, so one pass from the end adds
/// each node's sum into its parent's.
fn subtree_sums<T: Copy + std::ops::AddAssign>(doc: &Document, figures: &mut [T]) {
    for n in (1..doc.len()).rev() {
        if let Some(p) = doc.node(n).parent {
            let sum = figures[n];
            figures[p] += sum;
        }
    }
}
