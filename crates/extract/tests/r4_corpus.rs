//! R4 on real pages of the shared corpora: the extracted text must contain
//! the first sentence of the gold main text's body, and leave out part of
//! the page.

use canopy_extract::r4;

use std::path::PathBuf;

use canopy_dom::{Document, DomOptions};

fn corpora() -> PathBuf {
    let dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/corpora"
    ));
    assert!(
        dir.join("big9/manifest.tsv").is_file() && dir.join("dragnet/manifest.tsv").is_file(),
        "the shared corpora are missing: expected {}/{{big9,dragnet}}/manifest.tsv",
        dir.display()
    );
    dir
}

fn normalise(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The first line of the gold after the title with at least 8 words.
fn first_body_sentence(gold: &str) -> String {
    gold.lines()
        .skip(1)
        .map(normalise)
        .find(|l| l.split(' ').count() >= 8)
        .expect("gold has a body line of 8 words or more")
}

/// A corpus page, parsed, and its gold text.
fn page(corpus: &str, id: &str) -> (Document, String) {
    let dir = corpora().join(corpus);
    let read = |p: PathBuf| {
        let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        String::from_utf8_lossy(&bytes).into_owned()
    };
    let html = read(dir.join(format!("html/{id}.html")));
    let gold = read(dir.join(format!("gold/{id}.txt")));
    (Document::parse(&html, &DomOptions::default()), gold)
}

/// The text of a method's nodes, as the caller builds it.
fn joined(doc: &Document, nodes: &[usize]) -> String {
    let text: Vec<String> = nodes.iter().map(|&n| doc.inner_text(n)).collect();
    text.join("\n")
}

fn check(corpus: &str, ids: &[&str]) {
    for id in ids {
        let (doc, gold) = page(corpus, id);
        let nodes = r4(&doc);
        let text = normalise(&joined(&doc, &nodes));
        let first = first_body_sentence(&gold);
        assert!(
            text.contains(&first),
            "{corpus}/{id} (r4): extracted text lacks the gold's first sentence\n\
             first sentence: {first}\nextracted ({} chars): {}",
            text.len(),
            text.chars().take(600).collect::<String>()
        );
        let all = normalise(&doc.inner_text(doc.body())).len();
        assert!(
            text.len() * 10 < all * 9,
            "{corpus}/{id}: output {} of {all} chars: not a part of the page",
            text.len()
        );
    }
}

#[test]
fn big9_articles() {
    check(
        "big9",
        &[
            "big9-00006", // bbc 2005
            "big9-00039", // cnn
            "big9-00003", // forbes
            "big9-00200", // forbes
            "big9-00021", // foxnews
        ],
    );
}

#[test]
fn dragnet_pages() {
    check(
        "dragnet",
        &[
            "dragnet-00635", // androidpolice.com
            "dragnet-00211", // battellemedia.com
            "dragnet-00634", // blogs.wsj.com
            "dragnet-00017", // blog.ted.com
        ],
    );
}

/// The post-process (Algorithm 5, tr = 1.5, hr = 7) removes a selected
/// node with more than 7 links and over a third of its text in links: on
/// this page (a comment list of linked author names) that is the only
/// selected node, and the output is empty, as the paper specifies.
#[test]
fn post_process_can_empty_the_output() {
    let (doc, _) = page("dragnet", "dragnet-00503");
    assert!(r4(&doc).is_empty());
}
