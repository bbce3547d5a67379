//! Page metadata: authors, publication date, site name, canonical URL and
//! top image, from a parsed page and its base URL.
//!
//! Each field is read from the sources a page states it in, most explicit
//! first, and is `None` (or empty) when the page does not state it:
//!
//! | field | sources, in order |
//! |---|---|
//! | authors | JSON-LD `author`; `<meta>` `author`, `article:author`, `dc.creator`…; elements marked `itemprop=author`, `p-author`, `rel=author` |
//! | date | JSON-LD `datePublished`; `<meta>` `article:published_time`, `datePublished`, `date`, `dc.date`…, `parsely-page`; `itemprop=datePublished`, `<time pubdate>`, `dt-published`, hAtom `published`; the first `<time>` of the article (its `datetime`, else a date in its text); a date `<meta>` written in words; the URL's date path; the first `<time>` of the page; a dateline near the article (see [`text_date`]). Dates out of [`DateBounds`] are passed over |
//! | site name | `og:site_name`; JSON-LD `publisher` (or `WebSite`) name |
//! | canonical URL | `<link rel=canonical>`; `og:url` |
//! | top image | `og:image`, `twitter:image`; JSON-LD `image`; the first `<figure>` image of the article, then of the page |
//!
//! URLs come out absolute (http or https), dates in ISO 8601.
//!
//! ```
//! use canopy_dom::{Document, DomOptions};
//! use canopy_metadata::{base_url, Capture, PageMeta};
//! let doc = Document::parse(
//!     r#"<head><meta property="article:published_time" content="2012-07-02T14:30:00-04:00">
//!     <meta name="author" content="Ann Smith"><link rel="canonical" href="/story"></head>"#,
//!     &DomOptions::default(),
//! );
//! let base = base_url(&doc, "http://example.com/story?page=1");
//! let meta = PageMeta::extract(&doc, base.as_ref(), &[], &Capture::default());
//! assert_eq!(meta.authors, ["Ann Smith"]);
//! assert_eq!(meta.date.as_deref(), Some("2012-07-02T14:30:00-04:00"));
//! assert_eq!(meta.canonical_url.as_deref(), Some("http://example.com/story"));
//! ```

mod date;
mod dateline;
mod datelines;
mod heading;
mod jsonld;
mod urls;

use std::collections::HashSet;

use canopy_dom::{collapse_whitespace, local_name, Document, NodeId};
use url::Url;

pub use date::normalize_date;
pub use dateline::{text_date, url_date, DateBounds};
use datelines::dateline_date;
pub use heading::{article_heading, page_heading};
pub use jsonld::JsonLd;
pub use urls::{absolute, base_url, image_src};

/// Where and when a page was fetched: what [`PageMeta::extract`] may read
/// about its date beyond the page itself.
#[derive(Debug, Clone, Copy, Default)]
pub struct Capture<'a> {
    /// The URL the page was fetched from, whose path may hold its date
    /// (`/2012/07/02/`).
    pub url: Option<&'a str>,
    /// When it was fetched (the record's `WARC-Date`): a page's date is
    /// not long after it (see [`DateBounds`]).
    pub warc_date: Option<&'a str>,
}

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
    // Names htmldate also reads that the corpora's pages use, after the
    // ones above so that a page stating several keeps its earlier date.
    "originalpublicationdate",
    "article_date_original",
    "og:article:published_time",
    "publication_date",
    "publish_date",
    "published_date",
    "published_time",
    "date_published",
    "datecreated",
    "dc.date.publication",
    "dc:date",
    "dc:created",
    "citation_publication_date",
    "citation_date",
    "rnews:datepublished",
    "displaydate",
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

/// The elements of the page that [`PageMeta::extract`]'s page-wide
/// searches read, each list in page order. Found in one pass, rather than
/// by a walk over every node of the page for each search: those walks are
/// a third of the metadata's instructions (`docs/performance.md`, "What
/// each feature costs").
#[derive(Default)]
struct Marks {
    /// `<meta>`.
    metas: Vec<NodeId>,
    /// `<link rel=canonical>`.
    canonical: Vec<NodeId>,
    /// `<time>`.
    times: Vec<NodeId>,
    /// Marked as an author: `itemprop=author`, class `p-author`.
    authors: Vec<NodeId>,
    /// `<a>` and `<link>` with `rel=author`.
    author_links: Vec<NodeId>,
    /// Marked as the publication date (a `<meta>` aside, which the
    /// `<meta>` names read): `itemprop=datePublished`, `<time pubdate>`,
    /// class `dt-published` or `published`.
    dates: Vec<NodeId>,
}

impl Marks {
    fn of(doc: &Document) -> Marks {
        let mut marks = Marks::default();
        for n in 0..doc.len() {
            let tag = doc.tag(n);
            if tag.is_empty() {
                continue;
            }
            let rel = || doc.attr_named(n, &local_name!("rel"));
            match tag {
                "meta" => marks.metas.push(n),
                "time" => marks.times.push(n),
                "link" if has_token(rel(), "canonical") => marks.canonical.push(n),
                _ => {}
            }
            if matches!(tag, "a" | "link") && has_token(rel(), "author") {
                marks.author_links.push(n);
            }
            let itemprop = doc.attr_named(n, &local_name!("itemprop"));
            let (mut p_author, mut published) = (false, false);
            for token in doc
                .attr_named(n, &local_name!("class"))
                .unwrap_or("")
                .split_whitespace()
            {
                p_author |= token.eq_ignore_ascii_case("p-author");
                published |= token.eq_ignore_ascii_case("dt-published")
                    || token.eq_ignore_ascii_case("published");
            }
            if has_token(itemprop, "author") || p_author {
                marks.authors.push(n);
            }
            if tag != "meta"
                && (has_token(itemprop, "datePublished")
                    || (tag == "time" && doc.attr(n, "pubdate").is_some())
                    || published)
            {
                marks.dates.push(n);
            }
        }
        marks
    }

    /// The `<time>` elements inside the subtree of `root`.
    fn times_in<'m>(&'m self, doc: &Document, root: NodeId) -> &'m [NodeId] {
        let end = doc.node(root).end;
        let from = self.times.partition_point(|&n| n < root);
        let to = self.times.partition_point(|&n| n < end);
        &self.times[from..to.max(from)]
    }
}

/// The page's `<meta>` tags: (name, property or itemprop in lowercase, content).
fn metas<'d>(doc: &'d Document, marks: &Marks) -> Vec<(String, &'d str)> {
    marks
        .metas
        .iter()
        .filter_map(|&n| {
            let content = doc.attr_named(n, &local_name!("content"))?.trim();
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
        doc.attr_named(d, &local_name!("itemprop")) == Some("name")
            || has_token(doc.attr_named(d, &local_name!("class")), "p-name")
    });
    byline_text(doc, name.unwrap_or(n))
}

/// What a page's metadata is read from besides its text: its JSON-LD,
/// its `<meta>` tags and its marked elements.
struct Sources<'d> {
    doc: &'d Document,
    ld: JsonLd,
    metas: Vec<(String, &'d str)>,
    marks: Marks,
}

impl<'d> Sources<'d> {
    fn of(doc: &'d Document) -> Sources<'d> {
        let marks = Marks::of(doc);
        Sources {
            doc,
            ld: JsonLd::parse(doc.json_ld()),
            metas: metas(doc, &marks),
            marks,
        }
    }
}

fn authors(sources: &Sources<'_>) -> Vec<String> {
    let Sources {
        doc,
        ld,
        metas,
        marks,
    } = sources;
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
        marks
            .authors
            .iter()
            .take(MAX_AUTHOR_CANDIDATES)
            .filter_map(|&n| clean_name(&name_in(doc, n)?)),
    );
    if !marked.is_empty() {
        return marked;
    }
    marks
        .author_links
        .iter()
        .find_map(|&n| clean_name(&byline_text(doc, n)?))
        .into_iter()
        .collect()
}

/// The date an element states: `datetime`, `content`, `value` or `title`
/// (hAtom's `<abbr class="published" title="2012-07-02T…">`), else its text
/// if it is small enough to be a byline: the whole text as a date, or the
/// first date written in it (`<time> July 24, 2012 5:37 AM PDT </time>`,
/// whose time and zone name no date form reads).
fn element_date(doc: &Document, n: NodeId) -> Option<String> {
    ["datetime", "content", "value", "title"]
        .iter()
        .filter_map(|a| doc.attr(n, a))
        .find_map(normalize_date)
        .or_else(|| {
            let text = byline_text(doc, n)?;
            normalize_date(&text)
                .or_else(|| text_date(&text).map(|d| d.format("%Y-%m-%d").to_string()))
        })
}

/// The publication date in a `parsely-page` `<meta>`, whose content is a
/// JSON object: `{"title": …, "pub_date": "2012-07-24T04:00:00Z", …}`.
fn parsely_page_date(metas: &[(String, &str)]) -> Option<String> {
    meta_values(metas, &["parsely-page"])
        .into_iter()
        .filter_map(|v| serde_json::from_str::<serde_json::Value>(v).ok())
        .find_map(|v| v.get("pub_date")?.as_str().and_then(normalize_date))
}

/// The page's publication date, from the most explicit evidence to the
/// least (htmldate's order of trust): markup that names the publication
/// date, the URL's date path, any `<time>`, a dateline near the article.
/// Every date must fall within `bounds`; a source whose date does not is
/// passed over for the next.
fn date(
    sources: &Sources<'_>,
    article: &[NodeId],
    capture: &Capture<'_>,
    canonical: Option<&str>,
    datelines: bool,
) -> Option<String> {
    let Sources {
        doc,
        ld,
        metas,
        marks,
    } = sources;
    let bounds = DateBounds::new(capture.warc_date);
    let admit = |d: &String| bounds.admit_iso(d);
    // 1. Markup naming the publication date: JSON-LD, <meta> tags,
    //    microdata and microformats, then the article's own <time>.
    if let Some(d) = ld.date_published().and_then(normalize_date).filter(admit) {
        return Some(d);
    }
    if let Some(d) = meta_values(metas, DATE_META)
        .into_iter()
        .filter_map(normalize_date)
        .chain(parsely_page_date(metas))
        .find(admit)
    {
        return Some(d);
    }
    // A `<time>` says it holds a date, in its `datetime` or, without one,
    // in its text.
    let in_article = article.iter().flat_map(|&r| marks.times_in(doc, r));
    if let Some(d) = marks
        .dates
        .iter()
        .chain(in_article)
        .filter_map(|&n| element_date(doc, n))
        .find(admit)
    {
        return Some(d);
    }
    // A date <meta> written for people ("Wednesday, October 31, 2012,
    // 11:54 AM"), after the markup written for machines: such a display
    // string can be when the page was rendered (dragnet's nbcnews pages say
    // `date` "July 31, 2012" beside their `<time pubdate>` of July 23).
    if let Some(d) = meta_values(metas, DATE_META)
        .into_iter()
        .filter_map(|v| text_date(v).filter(|&d| bounds.admit(d)))
        .next()
    {
        return Some(d.format("%Y-%m-%d").to_string());
    }
    // 2. The URL's date path (/2012/07/02/): a CMS writes the publication
    //    day there. The page's own URL first, then its canonical one.
    if let Some(d) = capture
        .url
        .into_iter()
        .chain(canonical)
        .filter_map(url_date)
        .find(|&d| bounds.admit(d))
    {
        return Some(d.format("%Y-%m-%d").to_string());
    }
    // 3. Any <time> of the page: markup, but not said to be the
    //    article's (a list of related articles has its own).
    if let Some(d) = marks
        .times
        .iter()
        .filter_map(|&n| element_date(doc, n))
        .find(admit)
    {
        return Some(d);
    }
    // 4. A dateline in the visible text near the article.
    if !datelines {
        return None;
    }
    dateline_date(doc, article, &bounds)
}

/// Whether metadata extraction ([`PageMeta::extract`], [`article_heading`]
/// and [`base_url`]) reads an element wherever it stands on the page, not
/// only inside the article's selection (`attr` gives the element's
/// attribute of a name): `<title>` (a page may write it after its body
/// has begun), `<meta>`, `<link>`, `<base>` and `<time>`, the
/// `<h1>`–`<h3>` headings (the article's heading may stand before its
/// text), `<figure>` (the top image), and the elements marked as an author
/// or a publication date (microdata, microformats, `rel=author`). The
/// rest of the page outside the selection it reads only for a dateline
/// ([`PageMeta::extract_marked`] leaves that out). JSON-LD scripts are
/// read wherever they stand too (`Document::json_ld`).
pub fn read_beyond_article<'a>(tag: &str, attr: impl Fn(&str) -> Option<&'a str>) -> bool {
    matches!(tag, "title" | "meta" | "link" | "base" | "time" | "figure")
        || heading::is_heading(tag)
        || has_any_token(attr("itemprop"), &["author", "datePublished"])
        || has_any_token(attr("class"), &["p-author", "dt-published", "published"])
        || (matches!(tag, "a" | "link") && has_token(attr("rel"), "author"))
}

fn has_any_token(value: Option<&str>, tokens: &[&str]) -> bool {
    tokens.iter().any(|t| has_token(value, t))
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
    /// searched first for its `<time>` and `<figure>` image, and the
    /// anchor of its dateline; `capture` says where and when the page was
    /// fetched.
    pub fn extract(
        doc: &Document,
        base: Option<&Url>,
        article: &[NodeId],
        capture: &Capture<'_>,
    ) -> PageMeta {
        PageMeta::extract_with(doc, base, article, capture, true)
    }

    /// [`PageMeta::extract`] without its last source of a date, a dateline
    /// of the page's text near the article: what a page of the article's
    /// selection and the elements [`read_beyond_article`] names, without
    /// the rest of the page, gives as the whole page does.
    pub fn extract_marked(
        doc: &Document,
        base: Option<&Url>,
        article: &[NodeId],
        capture: &Capture<'_>,
    ) -> PageMeta {
        PageMeta::extract_with(doc, base, article, capture, false)
    }

    fn extract_with(
        doc: &Document,
        base: Option<&Url>,
        article: &[NodeId],
        capture: &Capture<'_>,
        datelines: bool,
    ) -> PageMeta {
        let sources = Sources::of(doc);
        let Sources {
            ld, metas, marks, ..
        } = &sources;
        let site_name = meta_values(metas, &["og:site_name"])
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
        let canonical = marks
            .canonical
            .iter()
            .filter_map(|&n| doc.attr_named(n, &local_name!("href")))
            .chain(meta_values(metas, &["og:url"]))
            .find_map(url);
        let figure = article
            .iter()
            .map(|&r| r..doc.node(r).end)
            .chain(std::iter::once(0..doc.len()))
            .filter_map(|range| first_figure_image(doc, range));
        let top_image = meta_values(metas, IMAGE_META)
            .into_iter()
            .chain(ld.image())
            .chain(figure)
            .find_map(url);
        PageMeta {
            authors: authors(&sources),
            date: date(&sources, article, capture, canonical.as_deref(), datelines),
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
        let capture = Capture {
            url: Some("https://news.example/2017/story.html"),
            warc_date: None,
        };
        PageMeta::extract(&doc, base.as_ref(), &[], &capture)
    }

    #[test]
    fn marks_list_each_kind_of_element_in_page_order() {
        let doc = Document::parse(
            r#"<head><meta name="date" content="2012-07-02">
            <meta itemprop="datePublished" content="2012-07-03">
            <link rel="Canonical" href="/c"><link rel="author" href="/a"></head>
            <body><div class="post P-Author"><time pubdate>1 July</time></div>
            <article><span itemprop="author datePublished">Ann</span>
            <abbr class="entry published" title="2012-07-01">x</abbr>
            <time datetime="2012-07-04">4 July</time><a rel="nofollow author">Bob</a></article>
            <p class="unpublished">no</p><time>5 July</time></body>"#,
            &DomOptions::default(),
        );
        let marks = Marks::of(&doc);
        let tags = |nodes: &[NodeId]| nodes.iter().map(|&n| doc.tag(n)).collect::<Vec<_>>();
        assert_eq!(tags(&marks.metas), ["meta", "meta"]);
        assert_eq!(tags(&marks.canonical), ["link"]);
        assert_eq!(tags(&marks.times), ["time", "time", "time"]);
        assert_eq!(tags(&marks.authors), ["div", "span"]);
        assert_eq!(tags(&marks.author_links), ["link", "a"]);
        // A `<meta>` is no marked date: the `<meta>` names read it.
        assert_eq!(tags(&marks.dates), ["time", "span", "abbr"]);
        let article = (0..doc.len()).find(|&n| doc.tag(n) == "article").unwrap();
        let inside = marks.times_in(&doc, article);
        assert_eq!(inside.len(), 1);
        assert_eq!(doc.attr(inside[0], "datetime"), Some("2012-07-04"));
        assert!(marks.times_in(&doc, inside[0]) == inside);
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

    fn date_of(html: &str, url: &str, warc_date: Option<&str>) -> Option<String> {
        let doc = Document::parse(html, &DomOptions::default());
        let base = base_url(&doc, url);
        let capture = Capture {
            url: Some(url),
            warc_date,
        };
        PageMeta::extract(&doc, base.as_ref(), &[], &capture).date
    }

    #[test]
    fn url_date_path_after_markup() {
        // WordPress permalinks: the date is in the path only.
        let body = "<body><h1>Title</h1><p>Text.</p></body>";
        let url = "http://blog.example/2012/06/25/getting-through-just-one-night/";
        assert_eq!(date_of(body, url, None).as_deref(), Some("2012-06-25"));
        // Markup states the time: it comes first.
        let marked = r#"<head><meta property="article:published_time"
            content="2012-06-24T22:10:00-04:00"></head><body><h1>T</h1></body>"#;
        assert_eq!(
            date_of(marked, url, None).as_deref(),
            Some("2012-06-24T22:10:00-04:00")
        );
    }

    #[test]
    fn marked_metadata_leaves_out_datelines_only() {
        let html = r#"<body><h1>Post</h1><p>A paragraph of the post.</p>
            <p>Posted by <a rel="author" href="/ann">Ann Smith</a> on July 19, 2012</p></body>"#;
        let doc = Document::parse(html, &DomOptions::default());
        let capture = Capture::default();
        let whole = PageMeta::extract(&doc, None, &[], &capture);
        let marked = PageMeta::extract_marked(&doc, None, &[], &capture);
        assert_eq!(whole.date.as_deref(), Some("2012-07-19"));
        assert_eq!(marked.date, None);
        assert_eq!(marked.authors, whole.authors);
        assert_eq!(marked.authors, ["Ann Smith"]);
        // What the marked sources read wherever it stands.
        let attr = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| pairs.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
        };
        assert!(read_beyond_article("time", attr(&[])));
        assert!(read_beyond_article("h2", attr(&[])));
        assert!(read_beyond_article(
            "a",
            attr(&[("rel", "author nofollow")])
        ));
        assert!(read_beyond_article(
            "span",
            attr(&[("itemprop", "datePublished")])
        ));
        assert!(!read_beyond_article("a", attr(&[("rel", "nofollow")])));
        assert!(!read_beyond_article("p", attr(&[("class", "byline")])));
    }

    #[test]
    fn dateline_text_near_the_heading() {
        // Typepad: "Posted by … on July 19, 2012" below the post; a list of
        // popular posts, each dated, further down.
        let html = r#"<body><h1>Post</h1><p>A paragraph of the post, long enough to be text.</p>
            <p class="entry-footer-info"><span class="post-footers">Posted by
            <a rel="author" href="/seth">Seth Godin</a> on July 19, 2012</span></p>
            <div class="sidebar"><ul>
            <li><a href="/a">A</a> <span class="wpp-date">June 27, 2012</span></li>
            <li><a href="/b">B</a> <span class="wpp-date">May 9, 2012</span></li>
            </ul></div></body>"#;
        assert_eq!(
            date_of(html, "http://seth.example/post.html", None).as_deref(),
            Some("2012-07-19")
        );
        // Only the list: its items are not the page's date.
        let list = r#"<body><h1>Post</h1><p>Text.</p><div class="sidebar"><ul>
            <li><a href="/a">A</a> <span class="wpp-date">June 27, 2012</span></li>
            <li><a href="/b">B</a> <span class="wpp-date">May 9, 2012</span></li>
            </ul></div></body>"#;
        assert_eq!(date_of(list, "http://seth.example/post.html", None), None);
        // hAtom: <abbr class="published" title="…">.
        let abbr = r#"<body><h2><a href="/p">Post</a></h2><p class="byline">Posted
            <abbr class="published" title="2012-07-21">21 July</abbr></p></body>"#;
        assert_eq!(
            date_of(abbr, "http://x.example/?page=1", None).as_deref(),
            Some("2012-07-21")
        );
    }

    /// A date `<meta>` in words is read (nj.com's `article_date_original`),
    /// after the markup written for machines (nbcnews's `date` "July 31",
    /// beside its `<time pubdate>` of July 23) and before the URL's month.
    #[test]
    fn date_metas_in_words() {
        let words = r#"<head><meta name="article_date_original"
            content="Wednesday, October 31, 2012, 11:54 AM"></head><body><p>Text.</p></body>"#;
        let url = "http://x.example/news/index.ssf/2012/10/story.html";
        assert_eq!(date_of(words, url, None).as_deref(), Some("2012-10-31"));
        let beside_time = r#"<head><meta name="date" content="July 31, 2012, 2:30 pm"></head>
            <body><p><time pubdate datetime="2012-07-23T18:06:48-04:00">Jul 23</time></p></body>"#;
        assert_eq!(
            date_of(beside_time, "http://x.example/story", None).as_deref(),
            Some("2012-07-23T18:06:48-04:00")
        );
        assert_eq!(
            date_of(words, url, Some("2010-01-01T00:00:00Z")),
            None,
            "out of bounds: more than a year after the capture"
        );
    }

    /// A numeric dateline that could be read either way round is read the
    /// way the page's other numeric dates are written (47hats.com: its
    /// "08-7-2012" beside "07-28-2008" is 7 August); with nothing to tell,
    /// it is not read, and it still stands for the page's date: a farther
    /// dateline (another post's) is not taken in its place.
    #[test]
    fn numeric_datelines_are_read_the_way_the_page_writes_them() {
        let page = |byline: &str, related: &str| {
            format!(
                r#"<body><div id=post><h1>Startup ideas</h1>
                <p class="meta_date">Posted on: {byline}</p>
                <p>The post, in a paragraph of several words.</p></div>
                <div id=recent><p>An older post</p><p class="post-date">Posted on: {related}</p>
                </div></body>"#
            )
        };
        let url = "http://x.example/2012/08/ideas/";
        let at = Some("2012-08-10T00:00:00Z");
        let date = |html: String| date_of(&html, url, at);
        assert_eq!(
            date(page("08-7-2012", "07-28-2008")).as_deref(),
            Some("2012-08-07")
        );
        assert_eq!(
            date(page("08-7-2012", "28-07-2008")).as_deref(),
            Some("2012-07-08")
        );
        assert_eq!(date(page("08-7-2012", "July 28, 2008")), None);
        assert_eq!(
            date(page("08-19-2012", "July 28, 2008")).as_deref(),
            Some("2012-08-19")
        );
    }

    #[test]
    fn published_preferred_to_modified() {
        let html = r#"<body><h1>Story</h1>
            <p class="meta">Updated: November 8, 2012</p>
            <p class="meta">Published: November 6, 2012</p><p>Text.</p></body>"#;
        assert_eq!(
            date_of(html, "http://x.example/story", None).as_deref(),
            Some("2012-11-06")
        );
        let meta = r#"<head><meta property="article:modified_time" content="2012-11-08">
            <meta name="OriginalPublicationDate" content="2012/07/24 10:50:16"></head>"#;
        assert_eq!(
            date_of(meta, "http://x.example/story", None).as_deref(),
            Some("2012-07-24T10:50:16")
        );
    }

    #[test]
    fn dates_out_of_bounds_are_passed_over() {
        let url = "http://x.example/story";
        // The Unix epoch as a CMS's empty date: the next source is read.
        let epoch = r#"<head><meta property="article:published_time"
            content="1970-01-01T01:00:00+01:00"></head>
            <body><h1>T</h1><p class="date">March 3, 2012</p></body>"#;
        assert_eq!(date_of(epoch, url, None).as_deref(), Some("2012-03-03"));
        // A date years after the capture (an event announced) is not the
        // page's; without the capture's date there is no upper bound.
        let future = r#"<body><h1>T</h1><p class="date">Conference: March 3, 2019</p></body>"#;
        assert_eq!(date_of(future, url, Some("2012-06-01T12:00:00Z")), None);
        assert_eq!(date_of(future, url, None).as_deref(), Some("2019-03-03"));
        let url_future = "http://x.example/2031/01/02/story";
        assert_eq!(
            date_of("<p>x</p>", url_future, Some("2012-06-01T12:00:00Z")),
            None
        );
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
