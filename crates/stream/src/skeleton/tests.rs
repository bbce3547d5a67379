use canopy_dom::{Deadline, Document, DomOptions, NodeId};
use canopy_forest::{levels, ElementType, Pattern, Untyped, Wrapper};
use canopy_test_support::corpus_pages;

use crate::tree::tests::run_options;
use crate::{follow, Pass};

/// What metadata extraction reads of `doc` with `pattern`'s selection as
/// the article, less a dateline: the heading, the page's metadata and its
/// base URL.
fn metadata(doc: &Document, pattern: &Pattern) -> String {
    let wrapper = Wrapper {
        pattern: pattern.clone(),
        relevance: 0.0,
        dfs: Vec::new(),
    };
    let roots = wrapper.apply(doc);
    let og = doc.meta("og:title").unwrap_or("").to_string();
    let heading = canopy_metadata::article_heading(doc, &roots, &[&og, &doc.title()]);
    let base = canopy_metadata::base_url(doc, "http://example.com/a/b");
    let capture = canopy_metadata::Capture::default();
    let meta = canopy_metadata::PageMeta::extract_marked(doc, base.as_ref(), &roots, &capture);
    format!("{heading:?} {base:?} {meta:?}")
}

/// The text `pattern` selects on `doc`, white space collapsed.
fn selected(doc: &Document, pattern: &Pattern) -> String {
    let wrapper = Wrapper {
        pattern: pattern.clone(),
        relevance: 0.0,
        dfs: Vec::new(),
    };
    let texts: Vec<String> = wrapper
        .apply(doc)
        .into_iter()
        .map(|n| doc.inner_text(n))
        .collect();
    texts
        .join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The text `pattern` selects on `doc` as a wrapper's selection is
/// cleaned (the page's furniture out, every cleaning rule on, no
/// residue), and whether cleaning read the page past the selection.
fn cleaned(doc: &Document, pattern: &Pattern) -> (String, bool) {
    let wrapper = Wrapper {
        pattern: pattern.clone(),
        relevance: 0.0,
        dfs: Vec::new(),
    };
    let roots = wrapper.apply(doc);
    let furniture = canopy_extract::furniture_within(doc, &roots);
    canopy_extract::clean_selection_read(
        doc,
        &roots,
        &furniture,
        &canopy_extract::Residue::default(),
        &canopy_extract::CleanOptions::default(),
    )
}

/// The skeleton of `pass`, parsed as a region page is: the drop list's
/// guard weighs against the whole page's text, cleaning tells the site's
/// links by the whole page's own host.
fn skeleton_doc(pass: &Pass, html: &str, options: &DomOptions) -> Document {
    let options = DomOptions {
        page_text: Some(pass.text_bytes),
        page_link_host: canopy_extract::page_host_of(pass.hrefs(html)),
        ..options.clone()
    };
    Document::parse_within(&pass.skeleton(html), &options, Deadline::after(None))
        .expect("a skeleton parses")
}

fn attrs_pattern(tag: &str, class: &str, level: u32) -> Pattern {
    Pattern {
        ty: ElementType::Attrs {
            tag: tag.into(),
            attrs: vec![("class".into(), class.into())],
        },
        level,
        exact: None,
    }
}

#[test]
fn the_skeleton_keeps_the_head_and_each_region_in_its_ancestors() {
    let html = "<!DOCTYPE html><html lang=de><head><title>T</title>\
        <script>var a = '<p>';</script><style>p {}</style><!-- c -->\
        <script type=application/ld+json>{\"@type\":\"NewsArticle\"}</script>\
        <meta property=og:title content=O></head>\
        <body class=page><nav>menu</nav><div id=main><table><tr><td>\
        <div class=story><p>one</div><p>between</p><div class=story>two</div>\
        </td></tr></table></div><div class=side><div class=story>three</div></div>\
        <footer>f</footer></body></html>";
    let story = attrs_pattern("div", "story", 6);
    let pass = follow(html, &[&story], &DomOptions::default()).expect("followed");
    let skeleton = pass.skeleton(html);
    assert_eq!(
        skeleton,
        "<!DOCTYPE html><html lang=de><head><title>T</title>\
        <script type=application/ld+json>{\"@type\":\"NewsArticle\"}</script>\
        <meta property=og:title content=O></head><body class=page>\
        <div id=main><table><tbody><tr><td><div class=story><p>one</div>\
        <div class=story>two</div>"
    );
    let doc = skeleton_doc(&pass, html, &DomOptions::default());
    assert_eq!(doc.title(), "T");
    assert_eq!(doc.meta("og:title"), Some("O"));
    assert_eq!(doc.json_ld(), ["{\"@type\":\"NewsArticle\"}"]);
    assert_eq!(doc.lang(), Some("de"));
    let full = Document::parse(html, &DomOptions::default());
    assert_eq!(selected(&doc, &story), selected(&full, &story));
    assert_eq!(selected(&doc, &story), "one two");
    // Another pattern's regions join them, in document order; one inside
    // a region is in it already.
    let side = attrs_pattern("div", "side", 2);
    let inner = attrs_pattern("div", "story", 3);
    let pass = follow(html, &[&story, &side, &inner], &DomOptions::default()).expect("followed");
    let doc = skeleton_doc(&pass, html, &DomOptions::default());
    for pattern in [&story, &side, &inner] {
        assert_eq!(selected(&doc, pattern), selected(&full, pattern));
    }
    assert!(pass.skeleton(html).ends_with(
        "<div class=story>two</div></td></tr></tbody></table></div>\
         <div class=side><div class=story>three</div></div>"
    ));
}

#[test]
fn the_skeleton_holds_what_metadata_reads_and_keeps_its_named_ancestors() {
    let options = run_options();
    let comments = "<li>a reader's comment, long enough to weigh</li>".repeat(40);
    let html = format!(
        "<html><head><title>A headline</title></head><body>\
         <div class=wrap><h1>A headline</h1><nav>home</nav>\
         <p class=byline>By <span itemprop=author>Ann Smith</span>, \
         <time datetime=2024-05-01>May 1</time></p>\
         <script type=application/ld+json>{{\"@type\":\"NewsArticle\"}}</script>\
         <div class=story><p>The story, told at some length.</p></div></div>\
         <div id=comments><h3>Comments</h3><ol>{comments}</ol></div>\
         <div class=footer>links</div></body></html>"
    );
    let story = attrs_pattern("div", "story", 3);
    let pass = follow(&html, &[&story], &options).expect("followed");
    let skeleton = pass.skeleton(&html);
    // The heading, the byline's marked author and time, the JSON-LD; not
    // the menu, the comments' list or the footer.
    for kept in [
        "<h1>A headline</h1>",
        "itemprop=author",
        "<time",
        "ld+json",
        "<h3>",
    ] {
        assert!(skeleton.contains(kept), "{kept}: {skeleton}");
    }
    for left in ["<nav>", "<ol>", "links"] {
        assert!(!skeleton.contains(left), "{left}: {skeleton}");
    }
    // `#comments` holds most of the page's text, so the tree keeps it; in
    // the skeleton it holds a heading alone, and is marked kept.
    assert!(skeleton.contains(&format!("<div id=comments {}>", canopy_dom::KEPT_MARK)));
    let doc = skeleton_doc(&pass, &html, &options);
    assert!((0..doc.len()).any(|n| doc.tag(n) == "h3"));
    let full = Document::parse(&html, &options);
    assert_eq!(metadata(&doc, &story), metadata(&full, &story));
    assert!(metadata(&doc, &story).starts_with("Some(\"A headline\")"));
    assert!(metadata(&doc, &story).contains("authors: [\"Ann Smith\"], date: Some(\"2024-05-01\")"));
    // A page that writes the mark itself takes the full parse.
    let marked = html.replace(
        "<div class=wrap>",
        &format!("<div class=wrap {}>", canopy_dom::KEPT_MARK),
    );
    assert_eq!(
        follow(&marked, &[&story], &options).err(),
        Some(crate::Unfollowed::KeptMark)
    );
}

// The skeleton against the whole page, on every page of the corpora the
// pass follows: for patterns typed from the tree (the element with
// identity attributes holding the most text short of the whole page, and
// the untyped one so holding the most), the wrapper selects the same text
// on the skeleton as on the page.

/// Patterns of elements holding the most text, short of four fifths of
/// the body's: one with identity attributes, one without.
fn patterns_of(doc: &Document) -> Vec<Pattern> {
    let body = doc.body();
    let levels = levels(doc);
    let text = |n: NodeId| -> usize { doc.text_nodes(n).map(|(_, t)| t.trim().len()).sum() };
    let whole = text(body);
    let mut best: [Option<(usize, NodeId)>; 2] = [None, None];
    for n in body + 1..doc.node(body).end {
        if doc.element(n).is_none() {
            continue;
        }
        let held = text(n);
        if held * 5 >= whole * 4 {
            continue;
        }
        let ty = ElementType::of(doc, n, Untyped::Anchored);
        let slot = usize::from(!matches!(ty, ElementType::Attrs { .. }));
        if best[slot].is_none_or(|(t, _)| held > t) {
            best[slot] = Some((held, n));
        }
    }
    best.iter()
        .flatten()
        .map(|&(_, n)| Pattern {
            ty: ElementType::of(doc, n, Untyped::Anchored),
            level: levels[n],
            exact: None,
        })
        .collect()
}

/// On every corpus page the pass follows, two patterns typed from the
/// page select on its skeleton the text they select on the page, cleaned
/// to the same text (told the page's own host, `Pass::hrefs`; a selection
/// that a label ends reads the links after it on the whole page), and
/// the page's metadata less a dateline.
#[test]
fn a_wrapper_selects_on_the_skeleton_what_it_selects_on_the_page() {
    let options = run_options();
    let (mut pages, mut checked, mut differ) = (0, 0, Vec::new());
    let mut read_past = 0;
    let mut unfollowed = std::collections::BTreeMap::new();
    for corpus in ["big9", "dragnet", "trafbench"] {
        for path in corpus_pages(corpus) {
            let bytes = std::fs::read(&path).expect("a page");
            let html = String::from_utf8_lossy(&bytes);
            pages += 1;
            let full = Document::parse_within(&html, &options, Deadline::after(None))
                .expect("a corpus page parses");
            let patterns = patterns_of(&full);
            let refs: Vec<&Pattern> = patterns.iter().collect();
            let pass = match follow(&html, &refs, &options) {
                Ok(pass) => pass,
                Err(why) => {
                    *unfollowed.entry(why.as_str()).or_insert(0) += 1;
                    continue;
                }
            };
            checked += 1;
            let doc = skeleton_doc(&pass, &html, &options);
            for pattern in &patterns {
                let (want, got) = (selected(&full, pattern), selected(&doc, pattern));
                if want != got {
                    differ.push(format!(
                        "{}: {pattern:?}: page {} chars, skeleton {}",
                        path.display(),
                        want.len(),
                        got.len()
                    ));
                }
                let ((want, _), (got, past)) = (cleaned(&full, pattern), cleaned(&doc, pattern));
                if past {
                    // A label ends the selection: the links after it are
                    // read on the whole page.
                    read_past += 1;
                } else if want != got {
                    differ.push(format!(
                        "{}: {pattern:?}: cleaned\n  page     {want:?}\n  skeleton {got:?}",
                        path.display(),
                    ));
                }
                let (want, got) = (metadata(&full, pattern), metadata(&doc, pattern));
                if want != got {
                    differ.push(format!(
                        "{}: {pattern:?}: metadata\n  page     {want}\n  skeleton {got}",
                        path.display(),
                    ));
                }
            }
        }
    }
    eprintln!(
        "{pages} pages, {checked} followed; differ: {}; cleaned past the selection: {read_past}; not followed {unfollowed:?}",
        differ.len()
    );
    for d in &differ {
        eprintln!("{d}");
    }
    assert!(differ.is_empty(), "{} differ", differ.len());
    assert!(checked * 20 >= pages * 19, "{checked} of {pages} followed");
}
