//! Text density: the main content as the densest region of the page's list
//! of text strings split at structural tags (Arias, Deschacht, Moens,
//! *Language Independent Content Extraction from Web Pages*;
//! `papers/text-density-graph.md`).
//!
//! # The method (paper §4)
//!
//! 1. Walk the page in document order, building a list of strings
//!    `L = s_1 … s_n`: text is appended to the last string; every
//!    structural markup tag extends `L` with one empty string.
//! 2. `s_max` is the longest string, of length `maxL`; `cutoffL = maxL · c1`.
//! 3. `R = {s_max}`; a string `s_i` joins `R` iff `length(s_i) > cutoffL`
//!    and some `s_j ∈ R` has `|i − j| < c2`; repeat until nothing joins.
//! 4. The output `T` is the concatenation of `s_l … s_r`, the leftmost to
//!    the rightmost string of `R` (inclusive, shorter strings between them
//!    included). `c1 = 0.333`, `c2 = 4`.
//!
//! # Choices where the paper leaves room
//!
//! * **The HTML string list from the DOM.** The paper runs a robust HTML
//!   parser that "visits every node in the HTML structure" (§4). We walk the
//!   canopy-dom nodes in document order (html5ever's best-effort repair of
//!   broken HTML, as a browser's): a text node's text is appended to the
//!   last string, an element node with a structural tag extends `L`.
//!   Scripts, styles and comments are dropped (as §4 asks), and so are
//!   hidden elements (canopy-dom drops them).
//! * **Start tags only**: a structural element is one node, so it extends
//!   `L` once, where it starts; its end does not start a new string (text
//!   after `</p>` inside a `div` goes on in the paragraph's string). The
//!   other reading, a new string at end tags too ([`Tags::StartAndEnd`],
//!   kept for measurement), doubles the distance between consecutive
//!   paragraphs, so `c2 = 4` bridges one short paragraph instead of two; it
//!   scores far lower (mean bigram F1 big9 0.463 vs 0.651, dragnet 0.470
//!   vs 0.584).
//! * **What is walked**: the `body` element's subtree (the `head`'s `title`
//!   is not page content); `L` starts with one empty string, so text before
//!   the first structural tag has a string to go to.
//! * **Structural tags** (§4: "include, but are not limited to `<p>`,
//!   `<table>`, `<BR>`, `<div>`, `<h1>`, `<h2>`, … and `<li>`", footnote 1
//!   points to XHTML 1.0): the block-level and line-breaking elements of
//!   [`canopy_dom::is_block`] (which holds every tag the paper lists and
//!   none of the ones it ignores: `b`, `a`, `font`).
//! * **length(s)**: characters of the string after collapsing whitespace
//!   runs to one space and trimming (HTML renders whitespace so; the paper
//!   ignores spaces when scoring, §5.3).
//! * **Ties for `s_max`**: the first longest string.
//! * **Output**: [`density`] returns the minimal set of nodes covering the
//!   text of `s_l … s_r`: the highest nodes all of whose non-whitespace text
//!   nodes lie in that range, in document order. Their `inner_text` joined
//!   by newlines is `T` up to line breaks. A string may start or end inside
//!   an element (text after a nested block), so a covering node can be a
//!   bare text node. [`density_text`] returns `T` itself: the collapsed,
//!   non-empty strings `s_l … s_r` joined by newlines.
//! * **A page without text** (`maxL = 0`): no output.
//!
//! # Cost
//!
//! One forward walk to build `L`, one linear scan of `L`, one reverse pass
//! for the covering nodes: `O(N)`.

use canopy_dom::{collapse_whitespace, is_block, Document, NodeData, NodeId};

/// `c1`: the cutoff as a fraction of the longest string (§4).
pub const C1: f64 = 0.333;
/// `c2`: strings of `R` are less than `c2` positions apart (§4).
pub const C2: usize = 4;

/// The main content of a page by the text-density method: the minimal
/// nodes covering the densest region's strings, in document order. The
/// caller joins their `inner_text` with newlines.
pub fn density(doc: &Document) -> Vec<NodeId> {
    Analysis::new(doc).nodes
}

/// The text `T` of the densest region, as the paper outputs it: the
/// strings `s_l … s_r` (whitespace collapsed, empty ones left out) joined by
/// newlines. Empty when the page has no text.
pub fn density_text(doc: &Document) -> String {
    let a = Analysis::new(doc);
    let Some((l, r)) = a.region else {
        return String::new();
    };
    a.strings[l..=r]
        .iter()
        .map(|s| collapse_whitespace(s))
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Which structural markup tags extend the string list (module doc).
#[doc(hidden)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Tags {
    /// Start tags only: one new string per structural element (what
    /// [`density`] uses).
    StartOnly,
    /// Start and end tags (end tags of non-void structural elements too).
    StartAndEnd,
}

/// [`density`] with an explicit choice of the tags that split the list.
#[doc(hidden)]
pub fn density_with(doc: &Document, tags: Tags) -> Vec<NodeId> {
    Analysis::with(doc, tags).nodes
}

/// Whether a structural element has no end tag.
fn is_void(tag: &str) -> bool {
    matches!(tag, "br" | "hr")
}

/// The method's intermediate results.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) struct Analysis {
    /// `L`, raw (text as in the document).
    pub strings: Vec<String>,
    /// `length(s_i)`.
    pub lengths: Vec<usize>,
    /// First and last non-whitespace text node of each string.
    pub text_span: Vec<Option<(NodeId, NodeId)>>,
    /// Index of `s_max`.
    pub max: Option<usize>,
    /// Members of `R`, ascending.
    pub region_set: Vec<usize>,
    /// `(l, r)`.
    pub region: Option<(usize, usize)>,
    /// The covering nodes.
    pub nodes: Vec<NodeId>,
}

impl Analysis {
    pub(crate) fn new(doc: &Document) -> Analysis {
        Self::with(doc, Tags::StartOnly)
    }

    pub(crate) fn with(doc: &Document, tags: Tags) -> Analysis {
        let base = doc.body();
        let end = doc.node(base).end;
        let mut a = Analysis {
            strings: vec![String::new()],
            lengths: Vec::new(),
            text_span: vec![None],
            max: None,
            region_set: Vec::new(),
            region: None,
            nodes: Vec::new(),
        };
        let new_string = |a: &mut Analysis| {
            a.strings.push(String::new());
            a.text_span.push(None);
        };

        // paper: §4 — the list L: text goes to the last string, a
        // structural tag (start or end) extends L with an empty string.
        let mut open: Vec<NodeId> = Vec::new(); // `end` of open structural elements
        for id in base + 1..end {
            while open.last().is_some_and(|&e| e <= id) {
                open.pop();
                new_string(&mut a);
            }
            match &doc.node(id).data {
                NodeData::Element(e) => {
                    if is_block(&e.tag) {
                        new_string(&mut a);
                        if tags == Tags::StartAndEnd && !is_void(&e.tag) {
                            open.push(doc.node(id).end);
                        }
                    }
                }
                NodeData::Text(_) => {
                    let t = doc.text(id).unwrap_or("");
                    let last = a.strings.len() - 1;
                    a.strings[last].push_str(t);
                    if !t.trim().is_empty() {
                        let span = &mut a.text_span[last];
                        *span = Some(span.map_or((id, id), |(first, _)| (first, id)));
                    }
                }
            }
        }
        for _ in open.drain(..) {
            new_string(&mut a);
        }
        a.lengths = a
            .strings
            .iter()
            .map(|s| collapse_whitespace(s).chars().count())
            .collect();

        // paper: §4 — s_max, cutoffL = maxL · c1.
        let mut max = 0;
        for (i, &len) in a.lengths.iter().enumerate() {
            if len > a.lengths[max] {
                max = i;
            }
        }
        let max_len = a.lengths[max];
        if max_len == 0 {
            return a;
        }
        a.max = Some(max);
        let cutoff = max_len as f64 * C1;
        let dense = |i: usize| a.lengths[i] as f64 > cutoff;

        // paper: §4 — grow R from s_max: s_i joins iff length > cutoffL and
        // |i − j| < c2 for some s_j ∈ R. The members of R are chained with
        // gaps < c2, so R grows only at its ends, and every dense string
        // between its ends is a member.
        let (mut l, mut r) = (max, max);
        while let Some(i) = (l.saturating_sub(C2 - 1)..l).find(|&i| dense(i)) {
            l = i;
        }
        while let Some(i) = (r + 1..(r + C2).min(a.lengths.len()))
            .rev()
            .find(|&i| dense(i))
        {
            r = i;
        }
        a.region_set = (l..=r).filter(|&i| i == max || dense(i)).collect();
        a.region = Some((l, r));

        // The minimal covering nodes of the text nodes of s_l … s_r.
        let spans = a.text_span[l..=r].iter().flatten();
        let (Some(&(first, _)), Some(&(_, last))) = (spans.clone().next(), spans.last()) else {
            return a;
        };
        a.nodes = cover(doc, first, last);
        a
    }
}

/// The highest nodes whose non-whitespace text nodes all lie in the node
/// range `first ..= last` (both non-whitespace text nodes), in document
/// order.
fn cover(doc: &Document, first: NodeId, last: NodeId) -> Vec<NodeId> {
    let base = doc.body();
    let end = doc.node(base).end;
    // First and last non-whitespace text node of each subtree.
    let mut span: Vec<Option<(NodeId, NodeId)>> = vec![None; end - base];
    for id in (base..end).rev() {
        let k = id - base;
        if doc.text(id).is_some_and(|t| !t.trim().is_empty()) {
            span[k] = Some((id, id));
        }
        if id == base {
            break;
        }
        if let (Some((f, l)), Some(p)) = (span[k], doc.node(id).parent) {
            let p = &mut span[p - base];
            *p = Some(p.map_or((f, l), |(pf, pl)| (pf.min(f), pl.max(l))));
        }
    }
    let inside = |id: NodeId| span[id - base].is_some_and(|(f, l)| f >= first && l <= last);
    let mut out = Vec::new();
    let mut id = first;
    while id <= last {
        if span[id - base].is_none() {
            id += 1;
            continue;
        }
        let mut x = id;
        while let Some(p) = doc.node(x).parent.filter(|&p| p >= base && inside(p)) {
            x = p;
        }
        out.push(x);
        id = doc.node(x).end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use canopy_dom::DomOptions;

    fn parse(html: &str) -> Document {
        Document::parse(html, &DomOptions::default())
    }

    fn find(doc: &Document, id: &str) -> NodeId {
        (0..doc.len())
            .find(|&n| doc.attr(n, "id") == Some(id))
            .unwrap_or_else(|| panic!("no #{id}"))
    }

    /// A small news-like page; `related` is what comes between the story
    /// and the related-links list.
    fn page(related: &str) -> (Document, [String; 4]) {
        let p = [
            "a".repeat(30),
            "b".repeat(60),
            "c".repeat(25),
            "d".repeat(50),
        ];
        let html = format!(
            "<body><div id=menu><a>Home</a> | <a>News</a></div>\
             <h1 id=title>A title here</h1>\
             <div id=story><p id=p1>{}</p><p id=p2>{}</p><p>short</p>\
             <p id=p3>{}</p><br><p id=p4>{} <b>bold</b></p></div>{related}\
             <ul id=rel><li>rel one</li><li>{}</li></ul>\
             <div>Footer</div></body>",
            p[0], p[1], p[2], p[3], p[0]
        );
        (parse(&html), p)
    }

    /// The list L and the selection, worked out by hand.
    #[test]
    fn hand_computed_page() {
        let (doc, p) = page("<h2>Related</h2>");
        let a = Analysis::new(&doc);
        // L (index: the structural start tag that opened the string):
        //  0 ""              (the initial string)
        //  1 "Home | News"   <div#menu>   (`a` is not structural)
        //  2 "A title here"  <h1>
        //  3 ""              <div#story>
        //  4 p1 (30)         <p>
        //  5 p2 (60)         <p>
        //  6 "short"         <p>
        //  7 p3 (25)         <p>
        //  8 ""              <br>
        //  9 p4 " bold" (55) <p>          (`b` is not structural)
        // 10 "Related"       <h2>
        // 11 ""              <ul>
        // 12 "rel one"       <li>
        // 13 p1-like (30)    <li>
        // 14 "Footer"        <div>
        assert_eq!(
            a.lengths,
            [0, 11, 12, 0, 30, 60, 5, 25, 0, 55, 7, 0, 7, 30, 6]
        );
        // maxL = 60 at 5; cutoffL = 60 · 0.333 = 19.98.
        // Left: 4 (30) is within 3 of 5 and joins; 1..3 (11, 12, 0) are short.
        // Right: 7 (25) is 2 from 5 and joins; 9 (55) is 2 from 7 and joins;
        // 13 (30) is 4 from 9: |i − j| < c2 = 4 fails, so it stays out.
        assert_eq!(a.max, Some(5));
        assert_eq!(a.region_set, vec![4, 5, 7, 9]);
        assert_eq!(a.region, Some((4, 9)));
        // The covering node of s_4 … s_9 is the story div.
        assert_eq!(a.nodes, vec![find(&doc, "story")]);
        assert_eq!(density(&doc), vec![find(&doc, "story")]);
        // T: the strings l..r, the short one and the empty `<br>` one
        // between them included (the empty one left out of the text).
        assert_eq!(
            density_text(&doc),
            format!("{}\n{}\nshort\n{}\n{} bold", p[0], p[1], p[2], p[3])
        );
    }

    /// Without the heading the related list's long item is 3 strings from
    /// p4 and chains on (|13 − 9| → |12 − 9| = 3 < c2): the region runs into
    /// the list, and the list is covered by its `ul`.
    #[test]
    fn region_chains_within_c2() {
        let (doc, _) = page("");
        let a = Analysis::new(&doc);
        assert_eq!(a.lengths, [0, 11, 12, 0, 30, 60, 5, 25, 0, 55, 0, 7, 30, 6]);
        assert_eq!(a.region_set, vec![4, 5, 7, 9, 12]);
        assert_eq!(a.nodes, vec![find(&doc, "story"), find(&doc, "rel")]);
    }

    /// Inline tags do not split strings; with end tags counted too (the
    /// alternative reading), text after a nested block is its own string,
    /// and its covering nodes are bare text and inline nodes.
    #[test]
    fn inline_tags_and_end_tags() {
        let long = "x".repeat(40);
        let doc = parse(&format!(
            "<body><div id=d><p>hi</p>{long} <a>and</a> <font>more</font></div></body>"
        ));
        let a = Analysis::new(&doc);
        // 0 "", 1 <div> "", 2 <p> "hi" + the text after </p> (2 + 49).
        assert_eq!(a.lengths, [0, 0, 51]);
        // All the page's text is in the region: the cover is `body`.
        assert_eq!(a.nodes, vec![doc.body()]);

        let a = Analysis::with(&doc, Tags::StartAndEnd);
        // 0 "", 1 <div>, 2 <p> "hi", 3 </p> "xxx… and more" (49), 4 </div>.
        assert_eq!(a.lengths, [0, 0, 2, 49, 0]);
        assert_eq!(a.region, Some((3, 3)));
        assert_eq!(a.nodes.len(), 3, "text, a, font");
        assert!(doc.text(a.nodes[0]).is_some_and(|s| s.starts_with('x')));
        assert_eq!(doc.tag(a.nodes[1]), "a");
        assert_eq!(doc.tag(a.nodes[2]), "font");
        assert_eq!(density_with(&doc, Tags::StartAndEnd), a.nodes);
    }

    #[test]
    fn empty_page_gives_nothing() {
        let doc = parse("<body><div> </div><img src=x></body>");
        assert!(density(&doc).is_empty());
        assert_eq!(density_text(&doc), "");
    }
}
