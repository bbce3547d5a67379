//! Visible text of a subtree, one line per block.

use crate::{Document, NodeData, NodeId};

/// Whether an element starts a new line of text (HTML's block-level and
/// line-breaking elements, plus table cells and list items).
pub fn is_block(tag: &str) -> bool {
    matches!(
        tag,
        "address"
            | "article"
            | "aside"
            | "blockquote"
            | "body"
            | "br"
            | "caption"
            | "center"
            | "dd"
            | "details"
            | "dialog"
            | "dir"
            | "div"
            | "dl"
            | "dt"
            | "fieldset"
            | "figcaption"
            | "figure"
            | "footer"
            | "form"
            | "frameset"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "header"
            | "hgroup"
            | "hr"
            | "html"
            | "legend"
            | "li"
            | "main"
            | "menu"
            | "nav"
            | "ol"
            | "option"
            | "p"
            | "pre"
            | "section"
            | "summary"
            | "table"
            | "tbody"
            | "td"
            | "tfoot"
            | "th"
            | "thead"
            | "title"
            | "tr"
            | "ul"
    )
}

/// Whether an element is a section heading, `h1` to `h6`.
pub fn is_heading(tag: &str) -> bool {
    matches!(tag, "h1" | "h2" | "h3" | "h4" | "h5" | "h6")
}

/// A text's key: a 64-bit hash of its whitespace-collapsed form
/// ([`collapse_whitespace`]). Site-level cleaning counts a cluster's texts
/// by key, and a streaming pass over a page gives the keys of its text
/// nodes without building them.
pub fn text_key(collapsed: &str) -> u64 {
    use std::hash::Hasher;
    let mut hasher = rustc_hash::FxHasher::default();
    hasher.write(collapsed.as_bytes());
    hasher.finish()
}

/// Whether `collapse_whitespace(text) == text`: no whitespace at the ends
/// and only single spaces inside.
pub fn is_collapsed(text: &str) -> bool {
    let mut after_space = true;
    for c in text.chars() {
        if c == ' ' {
            if after_space {
                return false;
            }
            after_space = true;
        } else if c.is_whitespace() {
            return false;
        } else {
            after_space = false;
        }
    }
    !after_space || text.is_empty()
}

/// Collapses runs of whitespace to one space and trims the ends.
pub fn collapse_whitespace(s: &str) -> String {
    if s.is_ascii() {
        return collapse_ascii_whitespace(s);
    }
    let mut out = String::with_capacity(s.len());
    for word in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// [`collapse_whitespace`] of an ASCII text (nearly all text nodes), byte
/// by byte: the ASCII white space of `char::is_whitespace` is `\t`..=`\r`
/// and the space (`split_ascii_whitespace` would keep `\x0b`).
fn collapse_ascii_whitespace(s: &str) -> String {
    let mut out = Vec::with_capacity(s.len());
    let words = s
        .as_bytes()
        .split(|b| matches!(b, b'\t'..=b'\r' | b' '))
        .filter(|w| !w.is_empty());
    for word in words {
        if !out.is_empty() {
            out.push(b' ');
        }
        out.extend_from_slice(word);
    }
    // Words of an ASCII text joined by spaces: still ASCII.
    String::from_utf8(out).unwrap_or_default()
}

/// Appends a line break unless the output already ends a line.
fn break_line(out: &mut String) {
    while out.ends_with(' ') {
        out.pop();
    }
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
}

pub(crate) fn inner_text(doc: &Document, id: NodeId, keep: &dyn Fn(NodeId) -> bool) -> String {
    let mut out = String::new();
    // Pending closes: the `end` of open block elements, innermost last.
    let mut open_blocks: Vec<NodeId> = Vec::new();
    let end = doc.node(id).end;
    let mut n = id;
    while n < end {
        while open_blocks.last().is_some_and(|&end| end <= n) {
            open_blocks.pop();
            break_line(&mut out);
        }
        if n != id && !keep(n) {
            // Skipped nodes still end the line they interrupt if they are blocks.
            if doc.element(n).is_some_and(|e| is_block(&e.tag)) {
                break_line(&mut out);
            }
            n = doc.node(n).end;
            continue;
        }
        match &doc.node(n).data {
            NodeData::Element(e) => {
                if is_block(&e.tag) {
                    break_line(&mut out);
                    open_blocks.push(doc.node(n).end);
                }
            }
            NodeData::Text(_) => {
                let t = doc.text(n).unwrap_or("");
                let mut first = true;
                let starts_space = t.starts_with(char::is_whitespace);
                for word in t.split_whitespace() {
                    let at_line_start = out.is_empty() || out.ends_with('\n');
                    if (!first || starts_space) && !at_line_start && !out.ends_with(' ') {
                        out.push(' ');
                    }
                    out.push_str(word);
                    first = false;
                }
                // A text that is only white space still separates the
                // inline elements around it (`<a>agent</a> <a>Gary</a>`).
                let at_line_start = out.is_empty() || out.ends_with('\n');
                if t.ends_with(char::is_whitespace) && !at_line_start && !out.ends_with(' ') {
                    out.push(' ');
                }
            }
        }
        n += 1;
    }
    while open_blocks.pop().is_some() {
        break_line(&mut out);
    }
    // Trim each line; drop empty ones.
    let mut clean = String::with_capacity(out.len());
    for line in out.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if !clean.is_empty() {
            clean.push('\n');
        }
        clean.push_str(line);
    }
    clean
}
