//! The clean tree: the safe elements of a selection, with absolute URLs.

use canopy_dom::{is_block, Document, NodeData, NodeId};
use canopy_metadata::{absolute, image_src};
use url::Url;

/// A node of the clean tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    Element {
        /// One of the safe tags (see the crate docs).
        tag: &'static str,
        /// Only `href` (on `a`), `src` and `alt` (on `img`).
        attrs: Vec<(&'static str, String)>,
        children: Vec<Node>,
    },
    /// Text, whitespace collapsed to single spaces outside `pre`.
    Text(String),
}

/// The clean article: a list of nodes, blocks at the top level.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CleanTree {
    pub nodes: Vec<Node>,
}

const SAFE_TAGS: &[&str] = &[
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "p",
    "ul",
    "ol",
    "li",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "blockquote",
    "figure",
    "figcaption",
    "pre",
    "a",
    "img",
    "br",
    "em",
    "strong",
    "b",
    "i",
    "code",
];

/// Elements whose content is never article text: form controls.
fn is_dropped(tag: &str) -> bool {
    matches!(
        tag,
        "input"
            | "button"
            | "textarea"
            | "option"
            | "optgroup"
            | "label"
            | "output"
            | "progress"
            | "meter"
            | "head"
            | "title"
            | "link"
            | "meta"
            | "area"
            | "map"
    )
}

/// Safe tags whose content is phrasing (inline) only.
fn is_inline_container(tag: &str) -> bool {
    matches!(
        tag,
        "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "p" | "a" | "em" | "strong" | "b" | "i" | "code"
    )
}

/// Whether a clean node is a block.
pub(crate) fn is_block_node(node: &Node) -> bool {
    match node {
        Node::Element { tag, .. } => !matches!(
            *tag,
            "a" | "img" | "br" | "em" | "strong" | "b" | "i" | "code"
        ),
        Node::Text(_) => false,
    }
}

impl Node {
    fn element(tag: &'static str, children: Vec<Node>) -> Node {
        Node::Element {
            tag,
            attrs: Vec::new(),
            children,
        }
    }

    /// Whether the node shows anything: text that is not whitespace, or an image.
    pub(crate) fn has_content(&self) -> bool {
        match self {
            Node::Text(t) => !t.trim().is_empty(),
            Node::Element { tag: "img", .. } => true,
            Node::Element { children, .. } => children.iter().any(Node::has_content),
        }
    }
}

/// Appends text, collapsing the whitespace at the seam with a previous text.
fn push_text(out: &mut Vec<Node>, text: String) {
    if let Some(Node::Text(prev)) = out.last_mut() {
        if prev.ends_with(' ') {
            prev.push_str(text.trim_start_matches(' '));
        } else {
            prev.push_str(&text);
        }
        return;
    }
    out.push(Node::Text(text));
}

fn push(out: &mut Vec<Node>, node: Node) {
    match node {
        Node::Text(t) => push_text(out, t),
        n => out.push(n),
    }
}

fn collapse(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            space = true;
        } else {
            if space {
                out.push(' ');
                space = false;
            }
            out.push(c);
        }
    }
    if space {
        out.push(' ');
    }
    out
}

/// Trims the whitespace (and line breaks) at both ends of inline content.
fn trim_inline(nodes: &mut Vec<Node>) {
    while matches!(nodes.first(), Some(Node::Element { tag: "br", .. })) {
        nodes.remove(0);
    }
    while matches!(nodes.last(), Some(Node::Element { tag: "br", .. })) {
        nodes.pop();
    }
    if let Some(Node::Text(t)) = nodes.first_mut() {
        *t = t.trim_start().to_string();
    }
    if let Some(Node::Text(t)) = nodes.last_mut() {
        *t = t.trim_end().to_string();
    }
    nodes.retain(|n| !matches!(n, Node::Text(t) if t.is_empty()));
}

/// Replaces blocks in inline content by their inline content, a space apart
/// (an HTML5 link may wrap a whole teaser; a heading may hold a `div`).
fn flatten_blocks(nodes: Vec<Node>) -> Vec<Node> {
    let mut out = Vec::new();
    for n in nodes {
        if !is_block_node(&n) {
            push(&mut out, n);
        } else if let Node::Element { children, .. } = n {
            push_text(&mut out, " ".to_string());
            for c in flatten_blocks(children) {
                push(&mut out, c);
            }
            push_text(&mut out, " ".to_string());
        }
    }
    out
}

/// Sets the inline runs of mixed content in paragraphs; runs without
/// content go.
fn paragraphs(nodes: Vec<Node>) -> Vec<Node> {
    let mut out = Vec::new();
    let mut run: Vec<Node> = Vec::new();
    let flush = |run: &mut Vec<Node>, out: &mut Vec<Node>| {
        let mut inline = std::mem::take(run);
        if inline.iter().any(Node::has_content) {
            trim_inline(&mut inline);
            out.push(Node::element("p", inline));
        }
    };
    for n in nodes {
        if is_block_node(&n) {
            flush(&mut run, &mut out);
            out.push(n);
        } else {
            push(&mut run, n);
        }
    }
    flush(&mut run, &mut out);
    out
}

struct Builder<'a> {
    doc: &'a Document,
    keep: &'a dyn Fn(NodeId) -> bool,
    base: Option<&'a Url>,
}

impl Builder<'_> {
    /// The clean nodes of `n`'s content.
    fn children(&self, n: NodeId, in_pre: bool) -> Vec<Node> {
        let mut out = Vec::new();
        for c in self.doc.children(n) {
            if (self.keep)(c) {
                for node in self.convert(c, in_pre) {
                    push(&mut out, node);
                }
            }
        }
        out
    }

    /// The clean nodes `n` becomes: itself, its content, or nothing.
    fn convert(&self, n: NodeId, in_pre: bool) -> Vec<Node> {
        let doc = self.doc;
        let element = match &doc.node(n).data {
            NodeData::Text(_) => {
                let t = doc.text(n).unwrap_or("");
                let t = if in_pre { t.to_string() } else { collapse(t) };
                return vec![Node::Text(t)];
            }
            NodeData::Element(e) => e,
        };
        let tag: &str = &element.tag;
        if is_dropped(tag) {
            return Vec::new();
        }
        let safe = SAFE_TAGS.iter().find(|t| **t == tag).copied();
        let in_pre = in_pre || tag == "pre";
        match safe {
            Some("br") => vec![Node::element("br", Vec::new())],
            Some("img") => {
                let Some(src) = image_src(doc, n).and_then(|s| absolute(self.base, s)) else {
                    return Vec::new();
                };
                let mut attrs = vec![("src", src)];
                if let Some(alt) = doc.attr(n, "alt") {
                    attrs.push(("alt", collapse(alt).trim().to_string()));
                }
                vec![Node::Element {
                    tag: "img",
                    attrs,
                    children: Vec::new(),
                }]
            }
            Some("a") => {
                let children = flatten_blocks(self.children(n, in_pre));
                match doc.attr(n, "href").and_then(|h| absolute(self.base, h)) {
                    Some(href) if children.iter().any(Node::has_content) => vec![Node::Element {
                        tag: "a",
                        attrs: vec![("href", href)],
                        children,
                    }],
                    _ => children,
                }
            }
            Some(tag) => {
                let mut children = self.children(n, in_pre);
                if is_inline_container(tag) {
                    children = flatten_blocks(children);
                }
                self.safe_element(tag, children)
            }
            None if tag == "tfoot" => self.safe_element("tbody", self.children(n, in_pre)),
            // Unwrapped: a container's lines stay apart as paragraphs.
            None if is_block(tag) => paragraphs(self.children(n, in_pre)),
            None => self.children(n, in_pre),
        }
    }

    fn safe_element(&self, tag: &'static str, mut children: Vec<Node>) -> Vec<Node> {
        match tag {
            "ul" | "ol" => children = list_items(children),
            "table" => return table(children),
            "thead" | "tbody" => children.retain(|c| matches!(c, Node::Element { tag: "tr", .. })),
            "tr" => children.retain(|c| {
                matches!(
                    c,
                    Node::Element {
                        tag: "th" | "td",
                        ..
                    }
                )
            }),
            "pre" => {}
            // Inline: spaces inside are the sentence's; an element with
            // nothing but spaces leaves them.
            "em" | "strong" | "b" | "i" | "code" => {
                if !children.iter().any(Node::has_content) {
                    return children;
                }
            }
            // Flow containers (li, td, blockquote, figure…) may hold
            // blocks and inline content side by side.
            _ => {
                if children.iter().any(is_block_node) {
                    children = tidy_mixed(children);
                } else {
                    trim_inline(&mut children);
                }
            }
        }
        let keep_empty = matches!(tag, "th" | "td");
        if !keep_empty && !children.iter().any(Node::has_content) {
            return Vec::new();
        }
        vec![Node::element(tag, children)]
    }
}

/// Mixed content without the whitespace-only texts beside its blocks.
fn tidy_mixed(children: Vec<Node>) -> Vec<Node> {
    let blank = |n: &Node| matches!(n, Node::Text(t) if t.trim().is_empty());
    let beside_block = |i: usize| {
        i == 0
            || i + 1 == children.len()
            || is_block_node(&children[i - 1])
            || is_block_node(&children[i + 1])
    };
    let keep: Vec<bool> = (0..children.len())
        .map(|i| !(blank(&children[i]) && beside_block(i)))
        .collect();
    children
        .into_iter()
        .zip(keep)
        .filter_map(|(c, k)| k.then_some(c))
        .collect()
}

/// A list's content as `li` items: anything else between items becomes an item.
fn list_items(children: Vec<Node>) -> Vec<Node> {
    let mut out = Vec::new();
    let mut run: Vec<Node> = Vec::new();
    let flush = |run: &mut Vec<Node>, out: &mut Vec<Node>| {
        let mut other = std::mem::take(run);
        if other.iter().any(Node::has_content) {
            trim_inline(&mut other);
            out.push(Node::element("li", other));
        }
    };
    for c in children {
        if matches!(c, Node::Element { tag: "li", .. }) {
            flush(&mut run, &mut out);
            out.push(c);
        } else {
            push(&mut run, c);
        }
    }
    flush(&mut run, &mut out);
    out
}

/// A data table, or the content of a layout table (one whose cells hold
/// blocks), cell after cell.
fn table(children: Vec<Node>) -> Vec<Node> {
    let rows: Vec<&Node> = children
        .iter()
        .flat_map(|c| match c {
            Node::Element { tag: "tr", .. } => vec![c],
            Node::Element {
                tag: "thead" | "tbody",
                children,
                ..
            } => children.iter().collect(),
            _ => Vec::new(),
        })
        .collect();
    let cells = rows.iter().flat_map(|r| match r {
        Node::Element { children, .. } => children.iter(),
        Node::Text(_) => [].iter(),
    });
    let layout = cells.clone().any(|cell| match cell {
        Node::Element { children, .. } => children.iter().any(is_block_node),
        Node::Text(_) => false,
    });
    if layout {
        let content: Vec<Node> = cells
            .flat_map(|cell| match cell {
                Node::Element { children, .. } => children.clone(),
                Node::Text(_) => Vec::new(),
            })
            .collect();
        return paragraphs(content);
    }
    if !children.iter().any(Node::has_content) {
        return Vec::new();
    }
    let sections = children
        .into_iter()
        .filter(|c| {
            matches!(
                c,
                Node::Element {
                    tag: "tr" | "thead" | "tbody",
                    ..
                }
            )
        })
        .collect();
    vec![Node::element("table", sections)]
}

impl CleanTree {
    /// The clean tree of the selection `roots` of `doc`. `keep` says which
    /// nodes of the selection the article's text kept (a node it drops is
    /// dropped with its subtree); `base` resolves relative links (links and
    /// images that cannot be made absolute go).
    pub fn build(
        doc: &Document,
        roots: &[NodeId],
        keep: &dyn Fn(NodeId) -> bool,
        base: Option<&Url>,
    ) -> CleanTree {
        let builder = Builder { doc, keep, base };
        let mut nodes = Vec::new();
        for &root in roots {
            let converted = builder.convert(root, false);
            nodes.extend(paragraphs(converted));
        }
        CleanTree { nodes }
    }

    /// Whether the tree shows nothing.
    pub fn is_empty(&self) -> bool {
        !self.nodes.iter().any(Node::has_content)
    }

    /// The tree as HTML, one block a line.
    pub fn html(&self) -> String {
        crate::html::serialize(&self.nodes)
    }

    /// The tree as Markdown.
    pub fn markdown(&self) -> String {
        crate::markdown::render(&self.nodes)
    }
}
