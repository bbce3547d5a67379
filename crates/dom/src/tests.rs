use super::*;

fn parse(html: &str) -> Document {
    Document::parse(html, &DomOptions::default())
}

/// The HTML of a dragnet corpus page (`../shared/corpora`, beside the
/// repository), decoded as the tests need it.
fn dragnet_html(id: &str) -> String {
    let path = format!(
        "{}/../../../shared/corpora/dragnet/html/dragnet-{id}.html",
        env!("CARGO_MANIFEST_DIR")
    );
    let bytes = std::fs::read(path).expect("the shared corpora must sit beside the repository");
    String::from_utf8_lossy(&bytes).into_owned()
}

#[test]
fn depth_first_order_and_dfs_numbers() {
    let doc = parse(
        "<html><head><title>T</title></head><body><div id=a><p>x</p><p>y</p></div></body></html>",
    );
    let tags: Vec<&str> = (0..doc.len())
        .map(|n| doc.tag(n))
        .filter(|t| !t.is_empty())
        .collect();
    assert_eq!(tags, ["html", "head", "title", "body", "div", "p", "p"]);
    let div = (0..doc.len()).find(|&n| doc.tag(n) == "div").unwrap();
    assert_eq!(doc.element(div).unwrap().dfs, 4);
    assert_eq!(doc.children(div).count(), 2);
    assert_eq!(doc.node(div).depth, 2);
    assert_eq!(doc.title(), "T");
    assert_eq!(
        doc.ancestors(div).map(|a| doc.tag(a)).collect::<Vec<_>>(),
        ["body", "html"]
    );
}

#[test]
fn drops_scripts_styles_comments_and_hidden() {
    let doc = parse(
        "<body><p>a<!-- c -->b</p><script>s()</script><style>p{}</style>\
         <div hidden>h</div><div style='display: none'>n</div><span aria-hidden=true>i</span>\
         <noscript>ns</noscript><template>t</template><p>c</p></body>",
    );
    assert_eq!(doc.inner_text(doc.body()), "ab\nc");
    // The comment's two halves are merged into one text node.
    let texts: Vec<&str> = doc.text_nodes(doc.root()).map(|(_, t)| t).collect();
    assert_eq!(texts, ["ab", "c"]);
}

#[test]
fn ruby_readings_are_not_text() {
    // NHK's easy-Japanese news prints each kanji word's reading above it.
    let doc = parse(concat!(
        "<body><p><ruby>子<rp>(</rp><rt>こ</rt><rp>)</rp></ruby>どもへの",
        "<ruby>虐待<rt>ぎゃくたい</rt></ruby></p></body>"
    ));
    assert_eq!(doc.inner_text(doc.body()), "子どもへの虐待");
}

#[test]
fn inner_text_separates_blocks_and_joins_inline() {
    let doc = parse("<body><h1>Title</h1><p>One <b>bold</b>\n word.</p><ul><li>a</li><li>b</li></ul>x<br>y</body>");
    assert_eq!(
        doc.inner_text(doc.body()),
        "Title\nOne bold word.\na\nb\nx\ny"
    );
}

#[test]
fn white_space_between_inline_elements_separates_their_words() {
    let doc = parse("<body><p><a>real estate agent</a> <a>Gary Gold</a>.</p>\n<p>x</p> </body>");
    assert_eq!(
        doc.inner_text(doc.body()),
        "real estate agent Gary Gold.\nx"
    );
}

/// On a real page: two links separated by a space in the source (zillow's
/// "Los Angeles real estate agent</a> <a>Gary Gold"), and a byline whose
/// parts sit in sibling spans separated by line breaks (poynter's
/// "by Andrew Beaujon Published Nov. 7, 2012"). Without the separating
/// white space the words ran together ("agentGary", "BeaujonPublishedNov.").
#[test]
fn real_pages_keep_the_space_between_inline_elements() {
    for (id, want) in [
        ("00281", "real estate agent Gary Gold."),
        ("00444", "by Andrew Beaujon Published Nov. 7, 2012 9:08 am"),
    ] {
        let doc = parse(&dragnet_html(id));
        let text = doc.inner_text(doc.body());
        assert!(
            text.contains(want),
            "dragnet-{id}: {want:?} not in the text"
        );
    }
}

#[test]
fn depth_is_capped_by_flattening() {
    let html = "<div>".repeat(2000) + "deep";
    let doc = Document::parse(
        &html,
        &DomOptions {
            max_depth: 100,
            ..Default::default()
        },
    );
    assert!(doc.truncated);
    assert!(doc.nodes().iter().all(|n| n.depth <= 100));
    assert_eq!(doc.inner_text(doc.body()), "deep");
}

/// A page whose paragraphs each re-create every formatting element left
/// open before them (300 `<font>`s of distinct attributes, so the HTML
/// standard's limit of three identical ones does not apply) builds 300
/// nodes a paragraph: the builder stops at `max_nodes`, keeping the start.
#[test]
fn reconstructed_formatting_elements_stop_at_the_node_budget() {
    let open: String = (0..300).map(|k| format!("<font data-k={k}>")).collect();
    let paragraphs: String = (0..5000).map(|k| format!("<p>para{k}")).collect();
    let html = format!("<p>{open}{paragraphs}");
    let max_nodes = 100_000;
    let doc = Document::parse(
        &html,
        &DomOptions {
            max_nodes,
            ..Default::default()
        },
    );
    assert!(doc.truncated);
    assert!(
        doc.nodes().len() <= 2 * max_nodes,
        "{} nodes",
        doc.nodes().len()
    );
    let text = doc.inner_text(doc.body());
    assert!(text.starts_with("para0\npara1\n"), "{:?}", text.get(..40));
    assert!(!text.contains("para4999"));
}

/// Every formatting start tag is compared with each open one of its name,
/// copying both attribute lists: 500 open `<b>`s make each later `<b>` cost
/// 500 comparisons. The page is cut once that work passes its budget.
#[test]
fn formatting_work_is_cut_at_its_budget() {
    let open: String = (0..500).map(|k| format!("<b a={k}>")).collect();
    let closed: String = (0..20_000).map(|k| format!("<b c={k}>w{k}</b>")).collect();
    let doc = Document::parse(&format!("<p>{open}{closed}"), &DomOptions::default());
    assert!(doc.truncated);
    let text = doc.inner_text(doc.body());
    assert!(text.starts_with("w0w1w2"), "{:?}", text.get(..20));
    assert!(!text.contains("w19999"));
}

/// Formatting elements opened and closed, however many, cost no budget:
/// a long page of links and bold words is parsed whole.
#[test]
fn closed_formatting_elements_spend_no_budget() {
    let body: String = (0..50_000)
        .map(|k| format!("<p><a href=/{k}><b class=x>w{k}</b></a> <i>t</i>"))
        .collect();
    let doc = Document::parse(&body, &DomOptions::default());
    assert!(!doc.truncated);
    assert!(doc.inner_text(doc.body()).ends_with("w49999 t"));
}

#[test]
fn size_is_capped_on_a_char_boundary() {
    let html = format!("<p>{}</p>", "é".repeat(100));
    let doc = Document::parse(
        &html,
        &DomOptions {
            max_bytes: 10,
            ..Default::default()
        },
    );
    assert!(doc.truncated);
    assert_eq!(doc.inner_text(doc.body()), "ééé");
}

#[test]
fn lang_and_meta() {
    let doc =
        parse("<html lang='en-GB'><head><meta property='og:title' content='OG'></head></html>");
    assert_eq!(doc.lang(), Some("en-GB"));
    assert_eq!(doc.meta("og:title"), Some("OG"));
    assert_eq!(doc.meta("description"), None);
    let doc = parse(
        "<html><head><meta http-equiv='Content-Type' content='text/html'>\
         <META HTTP-EQUIV='Content-language' content='de-ch'></head></html>",
    );
    assert_eq!(doc.http_equiv("content-language"), Some("de-ch"));
    assert_eq!(doc.http_equiv("refresh"), None);
    assert_eq!(doc.meta("content-language"), None);
}

#[test]
fn real_page_parses_with_title_and_body_text() {
    let doc = parse(&dragnet_html("00001"));
    assert!(
        doc.title().to_lowercase().contains("earhart"),
        "{}",
        doc.title()
    );
    let text = doc.inner_text(doc.body());
    assert!(text.contains("Earhart"));
    assert!(!text.contains("function("), "scripts must be dropped");
    // Subtree ranges nest properly.
    for (i, n) in doc.nodes().iter().enumerate() {
        if let Some(p) = n.parent {
            assert!(doc.contains(p, i));
            assert_eq!(doc.node(p).depth + 1, n.depth);
        }
    }
}

#[test]
fn id_and_class_filters_drop_subtrees() {
    let html = "<body><div class='entry'>text</div><ol class='commentlist'><li>c</li></ol><div id=Comments-3>x</div></body>";
    let options = DomOptions {
        drop_id_class: vec!["comment".into()],
        ..Default::default()
    };
    let doc = Document::parse(html, &options);
    assert_eq!(doc.inner_text(doc.body()), "text");
    assert_eq!(parse(html).inner_text(parse(html).body()), "text\nc\nx");
}

/// An author's bio box (cnet's `editorBio`: "Josh Lowensohn joined CNET in
/// 2006 and covers everything Apple…") goes with the `bio` name of the
/// default drop list; the gold has the byline, not the bio.
#[test]
fn real_page_drops_the_author_bio_box() {
    let html = dragnet_html("00015");
    let bio = "joined CNET in 2006";
    let plain = parse(&html);
    assert!(plain.inner_text(plain.body()).contains(bio));
    let options = DomOptions {
        drop_id_class: vec!["bio".into()],
        ..Default::default()
    };
    let doc = Document::parse(&html, &options);
    let text = doc.inner_text(doc.body());
    assert!(!text.contains(bio), "the bio box must go");
    assert!(text.contains("earnings"), "the story stays");
}

#[test]
fn a_class_token_naming_the_posts_topic_drops_nothing() {
    // WordPress tags the article's container with its taxonomy: a post
    // tagged "promotion" is not a promotion box.
    let html = "<body><div class='post tag-promotion category-comments'><p>Story.</p></div>\
                <div class='promo_holder'><p>Ad.</p></div><div id=promo-2>Ad.</div></body>";
    let options = DomOptions {
        drop_id_class: vec!["promo".into(), "comment".into()],
        ..Default::default()
    };
    let doc = Document::parse(html, &options);
    assert_eq!(doc.inner_text(doc.body()), "Story.");
}

/// The markup's own word for the article outweighs a word found inside a
/// name: `promo` is in the drop list, and a box of a promotion's name that
/// the markup does not call the article still goes.
#[test]
fn the_element_the_markup_calls_the_article_is_never_dropped_by_name() {
    let html = "<body><div class='teasers'><p>Other story one.</p><p>Other story two.</p>\
                <p>Other story three, and more teasers than the article has text.</p></div>\
                <article class='node promo-story'><p>Story.</p></article>\
                <div role=main class='promo-main'><p>Main.</p></div>\
                <div class='promo-box'><p>Ad.</p></div></body>";
    let options = DomOptions {
        drop_id_class: vec!["promo".into()],
        ..Default::default()
    };
    let doc = Document::parse(html, &options);
    let text = doc.inner_text(doc.body());
    assert!(text.contains("Story.") && text.contains("Main."), "{text}");
    assert!(!text.contains("Ad."), "{text}");
}

/// A CMS marks an article node promoted to its front page (Drupal 7's
/// `node-promoted` on a `div`, `node--promoted`, `is-promoted`): a state
/// of the post, not a promotion box, so it keeps its node; a box of
/// promoted posts still goes.
#[test]
fn a_class_token_naming_the_posts_state_drops_nothing() {
    let html = "<body><div id=node-205 class='node node-article node-promoted'><p>Story.</p></div>\
                <div class='node--promoted'><p>Two.</p></div><div class=is-Promoted><p>Three.</p></div>\
                <div class='promoted-posts'><p>Ad.</p></div><div class=promoted-comments>Hi</div></body>";
    let options = DomOptions {
        drop_id_class: vec!["promo".into(), "comment".into()],
        ..Default::default()
    };
    let doc = Document::parse(html, &options);
    assert_eq!(doc.inner_text(doc.body()), "Story.\nTwo.\nThree.");
    assert!(is_state_class("node-not-promoted") && !is_state_class("promoted-box"));
    assert!(!is_state_class("promoted\u{e9}") && !is_state_class("ed"));
}

#[test]
fn an_empty_comment_anchor_drops_the_flat_section_after_it() {
    // The layout of old blog engines: comments are paragraphs in the
    // article's own container, after a heading that holds the anchor.
    let html = "<body><div class=content><h3>Title</h3><p>Story.</p>\
                <p class=posted>Posted by K</p>\
                <h2><a id=\"comments\"></a>Comments</h2><p>First!</p><p>Posted by: X</p></div>\
                <div id=sidebar>About</div></body>";
    let options = DomOptions {
        drop_id_class: vec!["comment".into()],
        section_anchors: vec!["comment".into()],
        ..Default::default()
    };
    let doc = Document::parse(html, &options);
    assert_eq!(
        doc.inner_text(doc.body()),
        "Title\nStory.\nPosted by K\nAbout"
    );
    // `<a name=...>` is an anchor too; a link to the comments or an icon
    // with a comment class is not, and drops only itself.
    let named = "<body><p>Story.</p><a name=comments></a><p>Reader</p></body>";
    let doc = Document::parse(named, &options);
    assert_eq!(doc.inner_text(doc.body()), "Story.");
    let linked = "<body><p>Story <a href=#comments id=comments-link></a>.</p><p>More.</p>\
                  <span class=comment-icon></span><p>End.</p></body>";
    let doc = Document::parse(linked, &options);
    assert_eq!(doc.inner_text(doc.body()), "Story .\nMore.\nEnd.");
    // Anchors after the first, in its section or inside what it drops,
    // drop nothing more and nothing less.
    let many = "<body><div><p>A</p><a name=comments></a><p>B</p><a name=comment-1></a>\
                <div><p>C</p><a name=comment-2></a><p>D</p></div></div><p>E</p>\
                <a name=comment-3></a><p>F</p></body>";
    let doc = Document::parse(many, &options);
    assert_eq!(doc.inner_text(doc.body()), "A\nE");
}

#[test]
fn root_and_body_are_never_dropped() {
    let html = "<html style='display:none'><body class='single comments-open' hidden><p>text</p></body></html>";
    let options = DomOptions {
        drop_id_class: vec!["comment".into()],
        ..Default::default()
    };
    let doc = Document::parse(html, &options);
    assert_eq!(doc.tag(doc.body()), "body");
    assert_eq!(doc.inner_text(doc.body()), "text");
}

#[test]
fn inner_text_where_skips_subtrees_and_keeps_lines_apart() {
    let doc = parse("<body><p>one <span>two</span> three</p><ul><li>x</li></ul><p>four</p></body>");
    let skip_ul = |n: NodeId| doc.tag(n) != "ul" && doc.tag(n) != "span";
    assert_eq!(
        doc.inner_text_where(doc.body(), &skip_ul),
        "one three\nfour"
    );
}

/// Regression: every attribute name was compared with all the earlier
/// ones of its tag (html5ever's tokenizer), and with all of the element's
/// when a second `<body>` adds its own (the sink): 200,000 attributes took
/// 8 s, a second `<body>` of 200,000 on a first of 200,000 took 40 s, and a
/// 16 MB page of them would run for hours. Each is now a set lookup.
#[test]
fn tags_of_many_attributes_parse_in_linear_time() {
    let n = 400_000;
    let names = |prefix: &str| -> String { (0..n).map(|i| format!(" {prefix}{i}=v")).collect() };
    let html = format!(
        "<body{}><div{} d5=dup a1=x>text</div><body{} a3=dup></body>",
        names("a"),
        names("d"),
        names("b")
    );
    let start = std::time::Instant::now();
    let doc = parse(&html);
    let took = start.elapsed();
    assert!(took.as_secs_f64() < 10.0, "took {took:?}");
    let div = (0..doc.len()).find(|&n| doc.tag(n) == "div").unwrap();
    // A duplicate is dropped, the first of its name kept.
    assert_eq!(doc.attrs(div).count(), n + 1);
    assert_eq!(doc.attr(div, "d5"), Some("v"));
    assert_eq!(doc.attr(div, "a1"), Some("x"));
    // The second `<body>` adds the names the first lacks, and no other.
    assert_eq!(doc.attrs(doc.body()).count(), 2 * n);
    assert_eq!(doc.attr(doc.body(), "a3"), Some("v"));
    assert_eq!(doc.attr(doc.body(), "b9"), Some("v"));
    assert_eq!(doc.inner_text(doc.body()), "text");
}

/// Regression: 100,000 nested `<div>`s took 36 s in html5ever's tree
/// builder (its open-element scans are quadratic in depth). The parse is
/// now cut once the work beyond `max_depth` passes a budget.
#[test]
fn very_deep_nesting_is_cut_in_bounded_time() {
    let n = 100_000;
    let html = format!(
        "<html><body><p>before</p>{}deep{}</body></html>",
        "<div>".repeat(n),
        "</div>".repeat(n)
    );
    let start = std::time::Instant::now();
    let doc = parse(&html);
    let took = start.elapsed();
    assert!(took.as_secs_f64() < 10.0, "took {took:?}");
    assert!(doc.truncated);
    assert!(doc.inner_text(doc.body()).starts_with("before"));
    assert!(doc.nodes().iter().all(|n| n.depth <= 512));
    // Just past the cap but a million elements there: cut too (this took
    // 8 s, each `<p>` scanning the 600 open `<div>`s).
    let html = format!(
        "<body><p>before</p>{}{}</body>",
        "<div>".repeat(600),
        "<p>x</p>".repeat(1_000_000)
    );
    let start = std::time::Instant::now();
    let doc = parse(&html);
    assert!(
        start.elapsed().as_secs_f64() < 10.0,
        "took {:?}",
        start.elapsed()
    );
    assert!(doc.truncated);
    assert!(doc.inner_text(doc.body()).starts_with("before\nx\nx"));
    // Nesting just past the cap is flattened, not cut: the text survives.
    let html = format!(
        "<body>{}deep text{}</body>",
        "<div>".repeat(600),
        "</div>".repeat(600)
    );
    let doc = parse(&html);
    assert!(doc.truncated);
    assert_eq!(doc.inner_text(doc.body()), "deep text");
}

/// Feeding html5ever in slices gives the same tree as one piece, also when
/// a slice boundary falls inside a multi-byte character or a tag.
#[test]
fn sliced_parse_matches_whole_parse() {
    let para = "<p class='x'>Grüße, ünïcödé — text</p>\n";
    let html = format!("<html><body>{}</body></html>", para.repeat(2000));
    let doc = parse(&html);
    assert!(!doc.truncated);
    let text = doc.inner_text(doc.body());
    assert_eq!(text.lines().count(), 2000);
    assert!(text.lines().all(|l| l == "Grüße, ünïcödé — text"));
}

#[test]
fn parse_within_stops_at_the_deadline_and_is_parse_without_one() {
    use std::time::Duration;
    let page = format!("<html><body>{}</body></html>", "<p>x</p>".repeat(5000));
    let opts = DomOptions::default();
    let whole = Document::parse_within(&page, &opts, Deadline::none()).unwrap();
    assert_eq!(whole.len(), Document::parse(&page, &opts).len());
    assert!(whole.len() > 10_000);
    // An hour is plenty: the same document.
    let hour = Deadline::after(Some(Duration::from_secs(3600)));
    assert_eq!(
        Document::parse_within(&page, &opts, hour).unwrap().len(),
        whole.len()
    );
    // A budget already spent: the builder notices at its CHECK_EVERY-th
    // node, and the parse stops at the end of that 16 KiB slice.
    let over =
        Document::parse_within(&page, &opts, Deadline::after(Some(Duration::ZERO))).unwrap_err();
    assert_eq!(over.bytes_parsed, 16 << 10, "{over:?}");
    assert!(over.nodes < whole.len() / 2, "{over:?}");
    assert!(over.to_string().contains("time budget exceeded"));
}

/// JSON-LD scripts are kept aside as metadata; other scripts are not, and
/// neither leaves text in the tree.
#[test]
fn json_ld_scripts_are_kept_aside() {
    let doc = parse(
        r#"<head><script type="application/ld+json">{"@type":"NewsArticle"}</script>
        <script>var x = 1;</script></head><body><p>Text</p>
        <script type="Application/LD+JSON"> [1] </script></body>"#,
    );
    assert_eq!(doc.json_ld(), &[r#"{"@type":"NewsArticle"}"#, " [1] "]);
    assert_eq!(doc.inner_text(doc.root()), "Text");
}

/// The drop list's name test without an allocation answers as the
/// lower-cased `contains` it replaces, ASCII or not.
#[test]
fn contains_any_is_lowercase_contains() {
    let names: Vec<String> = ["comment", "promo", "Footer", "ß", "", "İ"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    // Longer than the stack buffer the ASCII path lower-cases into.
    let long = format!("{}COMMENTS", "x".repeat(70));
    for name in [
        long.as_str(),
        "Comments-3",
        "COMMENT",
        "commen",
        "x-promo_holder",
        "footer",
        "FOOTER",
        "Straße",
        "STRASSE",
        "İd",
        "i̇",
        "",
        "c",
        "pro mo",
        "promo",
        "xpromo",
    ] {
        for d in &names {
            let slow = name.to_lowercase().contains(d.as_str());
            assert_eq!(
                contains_any(name, std::slice::from_ref(d)),
                slow,
                "{name} / {d}"
            );
        }
    }
}

/// The ASCII path of `collapse_whitespace` gives what splitting on
/// `char::is_whitespace` gives.
#[test]
fn collapse_whitespace_ascii_is_split_whitespace() {
    for s in [
        "",
        "  ",
        "a",
        " a  b\t\nc\x0b\x0cd\re ",
        "\x1cx\x1f y\x7f",
        "non\u{a0}ascii \u{2003} é ",
    ] {
        let words: Vec<&str> = s.split_whitespace().collect();
        assert_eq!(collapse_whitespace(s), words.join(" "), "{s:?}");
    }
}

/// A document read back from its bytes is the document written.
fn round_trip(doc: &Document) -> Document {
    let mut bytes = Vec::new();
    doc.encode(&mut bytes);
    Document::decode(&bytes).expect("the bytes just encoded")
}

#[test]
fn encoded_real_pages_decode_to_the_same_document() {
    let dir = format!(
        "{}/../../../shared/corpora/dragnet/html",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("the shared corpora must sit beside the repository")
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for path in files.iter().step_by(25) {
        let html = String::from_utf8_lossy(&std::fs::read(path).unwrap()).into_owned();
        let doc = parse(&html);
        assert!(doc.len() > 50, "{}", path.display());
        assert_is_a_depth_first_tree(&doc);
        let back = round_trip(&doc);
        assert_eq!(back, doc, "{}", path.display());
        // The accessors read the same page.
        assert_eq!(back.inner_text(back.body()), doc.inner_text(doc.body()));
        assert_eq!(back.title(), doc.title());
    }
}

#[test]
fn encoding_keeps_json_ld_the_truncated_flag_and_unknown_names() {
    let options = DomOptions {
        max_bytes: 200,
        ..DomOptions::default()
    };
    let html = r#"<html lang="fr"><head><script type="application/ld+json">{"@type":"NewsArticle"}</script></head>
        <body><my-widget data-x="é">Café</my-widget><p class=a>un deux trois quatre cinq six sept huit neuf dix onze</p></body>"#;
    let doc = Document::parse(html, &options);
    assert!(doc.truncated);
    assert_eq!(doc.json_ld().len(), 1);
    let back = round_trip(&doc);
    assert_eq!(back, doc);
    assert!(back.truncated);
    assert_eq!(back.lang(), Some("fr"));
    let widget = (0..back.len())
        .find(|&n| back.tag(n) == "my-widget")
        .unwrap();
    assert_eq!(back.attr(widget, "data-x"), Some("é"));
}

#[test]
fn bytes_that_are_not_a_document_are_an_error() {
    let doc = parse("<p id=a>one <b>two</b></p><p>three</p>");
    let mut bytes = Vec::new();
    doc.encode(&mut bytes);
    // Every prefix is cut short, and so is the whole with a byte more.
    for n in 0..bytes.len() {
        assert!(
            Document::decode(&bytes[..n]).is_err(),
            "prefix of {n} bytes"
        );
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(Document::decode(&longer).is_err());
    // A flipped byte anywhere either decodes to a tree laid out as a
    // parsed one is, which the accessors can walk, or is an error: never a
    // panic.
    let mut accepted = 0;
    for i in 0..bytes.len() {
        for flip in [0x01, 0x80, 0xff] {
            let mut damaged = bytes.clone();
            damaged[i] ^= flip;
            if let Ok(doc) = Document::decode(&damaged) {
                accepted += 1;
                assert_is_a_depth_first_tree(&doc);
                let _ = doc.inner_text(doc.body());
                for n in 0..doc.len() {
                    let _ = doc.attrs(n).count();
                    let _ = doc.ancestors(n).count();
                }
            }
        }
    }
    // Some flips only change a text byte or a name: those still decode.
    assert!(accepted > 0);
}

/// What the accessors rely on: each node inside its parent's subtree, one
/// level below it, and a subtree made of its children's.
fn assert_is_a_depth_first_tree(doc: &Document) {
    assert!(!doc.is_empty() && doc.body() < doc.len());
    assert_eq!(doc.node(0).parent, None);
    assert_eq!(doc.node(0).end, doc.len());
    let mut dfs = 0;
    for n in 0..doc.len() {
        let node = doc.node(n);
        assert!(node.end > n && node.end <= doc.len());
        if let Some(p) = node.parent {
            let parent = doc.node(p);
            assert!(p < n && n < parent.end && node.end <= parent.end);
            assert_eq!(node.depth, parent.depth + 1);
        } else {
            assert_eq!(n, 0);
        }
        match &node.data {
            NodeData::Element(e) => {
                assert_eq!(e.dfs, dfs);
                dfs += 1;
            }
            NodeData::Text(_) => assert_eq!(node.end, n + 1),
        }
        let sizes: usize = doc.children(n).map(|c| doc.node(c).end - c).sum();
        assert_eq!(sizes + 1, node.end - n);
    }
}

/// A `<font>` closed while its last paragraph is still open: the parser's
/// adoption agency moves that paragraph after the `<font>`, with a copy of
/// the `<font>` inside it, and `adopted_rest` finds the copy. The same
/// shape written by an author is no copy, and its text stays apart.
#[test]
fn the_rest_the_adoption_agency_moves_out_of_a_formatting_element_is_found() {
    let doc = parse(
        "<body><div><font size=2><p>One.<p>Two.</font><br>After.</div>\
         <div><font size=2><p>Three.</p></font><p><font size=2>Four.</font></p></div></body>",
    );
    let fonts: Vec<NodeId> = (0..doc.len()).filter(|&n| doc.tag(n) == "font").collect();
    let [font, copy, written, inner] = fonts[..] else {
        panic!("{fonts:?}");
    };
    assert_eq!(doc.inner_text(font), "One.");
    assert_eq!(doc.tag(doc.node(copy).parent.unwrap()), "p");
    assert_eq!(doc.inner_text(copy), "Two.");
    assert_eq!(doc.adopted_rest(font), Some(copy));
    assert_eq!(doc.inner_text(written), "Three.");
    assert_eq!(doc.adopted_rest(written), None, "{}", doc.inner_text(inner));
    assert_eq!(doc.adopted_rest(copy), None);
    // The copies survive the document's bytes.
    assert_eq!(round_trip(&doc).adopted_rest(font), Some(copy));
}

/// A post of `n` paragraphs of about 120 bytes each.
fn post(n: usize) -> String {
    (0..n)
        .map(|i| format!("<p>Paragraph {i} of the post, which goes on about the night crawl and the pages it brings back every morning.</p>"))
        .collect()
}

#[test]
fn a_script_rendered_container_shows_its_noscript_fallback() {
    // Blogger: the post body is a template that a script renders, and the
    // same post is the noscript beside it. The region shows nothing else.
    let html = format!(
        "<body><div id=nav>Home About</div><div class=post-body>\
         <script type='text/template'>{p}</script><noscript>{p}</noscript></div></body>",
        p = post(6)
    );
    let doc = parse(&html);
    let text = doc.inner_text(doc.body());
    assert!(
        text.starts_with("Home About\nParagraph 0 of the post"),
        "{text}"
    );
    assert!(text.contains("Paragraph 5 of the post"), "{text}");
    // Its paragraphs are elements, under the noscript, in place.
    let ps: Vec<NodeId> = (0..doc.len()).filter(|&id| doc.tag(id) == "p").collect();
    assert_eq!(ps.len(), 6);
    let noscript = doc.node(ps[0]).parent.unwrap();
    assert_eq!(doc.tag(noscript), "noscript");
    assert_eq!(
        doc.attr(doc.node(noscript).parent.unwrap(), "class"),
        Some("post-body")
    );
}

#[test]
fn a_noscript_that_is_no_region_s_content_stays_dropped() {
    let cases = [
        // A notice that scripts are off: no prose.
        "<body><div id=app><noscript><p>You need to enable JavaScript to run this app.</p>\
         <p>Please turn it on.</p></noscript></div><p>Other text.</p></body>"
            .to_string(),
        // Prose, but beside text the region shows anyway.
        format!(
            "<body><div>Shown text<noscript>{}</noscript></div></body>",
            post(6)
        ),
        // Prose in one paragraph only.
        format!(
            "<body><div><noscript><p>{}</p></noscript></div><p>Other text.</p></body>",
            "word ".repeat(200)
        ),
        // A tracking pixel.
        "<body><div><noscript><img src=/pixel.gif></noscript></div><p>Other text.</p></body>"
            .to_string(),
        // In the head (scripting on: raw text there too).
        format!(
            "<head><noscript>{}</noscript></head><body><p>Other text.</p></body>",
            post(6)
        ),
    ];
    for html in cases {
        let doc = parse(&html);
        let text = doc.inner_text(doc.root());
        assert!(
            !text.contains("Paragraph") && !text.contains("enable"),
            "{html}: {text}"
        );
        assert!((0..doc.len()).all(|id| doc.tag(id) != "noscript"), "{html}");
    }
}

#[test]
fn a_fallback_nested_past_the_cap_is_flattened_there() {
    let options = DomOptions {
        max_depth: 32,
        ..DomOptions::default()
    };
    let deep = format!("{}{}deep", post(6), "<div>".repeat(100));
    let html = format!("<body><div><noscript>{deep}</noscript></div></body>");
    let doc = Document::parse(&html, &options);
    let text = doc.inner_text(doc.body());
    assert!(
        text.contains("Paragraph 5 of the post") && text.ends_with("deep"),
        "{text}"
    );
    // Capped where the same markup in place of the noscript is.
    let direct = Document::parse(
        &format!("<body><div><div>{deep}</div></div></body>"),
        &options,
    );
    let deepest = |d: &Document| d.nodes().iter().map(|n| n.depth).max();
    assert_eq!(deepest(&doc), deepest(&direct));
    assert!(deepest(&doc) < Some(32));
    assert!(doc.truncated, "flattened");
}

#[test]
fn raw_text_elements_at_the_depth_cap_give_no_text() {
    // A script, a style, a JSON-LD script and a noscript where the depth
    // cap puts their text beside them: their code and markup are no page
    // text there either.
    let options = DomOptions {
        max_depth: 32,
        ..DomOptions::default()
    };
    let raw = "<script>var secretCode = 1;</script><style>.cls{color:red}</style>\
               <script type='application/ld+json'>{\"@type\":\"NewsArticle\"}</script>\
               <noscript><p>fallback</p></noscript>";
    for depth in [29, 30, 31, 32, 40] {
        let html = format!(
            "<body>{}<p>Words.</p>{raw}<p>More.</p></body>",
            "<div>".repeat(depth)
        );
        let doc = Document::parse(&html, &options);
        let text = doc.inner_text(doc.body());
        assert_eq!(text, "Words.\nMore.", "{depth} divs");
    }
}

/// A part of a page (a region a streaming pass found) parsed alone: the
/// drop list's guard weighs a named block against the page's text when
/// `page_text` gives it, not against the part's.
#[test]
fn a_region_parsed_alone_weighs_named_blocks_against_the_page() {
    let region =
        "<div class=story>A story of twenty bytes<div class=promo>Subscribe now</div></div>";
    let options = DomOptions {
        drop_id_class: vec!["promo".into()],
        ..Default::default()
    };
    // Alone, the region's promo holds a third of its text: dropped.
    let alone = Document::parse(region, &options);
    assert_eq!(alone.inner_text(alone.body()), "A story of twenty bytes");
    // The page's text, counted the same way, is what the guard weighs.
    assert_eq!(page_text_bytes(region, &options), Ok(23 + 13));
    // Told the page holds only 20 bytes, the promo holds most of it: kept.
    let small_page = DomOptions {
        page_text: Some(20),
        ..options
    };
    let kept = Document::parse(region, &small_page);
    assert!(kept.inner_text(kept.body()).contains("Subscribe now"));
    // A part's element marked kept (an ancestor of a region, which the
    // whole page's tree keeps) stays whatever the drop list names; the
    // mark means nothing in a whole page.
    let marked = format!("<div class=promo {KEPT_MARK}>Subscribe</div>{region}");
    let in_part = Document::parse(
        &marked,
        &DomOptions {
            page_text: Some(1_000),
            ..small_page.clone()
        },
    );
    assert!(in_part
        .inner_text(in_part.body())
        .starts_with("Subscribe\n"));
    let in_page = Document::parse(
        &marked,
        &DomOptions {
            page_text: None,
            ..small_page
        },
    );
    assert!(!in_page.inner_text(in_page.body()).contains("Subscribe"));
}

#[test]
fn the_pages_text_bytes_leave_out_unrendered_elements_and_trim_each_text() {
    let options = DomOptions::default();
    let html =
        "<title> T </title><p> a &amp; b </p><script>var x;</script><p hidden>hid</p><!-- c -->";
    // "T", "a & b", "hid": a hidden element's text counts, a script's not.
    assert_eq!(page_text_bytes(html, &options), Ok(1 + 5 + 3));
}
