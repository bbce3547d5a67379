//! A [`Document`] as bytes and back, so that a page parsed once can be
//! read again without parsing it again: decoding copies buffers and numbers
//! where html5ever handles the page a character at a time (a large site's
//! pages wait on disk between the steps that read them, `canopy run`).
//!
//! ```text
//! document  = version (u8) ‖ truncated (u8) ‖ body
//!             ‖ text ‖ attr_text ‖ attrs ‖ nodes ‖ json_ld ‖ copies
//! text, attr_text = length ‖ UTF-8
//! attrs     = count ‖ (name ‖ range)*          ranges of attr_text
//! nodes     = count ‖ (0 ‖ name ‖ range ‖ size  an element: attrs, subtree
//!                     | 1 ‖ range)*             a text node: text
//! json_ld   = count ‖ (length ‖ UTF-8)*
//! copies    = count ‖ (id − previous id)*       the adoption agency's copies, in order
//! name      = 0 ‖ length ‖ UTF-8               the first time
//!           | index + 1                         then: its place among the names so far
//! range     = start − end of the previous range ‖ length
//! size      = end − the node's id               the nodes of its subtree, itself included
//! ```
//!
//! Every number is a LEB128 varint, most of them one byte. A name is
//! written once per page: a page has thousands of elements and attributes
//! but a few dozen names, and making an atom of a name is a hash lookup.
//! The rest of a node is not written but follows from the layout
//! ([`Document`]'s depth-first order): its parent is the nearest node
//! before it whose subtree holds it, its depth their number, its `dfs`
//! number the elements before it. So decoding builds the tree the
//! accessors expect, or fails: ranges inside their buffers and on
//! character boundaries, each subtree inside its parent's, text nodes
//! without children, at least one node; bytes that are not a document are
//! an error, never a panic later.

use std::ops::Range;

use html5ever::LocalName;
use rustc_hash::FxHashMap;

use crate::{Document, Element, Node, NodeData, NodeId};

const VERSION: u8 = 2;
const ELEMENT: u8 = 0;
const TEXT: u8 = 1;

/// Why bytes are not a [`Document`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError(&'static str);

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "not an encoded document: {}", self.0)
    }
}

impl std::error::Error for DecodeError {}

impl Document {
    /// Appends the document's bytes to `out` (read back by
    /// [`Document::decode`]).
    pub fn encode(&self, out: &mut Vec<u8>) {
        let mut names = Names::default();
        out.reserve(self.text.len() + self.attr_text.len() + 6 * self.nodes.len());
        out.push(VERSION);
        out.push(u8::from(self.truncated));
        put(out, self.body);
        put_str(out, &self.text);
        put_str(out, &self.attr_text);
        put(out, self.attrs.len());
        let mut at = 0;
        for (name, value) in &self.attrs {
            names.put(out, name);
            put_range(out, value, &mut at);
        }
        put(out, self.nodes.len());
        let (mut at_attr, mut at_text) = (0, 0);
        for (id, node) in self.nodes.iter().enumerate() {
            match &node.data {
                NodeData::Element(e) => {
                    out.push(ELEMENT);
                    names.put(out, &e.tag);
                    put_range(out, &e.attrs, &mut at_attr);
                    put(out, node.end - id);
                }
                NodeData::Text(range) => {
                    out.push(TEXT);
                    put_range(out, range, &mut at_text);
                }
            }
        }
        put(out, self.json_ld.len());
        for json in &self.json_ld {
            put_str(out, json);
        }
        put(out, self.adoption_copies.len());
        let mut previous = 0;
        for &id in &self.adoption_copies {
            put(out, id - previous);
            previous = id;
        }
    }

    /// The document that [`Document::encode`] wrote as `bytes`.
    pub fn decode(bytes: &[u8]) -> Result<Document, DecodeError> {
        let mut r = Reader(bytes);
        if r.byte()? != VERSION {
            return Err(DecodeError("unknown version"));
        }
        let truncated = match r.byte()? {
            0 => false,
            1 => true,
            _ => return Err(DecodeError("truncated flag is not 0 or 1")),
        };
        let body = r.number()?;
        let text = r.str()?.to_owned();
        let attr_text = r.str()?.to_owned();
        let mut names = Vec::new();
        let count = r.count()?;
        let mut attrs = Vec::with_capacity(count);
        let mut at = 0;
        for _ in 0..count {
            let name = r.name(&mut names)?;
            attrs.push((name, r.range(&mut at, |r| attr_text.get(r).is_some())?));
        }
        let count = r.count()?;
        if count == 0 {
            return Err(DecodeError("no nodes"));
        }
        let mut nodes: Vec<Node> = Vec::with_capacity(count);
        // The nodes whose subtrees hold the next one, innermost last.
        let mut open: Vec<NodeId> = Vec::new();
        let (mut at_attr, mut at_text, mut dfs) = (0, 0, 0);
        for id in 0..count {
            while open.last().is_some_and(|&o| nodes[o].end <= id) {
                open.pop();
            }
            let parent = open.last().copied();
            if parent.is_none() && id > 0 {
                return Err(DecodeError("a node after the root's subtree"));
            }
            let (data, end) = match r.byte()? {
                ELEMENT => {
                    let element = Element {
                        tag: r.name(&mut names)?,
                        attrs: r.range(&mut at_attr, |r| r.end <= attrs.len())?,
                        dfs,
                    };
                    dfs += 1;
                    let end = id
                        .checked_add(r.number()?)
                        .filter(|&end| end > id && end <= parent.map_or(count, |p| nodes[p].end))
                        .ok_or(DecodeError("subtree outside its parent's"))?;
                    (NodeData::Element(element), end)
                }
                TEXT => (
                    NodeData::Text(r.range(&mut at_text, |r| text.get(r).is_some())?),
                    id + 1,
                ),
                _ => return Err(DecodeError("unknown node kind")),
            };
            nodes.push(Node {
                data,
                parent,
                end,
                depth: open.len() as u32,
            });
            if end > id + 1 {
                open.push(id);
            }
        }
        let json_ld = (0..r.count()?)
            .map(|_| r.str().map(str::to_owned))
            .collect::<Result<Vec<_>, _>>()?;
        let mut adoption_copies = Vec::new();
        let mut previous: NodeId = 0;
        for _ in 0..r.count()? {
            let id = previous
                .checked_add(r.number()?)
                .filter(|&id| adoption_copies.is_empty() || id > previous);
            let Some(id) = id.filter(|&id| {
                matches!(
                    nodes.get(id),
                    Some(Node {
                        data: NodeData::Element(_),
                        ..
                    })
                )
            }) else {
                return Err(DecodeError(
                    "an adoption copy that is no element, or out of order",
                ));
            };
            adoption_copies.push(id);
            previous = id;
        }
        if !r.0.is_empty() {
            return Err(DecodeError("bytes after the document"));
        }
        if body >= nodes.len() {
            return Err(DecodeError("body out of bounds"));
        }
        Ok(Document {
            nodes,
            text,
            attrs,
            attr_text,
            body,
            json_ld,
            adoption_copies,
            // Documents are encoded whole (a site's pages spilled to disk),
            // never a part of a page.
            page_link_host: None,
            truncated,
        })
    }
}

/// The names written so far, each with its index.
#[derive(Default)]
struct Names(FxHashMap<LocalName, usize>);

impl Names {
    /// A name seen before as its index + 1, a new one as 0 and its text.
    fn put(&mut self, out: &mut Vec<u8>, name: &LocalName) {
        if let Some(&i) = self.0.get(name) {
            put(out, i + 1);
        } else {
            put(out, 0);
            put_str(out, name);
            self.0.insert(name.clone(), self.0.len());
        }
    }
}

/// Appends `n` as a LEB128 varint: seven bits a byte, low bits first.
fn put(out: &mut Vec<u8>, mut n: usize) {
    while n >= 0x80 {
        out.push(n as u8 | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    put(out, s.len());
    out.extend_from_slice(s.as_bytes());
}

/// A range as its distance from where the previous one ended (`at`: the
/// buffers are filled in node order, so this is mostly 0) and its length.
fn put_range(out: &mut Vec<u8>, range: &Range<u32>, at: &mut u32) {
    debug_assert!(range.start >= *at, "filled in node order");
    put(out, range.start.wrapping_sub(*at) as usize);
    put(out, (range.end - range.start) as usize);
    *at = range.end;
}

/// The bytes not read yet.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        if n > self.0.len() {
            return Err(DecodeError("ends too early"));
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }

    fn byte(&mut self) -> Result<u8, DecodeError> {
        Ok(self.take(1)?[0])
    }

    fn number(&mut self) -> Result<usize, DecodeError> {
        let mut n = 0usize;
        for shift in (0..64).step_by(7) {
            let byte = self.byte()?;
            n |= usize::from(byte & 0x7f)
                .checked_shl(shift)
                .filter(|v| v >> shift == usize::from(byte & 0x7f))
                .ok_or(DecodeError("number over 64 bits"))?;
            if byte & 0x80 == 0 {
                return Ok(n);
            }
        }
        Err(DecodeError("number over 64 bits"))
    }

    fn u32(&mut self) -> Result<u32, DecodeError> {
        u32::try_from(self.number()?).map_err(|_| DecodeError("number over u32"))
    }

    /// A count of items that each take at least one byte: never more than
    /// the bytes left, so a damaged count cannot reserve gigabytes.
    fn count(&mut self) -> Result<usize, DecodeError> {
        let n = self.number()?;
        if n > self.0.len() {
            return Err(DecodeError("count past the end"));
        }
        Ok(n)
    }

    fn str(&mut self) -> Result<&'a str, DecodeError> {
        let len = self.number()?;
        std::str::from_utf8(self.take(len)?).map_err(|_| DecodeError("text is not UTF-8"))
    }

    /// A name written by [`Names::put`]; `names` are those read so far.
    fn name(&mut self, names: &mut Vec<LocalName>) -> Result<LocalName, DecodeError> {
        match self.number()? {
            0 => {
                let name = LocalName::from(self.str()?);
                names.push(name.clone());
                Ok(name)
            }
            i => names
                .get(i - 1)
                .cloned()
                .ok_or(DecodeError("name index out of range")),
        }
    }

    /// A range written by [`put_range`], which `valid` accepts.
    fn range(
        &mut self,
        at: &mut u32,
        valid: impl Fn(std::ops::Range<usize>) -> bool,
    ) -> Result<Range<u32>, DecodeError> {
        let start = at
            .checked_add(self.u32()?)
            .ok_or(DecodeError("range over u32"))?;
        let end = start
            .checked_add(self.u32()?)
            .ok_or(DecodeError("range over u32"))?;
        if !valid(start as usize..end as usize) {
            return Err(DecodeError("range out of bounds"));
        }
        *at = end;
        Ok(start..end)
    }
}
