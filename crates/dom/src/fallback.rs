//! Script-rendered containers and their `<noscript>` fallback.
//!
//! A page that fills a region by script (Blogger's
//! `<script type="text/template">` post bodies, single-page apps rendered
//! on the client) often gives readers without scripts the same content in
//! a `<noscript>` beside the script. html5ever parses with scripting on, as
//! a browser does, so the fallback is one run of raw text and the region
//! shows nothing: the article is not in the tree at all. What a reader
//! without scripts sees is that fallback, so a `<noscript>` is parsed into
//! its children when it is the whole of a region: its parent shows no other
//! text, and its markup is prose, not a notice that scripts are off or a
//! tracking pixel.

use html5ever::tokenizer::Tokenizer;
use html5ever::tree_builder::{ElementFlags, TreeBuilder, TreeSink};
use html5ever::{local_name, ns, QualName};

use crate::budget::Budgeted;
use crate::sink::{BuildData, BuildNode, Handle, Sink, NONE};
use crate::{Deadline, Fed};

/// Text a fallback must hold, in bytes, to be taken for the region's
/// content: a notice that scripts are off is one or two sentences (on the
/// dev corpora 159–309 bytes: "Media requires JavaScript…", "In Ihrem
/// Browser ist Javascript deaktiviert…"), an article's body is more.
const MIN_TEXT: usize = 500;

/// Paragraphs (`<p>` holding text) a fallback must hold: prose, not a list
/// of links or the captions of a slideshow.
const MIN_PARAGRAPHS: usize = 2;

/// Parses into its children each `<noscript>` of the body whose parent
/// shows no text of its own and whose raw text is markup holding prose
/// ([`MIN_TEXT`], [`MIN_PARAGRAPHS`]); the others stay raw text, dropped
/// with their element as before. The parents are judged on the page as
/// parsed, before any fallback is taken, so each decision is the same
/// whatever the order. Returns the sink and how the fallbacks' parses
/// ended.
pub(crate) fn take_fallbacks(sink: Sink, max_units: usize, deadline: Deadline) -> (Sink, Ended) {
    let candidates: Vec<(Handle, String)> = {
        let build = sink.nodes.borrow();
        // What the markup alone says first (most noscripts are a tracking
        // pixel or a lazy image); the page's text is counted only if one
        // is left.
        let markup: Vec<(Handle, &str)> = sink
            .noscripts
            .borrow()
            .iter()
            .filter_map(|&h| {
                let text = only_text(&build, &build[h as usize])?;
                may_be_prose(text).then_some((h, text))
            })
            .collect();
        let text = if markup.is_empty() {
            Vec::new()
        } else {
            crate::text_bytes(&build)
        };
        markup
            .into_iter()
            .filter(|&(h, _)| {
                let parent = build[h as usize].parent;
                parent != NONE && text[parent as usize] == 0 && in_body(&build, h)
            })
            .map(|(h, t)| (h, t.to_string()))
            .collect()
    };
    let mut sink = sink;
    let mut cut = false;
    for (noscript, markup) in candidates {
        let (back, root, parse_cut, expired) =
            parse_fragment(sink, noscript, &markup, max_units, deadline);
        sink = back;
        if expired {
            return (sink, Ended::OverBudget);
        }
        if is_prose(&sink.nodes.borrow(), root) {
            let raw = sink.nodes.borrow()[noscript as usize].first_child;
            sink.detach_node(raw);
            sink.move_children(root, noscript);
            sink.nodes.borrow_mut()[noscript as usize].fallback = true;
            cut |= parse_cut;
        }
        sink.detach_node(root);
    }
    (sink, Ended::Parsed { cut })
}

/// How [`take_fallbacks`] ended.
pub(crate) enum Ended {
    /// Every fallback taken is in the tree; `cut`: one's parse was cut by
    /// a budget (the tree's size, formatting or nesting work), as a page's
    /// is.
    Parsed { cut: bool },
    /// The page's deadline passed during a fallback's parse.
    OverBudget,
}

/// Whether a `<noscript>`'s raw markup can hold prose (`is_prose`): as
/// many bytes as its text must have, and a `<p` tag for each paragraph. A
/// `<noscript>` whose markup cannot is never parsed into its children.
pub fn may_be_prose(markup: &str) -> bool {
    markup.len() >= MIN_TEXT
        && markup
            .as_bytes()
            .windows(2)
            .filter(|w| w[0] == b'<' && w[1].eq_ignore_ascii_case(&b'p'))
            .count()
            >= MIN_PARAGRAPHS
}

/// The text of `node` when its one child is a text node.
fn only_text<'a>(build: &'a [BuildNode], node: &BuildNode) -> Option<&'a str> {
    let child = node.first_child;
    if child == NONE || build[child as usize].next != NONE {
        return None;
    }
    match &build[child as usize].data {
        BuildData::Text(t) => Some(t),
        _ => None,
    }
}

/// Whether `h` has a `body` element among its ancestors.
fn in_body(build: &[BuildNode], mut h: Handle) -> bool {
    while h != NONE {
        let node = &build[h as usize];
        if node.name.local == local_name!("body") && node.name.ns == ns!(html) {
            return true;
        }
        h = node.parent;
    }
    false
}

/// `markup` parsed as the content of a `div` at `noscript`'s depth into
/// `sink`, within the page's budgets (the tree's `max_units`, shared with
/// the page; formatting work; nesting work; the deadline): the sink back,
/// the element holding what was parsed (attached to the document node, to
/// be moved and detached by the caller), whether the parse was cut by a
/// budget, and whether the page's deadline passed.
fn parse_fragment(
    sink: Sink,
    noscript: Handle,
    markup: &str,
    max_units: usize,
    deadline: Deadline,
) -> (Sink, Handle, bool, bool) {
    let (depth, vdepth) = {
        let nodes = sink.nodes.borrow();
        let n = &nodes[noscript as usize];
        (n.depth, n.vdepth)
    };
    let context = sink.create_element(
        QualName::new(None, ns!(html), local_name!("div")),
        Vec::new(),
        ElementFlags::default(),
    );
    let builder = TreeBuilder::new_for_fragment(sink, context, None, Default::default());
    // The fragment's root: the element html5ever appended to the document.
    let root = builder.sink.nodes.borrow()[0].last_child;
    {
        let mut nodes = builder.sink.nodes.borrow_mut();
        nodes[root as usize].depth = depth;
        nodes[root as usize].vdepth = vdepth;
    }
    // Through the page's budget proxy, as the page's parse is, and so
    // through the same tokenizer type: a second one, monomorphised apart,
    // made html5ever's tokenizer inlined less in every page's parse (+1.1 %
    // of big9's run, docs/performance.md).
    let tokenizer = Tokenizer::new(Budgeted::new(builder, max_units), Default::default());
    let fed = crate::feed_in_slices(&tokenizer, markup, deadline);
    tokenizer.end();
    let sink = tokenizer.sink.builder.sink;
    let expired = matches!(fed, Fed::OverBudget { .. }) || sink.expired.get();
    (sink, root, matches!(fed, Fed::Cut), expired)
}

/// Whether the subtree under `root` holds prose: [`MIN_PARAGRAPHS`] `p`
/// elements with text, and [`MIN_TEXT`] bytes of text in all.
fn is_prose(build: &[BuildNode], root: Handle) -> bool {
    let mut text = 0;
    // The `p` elements that hold text.
    let mut paragraphs = std::collections::HashSet::new();
    let mut stack = vec![(root, NONE)];
    while let Some((h, p)) = stack.pop() {
        let node = &build[h as usize];
        match &node.data {
            BuildData::Text(t) => {
                let trimmed = t.trim().len();
                text += trimmed;
                if p != NONE && trimmed > 0 {
                    paragraphs.insert(p);
                }
            }
            BuildData::Element { .. } if crate::is_dropped_tag(&node.name.local) => {}
            BuildData::Element { .. } => {
                let p = if node.name.local == local_name!("p") {
                    h
                } else {
                    p
                };
                let mut child = node.first_child;
                while child != NONE {
                    stack.push((child, p));
                    child = build[child as usize].next;
                }
            }
            _ => {}
        }
    }
    text >= MIN_TEXT && paragraphs.len() >= MIN_PARAGRAPHS
}
