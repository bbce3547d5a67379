//! The clean tree as Markdown (CommonMark, with GFM tables).

use crate::tree::{is_block_node, Node};

/// Text with the characters Markdown would read as syntax escaped.
fn escape(s: &str, out: &mut String) {
    let chars: Vec<char> = s.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' => {
                out.push('\\');
                out.push(c);
            }
            // `&amp;` would be read as an entity.
            '&' if chars
                .get(i + 1)
                .is_some_and(|n| n.is_ascii_alphanumeric() || *n == '#') =>
            {
                out.push_str("\\&")
            }
            c => out.push(c),
        }
    }
}

/// A URL as a link destination: characters that would end it are encoded.
fn destination(url: &str) -> String {
    url.replace(' ', "%20")
        .replace('(', "%28")
        .replace(')', "%29")
        .replace('<', "%3C")
        .replace('>', "%3E")
}

/// The longest run of backticks in `s`.
fn longest_backtick_run(s: &str) -> usize {
    s.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

fn text_of(nodes: &[Node], out: &mut String) {
    for n in nodes {
        match n {
            Node::Text(t) => out.push_str(t),
            Node::Element { tag: "br", .. } => out.push('\n'),
            Node::Element { children, .. } => text_of(children, out),
        }
    }
}

fn attr<'a>(attrs: &'a [(&'static str, String)], name: &str) -> &'a str {
    attrs
        .iter()
        .find(|(n, _)| *n == name)
        .map_or("", |(_, v)| v.as_str())
}

/// Wraps `inner` in a delimiter, keeping its outer spaces outside (`** x**`
/// is not emphasis).
fn delimit(inner: &str, delim: &str, out: &mut String) {
    let trimmed = inner.trim();
    if trimmed.is_empty() {
        out.push_str(inner);
        return;
    }
    if inner.starts_with(' ') {
        out.push(' ');
    }
    out.push_str(delim);
    out.push_str(trimmed);
    out.push_str(delim);
    if inner.ends_with(' ') {
        out.push(' ');
    }
}

/// Where inline content sits.
#[derive(Clone, Copy, Default)]
struct Ctx {
    /// In a heading or table cell: breaks become spaces.
    one_line: bool,
    /// Inside emphasis of this kind already (or a heading, for strong):
    /// nested `**` would close it instead.
    em: bool,
    strong: bool,
}

/// Inline content.
fn inline(nodes: &[Node], ctx: Ctx, out: &mut String) {
    let one_line = ctx.one_line;
    for n in nodes {
        match n {
            Node::Text(t) => escape(t, out),
            Node::Element {
                tag,
                attrs,
                children,
            } => match *tag {
                "br" if one_line => out.push(' '),
                "br" => out.push_str("\\\n"),
                "img" => {
                    out.push_str("![");
                    escape(attr(attrs, "alt"), out);
                    out.push_str("](");
                    out.push_str(&destination(attr(attrs, "src")));
                    out.push(')');
                }
                "a" => {
                    let mut inner = String::new();
                    inline(children, ctx, &mut inner);
                    out.push('[');
                    out.push_str(inner.trim());
                    out.push_str("](");
                    out.push_str(&destination(attr(attrs, "href")));
                    out.push(')');
                }
                "em" | "i" | "strong" | "b" => {
                    let em = matches!(*tag, "em" | "i");
                    let (done, delim) = if em {
                        (ctx.em, "*")
                    } else {
                        (ctx.strong, "**")
                    };
                    let inner_ctx = Ctx {
                        em: ctx.em || em,
                        strong: ctx.strong || !em,
                        ..ctx
                    };
                    if done {
                        inline(children, inner_ctx, out);
                    } else {
                        let mut inner = String::new();
                        inline(children, inner_ctx, &mut inner);
                        delimit(&inner, delim, out);
                    }
                }
                "code" => {
                    let mut code = String::new();
                    text_of(children, &mut code);
                    let code = code.replace('\n', " ");
                    let fence = "`".repeat(longest_backtick_run(&code) + 1);
                    out.push_str(&fence);
                    // A code span that starts or ends with a backtick needs a space.
                    let pad = code.starts_with('`') || code.ends_with('`');
                    if pad {
                        out.push(' ');
                    }
                    out.push_str(&code);
                    if pad {
                        out.push(' ');
                    }
                    out.push_str(&fence);
                }
                // A block left inside inline content: its text.
                _ => inline(children, ctx, out),
            },
        }
    }
}

/// A paragraph's lines, with what would start a block at a line start
/// escaped ("# 1", "- x", "1. x" in prose).
fn paragraph(nodes: &[Node]) -> String {
    let mut text = String::new();
    inline(nodes, Ctx::default(), &mut text);
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.trim().split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let line = line.trim_start();
        let digits = line.chars().take_while(char::is_ascii_digit).count();
        if line.starts_with(['#', '-', '+', '=', '~']) {
            out.push('\\');
            out.push_str(line);
        } else if let (Some(number), Some(rest)) = (line.get(..digits), line.get(digits..)) {
            if digits > 0 && rest.starts_with(['.', ')']) {
                out.push_str(number);
                out.push('\\');
            } else {
                out.push_str(number);
            }
            out.push_str(rest);
        } else {
            out.push_str(line);
        }
    }
    out
}

/// Inline content on one line; a heading's is strong already.
fn one_line(nodes: &[Node], heading: bool) -> String {
    let mut s = String::new();
    let ctx = Ctx {
        one_line: true,
        strong: heading,
        em: false,
    };
    inline(nodes, ctx, &mut s);
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Indents every line but the first by `width` spaces.
fn indent_rest(s: &str, width: usize) -> String {
    let pad = " ".repeat(width);
    s.split('\n')
        .enumerate()
        .map(|(i, l)| {
            if i == 0 || l.is_empty() {
                l.to_string()
            } else {
                format!("{pad}{l}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn table(children: &[Node]) -> String {
    let rows: Vec<Vec<String>> = children
        .iter()
        .flat_map(|c| match c {
            Node::Element {
                tag: "thead" | "tbody",
                children,
                ..
            } => children.iter().collect::<Vec<_>>(),
            c => vec![c],
        })
        .filter_map(|row| match row {
            Node::Element { children, .. } => Some(
                children
                    .iter()
                    .map(|cell| match cell {
                        Node::Element { children, .. } => one_line(children, false),
                        Node::Text(_) => String::new(),
                    })
                    .collect::<Vec<_>>(),
            ),
            Node::Text(_) => None,
        })
        .filter(|r: &Vec<String>| !r.is_empty())
        .collect();
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    if cols == 0 {
        return String::new();
    }
    let line = |cells: &[String]| {
        let mut s = String::from("|");
        for i in 0..cols {
            s.push(' ');
            s.push_str(cells.get(i).map_or("", String::as_str));
            s.push_str(" |");
        }
        s
    };
    let mut out = vec![line(&rows[0]), line(&vec!["---".to_string(); cols])];
    out.extend(rows[1..].iter().map(|r| line(r)));
    out.join("\n")
}

/// A block's Markdown.
fn block(node: &Node) -> String {
    let Node::Element { tag, children, .. } = node else {
        return paragraph(std::slice::from_ref(node));
    };
    match *tag {
        "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
            let level = usize::from(tag.as_bytes()[1] - b'0');
            format!("{} {}", "#".repeat(level), one_line(children, true))
        }
        "ul" | "ol" => {
            let mut items = Vec::new();
            for (i, li) in children.iter().enumerate() {
                let marker = if *tag == "ol" {
                    format!("{}. ", i + 1)
                } else {
                    "- ".to_string()
                };
                let content = match li {
                    Node::Element { children, .. } => flow(children),
                    Node::Text(_) => String::new(),
                };
                items.push(format!("{marker}{}", indent_rest(&content, marker.len())));
            }
            items.join("\n")
        }
        "blockquote" => flow(children)
            .split('\n')
            .map(|l| {
                if l.is_empty() {
                    ">".to_string()
                } else {
                    format!("> {l}")
                }
            })
            .collect::<Vec<_>>()
            .join("\n"),
        "pre" => {
            let mut code = String::new();
            text_of(children, &mut code);
            let code = code.trim_matches('\n');
            let fence = "`".repeat(longest_backtick_run(code).max(2) + 1);
            format!("{fence}\n{code}\n{fence}")
        }
        "table" => table(children),
        "p" => paragraph(children),
        // li, td, th, figure, figcaption (and any other flow container).
        _ => flow(children),
    }
}

/// Flow content (blocks and inline runs) as Markdown blocks, a blank line apart.
fn flow(nodes: &[Node]) -> String {
    let mut blocks: Vec<String> = Vec::new();
    let mut run: Vec<Node> = Vec::new();
    let flush = |run: &mut Vec<Node>, blocks: &mut Vec<String>| {
        if !run.is_empty() {
            let p = paragraph(run);
            if !p.is_empty() {
                blocks.push(p);
            }
            run.clear();
        }
    };
    for n in nodes {
        if is_block_node(n) {
            flush(&mut run, &mut blocks);
            let b = block(n);
            if !b.trim().is_empty() {
                blocks.push(b);
            }
        } else {
            run.push(n.clone());
        }
    }
    flush(&mut run, &mut blocks);
    blocks.join("\n\n")
}

/// Renders nodes (blocks at the top level) as a Markdown document.
pub(crate) fn render(nodes: &[Node]) -> String {
    let md = flow(nodes);
    if md.is_empty() {
        md
    } else {
        md + "\n"
    }
}
