//! What grows with a page in its metadata is bounded, and the work is
//! linear: pages of hundreds of thousands of author names, nested bylines
//! and oversized values, generated here (docs/robustness.md, "Feeds,
//! metadata and charsets").

use std::time::{Duration, Instant};

use canopy_dom::{Document, DomOptions};
use canopy_metadata::{base_url, Capture, PageMeta};

/// Far above the pages below once the work is linear (milliseconds; the
/// parse is not timed), far below what they took before (release build,
/// shared machine: 80,000 names in `<meta>` tags 11.6 s; 500 nested
/// bylines around 200,000 paragraphs 15.8 s).
const BOUND: Duration = Duration::from_secs(3);

fn meta_of(what: &str, html: &str) -> PageMeta {
    let doc = Document::parse(html, &DomOptions::default());
    let base = base_url(&doc, "https://news.example/story");
    let start = Instant::now();
    let meta = PageMeta::extract(&doc, base.as_ref(), &[], &Capture::default());
    let took = start.elapsed();
    eprintln!("{what}: {} bytes, metadata in {took:?}", html.len());
    assert!(took < BOUND, "{what}: {took:?}");
    meta
}

fn page(head: &str, body: &str) -> String {
    format!(
        "<html><head><title>t</title>{head}</head><body>{body}<p>The article.</p></body></html>"
    )
}

/// 80,000 distinct authors, three ways: the article keeps the first 32, in
/// page order, and the work is linear (the names were deduplicated by a
/// scan of the kept list per name: quadratic).
#[test]
fn many_authors_give_the_first_32_in_linear_time() {
    let n = 80_000;
    let first: Vec<String> = (0..32).map(|i| format!("Author Name {i}")).collect();
    let metas: String = (0..n)
        .map(|i| format!("<meta name=\"author\" content=\"Author Name {i}\">"))
        .collect();
    let json_ld = format!(
        "<script type=\"application/ld+json\">{{\"@type\":\"NewsArticle\",\"author\":[{}]}}</script>",
        (0..n)
            .map(|i| format!("{{\"@type\":\"Person\",\"name\":\"Author Name {i}\"}}"))
            .collect::<Vec<_>>()
            .join(",")
    );
    let marked: String = (0..n)
        .map(|i| format!("<span itemprop=\"author\">Author Name {i}</span>"))
        .collect();
    for (what, html) in [
        ("meta tags", page(&metas, "")),
        ("JSON-LD", page(&json_ld, "")),
        ("itemprop=author", page("", &marked)),
    ] {
        let authors = meta_of(what, &html).authors;
        assert!(authors == first, "{what}: {} authors", authors.len());
    }
    // Repeats (in any case) count once.
    let repeated: String = (0..n)
        .map(|i| format!("<meta name=\"author\" content=\"AUTHOR name {}\">", i % 3))
        .collect();
    assert_eq!(
        meta_of("repeats", &page(&repeated, "")).authors,
        ["AUTHOR name 0", "AUTHOR name 1", "AUTHOR name 2"]
    );
}

/// 500 nested elements marked as the author (or the date) around a long
/// page: each one's text was built whole, 500 times the page. An element
/// of more than 64 nodes or 4 KiB of text is no byline, so none is read;
/// a small one still is.
#[test]
fn nested_bylines_are_not_read_whole() {
    let paragraphs = "<p>some words of text here</p>".repeat(200_000);
    for (what, attr) in [
        ("authors", "itemprop=\"author\""),
        ("dates", "itemprop=\"datePublished\""),
    ] {
        let html = page(
            "",
            &format!("{}{paragraphs}", format!("<div {attr}>").repeat(500)),
        );
        let meta = meta_of(what, &html);
        assert!(meta.authors.is_empty() && meta.date.is_none(), "{what}");
    }
    let small = page(
        "",
        "<div itemprop=\"author\"><img src=\"a.png\"><span>By Ann Smith</span></div>\
         <span itemprop=\"datePublished\">July 2, 2012</span>",
    );
    let meta = meta_of("small bylines", &small);
    assert_eq!(meta.authors, ["Ann Smith"]);
    assert_eq!(meta.date.as_deref(), Some("2012-07-02"));
}

/// A site name of a megabyte is no site name, nor a URL of one a canonical
/// URL or top image: the next source gives them, or none.
#[test]
fn oversized_values_are_not_taken() {
    let huge = "x".repeat(1 << 20);
    let html = page(
        &format!(
            "<meta property=\"og:site_name\" content=\"{huge}\">\
             <meta property=\"og:site_name\" content=\"The Example\">\
             <link rel=\"canonical\" href=\"/{huge}\"><meta property=\"og:url\" content=\"/story\">\
             <meta property=\"og:image\" content=\"/{huge}.jpg\">"
        ),
        "",
    );
    let meta = meta_of("oversized", &html);
    let len = |v: &Option<String>| v.as_ref().map(String::len);
    assert!(
        meta.site_name.as_deref() == Some("The Example"),
        "site name of {:?} bytes",
        len(&meta.site_name)
    );
    assert!(
        meta.canonical_url.as_deref() == Some("https://news.example/story"),
        "canonical URL of {:?} bytes",
        len(&meta.canonical_url)
    );
    assert!(
        meta.top_image.is_none(),
        "top image of {:?} bytes",
        len(&meta.top_image)
    );
}
