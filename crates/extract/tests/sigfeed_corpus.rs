//! Sigfeed on real pages of the shared corpora. Keywords: the words of the
//! gold's first line (the article's title, what the feed item's title
//! carries) and of the page's meta description (what the item's
//! description carries: corpora README, `feeds/`), minus stop words; the
//! extracted text must contain the gold's first body sentence.

mod common;

use canopy_dom::{Document, DomOptions};
use canopy_extract::sigfeed;

use common::{corpora, first_body_sentence, normalise, read};

const STOP: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "has", "have", "in", "is",
    "it", "its", "of", "on", "or", "that", "the", "this", "to", "was", "with",
];

fn check(corpus: &str, ids: &[&str]) {
    let dir = corpora().join(corpus);
    for id in ids {
        let html = read(dir.join(format!("html/{id}.html")));
        let gold = read(dir.join(format!("gold/{id}.txt")));
        let doc = Document::parse(&html, &DomOptions::default());
        let description = doc
            .meta("description")
            .or_else(|| doc.meta("og:description"))
            .unwrap_or("");
        let item = format!("{} {description}", gold.lines().next().unwrap_or("")).to_lowercase();
        let keywords: Vec<&str> = item
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty() && !STOP.contains(w))
            .collect();
        let first = first_body_sentence(&gold);
        let nodes = sigfeed(&doc, &keywords);
        assert_eq!(nodes.len(), 1, "{corpus}/{id}: keywords {keywords:?}");
        assert_ne!(nodes[0], doc.body(), "{corpus}/{id}: took the whole body");
        let text = normalise(&doc.inner_text(nodes[0]));
        assert!(
            text.contains(&first),
            "{corpus}/{id}: extracted text lacks the gold's first sentence\n\
             keywords: {keywords:?}\nfirst sentence: {first}\nextracted ({} chars): {}",
            text.len(),
            text.chars().take(600).collect::<String>()
        );
    }
}

#[test]
fn big9_articles() {
    check(
        "big9",
        &[
            "big9-00006", // bbc 2005
            "big9-00112", // bbc 2013
            "big9-00040", // cnn 2005
            "big9-00067", // forbes 2009
            "big9-00105", // foxnews 2013
        ],
    );
}

#[test]
fn dragnet_pages() {
    check(
        "dragnet",
        &[
            "dragnet-00097",
            "dragnet-00332",
            "dragnet-00596",
            "dragnet-00714",
        ],
    );
}
