//! The tree each html5ever builds, written out: a sink of markup5ever's
//! `TreeSink` trait, which both builds share (they depend on the same
//! markup5ever), so one recorder serves the published tree builder and the
//! patched one. Every node, attribute, text, comment and doctype and the
//! quirks mode are compared; parse errors are not: the tree builder
//! reports one for each character token in the wrong place, and the patched
//! tokenizer cuts text into fewer tokens (the token streams, errors
//! included, are compared apart).

use std::borrow::Cow;
use std::cell::{Cell, Ref, RefCell};

use upstream::interface::{ElementFlags, NodeOrText, QuirksMode, TreeSink};
use upstream::tendril::StrTendril;
use upstream::{Attribute, QualName};

enum Kind {
    Document,
    Element(Vec<Attribute>),
    Text(String),
    Comment(String),
    Pi(String, String),
    Doctype(String, String, String),
}

struct Node {
    name: QualName,
    kind: Kind,
    parent: Option<usize>,
    children: Vec<usize>,
}

pub struct Tree {
    nodes: RefCell<Vec<Node>>,
    /// Template element → its contents (a document fragment).
    contents: RefCell<Vec<(usize, usize)>>,
    quirks: Cell<Option<QuirksMode>>,
}

fn no_name() -> QualName {
    QualName::new(None, upstream::ns!(), upstream::local_name!(""))
}

impl Tree {
    pub fn new() -> Tree {
        Tree {
            nodes: RefCell::new(vec![Node {
                name: no_name(),
                kind: Kind::Document,
                parent: None,
                children: Vec::new(),
            }]),
            contents: RefCell::default(),
            quirks: Cell::new(None),
        }
    }

    fn add(&self, name: QualName, kind: Kind) -> usize {
        let mut nodes = self.nodes.borrow_mut();
        nodes.push(Node {
            name,
            kind,
            parent: None,
            children: Vec::new(),
        });
        nodes.len() - 1
    }

    fn detach(&self, node: usize) {
        let mut nodes = self.nodes.borrow_mut();
        if let Some(parent) = nodes[node].parent.take() {
            nodes[parent].children.retain(|&c| c != node);
        }
    }

    /// Puts `child` into `parent` at `at` (its end if `None`), a text
    /// joined to a text before it.
    fn insert(&self, parent: usize, at: Option<usize>, child: NodeOrText<usize>) {
        let index = at.unwrap_or_else(|| self.nodes.borrow()[parent].children.len());
        let node = match child {
            NodeOrText::AppendText(text) => {
                let mut nodes = self.nodes.borrow_mut();
                let before = index.checked_sub(1).map(|i| nodes[parent].children[i]);
                if let Some(before) = before {
                    if let Kind::Text(t) = &mut nodes[before].kind {
                        t.push_str(&text);
                        return;
                    }
                }
                drop(nodes);
                self.add(no_name(), Kind::Text(text.to_string()))
            }
            NodeOrText::AppendNode(node) => {
                self.detach(node);
                node
            }
        };
        let mut nodes = self.nodes.borrow_mut();
        let index = index.min(nodes[parent].children.len());
        nodes[parent].children.insert(index, node);
        nodes[node].parent = Some(parent);
    }

    /// The tree as text, one node a line, indented by depth.
    pub fn written(&self) -> Vec<String> {
        let nodes = self.nodes.borrow();
        let mut out = vec![format!("quirks {:?}", self.quirks.get())];
        let mut stack = vec![(0usize, 0usize)];
        while let Some((node, depth)) = stack.pop() {
            let n = &nodes[node];
            let line = match &n.kind {
                Kind::Document => "document".to_string(),
                Kind::Element(attrs) => format!(
                    "<{:?} {}> {:?}",
                    n.name.ns,
                    &*n.name.local,
                    attrs
                        .iter()
                        .map(|a| (&*a.name.ns, &*a.name.local, &*a.value))
                        .collect::<Vec<_>>()
                ),
                Kind::Text(t) => format!("text {t:?}"),
                Kind::Comment(c) => format!("comment {c:?}"),
                Kind::Pi(t, d) => format!("pi {t:?} {d:?}"),
                Kind::Doctype(a, b, c) => format!("doctype {a:?} {b:?} {c:?}"),
            };
            out.push(format!("{}{line}", " ".repeat(depth.min(200))));
            for &(template, contents) in self.contents.borrow().iter() {
                if template == node {
                    stack.push((contents, depth + 1));
                }
            }
            stack.extend(n.children.iter().rev().map(|&c| (c, depth + 1)));
        }
        out
    }
}

impl TreeSink for Tree {
    type Handle = usize;
    type Output = Self;
    type ElemName<'a> = Ref<'a, QualName>;

    fn finish(self) -> Self {
        self
    }

    fn parse_error(&self, _msg: Cow<'static, str>) {}

    fn get_document(&self) -> usize {
        0
    }

    fn elem_name<'a>(&'a self, target: &'a usize) -> Ref<'a, QualName> {
        Ref::map(self.nodes.borrow(), |n| &n[*target].name)
    }

    fn create_element(&self, name: QualName, attrs: Vec<Attribute>, flags: ElementFlags) -> usize {
        let node = self.add(name, Kind::Element(attrs));
        if flags.template {
            let contents = self.add(no_name(), Kind::Document);
            self.contents.borrow_mut().push((node, contents));
        }
        node
    }

    fn create_comment(&self, text: StrTendril) -> usize {
        self.add(no_name(), Kind::Comment(text.to_string()))
    }

    fn create_pi(&self, target: StrTendril, data: StrTendril) -> usize {
        self.add(no_name(), Kind::Pi(target.to_string(), data.to_string()))
    }

    fn append(&self, parent: &usize, child: NodeOrText<usize>) {
        self.insert(*parent, None, child);
    }

    fn append_based_on_parent_node(
        &self,
        element: &usize,
        prev_element: &usize,
        child: NodeOrText<usize>,
    ) {
        if self.nodes.borrow()[*element].parent.is_some() {
            self.append_before_sibling(element, child);
        } else {
            self.append(prev_element, child);
        }
    }

    fn append_doctype_to_document(&self, name: StrTendril, public: StrTendril, system: StrTendril) {
        let doctype = self.add(
            no_name(),
            Kind::Doctype(name.to_string(), public.to_string(), system.to_string()),
        );
        self.insert(0, None, NodeOrText::AppendNode(doctype));
    }

    fn get_template_contents(&self, target: &usize) -> usize {
        self.contents
            .borrow()
            .iter()
            .find(|(t, _)| t == target)
            .map(|&(_, c)| c)
            .expect("a template's contents")
    }

    fn same_node(&self, x: &usize, y: &usize) -> bool {
        x == y
    }

    fn set_quirks_mode(&self, mode: QuirksMode) {
        self.quirks.set(Some(mode));
    }

    fn append_before_sibling(&self, sibling: &usize, child: NodeOrText<usize>) {
        let (parent, at) = {
            let nodes = self.nodes.borrow();
            let parent = nodes[*sibling].parent.expect("a sibling has a parent");
            let at = nodes[parent].children.iter().position(|c| c == sibling);
            (parent, at)
        };
        self.insert(parent, at, child);
    }

    fn add_attrs_if_missing(&self, target: &usize, attrs: Vec<Attribute>) {
        let mut nodes = self.nodes.borrow_mut();
        if let Kind::Element(existing) = &mut nodes[*target].kind {
            for attr in attrs {
                if !existing.iter().any(|e| e.name == attr.name) {
                    existing.push(attr);
                }
            }
        }
    }

    fn remove_from_parent(&self, target: &usize) {
        self.detach(*target);
    }

    fn reparent_children(&self, node: &usize, new_parent: &usize) {
        let children = std::mem::take(&mut self.nodes.borrow_mut()[*node].children);
        for child in children {
            self.nodes.borrow_mut()[child].parent = None;
            self.insert(*new_parent, None, NodeOrText::AppendNode(child));
        }
    }
}
