//! BlockExtractor on real pages of the shared corpora: the extracted text
//! must contain the first sentence of the gold main text's body, with and
//! without redundancy removal (siblings: the other pages of the same site).

mod common;

use canopy_dom::{Document, DomOptions};
use canopy_extract::{blockextractor, blockextractor_with, BlockExtractorOptions};

use common::{corpora, first_body_sentence, joined, normalise, read};

/// The page, its gold's first body sentence, and the other pages of its
/// site (manifest column `site`).
fn load(corpus: &str, id: &str) -> (Document, String, Vec<Document>) {
    let dir = corpora().join(corpus);
    let manifest = read(dir.join("manifest.tsv"));
    let rows: Vec<Vec<&str>> = manifest
        .lines()
        .skip(1)
        .map(|l| l.split('\t').collect())
        .collect();
    let site = rows
        .iter()
        .find(|r| r[0] == id)
        .unwrap_or_else(|| panic!("{id} not in {corpus}/manifest.tsv"))[3];
    let parse = |id: &str| {
        Document::parse(
            &read(dir.join(format!("html/{id}.html"))),
            &DomOptions::default(),
        )
    };
    let siblings = rows
        .iter()
        .filter(|r| r[3] == site && r[0] != id)
        .map(|r| parse(r[0]))
        .collect();
    let gold = read(dir.join(format!("gold/{id}.txt")));
    (parse(id), first_body_sentence(&gold), siblings)
}

fn text(doc: &Document, nodes: &[usize]) -> String {
    normalise(&joined(doc, nodes))
}

/// Returns (text without, text with redundancy removal).
fn check(corpus: &str, id: &str) -> (String, String) {
    let (doc, first, siblings) = load(corpus, id);
    let sib: Vec<&Document> = siblings.iter().collect();
    let plain = text(
        &doc,
        &blockextractor_with(
            &doc,
            &sib,
            &BlockExtractorOptions {
                redundancy: false,
                ..Default::default()
            },
        ),
    );
    let dedup = text(&doc, &blockextractor(&doc, &sib));
    for (name, t) in [
        ("no redundancy removal", &plain),
        ("redundancy removal", &dedup),
    ] {
        assert!(
            t.contains(&first),
            "{corpus}/{id} ({name}): extracted text lacks the gold's first sentence\n\
             first sentence: {first}\nextracted ({} chars): {}",
            t.len(),
            t.chars().take(600).collect::<String>()
        );
    }
    (plain, dedup)
}

#[test]
fn big9_articles_from_several_sites_and_years() {
    for id in [
        "big9-00112", // bbc 2013
        "big9-00040", // cnn 2005
        "big9-00151", // cnn 2017
        "big9-00067", // forbes 2009 (Wayback capture: archive URL prefixes)
        "big9-00156", // forbes 2017
        "big9-00105", // foxnews 2013
        "big9-00019", // arstechnica
    ] {
        check("big9", id);
    }
}

#[test]
fn dragnet_pages() {
    for id in [
        "dragnet-00097", // johndcook.com
        "dragnet-00109", // lifeinc.today.msnbc.msn.com
        "dragnet-00334", // droiddog.com
        "dragnet-00596", // coolboom.net
        "dragnet-00714", // rotoprofessor.com
    ] {
        check("dragnet", id);
    }
}

/// Redundancy removal takes out template text the density test keeps: on
/// these pages the output shrinks, and never grows.
#[test]
fn redundancy_removal_shortens_the_output() {
    for (corpus, id) in [
        ("big9", "big9-00151"),
        ("big9", "big9-00105"),
        ("dragnet", "dragnet-00334"),
    ] {
        let (plain, dedup) = check(corpus, id);
        assert!(
            dedup.len() < plain.len(),
            "{id}: {} chars with, {} without redundancy removal",
            dedup.len(),
            plain.len()
        );
    }
}

/// Without siblings, redundancy removal has nothing to compare with.
#[test]
fn empty_siblings_mean_no_redundancy_removal() {
    let (doc, _, _) = load("big9", "big9-00151");
    let off = BlockExtractorOptions {
        redundancy: false,
        ..Default::default()
    };
    assert_eq!(
        blockextractor(&doc, &[]),
        blockextractor_with(&doc, &[], &off)
    );
}
