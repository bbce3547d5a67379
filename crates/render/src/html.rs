//! The clean tree as HTML text.

use crate::tree::{is_block_node, Node};

fn escape_text(s: &str, out: &mut String) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
}

fn escape_attr(s: &str, out: &mut String) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
}

fn write(node: &Node, out: &mut String) {
    match node {
        Node::Text(t) => escape_text(t, out),
        Node::Element {
            tag,
            attrs,
            children,
        } => {
            out.push('<');
            out.push_str(tag);
            for (name, value) in attrs {
                out.push(' ');
                out.push_str(name);
                out.push_str("=\"");
                escape_attr(value, out);
                out.push('"');
            }
            out.push('>');
            if matches!(*tag, "img" | "br") {
                return;
            }
            // Blocks holding blocks put each child on a line of its own.
            let nested = children.iter().any(is_block_node);
            if nested {
                out.push('\n');
            }
            for c in children {
                write(c, out);
                if nested && is_block_node(c) {
                    out.push('\n');
                }
            }
            out.push_str("</");
            out.push_str(tag);
            out.push('>');
        }
    }
}

/// Serialises nodes (blocks at the top level), one block a line.
pub(crate) fn serialize(nodes: &[Node]) -> String {
    let mut out = String::new();
    for n in nodes {
        write(n, &mut out);
        out.push('\n');
    }
    out
}
