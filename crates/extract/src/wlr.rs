//! WLR: the words/leaves ratio page-level main-content method, and its
//! variants CNR, WNR and CLR (Insa, Silva, Tamarit, *Using the Words/Leafs
//! Ratio in the DOM Tree for Content Extraction*;
//! `papers/wlr-words-leaves-ratio.md`).
//!
//! # The method (paper §4, Algorithm 1)
//!
//! 1. **Content nodes** `C` (Def. 4.1): the `body` subtree minus the subtrees
//!    rooted at `meta`, `title`, `head`, `link`, `style`, `script`, `select`,
//!    `noscript` (*notValid*), minus invisible subtrees (*notVisible*), minus
//!    the fix-point of word-less leaves (*notWords*).
//! 2. For every node of `C`: total words `tw` and leaves `l` (Def. 4.2,
//!    Fig. 5), the ratio `WLR = tw / l` (Def. 4.4).
//! 3. Initial nodes `I = { n | WLR(n) ≥ √(max_WLR · WLR(root)) }` (Def. 4.5).
//! 4. Weight `W = r_pos · r_WLR` on `I`, 0 elsewhere; relevance
//!    `R(n) = WLR(n) · max(W(n), Σ R(children))` (Def. 4.6).
//! 5. Best node: highest `R`, ties to the lowest identifier (Def. 4.7).
//! 6. The output is the best node's whole subtree (Algorithm 1, step 4).
//!
//! The variants (§2, §5) change only the ratio: **CNR** characters / nodes,
//! **WNR** words / nodes, **CLR** characters / leaves, **WLR** words /
//! leaves. Everything else (content nodes, threshold, relevance, best node)
//! is the same.
//!
//! # Choices where the paper leaves room
//!
//! * **Root** (Def. 3.1): the `body` element (`Document::body`, which is
//!   the `html` element on a page without `body`; `head` is then dropped as
//!   *notValid*).
//! * **Visibility** `v(n)` (Def. 3.3) and *notValid* (Def. 4.1): canopy-dom
//!   already drops `script`, `style`, `noscript`, `template`, comments and
//!   elements hidden by the `hidden` attribute, `aria-hidden="true"` or an
//!   inline `display:none` / `visibility:hidden` (no stylesheet is applied).
//!   This module drops the remaining *notValid* subtrees found inside `body`
//!   (`meta`, `title`, `head`, `link`, `select`).
//! * **Words** `w(n)` (Def. 3.3): only text nodes carry words (the paper's
//!   "content" attribute; an element's own `w` is 0, so an element is a
//!   content node exactly when some text below it has a word). A word is a
//!   maximal run of Unicode alphanumeric characters, except that each Han,
//!   Hiragana or Katakana character is a word by itself (the paper claims
//!   language independence, §1, and those scripts do not separate words).
//!   So `"don't"` is two words and a text of punctuation only (`"|"`, `"(.)"`)
//!   has none and is not a content node.
//! * **Characters** (CNR, CLR; §2): the non-whitespace characters of the
//!   content text nodes (layout independent, as §1 requires). Content nodes
//!   are the same set `C` for all four variants (Def. 4.1 is in words).
//! * **Nodes** (CNR, WNR; §2 "number of nodes in this subtree"): the content
//!   nodes of the subtree, the node itself included.
//! * **Static position** `sp(n)` (Def. 4.2): false only for a `div` whose
//!   inline `style` sets `position` to `absolute` or `fixed` (no stylesheet).
//! * **`leaves`** (Fig. 5): the final `if (joining) leaves += 1` is read as
//!   being *after* the loop (as printed it is inside it, which would count
//!   every formatted piece of Example 4.3 and contradict the example). So
//!   `leaves(n)` is the sum of `l(c)` over the children that are not
//!   joinable, plus one per maximal run of consecutive joinable children
//!   (`#text`, `p`, `a`, `u`, `b`, `i`, `em`, `span`, `sub`, `sup`, `strong`,
//!   `div` with `sp` and `l = 1`). That count does not depend on the
//!   direction of the walk, which lets one reverse pass compute it.
//! * **Identifiers** `id(n)` (Def. 4.2): pre-order rank among the content
//!   nodes, root 0.
//! * **Degenerate denominators** (Def. 4.6): when `max_id = min_id` (one
//!   initial node) `r_pos = 1`; when `max_WLR = min_WLR`, `r_WLR = 1`.
//! * **The relevance multiplier** (Def. 4.6), the one real departure. Taken
//!   literally, `R(n) = WLR(n) · max(W(n), Σ R(children))` can never decrease
//!   going up: every leaf has at least one word (one character), so
//!   `WLR ≥ 1` (and `CLR ≥ 1`) for every content node, hence
//!   `R(parent) ≥ WLR(parent) · R(child) ≥ R(child)`, and the root always wins
//!   (it has the highest `R`, or ties and has the lowest identifier). That
//!   contradicts the paper's own Example 4.8 (best node: a `table`, not
//!   `body`) and its §4 explanation that the `WLR(n)` factor "stops going up
//!   when the ancestor of a node introduces subtrees with a low density of
//!   text". We therefore use the ratio *relative to the page's maximum*,
//!   `WLR(n) / max_WLR ∈ (0, 1]`, as the multiplier: it keeps the paper's
//!   ordering of densities, equals 1 only at the densest nodes, and shrinks
//!   `R` when a node adds low-density subtrees, which is the behaviour the
//!   paper describes. [`Relevance::Literal`] keeps the literal formula for
//!   comparison. Measured on big9 and dragnet (mean bigram F1), the literal
//!   formula (= always `body`) scores 0.731 / 0.551, the relative multiplier
//!   0.797 / 0.735. Two consequences: `R` stays bounded (the literal product
//!   of ratios along a deep path can overflow `f64`), and a wrapper with a
//!   single content child never beats that child (`m ≤ 1`): on Example 4.8
//!   the best node is the publications table's `tbody` (which the parser
//!   inserts, as browsers do), with the same text as the `table`.
//! * **Output**: the paper returns the best node's subtree (Algorithm 1,
//!   step 4), with nothing added; [`wlr`] returns that one node (an empty
//!   list when the page has no word at all).
//!
//! # Cost
//!
//! Two forward and two reverse passes over the `body` range of the arena
//! (a subtree is a contiguous range, children come after their parent), no
//! recursion and no allocation per node; `O(N)` as in the paper (§4).

use std::fmt;
use std::str::FromStr;

use canopy_dom::{Document, NodeData, NodeId};

use crate::is_cjk;

/// Which ratio drives the method (paper §2 and §5, Tables 1–4).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum WlrVariant {
    /// Words / leaves: the paper's method (Def. 4.4).
    Wlr,
    /// Characters / nodes: the earlier chars-nodes ratio (ref. \[2\]).
    Cnr,
    /// Words / nodes.
    Wnr,
    /// Characters / leaves.
    Clr,
}

impl WlrVariant {
    /// All variants, in the paper's order of Table 5.
    pub const ALL: [WlrVariant; 4] = [
        WlrVariant::Cnr,
        WlrVariant::Wnr,
        WlrVariant::Clr,
        WlrVariant::Wlr,
    ];

    /// The variant's lowercase name: `"wlr"`, `"cnr"`, `"wnr"` or `"clr"`.
    pub fn name(self) -> &'static str {
        match self {
            WlrVariant::Wlr => "wlr",
            WlrVariant::Cnr => "cnr",
            WlrVariant::Wnr => "wnr",
            WlrVariant::Clr => "clr",
        }
    }

    /// Whether the numerator counts words (else characters).
    fn words(self) -> bool {
        matches!(self, WlrVariant::Wlr | WlrVariant::Wnr)
    }

    /// Whether the denominator counts leaves (else nodes).
    fn leaves(self) -> bool {
        matches!(self, WlrVariant::Wlr | WlrVariant::Clr)
    }
}

impl fmt::Display for WlrVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Error of [`WlrVariant::from_str`]: the name is not one of the four.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownWlrVariant(pub String);

impl fmt::Display for UnknownWlrVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown WLR variant {:?} (expected wlr, cnr, wnr or clr)",
            self.0
        )
    }
}

impl std::error::Error for UnknownWlrVariant {}

impl FromStr for WlrVariant {
    type Err = UnknownWlrVariant;

    /// Parses `"wlr"`, `"cnr"`, `"wnr"` or `"clr"` (ASCII case-insensitive).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        WlrVariant::ALL
            .into_iter()
            .find(|v| v.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| UnknownWlrVariant(s.to_string()))
    }
}

/// How the relevance `R(n) = m(n) · max(W(n), Σ R(children))` (Def. 4.6)
/// reads its multiplier `m(n)`. See the module documentation.
#[doc(hidden)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Relevance {
    /// `m(n) = WLR(n)`, as printed; always selects the root.
    Literal,
    /// `m(n) = WLR(n) / max_WLR` (what [`wlr`] uses).
    RelativeToMax,
}

/// The main content of a page by the paper's method: the chosen node(s)
/// (document order) whose text is the article.
///
/// This is the best node of Def. 4.7 (the paper outputs its subtree,
/// Algorithm 1 step 4), so the list has one node, or none when the `body`
/// holds no word. See the module documentation for the choices made.
pub fn wlr(doc: &Document, variant: WlrVariant) -> Vec<NodeId> {
    wlr_with(doc, variant, Relevance::RelativeToMax)
}

/// [`wlr`] with an explicit reading of the relevance multiplier (for
/// measuring the literal formula against the one [`wlr`] uses).
#[doc(hidden)]
pub fn wlr_with(doc: &Document, variant: WlrVariant, relevance: Relevance) -> Vec<NodeId> {
    Analysis::new(doc, variant, relevance)
        .best
        .into_iter()
        .collect()
}

/// Tags whose subtrees are *notValid* (Def. 4.1).
fn is_not_valid(tag: &str) -> bool {
    matches!(
        tag,
        "meta" | "title" | "head" | "link" | "style" | "script" | "select" | "noscript"
    )
}

/// Tags `leaves` may join into one leaf (Fig. 5); `#text` is handled apart.
fn is_joinable_tag(tag: &str) -> bool {
    matches!(
        tag,
        "p" | "a" | "u" | "b" | "i" | "em" | "span" | "sub" | "sup" | "strong" | "div"
    )
}

/// `sp(n)` (Def. 4.2): false only for a `div` with an inline `position` of
/// `absolute` or `fixed`.
fn static_position(doc: &Document, id: NodeId) -> bool {
    if doc.tag(id) != "div" {
        return true;
    }
    let Some(style) = doc.attr(id, "style") else {
        return true;
    };
    !style.split(';').any(|decl| {
        decl.split_once(':').is_some_and(|(k, v)| {
            k.trim().eq_ignore_ascii_case("position") && {
                let v = v.trim();
                let v = v.strip_suffix("!important").unwrap_or(v).trim_end();
                v.eq_ignore_ascii_case("absolute") || v.eq_ignore_ascii_case("fixed")
            }
        })
    })
}

/// Words (`w(n)`, Def. 3.3) and non-whitespace characters of a text.
pub(crate) fn count_words_chars(text: &str) -> (u32, u32) {
    let (mut words, mut chars) = (0u32, 0u32);
    let mut in_word = false;
    for c in text.chars() {
        if c.is_whitespace() {
            in_word = false;
            continue;
        }
        chars += 1;
        if is_cjk(c) {
            words += 1;
            in_word = false;
        } else if c.is_alphanumeric() {
            if !in_word {
                words += 1;
            }
            in_word = true;
        } else {
            in_word = false;
        }
    }
    (words, chars)
}

/// Per-node results of the method, indexed by `NodeId - base`.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) struct Analysis {
    /// The root (`body`).
    pub base: NodeId,
    /// Whether the node is in `C` (Def. 4.1).
    pub content: Vec<bool>,
    /// `tw(n)` (Def. 4.2).
    pub words: Vec<u32>,
    /// Non-whitespace characters of the subtree's content text.
    pub chars: Vec<u32>,
    /// `l(n)` (Def. 4.2, Fig. 5).
    pub leaves: Vec<u32>,
    /// Content nodes in the subtree, the node included.
    pub nodes: Vec<u32>,
    /// The variant's ratio (Def. 4.4).
    pub ratio: Vec<f64>,
    /// `√(max · root)` (Def. 4.5).
    pub threshold: f64,
    /// `R(n)` (Def. 4.6).
    pub relevance: Vec<f64>,
    /// `n_best` (Def. 4.7).
    pub best: Option<NodeId>,
}

impl Analysis {
    pub(crate) fn new(doc: &Document, variant: WlrVariant, relevance: Relevance) -> Analysis {
        let base = doc.body();
        let end = doc.node(base).end;
        let n = end - base;
        let mut a = Analysis {
            base,
            content: vec![false; n],
            words: vec![0; n],
            chars: vec![0; n],
            leaves: vec![0; n],
            nodes: vec![0; n],
            ratio: vec![0.0; n],
            threshold: 0.0,
            relevance: vec![0.0; n],
            best: None,
        };
        // Scratch: node kept after notValid (a subtree is all in or all out),
        // has a content child, `joining` of Fig. 5.
        let mut valid = vec![false; n];
        let mut has_child = vec![false; n];
        let mut joining = vec![false; n];

        // Pass 1 (forward): drop notValid subtrees (paper: Def. 4.1), count
        // the words of text nodes (paper: Def. 3.3).
        let mut id = base;
        while id < end {
            let node = doc.node(id);
            match &node.data {
                NodeData::Element(e) => {
                    if id != base && is_not_valid(&e.tag) {
                        id = node.end;
                        continue;
                    }
                }
                NodeData::Text(_) => {
                    let (w, c) = count_words_chars(doc.text(id).unwrap_or(""));
                    a.words[id - base] = w;
                    a.chars[id - base] = c;
                }
            }
            valid[id - base] = true;
            id += 1;
        }

        // Pass 2 (reverse, children before parents): notWords fix-point,
        // tw, l, node counts, ratio.
        let (mut max_ratio, mut min_ratio) = (f64::NEG_INFINITY, f64::INFINITY);
        for id in (base..end).rev() {
            let k = id - base;
            if !valid[k] {
                continue;
            }
            let node = doc.node(id);
            let is_text = matches!(node.data, NodeData::Text(_));
            // paper: §4 Def. 4.1 notWords — a leaf without words is removed,
            // bottom-up, so an element is content iff a content child remains.
            let is_content = if is_text {
                a.words[k] > 0
            } else {
                has_child[k]
            };
            if !is_content {
                continue;
            }
            a.content[k] = true;
            a.nodes[k] += 1;
            // paper: §4 Def. 4.2 — l(n) = 1 without children, else leaves(n)
            // (Fig. 5: the trailing `if (joining)` after the loop).
            a.leaves[k] = if has_child[k] {
                a.leaves[k] + u32::from(joining[k])
            } else {
                1
            };
            // paper: §4 Def. 4.4 — WLR(n) = tw(n) / l(n) (and the variants, §5).
            let num = if variant.words() {
                a.words[k]
            } else {
                a.chars[k]
            };
            let den = if variant.leaves() {
                a.leaves[k]
            } else {
                a.nodes[k]
            };
            let ratio = f64::from(num) / f64::from(den);
            a.ratio[k] = ratio;
            max_ratio = max_ratio.max(ratio);
            min_ratio = min_ratio.min(ratio);

            if id == base {
                break;
            }
            let Some(parent) = node.parent else { break };
            let p = parent - base;
            has_child[p] = true;
            // paper: §4 Def. 4.2 — tw(n) = Σ tw(children).
            a.words[p] += a.words[k];
            a.chars[p] += a.chars[k];
            a.nodes[p] += a.nodes[k];
            // paper: §4 Fig. 5 — one leaf per run of joinable children.
            let joinable = a.leaves[k] == 1
                && (is_text || (is_joinable_tag(doc.tag(id)) && static_position(doc, id)));
            if joinable {
                joining[p] = true;
            } else {
                a.leaves[p] += a.leaves[k] + u32::from(joining[p]);
                joining[p] = false;
            }
        }
        if !a.content[0] {
            return a;
        }

        // paper: §4 Def. 4.5 — x = √(max_WLR · WLR(root)).
        let threshold = (max_ratio * a.ratio[0]).sqrt();
        a.threshold = threshold;
        let in_initial = |a: &Analysis, k: usize| a.content[k] && a.ratio[k] >= threshold;

        // Pass 3 (forward): identifiers (pre-order rank in C) and the
        // min/max identifier of I.
        let mut rank = vec![0u32; n];
        let (mut next, mut min_id, mut max_id) = (0u32, None, 0u32);
        for (k, rank) in rank.iter_mut().enumerate() {
            if a.content[k] {
                *rank = next;
                if in_initial(&a, k) {
                    min_id.get_or_insert(next);
                    max_id = next;
                }
                next += 1;
            }
        }
        let min_id = min_id.unwrap_or(0);

        // Pass 4 (reverse): weight, relevance, best node.
        let mut child_sum = vec![0.0f64; n];
        let mut best_r = -1.0f64;
        let mut best = base;
        for id in (base..end).rev() {
            let k = id - base;
            if !a.content[k] {
                continue;
            }
            let ratio = a.ratio[k];
            // paper: §4 Def. 4.6 — W(n) = r_pos(n) · r_WLR(n) on I, else 0.
            let weight = if in_initial(&a, k) {
                let r_pos = if max_id > min_id {
                    1.0 - f64::from(rank[k] - min_id) / f64::from(max_id - min_id)
                } else {
                    1.0
                };
                let r_wlr = if max_ratio > min_ratio {
                    (ratio - min_ratio) / (max_ratio - min_ratio)
                } else {
                    1.0
                };
                r_pos * r_wlr
            } else {
                0.0
            };
            // paper: §4 Def. 4.6 — R(n) = WLR(n) · max(W(n), Σ R(children)),
            // the multiplier read as WLR(n)/max_WLR (module doc).
            let m = match relevance {
                Relevance::Literal => ratio,
                Relevance::RelativeToMax => ratio / max_ratio,
            };
            let r = m * weight.max(child_sum[k]);
            a.relevance[k] = r;
            if id != base {
                if let Some(parent) = doc.node(id).parent {
                    child_sum[parent - base] += r;
                }
            }
            // paper: §4 Def. 4.7 — highest R, ties to the lowest id (the
            // walk goes from high ids to low ones, so ties replace).
            if r >= best_r {
                best_r = r;
                best = id;
            }
        }
        a.best = Some(best);
        a
    }

    /// The analysis entry of a node.
    #[cfg(test)]
    pub(crate) fn k(&self, id: NodeId) -> usize {
        id - self.base
    }
}
