//! R4: page-level main content as the DOM nodes farthest from the centroid
//! of four standardised node features (Alarte and Silva, *Page-level main
//! content extraction from heterogeneous webpages*;
//! `papers/r4-euclidean-dom-features.md`).
//!
//! # The method (paper §3)
//!
//! 1. **BODY depth rule** (§3.1, criterion 3): if the page's depth below
//!    `body` is less than the number of `body` children (both counted in
//!    elements of criterion 2), the main content is the union of the
//!    children of `body`, and the method stops.
//! 2. **Rated nodes** (§3.1, criteria 1–2): the element nodes below `body`
//!    that have a child and whose tag is not one of `a`, `nav`, `hr`,
//!    `span`, `em`, `body`, `script`, `header`, `h1`–`h5`, `br`, `iframe`.
//! 3. **Four ratios** (Def. 3.1): `wordRatio(n) = Σ words(k)/distance(k, n)`
//!    over the text leaves `k` of `n` outside hyperlinks; `hyperlinkRatio`
//!    `= 1` without links, else `1/links`; `childrenRatio = 1` iff
//!    `childNodes(n) > 2`; `positionRatio = 1` if `depth(n) ≤ maxDepth/2`,
//!    else `maxDepth/depth(n) − 1`.
//! 4. **Standardisation** (Def. 3.2): `r ← (r − mean) / sd` per ratio.
//! 5. **Centroid** (Algorithm 1) and **c-SET** (Algorithm 2): the `c = 3`
//!    rated nodes farthest (Euclidean, Def. 3.4) from the centroid.
//! 6. **Reduction** (Algorithm 3): a c-SET node is dropped when a c-SET
//!    ancestor has the same text.
//! 7. **Selection** (Algorithm 4, §3.4): the node with the highest
//!    `textPond = |innerText| / |tags|`, together with its c-SET siblings.
//! 8. **Post-process** (Algorithm 5, §3.5, `tr = 1.5`, `hr = 7`): groups of
//!    links are removed from the selection.
//!
//! # Choices where the paper leaves room
//!
//! * **Root** (Def. 2.1: "the root node corresponds to the body"): the
//!   `body` element ([`Document::body`]). canopy-dom has already dropped
//!   scripts, styles, comments and hidden elements, so "node" below means a
//!   node canopy-dom keeps (elements and text nodes, whitespace-only text
//!   nodes included, as in a browser's DOM).
//! * **Hyperlink** (Def. 2.1, Def. 3.1, Algorithm 5): an `a` element (the
//!   paper tests `tagName == "A"` throughout; `href` is not required).
//!   `links` of a node counts the `a` elements of its subtree.
//! * **Words** (Def. 2.1: "excluding those that belong to hyperlinks", and
//!   Def. 3.1: `parent(k).tagName ≠ "A"`): the words of a text node that has
//!   no `a` ancestor (the two conditions together; `<a><b>x</b></a>` is link
//!   text). A word is as in WLR: a maximal run of Unicode alphanumerics,
//!   each Han/Kana character a word by itself.
//! * **distance(k, n)** (Def. 2.1): edges between the text node and `n`,
//!   i.e. the difference of their depths.
//! * **childNodes(n)** (Def. 3.1): all kept child nodes, text nodes
//!   included (the DOM `childNodes` the paper names), whitespace-only text
//!   nodes included, as in a browser. (Not counting whitespace-only text
//!   nodes changes mean bigram F1 by +0.006 on big9, +0.001 on dragnet.)
//! * **depth(n), maxDepth(P)** (Def. 2.1, Def. 3.1): the depth of `n` is its
//!   distance in edges from `body` (the text of §3.1 — "evaluates the depth
//!   of a DOM node in the DOM tree", "the first half of the DOM tree" — and
//!   the formula's penalty for deep nodes require the depth *of* the node,
//!   not the height of its subtree); `maxDepth(P)` is the largest depth of
//!   any node (text nodes included) below `body`.
//! * **positionRatio** above `maxDepth/2`: the PDF prints the fraction
//!   `maxDepth(P)` over `depth(n) − 1`; we read it as
//!   `maxDepth/depth(n) − 1`, the reading that is a penalty (< 1, falling to
//!   0 at `maxDepth`) and continuous at `maxDepth/2` (value 1); the other
//!   reading, `maxDepth/(depth(n) − 1)`, would be > 2 there, a reward.
//! * **BODY depth rule** (§3.1 criterion 3, "measured as the number of nodes
//!   with the tagNames listed in bullet 2 … with the same criterion"): both
//!   counts use the elements that meet bullet 2 (elements whose tag is *not*
//!   in the excluded list, leaves included). Page depth: the largest number
//!   of such elements on a path below `body`; children: the children of
//!   `body` that are such elements. The returned union is every child of
//!   `body` that is an element or a non-whitespace text node.
//! * **Standardisation** (Def. 3.2): population standard deviation; a ratio
//!   that is constant over the rated nodes (`sd = 0`) standardises to 0 (it
//!   does not separate nodes).
//! * **c-SET ties** (Algorithm 2 takes "a" farthest node): equal distances
//!   are taken in document order.
//! * **Same text** (Algorithm 3 `innerText` equality, §3.4 "the same text
//!   nodes"): as `n1` is an ancestor of `n2`, `n2`'s text is part of `n1`'s,
//!   so they are equal exactly when they have the same number of
//!   non-whitespace characters; that is the test used.
//! * **|innerText|** (Algorithms 4 and 5): the number of non-whitespace
//!   characters of the subtree's text (layout independent); **|tags|**: the
//!   element nodes of the subtree, the node itself included (never 0).
//!   Algorithm 4's `maxRatio = 0` with a strict `>` would select nothing
//!   when every candidate is text-less; then the first c-SET node is taken.
//! * **Ties in Algorithm 4**: §3.4 says all tied nodes are selected (the
//!   printed strict `>` would keep the first); we follow §3.4, and add the
//!   c-SET siblings of each selected node.
//! * **Post-process** (Algorithm 5): the first rule is applied as printed
//!   (`m` = the node without its `a` subtrees; `textRatio = |n| / |m|`,
//!   infinite when all text is link text). The second rule's printed form is
//!   garbled by the PDF layout (it ends with `found == false` removing
//!   `n.parentNode`, which is never in the set); we implement the rule as §3.5
//!   states it: "if all children of a DOM node have the same tagName, and in
//!   turn, each one only contains one child node whose tagName is A, they are
//!   removed if there are not images in their descendants" — for each parent
//!   of selected nodes, if all its element children have one tag, each has
//!   exactly one child node and it is an `a`, and no `img` is below them, the
//!   selected nodes among those children are removed. When the post-process
//!   removes every node, the output is empty (the paper gives no fallback):
//!   that happens on 1 of 200 big9 and 14 of 732 dragnet pages, where the
//!   selected node is a comment list or an article with many linked words;
//!   with the post-process mean bigram F1 is 0.889 / 0.735 (big9 /
//!   dragnet), without it ([`r4_without_post_process`]) 0.893 / 0.742.
//! * **No rated node** (a page without nested elements): the output is
//!   `body` when it has text, else nothing.
//!
//! # Cost
//!
//! One forward and one reverse pass over the `body` range, plus, per text
//! node with words, a walk up its ancestors (the word ratio weighs each
//! word by its distance to every ancestor): `O(N · depth)`; the rest is
//! linear in the rated nodes.

use canopy_dom::{Document, NodeData, NodeId};

use crate::wlr::count_words_chars;

/// Size of the c-SET (paper §4, Table 1: 3 is best).
pub const C_SET_SIZE: usize = 3;
/// Text ratio threshold `tr` of the post-process (§4, Table 2).
pub const TEXT_RATIO_THRESHOLD: f64 = 1.5;
/// Hyperlink threshold `hr` of the post-process (§4, Table 2).
pub const LINKS_THRESHOLD: u32 = 7;

/// The main content of a page by the R4 method: the selected node(s), in
/// document order. The caller joins their `inner_text` with newlines.
///
/// See the module documentation for the steps and the choices made.
pub fn r4(doc: &Document) -> Vec<NodeId> {
    Analysis::new(doc).main
}

/// Algorithm 4's selection, before the post-process (for measuring the
/// post-process).
#[doc(hidden)]
pub fn r4_without_post_process(doc: &Document) -> Vec<NodeId> {
    let a = Analysis::new(doc);
    if a.body_rule || a.rated.is_empty() {
        a.main
    } else {
        a.selected
    }
}

/// Tags that are never rated (§3.1, criterion 2; "UNDEFINED" has no
/// counterpart in a parsed document).
fn is_excluded(tag: &str) -> bool {
    matches!(
        tag,
        "a" | "nav"
            | "undefined"
            | "hr"
            | "span"
            | "em"
            | "body"
            | "script"
            | "header"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "br"
            | "iframe"
    )
}

/// Per-node results of the method, indexed by `NodeId - base`.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) struct Analysis {
    /// `body`.
    pub base: NodeId,
    /// Whether the BODY depth rule (§3.1 criterion 3) decided the output.
    pub body_rule: bool,
    /// Words of a text node outside hyperlinks (0 for elements).
    pub words: Vec<u32>,
    /// Non-whitespace characters of the subtree's text.
    pub chars: Vec<u32>,
    /// Non-whitespace characters of the subtree's text inside `a` elements.
    pub link_chars: Vec<u32>,
    /// `a` elements in the subtree, the node included.
    pub links: Vec<u32>,
    /// Element nodes in the subtree, the node included.
    pub tags: Vec<u32>,
    /// Child nodes.
    pub child_nodes: Vec<u32>,
    /// Depth below `body` (edges).
    pub depth: Vec<u32>,
    /// `maxDepth(P)`.
    pub max_depth: u32,
    /// `Σ words(k)/distance(k, n)` (Def. 3.1).
    pub word_ratio: Vec<f64>,
    /// Rated nodes, document order.
    pub rated: Vec<NodeId>,
    /// The four raw ratios of each rated node (word, hyperlink, children,
    /// position).
    pub raw: Vec<[f64; 4]>,
    /// The standardised ratios.
    pub std: Vec<[f64; 4]>,
    /// The centroid (Algorithm 1).
    pub centroid: [f64; 4],
    /// Distance to the centroid of each rated node.
    pub distance: Vec<f64>,
    /// c-SET (Algorithm 2), farthest first.
    pub c_set: Vec<NodeId>,
    /// c-SET after Algorithm 3, document order.
    pub reduced: Vec<NodeId>,
    /// Algorithm 4's output, document order.
    pub selected: Vec<NodeId>,
    /// Algorithm 5's output (the method's output), document order.
    pub main: Vec<NodeId>,
}

impl Analysis {
    pub(crate) fn new(doc: &Document) -> Analysis {
        let base = doc.body();
        let end = doc.node(base).end;
        let n = end - base;
        let base_depth = doc.node(base).depth;
        let mut a = Analysis {
            base,
            body_rule: false,
            words: vec![0; n],
            chars: vec![0; n],
            link_chars: vec![0; n],
            links: vec![0; n],
            tags: vec![0; n],
            child_nodes: vec![0; n],
            depth: vec![0; n],
            max_depth: 0,
            word_ratio: vec![0.0; n],
            rated: Vec::new(),
            raw: Vec::new(),
            std: Vec::new(),
            centroid: [0.0; 4],
            distance: Vec::new(),
            c_set: Vec::new(),
            reduced: Vec::new(),
            selected: Vec::new(),
            main: Vec::new(),
        };
        // Scratch: inside an `a` (the node included); elements of criterion
        // 2 on the path from `body` (the node included).
        let mut in_link = vec![false; n];
        let mut crit_depth = vec![0u32; n];
        let mut page_crit_depth = 0u32;
        let mut body_crit_children = 0u32;

        // Pass 1 (forward): depths, link scope, child counts, words, word
        // ratio (each word added to every ancestor, weighted by distance).
        for id in base..end {
            let k = id - base;
            let node = doc.node(id);
            a.depth[k] = node.depth - base_depth;
            a.max_depth = a.max_depth.max(a.depth[k]);
            let parent = node.parent.filter(|_| id != base).map(|p| p - base);
            if let Some(p) = parent {
                a.child_nodes[p] += 1;
            }
            let parent_in_link = parent.is_some_and(|p| in_link[p]);
            let parent_crit = parent.map_or(0, |p| crit_depth[p]);
            match &node.data {
                NodeData::Element(e) => {
                    in_link[k] = parent_in_link || &*e.tag == "a";
                    let crit = id != base && !is_excluded(&e.tag);
                    crit_depth[k] = parent_crit + u32::from(crit);
                    page_crit_depth = page_crit_depth.max(crit_depth[k]);
                    if crit && parent == Some(0) {
                        body_crit_children += 1;
                    }
                }
                NodeData::Text(_) => {
                    in_link[k] = parent_in_link;
                    crit_depth[k] = parent_crit;
                    let (w, c) = count_words_chars(doc.text(id).unwrap_or(""));
                    a.chars[k] = c;
                    if in_link[k] {
                        a.link_chars[k] = c;
                    } else if w > 0 {
                        // paper: §3.1 Def. 3.1 — wordRatio(n) =
                        // Σ_{k ∈ leaves(n)} words(k) / distance(k, n),
                        // parent(k) not a hyperlink.
                        a.words[k] = w;
                        for anc in doc.ancestors(id) {
                            if anc < base {
                                break;
                            }
                            let dist = a.depth[k] - a.depth[anc - base];
                            a.word_ratio[anc - base] += f64::from(w) / f64::from(dist);
                        }
                    }
                }
            }
        }

        // paper: §3.1 criterion 3 — depth below BODY < children of BODY
        // (both in elements of criterion 2) ⇒ the children of BODY.
        if page_crit_depth < body_crit_children {
            a.body_rule = true;
            a.main = doc
                .children(base)
                .filter(|&c| match doc.text(c) {
                    Some(t) => !t.trim().is_empty(),
                    None => true,
                })
                .collect();
            return a;
        }

        // Pass 2 (reverse, children before parents): subtree sums.
        for id in (base..end).rev() {
            let k = id - base;
            if doc.element(id).is_some() {
                a.tags[k] += 1;
                if doc.tag(id) == "a" {
                    a.links[k] += 1;
                }
            }
            if id == base {
                break;
            }
            if let Some(p) = doc.node(id).parent {
                let p = p - base;
                a.tags[p] += a.tags[k];
                a.links[p] += a.links[k];
                a.chars[p] += a.chars[k];
                a.link_chars[p] += a.link_chars[k];
            }
        }

        // paper: §3.1 criteria 1–2 — non-leaf elements not excluded.
        let max_depth = f64::from(a.max_depth);
        for id in base + 1..end {
            let k = id - base;
            let Some(e) = doc.element(id) else { continue };
            if a.child_nodes[k] == 0 || is_excluded(&e.tag) {
                continue;
            }
            a.rated.push(id);
            // paper: §3.1 Def. 3.1 — hyperlinkRatio = 1 if links = 0, else 1/links.
            let hyperlink = if a.links[k] == 0 {
                1.0
            } else {
                1.0 / f64::from(a.links[k])
            };
            // paper: §3.1 Def. 3.1 — childrenRatio = 1 iff childNodes(n) > 2.
            let children = if a.child_nodes[k] > 2 { 1.0 } else { 0.0 };
            // paper: §3.1 Def. 3.1 — positionRatio = 1 if depth ≤ maxDepth/2,
            // else maxDepth/depth − 1 (module doc).
            let depth = f64::from(a.depth[k]);
            let position = if depth <= max_depth / 2.0 {
                1.0
            } else {
                max_depth / depth - 1.0
            };
            a.raw.push([a.word_ratio[k], hyperlink, children, position]);
        }
        if a.rated.is_empty() {
            if a.chars[0] > 0 {
                a.main = vec![base];
            }
            return a;
        }

        // paper: §3.2 Def. 3.2 — r_i = (r_i − mean_i) / sd_i.
        let count = a.rated.len() as f64;
        let mut mean = [0.0f64; 4];
        for r in &a.raw {
            for i in 0..4 {
                mean[i] += r[i] / count;
            }
        }
        let mut sd = [0.0f64; 4];
        for r in &a.raw {
            for i in 0..4 {
                sd[i] += (r[i] - mean[i]).powi(2) / count;
            }
        }
        let sd = sd.map(f64::sqrt);
        a.std = a
            .raw
            .iter()
            .map(|r| {
                std::array::from_fn(|i| {
                    if sd[i] > 0.0 {
                        (r[i] - mean[i]) / sd[i]
                    } else {
                        0.0
                    }
                })
            })
            .collect();

        // paper: §3.3 Algorithm 1 — the centroid is the mean point.
        for r in &a.std {
            for (c, v) in a.centroid.iter_mut().zip(r) {
                *c += v / count;
            }
        }
        // paper: §3.3 Algorithm 2, Def. 3.4 — Euclidean distance to the
        // centroid; the c farthest nodes.
        a.distance = a
            .std
            .iter()
            .map(|r| {
                (0..4)
                    .map(|i| (r[i] - a.centroid[i]).powi(2))
                    .sum::<f64>()
                    .sqrt()
            })
            .collect();
        let mut order: Vec<usize> = (0..a.rated.len()).collect();
        order.sort_by(|&x, &y| a.distance[y].total_cmp(&a.distance[x]));
        a.c_set = order.iter().take(C_SET_SIZE).map(|&i| a.rated[i]).collect();

        // paper: §3.4 Algorithm 3 — drop n2 when an ancestor n1 in the c-SET
        // has the same text.
        let mut reduced: Vec<NodeId> = a
            .c_set
            .iter()
            .copied()
            .filter(|&n2| {
                !a.c_set.iter().any(|&n1| {
                    n1 != n2 && doc.contains(n1, n2) && a.chars[n1 - base] == a.chars[n2 - base]
                })
            })
            .collect();
        reduced.sort_unstable();
        a.reduced = reduced;

        // paper: §3.4 Algorithm 4 — textPond = |innerText| / |tags|; the
        // best node(s) and their c-SET siblings.
        let pond = |id: NodeId| f64::from(a.chars[id - base]) / f64::from(a.tags[id - base]);
        let max_pond = a.reduced.iter().map(|&id| pond(id)).fold(0.0, f64::max);
        let best: Vec<NodeId> = if max_pond > 0.0 {
            a.reduced
                .iter()
                .copied()
                .filter(|&id| pond(id) == max_pond)
                .collect()
        } else {
            a.reduced.iter().copied().take(1).collect()
        };
        let parent = |id: NodeId| doc.node(id).parent;
        a.selected = a
            .reduced
            .iter()
            .copied()
            .filter(|&id| best.contains(&id) || best.iter().any(|&b| parent(b) == parent(id)))
            .collect();

        a.main = a.post_process(doc);
        a
    }

    /// paper: §3.5 Algorithm 5 — remove groups of links (module doc).
    fn post_process(&self, doc: &Document) -> Vec<NodeId> {
        let base = self.base;
        // Rule 1: textRatio > tr and links > hr.
        let mut main: Vec<NodeId> = self
            .selected
            .iter()
            .copied()
            .filter(|&id| {
                let k = id - base;
                let all = f64::from(self.chars[k]);
                let outside = f64::from(self.chars[k] - self.link_chars[k]);
                let text_ratio = if self.chars[k] == 0 {
                    1.0
                } else if outside == 0.0 {
                    f64::INFINITY
                } else {
                    all / outside
                };
                !(text_ratio > TEXT_RATIO_THRESHOLD && self.links[k] > LINKS_THRESHOLD)
            })
            .collect();
        // Rule 2: all children of a node have one tag, each holds exactly one
        // child node, an `a`, and no image ⇒ those children are removed.
        let is_link_group = |p: NodeId| {
            let mut tag = None;
            let mut any = false;
            for c in doc.children(p) {
                let Some(e) = doc.element(c) else { continue };
                any = true;
                if *tag.get_or_insert(&e.tag) != &e.tag {
                    return false;
                }
                let mut kids = doc.children(c);
                let (Some(only), None) = (kids.next(), kids.next()) else {
                    return false;
                };
                if doc.tag(only) != "a" || doc.descendants(c).any(|d| doc.tag(d) == "img") {
                    return false;
                }
            }
            any
        };
        let mut parents: Vec<NodeId> = main.iter().filter_map(|&id| doc.node(id).parent).collect();
        parents.dedup();
        for p in parents {
            if is_link_group(p) {
                main.retain(|&id| doc.node(id).parent != Some(p));
            }
        }
        main
    }
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

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    /// Hand-computed ratios on a small page (no whitespace between tags).
    ///
    /// ```text
    /// body                                  depth 0
    ///   div#nav                             depth 1
    ///     ul#menu                           depth 2
    ///       li > a "Home"                   li depth 3, text depth 5
    ///       li > a "News"
    ///   div#main                            depth 1
    ///     p#p1 "one two three four"         text depth 3
    ///     p#p2 "five six <a>link</a> seven" texts depth 3, 4
    ///     p#p3 "eight"
    /// ```
    #[test]
    fn ratios_by_hand() {
        let doc = parse(
            "<body><div id=nav><ul id=menu><li id=li1><a href=/>Home</a></li>\
             <li><a href=/n>News</a></li></ul></div>\
             <div id=main><p id=p1>one two three four</p>\
             <p id=p2>five six <a href=/x>link</a> seven</p><p id=p3>eight</p></div></body>",
        );
        let a = Analysis::new(&doc);
        assert!(!a.body_rule);
        let k = |name: &str| find(&doc, name) - a.base;
        // maxDepth: the link texts at depth 5.
        assert_eq!(a.max_depth, 5);
        // Rated: div#nav, ul, li, li, div#main, p, p, p (not a, not body).
        assert_eq!(a.rated.len(), 8);
        // wordRatio(p1) = 4/1; p2 = 2/1 + 1/1 ("link" is link text);
        // div#main = (4 + 3 + 1)/2 = 4; nav = 0 (only link words).
        assert!(close(a.word_ratio[k("p1")], 4.0));
        assert!(close(a.word_ratio[k("p2")], 3.0));
        assert!(close(a.word_ratio[k("main")], 4.0));
        assert!(close(a.word_ratio[k("nav")], 0.0));
        assert_eq!(a.links[k("nav")], 2);
        assert_eq!(a.links[k("main")], 1);
        assert_eq!(a.child_nodes[k("main")], 3);
        assert_eq!(a.child_nodes[k("p2")], 3);
        let raw = |name: &str| a.raw[a.rated.iter().position(|&r| r == find(&doc, name)).unwrap()];
        // main: word 4, links 1 → 1, 3 children → 1, depth 1 ≤ 2.5 → 1.
        assert_eq!(raw("main"), [4.0, 1.0, 1.0, 1.0]);
        // nav: 0, 1/2, one child → 0, depth 1 → 1.
        assert_eq!(raw("nav"), [0.0, 0.5, 0.0, 1.0]);
        // li: depth 3 > 2.5 → 5/3 − 1.
        let li = raw("li1");
        assert!(close(li[3], 5.0 / 3.0 - 1.0));
        assert_eq!(li[..3], [0.0, 1.0, 0.0]);
        // Standardised coordinates have mean 0 and (population) sd 1, so the
        // centroid is the origin.
        for i in 0..4 {
            let m: f64 = a.std.iter().map(|r| r[i]).sum::<f64>() / 8.0;
            let v: f64 = a.std.iter().map(|r| r[i] * r[i]).sum::<f64>() / 8.0;
            assert!(close(m, 0.0) && close(a.centroid[i], 0.0));
            assert!(close(v, 1.0), "ratio {i} variance {v}");
        }
        // Distances to the origin (hand check): div#main
        // √(25/12 + 1/3 + 3 + 1/3) = √5.75; div#nav, ul, both li and p#p2 all
        // at √(53/12) (ties, taken in document order).
        let main = find(&doc, "main");
        let nav = find(&doc, "nav");
        let ul = find(&doc, "menu");
        assert!(close(
            a.distance[a.rated.iter().position(|&r| r == main).unwrap()],
            5.75f64.sqrt()
        ));
        assert!(close(a.distance[0], (53.0f64 / 12.0).sqrt()));
        assert_eq!(a.c_set, vec![main, nav, ul]);
        // Algorithm 3: ul has the same text as its ancestor div#nav.
        assert_eq!(a.reduced, vec![nav, main]);
        // Algorithm 4: textPond(main) = 36 chars / 5 tags beats nav's 8/6;
        // div#nav is a c-SET sibling of div#main (both children of body):
        // on so small a page the menu is far from the centroid too (the
        // distance does not care on which side), and the paper selects it.
        assert_eq!(a.selected, vec![nav, main]);
        // Algorithm 5: nav's text is all link text but it has 2 links ≤ hr.
        assert_eq!(r4(&doc), vec![nav, main]);
    }

    #[test]
    fn body_depth_rule_returns_the_children_of_body() {
        // Page depth (criterion-2 elements) 1 < 4 children of body.
        let doc =
            parse("<body><p>alpha</p><p>beta</p><table></table><p>gamma <b>delta</b></p></body>");
        let a = Analysis::new(&doc);
        assert!(a.body_rule);
        assert_eq!(a.main, doc.children(doc.body()).collect::<Vec<_>>());
        // One level deeper than the number of children: the rule is off.
        let doc = parse("<body><div><div><p>alpha</p></div></div><p>beta</p></body>");
        assert!(!Analysis::new(&doc).body_rule);
    }

    /// Boilerplate of many small link boxes, so that the centroid lies
    /// among them.
    fn boxes(n: usize) -> String {
        (0..n)
            .map(|i| format!("<div><p>short <a href=/{i}>l{i}</a></p></div>"))
            .collect()
    }

    #[test]
    fn reduction_keeps_the_ancestor_with_the_same_text() {
        // A wrapper div with the same text as the article div (the
        // whitespace around the article gives the wrapper 3 child nodes).
        let long = "word ".repeat(40);
        let html = format!(
            "<body><div id=page>{}<div id=wrap> <div id=art>{long}<br>{long}<br>{long}</div> </div>{}</div></body>",
            boxes(6),
            boxes(6)
        );
        let doc = parse(&html);
        let a = Analysis::new(&doc);
        let (wrap, art) = (find(&doc, "wrap"), find(&doc, "art"));
        let page = find(&doc, "page");
        assert_eq!(a.c_set, vec![page, art, wrap]);
        assert_eq!(a.reduced, vec![page, wrap]);
        assert_eq!(r4(&doc), vec![wrap]);
        assert!(doc.inner_text(wrap).starts_with("word word"));
    }

    #[test]
    fn selection_adds_c_set_siblings() {
        // (All inside one page div: 13 children of body would trigger the
        // BODY depth rule.) Two sibling article halves under one parent, both text-dense and
        // link-free: the denser (per tag) half is chosen, and its c-SET
        // sibling with it.
        let long = "lorem ipsum dolor ".repeat(30);
        let html = format!(
            "<body><div id=page>{}<div id=col>\
             <div id=s1><p>{long}</p><p>{long}</p><p>{long}</p></div>\
             <div id=s2><p>{long}</p><p>{long}</p><p>{long}</p></div></div></div></body>",
            boxes(12)
        );
        let doc = parse(&html);
        let a = Analysis::new(&doc);
        let (page, s1, s2) = (find(&doc, "page"), find(&doc, "s1"), find(&doc, "s2"));
        // s1, s2: word ratio 3·90/2 = 135; the page div has 12 links and
        // 13 children (far out on the hyperlink axis).
        assert_eq!(a.c_set, vec![page, s1, s2]);
        assert_eq!(a.reduced, vec![page, s1, s2]);
        // textPond: s1 = s2 = C/4 tags (a tie: both best) beat the page.
        assert_eq!(a.selected, vec![s1, s2]);
        assert_eq!(a.main, vec![s1, s2]);
    }

    #[test]
    fn post_process_rule_one_drops_link_heavy_nodes() {
        // 8 links (> hr = 7) and 2/3 of the text in links (ratio 3 > 1.5).
        let links: String = (0..8).map(|i| format!("<a>link{i} text</a> ")).collect();
        let html = format!(
            "<body><div><div id=x><p>{links}</p><p>plain words here and more words here</p>\
             <p>z</p></div></div></body>"
        );
        let doc = parse(&html);
        let mut a = Analysis::new(&doc);
        let x = find(&doc, "x");
        a.selected = vec![x];
        assert!(a.post_process(&doc).is_empty());
        // With 7 links it stays.
        let links: String = (0..7).map(|i| format!("<a>link{i} text</a> ")).collect();
        let html = format!(
            "<body><div><div id=x><p>{links}</p><p>plain words here</p><p>z</p></div></div></body>"
        );
        let doc = parse(&html);
        let mut a = Analysis::new(&doc);
        let x = find(&doc, "x");
        a.selected = vec![x];
        assert_eq!(a.post_process(&doc), vec![x]);
    }

    #[test]
    fn post_process_rule_two_drops_link_lists() {
        let doc = parse(
            "<body><div><ul id=u><li id=l1><a>one</a></li><li id=l2><a>two</a></li></ul>\
             <ul id=v><li id=m1><a><img src=x>one</a></li><li id=m2><a>two</a></li></ul>\
             </div></body>",
        );
        let mut a = Analysis::new(&doc);
        let ids = ["l1", "l2", "m1", "m2"].map(|s| find(&doc, s));
        a.selected = ids.to_vec();
        // The first list (one `a` per item, no image) goes, the second stays.
        assert_eq!(a.post_process(&doc), vec![ids[2], ids[3]]);
    }
}
