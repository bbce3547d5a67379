//! Unit tests of the WLR method on hand-built pages from the paper.

use canopy_dom::{Document, DomOptions, NodeId};

use crate::wlr::{count_words_chars, Analysis, Relevance};
use crate::{wlr, wlr_with, WlrVariant};

fn parse(html: &str) -> Document {
    Document::parse(html, &DomOptions::default())
}

/// The first element with this tag.
fn find(doc: &Document, tag: &str) -> NodeId {
    (0..doc.len())
        .find(|&n| doc.tag(n) == tag)
        .unwrap_or_else(|| panic!("no <{tag}>"))
}

/// The first element with this `id` attribute.
fn by_id(doc: &Document, id: &str) -> NodeId {
    (0..doc.len())
        .find(|&n| doc.attr(n, "id") == Some(id))
        .unwrap_or_else(|| panic!("no #{id}"))
}

fn analyse(doc: &Document, variant: WlrVariant) -> Analysis {
    Analysis::new(doc, variant, Relevance::RelativeToMax)
}

const EXAMPLE_4_3: &str =
    "<p><em>Gisela Molina</em>, author of the book <strong>Ethical Life</strong>,\n\
     will be interviewed tomorrow in <a href=\"http://www.bbc.com\">BBC</a>.</p>";

/// Paper §4, Example 4.3: the formatted sentence is a single leaf.
#[test]
fn example_4_3_formatted_sentence_is_one_leaf() {
    let doc = parse(&format!("<body>{EXAMPLE_4_3}</body>"));
    let a = analyse(&doc, WlrVariant::Wlr);
    let p = find(&doc, "p");
    // Six children: em, text, strong, text, a, "." (no word: not content).
    assert_eq!(doc.children(p).count(), 6);
    // Gisela Molina | author of the book | Ethical Life |
    // will be interviewed tomorrow in | BBC
    assert_eq!(a.words[a.k(p)], 2 + 4 + 2 + 5 + 1);
    assert_eq!(a.leaves[a.k(p)], 1, "the sentence must count as one leaf");
    assert_eq!(a.ratio[a.k(p)], 14.0);
    // The "." text node has no word, so it is not a content node.
    let dot = doc.children(p).last().unwrap();
    assert_eq!(doc.text(dot), Some("."));
    assert!(!a.content[a.k(dot)]);
    // With nodes instead of leaves (WNR) the same p has 9 content nodes:
    // p, em, #text, #text, strong, #text, #text, a, #text.
    let n = analyse(&doc, WlrVariant::Wnr);
    assert_eq!(n.nodes[n.k(p)], 9);
    assert_eq!(n.ratio[n.k(p)], 14.0 / 9.0);
}

/// Fig. 5: runs of joinable children count one leaf each; other children
/// count their own leaves; a positioned `div` is not joinable.
#[test]
fn figure_5_leaves_function() {
    let doc = parse(
        "<body><div id=a>one two<h2>Title here</h2>three <b>four</b> five</div>\
         <div id=b><div style=\"top:0; Position : Absolute\">abc def</div><p>ghi</p></div>\
         <div id=c><div>abc def</div><p>ghi</p></div>\
         <div id=d><ul><li>x1</li><li>x2</li><li>x3</li></ul><p>end</p></div></body>",
    );
    let a = analyse(&doc, WlrVariant::Wlr);
    let l = |id: &str| a.leaves[a.k(by_id(&doc, id))];
    // run(one two) + h2 + run(three four five)
    assert_eq!(l("a"), 3);
    assert_eq!(a.words[a.k(by_id(&doc, "a"))], 7);
    // positioned div (1 leaf, not joined) + run(p)
    assert_eq!(l("b"), 2);
    // the same without position: one run of two joinable children
    assert_eq!(l("c"), 1);
    // ul (3 li, none joinable: 3 leaves) + run(p)
    assert_eq!(l("d"), 4);
    // body: a, b, d are not joinable (l > 1); c is a run of its own.
    assert_eq!(a.leaves[0], 3 + 2 + 1 + 4);
}

/// Def. 4.1: notValid subtrees and the notWords fix-point are not content;
/// Def. 4.5: the threshold is √(max · root).
#[test]
fn content_nodes_and_threshold() {
    let doc = parse(
        "<body><div id=logo><a href=/><img src=x.png></a> (.) </div>\
         <select><option>Many option words here</option></select>\
         <div id=main>alpha beta gamma delta</div><p>x</p></body>",
    );
    let a = analyse(&doc, WlrVariant::Wlr);
    let logo = by_id(&doc, "logo");
    for n in logo..doc.node(logo).end {
        assert!(!a.content[a.k(n)], "node {n} ({}) is content", doc.tag(n));
    }
    // canopy-dom drops `select` widgets before WLR sees the page.
    assert!((0..doc.len()).all(|n| doc.tag(n) != "option"));
    // body: the two remaining divs/p are joinable and l = 1: one run.
    assert_eq!(a.words[0], 5);
    assert_eq!(a.leaves[0], 1);
    let max = 5.0f64; // body itself (5 words / 1 leaf)
    assert_eq!(a.threshold, (max * a.ratio[0]).sqrt());
}

/// Example 4.8 (Figures 2–4): on the DBLP page the best node is the
/// publications `table`, not `body`. The page is rebuilt from Figure 2's
/// code with the rows shown in Figure 3.
#[test]
fn example_4_8_dblp_best_node_is_the_publications_table() {
    let rows: &[(&str, &str, &str)] = &[
        ("1997", "138", "Gerard Salton, <a href=a>Amit Singhal</a>, <a href=b>Mandar Mitra</a>, <a href=c>Chris Buckley</a>: Automatic Text Structuring and Summarization. <a href=d><i>Inf. Process. Manage.</i> 33</a>(2): 193-207 (1997)"),
        ("", "137", "Gerard Salton: A Blueprint for Automatic Indexing. <a href=d><i>SIGIR Forum</i> 31</a>(1): 23-36 (1997)"),
        ("", "136", "Gerard Salton: Letter to Members of ACM/SIGIR. <a href=d><i>SIGIR Forum</i> 31</a>(1): 37-38 (1997)"),
        ("", "135", "Gerard Salton: Expert Systems and Information Retrieval. <a href=d><i>SIGIR Forum</i> 31</a>(1): 39-42 (1997)"),
        ("", "134", "Gerard Salton: Publications. <a href=d><i>SIGIR Forum</i> 31</a>(1): 43-56 (1997)"),
        ("1996", "133", "Gerard Salton, <a href=a>Amit Singhal</a>, <a href=c>Chris Buckley</a>, <a href=b>Mandar Mitra</a>: Automatic Text Decomposition Using Text Segments and Text Themes. <a href=d><i>HyperText</i> 1996</a>: 53-65"),
        ("", "132", "Gerard Salton, <a href=e>James Allan</a>, <a href=a>Amit Singhal</a>: Automatic Text Decomposition and Structuring. <a href=d><i>Inf. Process. Manage.</i> 32</a>(2): 127-138 (1996)"),
        ("", "131", "<a href=a>Amit Singhal</a>, Gerard Salton, <a href=b>Mandar Mitra</a>, <a href=c>Chris Buckley</a>: Document Length Normalization. <a href=d><i>Inf. Process. Manage.</i> 32</a>(5): 619-633 (1996)"),
        ("1995", "130", "<a href=c>Chris Buckley</a>, Gerard Salton: Optimization of Relevance Feedback Weights. <a href=d><i>SIGIR</i> 1995</a>: 351-357"),
        ("", "129", "<a href=c>Chris Buckley</a>, <a href=e>James Allan</a>, Gerard Salton: Automatic Routing and Retrieval Using Smart: TREC-2. <a href=d><i>Inf. Process. Manage.</i> 31</a>(3): 315-326 (1995)"),
    ];
    // Figure 3 shows entries 138 to 129 of Salton's 138 publications; the
    // page lists them all, so the shown rows are repeated down to entry 1.
    let mut table = String::from("<table id=pubs border=1>");
    for (i, (year, _, cell)) in rows.iter().cycle().take(138).enumerate() {
        let num = 138 - i;
        if i < rows.len() && !year.is_empty() {
            table.push_str(&format!(
                "<tr><th></th><th colspan=2 bgcolor=#FFFFCC>{year}</th></tr>"
            ));
        }
        table.push_str(&format!(
            "<tr><td align=right class=J>{num}</td><td valign=top><a href=x><img src=i.png></a></td><td>{cell}</td></tr>"
        ));
    }
    table.push_str("</table>");
    let html = format!(
        "<!DOCTYPE html><html><head><title>DBLP: Gerard Salton</title></head><body>\
         <div class=llogo><a href=../../index.html><img src=logo.png></a></div>\
         <div>uni-trier.de Computer Science Bibliography</div>\
         <hr><h1 key=homepages/s/GerardSalton>Gerard Salton <a href=x>(.)</a></h1>\
         <p>List of publications from the <a href=y>DBLP Bibliography Server</a> - <a href=z>FAQ</a></p>\
         <p>{table}</p>\
         <h2><a name=coauthors href=w>Coauthor Index</a></h2>\
         <p><table border=1><tr><td>(.)</td></tr></table></p></body></html>"
    );
    let doc = parse(&html);
    let a = analyse(&doc, WlrVariant::Wlr);
    let pubs = by_id(&doc, "pubs");
    // Each publication cell is one formatted sentence: one leaf.
    let cells: Vec<NodeId> = doc
        .descendants(pubs)
        .filter(|&n| doc.tag(n) == "td" && doc.children(n).count() > 1)
        .collect();
    assert_eq!(cells.len(), 138);
    for &td in &cells {
        assert_eq!(a.leaves[a.k(td)], 1);
    }
    // The initial nodes are publication cells (or their text), as the dotted
    // `td` of Figure 4: nothing outside the table reaches the threshold.
    let initial: Vec<NodeId> = (0..a.content.len())
        .filter(|&k| a.content[k] && a.ratio[k] >= a.threshold)
        .map(|k| k + a.base)
        .collect();
    assert!(initial.iter().filter(|n| cells.contains(n)).count() >= 100);
    assert!(initial.iter().all(|&n| doc.contains(pubs, n)));
    // The best node is the table's body: html5ever (as Firefox) inserts a
    // `tbody`, the table's only child, with the same text; with the relative
    // multiplier (≤ 1) a single-child wrapper never beats its child.
    let tbody = doc.children(pubs).next().unwrap();
    assert_eq!(doc.tag(tbody), "tbody");
    assert_eq!(doc.children(pubs).count(), 1);
    assert_eq!(wlr(&doc, WlrVariant::Wlr), vec![tbody]);
    assert_eq!(wlr(&doc, WlrVariant::Clr), vec![tbody]);
    assert_eq!(doc.inner_text(tbody), doc.inner_text(pubs));
}

/// The relevance as printed (`R = WLR · max(W, ΣR)`) always selects the
/// root, since WLR ≥ 1 for every content node: the reason for the
/// relative multiplier (module doc).
#[test]
fn literal_relevance_selects_the_root() {
    let html = format!(
        "<body><ul><li><a href=/>Home</a></li><li><a href=/n>News</a></li><li><a href=/s>Sport</a></li></ul>\
         <div id=story><h1>Headline of the story</h1>{EXAMPLE_4_3}<p>{}</p><p>{}</p></div>\
         <div id=foot><a href=/c>Contact</a> | <a href=/t>Terms of use</a></div></body>",
        "word ".repeat(40),
        "text ".repeat(25)
    );
    let doc = parse(&html);
    assert_eq!(wlr(&doc, WlrVariant::Wlr), vec![by_id(&doc, "story")]);
    assert_eq!(wlr(&doc, WlrVariant::Clr), vec![by_id(&doc, "story")]);
    assert_eq!(
        wlr_with(&doc, WlrVariant::Wlr, Relevance::Literal),
        vec![doc.body()]
    );
    let a = Analysis::new(&doc, WlrVariant::Wlr, Relevance::Literal);
    for k in 0..a.content.len() {
        if a.content[k] {
            assert!(a.ratio[k] >= 1.0);
            assert!(a.relevance[k] <= a.relevance[0]);
        }
    }
}

/// §5: nodes-based ratios (CNR, WNR) pick a node in the middle of the main
/// content (here one paragraph), leaves-based ones (CLR, WLR) its ancestor.
#[test]
fn nodes_ratios_select_inside_the_content() {
    let html = format!(
        "<body><ul id=nav><li><a href=/>Home</a></li><li><a href=/a>About</a></li></ul>\
         <div id=story><p>{}</p><p id=long>{}</p><p>{}</p><p>{}</p></div></body>",
        "short text here ".repeat(4),
        "a much longer paragraph ".repeat(20),
        "more words ".repeat(10),
        "end of it ".repeat(6)
    );
    let doc = parse(&html);
    let story = by_id(&doc, "story");
    let long = by_id(&doc, "long");
    assert_eq!(wlr(&doc, WlrVariant::Wlr), vec![story]);
    assert_eq!(wlr(&doc, WlrVariant::Clr), vec![story]);
    assert_eq!(wlr(&doc, WlrVariant::Wnr), vec![long]);
    assert_eq!(wlr(&doc, WlrVariant::Cnr), vec![long]);
}

#[test]
fn page_without_words_gives_nothing() {
    let doc = parse("<body><div><img src=a.png></div> | </body>");
    for v in WlrVariant::ALL {
        assert!(wlr(&doc, v).is_empty());
    }
}

#[test]
fn words_and_chars() {
    assert_eq!(count_words_chars("don't  stop"), (3, 9));
    assert_eq!(count_words_chars(" (.) | "), (0, 4));
    assert_eq!(count_words_chars("日本語のテキスト abc"), (9, 11));
    assert_eq!(count_words_chars("Ünïcödé 2024-11"), (3, 14));
}

#[test]
fn variant_names() {
    for v in WlrVariant::ALL {
        assert_eq!(v.name().parse::<WlrVariant>(), Ok(v));
        assert_eq!(v.to_string(), v.name());
    }
    assert_eq!(" CLR ".parse::<WlrVariant>(), Ok(WlrVariant::Clr));
    assert!("wlrx".parse::<WlrVariant>().is_err());
    assert!("".parse::<WlrVariant>().is_err());
}
