//! The tokenizer of the pass: the tags of a page, found by memchr, with
//! everything between them handed on as byte ranges, never decoded.
//!
//! It follows the WHATWG tokenizer where the tags are concerned: comments
//! (`<!--`…`-->`, `--!>`, the abrupt `<!-->`), doctypes, bogus comments
//! (`<?`, `<!x`, `</1`), the raw text of `<script>` (with its escaped and
//! double-escaped states), `<style>` and the others ([`raw_text`]),
//! attribute values quoted either way or unquoted, the first of two
//! attributes of one name. It does not decode character references: an
//! attribute value holding one is returned as written, and a reader that
//! needs its decoded value asks [`Attr::first_token_has_char_ref`]. Inside `<svg>` and
//! `<math>` (foreign content, which Canopy drops whole) it reports only the
//! outer element's start and end, and stops on markup that would take the
//! tree builder back to HTML inside it.

use std::borrow::Cow;
use std::ops::Range;

/// What the scan hands on.
pub enum Token<'t, 'a> {
    /// A start tag: its lowercase name, attributes, bytes, and whether it
    /// ends in `/>`.
    Start {
        name: &'t str,
        attrs: &'t Attrs<'a>,
        span: Range<usize>,
        self_closing: bool,
    },
    /// An end tag: its lowercase name and bytes.
    End { name: &'t str, span: Range<usize> },
    /// The bytes between two tags (text, or a raw-text element's content),
    /// as written.
    Text(Range<usize>),
    /// A doctype, whole.
    Doctype(Range<usize>),
    /// A comment (or a bogus one: `<?…>`, `</1…>`, `<!x…>`).
    Comment,
}

/// Why the scan stopped before the page's end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop<E> {
    /// The consumer said so.
    Consumer(E),
    /// Markup inside `<svg>` or `<math>` that the tree builder may take
    /// out of foreign content: an HTML element, or an end tag naming no
    /// open element of the subtree.
    ForeignBreakout,
}

/// One attribute, borrowed from the page.
pub struct Attr<'a> {
    /// Lowercase (borrowed when the page wrote it so).
    pub name: Cow<'a, str>,
    /// As written: character references are not decoded.
    pub value: &'a str,
}

impl Attr<'_> {
    /// Whether the value's first white-space-separated token, the part of
    /// an `id` or `class` a step label or a pattern reads, holds a
    /// character reference, so that it may not be the token the tree has.
    /// A token before any `&` is the tree's whatever follows it.
    pub fn first_token_has_char_ref(&self) -> bool {
        let first = self.value.split_whitespace().next().unwrap_or("");
        memchr::memchr(b'&', first.as_bytes()).is_some()
    }
}

/// A start tag's attributes, in the page's order, the first of each name.
#[derive(Default)]
pub struct Attrs<'a> {
    all: Vec<Attr<'a>>,
}

impl<'a> Attrs<'a> {
    pub fn get(&self, name: &str) -> Option<&'a str> {
        self.attr(name).map(|a| a.value)
    }

    pub fn attr(&self, name: &str) -> Option<&Attr<'a>> {
        self.all.iter().find(|a| a.name == name)
    }

    pub fn iter(&self) -> impl Iterator<Item = &Attr<'a>> {
        self.all.iter()
    }

    pub(crate) fn push(&mut self, name: &'a str, value: &'a str) {
        let name = if name.bytes().any(|b| b.is_ascii_uppercase()) {
            Cow::Owned(name.to_ascii_lowercase())
        } else {
            Cow::Borrowed(name)
        };
        // The tokenizer drops a second attribute of the same name.
        if self.all.iter().all(|a| a.name != name) {
            self.all.push(Attr { name, value });
        }
    }
}

/// Elements whose content is text to the tokenizer, not markup (with
/// scripting on, as Canopy parses): the scan skips to their end tag.
pub fn raw_text(tag: &str) -> bool {
    matches!(
        tag,
        "script"
            | "style"
            | "textarea"
            | "title"
            | "xmp"
            | "iframe"
            | "noembed"
            | "noframes"
            | "noscript"
            | "plaintext"
    )
}

/// HTML's white space as the tokenizer sees it (a CR is a newline to it).
fn is_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0C' | b'\r' | b' ')
}

/// Scans `html`, calling `on` for every token; stops early when `on`
/// returns an error, or on foreign content it does not follow.
pub fn scan<'a, E>(
    html: &'a str,
    mut on: impl FnMut(Token<'_, 'a>) -> Result<(), E>,
) -> Result<(), Stop<E>> {
    let bytes = html.as_bytes();
    // A byte order mark is not the page's text (html5ever discards it).
    let mut at = if html.starts_with('\u{FEFF}') { 3 } else { 0 };
    let mut text_from = at;
    // A tag cut by the page's end is dropped, not text.
    let mut text_end = bytes.len();
    let mut attrs = Attrs::default();
    let mut name = String::new();
    let mut foreign = Foreign::default();
    // Text inside foreign content is not the body's: not handed on.
    let text = |on: &mut dyn FnMut(Token<'_, 'a>) -> Result<(), E>,
                range: Range<usize>,
                foreign: &Foreign| {
        if range.is_empty() || !foreign.stack.is_empty() {
            Ok(())
        } else {
            on(Token::Text(range))
        }
    };
    while let Some(lt) = memchr::memchr(b'<', &bytes[at..]) {
        let start = at + lt;
        let rest = &bytes[start + 1..];
        let Some(&next) = rest.first() else {
            break;
        };
        let end = match next {
            b'!' => comment_end(bytes, start, !foreign.stack.is_empty()),
            b'?' => to_gt(bytes, start + 1),
            b'/' => match rest.get(1) {
                Some(b'>') => {
                    // `</>` is nothing: no tag, no comment.
                    text(&mut on, text_from..start, &foreign).map_err(Stop::Consumer)?;
                    at = start + 3;
                    text_from = at;
                    continue;
                }
                Some(c) if c.is_ascii_alphabetic() => {
                    let name_end = name_end(bytes, start + 2);
                    let Some(end) = read_attrs(html, name_end, &mut attrs) else {
                        text_end = start;
                        break;
                    };
                    text(&mut on, text_from..start, &foreign).map_err(Stop::Consumer)?;
                    text_from = end;
                    lowercase_into(html.get(start + 2..name_end).unwrap_or(""), &mut name);
                    if foreign.stack.is_empty() {
                        on(Token::End {
                            name: &name,
                            span: start..end,
                        })
                        .map_err(Stop::Consumer)?;
                    } else if matches!(name.as_str(), "p" | "br") {
                        return Err(Stop::ForeignBreakout);
                    } else if foreign.end_tag(&name)? {
                        on(Token::End {
                            name: &name,
                            span: start..end,
                        })
                        .map_err(Stop::Consumer)?;
                    }
                    at = end;
                    continue;
                }
                Some(_) => to_gt(bytes, start + 2),
                None => break,
            },
            c if c.is_ascii_alphabetic() => {
                let name_end = name_end(bytes, start + 1);
                let Some(end) = read_attrs(html, name_end, &mut attrs) else {
                    text_end = start;
                    break;
                };
                let self_closing = end >= 2 && bytes[end - 2] == b'/' && end - 2 >= name_end;
                text(&mut on, text_from..start, &foreign).map_err(Stop::Consumer)?;
                text_from = end;
                lowercase_into(html.get(start + 1..name_end).unwrap_or(""), &mut name);
                if !foreign.stack.is_empty() {
                    if breaks_out(&name, &attrs) || foreign.in_integration_point() {
                        return Err(Stop::ForeignBreakout);
                    }
                    if !self_closing {
                        foreign.stack.push(name.clone());
                    }
                    at = end;
                    continue;
                }
                on(Token::Start {
                    name: &name,
                    attrs: &attrs,
                    span: start..end,
                    self_closing,
                })
                .map_err(Stop::Consumer)?;
                at = end;
                if matches!(name.as_str(), "svg" | "math") && !self_closing {
                    foreign.stack.push(name.clone());
                } else if name == "plaintext" {
                    text(&mut on, end..bytes.len(), &foreign).map_err(Stop::Consumer)?;
                    return Ok(());
                } else if raw_text(&name) {
                    let (content_end, close_end) = raw_text_end(bytes, end, &name);
                    text(&mut on, end..content_end, &foreign).map_err(Stop::Consumer)?;
                    if content_end < bytes.len() {
                        on(Token::End {
                            name: &name,
                            span: content_end..close_end,
                        })
                        .map_err(Stop::Consumer)?;
                    }
                    at = close_end;
                    text_from = close_end;
                }
                continue;
            }
            // A `<` that opens nothing is text.
            _ => {
                at = start + 1;
                continue;
            }
        };
        // A comment, doctype or bogus comment: not text, not a tag.
        text(&mut on, text_from..start, &foreign).map_err(Stop::Consumer)?;
        at = end.min(bytes.len());
        if next == b'!'
            && bytes
                .get(start + 2..start + 9)
                .is_some_and(|d| d.eq_ignore_ascii_case(b"doctype"))
        {
            on(Token::Doctype(start..at)).map_err(Stop::Consumer)?;
        } else if foreign.stack.is_empty() {
            on(Token::Comment).map_err(Stop::Consumer)?;
        }
        text_from = at;
        if at >= bytes.len() {
            break;
        }
    }
    text(&mut on, text_from..text_end, &foreign).map_err(Stop::Consumer)?;
    Ok(())
}

/// The open elements of a `<svg>` or `<math>` subtree.
#[derive(Default)]
struct Foreign {
    stack: Vec<String>,
}

impl Foreign {
    /// An end tag inside the subtree closes the innermost open element of
    /// its name; whether it closed the subtree. One that names no open
    /// element goes to the tree builder's HTML rules, which close the
    /// subtree or ignore the tag depending on the elements outside it: the
    /// scan does not follow it.
    fn end_tag<E>(&mut self, name: &str) -> Result<bool, Stop<E>> {
        let open = self.stack.iter().rposition(|o| o == name);
        let i = open.ok_or(Stop::ForeignBreakout)?;
        self.stack.truncate(i);
        Ok(i == 0)
    }

    /// Whether the open element takes HTML content (SVG's `foreignObject`,
    /// `desc` and `title`, MathML's text elements): markup in it would be
    /// HTML, which the scan does not follow there.
    fn in_integration_point(&self) -> bool {
        self.stack.last().is_some_and(|top| {
            matches!(
                top.as_str(),
                "foreignobject"
                    | "desc"
                    | "title"
                    | "mi"
                    | "mo"
                    | "mn"
                    | "ms"
                    | "mtext"
                    | "annotation-xml"
            )
        })
    }
}

/// Start tags that end foreign content.
fn breaks_out(name: &str, attrs: &Attrs) -> bool {
    matches!(
        name,
        "b" | "big"
            | "blockquote"
            | "body"
            | "br"
            | "center"
            | "code"
            | "dd"
            | "div"
            | "dl"
            | "dt"
            | "em"
            | "embed"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "head"
            | "hr"
            | "i"
            | "img"
            | "li"
            | "listing"
            | "menu"
            | "meta"
            | "nobr"
            | "ol"
            | "p"
            | "pre"
            | "ruby"
            | "s"
            | "small"
            | "span"
            | "strong"
            | "strike"
            | "sub"
            | "sup"
            | "table"
            | "tt"
            | "u"
            | "ul"
            | "var"
    ) || (name == "font"
        && ["color", "face", "size"]
            .iter()
            .any(|a| attrs.get(a).is_some()))
}

fn lowercase_into(raw: &str, out: &mut String) {
    out.clear();
    out.push_str(raw);
    out.make_ascii_lowercase();
}

/// Where the markup declaration at `start` (`<!`) ends: a comment at its
/// `-->` (or `--!>`, or at once for `<!-->` and `<!--->`), CDATA in foreign
/// content at its `]]>`, anything else (a doctype, a bogus comment) at the
/// first `>`.
fn comment_end(bytes: &[u8], start: usize, foreign: bool) -> usize {
    let rest = &bytes[start..];
    if rest.starts_with(b"<!--") {
        let from = start + 4;
        if bytes.get(from) == Some(&b'>') {
            return from + 1;
        }
        if bytes.get(from..from + 2) == Some(b"->") {
            return from + 2;
        }
        let mut search = from;
        while let Some(dashes) = memchr::memmem::find(&bytes[search..], b"--") {
            let d = search + dashes;
            match bytes.get(d + 2) {
                Some(b'>') => return d + 3,
                Some(b'!') if bytes.get(d + 3) == Some(&b'>') => return d + 4,
                _ => search = d + 1,
            }
        }
        return bytes.len();
    }
    if foreign && rest.starts_with(b"<![CDATA[") {
        return memchr::memmem::find(&bytes[start + 9..], b"]]>")
            .map_or(bytes.len(), |e| start + 9 + e + 3);
    }
    to_gt(bytes, start + 2)
}

/// The offset after the first `>` from `from`, or the end.
fn to_gt(bytes: &[u8], from: usize) -> usize {
    memchr::memchr(b'>', &bytes[from.min(bytes.len())..]).map_or(bytes.len(), |e| from + e + 1)
}

fn name_end(bytes: &[u8], from: usize) -> usize {
    bytes[from..]
        .iter()
        .position(|&b| is_space(b) || matches!(b, b'>' | b'/'))
        .map_or(bytes.len(), |p| from + p)
}

/// Reads a tag's attributes from `at` to its `>`; returns the offset after
/// the `>`, or `None` when the page ends first (the tokenizer then emits
/// no tag).
fn read_attrs<'a>(html: &'a str, mut at: usize, attrs: &mut Attrs<'a>) -> Option<usize> {
    let bytes = html.as_bytes();
    attrs.all.clear();
    loop {
        while at < bytes.len() && (is_space(bytes[at]) || bytes[at] == b'/') {
            at += 1;
        }
        match bytes.get(at) {
            None => return None,
            Some(b'>') => return Some(at + 1),
            Some(_) => {}
        }
        // A name may start with `=`; it runs to white space, `/`, `>`, `=`.
        let name_start = at;
        at += 1;
        while at < bytes.len() && !(is_space(bytes[at]) || matches!(bytes[at], b'>' | b'/' | b'='))
        {
            at += 1;
        }
        let name = html.get(name_start..at).unwrap_or("");
        while at < bytes.len() && is_space(bytes[at]) {
            at += 1;
        }
        let mut value = "";
        if bytes.get(at) == Some(&b'=') {
            at += 1;
            while at < bytes.len() && is_space(bytes[at]) {
                at += 1;
            }
            match bytes.get(at) {
                Some(&q) if q == b'"' || q == b'\'' => {
                    let end = memchr::memchr(q, &bytes[at + 1..]).map(|e| at + 1 + e)?;
                    value = html.get(at + 1..end).unwrap_or("");
                    at = end + 1;
                }
                _ => {
                    let start = at;
                    while at < bytes.len() && !(is_space(bytes[at]) || bytes[at] == b'>') {
                        at += 1;
                    }
                    value = html.get(start..at).unwrap_or("");
                }
            }
        }
        attrs.push(name, value);
    }
}

/// Where a raw-text element's content ends (at its end tag, or the page's
/// end) and where that end tag ends. `<script>`'s content follows the
/// script-data states: in an escaped part (`<!--`…`-->`), a nested
/// `<script` starts a double-escaped part in which `</script>` does not
/// end the element.
fn raw_text_end(bytes: &[u8], from: usize, name: &str) -> (usize, usize) {
    let script = name == "script";
    #[derive(PartialEq)]
    enum State {
        Data,
        Escaped,
        DoubleEscaped,
    }
    let mut state = State::Data;
    let mut at = from;
    loop {
        let next = if script {
            memchr::memchr2(b'<', b'-', &bytes[at..])
        } else {
            memchr::memchr(b'<', &bytes[at..])
        };
        let Some(i) = next else {
            return (bytes.len(), bytes.len());
        };
        let p = at + i;
        if bytes[p] == b'-' {
            if state != State::Data && bytes[p..].starts_with(b"-->") {
                state = State::Data;
                at = p + 3;
            } else {
                at = p + 1;
            }
            continue;
        }
        if script && state == State::Data && bytes[p..].starts_with(b"<!--") {
            state = State::Escaped;
            // The dashes of `<!--` count towards a `-->` (`<!-->`).
            at = p + 2;
            continue;
        }
        let closing = bytes.get(p + 1) == Some(&b'/');
        let name_at = p + 1 + usize::from(closing);
        let named = bytes
            .get(name_at..name_at + name.len())
            .is_some_and(|n| n.eq_ignore_ascii_case(name.as_bytes()))
            && bytes
                .get(name_at + name.len())
                .is_some_and(|&b| is_space(b) || matches!(b, b'/' | b'>'));
        if named {
            match (closing, &state) {
                (true, State::Data | State::Escaped) => {
                    let close_end = to_gt(bytes, name_at + name.len());
                    return (p, close_end);
                }
                (true, State::DoubleEscaped) => state = State::Escaped,
                (false, State::Escaped) => state = State::DoubleEscaped,
                _ => {}
            }
        }
        at = p + 1;
    }
}

#[cfg(test)]
mod tests;
