//! The page-level extractor on real pages of the shared corpora, one test
//! per class of failure it was built against, and its parts on small pages.
//!
//! trafbench's pages carry their annotators' snippets: `with` snippets
//! must be in the article, `without` snippets must not (trafilatura's
//! evaluation rule, whitespace normalised).

use canopy_dom::{collapse_whitespace, Document, DomOptions};

use super::*;
use crate::{clean_selection, CleanOptions, Residue};

/// The shipped prior, as the pipeline loads it.
fn shipped_prior() -> Prior {
    let counts = PriorCounts::from_tsv(include_str!("../../../../configs/prior.tsv")).unwrap();
    Prior::from_counts(&counts)
}

/// The pipeline's default drop list (`configs/default.toml`, `[dom]`).
fn dom_options() -> DomOptions {
    DomOptions {
        drop_id_class: ["comment", "disqus", "footer", "menu", "promo", "bio"]
            .map(String::from)
            .to_vec(),
        section_anchors: ["comment", "disqus"].map(String::from).to_vec(),
        ..DomOptions::default()
    }
}

/// A corpus page's article as the pipeline's page-level path makes it:
/// the heading its title confirms, the shipped prior, the default cleaning
/// (no template residue: a single page has no siblings); white space
/// collapsed.
fn article(corpus: &str, id: &str) -> String {
    article_of(&page_html(corpus, id), true)
}

/// A corpus page's HTML, decoded as UTF-8.
fn page_html(corpus: &str, id: &str) -> String {
    let path = canopy_test_support::corpora().join(format!("{corpus}/html/{id}.html"));
    String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned()
}

/// [`article`] of a page's HTML; the heading confirmed by `og:title` too
/// when `og` is set, else by `<title>` alone.
fn article_of(html: &str, og: bool) -> String {
    let doc = Document::parse(html, &dom_options());
    let title = doc.title();
    let og_title = doc
        .meta("og:title")
        .filter(|_| og)
        .unwrap_or(&title)
        .to_string();
    let heading = canopy_metadata::page_heading(&doc, &[&og_title, &title]);
    let prior = shipped_prior();
    let selection = page(
        &doc,
        &PageContext {
            heading,
            prior: &prior,
        },
    );
    text_of(&doc, &selection, &fallback_cleaning())
}

/// The pipeline's cleaning of a page-level selection: the defaults but
/// template residue (a single page has no siblings to find it with).
fn fallback_cleaning() -> CleanOptions {
    CleanOptions {
        residue: false,
        ..CleanOptions::default()
    }
}

/// A trafbench page's `with` and `without` snippets, white space collapsed.
fn snippets(id: &str) -> (Vec<String>, Vec<String>) {
    let path = canopy_test_support::corpora().join("trafbench/snippets.jsonl");
    let line = canopy_test_support::jsonl(&path)
        .into_iter()
        .find(|s| s["id"] == id)
        .unwrap();
    let list = |key: &str| -> Vec<String> {
        line[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| collapse_whitespace(s.as_str().unwrap()))
            .collect()
    };
    (list("with"), list("without"))
}

/// Every `with` snippet of each page is in its article.
fn assert_finds_the_article(ids: &[&str]) {
    for id in ids {
        let text = article("trafbench", id);
        for snippet in snippets(id).0 {
            assert!(
                text.contains(&snippet),
                "{id}: {snippet:?} missing from {text}"
            );
        }
    }
}

/// ...and no `without` snippet.
fn assert_finds_only_the_article(ids: &[&str]) {
    assert_finds_the_article(ids);
    for id in ids {
        let text = article("trafbench", id);
        for snippet in snippets(id).1 {
            assert!(!text.contains(&snippet), "{id}: {snippet:?} kept in {text}");
        }
    }
}

/// Class 1: the heading's container holds the headline and a standfirst,
/// the body lies in a sibling. The body is worth far more than the header
/// box, and the head joins it.
#[test]
fn the_body_beside_the_header_box_is_the_article() {
    assert_finds_the_article(&[
        "trafbench-00085",
        "trafbench-00091",
        "trafbench-00142",
        "trafbench-00159",
    ]);
}

/// Class 2: a block denser than a short article elsewhere on the page: a
/// cookie notice before the heading, a blog's sidebar of widgets after
/// it. The article starts at its heading and is nearer to it.
#[test]
fn a_denser_block_away_from_the_heading_is_not_the_article() {
    assert_finds_only_the_article(&["trafbench-00107", "trafbench-00014", "trafbench-00049"]);
    for (id, article_text, sidebar) in [
        (
            "dragnet-00263",
            "No matter how long I stare at this",
            "Paul Overton is a prolific blogger",
        ),
        (
            "dragnet-00187",
            "Despite making over $2 billion at the box office",
            "Hansel & Gretel Red Band Trailer",
        ),
    ] {
        let text = article("dragnet", id);
        assert!(text.contains(article_text), "{id}: {text}");
        assert!(!text.contains(sidebar), "{id}: {text}");
    }
}

/// Class 3: the content column's names contain a drop-list word
/// (`above-footer`, a menu script's `mmenuwrapper` around the page, a
/// CMS's `node--promoted` article): the DOM keeps an element holding most
/// of the page's text, whatever it is called.
#[test]
fn a_content_column_named_like_boilerplate_stays() {
    assert_finds_the_article(&[
        "trafbench-00188",
        "trafbench-00365",
        "trafbench-00402",
        "trafbench-00457",
    ]);
}

/// Class 4: boilerplate inside the article's container: related posts and
/// their label, share bars, a newsletter box, teasers, bylines.
#[test]
fn boilerplate_inside_the_container_goes() {
    assert_finds_only_the_article(&[
        "trafbench-00182",
        "trafbench-00189",
        "trafbench-00212",
        "trafbench-00307",
        "trafbench-00343",
        "trafbench-00489",
    ]);
}

/// Class 5: paragraphs outside the chosen element: the standfirst in the
/// article's head, sections in sibling elements.
#[test]
fn the_standfirst_and_sibling_sections_join() {
    assert_finds_only_the_article(&["trafbench-00101", "trafbench-00176"]);
}

/// Class 5: a subtitle heading closes the article's head and its body
/// starts the next root: the heading heads that body, not nothing.
#[test]
fn a_heading_at_the_end_of_the_head_heads_the_body() {
    assert_finds_the_article(&["trafbench-00052", "trafbench-00160", "trafbench-00473"]);
}

/// Class 5: the standfirst in the article's header box, a level below
/// where the heading's branch and the body's meet (the headline in a
/// breadcrumb or a page title block, the lead beside the body in the
/// article element).
#[test]
fn the_lead_in_the_articles_header_box_joins() {
    assert_finds_the_article(&[
        "trafbench-00320",
        "trafbench-00354",
        "trafbench-00440",
        "trafbench-00478",
    ]);
}

/// Classes 1/2: a page builder's layout named with the prior's role
/// words (Drupal's views and panes, recipe tabs, `widget`s) holds the
/// article: a named box holding a seventh of the page's prose is not a
/// box.
#[test]
fn a_layout_named_like_a_box_holds_the_article() {
    assert_finds_the_article(&["trafbench-00078", "trafbench-00301", "trafbench-00386"]);
}

/// Class 4: a sidebar column or a box of other content beside a
/// container of several paragraphs does not join it.
#[test]
fn a_box_beside_the_article_stays_out() {
    assert_finds_only_the_article(&["trafbench-00011", "trafbench-00257", "trafbench-00291"]);
}

/// Class 4: a box whose link text outweighs its prose (a "read also"
/// promotion, a download list, a share line) goes, between paragraphs
/// too.
#[test]
fn a_box_of_links_goes_wherever_it_stands() {
    assert_finds_only_the_article(&[
        "trafbench-00134",
        "trafbench-00413",
        "trafbench-00449",
        "trafbench-00484",
    ]);
}

/// Class 3: the drop list's `promo` inside a CMS's `node--promoted`
/// class named the article element itself; the markup's `<article>`
/// outweighs the name (`canopy_dom`'s drop guard), and Drupal 7's
/// `node-promoted` on a `div` says the post's state, not a box's role.
#[test]
fn an_article_named_like_a_promotion_is_kept() {
    assert_finds_the_article(&["trafbench-00383"]);
    assert_finds_only_the_article(&["trafbench-00292"]);
}

/// Class 4: a bold paragraph titling a box of links ("Read also:")
/// goes with the links; a bold line that ends the article or heads a
/// step of it stays.
#[test]
fn a_bold_label_of_links_goes_with_them() {
    assert_finds_only_the_article(&["trafbench-00351", "trafbench-00370"]);
    for (id, line) in [
        ("trafbench-00178", "Be there or be square!"),
        ("trafbench-00400", "Heißluft etwa 180 °C"),
    ] {
        let text = article("trafbench", id);
        assert!(text.contains(line), "{id}: {line:?} missing from {text}");
    }
}

/// Classes 1/2: a page builder's columns (`wp-block-column`), each a
/// small box named with the prior's role words, together hold the whole
/// article: boxes of one shape holding half of the page's prose are its
/// layout.
#[test]
fn boxes_of_one_name_holding_the_article_are_its_layout() {
    assert_finds_the_article(&["trafbench-00246"]);
}

/// Class 4: captions set beside their image without a `<figcaption>`
/// (`<div><img><span>Abbildung: …</span></div>`) go, as figure captions
/// do.
#[test]
fn a_caption_beside_its_image_goes() {
    assert_finds_only_the_article(&["trafbench-00341"]);
}

/// Class 4: a date on a line of its own beside an article written in
/// paragraphs is the page's metadata, in any language: figures alone, no
/// letter.
#[test]
fn a_line_of_figures_alone_goes() {
    let text = article("trafbench", "trafbench-00240");
    assert!(!text.contains("23.10.2018"), "{text}");
    assert!(text.contains("Im aktuellen Test wurden 18"), "{text}");
    // A line of figures goes; figures beside words stay.
    let para = "A paragraph of the article that runs on for a good while, long enough to count. ";
    let html = format!(
        "<body><div><p>23.10.2018</p><p>{p}{p}{p}{p}{p}{p}</p><p>Final score: 3:1</p><p>{p}{p}{p}{p}{p}{p}</p>\
         <p>15:29</p></div></body>",
        p = para
    );
    let doc = Document::parse(&html, &DomOptions::default());
    let prior = Prior::default();
    let selection = page(
        &doc,
        &PageContext {
            heading: None,
            prior: &prior,
        },
    );
    let text = text_of(&doc, &selection, &fallback_cleaning());
    assert!(text.contains("Final score: 3:1"), "{text}");
    assert!(
        !text.contains("23.10.2018") && !text.contains("15:29"),
        "{text}"
    );
}

/// A post body rendered by script (Blogger's `<script type="text/template">`)
/// with the same post in a `<noscript>` beside it: the fallback is the
/// article (`canopy_dom`'s `fallback`), with nothing of the page around it.
#[test]
fn a_post_rendered_by_script_is_read_from_its_noscript_fallback() {
    assert_finds_only_the_article(&["trafbench-00175"]);
}

/// Nothing depends on the page's language: Arabic, Chinese, Polish and
/// Italian pages.
#[test]
fn pages_in_other_languages_and_scripts() {
    assert_finds_the_article(&[
        "trafbench-00015",
        "trafbench-00040",
        "trafbench-00168",
        "trafbench-00030",
    ]);
}

fn parse(html: &str) -> Document {
    Document::parse(html, &DomOptions::default())
}

fn find(doc: &Document, id: &str) -> NodeId {
    (0..doc.len())
        .find(|&n| doc.attr(n, "id") == Some(id))
        .unwrap()
}

/// The selection's text, cleaned with `clean`, white space collapsed.
fn text_of(doc: &Document, selection: &PageSelection, clean: &CleanOptions) -> String {
    let text = clean_selection(
        doc,
        &selection.roots,
        &selection.pruned,
        &Residue::default(),
        clean,
    );
    collapse_whitespace(&text)
}

/// The page-level selection of `doc`, its first `<h1>` the heading.
fn select(doc: &Document, prior: &Prior) -> PageSelection {
    let heading = (0..doc.len()).find(|&n| doc.tag(n) == "h1");
    page(doc, &PageContext { heading, prior })
}

const PARAGRAPH: &str = "A paragraph of the story, long enough to be prose, with a clause or \
                         two, and a full stop at its end.";

#[test]
fn teasers_of_other_pages_are_not_the_article() {
    let teasers: String = (0..4)
        .map(|i| {
            format!(
                "<div class=item><a href=/p{i}>Another story's headline number {i}</a>\
                 <p>Its blurb, a sentence that says what the story is about.</p></div>"
            )
        })
        .collect();
    let html = format!(
        "<body><div id=main><h1>Title</h1><p>{PARAGRAPH}</p><p>{PARAGRAPH}</p>\
         <div id=more>{teasers}</div></div></body>"
    );
    let doc = parse(&html);
    let counts = crate::TextCounts::of(&doc);
    assert!(roles::is_teaser_list(&doc, find(&doc, "more"), &counts));
    assert!(!roles::is_teaser_list(&doc, find(&doc, "main"), &counts));
    let text = text_of(
        &doc,
        &select(&doc, &Prior::default()),
        &CleanOptions::none(),
    );
    assert!(text.contains("full stop"), "{text}");
    assert!(!text.contains("headline"), "{text}");
}

#[test]
fn loose_lines_and_orphan_labels_go_once_the_article_is_in_paragraphs() {
    let paragraphs = format!("<p>{PARAGRAPH}</p>").repeat(10);
    let html = format!(
        "<body><div id=post><h1>Title</h1><div>By A. Writer, 3 May</div>{paragraphs}\
         <h3>Related</h3><ul><li><a href=/a>Other</a></li><li><a href=/b>Another</a></li></ul>\
         </div></body>"
    );
    let doc = parse(&html);
    let prior = Prior::default();
    let text = text_of(&doc, &select(&doc, &prior), &fallback_cleaning());
    assert!(text.contains("full stop"), "{text}");
    // The byline is loose text beside the paragraphs; the list of links
    // goes by its link density, and then its label heads nothing.
    assert!(!text.contains("Writer"), "{text}");
    assert!(!text.contains("Related"), "{text}");
    // With one paragraph, loose text is kept: it may be the article.
    let short = format!(
        "<body><div id=post><h1>Title</h1><div>A line of loose text that is kept.</div>\
         <p>{PARAGRAPH}</p></div></body>"
    );
    let doc = parse(&short);
    let text = text_of(&doc, &select(&doc, &prior), &CleanOptions::none());
    assert!(text.contains("loose text that is kept"), "{text}");
}

#[test]
fn a_named_box_goes_at_the_articles_ends_not_between_its_paragraphs() {
    let mut counts = PriorCounts::default();
    for _ in 0..20 {
        let mut site = SiteEvidence::default();
        let doc = parse(
            "<body><div class=entry><p>Story text of the post.</p></div>\
             <div class=sharebox><p>Share it.</p></div></body>",
        );
        let entry = (0..doc.len())
            .find(|&n| doc.attr(n, "class") == Some("entry"))
            .unwrap();
        site.add_page(&doc, &[entry], &|_| true);
        counts.add(&site.counts());
    }
    let prior = Prior::from_counts(&counts);
    assert!(prior.is_role_word("sharebox") && !prior.is_role_word("entry"));
    let html = format!(
        "<body><div id=post><h1>Title</h1><p>{PARAGRAPH}</p>\
         <div class=sharebox id=middle><p>A figure in the middle.</p></div>\
         <p>{PARAGRAPH}</p><div class=sharebox id=end>Share this on the networks.</div>\
         </div></body>"
    );
    let doc = parse(&html);
    let selection = select(&doc, &prior);
    assert!(selection.pruned.contains(&find(&doc, "end")));
    assert!(!selection.pruned.contains(&find(&doc, "middle")));
    let text = text_of(&doc, &selection, &CleanOptions::none());
    assert!(
        text.contains("figure in the middle") && !text.contains("networks"),
        "{text}"
    );
}

#[test]
fn furniture_inside_a_wrappers_selection_goes() {
    // arstechnica.com's 2013 articles (big9) set "Further Reading" boxes
    // between their paragraphs as `<aside>`s: the markup's own word for a
    // box beside the main content. The element a wrapper selects holds
    // them; the article's paragraphs stay.
    let path = canopy_test_support::corpora().join("big9/html/big9-00116.html");
    let doc = Document::parse(
        &String::from_utf8_lossy(&std::fs::read(path).unwrap()),
        &dom_options(),
    );
    let body = (0..doc.len())
        .find(|&n| doc.attr(n, "class") == Some("article-content clearfix"))
        .unwrap();
    let furniture = furniture_within(&doc, &[body]);
    assert!(!furniture.is_empty());
    assert!(furniture.iter().all(|&n| doc.tag(n) == "aside"));
    let clean = |pruned: &[NodeId]| {
        collapse_whitespace(&clean_selection(
            &doc,
            &[body],
            pruned,
            &Residue::default(),
            &CleanOptions::default(),
        ))
    };
    assert!(clean(&[]).contains("Further Reading"));
    let text = clean(&furniture);
    assert!(!text.contains("Further Reading"), "{text}");
    assert!(text.contains("A brief history of Gran Turismo"), "{text}");
}

/// A script a page's language is rewritten in ([`shaped`]).
#[derive(Clone, Copy)]
enum Script {
    /// Chinese characters: a word of n letters becomes ⌈n ÷ 3⌉ ideographs,
    /// and the white space between two words goes.
    Han,
    /// Hangul: a word becomes ⌈n ÷ 2⌉ syllable blocks, and the words stay
    /// spaced, as Korean writes them.
    Hangul,
}

/// `html` as if its language were written in `script`: every word of its
/// text (a run of letters and digits) becomes characters of that script,
/// the same ones for the same word. Tags, attributes, entities, comments,
/// scripts and styles stay as they are.
fn shaped(html: &str, script: Script) -> String {
    let starts = |rest: &str, prefix: &str| {
        rest.get(..prefix.len())
            .is_some_and(|p| p.eq_ignore_ascii_case(prefix))
    };
    // The length of `rest` up to the end of the first `end` in it (ASCII
    // lowercasing keeps every byte's offset), or all of it.
    let through = |rest: &str, end: &str| {
        let lower = rest.to_ascii_lowercase();
        lower.find(end).map_or(rest.len(), |i| i + end.len())
    };
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(c) = rest.chars().next() {
        let opaque = if rest.starts_with("<!--") {
            through(rest, "-->")
        } else if starts(rest, "<script") {
            through(rest, "</script>")
        } else if starts(rest, "<style") {
            through(rest, "</style>")
        } else if c == '<' {
            rest.find('>').map_or(rest.len(), |i| i + 1)
        } else if c == '&' {
            rest.find(';').filter(|&i| i < 12).map_or(1, |i| i + 1)
        } else {
            0
        };
        let (kept, after) = rest.split_at(opaque);
        out.push_str(kept);
        let text_end = after.find(['<', '&']).unwrap_or(after.len());
        let (text, after) = after.split_at(text_end);
        out.push_str(&shaped_text(text, script));
        rest = after;
    }
    out
}

/// A text as [`shaped`] writes it.
fn shaped_text(text: &str, script: Script) -> String {
    let (ratio, first, size) = match script {
        Script::Han => (3, 0x4E00, 0x5000),
        Script::Hangul => (2, 0xAC00, 11172),
    };
    let mut out = String::new();
    let mut word = String::new();
    let mut space = String::new();
    let flush = |word: &mut String, space: &mut String, out: &mut String| {
        if word.is_empty() {
            return;
        }
        // White space between two words goes in Chinese.
        if matches!(script, Script::Hangul) || !out.ends_with(crate::is_cjk) {
            out.push_str(space);
        }
        space.clear();
        let mut h: u32 = 0x811c_9dc5;
        for b in word.to_lowercase().bytes() {
            h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
        }
        for i in 0..word.chars().count().div_ceil(ratio) as u32 {
            let k = h.rotate_left(7 * i).wrapping_add(i) % size;
            out.push(char::from_u32(first + k).unwrap());
        }
        word.clear();
    };
    for c in text.chars() {
        if c.is_alphanumeric() {
            word.push(c);
        } else {
            flush(&mut word, &mut space, &mut out);
            if c.is_whitespace() {
                space.push(c);
            } else {
                out.push_str(&space);
                space.clear();
                out.push(c);
            }
        }
    }
    flush(&mut word, &mut space, &mut out);
    out.push_str(&space);
    out
}

/// A page written in Chinese characters weighs what its translation in
/// letters does: each CJK character counts three letters
/// (`text_counts::CJK_CHAR_WEIGHT`). Counted as one, each page here,
/// rewritten by [`shaped`], lost `with` snippets its original's
/// article holds; now it keeps them all.
#[test]
fn a_page_in_chinese_characters_keeps_its_article() {
    keeps_its_snippets(
        Script::Han,
        &[
            "trafbench-00038",
            "trafbench-00096",
            "trafbench-00209",
            "trafbench-00240",
            "trafbench-00321",
            "trafbench-00331",
        ],
    );
}

/// The same in Hangul, whose syllable blocks count two letters each
/// (`text_counts::HANGUL_CHAR_WEIGHT`): counted as one, each page here
/// lost snippets.
#[test]
fn a_page_in_hangul_keeps_its_article() {
    keeps_its_snippets(
        Script::Hangul,
        &[
            "trafbench-00038",
            "trafbench-00053",
            "trafbench-00096",
            "trafbench-00209",
            "trafbench-00240",
            "trafbench-00321",
            "trafbench-00325",
            "trafbench-00330",
            "trafbench-00331",
        ],
    );
}

/// Asserts that each page, rewritten in `script`, keeps every `with`
/// snippet its original's article holds (white space aside).
fn keeps_its_snippets(script: Script, ids: &[&str]) {
    for id in ids {
        let html = page_html("trafbench", id);
        let original = article_of(&html, true);
        let rewritten: String = article_of(&shaped(&html, script), false)
            .split_whitespace()
            .collect();
        for snippet in snippets(id).0 {
            if !original.contains(&snippet) {
                continue;
            }
            let want: String = shaped_text(&snippet, script).split_whitespace().collect();
            assert!(
                rewritten.contains(&want),
                "{id}: {snippet:?} ({want}) missing from {rewritten}"
            );
        }
    }
}
