//! Helpers shared by the corpus tests: locating the shared corpora,
//! reading pages and gold texts, and normalising extracted text.

// Each test crate uses only some of these helpers.
#![allow(dead_code)]

use std::path::PathBuf;

use canopy_dom::{Document, DomOptions};

pub use canopy_test_support::corpora;

/// The file at `p` as text (invalid UTF-8 replaced); panics if unreadable.
pub fn read(p: PathBuf) -> String {
    let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    String::from_utf8_lossy(&bytes).into_owned()
}

/// `s` with every run of whitespace replaced by one space, trimmed.
pub fn normalise(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The first line of the gold after the title with at least 8 words.
pub fn first_body_sentence(gold: &str) -> String {
    gold.lines()
        .skip(1)
        .map(normalise)
        .find(|l| l.split(' ').count() >= 8)
        .expect("gold has a body line of 8 words or more")
}

/// A corpus page, parsed, and its gold text.
pub fn page(corpus: &str, id: &str) -> (Document, String) {
    let dir = corpora().join(corpus);
    let html = read(dir.join(format!("html/{id}.html")));
    let gold = read(dir.join(format!("gold/{id}.txt")));
    (Document::parse(&html, &DomOptions::default()), gold)
}

/// The text of a method's nodes, as the caller builds it.
pub fn joined(doc: &Document, nodes: &[usize]) -> String {
    let text: Vec<String> = nodes.iter().map(|&n| doc.inner_text(n)).collect();
    text.join("\n")
}
