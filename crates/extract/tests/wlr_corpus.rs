//! WLR on real pages of the shared corpora: the extracted text must contain
//! the first sentence of the gold main text's body.

mod common;

use canopy_dom::{Document, DomOptions};
use canopy_extract::{wlr, WlrVariant};

use common::{corpora, first_body_sentence, joined, normalise, page};

/// The text of the WLR output, as the caller builds it.
fn extract(corpus: &str, id: &str, variant: WlrVariant) -> (String, String) {
    let (doc, gold) = page(corpus, id);
    let nodes = wlr(&doc, variant);
    (normalise(&joined(&doc, &nodes)), first_body_sentence(&gold))
}

fn check(corpus: &str, ids: &[&str]) {
    for id in ids {
        for variant in [WlrVariant::Wlr, WlrVariant::Clr] {
            let (text, first) = extract(corpus, id, variant);
            assert!(
                text.contains(&first),
                "{corpus}/{id} ({variant}): extracted text lacks the gold's first sentence\n\
                 first sentence: {first}\nextracted ({} chars): {}",
                text.len(),
                text.chars().take(600).collect::<String>()
            );
        }
    }
}

#[test]
fn big9_articles_from_several_sites_and_years() {
    check(
        "big9",
        &[
            "big9-00006", // bbc 2005
            "big9-00112", // bbc 2013
            "big9-00040", // cnn 2005
            "big9-00151", // cnn 2017
            "big9-00067", // forbes 2009
            "big9-00156", // forbes 2017
            "big9-00105", // foxnews 2013
        ],
    );
}

#[test]
fn dragnet_pages() {
    check(
        "dragnet",
        &[
            "dragnet-00097", // johndcook.com
            "dragnet-00109", // lifeinc.today.msnbc.msn.com
            "dragnet-00332", // russelldavies.typepad.com
            "dragnet-00334", // droiddog.com
            "dragnet-00596", // coolboom.net
            "dragnet-00714", // rotoprofessor.com
        ],
    );
}

/// The method does not take the whole page: on these articles the output
/// is well under the page's text (navigation, footers are left out).
#[test]
fn output_is_a_part_of_the_page() {
    let dir = corpora().join("big9");
    for id in ["big9-00006", "big9-00151", "big9-00105"] {
        let bytes = std::fs::read(dir.join(format!("html/{id}.html"))).unwrap();
        let doc = Document::parse(&String::from_utf8_lossy(&bytes), &DomOptions::default());
        let nodes = wlr(&doc, WlrVariant::Wlr);
        assert_eq!(nodes.len(), 1);
        assert_ne!(nodes[0], doc.body(), "{id}: WLR returned the whole body");
        let out = doc.inner_text(nodes[0]).len();
        let all = doc.inner_text(doc.body()).len();
        assert!(out * 10 < all * 9, "{id}: output {out} of {all} chars");
    }
}
