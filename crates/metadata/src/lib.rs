//! Page metadata: authors, publication date, site name, canonical URL and
//! top image, from a parsed page and its base URL.
//!
//! Each field is read from the sources a page states it in, most explicit
//! first, and is `None` (or empty) when the page does not state it:
//!
//! | field | sources, in order |
//! |---|---|
//! | authors | JSON-LD `author`; `<meta>` `author`, `article:author`, `dc.creator`…; elements marked `itemprop=author`, `p-author`, `rel=author` |
//! | date | JSON-LD `datePublished`; `<meta>` `article:published_time`, `datePublished`, `date`, `dc.date`…; `itemprop=datePublished`, `<time pubdate>`, `dt-published`; the first `<time datetime>` of the article, then of the page |
//! | site name | `og:site_name`; JSON-LD `publisher` (or `WebSite`) name |
//! | canonical URL | `<link rel=canonical>`; `og:url` |
//! | top image | `og:image`, `twitter:image`; JSON-LD `image`; the first `<figure>` image of the article, then of the page |
//!
//! URLs come out absolute (http or https), dates in ISO 8601.
//!
//! ```
//! use canopy_dom::{Document, DomOptions};
//! use canopy_metadata::{base_url, PageMeta};
//! let doc = Document::parse(
//!     r#"<head><meta property="article:published_time" content="2012-07-02T14:30:00-04:00">
//!     <meta name="author" content="Ann Smith"><link rel="canonical" href="/story"></head>"#,
//!     &DomOptions::default(),
//! );
//! let base = base_url(&doc, "http://example.com/story?page=1");
//! let meta = PageMeta::extract(&doc, base.as_ref(), &[]);
//! assert_eq!(meta.authors, ["Ann Smith"]);
//! assert_eq!(meta.date.as_deref(), Some("2012-07-02T14:30:00-04:00"));
//! assert_eq!(meta.canonical_url.as_deref(), Some("http://example.com/story"));
//! ```

mod date;
mod heading;
mod jsonld;
mod urls;

use std::collections::HashSet;

use canopy_dom::{collapse_whitespace, Document, NodeId};
use url::Url;

pub use date::normalize_date;
pub use heading::{article_heading, page_heading};
pub use jsonld::JsonLd;
pub use urls::{absolute, base_url, image_src};

/// What a page states about itself.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageMeta {
    pub authors: Vec<String>,
    /// ISO 8601: a date, or a date and time (with its offset when the page gives one).
    pub date: Option<String>,
    pub site_name: Option<String>,
    pub canonical_url: Option<String>,
    pub top_image: Option<String>,
}

const AUTHOR_META: &[&str] = &[
    "author",
    "article:author",
    "dc.creator",
    "dcterms.creator",
    "sailthru.author",
    "parsely-author",
];
const DATE_META: &[&str] = &[
    "article:published_time",
    "og:published_time",
    "datepublished",
    "date",
    "dc.date",
    "dc.date.issued",
    "dc.date.created",
    "dcterms.issued",
    "dcterms.created",
    "dcterms.date",
    "pubdate",
    "publishdate",
    "publish-date",
    "sailthru.date",
    "parsely-pub-date",
];
const IMAGE_META: &[&str] = &[
    "og:image",
    "og:image:url",
    "og:image:secure_url",
    "twitter:image",
    "twitter:image:src",
];
/// Longest text taken as an author's name from an element (a longer one is
/// a biography or a byline sentence, not a name).
const MAX_NAME_CHARS: usize = 80;

/// Most authors an article carries: the first this many distinct names.
/// Bylines name a handful (articles of big9 and dragnet name at most one,
/// of trafbench seven); 32 leaves room for a group byline, and keeps
/// a page of 300,000 `<meta name=author>` tags from giving an article of
/// 300,000 names.
const MAX_AUTHORS: usize = 32;

/// Most author names read from one source (JSON-LD, `<meta>` tags, marked
/// elements) before the first [`MAX_AUTHORS`] distinct ones are kept: room
/// for repeats and for values that are not names, while the work on a page
/// of 300,000 names stays that of a few hundred.
const MAX_AUTHOR_CANDIDATES: usize = 1024;

/// An element whose text may be read as a byline (an author's name, a
/// date): at most this many nodes and this many bytes of text. A name or a
/// date is a few words; an author card with a photo, a bio and links is
/// some 30 nodes. Without this bound each marked element's text was built
/// whole, so 500 nested `itemprop=author` `<div>`s around a long page built
/// its text 500 times (4.4 s for a 1.2 MB page, a minute for a 16 MB one).
const MAX_BYLINE_NODES: usize = 64;
const MAX_BYLINE_BYTES: usize = 4096;

/// Longest site name taken, in bytes: a name is a few words (the corpora's
/// longest is 135 bytes); a longer value is not one, and an article does not
/// carry a page's megabyte of `og:site_name`.
const MAX_SITE_NAME_BYTES: usize = 1024;

/// Longest URL taken as the canonical URL or top image, in bytes: 8 KiB is
/// the request line most servers accept (the corpora's longest is 239).
const MAX_URL_BYTES: usize = 8192;

/// The page's `<meta>` tags: (name, property or itemprop in lowercase, content).
fn metas(doc: &Document) -> Vec<(String, &str)> {
    (0..doc.len())
        .filter(|&n| doc.tag(n) == "meta")
        .filter_map(|n| {
            let content = doc.attr(n, "content")?.trim();
            let key = ["property", "name", "itemprop"]
                .iter()
                .find_map(|k| doc.attr(n, k))?;
            (!content.is_empty()).then(|| (key.trim().to_ascii_lowercase(), content))
        })
        .collect()
}

fn meta_values<'a>(metas: &[(String, &'a str)], names: &[&str]) -> Vec<&'a str> {
    // In the order of `names` (their priority), then page order.
    names
        .iter()
        .flat_map(|name| {
            metas
                .iter()
                .filter(move |(k, _)| k == name)
                .map(|(_, v)| *v)
        })
        .collect()
}

fn has_token(value: Option<&str>, token: &str) -> bool {
    value.is_some_and(|v| v.split_whitespace().any(|t| t.eq_ignore_ascii_case(token)))
}

/// A person's name as a page writes it in a byline: "By Ann Smith," → "Ann Smith".
fn clean_name(raw: &str) -> Option<String> {
    let s = collapse_whitespace(raw);
    let s = s.trim_matches(|c: char| c == ',' || c == '|' || c == '-' || c.is_whitespace());
    let s = ["By ", "by ", "BY "]
        .iter()
        .find_map(|p| s.strip_prefix(p))
        .unwrap_or(s)
        .trim();
    let looks_like_url = s.starts_with("http://") || s.starts_with("https://");
    let ok = !s.is_empty() && s.chars().count() <= MAX_NAME_CHARS && !looks_like_url;
    ok.then(|| s.to_string())
}

/// The first [`MAX_AUTHORS`] distinct names (ignoring ASCII case, the
/// first spelling kept) among the first [`MAX_AUTHOR_CANDIDATES`] given.
/// Linear: the names seen are in a set (a scan of the list for each name
/// made 300,000 names take minutes).
fn dedup(names: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut seen: HashSet<String> = HashSet::new();
    let mut out: Vec<String> = Vec::new();
    for n in names.into_iter().take(MAX_AUTHOR_CANDIDATES) {
        if seen.insert(n.to_ascii_lowercase()) {
            out.push(n);
            if out.len() == MAX_AUTHORS {
                break;
            }
        }
    }
    out
}

/// The text of an element small enough to be a byline
/// ([`MAX_BYLINE_NODES`], [`MAX_BYLINE_BYTES`]), else `None`. The checks
/// cost at most `MAX_BYLINE_NODES` steps, whatever the element holds.
fn byline_text(doc: &Document, n: NodeId) -> Option<String> {
    let nodes = doc.node(n).end.saturating_sub(n);
    if nodes > MAX_BYLINE_NODES {
        return None;
    }
    let bytes: usize = doc.text_nodes(n).map(|(_, t)| t.len()).sum();
    (bytes <= MAX_BYLINE_BYTES).then(|| doc.inner_text(n))
}

/// The text of the subtree, or of its `itemprop=name` / `p-name` element
/// when it has one among its first [`MAX_BYLINE_NODES`] descendants (an
/// author card holds more than the name); `None` when that is no byline.
fn name_in(doc: &Document, n: NodeId) -> Option<String> {
    let name = doc.descendants(n).take(MAX_BYLINE_NODES).find(|&d| {
        doc.attr(d, "itemprop") == Some("name") || has_token(doc.attr(d, "class"), "p-name")
    });
    byline_text(doc, name.unwrap_or(n))
}

fn authors(doc: &Document, ld: &JsonLd, metas: &[(String, &str)]) -> Vec<String> {
    let from_ld = dedup(
        ld.authors(MAX_AUTHOR_CANDIDATES)
            .iter()
            .filter_map(|a| clean_name(a)),
    );
    if !from_ld.is_empty() {
        return from_ld;
    }
    let from_meta = dedup(
        meta_values(metas, AUTHOR_META)
            .into_iter()
            .filter_map(clean_name),
    );
    if !from_meta.is_empty() {
        return from_meta;
    }
    // Marked-up bylines: microdata, microformats, then `rel=author` links
    // (blogs link every post's author so; the first is the post's).
    let marked = dedup(
        (0..doc.len())
            .filter(|&n| {
                has_token(doc.attr(n, "itemprop"), "author")
                    || has_token(doc.attr(n, "class"), "p-author")
            })
            .take(MAX_AUTHOR_CANDIDATES)
            .filter_map(|n| clean_name(&name_in(doc, n)?)),
    );
    if !marked.is_empty() {
        return marked;
    }
    (0..doc.len())
        .filter(|&n| matches!(doc.tag(n), "a" | "link") && has_token(doc.attr(n, "rel"), "author"))
        .find_map(|n| clean_name(&byline_text(doc, n)?))
        .into_iter()
        .collect()
}

/// The date an element states: `datetime`, `content` or `value`, else its
/// text if it is small enough to be a byline.
fn element_date(doc: &Document, n: NodeId) -> Option<String> {
    ["datetime", "content", "value"]
        .iter()
        .find_map(|a| doc.attr(n, a))
        .and_then(normalize_date)
        .or_else(|| normalize_date(&byline_text(doc, n)?))
}

fn date(
    doc: &Document,
    ld: &JsonLd,
    metas: &[(String, &str)],
    article: &[NodeId],
) -> Option<String> {
    if let Some(d) = ld.date_published().and_then(normalize_date) {
        return Some(d);
    }
    if let Some(d) = meta_values(metas, DATE_META)
        .into_iter()
        .find_map(normalize_date)
    {
        return Some(d);
    }
    let marked = (0..doc.len()).filter(|&n| {
        doc.tag(n) != "meta"
            && (has_token(doc.attr(n, "itemprop"), "datePublished")
                || (doc.tag(n) == "time" && doc.attr(n, "pubdate").is_some())
                || has_token(doc.attr(n, "class"), "dt-published"))
    });
    let time_in = |range: std::ops::Range<NodeId>| {
        range.filter(|&n| doc.tag(n) == "time" && doc.attr(n, "datetime").is_some())
    };
    let in_article = article.iter().flat_map(|&r| time_in(r..doc.node(r).end));
    marked
        .chain(in_article)
        .chain(time_in(0..doc.len()))
        .find_map(|n| element_date(doc, n))
}

fn first_figure_image(doc: &Document, range: std::ops::Range<NodeId>) -> Option<&str> {
    range
        .filter(|&n| doc.tag(n) == "img")
        .find(|&n| doc.ancestors(n).any(|a| doc.tag(a) == "figure"))
        .and_then(|n| image_src(doc, n))
}

impl PageMeta {
    /// Reads the metadata of `doc`. `base` resolves relative URLs (see
    /// [`base_url`]); `article` is the article's selection (may be empty),
    /// searched first for its `<time>` and `<figure>` image.
    pub fn extract(doc: &Document, base: Option<&Url>, article: &[NodeId]) -> PageMeta {
        let ld = JsonLd::parse(doc.json_ld());
        let metas = metas(doc);
        let site_name = meta_values(&metas, &["og:site_name"])
            .into_iter()
            .chain(ld.site_name().as_deref())
            .filter(|s| s.len() <= MAX_SITE_NAME_BYTES)
            .map(collapse_whitespace)
            .find(|s| !s.is_empty());
        let url = |href: &str| {
            (href.trim().len() <= MAX_URL_BYTES)
                .then(|| absolute(base, href))
                .flatten()
        };
        let canonical = (0..doc.len())
            .filter(|&n| doc.tag(n) == "link" && has_token(doc.attr(n, "rel"), "canonical"))
            .filter_map(|n| doc.attr(n, "href"))
            .chain(meta_values(&metas, &["og:url"]))
            .find_map(url);
        let figure = article
            .iter()
            .map(|&r| r..doc.node(r).end)
            .chain(std::iter::once(0..doc.len()))
            .filter_map(|range| first_figure_image(doc, range));
        let top_image = meta_values(&metas, IMAGE_META)
            .into_iter()
            .chain(ld.image())
            .chain(figure)
            .find_map(url);
        PageMeta {
            authors: authors(doc, &ld, &metas),
            date: date(doc, &ld, &metas, article),
            site_name,
            canonical_url: canonical,
            top_image,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use canopy_dom::DomOptions;

    fn meta(html: &str) -> PageMeta {
        let doc = Document::parse(html, &DomOptions::default());
        let base = base_url(&doc, "https://news.example/2017/story.html");
        PageMeta::extract(&doc, base.as_ref(), &[])
    }

    #[test]
    fn json_ld_comes_first() {
        let m = meta(
            r#"<head><meta name="author" content="Meta Name">
            <meta property="og:site_name" content="The Example">
            <meta property="og:image" content="/img/top.jpg">
            <script type="application/ld+json">{"@type":"NewsArticle",
              "author":{"@type":"Person","name":"Ld Name"},"datePublished":"2017-05-04"}</script>
            </head><body><time datetime="2001-01-01">old</time></body>"#,
        );
        assert_eq!(m.authors, ["Ld Name"]);
        assert_eq!(m.date.as_deref(), Some("2017-05-04"));
        assert_eq!(m.site_name.as_deref(), Some("The Example"));
        assert_eq!(
            m.top_image.as_deref(),
            Some("https://news.example/img/top.jpg")
        );
        assert_eq!(m.canonical_url, None);
    }

    #[test]
    fn microformats_microdata_and_time() {
        let m = meta(
            r#"<body><article class="h-entry"><p class="p-author h-card">
            <a class="p-name" href="/ann">Ann Smith</a> <img src="a.png"></p>
            <time class="dt-published" datetime="2012-07-02T10:00:00+02:00">2 July</time>
            <figure><img src="//cdn.example/f.jpg"></figure></article></body>"#,
        );
        assert_eq!(m.authors, ["Ann Smith"]);
        assert_eq!(m.date.as_deref(), Some("2012-07-02T10:00:00+02:00"));
        assert_eq!(m.top_image.as_deref(), Some("https://cdn.example/f.jpg"));
        let m = meta(
            r#"<body><span itemprop="author">By Bob Jones,</span><a rel="author">Carol</a>
            <span itemprop="datePublished" content="2010-03-04">March 4</span></body>"#,
        );
        assert_eq!(m.authors, ["Bob Jones"]);
        assert_eq!(m.date.as_deref(), Some("2010-03-04"));
    }

    #[test]
    fn absent_fields_are_empty_and_bad_values_ignored() {
        let m = meta(
            r#"<head><meta name="author" content="https://facebook.com/someone">
            <meta name="date" content="soon"><link rel="canonical" href="javascript:x()">
            </head><body><p>Nothing here.</p></body>"#,
        );
        assert_eq!(m, PageMeta::default());
    }
}
