//! What goes from inside the selection.

use canopy_dom::{is_heading, Document, NodeId};

use super::blocks::Blocks;
use super::is_prose_block;
use super::roles::Roles;
use crate::residue::LABEL_CHARS;

/// Characters in paragraphs from which an article is written in
/// paragraphs, and loose text beside them is not the article: three
/// paragraphs' worth (trafilatura's rule of thumb, 3 × 250; 500, 750 and
/// 1500 give the same F on trafbench within 0.001).
const PARAGRAPH_CHARS: u32 = 750;

/// Loose text of a block this long or longer stays all the same: prose
/// written without `<p>` (a `div` of sentences), not a byline or a label.
/// Chosen on trafbench among 60, 100, 150 and 250.
const LOOSE_PROSE_CHARS: u32 = 150;

/// A box inside the selection whose blocks are worth at most minus this
/// many characters goes, wherever it stands: its link text outweighs its
/// prose by more than a short line's worth (a share bar, a "read also"
/// promotion, an embedded post's link list, a newsletter box's links).
/// Chosen on trafbench among 5, 10, 20, 35, 50 and 100 (F within 0.002
/// from 5 to 50, lower at 100); 5 costs dragnet 0.001 more than 20: its
/// gold keeps a few link lines ("Related: <link>") that trafbench's
/// leaves out (docs/quality-log.md).
const NEGATIVE_WORTH: f64 = 20.0;

/// The nodes to leave out of `roots`, in page order: furniture and boxes
/// worth less than nothing anywhere, boxes named for a role at the
/// article's ends ([`at_the_ends`]), loose text ([`loose_text`]), then
/// headings that head nothing ([`orphan_headings`]).
pub(super) fn pruned(
    doc: &Document,
    roots: &[NodeId],
    heading: Option<NodeId>,
    blocks: &Blocks,
    roles: &Roles,
) -> Vec<NodeId> {
    let mut out = at_the_ends(doc, roots, heading, roles, blocks);
    out.extend(loose_text(doc, roots, blocks));
    out.sort_unstable();
    out.extend(orphan_headings(doc, roots, &out, blocks, heading));
    out.sort_unstable();
    out.dedup();
    out
}

/// Elements the markup calls page furniture and boxes worth at most
/// [`NEGATIVE_WORTH`] by their text, wherever they stand, and elements
/// whose names say they are not article before the article's first
/// paragraph or after its last. Between paragraphs a name is weaker
/// evidence than the paragraphs around it: a "box" or a "list" there is
/// the article's own (a fact box, a list of steps), while share bars,
/// related posts and newsletter boxes stand at the ends. A box of links
/// is no article text wherever it stands, unless it holds half of the
/// selection's prose (the article's own body beside a long link list) or
/// the heading.
fn at_the_ends(
    doc: &Document,
    roots: &[NodeId],
    heading: Option<NodeId>,
    roles: &Roles,
    blocks: &Blocks,
) -> Vec<NodeId> {
    let worth = blocks.worth(doc);
    let selection_prose: u32 = roots.iter().map(|&r| blocks.prose[r]).sum();
    let link_box = |n: NodeId| {
        worth[n] <= -NEGATIVE_WORTH
            && 2 * blocks.prose[n] < selection_prose
            && !heading.is_some_and(|h| doc.contains(n, h))
    };
    // The article's paragraphs: blocks of positive worth outside
    // boilerplate; where the first starts and the last ends.
    let mut first = usize::MAX;
    let mut last_end = 0;
    for &r in roots {
        let mut n = r;
        while n < doc.node(r).end {
            if n != r && roles.boilerplate[n] {
                n = doc.node(n).end;
                continue;
            }
            if blocks.own_value[n] > 0.0 {
                first = first.min(n);
                last_end = last_end.max(doc.node(n).end);
            }
            n += 1;
        }
    }
    let mut out = Vec::new();
    for &r in roots {
        let mut n = r + 1;
        while n < doc.node(r).end {
            let at_an_end = doc.node(n).end <= first || n >= last_end;
            if roles.furniture[n] || (roles.boilerplate[n] && at_an_end) || link_box(n) {
                out.push(n);
                n = doc.node(n).end;
            } else {
                n += 1;
            }
        }
    }
    out
}

/// Text outside prose blocks ([`is_prose_block`]) shorter than
/// [`LOOSE_PROSE_CHARS`], when the selection holds [`PARAGRAPH_CHARS`] of
/// paragraphs: once an article is written in `<p>`s, a line of loose text
/// in a `div` beside them is a byline, a date, a label, a button's caption.
/// So is a block of figures alone ([`is_figures_only`]), whatever its tag.
fn loose_text(doc: &Document, roots: &[NodeId], blocks: &Blocks) -> Vec<NodeId> {
    let in_paragraphs: u32 = roots
        .iter()
        .flat_map(|&r| r..doc.node(r).end)
        .filter(|&n| doc.tag(n) == "p")
        .map(|n| blocks.own_chars[n])
        .sum();
    if in_paragraphs < PARAGRAPH_CHARS {
        return Vec::new();
    }
    roots
        .iter()
        .flat_map(|&r| r..doc.node(r).end)
        .filter(|&n| {
            let block = blocks.block_of[n];
            doc.text(n).is_some_and(|t| !t.trim().is_empty())
                && ((!is_prose_block(doc.tag(block))
                    && blocks.own_chars[block] < LOOSE_PROSE_CHARS)
                    || (blocks.own_chars[block] <= FIGURES_CHARS
                        && is_figures_only(doc, blocks, block)))
        })
        .collect()
}

/// Headings, other than the article's, and bold labels
/// ([`is_bold_label`]) that head nothing: no block of positive worth
/// follows them in the selection before the next heading, once the
/// `pruned` nodes (sorted) are left out. A box's label ("Related posts",
/// "Share this") would stay when its links go.
fn orphan_headings(
    doc: &Document,
    roots: &[NodeId],
    pruned: &[NodeId],
    blocks: &Blocks,
    article_heading: Option<NodeId>,
) -> Vec<NodeId> {
    let is_pruned = |n: NodeId| {
        let i = pruned.partition_point(|&p| p <= n);
        i > 0 && doc.contains(pruned[i - 1], n)
    };
    let mut out = Vec::new();
    for (i, &r) in roots.iter().enumerate() {
        let end = doc.node(r).end;
        for h in r..end {
            let label = !is_heading(doc.tag(h)) && is_bold_label(doc, h, blocks);
            if !(is_heading(doc.tag(h)) || label) || Some(h) == article_heading || is_pruned(h) {
                continue;
            }
            // What follows the heading in the selection: the rest of its
            // root, then the later roots (a standfirst's heading at the end
            // of the article's head, the body it heads in the next root).
            let ranges = || {
                std::iter::once(doc.node(h).end..end)
                    .chain(roots[i + 1..].iter().map(|&l| l..doc.node(l).end))
            };
            // A bold line that ends the article is its own (a sign-off); it
            // is a box's label when links come next.
            if !heads_text(doc, ranges(), blocks, &is_pruned)
                && (!label || links_follow(doc, ranges()))
            {
                out.push(h);
            }
        }
    }
    out
}

/// Whether the first text in `ranges` (in page order) is a link's.
fn links_follow(doc: &Document, ranges: impl Iterator<Item = std::ops::Range<NodeId>>) -> bool {
    for range in ranges {
        for n in range {
            if doc.text(n).is_some_and(|t| !t.trim().is_empty()) {
                return doc.ancestors(n).any(|a| doc.tag(a) == "a");
            }
        }
    }
    false
}

/// Whether a block of positive worth comes in `ranges` (in page order)
/// before a heading, `is_pruned` nodes left out.
fn heads_text(
    doc: &Document,
    ranges: impl Iterator<Item = std::ops::Range<NodeId>>,
    blocks: &Blocks,
    is_pruned: &dyn Fn(NodeId) -> bool,
) -> bool {
    for range in ranges {
        let mut n = range.start;
        while n < range.end {
            if is_heading(doc.tag(n)) {
                return false;
            }
            if is_pruned(n) {
                n = doc.node(n).end;
                continue;
            }
            if blocks.own_value[n] > 0.0 {
                return true;
            }
            n += 1;
        }
    }
    false
}

/// Whether `n` is a paragraph used as a heading: a `<p>` of at most
/// [`LABEL_CHARS`] whose text is all bold (`<b>`, `<strong>`), as editors
/// title a box of links inside the article's body when the page's
/// template gives them no heading.
fn is_bold_label(doc: &Document, n: NodeId, blocks: &Blocks) -> bool {
    if doc.tag(n) != "p" || blocks.own_chars[n] == 0 || blocks.own_chars[n] > LABEL_CHARS {
        return false;
    }
    doc.text_nodes(n).all(|(t, text)| {
        text.trim().is_empty()
            || doc
                .ancestors(t)
                .take_while(|&a| a != n)
                .any(|a| matches!(doc.tag(a), "b" | "strong"))
    })
}

/// Longest line of figures alone, in characters: a date, a time. 30
/// holds a whole ISO 8601 timestamp ("2021-10-26T15:29:00+02:00", 25); not
/// tuned (the one trafbench line it finds is 10 characters long).
const FIGURES_CHARS: u32 = 30;

/// Whether a block's own text is figures alone, no letter in it: a date
/// or a time on a line of its own ("23.10.2018", "15:29"), a counter.
fn is_figures_only(doc: &Document, blocks: &Blocks, block: NodeId) -> bool {
    let mut digits = false;
    // Its own text: not inside a nested block.
    for (_, t) in doc
        .text_nodes(block)
        .filter(|&(n, _)| blocks.block_of[n] == block)
    {
        for c in t.chars() {
            if c.is_alphabetic() {
                return false;
            }
            digits |= c.is_numeric();
        }
    }
    digits
}
