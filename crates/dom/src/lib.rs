//! HTML to a compact arena DOM, in depth-first order.
//!
//! [`Document::parse`] runs html5ever into a linked build tree, then lays the
//! kept nodes out in one `Vec` in depth-first (pre-)order. A node's subtree is
//! the index range `id + 1 .. node.end`, so walking a subtree, finding
//! children or testing ancestry needs no recursion and no pointers.
//!
//! What the document keeps and drops (the Forest paper's pre-processing,
//! forest.md §3.1): `script`, `style`, `noscript`, `template`, comments and
//! hidden elements are dropped, as are elements whose children are fallback
//! content never rendered (`iframe`, `object`, `embed`, `canvas`, `svg`),
//! form widgets whose options are not page text (`select`, `datalist`), and
//! ruby annotations (`rt`, `rp`: the reading above a word). A `noscript`
//! that is the whole of a region filled by script is parsed and kept
//! (`fallback.rs`).
//! Every kept element gets its `dfs` number: its position in a depth-first
//! walk of the elements, `html` being 0.
//!
//! ```
//! use canopy_dom::{Document, DomOptions};
//! let doc = Document::parse("<p>Hello <b>world</b><script>x()</script>", &DomOptions::default());
//! let body = doc.body();
//! assert_eq!(doc.inner_text(body), "Hello world");
//! ```

mod budget;
mod codec;
mod deadline;
mod fallback;
mod sink;
mod text;

use std::ops::Range;

use html5ever::tokenizer::{BufferQueue, Tokenizer};
use html5ever::tree_builder::TreeBuilder;
use html5ever::TokenizerResult;

pub use budget::MAX_FORMATTING_WORK;
pub use codec::DecodeError;
pub use deadline::{Deadline, OverBudget};
pub use fallback::may_be_prose;
/// Attribute names as atoms, for [`Document::attr_named`].
pub use html5ever::{local_name, LocalName};
pub use text::{collapse_whitespace, is_block, is_collapsed, is_heading, text_key};

use sink::{BuildData, Sink, NONE};

/// Bytes handed to html5ever at a time (see [`Document::parse`]).
const PARSE_SLICE: usize = 16 << 10;

/// Index of a node in a [`Document`].
pub type NodeId = usize;

/// Limits that keep one page from costing more than a page should.
#[derive(Debug, Clone)]
pub struct DomOptions {
    /// Deepest nesting kept; deeper elements are attached at this depth
    /// (512, as browsers do: html5ever's tree building is quadratic in depth).
    pub max_depth: u32,
    /// Largest input, in bytes, that is parsed; the rest is cut off.
    pub max_bytes: usize,
    /// Most nodes plus attributes the tree builder may create for one page;
    /// past it the rest of the page is cut off (`budget.rs`: markup can
    /// make the builder create far more nodes than the page has tags).
    pub max_nodes: usize,
    /// Elements whose `id` or one of whose class tokens contains one of
    /// these (lowercase) strings are dropped with their subtree: user
    /// comments and similar blocks that are never part of an article.
    /// Class tokens naming the post's topics (`tag-*`, `category-*`,
    /// [`is_taxonomy_class`]) or its publishing state (`node-promoted`,
    /// [`is_state_class`]) are not looked at.
    pub drop_id_class: Vec<String>,
    /// An empty fragment anchor whose `id` or `name` contains one of these
    /// (lowercase) strings opens a flat section that is dropped to the end
    /// of its container (the comments of old blog layouts).
    pub section_anchors: Vec<String>,
    /// The rendered text bytes of the whole page ([`page_text_bytes`]) when
    /// the input is a part of it (the region of a known template that a
    /// streaming pass found): the drop list's guard weighs a named element
    /// against the page's text, not the part's.
    pub page_text: Option<usize>,
    /// The whole page's own host, the host most of its absolute links
    /// point to (`canopy_extract`'s cleaning tells a site's own links from
    /// others' by it), when the input is a part of the page that holds
    /// only some of its links ([`Document::page_link_host`]).
    pub page_link_host: Option<String>,
}

impl DomOptions {
    /// Whether an `id` or a class token names a role of the drop list.
    fn names_role(&self, name: &str) -> bool {
        contains_any(name, &self.drop_id_class)
    }

    /// Whether the drop list names an element (its `id`, or a class token
    /// other than a topic's or a publishing state's) that the markup does
    /// not call the main content ([`marks_main_content`]): it is dropped
    /// when it holds less than half of the page's text. `attr` gives the
    /// element's attribute of a name.
    pub fn names_dropped_role<'a>(
        &self,
        tag: &str,
        attr: impl Fn(&str) -> Option<&'a str>,
    ) -> bool {
        !self.drop_id_class.is_empty()
            && (attr("id").is_some_and(|id| self.names_role(id))
                || attr("class").is_some_and(|class| {
                    class.split_ascii_whitespace().any(|token| {
                        !is_taxonomy_class(token)
                            && !is_state_class(token)
                            && self.names_role(token)
                    })
                }))
            && !marks_main_content(tag, attr)
    }
}

/// Whether `name`, lower-cased, contains one of `names` (lowercase): the
/// test of an id or class token against a list of role names. Runs for the
/// id and every class token of every element, so an ASCII name (nearly all)
/// is lower-cased on the stack, not on the heap; for ASCII, `to_lowercase`
/// is `to_ascii_lowercase`, so the answer is the same.
pub fn contains_any(name: &str, names: &[String]) -> bool {
    if !name.is_ascii() {
        let name = name.to_lowercase();
        return names.iter().any(|d| name.contains(d.as_str()));
    }
    // The first bytes of the role names, as a set of ASCII bytes: a role
    // name that does not open with one can never be in an ASCII name.
    let mut firsts = 0u128;
    for d in names {
        match d.as_bytes().first() {
            None => return true,
            Some(&b) if b.is_ascii() => firsts |= 1 << b,
            Some(_) => {}
        }
    }
    // Lower-cased once into a stack buffer (ids and class tokens are
    // short), then the role names are compared only where one may start.
    let mut buf = [0u8; 64];
    let owned;
    let lower: &[u8] = if name.len() <= buf.len() {
        let buf = &mut buf[..name.len()];
        for (l, c) in buf.iter_mut().zip(name.bytes()) {
            *l = c.to_ascii_lowercase();
        }
        buf
    } else {
        owned = name.to_ascii_lowercase();
        owned.as_bytes()
    };
    (0..lower.len()).any(|i| {
        let c = lower[i];
        firsts >> c & 1 == 1
            && names.iter().any(|d| {
                let d = d.as_bytes();
                d[0] == c && lower[i..].starts_with(d)
            })
    })
}

/// A class token that names the post's topics, not the element's role:
/// blog engines tag the article's own container with its taxonomy
/// (WordPress's `post_class()`: `tag-promotion`, `category-comments`), so a
/// topic must not drop the article.
pub fn is_taxonomy_class(token: &str) -> bool {
    ["tag-", "category-"].iter().any(|prefix| {
        token
            .get(..prefix.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(prefix))
    })
}

/// A class token that says the post's publishing state, not the element's
/// role: Drupal marks an article node that is promoted to the front page
/// (its Article type's default) `node-promoted` (Drupal 7, on a `div`) or
/// `node--promoted`, other engines `is-promoted`, so `promo` in it names no
/// promotion box. Only the participle at the token's end is a state: a
/// `promoted-posts` box is still one.
pub fn is_state_class(token: &str) -> bool {
    const PROMOTED: &str = "promoted";
    token
        .len()
        .checked_sub(PROMOTED.len())
        .and_then(|start| token.get(start..))
        .is_some_and(|tail| tail.eq_ignore_ascii_case(PROMOTED))
}

impl Default for DomOptions {
    fn default() -> Self {
        DomOptions {
            max_depth: 512,
            max_bytes: 16 << 20,
            max_nodes: 2_000_000,
            drop_id_class: Vec::new(),
            section_anchors: Vec::new(),
            page_text: None,
            page_link_host: None,
        }
    }
}

/// An element: its interned tag name, attributes and `dfs` number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Element {
    pub tag: LocalName,
    /// Its attributes, as a range of the document's attribute list: read
    /// them with [`Document::attrs`].
    attrs: Range<u32>,
    /// Position in the depth-first walk of elements (`html` is 0).
    pub dfs: u32,
}

/// What a node holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NodeData {
    Element(Element),
    /// A text node: a range into the document's text buffer.
    Text(Range<u32>),
}

/// One node of the arena.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    pub data: NodeData,
    /// Parent node, `None` for the root element.
    pub parent: Option<NodeId>,
    /// One past the last node of this node's subtree.
    pub end: NodeId,
    /// Number of element ancestors (the root element has depth 0).
    pub depth: u32,
}

/// A parsed page.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Document {
    nodes: Vec<Node>,
    text: String,
    /// Every element's attributes, in node order: the name and the range of
    /// its value in `attr_text`. One list and one buffer for the page rather
    /// than a `Vec` and a `String` per element and attribute: a page has
    /// thousands of attributes, and allocating and freeing each cost 1.7 %
    /// of a run's instructions (docs/performance.md).
    attrs: Vec<(LocalName, Range<u32>)>,
    attr_text: String,
    body: NodeId,
    /// The text of each `<script type="application/ld+json">`, in page
    /// order: scripts are dropped from the tree, but this one is page
    /// metadata (schema.org JSON-LD), not code.
    json_ld: Vec<String>,
    /// The elements that are the adoption agency's copies of a formatting
    /// element, in node order ([`Document::adopted_rest`]).
    adoption_copies: Vec<NodeId>,
    /// [`DomOptions::page_link_host`].
    page_link_host: Option<String>,
    /// Whether the input was cut at `max_bytes`, nesting flattened at
    /// `max_depth`, the rest of a page nested far beyond `max_depth` cut
    /// when its parse ran out of budget, or the rest of the page cut at
    /// one of the tree builder's budgets (`max_nodes`, formatting work:
    /// `budget.rs`).
    pub truncated: bool,
}

/// Per build node: whether the drop list names it and it is
/// dropped, holding less than half of the page's text and not called the
/// article by the markup ([`marks_main_content`]). A name is a guess
/// from a word ("menu", "footer", "promo"); an element that holds most of
/// the page is its layout, whatever it is called (a
/// `region-body-and-footer` column, a menu script's wrapper of the whole
/// page), and dropping it would empty the page.
fn role_drops(build: &[sink::BuildNode], options: &DomOptions) -> Vec<bool> {
    let mut dropped = vec![false; build.len()];
    let named: Vec<usize> = (0..build.len())
        .filter(|&h| match &build[h].data {
            BuildData::Element { attrs } => {
                let attr = |name: &str| {
                    attrs
                        .iter()
                        .find(|a| &*a.name.local == name)
                        .map(|a| &*a.value)
                };
                let kept = options.page_text.is_some() && attr(KEPT_MARK).is_some();
                !kept && options.names_dropped_role(&build[h].name.local, attr)
            }
            _ => false,
        })
        .collect();
    if named.is_empty() {
        return dropped;
    }
    let bytes = text_bytes(build);
    let page = options.page_text.unwrap_or(bytes[0]);
    for h in named {
        dropped[h] = 2 * bytes[h] < page;
    }
    dropped
}

/// In a part of a page parsed alone ([`DomOptions::page_text`]), an
/// element with this attribute is kept whatever the drop list names: the
/// streaming pass marks so the ancestors of a region, which hold less of
/// the part's text than of the page's, and which the whole page's tree
/// keeps.
pub const KEPT_MARK: &str = "data-canopy-kept";

/// Whether the markup itself says an element is the page's main content
/// or an article: `<article>`, `<main>`, `role=main|article`, schema.org's
/// `itemprop=articleBody`; `attr` gives the element's attribute of a name.
/// The drop list's names are guesses from a word inside a name (`promo` in
/// a CMS's `node--promoted` article); the markup's own word for the
/// element outweighs them. The page-level extractor's credible containers
/// start from the same words.
pub fn marks_main_content<'a>(tag: &str, attr: impl Fn(&str) -> Option<&'a str>) -> bool {
    matches!(tag, "article" | "main")
        || has_token(attr("role"), &["main", "article"])
        || has_token(attr("itemprop"), &["articleBody"])
}

/// Whether an attribute's value holds one of `wanted` among its
/// white-space separated tokens, ASCII case ignored.
pub fn has_token(value: Option<&str>, wanted: &[&str]) -> bool {
    value.is_some_and(|v| {
        v.split_ascii_whitespace()
            .any(|t| wanted.iter().any(|w| t.eq_ignore_ascii_case(w)))
    })
}

/// html5ever's tree of the page with its script fallbacks taken, and
/// whether the page was cut (its bytes, a budget, nesting flattened).
fn build_tree(
    html: &str,
    options: &DomOptions,
    deadline: Deadline,
) -> Result<(Sink, bool), OverBudget> {
    let mut truncated = false;
    let input = if html.len() > options.max_bytes {
        truncated = true;
        let mut cut = options.max_bytes;
        while !html.is_char_boundary(cut) {
            cut -= 1;
        }
        html.get(..cut).unwrap_or("")
    } else {
        html
    };
    let sink = Sink::new(options.max_depth, deadline, input.len());
    let builder = TreeBuilder::new(sink, Default::default());
    let tokenizer = Tokenizer::new(
        budget::Budgeted::new(builder, options.max_nodes),
        Default::default(),
    );
    match feed_in_slices(&tokenizer, input, deadline) {
        Fed::Whole => {}
        Fed::Cut => truncated = true,
        Fed::OverBudget { bytes_parsed } => {
            let over = OverBudget {
                bytes_parsed,
                nodes: tokenizer.sink.builder.sink.nodes.borrow().len(),
            };
            return Err(over);
        }
    }
    tokenizer.end();
    let (sink, ended) =
        fallback::take_fallbacks(tokenizer.sink.builder.sink, options.max_nodes, deadline);
    match ended {
        fallback::Ended::Parsed { cut } => truncated |= cut,
        fallback::Ended::OverBudget => {
            let over = OverBudget {
                bytes_parsed: input.len(),
                nodes: sink.nodes.borrow().len(),
            };
            return Err(over);
        }
    }
    truncated |= sink.flattened.get();
    Ok((sink, truncated))
}

/// The rendered text bytes of a page: its text outside the elements that
/// are never rendered ([`is_dropped_tag`]), what the drop list's guard
/// weighs a named element against. A streaming pass over a page counts
/// the same from its bytes ([`DomOptions::page_text`]).
pub fn page_text_bytes(html: &str, options: &DomOptions) -> Result<usize, OverBudget> {
    let (sink, _) = build_tree(html, options, Deadline::after(None))?;
    Ok(text_bytes(&sink.nodes.into_inner())[0])
}

/// Bytes of rendered text in each build node's subtree (text outside the
/// elements that are never rendered, [`is_dropped_tag`]), in one walk
/// from the document node; 0 for nodes it does not reach.
fn text_bytes(build: &[sink::BuildNode]) -> Vec<usize> {
    // Pre-order with each node's parent in the walk; summed in reverse,
    // every child comes before its parent.
    let mut order: Vec<(u32, u32)> = Vec::with_capacity(build.len());
    let mut stack = vec![(0u32, NONE)];
    while let Some((h, parent)) = stack.pop() {
        order.push((h, parent));
        let node = &build[h as usize];
        if matches!(node.data, BuildData::Element { .. })
            && is_dropped_tag(&node.name.local)
            && !node.fallback
        {
            continue;
        }
        let mut child = node.first_child;
        while child != NONE {
            stack.push((child, h));
            child = build[child as usize].next;
        }
    }
    let mut bytes = vec![0usize; build.len()];
    for &(h, parent) in order.iter().rev() {
        if let BuildData::Text(t) = &build[h as usize].data {
            bytes[h as usize] += t.trim().len();
        }
        if parent != NONE {
            bytes[parent as usize] += bytes[h as usize];
        }
    }
    bytes
}

/// Build handles that open a flat comment section: old blog layouts put
/// reader comments in the article's own container, after an empty fragment
/// anchor (`<h2><a id="comments"></a>Comments</h2>`, `<a name="comments">`)
/// that `section_anchors` names. An anchor is where a fragment link lands, so
/// everything from it on is the comments: the anchor's heading (or inline
/// wrapper) and every later sibling of it are dropped. Only an empty `<a>`
/// without `href` counts: a link or an icon with a "comment" class says
/// nothing about where the comments begin.
fn comment_section_starts(
    build: &[sink::BuildNode],
    anchors: &[String],
) -> std::collections::HashSet<u32> {
    let mut starts = std::collections::HashSet::new();
    for (handle, node) in build.iter().enumerate() {
        let BuildData::Element { attrs } = &node.data else {
            continue;
        };
        let attr = |name: &str| {
            attrs
                .iter()
                .find(|a| &*a.name.local == name)
                .map(|a| &*a.value)
        };
        let is_marker =
            node.first_child == NONE && names_section_anchor(&node.name.local, attr, anchors);
        if !is_marker {
            continue;
        }
        // Climb out of headings and inline wrappers to the block that
        // starts the section.
        let mut start = handle as u32;
        loop {
            let parent = build[start as usize].parent;
            if parent == NONE {
                break;
            }
            if !is_section_wrapper(&build[parent as usize].name.local) {
                break;
            }
            start = parent;
        }
        // Every walk goes to the end of its sibling list, so a sibling
        // already in the set has all its later siblings there too: stop at
        // it (a page of 40,000 anchors in one container walked the list
        // 40,000 times).
        let mut sibling = start;
        while sibling != NONE && starts.insert(sibling) {
            sibling = build[sibling as usize].next;
        }
    }
    starts
}

/// Whether an element is a fragment anchor that `anchors` (the
/// `section_anchors` list) names: an `<a>` without `href` whose `id` or
/// `name` contains one of them. An empty one starts a comment section.
pub fn names_section_anchor<'a>(
    tag: &str,
    attr: impl Fn(&str) -> Option<&'a str>,
    anchors: &[String],
) -> bool {
    tag == "a"
        && attr("href").is_none()
        && ["id", "name"]
            .iter()
            .any(|n| attr(n).is_some_and(|v| contains_any(v, anchors)))
}

/// Headings and inline wrappers a comment section's anchor sits in: the
/// section starts at the outermost of them around it.
pub fn is_section_wrapper(tag: &str) -> bool {
    matches!(
        tag,
        "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "span" | "b" | "strong" | "em" | "font" | "p"
    )
}

/// How [`feed_in_slices`] ended.
enum Fed {
    /// All of the input was parsed.
    Whole,
    /// A budget stopped it with input left: the tree's size or formatting
    /// work (`budget.rs`), or the work beyond the depth cap.
    Cut,
    /// The deadline passed after `bytes_parsed` bytes.
    OverBudget { bytes_parsed: usize },
}

/// Feeds `input` to `tokenizer` in [`PARSE_SLICE`] slices, so that a page
/// nested far beyond `max_depth` can be cut: html5ever's tree builder scans
/// its stack of open elements for most start tags, which is quadratic in
/// nesting depth (100,000 nested `<div>`s took 36 s). Once the work spent
/// beyond the cap passes its budget, the rest is dropped; the deadline and
/// the tree's budgets are read between slices. The caller ends the
/// tokenizer.
fn feed_in_slices(tokenizer: &Tokenizer<budget::Budgeted>, input: &str, deadline: Deadline) -> Fed {
    let queue = BufferQueue::default();
    let mut rest = input;
    while !rest.is_empty() {
        let mut cut = rest.len().min(PARSE_SLICE);
        while !rest.is_char_boundary(cut) {
            cut += 1;
        }
        let (slice, tail) = rest.split_at(cut);
        queue.push_back(slice.into());
        // The tokenizer pauses at each `</script>` for a caller that runs
        // scripts; there are none to run, so it goes on.
        while !matches!(tokenizer.feed(&queue), TokenizerResult::Done) {}
        rest = tail;
        let sink = &tokenizer.sink.builder.sink;
        if sink.expired.get() || (!rest.is_empty() && deadline.expired()) {
            return Fed::OverBudget {
                bytes_parsed: input.len() - rest.len(),
            };
        }
        if tokenizer.sink.cut.get() {
            return Fed::Cut;
        }
        if sink.deep_work.get() > sink::MAX_DEEP_WORK {
            return if rest.is_empty() {
                Fed::Whole
            } else {
                Fed::Cut
            };
        }
    }
    Fed::Whole
}

/// Elements dropped with their whole subtree, whatever their attributes.
pub fn is_dropped_tag(tag: &str) -> bool {
    matches!(
        tag,
        "script"
            | "style"
            | "noscript"
            | "template"
            | "iframe"
            | "object"
            | "embed"
            | "canvas"
            | "svg"
            | "math"
            | "select"
            | "datalist"
            // Ruby annotations: the reading printed above a word (furigana),
            // and the parentheses for browsers without ruby. The word is the
            // text; its reading, run into it, would double every word.
            | "rt"
            | "rp"
    )
}

/// Elements a browser does not render: the `hidden` attribute,
/// `aria-hidden="true"`, or an inline style with `display:none` or
/// `visibility:hidden`. Takes (lowercase name, value) pairs, so that a
/// pass over the page's bytes (`canopy_stream`) applies the same rule.
pub fn is_hidden<'a>(attrs: impl IntoIterator<Item = (&'a str, &'a str)>) -> bool {
    attrs.into_iter().any(|(name, value)| match name {
        "hidden" => true,
        "aria-hidden" => value.trim().eq_ignore_ascii_case("true"),
        "style" => {
            let style: String = value
                .chars()
                .filter(|c| !c.is_whitespace())
                .flat_map(char::to_lowercase)
                .collect();
            style.contains("display:none") || style.contains("visibility:hidden")
        }
        _ => false,
    })
}

/// Whether a `<script>` holds JSON-LD (`type="application/ld+json"`).
fn is_json_ld(attrs: &[html5ever::Attribute]) -> bool {
    attrs
        .iter()
        .any(|a| &*a.name.local == "type" && is_json_ld_type(&a.value))
}

/// Whether a `<script>`'s `type` says it holds JSON-LD, which the tree
/// keeps as page metadata ([`Document::json_ld`]).
pub fn is_json_ld_type(value: &str) -> bool {
    value.trim().eq_ignore_ascii_case("application/ld+json")
}

/// The text children of a build-tree node, concatenated.
fn build_text(build: &[sink::BuildNode], handle: u32) -> String {
    let mut out = String::new();
    let mut child = build[handle as usize].first_child;
    while child != NONE {
        if let BuildData::Text(t) = &build[child as usize].data {
            out.push_str(t);
        }
        child = build[child as usize].next;
    }
    out
}

impl Document {
    /// Parses a page. Never fails: broken HTML gives the tree a browser
    /// would build, and limits cut the page rather than reject it (see
    /// [`Document::truncated`]).
    pub fn parse(html: &str, options: &DomOptions) -> Document {
        Self::parse_inner(html, options, Deadline::none()).0
    }

    /// [`Document::parse`] within a time budget: the builder reads the
    /// clock every [`Deadline::CHECK_EVERY`] nodes and the input is fed in
    /// 16 KiB slices, so a parse that passes its deadline stops within one
    /// slice and returns [`OverBudget`] (the page is rejected, not cut:
    /// what was parsed in time depends on the machine, so keeping it would
    /// make the output depend on it too).
    pub fn parse_within(
        html: &str,
        options: &DomOptions,
        deadline: Deadline,
    ) -> Result<Document, OverBudget> {
        match Self::parse_inner(html, options, deadline) {
            (doc, None) => Ok(doc),
            (_, Some(over)) => Err(over),
        }
    }

    fn parse_inner(
        html: &str,
        options: &DomOptions,
        deadline: Deadline,
    ) -> (Document, Option<OverBudget>) {
        let (sink, truncated) = match build_tree(html, options, deadline) {
            Ok(built) => built,
            Err(over) => return (Document::default(), Some(over)),
        };
        let mut doc = Self::from_build_tree(sink, options);
        doc.truncated = truncated;
        (doc, None)
    }

    /// Lays out the kept nodes of the build tree in depth-first order.
    fn from_build_tree(sink: Sink, options: &DomOptions) -> Document {
        let attrs = sink.attr_count();
        let build = sink.nodes.into_inner();
        let comment_sections = comment_section_starts(&build, &options.section_anchors);
        let role_drops = role_drops(&build, options);
        let mut doc = Document {
            page_link_host: options.page_link_host.clone(),
            ..Document::default()
        };
        // At most every build node and attribute is kept.
        doc.nodes.reserve(build.len());
        doc.attrs.reserve(attrs);
        // The root element: the document's first element child (`html`).
        let mut root = build[0].first_child;
        while root != NONE && !matches!(build[root as usize].data, BuildData::Element { .. }) {
            root = build[root as usize].next;
        }
        if root == NONE {
            // Cannot happen with html5ever (it always creates html/head/body),
            // but an empty document is the right answer if it does.
            doc.nodes.push(Node {
                data: NodeData::Element(Element {
                    tag: local_name!("html"),
                    attrs: 0..0,
                    dfs: 0,
                }),
                parent: None,
                end: 1,
                depth: 0,
            });
            return doc;
        }

        // Iterative pre-order walk. The stack holds build handles to visit
        // and, for closing, the arena index whose `end` must be set.
        enum Step {
            Open(u32, Option<NodeId>, u32),
            Close(NodeId),
        }
        let mut stack = vec![Step::Open(root, None, 0)];
        let mut dfs = 0u32;
        let mut body = None;
        while let Some(step) = stack.pop() {
            match step {
                Step::Close(id) => doc.nodes[id].end = doc.nodes.len(),
                Step::Open(handle, parent, depth) => {
                    let b = &build[handle as usize];
                    match &b.data {
                        BuildData::Element { attrs } => {
                            let tag = b.name.local.clone();
                            // The root and body are always kept: a page styled hidden
                            // until scripts run, or a body class such as
                            // "comments-open", must not empty the document.
                            let structural = parent.is_none() || tag == local_name!("body");
                            if !structural
                                && ((is_dropped_tag(&tag) && !b.fallback)
                                    || is_hidden(attrs.iter().map(|a| (&*a.name.local, &*a.value)))
                                    || role_drops[handle as usize]
                                    || comment_sections.contains(&handle))
                            {
                                if tag == local_name!("script") && is_json_ld(attrs) {
                                    doc.json_ld.push(build_text(&build, handle));
                                }
                                continue;
                            }
                            let id = doc.nodes.len();
                            if tag == local_name!("body") && body.is_none() {
                                body = Some(id);
                            }
                            if b.adoption_copy {
                                doc.adoption_copies.push(id);
                            }
                            let first_attr = doc.attrs.len() as u32;
                            for a in attrs {
                                let start = doc.attr_text.len() as u32;
                                doc.attr_text.push_str(&a.value);
                                let value = start..doc.attr_text.len() as u32;
                                doc.attrs.push((a.name.local.clone(), value));
                            }
                            doc.nodes.push(Node {
                                data: NodeData::Element(Element {
                                    tag,
                                    attrs: first_attr..doc.attrs.len() as u32,
                                    dfs,
                                }),
                                parent,
                                end: id + 1,
                                depth,
                            });
                            dfs += 1;
                            stack.push(Step::Close(id));
                            // Push children in reverse so the first is visited first.
                            let mut child = b.last_child;
                            while child != NONE {
                                stack.push(Step::Open(child, Some(id), depth + 1));
                                child = build[child as usize].prev;
                            }
                        }
                        BuildData::Text(t) => {
                            // Adjacent text nodes (left apart by a dropped
                            // comment or element) are merged.
                            let id = doc.nodes.len();
                            if let Some(last) = doc.nodes.last_mut() {
                                if let NodeData::Text(range) = &mut last.data {
                                    if last.parent == parent && range.end as usize == doc.text.len()
                                    {
                                        doc.text.push_str(t);
                                        range.end = doc.text.len() as u32;
                                        continue;
                                    }
                                }
                            }
                            let start = doc.text.len() as u32;
                            doc.text.push_str(t);
                            doc.nodes.push(Node {
                                data: NodeData::Text(start..doc.text.len() as u32),
                                parent,
                                end: id + 1,
                                depth,
                            });
                        }
                        BuildData::Document | BuildData::Other => {}
                    }
                }
            }
        }
        doc.body = body.unwrap_or(0);
        doc
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the document has no nodes (never true for a parsed page).
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The root element (`html`).
    pub fn root(&self) -> NodeId {
        0
    }

    /// The `body` element (the root if there is none).
    pub fn body(&self) -> NodeId {
        self.body
    }

    /// A node.
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id]
    }

    /// All nodes, in depth-first order.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// The element data of a node, if it is an element.
    pub fn element(&self, id: NodeId) -> Option<&Element> {
        match &self.nodes[id].data {
            NodeData::Element(e) => Some(e),
            NodeData::Text(_) => None,
        }
    }

    /// The tag name of an element, `""` for a text node.
    pub fn tag(&self, id: NodeId) -> &str {
        self.element(id).map_or("", |e| &e.tag)
    }

    /// An attribute's value.
    pub fn attr(&self, id: NodeId, name: &str) -> Option<&str> {
        // Names first, the value's slice only for the match: this runs for
        // several names on every element of every page.
        let (_, value) = self.attr_list(id).iter().find(|(n, _)| &**n == name)?;
        Some(self.attr_value(value))
    }

    /// [`Document::attr`] for a name given as an atom (`local_name!("class")`,
    /// re-exported here): each attribute's name is compared as one integer,
    /// not read out of the atom table and compared as text. For the names
    /// read on every element of every page (`id`, `class`, `itemprop`, …).
    pub fn attr_named(&self, id: NodeId, name: &LocalName) -> Option<&str> {
        let (_, value) = self.attr_list(id).iter().find(|(n, _)| n == name)?;
        Some(self.attr_value(value))
    }

    /// An element's attributes (name, value) in source order; none for a
    /// text node.
    pub fn attrs(&self, id: NodeId) -> impl Iterator<Item = (&LocalName, &str)> + '_ {
        self.attr_list(id)
            .iter()
            .map(|(name, value)| (name, self.attr_value(value)))
    }

    fn attr_list(&self, id: NodeId) -> &[(LocalName, Range<u32>)] {
        let range = self.element(id).map_or(0..0, |e| e.attrs.clone());
        &self.attrs[range.start as usize..range.end as usize]
    }

    fn attr_value(&self, range: &Range<u32>) -> &str {
        self.attr_text
            .get(range.start as usize..range.end as usize)
            .unwrap_or("")
    }

    /// The end of formatting element `n`'s content when the HTML parser
    /// moved it out of `n`: the copy of `n` inside `n`'s next sibling.
    ///
    /// Old layouts wrap a column's paragraphs in a `<font>` (or `<b>`, an
    /// `<a>`…) and close it while the last `<p>` is still open:
    /// `<font size=2><p>one<p>two</font>`. The parser's adoption agency
    /// (HTML Standard, "adoption agency algorithm") then moves that open
    /// block after the `<font>` and gives it a copy of the `<font>` holding
    /// its content: `<font><p>one</p></font><p><font>two</font></p>`. The
    /// copy holds exactly what stood inside `n` in the source, so a
    /// selection of `n` includes it (libxml2, and so the portable XPath
    /// evaluated with lxml, keeps `two` inside the `<font>`).
    pub fn adopted_rest(&self, n: NodeId) -> Option<NodeId> {
        if self.adoption_copies.is_empty() {
            return None;
        }
        let block = self.nodes[n].end;
        let copy = block + 1;
        let next = self.nodes.get(block)?;
        // `copy < next.end`: the block has children, so it is an element.
        let fits = next.parent == self.nodes[n].parent
            && copy < next.end
            && self.adoption_copies.binary_search(&copy).is_ok()
            && self.tag(copy) == self.tag(n)
            && self.attrs(copy).eq(self.attrs(n));
        fits.then_some(copy)
    }

    /// The raw text of a text node, `None` for an element.
    pub fn text(&self, id: NodeId) -> Option<&str> {
        match &self.nodes[id].data {
            NodeData::Text(r) => self.text.get(r.start as usize..r.end as usize),
            NodeData::Element(_) => None,
        }
    }

    /// The nodes of `id`'s subtree, `id` excluded.
    pub fn descendants(&self, id: NodeId) -> Range<NodeId> {
        id + 1..self.nodes[id].end
    }

    /// Whether `ancestor` is `node` or one of its ancestors.
    pub fn contains(&self, ancestor: NodeId, node: NodeId) -> bool {
        ancestor <= node && node < self.nodes[ancestor].end
    }

    /// The children of a node, in order.
    pub fn children(&self, id: NodeId) -> Children<'_> {
        Children {
            doc: self,
            next: id + 1,
            end: self.nodes[id].end,
        }
    }

    /// The ancestors of a node, nearest first, the node excluded.
    pub fn ancestors(&self, id: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        std::iter::successors(self.nodes[id].parent, move |&p| self.nodes[p].parent)
    }

    /// The text nodes of a subtree (the node itself included), in order.
    pub fn text_nodes(&self, id: NodeId) -> impl Iterator<Item = (NodeId, &str)> + '_ {
        (id..self.nodes[id].end).filter_map(move |n| self.text(n).map(|t| (n, t)))
    }

    /// The keys ([`text_key`]) of the body's text nodes, whitespace
    /// collapsed, blank ones left out: sorted, each once.
    pub fn text_keys(&self) -> Vec<u64> {
        let mut collapsed = String::new();
        let mut keys: Vec<u64> = self
            .text_nodes(self.body())
            .filter_map(|(_, text)| {
                let text = if is_collapsed(text) {
                    text
                } else {
                    collapsed = collapse_whitespace(text);
                    &collapsed
                };
                (!text.is_empty()).then(|| text_key(text))
            })
            .collect();
        keys.sort_unstable();
        keys.dedup();
        keys
    }

    /// The `<title>` text, whitespace collapsed.
    pub fn title(&self) -> String {
        (0..self.body.max(1).min(self.nodes.len()))
            .chain(0..self.nodes.len())
            .find(|&n| self.tag(n) == "title")
            .map(|n| collapse_whitespace(&self.raw_text(n)))
            .unwrap_or_default()
    }

    /// The text of the page's JSON-LD scripts (`<script
    /// type="application/ld+json">`), in page order, unparsed.
    pub fn json_ld(&self) -> &[String] {
        &self.json_ld
    }

    /// The whole page's own host when this document is a part of the page
    /// ([`DomOptions::page_link_host`]); `None` for a whole page, whose
    /// links tell it.
    pub fn page_link_host(&self) -> Option<&str> {
        self.page_link_host.as_deref()
    }

    /// The `lang` attribute of the root element, if any.
    pub fn lang(&self) -> Option<&str> {
        self.attr(0, "lang")
            .or_else(|| self.attr(0, "xml:lang"))
            .map(str::trim)
            .filter(|l| !l.is_empty())
    }

    /// The `content` of the first `<meta name=…>` or `<meta property=…>`
    /// whose name matches (ASCII case-insensitively).
    pub fn meta(&self, name: &str) -> Option<&str> {
        (0..self.nodes.len())
            .filter(|&n| self.tag(n) == "meta")
            .find(|&n| {
                ["name", "property", "itemprop"].iter().any(|k| {
                    self.attr(n, k)
                        .is_some_and(|v| v.eq_ignore_ascii_case(name))
                })
            })
            .and_then(|n| self.attr(n, "content"))
    }

    /// The `content` of the first `<meta http-equiv=…>` whose pragma is
    /// `name` (ASCII case-insensitively): `http_equiv("content-language")`.
    pub fn http_equiv(&self, name: &str) -> Option<&str> {
        (0..self.nodes.len())
            .filter(|&n| self.tag(n) == "meta")
            .find(|&n| {
                self.attr(n, "http-equiv")
                    .is_some_and(|v| v.trim().eq_ignore_ascii_case(name))
            })
            .and_then(|n| self.attr(n, "content"))
    }

    /// All text of a subtree concatenated as is.
    pub fn raw_text(&self, id: NodeId) -> String {
        self.text_nodes(id).map(|(_, t)| t).collect()
    }

    /// The visible text of a subtree: whitespace collapsed inside blocks,
    /// one line per block element (and per `<br>`), empty lines dropped.
    pub fn inner_text(&self, id: NodeId) -> String {
        text::inner_text(self, id, &|_| true)
    }

    /// [`Document::inner_text`] without the nodes (and subtrees) below `id`
    /// for which `keep` is false.
    pub fn inner_text_where(&self, id: NodeId, keep: &dyn Fn(NodeId) -> bool) -> String {
        text::inner_text(self, id, keep)
    }
}

/// Iterator over the children of a node.
pub struct Children<'a> {
    doc: &'a Document,
    next: NodeId,
    end: NodeId,
}

impl Iterator for Children<'_> {
    type Item = NodeId;
    fn next(&mut self) -> Option<NodeId> {
        if self.next >= self.end {
            return None;
        }
        let id = self.next;
        self.next = self.doc.nodes[id].end;
        Some(id)
    }
}

#[cfg(test)]
mod tests;
