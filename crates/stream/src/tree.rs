//! The tree builder's stack of open elements, followed from the scan's
//! tokens without building a tree: which element each tag opens, under
//! which parent, and where each element ends.
//!
//! It follows the HTML standard's tree construction for the body: implied
//! ends (`<p>`, list items, options, cells, rows), the scopes end tags look
//! in, tables (implied `tbody` and `tr`, foster parenting, the insertion
//! modes of tables, rows, cells, captions and column groups), the list of
//! active formatting elements (a `<b>` closed by a block's end is opened
//! again, as many times as the tree does, at the next text or inline tag)
//! and the adoption agency (a block moved out of a formatting element
//! closed around it), `<select>`, the form pointer, and the head's elements
//! before the body. It counts the page's rendered text as `canopy_dom`
//! does, and leaves out the regions the drop list's page-wide rules drop.
//! Where the tree builder would move elements among which a region may be,
//! or where the outcome hangs on what the pass does not read, it stops
//! with the reason ([`Unfollowed`]): the page takes the full parse.

use std::collections::HashMap;
use std::ops::Range;

use canopy_cluster::{path_hash, step_label, Signature};
use canopy_dom::DomOptions;
use canopy_forest::{normalized_space, tolerant_form, ElementType, Pattern};

use crate::scan::{Attrs, Token};
use crate::text_len::{decode, needs_decoding, Piece, Refs};
use crate::texts::TextRuns;

/// Why a page takes the full parse.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Unfollowed {
    /// The adoption agency moves elements among which a region of the
    /// pattern may be, or a dropped element is.
    Adoption,
    /// `</form>` for a form that is not the current element: the tree
    /// removes it from the middle of the stack.
    FormInside,
    /// A frameset page.
    Frameset,
    /// Markup inside `<svg>` or `<math>` the tree builder may take back to
    /// HTML.
    Foreign,
    /// A character reference in the first token of an `id`, a `class` or
    /// an attribute the pattern reads: its decoded value is the tree's.
    CharRef,
    /// Nesting deeper than the tree keeps.
    Depth,
    /// Past a budget of the tree builder (`DomOptions::max_nodes`, the
    /// formatting elements' work), where the full parse cuts the page.
    Budget,
    /// A page longer than the parse reads.
    TooLong,
    /// Content put before a table (foster parenting) that is a region or
    /// inside one: it is in the region's bytes, not in its subtree.
    FosteredOutOfRegion,
    /// A pattern typed by position in a depth-first walk, which a pass in
    /// document order cannot match before the page's end.
    DfsPattern,
    /// More patterns than the pass matches at once ([`MAX_PATTERNS`]).
    ManyPatterns,
    /// The page holds the mark its skeleton gives the ancestors it keeps
    /// (`canopy_dom::KEPT_MARK`).
    KeptMark,
    /// A `<noscript>` in the body whose markup may be prose: the tree may
    /// parse it into its children (`canopy_dom`'s script fallback).
    NoscriptFallback,
    /// A `<table>` opened in a paragraph under a doctype the pass does not
    /// classify: whether it closes the paragraph depends on the quirks
    /// mode.
    Quirks,
    /// Text in a table outside its cells: the tree puts it before the
    /// table, joined to the text there.
    FosteredText,
}

impl Unfollowed {
    pub fn as_str(self) -> &'static str {
        match self {
            Unfollowed::Adoption => "the adoption agency moving a region or a dropped element",
            Unfollowed::FormInside => "a form closed inside other elements",
            Unfollowed::Frameset => "a frameset",
            Unfollowed::Foreign => "HTML inside svg or math",
            Unfollowed::CharRef => "a character reference in an attribute the pass reads",
            Unfollowed::Depth => "nesting past the tree's depth cap",
            Unfollowed::Budget => "past a budget of the tree builder",
            Unfollowed::TooLong => "a page past the parse's byte cap",
            Unfollowed::FosteredOutOfRegion => "content put before a table out of a region",
            Unfollowed::DfsPattern => "a pattern typed by depth-first position",
            Unfollowed::ManyPatterns => "more patterns than the pass matches at once",
            Unfollowed::KeptMark => "the skeleton's keep mark in the page",
            Unfollowed::NoscriptFallback => "a noscript that may be the page's fallback",
            Unfollowed::Quirks => "a table in a paragraph under an unclassified doctype",
            Unfollowed::FosteredText => "text in a table outside its cells",
        }
    }
}

const NONE: u32 = u32::MAX;

/// Most patterns one pass matches: each is a bit of an open element's
/// masks, and one more bit is the elements metadata reads wherever they
/// are ([`Pass::extras`]). A site's saved wrappers are its templates, a
/// handful on the dev corpora's sites.
pub const MAX_PATTERNS: usize = 63;

/// What "clear the stack back to a table (body, row) context" stops at.
const TABLE_CONTEXT: [&str; 3] = ["table", "template", "html"];
const TABLE_BODY_CONTEXT: [&str; 5] = ["tbody", "tfoot", "thead", "template", "html"];
const ROW_CONTEXT: [&str; 3] = ["tr", "template", "html"];

/// An element of the body's tree: its parent's index, and the range of its
/// step label in the label buffer and where its tag ends in it.
pub(crate) struct Element {
    pub(crate) parent: u32,
    pub(crate) label: Range<u32>,
    pub(crate) tag_end: u32,
    /// Forest's level.
    pub(crate) level: u32,
}

/// An open element.
struct Open {
    id: u32,
    tag: String,
    /// Forest's level: `<body>` is 1, `tbody` adds none.
    level: u32,
    /// Its index among the body's elements, or `NONE` (`<html>`, the head's,
    /// dropped ones).
    element: u32,
    /// Not in the tree: a dropped tag or a hidden element, or inside one.
    dropped: bool,
    /// A dropped tag or inside one: its text is not the page's rendered
    /// text (a hidden element's is).
    unrendered: bool,
    /// The patterns (bit `i` for the pass's pattern `i`) whose anchor's
    /// type it has.
    anchors: u64,
    /// The patterns it is a match of, outside any other match of theirs:
    /// each is a region from `start`.
    matches: u64,
    /// Where its start tag is (or what opened it implied).
    start: usize,
    /// Whether the drop list names it (`DomOptions::names_dropped_role`).
    named: bool,
    /// When it is a match: its ancestors below `<body>`, outermost first.
    ancestors: Vec<Ancestor>,
}

/// An ancestor of a region, which the page's skeleton ([`Pass::skeleton`])
/// opens again.
#[derive(Clone, Debug)]
pub(crate) struct Ancestor {
    /// Its index among the body's elements: regions with an ancestor in
    /// common share it.
    pub(crate) element: u32,
    pub(crate) tag: String,
    /// Where its start tag is, or what opened it implied.
    pub(crate) start: usize,
    /// Whether the drop list names it (the tree keeps it: a region is
    /// inside).
    pub(crate) named: bool,
}

/// A match of a pattern: its bytes, and its ancestors below `<body>`.
#[derive(Clone, Debug)]
pub struct Region {
    pub bytes: Range<usize>,
    pub(crate) ancestors: Vec<Ancestor>,
}

/// An entry of the list of active formatting elements.
enum Formatting {
    Marker,
    Element {
        id: u32,
        tag: String,
        /// Lowercase names, values as written.
        attrs: Vec<(String, String)>,
    },
}

/// The insertion modes the pass follows, in the standard's order: those
/// before the body compare less than `InBody`.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Mode {
    BeforeHead,
    InHead,
    AfterHead,
    InBody,
    InTable,
    InTableBody,
    InRow,
    InCell,
    InCaption,
    InColumnGroup,
    InSelect,
    InSelectInTable,
}

/// Whether a `<table>` closes an open `<p>`: not in quirks mode.
#[derive(Clone, Copy, PartialEq, Eq)]
enum DocumentMode {
    Quirks,
    NoQuirks,
    Unknown,
}

/// A closed block the drop list names.
struct NamedBlock {
    /// The page's text counted when it opened and when it closed.
    text: Range<usize>,
    /// The regions closed inside it.
    regions: Range<usize>,
    element: u32,
}

/// What the pass found on a page it follows.
pub struct Pass {
    /// For each of the patterns, in their order, its matches (outermost
    /// ones), in document order.
    pub regions: Vec<Vec<Region>>,
    /// With patterns, the body's elements that metadata reads wherever
    /// they stand (`canopy_metadata::read_beyond_article`, and JSON-LD
    /// scripts), outermost ones, in document order: the page's skeleton
    /// holds them beside the regions.
    pub extras: Vec<Region>,
    /// Where the body starts: its start tag, or what opened it implied.
    pub body_at: usize,
    /// The page's rendered text bytes, as `canopy_dom::page_text_bytes`
    /// counts them: what a region's parse gives the drop list's guard
    /// (`DomOptions::page_text`).
    pub text_bytes: usize,
    /// The keys of the text nodes of the body the tree holds
    /// (`canopy_dom::text_key`), sorted, each once: what
    /// `canopy_extract::Residue` counts across a cluster's pages.
    pub text_keys: Vec<u64>,
    /// The `href` of each `<a>` the tree holds.
    links: Vec<Link>,
    decoded_links: String,
    pub(crate) elements: Vec<Element>,
    pub(crate) labels: String,
}

impl Pass {
    /// The body's elements in document order: the index of each one's
    /// parent (`None` for `<body>`) and its step label
    /// ([`canopy_cluster::step_label`]).
    pub fn elements(&self) -> impl Iterator<Item = (Option<usize>, &str)> + '_ {
        self.elements.iter().map(|e| {
            let parent = (e.parent != NONE).then_some(e.parent as usize);
            (parent, self.label(e.label.start, e.label.end))
        })
    }

    /// The `href`s of the `<a>` elements of the page's tree (`html`, the
    /// page), each as written or, where a character reference may change
    /// its scheme or host, decoded: what `canopy_extract::page_host_of`
    /// reads the page's own host from.
    pub fn hrefs<'s>(&'s self, html: &'s str) -> impl Iterator<Item = &'s str> + 's {
        self.links.iter().filter_map(move |link| match link {
            Link::Page(r) => html.get(r.clone()),
            Link::Decoded(r) => self.decoded_links.get(r.clone()),
        })
    }

    fn label(&self, start: u32, end: u32) -> &str {
        self.labels.get(start as usize..end as usize).unwrap_or("")
    }

    /// The page's template signature, as [`Signature::of`] gives it for
    /// the tree.
    pub fn signature(&self) -> Signature {
        let n = self.elements.len();
        let (mut full, mut tags, mut own) = (vec![0; n], vec![0; n], vec![0; n]);
        parents_first(&self.elements, |e| {
            let element = &self.elements[e];
            let label = self.label(element.label.start, element.label.end);
            let tag = self.label(element.label.start, element.tag_end);
            let (parent_path, parent_tags) = match element.parent {
                NONE => (0, 0),
                p => (full[p as usize], tags[p as usize]),
            };
            full[e] = path_hash(parent_path, label);
            tags[e] = path_hash(parent_tags, tag);
            own[e] = path_hash(parent_tags, label);
        });
        Signature::from_parts(full, own)
    }
}

/// The follower: the scan's tokens in, the stack's effects out.
pub(crate) struct Tree<'a> {
    html: &'a str,
    patterns: &'a [&'a Pattern],
    /// The tag and level of each pattern's matches.
    match_keys: Vec<(&'a str, u32)>,
    /// The bit of the elements metadata reads wherever they stand, after
    /// the patterns' (0: none looked for, without patterns).
    extras: u64,
    options: &'a DomOptions,
    mode: Mode,
    stack: Vec<Open>,
    formatting: Vec<Formatting>,
    /// The form element pointer is set: a `<form>` opened and no `</form>`
    /// since, so another `<form>` is ignored.
    form_open: bool,
    /// Nested `<template>`s open: their content is dropped whole, and only
    /// the template's own end closes it.
    templates: u32,
    quirks: DocumentMode,
    next_id: u32,
    /// The patterns with a match open.
    open_matches: u64,
    /// The matches closed: pattern and region.
    regions: Vec<(usize, Region)>,
    body_at: usize,
    /// Per region: in a comment section, so not in the tree.
    regions_dropped: Vec<bool>,
    /// The closed blocks the drop list names: the page's text counted when
    /// each opened and when it closed, the regions closed inside it, and
    /// its element. The tree drops those holding less than half of the
    /// page's text.
    named_blocks: Vec<NamedBlock>,
    /// The open named blocks: id, the text counted and the regions closed
    /// when each opened, and its element.
    named_open: Vec<(u32, usize, usize, u32)>,
    /// The comment sections the page's empty anchors start
    /// (`DomOptions::section_anchors`) whose container is open: its id, and
    /// where the section's first block starts. The tree drops that block
    /// and its later siblings, so every region starting there or later
    /// until the container closes.
    sections: Vec<(u32, usize)>,
    /// Every comment section's container element and first block element:
    /// the block and the container's children made after it are dropped.
    section_elements: Vec<(u32, u32)>,
    /// Comparisons the list of active formatting elements has cost (the
    /// Noah's Ark clause), against the tree's budget.
    formatting_work: u64,
    /// An open `<a>` that may be such an anchor: its id, the nodes made
    /// when it opened (it counts only if it stays empty), its start and
    /// its element.
    anchor: Option<(u32, u64, usize, u32)>,
    /// Nodes made so far: elements, texts and comments.
    nodes_made: u64,
    elements: Vec<Element>,
    labels: String,
    /// `<body>`'s id and class, with those a later `<body>` tag adds.
    body_id: Option<String>,
    body_class: Option<String>,
    text_bytes: usize,
    /// The text node being read: runs of text join until an element opens
    /// or closes, or a comment comes.
    text_node: Option<Piece>,
    /// The body's text, for the keys of the tree's text nodes.
    texts: TextRuns,
    /// A run of text decoded (references, newlines), reused.
    decoded: String,
    /// The `<a>` elements the tree keeps, with their `href`
    /// ([`Link`]).
    links: Vec<(u32, Link)>,
    /// The `href`s decoded.
    decoded_links: String,
}

/// Where a link's `href` is: in the page, or decoded in the pass's buffer
/// (one whose host may hold a character reference).
#[derive(Clone)]
enum Link {
    Page(Range<usize>),
    Decoded(Range<usize>),
}

impl<'a> Tree<'a> {
    pub(crate) fn new(html: &'a str, patterns: &'a [&'a Pattern], options: &'a DomOptions) -> Self {
        let match_keys = patterns
            .iter()
            .filter_map(|p| {
                let tag = match &p.ty {
                    ElementType::Attrs { tag, .. } | ElementType::Dfs { tag, .. } => tag,
                    ElementType::Anchored { path, .. } => path.last()?,
                };
                Some((tag.as_str(), p.level))
            })
            .collect();
        Tree {
            html,
            patterns,
            match_keys,
            extras: if patterns.is_empty() {
                0
            } else {
                1 << patterns.len()
            },
            options,
            mode: Mode::BeforeHead,
            stack: vec![Open {
                id: 0,
                tag: "html".into(),
                level: 0,
                element: NONE,
                dropped: false,
                unrendered: false,
                anchors: 0,
                matches: 0,
                start: 0,
                named: false,
                ancestors: Vec::new(),
            }],
            formatting: Vec::new(),
            form_open: false,
            templates: 0,
            quirks: DocumentMode::Quirks,
            next_id: 1,
            open_matches: 0,
            regions: Vec::new(),
            body_at: 0,
            regions_dropped: Vec::new(),
            named_blocks: Vec::new(),
            named_open: Vec::new(),
            sections: Vec::new(),
            section_elements: Vec::new(),
            formatting_work: 0,
            anchor: None,
            nodes_made: 0,
            elements: Vec::with_capacity(html.len() / 64),
            labels: String::with_capacity(html.len() / 4),
            body_id: None,
            body_class: None,
            text_bytes: 0,
            text_node: None,
            texts: TextRuns::with_capacity(html.len()),
            decoded: String::new(),
            links: Vec::new(),
            decoded_links: String::new(),
        }
    }

    pub(crate) fn token(&mut self, token: Token<'_, 'a>) -> Result<(), Unfollowed> {
        match token {
            Token::Text(range) => self.text(range),
            Token::Start {
                name,
                attrs,
                span,
                self_closing,
            } => {
                let name = if name == "image" { "img" } else { name };
                self.start(name, attrs, span, self_closing)
            }
            Token::End { name, span } => self.end(name, span),
            Token::Comment => {
                // A comment is a node: the text after it is another one.
                self.nodes_made += 1;
                if self.templates == 0 {
                    self.end_text_node();
                }
                Ok(())
            }
            Token::Doctype(range) => {
                // Only a doctype before the first element sets the mode.
                if self.mode == Mode::BeforeHead && self.stack.len() == 1 {
                    self.quirks = quirks_of(self.html.get(range).unwrap_or(""));
                }
                Ok(())
            }
        }
    }

    /// Closes what is still open at the page's end.
    pub(crate) fn finish(mut self) -> Result<Pass, Unfollowed> {
        let len = self.html.len();
        self.end_text_node();
        if self.mode < Mode::InBody && self.elements.is_empty() {
            self.enter_body(&Attrs::default(), len);
        }
        while self.stack.len() > 1 {
            self.pop(len);
        }
        if let Some(body) = self.elements.first_mut() {
            // The label with the attributes a later `<body>` tag added.
            let start = self.labels.len() as u32;
            step_label(
                "body",
                self.body_id.as_deref(),
                self.body_class.as_deref(),
                &mut self.labels,
            );
            body.label = start..self.labels.len() as u32;
            body.tag_end = start + 4;
        }
        // A region inside a named block the tree drops (one holding less
        // than half of the page's text), or in a comment section, is not
        // in the tree.
        let page = self.text_bytes;
        let mut gone = vec![false; self.elements.len()];
        for block in &self.named_blocks {
            if 2 * (block.text.end - block.text.start) < page {
                for dropped in &mut self.regions_dropped[block.regions.clone()] {
                    *dropped = true;
                }
                gone[block.element as usize] = true;
            }
        }
        // Each container's earliest section: a page may hold thousands of
        // anchors in one container.
        let mut first_in: HashMap<u32, u32> = HashMap::new();
        for &(container, first) in &self.section_elements {
            let at = first_in.entry(container).or_insert(first);
            *at = (*at).min(first);
        }
        if !first_in.is_empty() {
            for (e, element) in self.elements.iter().enumerate() {
                gone[e] |= first_in
                    .get(&element.parent)
                    .is_some_and(|&first| e as u32 >= first);
            }
        }
        let slots = self.patterns.len() + usize::from(self.extras != 0);
        let mut regions = vec![Vec::new(); slots];
        for ((pattern, region), dropped) in self.regions.into_iter().zip(&self.regions_dropped) {
            if !dropped {
                regions[pattern].push(region);
            }
        }
        let extras = if self.extras != 0 {
            regions.pop().unwrap_or_default()
        } else {
            Vec::new()
        };
        propagate_gone(&self.elements, &mut gone);
        let links = self
            .links
            .into_iter()
            .filter(|&(e, _)| !gone[e as usize])
            .map(|(_, href)| href)
            .collect();
        let decoded_links = self.decoded_links;
        Ok(Pass {
            regions,
            extras,
            body_at: self.body_at,
            text_bytes: self.text_bytes,
            text_keys: self.texts.keys(&gone),
            links,
            decoded_links,
            elements: without_dropped(self.elements, &gone),
            labels: self.labels,
        })
    }

    fn text(&mut self, range: Range<usize>) -> Result<(), Unfollowed> {
        self.nodes_made += 1;
        if self.templates > 0 {
            return Ok(());
        }
        let top = self.top();
        if crate::scan::raw_text(top) {
            if top == "noscript"
                && self.mode >= Mode::InBody
                && canopy_dom::may_be_prose(self.html.get(range.clone()).unwrap_or(""))
            {
                return Err(Unfollowed::NoscriptFallback);
            }
            self.count_text(&range);
            return Ok(());
        }
        // Foreign content's text opens no formatting element.
        if !matches!(top, "svg" | "math") {
            let blank = is_blank(self.html.get(range.clone()).unwrap_or(""));
            match self.mode {
                Mode::BeforeHead | Mode::InHead | Mode::AfterHead if !blank => {
                    self.enter_body(&Attrs::default(), range.start);
                }
                Mode::InTable | Mode::InTableBody | Mode::InRow => {
                    if !matches!(top, "table" | "tbody" | "tfoot" | "thead" | "tr") {
                        // In an element put before the table: the body's
                        // rules.
                        self.reconstruct(range.start)?;
                    } else if !blank {
                        if !self.reconstruction_pending() {
                            // The tree puts it before the table, joined to
                            // a text there.
                            return Err(Unfollowed::FosteredText);
                        }
                        self.reconstruct(range.start)?;
                    }
                }
                Mode::InColumnGroup if !blank && self.top() == "colgroup" => {
                    self.pop(range.start);
                    self.mode = Mode::InTable;
                    self.nodes_made -= 1;
                    return self.text(range);
                }
                Mode::InBody | Mode::InCell | Mode::InCaption => self.reconstruct(range.start)?,
                _ => {}
            }
        }
        // Counted once the text's parent is open.
        self.count_text(&range);
        Ok(())
    }

    /// Adds a run of text to the text node being read, unless it is not
    /// rendered text (`canopy_dom`'s `text_bytes`).
    fn count_text(&mut self, range: &Range<usize>) {
        let Some(open) = self.stack.last() else {
            return;
        };
        if open.unrendered {
            return;
        }
        let raw = self.html.get(range.clone()).unwrap_or("");
        let tag = open.tag.as_str();
        // Raw text keeps its references (but for `<title>` and `<textarea>`)
        // and turns a NUL into U+FFFD; text drops a NUL.
        let raw_text = crate::scan::raw_text(tag);
        let refs = if raw_text && !matches!(tag, "title" | "textarea") {
            Refs::Kept
        } else {
            Refs::Text
        };
        let nul = raw_text;
        let element = open.element;
        let mut decoded = std::mem::take(&mut self.decoded);
        let text = if needs_decoding(raw) {
            decoded.clear();
            decode(raw, refs, nul, |c| decoded.push(c));
            decoded.as_str()
        } else {
            raw
        };
        let piece = Piece::of_text(text);
        if element != NONE {
            self.texts.push(element, self.elements.len() as u32, text);
        }
        self.decoded = decoded;
        self.text_node = Some(match self.text_node {
            Some(node) => node.join(piece),
            None => piece,
        });
    }

    /// A named block leaves the stack: its text is all counted.
    fn close_named(&mut self, open: &Open) {
        if !open.named {
            return;
        }
        if let Some(i) = self.named_open.iter().rposition(|&(id, ..)| id == open.id) {
            let (_, text, regions, element) = self.named_open.remove(i);
            self.named_blocks.push(NamedBlock {
                text: text..self.text_bytes,
                regions: regions..self.regions.len(),
                element,
            });
        }
    }

    /// The anchor candidate closes: if nothing was made inside it, it starts
    /// a comment section at its block (the anchor, or its heading or inline
    /// wrappers: `canopy_dom`'s climb) in that block's parent.
    fn close_anchor(&mut self) {
        let Some((_, made, anchor_start, anchor_element)) = self.anchor.take() else {
            return;
        };
        if made != self.nodes_made {
            return;
        }
        // The anchor was popped: its parent is the current element.
        let mut start = self.stack.len();
        while start > 2 && canopy_dom::is_section_wrapper(&self.stack[start - 1].tag) {
            start -= 1;
        }
        let (from, block) = match self.stack.get(start) {
            Some(block) => (block.start, block.element),
            None => (anchor_start, anchor_element),
        };
        let container = self.stack[start - 1].element;
        if block != NONE && container != NONE {
            self.section_elements.push((container, block));
        }
        // The regions closed since the section's first block started are
        // inside its container, which is still open.
        for ((_, region), dropped) in self.regions.iter().zip(&mut self.regions_dropped) {
            *dropped |= region.bytes.start >= from;
        }
        self.sections.push((self.stack[start - 1].id, from));
    }

    /// Ends the text node being read: `canopy_dom` counts a text node's
    /// bytes without the white space at its ends.
    fn end_text_node(&mut self) {
        if let Some(node) = self.text_node.take() {
            self.text_bytes += node.trimmed();
        }
        self.texts.end(self.elements.len() as u32);
    }

    fn start(
        &mut self,
        name: &str,
        attrs: &Attrs,
        span: Range<usize>,
        self_closing: bool,
    ) -> Result<(), Unfollowed> {
        if self.templates > 0 {
            self.templates += u32::from(name == "template");
            return Ok(());
        }
        let at = span.start;
        match self.mode {
            Mode::BeforeHead | Mode::InHead | Mode::AfterHead => {
                return self.start_before_body(name, attrs, span, self_closing)
            }
            Mode::InBody => {}
            Mode::InTable | Mode::InTableBody | Mode::InRow => {
                return self.start_in_table(name, attrs, span, self_closing)
            }
            Mode::InCell | Mode::InCaption => {
                let cell = self.mode == Mode::InCell;
                if matches!(
                    name,
                    "caption"
                        | "col"
                        | "colgroup"
                        | "tbody"
                        | "td"
                        | "tfoot"
                        | "th"
                        | "thead"
                        | "tr"
                ) {
                    let open = if cell {
                        self.in_scope_any(&["td", "th"], Scope::Table)
                    } else {
                        self.in_scope("caption", Scope::Table)
                    };
                    if !open {
                        return Ok(());
                    }
                    self.close_cell_or_caption(at);
                    return self.start(name, attrs, span, self_closing);
                }
            }
            Mode::InColumnGroup => {
                match name {
                    "col" => {
                        self.void(name, attrs, span)?;
                        return Ok(());
                    }
                    "html" => return Ok(()),
                    "template" => {
                        self.open_template(attrs, at);
                        return Ok(());
                    }
                    _ => {}
                }
                if self.top() != "colgroup" {
                    return Ok(());
                }
                self.pop(at);
                self.mode = Mode::InTable;
                return self.start(name, attrs, span, self_closing);
            }
            Mode::InSelect | Mode::InSelectInTable => {
                let table_tag = matches!(
                    name,
                    "caption" | "table" | "tbody" | "tfoot" | "thead" | "tr" | "td" | "th"
                );
                if name == "select" {
                    self.close("select", at..at);
                    self.reset_mode();
                } else if matches!(name, "input" | "keygen" | "textarea")
                    || (self.mode == Mode::InSelectInTable && table_tag)
                {
                    self.close("select", at..at);
                    self.reset_mode();
                    return self.start(name, attrs, span, self_closing);
                } else if name == "template" {
                    self.open_template(attrs, at);
                } else if matches!(name, "script" | "style") {
                    // Raw text: their end tags follow at once.
                    self.push(name, attrs, at)?;
                }
                return Ok(());
            }
        }
        self.start_in_body(name, attrs, span, self_closing)
    }

    fn start_before_body(
        &mut self,
        name: &str,
        attrs: &Attrs,
        span: Range<usize>,
        self_closing: bool,
    ) -> Result<(), Unfollowed> {
        let at = span.start;
        if self.stack.len() > 1 {
            // Inside a head element (raw text has no tags; a `<noscript>`
            // is raw text with scripting on): nothing here opens the body.
            return Ok(());
        }
        match name {
            "html" => {}
            "head" => {
                if self.mode == Mode::BeforeHead {
                    self.mode = Mode::InHead;
                }
            }
            "body" => self.enter_body(attrs, at),
            "frameset" => return Err(Unfollowed::Frameset),
            "template" => self.open_template(attrs, at),
            "noscript" if self.mode == Mode::AfterHead => {
                self.enter_body(&Attrs::default(), at);
                return self.start(name, attrs, span, self_closing);
            }
            _ if is_head_element(name) => {
                if self.mode == Mode::BeforeHead {
                    self.mode = Mode::InHead;
                }
                if !is_void(name) {
                    self.push_unseen(name);
                }
            }
            _ => {
                self.enter_body(&Attrs::default(), at);
                return self.start(name, attrs, span, self_closing);
            }
        }
        Ok(())
    }

    fn enter_body(&mut self, attrs: &Attrs, at: usize) {
        self.end_text_node();
        while self.stack.len() > 1 {
            self.stack.pop();
        }
        self.mode = Mode::InBody;
        self.body_at = at;
        self.body_id = attrs.get("id").map(str::to_string);
        self.body_class = attrs.get("class").map(str::to_string);
        // The body is kept whatever its attributes (`canopy_dom`).
        self.push_element("body", attrs, at, false);
    }

    fn start_in_table(
        &mut self,
        name: &str,
        attrs: &Attrs,
        span: Range<usize>,
        self_closing: bool,
    ) -> Result<(), Unfollowed> {
        let at = span.start;
        // A row or a section's rules first, then the table's.
        if self.mode == Mode::InRow {
            match name {
                "th" | "td" => {
                    self.clear_back_to(&ROW_CONTEXT, at);
                    self.push(name, attrs, at)?;
                    self.mode = Mode::InCell;
                    self.formatting.push(Formatting::Marker);
                    return Ok(());
                }
                "caption" | "col" | "colgroup" | "tbody" | "tfoot" | "thead" | "tr" => {
                    if !self.in_scope("tr", Scope::Table) {
                        return Ok(());
                    }
                    self.clear_back_to(&ROW_CONTEXT, at);
                    self.pop(at);
                    self.mode = Mode::InTableBody;
                    return self.start(name, attrs, span, self_closing);
                }
                _ => {}
            }
        }
        if self.mode == Mode::InTableBody {
            match name {
                "tr" => {
                    self.clear_back_to(&TABLE_BODY_CONTEXT, at);
                    self.push(name, attrs, at)?;
                    self.mode = Mode::InRow;
                    return Ok(());
                }
                "th" | "td" => {
                    self.clear_back_to(&TABLE_BODY_CONTEXT, at);
                    self.push("tr", &Attrs::default(), at)?;
                    self.mode = Mode::InRow;
                    return self.start(name, attrs, span, self_closing);
                }
                "caption" | "col" | "colgroup" | "tbody" | "tfoot" | "thead" => {
                    if !self.in_scope_any(&["tbody", "thead", "tfoot"], Scope::Table) {
                        return Ok(());
                    }
                    self.clear_back_to(&TABLE_BODY_CONTEXT, at);
                    self.pop(at);
                    self.mode = Mode::InTable;
                    return self.start(name, attrs, span, self_closing);
                }
                _ => {}
            }
        }
        match name {
            "caption" => {
                self.clear_back_to(&TABLE_CONTEXT, at);
                self.formatting.push(Formatting::Marker);
                self.push(name, attrs, at)?;
                self.mode = Mode::InCaption;
            }
            "colgroup" => {
                self.clear_back_to(&TABLE_CONTEXT, at);
                self.push(name, attrs, at)?;
                self.mode = Mode::InColumnGroup;
            }
            "col" => {
                self.clear_back_to(&TABLE_CONTEXT, at);
                self.push("colgroup", &Attrs::default(), at)?;
                self.mode = Mode::InColumnGroup;
                return self.start(name, attrs, span, self_closing);
            }
            "tbody" | "tfoot" | "thead" => {
                self.clear_back_to(&TABLE_CONTEXT, at);
                self.push(name, attrs, at)?;
                self.mode = Mode::InTableBody;
            }
            "td" | "th" | "tr" => {
                self.clear_back_to(&TABLE_CONTEXT, at);
                self.push("tbody", &Attrs::default(), at)?;
                self.mode = Mode::InTableBody;
                return self.start(name, attrs, span, self_closing);
            }
            "table" => {
                if self.in_scope("table", Scope::Table) {
                    self.close("table", at..at);
                    self.reset_mode();
                    return self.start(name, attrs, span, self_closing);
                }
            }
            "style" | "script" => self.push(name, attrs, at)?,
            "template" => self.open_template(attrs, at),
            "input"
                if attrs
                    .get("type")
                    .is_some_and(|t| t.eq_ignore_ascii_case("hidden")) =>
            {
                self.void(name, attrs, span)?;
            }
            "form" => {
                if !self.form_open {
                    self.form_open = true;
                    self.void(name, attrs, span)?;
                }
            }
            // Anything else as in the body, put before the table when the
            // current element is part of the table (`push`).
            _ => return self.start_in_body(name, attrs, span, self_closing),
        }
        Ok(())
    }

    fn start_in_body(
        &mut self,
        name: &str,
        attrs: &Attrs,
        span: Range<usize>,
        self_closing: bool,
    ) -> Result<(), Unfollowed> {
        let at = span.start;
        match name {
            "html" | "head" | "caption" | "col" | "colgroup" | "frame" | "tbody" | "td"
            | "tfoot" | "th" | "thead" | "tr" => {}
            "body" => {
                // The body gets the attributes it lacks.
                if self.body_id.is_none() {
                    self.body_id = attrs.get("id").map(str::to_string);
                }
                if self.body_class.is_none() {
                    self.body_class = attrs.get("class").map(str::to_string);
                }
            }
            "frameset" => return Err(Unfollowed::Frameset),
            "template" => self.open_template(attrs, at),
            "base" | "basefont" | "bgsound" | "link" | "meta" => self.void(name, attrs, span)?,
            "address" | "article" | "aside" | "blockquote" | "center" | "details" | "dialog"
            | "dir" | "div" | "dl" | "fieldset" | "figcaption" | "figure" | "footer" | "header"
            | "hgroup" | "main" | "menu" | "nav" | "ol" | "p" | "search" | "section"
            | "summary" | "ul" | "pre" | "listing" | "plaintext" => {
                self.close_p(at);
                self.push(name, attrs, at)?;
            }
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                self.close_p(at);
                if is_heading(self.top()) {
                    self.pop(at);
                }
                self.push(name, attrs, at)?;
            }
            "form" => {
                if !self.form_open {
                    self.close_p(at);
                    self.push(name, attrs, at)?;
                    self.form_open = true;
                }
            }
            "li" | "dd" | "dt" => {
                let kin = |t: &str| {
                    if name == "li" {
                        t == "li"
                    } else {
                        matches!(t, "dd" | "dt")
                    }
                };
                for i in (0..self.stack.len()).rev() {
                    let tag = self.stack[i].tag.as_str();
                    if kin(tag) {
                        let tag = tag.to_string();
                        self.generate_implied_ends(Some(&tag), at);
                        self.close(&tag, at..at);
                        break;
                    }
                    if is_special(tag) && !matches!(tag, "address" | "div" | "p") {
                        break;
                    }
                }
                self.close_p(at);
                self.push(name, attrs, at)?;
            }
            "button" => {
                if self.in_scope("button", Scope::Default) {
                    self.generate_implied_ends(None, at);
                    self.close("button", at..at);
                }
                self.reconstruct(at)?;
                self.push(name, attrs, at)?;
            }
            "a" => {
                if self.formatting_index("a").is_some() {
                    self.adoption_agency("a", at)?;
                    if let Some(i) = self.formatting_index("a") {
                        self.formatting.remove(i);
                    }
                }
                self.reconstruct(at)?;
                self.push_formatting(name, attrs, at)?;
            }
            "b" | "big" | "code" | "em" | "font" | "i" | "s" | "small" | "strike" | "strong"
            | "tt" | "u" => {
                self.reconstruct(at)?;
                self.push_formatting(name, attrs, at)?;
            }
            "nobr" => {
                self.reconstruct(at)?;
                if self.in_scope("nobr", Scope::Default) {
                    self.adoption_agency("nobr", at)?;
                    self.reconstruct(at)?;
                }
                self.push_formatting(name, attrs, at)?;
            }
            "applet" | "marquee" | "object" => {
                self.reconstruct(at)?;
                self.push(name, attrs, at)?;
                self.formatting.push(Formatting::Marker);
            }
            "table" => {
                match self.quirks {
                    DocumentMode::Quirks => {}
                    DocumentMode::NoQuirks => self.close_p(at),
                    DocumentMode::Unknown => {
                        if self.in_scope("p", Scope::Button) {
                            return Err(Unfollowed::Quirks);
                        }
                    }
                }
                self.push(name, attrs, at)?;
                self.mode = Mode::InTable;
            }
            "area" | "br" | "embed" | "img" | "keygen" | "wbr" | "input" => {
                self.reconstruct(at)?;
                self.void(name, attrs, span)?;
            }
            "param" | "source" | "track" => self.void(name, attrs, span)?,
            "hr" => {
                self.close_p(at);
                self.void(name, attrs, span)?;
            }
            "xmp" => {
                self.close_p(at);
                self.reconstruct(at)?;
                self.push(name, attrs, at)?;
            }
            "textarea" | "iframe" | "noembed" | "noscript" | "noframes" | "style" | "script"
            | "title" => self.push(name, attrs, at)?,
            "select" => {
                self.reconstruct(at)?;
                self.push(name, attrs, at)?;
                self.mode = if matches!(
                    self.mode,
                    Mode::InTable
                        | Mode::InCaption
                        | Mode::InTableBody
                        | Mode::InRow
                        | Mode::InCell
                ) {
                    Mode::InSelectInTable
                } else {
                    Mode::InSelect
                };
            }
            "optgroup" | "option" => {
                if self.top() == "option" {
                    self.pop(at);
                }
                self.reconstruct(at)?;
                self.push(name, attrs, at)?;
            }
            "rb" | "rtc" | "rp" | "rt" => {
                if self.in_scope("ruby", Scope::Default) {
                    let except = if matches!(name, "rp" | "rt") {
                        Some("rtc")
                    } else {
                        None
                    };
                    self.generate_implied_ends(except, at);
                }
                self.push(name, attrs, at)?;
            }
            "svg" | "math" => {
                self.reconstruct(at)?;
                if self_closing {
                    self.void(name, attrs, span)?;
                } else {
                    self.push(name, attrs, at)?;
                }
            }
            _ => {
                self.reconstruct(at)?;
                if is_void(name) {
                    self.void(name, attrs, span)?;
                } else {
                    self.push(name, attrs, at)?;
                }
            }
        }
        Ok(())
    }

    fn end(&mut self, name: &str, span: Range<usize>) -> Result<(), Unfollowed> {
        let at = span.start;
        if self.templates > 0 {
            if name == "template" {
                self.templates -= 1;
                if self.templates == 0 {
                    self.close("template", span.clone());
                    self.clear_formatting_to_marker();
                    self.reset_mode();
                }
            }
            return Ok(());
        }
        match self.mode {
            Mode::BeforeHead | Mode::InHead | Mode::AfterHead => {
                if self.stack.len() > 1 {
                    if self.top() == name {
                        self.end_text_node();
                        self.stack.pop();
                    }
                    return Ok(());
                }
                match name {
                    "head" => self.mode = Mode::AfterHead,
                    "body" | "html" | "br" => {
                        self.enter_body(&Attrs::default(), at);
                        return self.end(name, span);
                    }
                    _ => {}
                }
                return Ok(());
            }
            Mode::InBody => {}
            Mode::InTable | Mode::InTableBody | Mode::InRow => {
                return self.end_in_table(name, span)
            }
            Mode::InCell | Mode::InCaption => {
                let cell = self.mode == Mode::InCell;
                match name {
                    "td" | "th" if cell => {
                        if self.in_scope(name, Scope::Table) {
                            self.generate_implied_ends(None, at);
                            self.close(name, span.clone());
                            self.clear_formatting_to_marker();
                            self.mode = Mode::InRow;
                        }
                        return Ok(());
                    }
                    "caption" if !cell => {
                        if self.in_scope("caption", Scope::Table) {
                            self.generate_implied_ends(None, at);
                            self.close("caption", span.clone());
                            self.clear_formatting_to_marker();
                            self.mode = Mode::InTable;
                        }
                        return Ok(());
                    }
                    "body" | "caption" | "col" | "colgroup" | "html" => return Ok(()),
                    "td" | "th" | "tbody" | "tfoot" | "thead" if !cell => return Ok(()),
                    "table" | "tbody" | "tfoot" | "thead" | "tr" => {
                        let open = if cell {
                            self.in_scope(name, Scope::Table)
                        } else {
                            self.in_scope("caption", Scope::Table)
                        };
                        if !open {
                            return Ok(());
                        }
                        self.close_cell_or_caption(at);
                        return self.end(name, span);
                    }
                    _ => {}
                }
            }
            Mode::InColumnGroup => {
                match name {
                    "colgroup" => {
                        if self.top() == "colgroup" {
                            self.pop(span.end);
                            self.mode = Mode::InTable;
                        }
                    }
                    "col" => {}
                    _ => {
                        if self.top() == "colgroup" {
                            self.pop(at);
                            self.mode = Mode::InTable;
                            return self.end(name, span);
                        }
                    }
                }
                return Ok(());
            }
            Mode::InSelect | Mode::InSelectInTable => {
                let table_tag = matches!(
                    name,
                    "caption" | "table" | "tbody" | "tfoot" | "thead" | "tr" | "td" | "th"
                );
                if name == "select" {
                    self.close("select", span.clone());
                    self.reset_mode();
                } else if self.mode == Mode::InSelectInTable && table_tag {
                    if self.in_scope(name, Scope::Table) {
                        self.close("select", at..at);
                        self.reset_mode();
                        return self.end(name, span);
                    }
                } else if matches!(name, "script" | "style") && self.top() == name {
                    self.pop(span.end);
                }
                return Ok(());
            }
        }
        self.end_in_body(name, span)
    }

    fn end_in_table(&mut self, name: &str, span: Range<usize>) -> Result<(), Unfollowed> {
        let at = span.start;
        if self.mode == Mode::InRow {
            match name {
                "tr" => {
                    if self.in_scope("tr", Scope::Table) {
                        self.clear_back_to(&ROW_CONTEXT, at);
                        self.pop(span.end);
                        self.mode = Mode::InTableBody;
                    }
                    return Ok(());
                }
                "table" | "tbody" | "tfoot" | "thead" => {
                    if name != "table" && !self.in_scope(name, Scope::Table) {
                        return Ok(());
                    }
                    if !self.in_scope("tr", Scope::Table) {
                        return Ok(());
                    }
                    self.clear_back_to(&ROW_CONTEXT, at);
                    self.pop(at);
                    self.mode = Mode::InTableBody;
                    return self.end(name, span);
                }
                "body" | "caption" | "col" | "colgroup" | "html" | "td" | "th" => return Ok(()),
                _ => {}
            }
        }
        if self.mode == Mode::InTableBody {
            match name {
                "tbody" | "tfoot" | "thead" => {
                    if self.in_scope(name, Scope::Table) {
                        self.clear_back_to(&TABLE_BODY_CONTEXT, at);
                        self.pop(span.end);
                        self.mode = Mode::InTable;
                    }
                    return Ok(());
                }
                "table" => {
                    if !self.in_scope_any(&["tbody", "thead", "tfoot"], Scope::Table) {
                        return Ok(());
                    }
                    self.clear_back_to(&TABLE_BODY_CONTEXT, at);
                    self.pop(at);
                    self.mode = Mode::InTable;
                    return self.end(name, span);
                }
                "body" | "caption" | "col" | "colgroup" | "html" | "td" | "th" | "tr" => {
                    return Ok(())
                }
                _ => {}
            }
        }
        match name {
            "table" => {
                if self.in_scope("table", Scope::Table) {
                    self.close("table", span.clone());
                    self.reset_mode();
                }
                Ok(())
            }
            "body" | "caption" | "col" | "colgroup" | "html" | "tbody" | "td" | "tfoot" | "th"
            | "thead" | "tr" => Ok(()),
            _ => self.end_in_body(name, span),
        }
    }

    fn end_in_body(&mut self, name: &str, span: Range<usize>) -> Result<(), Unfollowed> {
        let at = span.start;
        match name {
            // What follows `</body>` and `</html>` is the body's still.
            "body" | "html" => {}
            "address" | "article" | "aside" | "blockquote" | "button" | "center" | "details"
            | "dialog" | "dir" | "div" | "dl" | "fieldset" | "figcaption" | "figure" | "footer"
            | "header" | "hgroup" | "listing" | "main" | "menu" | "nav" | "ol" | "pre"
            | "search" | "section" | "summary" | "ul" => {
                if self.in_scope(name, Scope::Default) {
                    self.generate_implied_ends(None, at);
                    self.close(name, span.clone());
                }
            }
            "form" => {
                let was_open = std::mem::replace(&mut self.form_open, false);
                if was_open && self.in_scope("form", Scope::Default) {
                    self.generate_implied_ends(None, at);
                    if self.top() != "form" {
                        return Err(Unfollowed::FormInside);
                    }
                    self.pop(span.end);
                }
            }
            "p" => {
                if !self.in_scope("p", Scope::Button) {
                    // The tree opens an empty paragraph for it.
                    self.push("p", &Attrs::default(), at)?;
                    self.pop(at);
                } else {
                    self.generate_implied_ends(Some("p"), at);
                    self.close("p", span.clone());
                }
            }
            "li" => {
                if self.in_scope("li", Scope::ListItem) {
                    self.generate_implied_ends(Some("li"), at);
                    self.close("li", span.clone());
                }
            }
            "dd" | "dt" => {
                if self.in_scope(name, Scope::Default) {
                    self.generate_implied_ends(Some(name), at);
                    self.close(name, span.clone());
                }
            }
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                if self.stack_in_scope(is_heading, Scope::Default) {
                    self.generate_implied_ends(None, at);
                    while let Some(open) = self.stack.pop() {
                        let heading = is_heading(&open.tag);
                        self.stack.push(open);
                        // What the heading's end closes inside it ends
                        // where that tag starts.
                        self.pop(if heading { span.end } else { span.start });
                        if heading {
                            break;
                        }
                    }
                }
            }
            "a" | "b" | "big" | "code" | "em" | "font" | "i" | "nobr" | "s" | "small"
            | "strike" | "strong" | "tt" | "u" => self.adoption_agency_end(name, span)?,
            "applet" | "marquee" | "object" => {
                if self.in_scope(name, Scope::Default) {
                    self.generate_implied_ends(None, at);
                    self.close(name, span.clone());
                    self.clear_formatting_to_marker();
                }
            }
            "br" => {
                self.reconstruct(at)?;
                self.void("br", &Attrs::default(), at..at)?;
            }
            _ => self.any_other_end(name, span),
        }
        Ok(())
    }

    /// "Any other end tag": closes the innermost open element of its name,
    /// unless a special element comes first.
    fn any_other_end(&mut self, name: &str, span: Range<usize>) {
        for i in (1..self.stack.len()).rev() {
            let tag = self.stack[i].tag.as_str();
            if tag == name {
                self.generate_implied_ends(Some(name), span.start);
                while self.stack.len() > i + 1 {
                    self.pop(span.start);
                }
                self.pop(span.end);
                return;
            }
            if is_special(tag) {
                return;
            }
        }
    }

    fn adoption_agency_end(&mut self, name: &str, span: Range<usize>) -> Result<(), Unfollowed> {
        if self.formatting_index(name).is_none() {
            self.any_other_end(name, span);
            return Ok(());
        }
        self.adoption_agency(name, span.start).map(|closed| {
            if let Some(closed) = closed {
                self.fix_region_ends(closed, span.end);
            }
        })
    }

    /// The adoption agency for `subject` at `at`: a formatting element
    /// with no block after it on the stack is closed with what it holds;
    /// one with a block after it is taken apart as the tree builder does
    /// ([`Tree::restructure`]). Returns where in the region list are the
    /// regions of the outermost element it closed, if any.
    fn adoption_agency(
        &mut self,
        subject: &str,
        at: usize,
    ) -> Result<Option<Range<usize>>, Unfollowed> {
        if self.top() == subject {
            let top_id = self.stack[self.stack.len() - 1].id;
            if self.formatting_position(top_id).is_none() {
                return Ok(self.pop(at));
            }
        }
        // The standard's bound on the outer loop.
        for _ in 0..8 {
            let Some(entry) = self.formatting_index(subject) else {
                return Ok(None);
            };
            let Formatting::Element { id, .. } = self.formatting[entry] else {
                return Ok(None);
            };
            let Some(pos) = self.stack.iter().rposition(|o| o.id == id) else {
                self.formatting.remove(entry);
                return Ok(None);
            };
            if !self.in_scope_at(pos, Scope::Default) {
                return Ok(None);
            }
            let Some(block) = (pos + 1..self.stack.len()).find(|&i| is_special(&self.stack[i].tag))
            else {
                let mut last = None;
                while self.stack.len() > pos {
                    last = self.pop(at).or(last);
                }
                self.formatting.remove(entry);
                return Ok(last);
            };
            self.restructure(pos, block, at)?;
        }
        Ok(None)
    }

    /// The adoption agency's steps for the formatting element at stack
    /// position `fe` with the block at `block` after it (the furthest
    /// block): the formatting elements between them are copied down the
    /// block's new chain of ancestors, the block moves under the element
    /// below the formatting element, and a copy of the formatting element
    /// takes the block's children. Elements the tree has built move, so a
    /// page where a region of a pattern may be among them, or a dropped
    /// element is, takes the full parse; so does one where an element of
    /// the block's subtree may match a pattern at its new level.
    fn restructure(&mut self, fe: usize, block: usize, at: usize) -> Result<(), Unfollowed> {
        self.end_text_node();
        let block_start = self.stack[block].start;
        if self.open_matches != 0
            || self
                .regions
                .last()
                .is_some_and(|(_, r)| r.bytes.end > block_start)
            || self.stack[fe - 1..].iter().any(|o| o.dropped)
        {
            return Err(Unfollowed::Adoption);
        }
        // The block's subtree: the elements made since it opened.
        let subtree = self.stack[block].element as usize..self.elements.len();
        let block_level = self.stack[block].level;
        let fe_id = self.stack[fe].id;
        let block_id = self.stack[block].id;
        let common = fe - 1;
        let mut bookmark = self.formatting_position(fe_id).unwrap_or(0);
        let mut last = block_id;
        let mut node = block;
        let mut inner = 0;
        loop {
            inner += 1;
            node -= 1;
            let node_id = self.stack[node].id;
            if node_id == fe_id {
                break;
            }
            let mut entry = self.formatting_position(node_id);
            if let Some(e) = entry.filter(|_| inner > 3) {
                self.formatting.remove(e);
                if e < bookmark {
                    bookmark -= 1;
                }
                entry = None;
            }
            let Some(e) = entry else {
                let removed = self.stack.remove(node);
                self.close_named(&removed);
                continue;
            };
            let copy = self.copy_of(e, at);
            let copy_id = copy.id;
            if let Formatting::Element { id, .. } = &mut self.formatting[e] {
                *id = copy_id;
            }
            self.stack[node] = copy;
            if last == block_id {
                bookmark = e + 1;
            }
            self.set_parent(last, copy_id);
            last = copy_id;
        }
        // The last node goes where the formatting element was (before a
        // table, when that is a table's part).
        let parent = self.foster_target(common);
        let parent_id = self.stack[parent].id;
        self.set_parent(last, parent_id);
        // A copy of the formatting element takes the block's children.
        let fe_entry = self.formatting_position(fe_id).unwrap_or(bookmark);
        let copy = self.copy_of(fe_entry, at);
        let copy_id = copy.id;
        let copy_element = copy.element;
        let block_element = self.open(block_id).map_or(NONE, |o| o.element);
        for e in &mut self.elements {
            if e.parent == block_element && block_element != NONE {
                e.parent = copy_element;
            }
        }
        self.elements[copy_element as usize].parent = block_element;
        let new_entry = Formatting::Element {
            id: copy_id,
            tag: self.formatting_tag(fe_entry),
            attrs: self.formatting_attrs(fe_entry),
        };
        self.formatting.remove(fe_entry);
        if fe_entry < bookmark {
            bookmark -= 1;
        }
        self.formatting
            .insert(bookmark.min(self.formatting.len()), new_entry);
        if let Some(i) = self.stack.iter().position(|o| o.id == fe_id) {
            let removed = self.stack.remove(i);
            self.close_named(&removed);
        }
        let after_block = self
            .stack
            .iter()
            .position(|o| o.id == block_id)
            .map_or(self.stack.len(), |i| i + 1);
        self.stack.insert(after_block, copy);
        self.relevel(common);
        let moved_to = self.open(block_id).map_or(block_level, |o| o.level);
        self.move_subtree(subtree, block_level, moved_to)
    }

    /// The levels of a moved block's subtree (`subtree`, the block first),
    /// the block from `from` to `to`, its descendants one further (a copy
    /// of the formatting element now holds them). An element that gets the
    /// tag and level of a pattern's match may now be one: the page takes
    /// the full parse. The elements looked at count as the formatting
    /// elements' work.
    fn move_subtree(
        &mut self,
        subtree: Range<usize>,
        from: u32,
        to: u32,
    ) -> Result<(), Unfollowed> {
        self.formatting_work += subtree.len() as u64;
        if self.formatting_work > canopy_dom::MAX_FORMATTING_WORK {
            return Err(Unfollowed::Budget);
        }
        let first = subtree.start;
        let mut may_match = false;
        for (i, e) in self
            .elements
            .get_mut(subtree)
            .into_iter()
            .flatten()
            .enumerate()
        {
            let level = if i == 0 {
                to
            } else {
                (e.level + 1 + to).saturating_sub(from)
            };
            e.level = level;
            let tag = self
                .labels
                .get(e.label.start as usize..e.tag_end as usize)
                .unwrap_or("");
            may_match |= self.match_keys.iter().any(|&(t, l)| t == tag && l == level);
        }
        // The copies the adoption agency made, on the stack.
        for o in &self.stack {
            if let Some(e) = self.elements.get_mut(o.element as usize) {
                if o.element as usize >= first {
                    e.level = o.level;
                }
            }
        }
        if may_match {
            return Err(Unfollowed::Adoption);
        }
        Ok(())
    }

    /// A new element with the tag and attributes of formatting entry
    /// `entry` (not yet in the tree: its parent is set by the caller).
    fn copy_of(&mut self, entry: usize, at: usize) -> Open {
        let tag = self.formatting_tag(entry);
        let attrs = self.formatting_attrs(entry);
        let mut view = Attrs::default();
        for (name, value) in &attrs {
            view.push(name, value);
        }
        let start = self.labels.len() as u32;
        step_label(&tag, view.get("id"), view.get("class"), &mut self.labels);
        let element = self.elements.len() as u32;
        self.elements.push(Element {
            parent: NONE,
            label: start..self.labels.len() as u32,
            tag_end: start + tag.len() as u32,
            level: 0,
        });
        let anchors = self.types(&tag, &view, 0, 0).1;
        self.next_id += 1;
        Open {
            id: self.next_id,
            tag,
            level: 0,
            element,
            dropped: false,
            unrendered: false,
            anchors,
            matches: 0,
            start: at,
            named: false,
            ancestors: Vec::new(),
        }
    }

    fn formatting_tag(&self, entry: usize) -> String {
        match &self.formatting[entry] {
            Formatting::Element { tag, .. } => tag.clone(),
            Formatting::Marker => String::new(),
        }
    }

    fn formatting_attrs(&self, entry: usize) -> Vec<(String, String)> {
        match &self.formatting[entry] {
            Formatting::Element { attrs, .. } => attrs.clone(),
            Formatting::Marker => Vec::new(),
        }
    }

    fn formatting_position(&self, id: u32) -> Option<usize> {
        self.formatting
            .iter()
            .position(|f| matches!(f, Formatting::Element { id: i, .. } if *i == id))
    }

    fn open(&self, id: u32) -> Option<&Open> {
        self.stack.iter().rev().find(|o| o.id == id)
    }

    /// Where content for the open element at `target` goes: before the
    /// table, in the table's parent, when `target` is a part of a table
    /// (foster parenting); else `target` itself.
    fn foster_target(&self, target: usize) -> usize {
        if !is_table_part(&self.stack[target].tag) {
            return target;
        }
        self.stack
            .iter()
            .rposition(|o| o.tag == "table")
            .map_or(target, |t| t.saturating_sub(1))
    }

    /// Makes the open element `parent` the parent of the open element
    /// `child` in the body's tree.
    fn set_parent(&mut self, child: u32, parent: u32) {
        let parent = self.open(parent).map_or(NONE, |o| o.element);
        if let Some(child) = self.open(child).map(|o| o.element) {
            if let Some(e) = self.elements.get_mut(child as usize) {
                e.parent = parent;
            }
        }
    }

    /// The levels of the open elements from stack position `from` up, after
    /// the adoption agency moved some: each one's parent is open below it.
    fn relevel(&mut self, from: usize) {
        for i in from..self.stack.len() {
            let element = self.stack[i].element;
            if element == NONE {
                continue;
            }
            let parent = self.elements[element as usize].parent;
            if let Some(p) = self.stack[..i].iter().rposition(|o| o.element == parent) {
                let parent = &self.stack[p];
                self.stack[i].level = parent.level + u32::from(parent.tag != "tbody");
            }
        }
    }

    /// Moves the end of the regions at `closed` (closed by an end tag)
    /// past that tag.
    fn fix_region_ends(&mut self, closed: Range<usize>, end: usize) {
        for (_, r) in self.regions.get_mut(closed).into_iter().flatten() {
            r.bytes.end = end;
        }
    }

    fn close_cell_or_caption(&mut self, at: usize) {
        self.generate_implied_ends(None, at);
        if self.mode == Mode::InCell {
            while let Some(open) = self.stack.last() {
                let cell = matches!(open.tag.as_str(), "td" | "th");
                self.pop(at);
                if cell {
                    break;
                }
            }
            self.mode = Mode::InRow;
        } else {
            self.close("caption", at..at);
            self.mode = Mode::InTable;
        }
        self.clear_formatting_to_marker();
    }

    fn close_p(&mut self, at: usize) {
        if self.in_scope("p", Scope::Button) {
            self.generate_implied_ends(Some("p"), at);
            self.close("p", at..at);
        }
    }

    fn open_template(&mut self, attrs: &Attrs, at: usize) {
        self.push_element("template", attrs, at, true);
        self.formatting.push(Formatting::Marker);
        self.templates = 1;
    }

    fn reset_mode(&mut self) {
        for (i, open) in self.stack.iter().enumerate().rev() {
            let last = i == 0;
            self.mode = match open.tag.as_str() {
                "select" => {
                    let in_table = self.stack[..i].iter().any(|o| o.tag == "table");
                    if in_table {
                        Mode::InSelectInTable
                    } else {
                        Mode::InSelect
                    }
                }
                "td" | "th" if !last => Mode::InCell,
                "tr" => Mode::InRow,
                "tbody" | "thead" | "tfoot" => Mode::InTableBody,
                "caption" => Mode::InCaption,
                "colgroup" => Mode::InColumnGroup,
                "table" => Mode::InTable,
                "body" => Mode::InBody,
                // A template of the head closed: still in the head.
                _ if last && self.elements.is_empty() => Mode::InHead,
                _ if last => Mode::InBody,
                _ => continue,
            };
            return;
        }
    }

    fn clear_back_to(&mut self, context: &[&str], at: usize) {
        while !context.contains(&self.top()) {
            self.pop(at);
        }
    }

    fn generate_implied_ends(&mut self, except: Option<&str>, at: usize) {
        while matches!(
            self.top(),
            "dd" | "dt" | "li" | "optgroup" | "option" | "p" | "rb" | "rp" | "rt" | "rtc"
        ) && Some(self.top()) != except
        {
            self.pop(at);
        }
    }

    fn top(&self) -> &str {
        self.stack.last().map_or("", |o| o.tag.as_str())
    }

    fn in_scope(&self, tag: &str, scope: Scope) -> bool {
        self.stack_in_scope(|t| t == tag, scope)
    }

    fn in_scope_any(&self, tags: &[&str], scope: Scope) -> bool {
        self.stack_in_scope(|t| tags.contains(&t), scope)
    }

    fn stack_in_scope(&self, wanted: impl Fn(&str) -> bool, scope: Scope) -> bool {
        for o in self.stack.iter().rev() {
            if wanted(&o.tag) {
                return true;
            }
            if scope.bounds(&o.tag) {
                return false;
            }
        }
        false
    }

    /// Whether the element at stack position `pos` is in scope.
    fn in_scope_at(&self, pos: usize, scope: Scope) -> bool {
        !self.stack[pos + 1..].iter().any(|o| scope.bounds(&o.tag))
    }

    /// Pops up to and including the innermost open `tag`, at the tag
    /// `span` that closes it: the elements inside it end where that tag
    /// starts, it where the tag ends.
    fn close(&mut self, tag: &str, span: Range<usize>) {
        let Some(i) = self.stack.iter().rposition(|o| o.tag == tag) else {
            return;
        };
        while self.stack.len() > i + 1 {
            self.pop(span.start);
        }
        self.pop(span.end);
    }

    /// Pops the current element, which ends at `end`; the indices of the
    /// regions it closed, if it was a match.
    fn pop(&mut self, end: usize) -> Option<Range<usize>> {
        self.end_text_node();
        let mut open = self.stack.pop()?;
        self.close_named(&open);
        if self.anchor.is_some_and(|(id, ..)| id == open.id) {
            self.close_anchor();
        }
        if !self.sections.is_empty() {
            self.sections.retain(|&(container, _)| container != open.id);
        }
        if open.matches == 0 {
            return None;
        }
        let start = open.start;
        let in_section = self.sections.iter().any(|&(_, from)| start >= from);
        let first = self.regions.len();
        let ancestors = std::mem::take(&mut open.ancestors);
        for pattern in bits(open.matches) {
            let region = Region {
                bytes: start..end,
                ancestors: ancestors.clone(),
            };
            self.regions.push((pattern, region));
            self.regions_dropped.push(in_section);
        }
        self.open_matches &= !open.matches;
        Some(first..self.regions.len())
    }

    /// Keeps the `href` of `<a>` element `element`: where it is in the
    /// page, or, when a character reference may change its host, decoded.
    fn push_link(&mut self, element: u32, href: &str) {
        let start = (href.as_ptr() as usize).wrapping_sub(self.html.as_ptr() as usize);
        let in_page = start
            .checked_add(href.len())
            .is_some_and(|end| end <= self.html.len());
        let link = if in_page && !host_has_char_ref(href) {
            Link::Page(start..start + href.len())
        } else {
            let from = self.decoded_links.len();
            decode(href, Refs::Attribute, true, |c| self.decoded_links.push(c));
            Link::Decoded(from..self.decoded_links.len())
        };
        self.links.push((element, link));
    }

    fn void(&mut self, tag: &str, attrs: &Attrs, span: Range<usize>) -> Result<(), Unfollowed> {
        self.push(tag, attrs, span.start)?;
        self.pop(span.end);
        Ok(())
    }

    fn push_unseen(&mut self, tag: &str) {
        self.end_text_node();
        self.next_id += 1;
        self.stack.push(Open {
            id: self.next_id,
            tag: tag.to_string(),
            level: 1,
            element: NONE,
            dropped: true,
            unrendered: canopy_dom::is_dropped_tag(tag),
            anchors: 0,
            matches: 0,
            start: 0,
            named: false,
            ancestors: Vec::new(),
        });
    }

    fn push(&mut self, tag: &str, attrs: &Attrs, at: usize) -> Result<(), Unfollowed> {
        if self.elements.len() >= self.options.max_nodes {
            return Err(Unfollowed::Budget);
        }
        if self.stack.len() as u32 > self.options.max_depth {
            return Err(Unfollowed::Depth);
        }
        for name in ["id", "class"] {
            if attrs
                .attr(name)
                .is_some_and(|a| a.first_token_has_char_ref())
            {
                return Err(Unfollowed::CharRef);
            }
        }
        let dropped = canopy_dom::is_dropped_tag(tag)
            || canopy_dom::is_hidden(attrs.iter().map(|a| (&*a.name, a.value)));
        if self.push_element(tag, attrs, at, dropped) {
            return Err(Unfollowed::FosteredOutOfRegion);
        }
        self.check_pattern_attrs(attrs)
    }

    /// A pattern's attribute (or its anchor's) whose value holds a
    /// character reference.
    fn check_pattern_attrs(&self, attrs: &Attrs) -> Result<(), Unfollowed> {
        for pattern in self.patterns {
            let want = match &pattern.ty {
                ElementType::Attrs { attrs, .. } => attrs,
                ElementType::Anchored { anchor, .. } => match anchor.as_deref() {
                    Some(ElementType::Attrs { attrs, .. }) => attrs,
                    _ => continue,
                },
                ElementType::Dfs { .. } => continue,
            };
            if want.iter().any(|(name, _)| {
                attrs
                    .attr(name)
                    .is_some_and(|a| a.first_token_has_char_ref())
            }) {
                return Err(Unfollowed::CharRef);
            }
            // A narrowed pattern reads its attribute's whole value.
            if let Some((name, _)) = &pattern.exact {
                if attrs
                    .get(name)
                    .is_some_and(|v| memchr::memchr2(b'&', b'\0', v.as_bytes()).is_some())
                {
                    return Err(Unfollowed::CharRef);
                }
            }
        }
        Ok(())
    }

    /// Pushes an element; whether it was put before a table that is a
    /// region or inside one, so that it is in the region's bytes but not
    /// in its subtree.
    fn push_element(&mut self, tag: &str, attrs: &Attrs, at: usize, dropped: bool) -> bool {
        let top = self.stack.len() - 1;
        let table_content = matches!(
            tag,
            "caption"
                | "colgroup"
                | "col"
                | "tbody"
                | "thead"
                | "tfoot"
                | "tr"
                | "td"
                | "th"
                | "table"
                | "style"
                | "script"
                | "template"
                | "form"
        ) || (tag == "input"
            && attrs
                .get("type")
                .is_some_and(|t| t.eq_ignore_ascii_case("hidden")));
        let parent_at = if table_content {
            top
        } else {
            self.foster_target(top)
        };
        self.end_text_node();
        let leaves_region = self.stack[parent_at + 1..].iter().any(|o| o.matches != 0);
        let parent = &self.stack[parent_at];
        let level = parent.level + u32::from(parent.tag != "tbody");
        let dropped = dropped || parent.dropped;
        let unrendered = parent.unrendered || canopy_dom::is_dropped_tag(tag);
        self.nodes_made += 1;
        self.next_id += 1;
        let id = self.next_id;
        let (mut element, mut anchors, mut matches, mut named) = (NONE, 0, 0, false);
        let mut ancestors = Vec::new();
        if !dropped {
            element = self.elements.len() as u32;
            if self.options.names_dropped_role(tag, |name| attrs.get(name)) {
                named = true;
                self.named_open
                    .push((id, self.text_bytes, self.regions.len(), element));
            }
            if canopy_dom::names_section_anchor(
                tag,
                |name| attrs.get(name),
                &self.options.section_anchors,
            ) {
                self.anchor = Some((id, self.nodes_made, at, element));
            }
            let start = self.labels.len() as u32;
            step_label(tag, attrs.get("id"), attrs.get("class"), &mut self.labels);
            self.elements.push(Element {
                parent: parent.element,
                label: start..self.labels.len() as u32,
                tag_end: start + tag.len() as u32,
                level,
            });
            let (is_match, is_anchor) = self.types(tag, attrs, level, parent_at);
            anchors = is_anchor;
            // Only the outermost match of a pattern is a region.
            matches = is_match & !self.open_matches;
        } else if !parent.dropped
            && tag == "script"
            && attrs.get("type").is_some_and(canopy_dom::is_json_ld_type)
        {
            // The tree drops the script and keeps its JSON-LD.
            matches = self.extras & !self.open_matches;
        }
        self.open_matches |= matches;
        if let Some(href) = attrs.get("href").filter(|_| tag == "a" && element != NONE) {
            self.push_link(element, href);
        }
        if matches != 0 {
            // Below `<html>` and `<body>`, the stack up to the parent (the
            // foster parent, for an element put before a table).
            ancestors = self.stack[2.min(parent_at + 1)..=parent_at]
                .iter()
                .map(|o| Ancestor {
                    element: o.element,
                    tag: o.tag.clone(),
                    start: o.start,
                    named: o.named,
                })
                .collect();
        }
        self.stack.push(Open {
            id,
            tag: tag.to_string(),
            level,
            element,
            dropped,
            unrendered,
            anchors,
            matches,
            start: at,
            named,
            ancestors,
        });
        leaves_region
    }

    /// The patterns an element is a match of, and those whose anchor's
    /// type it has (bit `i` for pattern `i`).
    fn types(&self, tag: &str, attrs: &Attrs, level: u32, parent_at: usize) -> (u64, u64) {
        let have = |want: &[(String, String)]| {
            want.iter()
                .all(|(name, value)| attrs.get(name).is_some_and(|v| tolerant_form(v) == *value))
        };
        let (mut matches, mut anchors) = (0, 0);
        for (i, pattern) in self.patterns.iter().enumerate() {
            let bit = 1u64 << i;
            let (is_match, is_anchor) = match &pattern.ty {
                ElementType::Attrs {
                    tag: want,
                    attrs: want_attrs,
                } => (
                    level == pattern.level
                        && tag == want
                        && have(want_attrs)
                        && pattern.exact.as_ref().is_none_or(|(name, value)| {
                            attrs
                                .get(name)
                                .is_some_and(|v| normalized_space(v) == *value)
                        }),
                    false,
                ),
                ElementType::Dfs { .. } => (false, false),
                ElementType::Anchored { anchor, path } => {
                    let is_anchor = match anchor.as_deref() {
                        Some(ElementType::Attrs {
                            tag: want,
                            attrs: want_attrs,
                        }) => tag == want && have(want_attrs),
                        Some(_) => false,
                        None => tag == "body",
                    };
                    let is_match = level == pattern.level
                        && path.last().is_some_and(|own| own == tag)
                        && level
                            .checked_sub(path.len() as u32)
                            .is_some_and(|anchor_level| {
                                self.stack[..=parent_at].iter().any(|o| {
                                    o.anchors & bit != 0
                                        && o.level == anchor_level
                                        && o.tag != "tbody"
                                })
                            });
                    (is_match, is_anchor && tag != "tbody")
                }
            };
            matches |= u64::from(is_match) << i;
            anchors |= u64::from(is_anchor) << i;
        }
        if self.extras != 0 && canopy_metadata::read_beyond_article(tag, |name| attrs.get(name)) {
            matches |= self.extras;
        }
        (matches, anchors)
    }

    // The list of active formatting elements.

    fn push_formatting(&mut self, tag: &str, attrs: &Attrs, at: usize) -> Result<(), Unfollowed> {
        self.push(tag, attrs, at)?;
        let id = self.stack[self.stack.len() - 1].id;
        let mut owned: Vec<(String, String)> = attrs
            .iter()
            .map(|a| (a.name.to_string(), a.value.to_string()))
            .collect();
        owned.sort();
        // Noah's Ark: at most three entries alike since the last marker.
        let since_marker = self
            .formatting
            .iter()
            .rposition(|f| matches!(f, Formatting::Marker))
            .map_or(0, |m| m + 1);
        self.formatting_work += (self.formatting.len() - since_marker) as u64;
        if self.formatting_work > canopy_dom::MAX_FORMATTING_WORK {
            return Err(Unfollowed::Budget);
        }
        let alike: Vec<usize> = (since_marker..self.formatting.len())
            .filter(|&i| {
                matches!(&self.formatting[i],
                    Formatting::Element { tag: t, attrs: a, .. } if t == tag && *a == owned)
            })
            .collect();
        if alike.len() >= 3 {
            self.formatting.remove(alike[0]);
        }
        self.formatting.push(Formatting::Element {
            id,
            tag: tag.to_string(),
            attrs: owned,
        });
        Ok(())
    }

    /// The last entry for `tag` since the last marker.
    fn formatting_index(&self, tag: &str) -> Option<usize> {
        for (i, f) in self.formatting.iter().enumerate().rev() {
            match f {
                Formatting::Marker => return None,
                Formatting::Element { tag: t, .. } if t == tag => return Some(i),
                Formatting::Element { .. } => {}
            }
        }
        None
    }

    fn reconstruction_pending(&self) -> bool {
        matches!(self.formatting.last(), Some(Formatting::Element { id, .. }) if self.open(*id).is_none())
    }

    /// Opens again the formatting elements closed by something other than
    /// their own end tag since the last marker, as the tree does before
    /// text and inline tags.
    fn reconstruct(&mut self, at: usize) -> Result<(), Unfollowed> {
        if !self.reconstruction_pending() {
            return Ok(());
        }
        let mut first = self.formatting.len() - 1;
        while first > 0 {
            match &self.formatting[first - 1] {
                Formatting::Element { id, .. } if self.open(*id).is_none() => first -= 1,
                _ => break,
            }
        }
        for i in first..self.formatting.len() {
            let Formatting::Element { tag, attrs, .. } = &self.formatting[i] else {
                continue;
            };
            let (tag, attrs) = (tag.clone(), attrs.clone());
            let mut view = Attrs::default();
            for (name, value) in &attrs {
                view.push(name, value);
            }
            self.push(&tag, &view, at)?;
            let id = self.stack[self.stack.len() - 1].id;
            if let Formatting::Element { id: entry, .. } = &mut self.formatting[i] {
                *entry = id;
            }
        }
        Ok(())
    }

    fn clear_formatting_to_marker(&mut self) {
        while let Some(f) = self.formatting.pop() {
            if matches!(f, Formatting::Marker) {
                break;
            }
        }
    }
}

/// The element kinds that bound a scope.
#[derive(Clone, Copy)]
enum Scope {
    Default,
    ListItem,
    Button,
    Table,
}

impl Scope {
    fn bounds(self, tag: &str) -> bool {
        let default = || {
            matches!(
                tag,
                "applet"
                    | "caption"
                    | "html"
                    | "table"
                    | "td"
                    | "th"
                    | "marquee"
                    | "object"
                    | "template"
            )
        };
        match self {
            Scope::Default => default(),
            Scope::ListItem => default() || matches!(tag, "ol" | "ul"),
            Scope::Button => default() || tag == "button",
            Scope::Table => matches!(tag, "html" | "table" | "template"),
        }
    }
}

/// The quirks mode a doctype sets, as far as a `<table>` in a `<p>` is
/// concerned (the HTML standard's lists, their common entries).
fn quirks_of(doctype: &str) -> DocumentMode {
    let d = doctype.to_ascii_lowercase();
    let d = d.split_whitespace().collect::<Vec<_>>().join(" ");
    if d == "<!doctype html>" || d == "<!doctype html >" {
        return DocumentMode::NoQuirks;
    }
    let has_system = d.contains("http://") || d.contains("https://");
    if d.contains("xhtml 1.0 transitional")
        || d.contains("xhtml 1.0 frameset")
        || d.contains("xhtml 1.0 strict")
        || d.contains("xhtml 1.1")
        || d.contains("xhtml basic")
        || d.contains("html 4.01//en")
        || ((d.contains("html 4.01 transitional") || d.contains("html 4.01 frameset"))
            && has_system)
    {
        return DocumentMode::NoQuirks;
    }
    if d.contains("html 4.01 transitional")
        || d.contains("html 4.01 frameset")
        || d.contains("html 4.0 transitional")
        || d.contains("html 3.2")
    {
        return DocumentMode::Quirks;
    }
    DocumentMode::Unknown
}

fn is_blank(text: &str) -> bool {
    text.bytes()
        .all(|b| matches!(b, b'\t' | b'\n' | b'\x0C' | b'\r' | b' '))
}

fn is_heading(tag: &str) -> bool {
    matches!(tag, "h1" | "h2" | "h3" | "h4" | "h5" | "h6")
}

fn is_table_part(tag: &str) -> bool {
    matches!(tag, "table" | "tbody" | "thead" | "tfoot" | "tr")
}

/// The elements not `gone` and not inside one that is (the tree's drop
/// list's page-wide rules), their parents renumbered. A parent may come
/// after its child (the adoption agency's copies).
/// Whether a character reference may change the scheme or host of a
/// link, `href` as written: one before the end of its host (after
/// `http(s)://`), or before its first `/`, `?` or `#` otherwise.
fn host_has_char_ref(href: &str) -> bool {
    let href = href.trim_start();
    let after = |scheme: &str| {
        href.get(..scheme.len())
            .filter(|h| h.eq_ignore_ascii_case(scheme))
            .and_then(|_| href.get(scheme.len()..))
    };
    let rest = after("http://")
        .or_else(|| after("https://"))
        .unwrap_or(href);
    rest.split(['/', '?', '#'])
        .next()
        .is_some_and(|host| host.contains('&'))
}

/// Marks the subtrees of the elements marked gone.
fn propagate_gone(elements: &[Element], gone: &mut [bool]) {
    if !gone.contains(&true) {
        return;
    }
    parents_first(elements, |e| {
        let parent = elements[e].parent;
        if parent != NONE {
            gone[e] |= gone[parent as usize];
        }
    });
}

/// The elements less those marked gone (subtrees marked too), parents
/// renumbered.
fn without_dropped(elements: Vec<Element>, gone: &[bool]) -> Vec<Element> {
    if !gone.contains(&true) {
        return elements;
    }
    let n = elements.len();
    let mut index = vec![NONE; n];
    let mut kept = Vec::with_capacity(n);
    for (i, element) in elements.into_iter().enumerate() {
        if !gone[i] {
            index[i] = kept.len() as u32;
            kept.push(element);
        }
    }
    for element in &mut kept {
        if element.parent != NONE {
            element.parent = index[element.parent as usize];
        }
    }
    kept
}

/// Calls `visit` with each element's index once, after its parent's: the
/// adoption agency gives some elements a parent made after them.
fn parents_first(elements: &[Element], mut visit: impl FnMut(usize)) {
    let mut done = vec![false; elements.len()];
    let mut chain = Vec::new();
    for i in 0..elements.len() {
        let mut at = i;
        while !done[at] {
            chain.push(at);
            match elements[at].parent {
                NONE => break,
                p => at = p as usize,
            }
        }
        while let Some(e) = chain.pop() {
            done[e] = true;
            visit(e);
        }
    }
}

/// The indices of the set bits of `mask`, lowest first.
fn bits(mut mask: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let i = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            i
        })
    })
}

/// The head's elements, which go to the head before the body opens.
fn is_head_element(tag: &str) -> bool {
    matches!(
        tag,
        "base"
            | "basefont"
            | "bgsound"
            | "link"
            | "meta"
            | "title"
            | "noscript"
            | "noframes"
            | "style"
            | "script"
    )
}

fn is_void(tag: &str) -> bool {
    matches!(
        tag,
        "area"
            | "base"
            | "br"
            | "col"
            | "embed"
            | "hr"
            | "img"
            | "input"
            | "link"
            | "meta"
            | "param"
            | "source"
            | "track"
            | "wbr"
            | "basefont"
            | "bgsound"
            | "frame"
            | "keygen"
    )
}

/// The HTML standard's special elements.
fn is_special(tag: &str) -> bool {
    matches!(
        tag,
        "address"
            | "applet"
            | "area"
            | "article"
            | "aside"
            | "base"
            | "basefont"
            | "bgsound"
            | "blockquote"
            | "body"
            | "br"
            | "button"
            | "caption"
            | "center"
            | "col"
            | "colgroup"
            | "dd"
            | "details"
            | "dir"
            | "div"
            | "dl"
            | "dt"
            | "embed"
            | "fieldset"
            | "figcaption"
            | "figure"
            | "footer"
            | "form"
            | "frame"
            | "frameset"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "head"
            | "header"
            | "hgroup"
            | "hr"
            | "html"
            | "iframe"
            | "img"
            | "input"
            | "keygen"
            | "li"
            | "link"
            | "listing"
            | "main"
            | "marquee"
            | "menu"
            | "meta"
            | "nav"
            | "noembed"
            | "noframes"
            | "noscript"
            | "object"
            | "ol"
            | "p"
            | "param"
            | "plaintext"
            | "pre"
            | "script"
            | "search"
            | "section"
            | "select"
            | "source"
            | "style"
            | "summary"
            | "table"
            | "tbody"
            | "td"
            | "template"
            | "textarea"
            | "tfoot"
            | "th"
            | "thead"
            | "title"
            | "tr"
            | "track"
            | "ul"
            | "wbr"
            | "xmp"
    )
}

#[cfg(test)]
pub(crate) mod tests;
