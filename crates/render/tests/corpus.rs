//! Clean HTML and Markdown of real pages from `../shared/corpora`: the
//! selection of a page-level method (WLR), rendered, must hold only the
//! safe elements and attributes, with absolute link and image URLs.

use canopy_dom::{Document, DomOptions};
use canopy_extract::{wlr, WlrVariant};
use canopy_metadata::base_url;
use canopy_render::CleanTree;
use canopy_test_support::{corpora, manifest};

const SAFE: &[&str] = &[
    "html",
    "head",
    "body",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "p",
    "ul",
    "ol",
    "li",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "blockquote",
    "figure",
    "figcaption",
    "pre",
    "a",
    "img",
    "br",
    "em",
    "strong",
    "b",
    "i",
    "code",
];

#[test]
fn rendered_pages_are_safe_and_absolute() {
    let (mut pages, mut images, mut links) = (0, 0, 0);
    for corpus in ["big9", "dragnet"] {
        let dir = corpora().join(corpus);
        for row in manifest(corpus) {
            let (id, url) = (&row["id"], &row["url"]);
            let html = String::from_utf8_lossy(&std::fs::read(dir.join(&row["html"])).unwrap())
                .into_owned();
            let doc = Document::parse(&html, &DomOptions::default());
            let nodes = wlr(&doc, "wlr".parse::<WlrVariant>().unwrap());
            let tree = CleanTree::build(&doc, &nodes, &|_| true, base_url(&doc, url).as_ref());
            let out = tree.html();
            let md = tree.markdown();
            pages += 1;
            let lower = out.to_lowercase();
            // Event attributes (`onclick`…) are caught by the read-back below.
            for bad in [
                "<script",
                "<style",
                "<iframe",
                "<form",
                "<input",
                "javascript:",
            ] {
                assert!(!lower.contains(bad), "{id}: {bad} in {out}");
            }
            assert_eq!(tree.is_empty(), md.is_empty(), "{id}");
            // Read back: only safe elements, only their attributes, absolute URLs.
            let back = Document::parse(&out, &DomOptions::default());
            for n in 0..back.len() {
                let Some(e) = back.element(n) else { continue };
                assert!(SAFE.contains(&&*e.tag), "{id}: <{}> in {out}", &*e.tag);
                for (name, value) in back.attrs(n) {
                    let allowed = matches!(
                        (&*e.tag, &**name),
                        ("a", "href") | ("img", "src") | ("img", "alt")
                    );
                    assert!(allowed, "{id}: {} on <{}>", &**name, &*e.tag);
                    if &**name != "alt" {
                        let u =
                            url::Url::parse(value).unwrap_or_else(|e| panic!("{id}: {value}: {e}"));
                        assert!(matches!(u.scheme(), "http" | "https"), "{id}: {value}");
                    }
                }
                images += usize::from(&*e.tag == "img");
                links += usize::from(&*e.tag == "a");
            }
            // Markdown images carry the same absolute URLs.
            assert!(
                md.matches("](http").count() >= out.matches("<img ").count(),
                "{id}"
            );
        }
    }
    eprintln!("{pages} pages: {images} images, {links} links");
    assert!(images > 0 && links > 0);
}
