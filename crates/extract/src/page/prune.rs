//! What goes from inside the selection.

use canopy_dom::{Document, NodeId};

use super::blocks::Blocks;
use super::roles::Roles;
use super::{is_heading, is_prose_block};

/// Characters in paragraphs from which an article is written in
/// paragraphs, and loose text beside them is not the article: three
/// paragraphs' worth (trafilatura's rule of thumb, 3 × 250; 500, 750 and
/// 1500 give the same F on trafbench within 0.001).
const PARAGRAPH_CHARS: u32 = 750;

/// Loose text of a block this long or longer stays all the same: prose
/// written without `<p>` (a `div` of sentences), not a byline or a label.
/// Chosen on trafbench among 60, 100, 150 and 250.
const LOOSE_PROSE_CHARS: u32 = 150;

/// The nodes to leave out of `roots`, in page order: furniture anywhere,
/// boxes named for a role at the article's ends ([`at_the_ends`]), loose
/// text ([`loose_text`]), then headings that head nothing
/// ([`orphan_headings`]).
pub(super) fn pruned(
    doc: &Document,
    roots: &[NodeId],
    heading: Option<NodeId>,
    blocks: &Blocks,
    roles: &Roles,
) -> Vec<NodeId> {
    let mut out = at_the_ends(doc, roots, roles, blocks);
    out.extend(loose_text(doc, roots, blocks));
    out.sort_unstable();
    out.extend(orphan_headings(doc, roots, &out, blocks, heading));
    out.sort_unstable();
    out.dedup();
    out
}

/// Elements the markup calls page furniture, wherever they stand, and
/// elements whose names say they are not article before the article's
/// first paragraph or after its last. Between paragraphs a name is weaker
/// evidence than the paragraphs around it: a "box" or a "list" there is
/// the article's own (a fact box, a list of steps), while share bars,
/// related posts and newsletter boxes stand at the ends.
fn at_the_ends(doc: &Document, roots: &[NodeId], roles: &Roles, blocks: &Blocks) -> Vec<NodeId> {
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
            if roles.furniture[n] || (roles.boilerplate[n] && at_an_end) {
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
                && !is_prose_block(doc.tag(block))
                && blocks.own_chars[block] < LOOSE_PROSE_CHARS
        })
        .collect()
}

/// Headings, other than the article's, that head nothing: no block of
/// positive worth follows them before the next heading, once the `pruned`
/// nodes (sorted) are left out. A box's label ("Related posts", "Share
/// this") would stay when its links go.
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
    for &r in roots {
        let end = doc.node(r).end;
        for h in r..end {
            if !is_heading(doc.tag(h)) || Some(h) == article_heading || is_pruned(h) {
                continue;
            }
            let mut n = doc.node(h).end;
            let mut heads = false;
            while n < end && !is_heading(doc.tag(n)) {
                if is_pruned(n) {
                    n = doc.node(n).end;
                    continue;
                }
                if blocks.own_value[n] > 0.0 {
                    heads = true;
                    break;
                }
                n += 1;
            }
            if !heads {
                out.push(h);
            }
        }
    }
    out
}
