//! The html5ever `TreeSink` that builds the mutable, linked build tree.
//!
//! html5ever needs a tree it can edit while it parses (foster parenting,
//! adoption agency, reparenting). This module keeps that tree as a `Vec` of
//! linked nodes behind a `RefCell` (the sink methods take `&self`); the
//! [`crate::Document`] is built from it once parsing ends, in depth-first
//! order and without the nodes Canopy drops.

use std::borrow::Cow;
use std::cell::{Cell, Ref, RefCell};
use std::collections::{HashMap, HashSet};

use html5ever::tendril::StrTendril;
use html5ever::tree_builder::{ElementFlags, NodeOrText, QuirksMode, TreeSink};
use html5ever::{Attribute, QualName};

use crate::deadline::Deadline;

/// Index of a node in the build tree.
pub(crate) type Handle = u32;
pub(crate) const NONE: u32 = u32::MAX;

pub(crate) enum BuildData {
    Document,
    Element {
        attrs: Vec<Attribute>,
    },
    Text(StrTendril),
    /// Comments, processing instructions and doctypes: kept only so that
    /// handles stay valid; never part of the final document.
    Other,
}

pub(crate) struct BuildNode {
    pub name: QualName,
    pub data: BuildData,
    pub parent: u32,
    pub first_child: u32,
    pub last_child: u32,
    pub prev: u32,
    pub next: u32,
    /// Depth at the time the node was attached (the document is 0).
    pub depth: u32,
    /// Depth the tree builder asked for, before the cap: the depth of
    /// html5ever's stack of open elements when the node was inserted.
    pub vdepth: u32,
    /// For `<template>`: the node holding its contents.
    pub template_contents: u32,
    /// The copy of a formatting element that the adoption agency put
    /// inside the block it moved out of that element (see
    /// `Document::adopted_rest`).
    pub adoption_copy: bool,
    /// A `<noscript>` whose text was parsed into its children: the
    /// fallback of a script-rendered container (`crate::fallback`), kept.
    pub fallback: bool,
}

impl BuildNode {
    /// A node attached nowhere yet, with no children.
    fn detached(name: QualName, data: BuildData) -> Self {
        BuildNode {
            name,
            data,
            parent: NONE,
            first_child: NONE,
            last_child: NONE,
            prev: NONE,
            next: NONE,
            depth: 0,
            vdepth: 0,
            template_contents: NONE,
            adoption_copy: false,
            fallback: false,
        }
    }
}

pub(crate) struct Sink {
    pub nodes: RefCell<Vec<BuildNode>>,
    /// Nesting cap: a node that would sit deeper is attached to the
    /// ancestor at the cap instead (the tree is flattened there, as browsers do).
    pub max_depth: u32,
    pub flattened: Cell<bool>,
    /// Sum of `vdepth` over the nodes inserted while html5ever's stack of
    /// open elements is deeper than `max_depth`. The tree builder scans that
    /// stack for most start tags, so this estimates the work spent on the
    /// too-deep part of the page; [`crate::Document::parse`] stops feeding
    /// input once it passes [`MAX_DEEP_WORK`].
    pub deep_work: Cell<u64>,
    /// The page's time budget, read every [`Deadline::CHECK_EVERY`] nodes.
    deadline: Deadline,
    /// Set once `deadline` has passed; [`crate::Document::parse_within`]
    /// then stops feeding input.
    pub expired: Cell<bool>,
    /// Attributes held by the build tree's elements (each reconstructed
    /// formatting element holds a copy of its attributes).
    attrs: Cell<usize>,
    /// The attribute names of each element a later tag of its name added
    /// attributes to (`<html>`, `<body>`: [`TreeSink::add_attrs_if_missing`]),
    /// kept from its first such tag on: looking each new attribute up in
    /// the element's list would cost a page of n such tags, or of one tag of
    /// n attributes, n² comparisons.
    attr_names: RefCell<HashMap<Handle, HashSet<QualName>>>,
    /// The `<noscript>` elements (HTML namespace) that text was appended
    /// to, in the order of their first text: the candidates of
    /// `crate::fallback`. Found where text arrives rather than where
    /// elements are made, which is far more often.
    pub noscripts: RefCell<Vec<Handle>>,
}

/// Where text appended to an element goes ([`Sink::text_in`]).
enum TextIn {
    /// Into the page's text.
    Page,
    /// Nowhere: it is never read.
    Unread,
    /// Into a `noscript`, kept for `crate::fallback`.
    Noscript,
    /// Into a JSON-LD script, kept for the page's metadata.
    JsonLd,
}

/// Budget for [`Sink::deep_work`]: 2^28 stack-scan steps (about a second).
/// Pages nested no deeper than `max_depth` never spend any of it.
pub(crate) const MAX_DEEP_WORK: u64 = 1 << 28;

fn empty_name() -> QualName {
    QualName::new(None, html5ever::ns!(), html5ever::local_name!(""))
}

/// Bytes of HTML per node of the build tree (elements, text, comments),
/// counted low so that most pages need no second allocation: the 10th
/// percentile of the pages of dragnet (32.6; median 41.7), big9 (37.7;
/// 44.2) and trafbench (34.7; 57.6).
const HTML_BYTES_PER_NODE: usize = 32;

/// The most nodes made room for at once (the dev corpora's largest page
/// has 27,745): a page of mostly script or styles would otherwise reserve
/// for nodes it does not have; past this, the list grows as it fills.
const MAX_RESERVED_NODES: usize = 1 << 16;

/// The nodes a page of `html_len` bytes is expected to have.
fn expected_nodes(html_len: usize) -> usize {
    (html_len / HTML_BYTES_PER_NODE).clamp(16, MAX_RESERVED_NODES)
}

impl Sink {
    /// A sink for a page of `html_len` bytes: room for the nodes such a
    /// page has is made at once, rather than by a dozen doublings of the
    /// node list, each a copy of it.
    pub fn new(max_depth: u32, deadline: Deadline, html_len: usize) -> Self {
        let mut nodes = Vec::with_capacity(expected_nodes(html_len));
        nodes.push(BuildNode::detached(empty_name(), BuildData::Document));
        Sink {
            nodes: RefCell::new(nodes),
            max_depth,
            flattened: Cell::new(false),
            deep_work: Cell::new(0),
            deadline,
            expired: Cell::new(false),
            attrs: Cell::new(0),
            attr_names: RefCell::new(HashMap::new()),
            noscripts: RefCell::new(Vec::new()),
        }
    }

    /// Whether `handle` is an element named `local` (in the HTML namespace),
    /// and then how many attributes it holds.
    pub fn attrs_if_named(&self, handle: Handle, local: &html5ever::LocalName) -> Option<usize> {
        let nodes = self.nodes.borrow();
        let node = nodes.get(handle as usize)?;
        match &node.data {
            BuildData::Element { attrs }
                if node.name.local == *local && node.name.ns == html5ever::ns!(html) =>
            {
                Some(attrs.len())
            }
            _ => None,
        }
    }

    /// What the build tree holds, for its budget ([`crate::budget`]): its
    /// nodes plus its elements' attributes, the two things whose number the
    /// markup, not the page's size, decides.
    pub fn units(&self) -> usize {
        self.nodes.borrow().len() + self.attrs.get()
    }

    /// The attributes of the build tree's elements.
    pub(crate) fn attr_count(&self) -> usize {
        self.attrs.get()
    }

    fn new_node(&self, name: QualName, data: BuildData) -> Handle {
        let mut nodes = self.nodes.borrow_mut();
        let id = nodes.len() as u32;
        // `is_multiple_of` needs Rust 1.87; the workspace's rust-version is 1.85.
        #[allow(clippy::manual_is_multiple_of)]
        let check = id % Deadline::CHECK_EVERY == 0;
        if check && !self.expired.get() && self.deadline.expired() {
            self.expired.set(true);
        }
        nodes.push(BuildNode::detached(name, data));
        id
    }

    /// Detaches `id` from its parent and siblings.
    pub(crate) fn detach_node(&self, id: Handle) {
        Self::detach(&mut self.nodes.borrow_mut(), id);
    }

    /// Moves every child of `from` to the end of `to`'s children.
    pub(crate) fn move_children(&self, from: Handle, to: Handle) {
        loop {
            let child = self.nodes.borrow()[from as usize].first_child;
            if child == NONE {
                break;
            }
            self.append_child(to, child);
        }
    }

    fn detach(nodes: &mut [BuildNode], id: Handle) {
        let (parent, prev, next) = {
            let n = &nodes[id as usize];
            (n.parent, n.prev, n.next)
        };
        if parent == NONE {
            return;
        }
        if prev != NONE {
            nodes[prev as usize].next = next;
        } else {
            nodes[parent as usize].first_child = next;
        }
        if next != NONE {
            nodes[next as usize].prev = prev;
        } else {
            nodes[parent as usize].last_child = prev;
        }
        let n = &mut nodes[id as usize];
        n.parent = NONE;
        n.prev = NONE;
        n.next = NONE;
    }

    /// The parent a child of `parent` really gets: `parent` itself, or the
    /// ancestor at the depth cap when `parent` is already at it.
    fn capped_parent(&self, nodes: &[BuildNode], mut parent: Handle) -> Handle {
        while nodes[parent as usize].depth >= self.max_depth
            && nodes[parent as usize].parent != NONE
        {
            parent = nodes[parent as usize].parent;
            self.flattened.set(true);
        }
        parent
    }

    fn append_child(&self, parent: Handle, child: Handle) {
        let mut nodes = self.nodes.borrow_mut();
        Self::detach(&mut nodes, child);
        let vdepth = nodes[parent as usize].vdepth.saturating_add(1);
        if vdepth > self.max_depth {
            self.deep_work
                .set(self.deep_work.get().saturating_add(u64::from(vdepth)));
        }
        let parent = self.capped_parent(&nodes, parent);
        let last = nodes[parent as usize].last_child;
        let depth = nodes[parent as usize].depth + 1;
        {
            let c = &mut nodes[child as usize];
            c.parent = parent;
            c.prev = last;
            c.depth = depth;
            c.vdepth = vdepth;
        }
        if last != NONE {
            nodes[last as usize].next = child;
        } else {
            nodes[parent as usize].first_child = child;
        }
        nodes[parent as usize].last_child = child;
    }

    fn insert_before(&self, sibling: Handle, child: Handle) {
        let mut nodes = self.nodes.borrow_mut();
        Self::detach(&mut nodes, child);
        let (parent, prev, depth, vdepth) = {
            let s = &nodes[sibling as usize];
            (s.parent, s.prev, s.depth, s.vdepth)
        };
        {
            let c = &mut nodes[child as usize];
            c.parent = parent;
            c.prev = prev;
            c.next = sibling;
            c.depth = depth;
            c.vdepth = vdepth;
        }
        nodes[sibling as usize].prev = child;
        if prev != NONE {
            nodes[prev as usize].next = child;
        } else if parent != NONE {
            nodes[parent as usize].first_child = child;
        }
    }

    /// What becomes of text appended to `node`. The raw text of `script`
    /// (but JSON-LD) and `style`, whose elements the [`crate::Document`]
    /// drops with their subtree, is never read: not storing it spares
    /// copying and merging what is often most of a page's bytes. (Text
    /// reaches these elements only through `append`, and html5ever never
    /// moves it out of them.) A `noscript`'s is kept: it may be the markup
    /// of a script-rendered container (`crate::fallback`).
    fn text_in(node: &BuildNode) -> TextIn {
        let BuildData::Element { attrs } = &node.data else {
            return TextIn::Page;
        };
        if node.name.ns != html5ever::ns!(html) {
            return TextIn::Page;
        }
        match node.name.local {
            html5ever::local_name!("style") => TextIn::Unread,
            html5ever::local_name!("script") if crate::is_json_ld(attrs) => TextIn::JsonLd,
            html5ever::local_name!("script") => TextIn::Unread,
            html5ever::local_name!("noscript") => TextIn::Noscript,
            _ => TextIn::Page,
        }
    }

    /// Appends text to the text node `target` if it is one; returns whether it did.
    fn try_merge_text(&self, target: Handle, text: &StrTendril) -> bool {
        if target == NONE {
            return false;
        }
        let mut nodes = self.nodes.borrow_mut();
        if let BuildData::Text(existing) = &mut nodes[target as usize].data {
            existing.push_tendril(text);
            true
        } else {
            false
        }
    }
}

impl TreeSink for Sink {
    type Handle = Handle;
    type Output = Self;
    type ElemName<'a> = Ref<'a, QualName>;

    fn finish(self) -> Self {
        self
    }

    fn parse_error(&self, _msg: Cow<'static, str>) {}

    fn get_document(&self) -> Handle {
        0
    }

    fn elem_name<'a>(&'a self, target: &'a Handle) -> Ref<'a, QualName> {
        Ref::map(self.nodes.borrow(), |n| &n[*target as usize].name)
    }

    fn create_element(&self, name: QualName, attrs: Vec<Attribute>, flags: ElementFlags) -> Handle {
        self.attrs.set(self.attrs.get() + attrs.len());
        let id = self.new_node(name, BuildData::Element { attrs });
        if flags.template {
            let contents = self.new_node(empty_name(), BuildData::Document);
            self.nodes.borrow_mut()[id as usize].template_contents = contents;
        }
        id
    }

    fn create_comment(&self, _text: StrTendril) -> Handle {
        self.new_node(empty_name(), BuildData::Other)
    }

    fn create_pi(&self, _target: StrTendril, _data: StrTendril) -> Handle {
        self.new_node(empty_name(), BuildData::Other)
    }

    fn append(&self, parent: &Handle, child: NodeOrText<Handle>) {
        match child {
            NodeOrText::AppendNode(node) => self.append_child(*parent, node),
            NodeOrText::AppendText(text) => {
                let last = {
                    let nodes = self.nodes.borrow();
                    // Judged on the element the text is in, not on where the
                    // depth cap puts it: the code of a script at the cap
                    // would become its ancestor's text.
                    let kind = Self::text_in(&nodes[*parent as usize]);
                    let p = self.capped_parent(&nodes, *parent);
                    let last = nodes[p as usize].last_child;
                    match kind {
                        TextIn::Unread => return,
                        // A raw-text element at the cap holds no text of
                        // its own; its text is no page text either.
                        TextIn::Noscript | TextIn::JsonLd if p != *parent => return,
                        TextIn::Noscript if last == NONE => self.noscripts.borrow_mut().push(p),
                        _ => {}
                    }
                    last
                };
                if !self.try_merge_text(last, &text) {
                    let node = self.new_node(empty_name(), BuildData::Text(text));
                    self.append_child(*parent, node);
                }
            }
        }
    }

    fn append_based_on_parent_node(
        &self,
        element: &Handle,
        prev_element: &Handle,
        child: NodeOrText<Handle>,
    ) {
        let has_parent = self.nodes.borrow()[*element as usize].parent != NONE;
        if has_parent {
            self.append_before_sibling(element, child);
        } else {
            self.append(prev_element, child);
        }
    }

    fn append_doctype_to_document(&self, _: StrTendril, _: StrTendril, _: StrTendril) {}

    fn get_template_contents(&self, target: &Handle) -> Handle {
        let contents = self.nodes.borrow()[*target as usize].template_contents;
        if contents == NONE {
            // html5ever only asks for the contents of template elements;
            // answer with the element itself rather than panic.
            *target
        } else {
            contents
        }
    }

    fn same_node(&self, x: &Handle, y: &Handle) -> bool {
        x == y
    }

    fn set_quirks_mode(&self, _mode: QuirksMode) {}

    fn append_before_sibling(&self, sibling: &Handle, new_node: NodeOrText<Handle>) {
        match new_node {
            NodeOrText::AppendNode(node) => self.insert_before(*sibling, node),
            NodeOrText::AppendText(text) => {
                let prev = self.nodes.borrow()[*sibling as usize].prev;
                if !self.try_merge_text(prev, &text) {
                    let node = self.new_node(empty_name(), BuildData::Text(text));
                    self.insert_before(*sibling, node);
                }
            }
        }
    }

    fn add_attrs_if_missing(&self, target: &Handle, attrs: Vec<Attribute>) {
        let mut nodes = self.nodes.borrow_mut();
        if let BuildData::Element { attrs: existing } = &mut nodes[*target as usize].data {
            let mut names = self.attr_names.borrow_mut();
            let present = names
                .entry(*target)
                .or_insert_with(|| existing.iter().map(|e| e.name.clone()).collect());
            for attr in attrs {
                if present.insert(attr.name.clone()) {
                    self.attrs.set(self.attrs.get() + 1);
                    existing.push(attr);
                }
            }
        }
    }

    fn remove_from_parent(&self, target: &Handle) {
        Self::detach(&mut self.nodes.borrow_mut(), *target);
    }

    fn reparent_children(&self, node: &Handle, new_parent: &Handle) {
        // Only the adoption agency moves a node's children (into its copy
        // of the formatting element being closed, html5ever's
        // `tree_builder::adoption_agency`).
        self.nodes.borrow_mut()[*new_parent as usize].adoption_copy = true;
        self.move_children(*node, *new_parent);
    }
}
