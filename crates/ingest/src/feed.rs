//! Web feeds (RSS 0.9x/1.0/2.0, Atom, JSON Feed) to [`FeedItem`]s.

use std::borrow::Cow;
use std::fs::File;
use std::io::Read;
use std::panic::AssertUnwindSafe;
use std::path::Path;
use std::time::{Duration, Instant};

use canopy_types::{FeedItem, Reject, SourceRef, Stage};
use encoding_rs::{Encoding, UTF_16BE, UTF_16LE, UTF_8};
use feed_rs::model::{Entry, Link};

use crate::IngestOptions;

/// Why a feed gave no items: the stage and reason of its [`Reject`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedError {
    /// `feed` (not a feed, malformed, too large, no item with a link) or
    /// `budget` (its time budget ran out, as for a page).
    pub stage: Stage,
    /// What went wrong, for `rejects.jsonl`.
    pub reason: String,
}

impl FeedError {
    fn invalid(reason: impl Into<String>) -> FeedError {
        FeedError {
            stage: Stage::Feed,
            reason: reason.into(),
        }
    }
}

/// Parses a feed document with feed-rs and returns its items.
///
/// `base_uri` is passed to feed-rs so relative links resolve against it
/// (`xml:base` in the document takes precedence where feed-rs supports it);
/// links that are still relative afterwards are joined to `base_uri` here.
/// Titles and descriptions are returned as plain text: HTML tags are removed,
/// entities decoded and whitespace collapsed. Items without any link are
/// dropped. Returns `Err` with a reason when the document is not a feed or
/// has no item with a link, so `Ok` always holds at least one item.
/// Without a time budget: [`parse_feed_within`] has one.
pub fn parse_feed(bytes: &[u8], base_uri: Option<&str>) -> Result<Vec<FeedItem>, String> {
    parse_feed_within(bytes, base_uri, None).map_err(|e| e.reason)
}

/// [`parse_feed`] within a time budget: past `budget` (wall time from the
/// call) the parse stops and the feed is an error of stage `budget`, as a
/// page over `run.page_budget_ms` is. feed-rs cannot be stopped from
/// outside, so it reads the document through a clock (`Timed`): the
/// first read after the deadline fails and feed-rs returns, within one
/// 8 KiB buffer of it. Everything feed-rs does is driven by its reads, and
/// the work around it (decoding, the items' text) is linear in the
/// document, so the budget stops a slow parse wherever the time goes.
pub fn parse_feed_within(
    bytes: &[u8],
    base_uri: Option<&str>,
    budget: Option<Duration>,
) -> Result<Vec<FeedItem>, FeedError> {
    let deadline = budget.map(|b| (b, Instant::now() + b));
    let over_budget = |what: &str| {
        deadline
            .filter(|&(_, at)| Instant::now() >= at)
            .map(|(budget, _)| FeedError {
                stage: Stage::Budget,
                reason: format!(
                    "feed time budget of {} ms exceeded {what} ({} bytes)",
                    budget.as_millis(),
                    bytes.len()
                ),
            })
    };
    let document = as_utf8_without_declaration(bytes).map_err(FeedError::invalid)?;
    let parser = feed_rs::parser::Builder::new().base_uri(base_uri).build();
    let timed = Timed {
        inner: &document[..],
        deadline: deadline.map(|(_, at)| at),
    };
    // Defence in depth, not a fix: the prolog bug that made quick-xml panic
    // is removed above, but feed-rs and quick-xml are a large third-party
    // stack fed hostile bytes, and a panic in a worker would end the whole
    // run for one feed. Fuzzing still sees any new panic (libFuzzer's panic
    // hook aborts before unwinding reaches this), so nothing is hidden from
    // it. The parser is dropped after a panic; no broken state is reused.
    let parsed =
        std::panic::catch_unwind(AssertUnwindSafe(|| parser.parse(timed))).map_err(|panic| {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            FeedError::invalid(format!("feed parse error: the XML parser failed ({what})"))
        })?;
    let feed = match parsed {
        Ok(feed) => feed,
        Err(e) => {
            return Err(over_budget("while parsing")
                .unwrap_or_else(|| FeedError::invalid(format!("feed parse error: {e}"))))
        }
    };
    let base = base_uri.and_then(|b| url::Url::parse(b).ok());
    let mut items: Vec<FeedItem> = Vec::new();
    for entry in &feed.entries {
        if let Some(late) = over_budget("while reading its items") {
            return Err(late);
        }
        items.extend(item_from_entry(entry, base.as_ref()));
    }
    if items.is_empty() {
        return Err(FeedError::invalid(if feed.entries.is_empty() {
            "feed has no items".to_string()
        } else {
            format!("none of the feed's {} items has a link", feed.entries.len())
        }));
    }
    Ok(items)
}

/// A reader that fails once its deadline has passed: how feed-rs, which
/// reads its input in 8 KiB pieces and parses as it goes, is stopped at
/// the feed's time budget.
struct Timed<R> {
    inner: R,
    deadline: Option<Instant>,
}

impl<R: Read> Read for Timed<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.deadline.is_some_and(|at| Instant::now() >= at) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the feed's time budget is spent",
            ));
        }
        self.inner.read(buf)
    }
}

/// The document as UTF-8 with its XML declaration removed, as handed to
/// feed-rs; JSON documents unchanged.
///
/// Why: feed-rs passes the encoding named by every XML declaration quick-xml
/// reports to `DecodingReader::set_encoding`, which panics ("set_encoding()
/// called after prefix buffer was drained") once the reader's 64-byte
/// look-ahead is consumed: a declaration longer than 64 bytes that names a
/// non-UTF-8 encoding (a valid feed), or a second declaration (found by the
/// `feed` fuzz target). quick-xml 0.42 and feed-rs 3.0 are the newest
/// releases. So the document is decoded here, once, as XML 1.0 (§4.3.3 and
/// Appendix F) says: a BOM (UTF-8, UTF-16) decides; else UTF-16 without BOM
/// is recognised by `<?` in it; else the bytes are ASCII-compatible and the
/// declaration's `encoding` decides (UTF-8 when absent or unknown, as
/// quick-xml did). A UTF-8 document needs no declaration (§4.3.3), so it is
/// removed: quick-xml then reads UTF-8 from the first byte and never sees an
/// encoding to switch to. Malformed bytes for the encoding are the feed's
/// error (a fatal error in XML 1.0, and quick-xml's behaviour too), as are a
/// malformed declaration and a declaration anywhere but at the start.
fn as_utf8_without_declaration(bytes: &[u8]) -> Result<Cow<'_, [u8]>, String> {
    let unmarked = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if unmarked.trim_ascii_start().first() == Some(&b'{') {
        return Ok(Cow::Borrowed(bytes)); // JSON Feed: UTF-8 by RFC 8259
    }
    let (encoding, body) = match Encoding::for_bom(bytes) {
        Some((encoding, bom_len)) => (encoding, bytes.get(bom_len..).unwrap_or_default()),
        None if bytes.starts_with(b"<\0?\0") => (UTF_16LE, bytes),
        None if bytes.starts_with(b"\0<\0?") => (UTF_16BE, bytes),
        None => {
            let declared = xml_declaration(bytes)?.and_then(|d| d.encoding);
            // In bytes that spell `<?xml` in ASCII a UTF-16 label is a
            // mislabel (WHATWG's rule for the same case in HTML).
            let encoding = declared
                .and_then(|label| Encoding::for_label(label.as_bytes()))
                .map_or(UTF_8, Encoding::output_encoding);
            (encoding, bytes)
        }
    };
    let text = encoding
        .decode_without_bom_handling_and_without_replacement(body)
        .ok_or_else(|| {
            format!(
                "feed parse error: the document is not valid {}",
                encoding.name()
            )
        })?;
    let start = text.len() - text.trim_ascii_start().len();
    let content_start = match xml_declaration(text.as_bytes())? {
        Some(declaration) => declaration.end,
        None => start,
    };
    let content = text.get(content_start..).unwrap_or_default();
    if has_xml_declaration(content.as_bytes()) {
        return Err("feed parse error: XML declaration not at the start of the document".into());
    }
    Ok(match text {
        Cow::Borrowed(_) => Cow::Borrowed(body.get(content_start..).unwrap_or_default()),
        Cow::Owned(text) => Cow::Owned(text.get(content_start..).unwrap_or_default().into()),
    })
}

/// An XML declaration at the start of a document (after ASCII whitespace).
struct XmlDeclaration {
    /// Offset just past its `?>`.
    end: usize,
    /// Its `encoding` value, if any.
    encoding: Option<String>,
}

/// Parses the XML declaration (`<?xml …?>`) at the start of `doc`, if any.
///
/// A declaration holds `version`, `encoding` and `standalone` pseudo-
/// attributes (XML 1.0 §2.8, [23]–[32]), each at most once, each after
/// whitespace and quoted; the order is not checked. Anything else (an
/// unclosed declaration, a stray `?`, an unknown or repeated name) is an
/// error: such a prolog is not well-formed, and which encoding it names is
/// a guess. `<?xml-stylesheet` and other processing instructions are not
/// declarations.
fn xml_declaration(doc: &[u8]) -> Result<Option<XmlDeclaration>, String> {
    let start = doc.len() - doc.trim_ascii_start().len();
    let rest = doc.get(start..).unwrap_or_default();
    if !starts_with_xml_declaration(rest) {
        return Ok(None);
    }
    let malformed = |why: &str| format!("feed parse error: malformed XML declaration ({why})");
    let close = rest
        .windows(2)
        .position(|w| w == b"?>")
        .ok_or_else(|| malformed("no closing `?>`"))?;
    let mut attributes = rest.get(5..close).unwrap_or_default();
    let mut seen: Vec<&[u8]> = Vec::new();
    let mut encoding = None;
    loop {
        let trimmed = attributes.trim_ascii_start();
        if trimmed.is_empty() {
            break;
        }
        if trimmed.len() == attributes.len() {
            return Err(malformed("no space before a pseudo-attribute"));
        }
        let name_len = trimmed
            .iter()
            .position(|b| !b.is_ascii_alphabetic())
            .unwrap_or(trimmed.len());
        let (name, after_name) = trimmed.split_at(name_len);
        if !matches!(name, b"version" | b"encoding" | b"standalone") || seen.contains(&name) {
            return Err(malformed("unknown or repeated pseudo-attribute"));
        }
        seen.push(name);
        let value_part = after_name
            .trim_ascii_start()
            .strip_prefix(b"=")
            .map(<[u8]>::trim_ascii_start)
            .ok_or_else(|| malformed("no `=` after a pseudo-attribute"))?;
        let quote = *value_part
            .first()
            .filter(|q| matches!(q, b'"' | b'\''))
            .ok_or_else(|| malformed("unquoted value"))?;
        let value_and_rest = value_part.get(1..).unwrap_or_default();
        let value_len = value_and_rest
            .iter()
            .position(|&b| b == quote)
            .ok_or_else(|| malformed("unclosed value"))?;
        let (value, after_value) = value_and_rest.split_at(value_len);
        if name == b"encoding" {
            encoding = Some(String::from_utf8_lossy(value).into_owned());
        }
        attributes = after_value.get(1..).unwrap_or_default();
    }
    Ok(Some(XmlDeclaration {
        end: start + close + 2,
        encoding,
    }))
}

/// Whether `doc` starts with `<?xml` then whitespace or `?`: quick-xml reports
/// such a processing instruction as a declaration (the check here ignores
/// case, to be safe).
fn starts_with_xml_declaration(doc: &[u8]) -> bool {
    doc.get(..5)
        .is_some_and(|p| p.eq_ignore_ascii_case(b"<?xml"))
        && doc
            .get(5)
            .is_some_and(|&b| b.is_ascii_whitespace() || b == b'?')
}

/// Whether an XML declaration starts anywhere in `doc`. The check is on the
/// bytes, not on XML tokens: a declaration inside a comment or CDATA counts
/// too (an earlier version skipped those and a fuzzed input whose "CDATA"
/// quick-xml did not see as one got through).
fn has_xml_declaration(doc: &[u8]) -> bool {
    doc.windows(6).any(starts_with_xml_declaration)
}

/// Reads and parses a feed file within `opts.max_feed_bytes` and
/// `opts.feed_budget`; any failure becomes a [`Reject`] (stage `feed`, or
/// `budget` past its time budget). A file larger than the cap is rejected
/// from its size, unread; a file whose size the system does not give (a
/// device, a pipe) is read no further than one byte past the cap.
// The Err type is part of the crate contract (a Reject goes straight to rejects.jsonl).
#[allow(clippy::result_large_err)]
pub fn read_feed_file(path: &Path, opts: &IngestOptions) -> Result<Vec<FeedItem>, Reject> {
    let reject = |stage: Stage, reason: String| Reject {
        source: SourceRef {
            file: path.display().to_string(),
            offset: None,
        },
        record_id: None,
        url: None,
        stage,
        reason,
    };
    let cap = opts.max_feed_bytes;
    let too_large = |len: u64| {
        reject(
            Stage::Feed,
            format!("feed file of {len} bytes exceeds max_feed_bytes {cap}"),
        )
    };
    let unreadable = |e: std::io::Error| reject(Stage::Feed, format!("cannot read feed file: {e}"));
    let file = File::open(path).map_err(unreadable)?;
    let size = file.metadata().map_err(unreadable)?.len();
    if size > cap as u64 {
        return Err(too_large(size));
    }
    let mut bytes = Vec::with_capacity(size as usize);
    file.take(cap as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(unreadable)?;
    if bytes.len() > cap {
        return Err(reject(
            Stage::Feed,
            format!("feed file of more than {cap} bytes exceeds max_feed_bytes {cap}"),
        ));
    }
    parse_feed_within(&bytes, None, opts.feed_budget).map_err(|e| reject(e.stage, e.reason))
}

/// Builds one item; `None` when the entry has no usable link.
fn item_from_entry(entry: &Entry, base: Option<&url::Url>) -> Option<FeedItem> {
    let href = pick_link(&entry.links)
        .map(|l| l.href.trim().to_string())
        .filter(|h| !h.is_empty())
        .or_else(|| {
            let id = entry.id.trim();
            url::Url::parse(id)
                .ok()
                .filter(|u| matches!(u.scheme(), "http" | "https"))
                .map(|u| u.to_string())
        })?;
    let url = resolve(&href, base);
    let title = entry
        .title
        .as_ref()
        .map(|t| html_to_text(&t.content))
        .unwrap_or_default();
    let description = entry
        .summary
        .as_ref()
        .map(|t| t.content.as_str())
        .or_else(|| entry.content.as_ref().and_then(|c| c.body.as_deref()))
        .map(html_to_text)
        .unwrap_or_default();
    Some(FeedItem {
        url,
        title,
        description,
    })
}

/// The entry's main link: `rel="alternate"` (or no rel) first, else the first one.
fn pick_link(links: &[Link]) -> Option<&Link> {
    links
        .iter()
        .find(|l| {
            l.rel
                .as_deref()
                .is_none_or(|r| r.eq_ignore_ascii_case("alternate"))
        })
        .or_else(|| links.first())
}

/// Joins a still-relative link to the base URI; absolute links are kept.
fn resolve(href: &str, base: Option<&url::Url>) -> String {
    if url::Url::parse(href).is_ok() {
        return href.to_string();
    }
    base.and_then(|b| b.join(href).ok())
        .map(|u| u.to_string())
        .unwrap_or_else(|| href.to_string())
}

/// Converts an HTML fragment to plain text: tags (and `<script>`/`<style>`
/// contents) removed, entities decoded, whitespace collapsed.
pub(crate) fn html_to_text(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(lt) = rest.find('<') {
        out.push_str(&decode_entities(rest.get(..lt).unwrap_or_default()));
        let after = rest.get(lt..).unwrap_or_default();
        let raw_text_close = if starts_with_ignore_case(after, "<script") {
            Some("</script")
        } else if starts_with_ignore_case(after, "<style") {
            Some("</style")
        } else {
            None
        };
        let skip_to = if after.starts_with("<!--") {
            after.find("-->").map(|e| e + 3)
        } else if let Some(close) = raw_text_close {
            find_ignore_case(after, close)
                .and_then(|c| after.get(c..).and_then(|t| t.find('>')).map(|g| c + g + 1))
        } else {
            after.find('>').map(|g| g + 1)
        };
        match skip_to {
            Some(n) => {
                out.push(' ');
                rest = after.get(n..).unwrap_or_default();
            }
            None => {
                // An unterminated '<' is text.
                out.push_str(&decode_entities(after));
                rest = "";
            }
        }
    }
    out.push_str(&decode_entities(rest));
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether `s` starts with the ASCII `prefix`, ignoring ASCII case.
fn starts_with_ignore_case(s: &str, prefix: &str) -> bool {
    s.as_bytes()
        .get(..prefix.len())
        .is_some_and(|head| head.eq_ignore_ascii_case(prefix.as_bytes()))
}

/// Where the ASCII `needle` (which starts with `<`) first occurs in `s`,
/// ignoring ASCII case. Looks only at the `<`s of `s`, without a lowercase
/// copy of it: `html_to_text` calls this once per `<script` or `<style`,
/// and copying the rest of the text each time made a description of many
/// short scripts quadratic (a 4 MB one took 48 s).
fn find_ignore_case(s: &str, needle: &str) -> Option<usize> {
    memchr::memchr_iter(b'<', s.as_bytes()).find(|&at| {
        s.get(at..)
            .is_some_and(|t| starts_with_ignore_case(t, needle))
    })
}

/// Longest entity name looked for after a `&`, in bytes (`&hellip;`, and
/// `&#x10FFFF;` is 8): a `;` further on does not end an entity.
const MAX_ENTITY_NAME: usize = 10;

/// Decodes numeric character references and the common named entities.
///
/// Linear: after each `&` only the next `MAX_ENTITY_NAME + 1` bytes are
/// searched for its `;`. Searching the whole rest of the text (and keeping
/// the match only when close) made a text of many `&`s and no `;` quadratic:
/// a 15 MB feed of `&amp;`, whose titles decode to millions of `&`, took
/// four minutes.
fn decode_entities(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(amp) = rest.find('&') {
        out.push_str(rest.get(..amp).unwrap_or_default());
        let after = rest.get(amp + 1..).unwrap_or_default();
        // `;` is ASCII, so its byte position is a char boundary.
        let semi = after
            .as_bytes()
            .iter()
            .take(MAX_ENTITY_NAME + 1)
            .position(|&b| b == b';');
        let decoded = semi.and_then(|p| after.get(..p)).and_then(entity_char);
        match (semi, decoded) {
            (Some(p), Some(c)) => {
                out.push(c);
                rest = after.get(p + 1..).unwrap_or_default();
            }
            _ => {
                out.push('&');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The character of one entity name (without `&` and `;`).
fn entity_char(name: &str) -> Option<char> {
    if let Some(num) = name.strip_prefix('#') {
        let code = match num.strip_prefix(['x', 'X']) {
            Some(hex) => u32::from_str_radix(hex, 16).ok()?,
            None => num.parse::<u32>().ok()?,
        };
        return char::from_u32(code).map(|c| if c == '\0' { '\u{FFFD}' } else { c });
    }
    Some(match name {
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        "nbsp" => '\u{a0}',
        "ndash" => '–',
        "mdash" => '—',
        "lsquo" => '‘',
        "rsquo" => '’',
        "ldquo" => '“',
        "rdquo" => '”',
        "hellip" => '…',
        "copy" => '©',
        "reg" => '®',
        "trade" => '™',
        "laquo" => '«',
        "raquo" => '»',
        "middot" => '·',
        "bull" => '•',
        "eacute" => 'é',
        "egrave" => 'è',
        "agrave" => 'à',
        "ccedil" => 'ç',
        "uuml" => 'ü',
        "ouml" => 'ö',
        "auml" => 'ä',
        "szlig" => 'ß',
        _ => return None,
    })
}

/// Whether `head`, a document's first bytes, is an RSS, Atom or RDF feed's
/// (its root element, after a BOM, an XML prolog and comments) or a JSON
/// Feed's (its `version` URL).
pub(crate) fn looks_like_feed(head: &[u8]) -> bool {
    let text = String::from_utf8_lossy(head);
    let text = text.trim_start_matches('\u{feff}').trim_start();
    if text.starts_with('{') {
        return text.contains("jsonfeed.org/version");
    }
    if !text.starts_with('<') {
        return false;
    }
    // The first element that is not the prolog, a comment or a doctype.
    let mut rest = text;
    while let Some(at) = rest.find('<') {
        let tag = rest.get(at + 1..).unwrap_or_default();
        if tag.starts_with('?') || tag.starts_with('!') {
            rest = tag.get(1..).unwrap_or_default();
            continue;
        }
        let name: String = tag
            .chars()
            .take_while(|c| !c.is_whitespace() && *c != '>' && *c != '/')
            .collect::<String>()
            .to_ascii_lowercase();
        return matches!(name.as_str(), "rss" | "feed" | "rdf:rdf");
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_tags_and_entities() {
        assert_eq!(
            html_to_text(
                "<p>Fish &amp; chips&#33; <b>now</b>&nbsp;&#x41;</p><script>x<y</script> end"
            ),
            "Fish & chips! now A end"
        );
        assert_eq!(html_to_text("a < b &unknown; c"), "a < b &unknown; c");
        assert_eq!(html_to_text("<!-- hidden -->shown"), "shown");
    }

    #[test]
    fn relative_links_resolve_against_base() {
        let rss = br#"<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>
            <item><title>One &lt;b&gt;bold&lt;/b&gt;</title><link>/a/one.html</link>
            <description>&lt;p&gt;Hello &amp;amp; bye&lt;/p&gt;</description></item></channel></rss>"#;
        let items = parse_feed(rss, Some("http://example.com/feed/rss.xml")).unwrap();
        assert_eq!(items.len(), 1);
        assert_eq!(items[0].url, "http://example.com/a/one.html");
        assert_eq!(items[0].title, "One bold");
        assert_eq!(items[0].description, "Hello & bye");
    }

    #[test]
    fn garbage_is_an_error() {
        assert!(parse_feed(b"this is not a feed", None).is_err());
    }

    #[test]
    fn feeds_known_by_their_first_bytes() {
        assert!(looks_like_feed(
            b"\xef\xbb\xbf<?xml version=\"1.0\"?>\n<!-- x --><rss version=\"2.0\">"
        ));
        assert!(looks_like_feed(
            b"<feed xmlns=\"http://www.w3.org/2005/Atom\">"
        ));
        assert!(looks_like_feed(b"<rdf:RDF xmlns:rdf=\"\">"));
        assert!(looks_like_feed(
            b"{\"version\": \"https://jsonfeed.org/version/1.1\"}"
        ));
        assert!(!looks_like_feed(
            b"<!DOCTYPE html><html><body>rss</body></html>"
        ));
        assert!(!looks_like_feed(b"{\"name\": \"not a feed\"}"));
        assert!(!looks_like_feed(b"WARC/1.0\r\n"));
    }
}
