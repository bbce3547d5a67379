//! Ranking structural patterns across the sibling pages of a cluster
//! (forest.md §3.2–3.5, Algorithm 1).

use std::collections::{BTreeSet, HashMap};

use canopy_dom::{Document, NodeId};

use crate::element_type::{levels, normalized_space, ElementType, Untyped};
use crate::measure::informativeness;
use crate::terms::NodeTerms;

/// One page of a cluster, as Forest sees it.
pub struct PageInput<'a> {
    pub doc: &'a Document,
    pub terms: &'a NodeTerms,
    /// The page's signifiers with their weights (tf-idf, or 1 for feed
    /// terms), at most 64.
    pub signifiers: &'a [(u32, f64)],
}

/// What a structural pattern is scored by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Measure {
    /// Forest's informativeness `I = J × U` (eq. 4–5).
    #[default]
    Forest,
    /// The Coverage baseline (eq. 6–7).
    Coverage,
}

/// Settings of the ranking.
#[derive(Debug, Clone)]
pub struct ForestOptions {
    pub measure: Measure,
    pub untyped: Untyped,
    /// Most share of its matches' signifier occurrences that the matches a
    /// narrowed wrapper leaves out may hold (`docs/algorithms.md`, "Narrowing"); 0: never
    /// narrow.
    pub narrow: f64,
}

impl Default for ForestOptions {
    fn default() -> Self {
        ForestOptions {
            measure: Measure::default(),
            untyped: Untyped::default(),
            narrow: crate::narrow::DEFAULT_SHARE,
        }
    }
}

/// A structural pattern (Definition 3): an element type on a level, the
/// level being the element's number of element ancestors, `tbody` not
/// counted (`body` is 1; see [`crate::levels`]).
#[derive(
    Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct Pattern {
    pub ty: ElementType,
    pub level: u32,
    /// An identity attribute and the whole value (white space collapsed, as
    /// XPath's `normalize-space` does) that a match must also have: set
    /// when the wrapper is narrowed to the elements of its type that carry
    /// the article (`docs/algorithms.md`, "Narrowing"). Ranking never sets it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exact: Option<(String, String)>,
}

impl Pattern {
    /// Whether element `id`, at `level`, is a match: its level, its type
    /// and, for a narrowed pattern, the attribute's whole value.
    pub fn matches(&self, doc: &Document, id: NodeId, level: u32, levels: &[u32]) -> bool {
        level == self.level
            && self.ty.matches(doc, id, level, levels)
            && self.exact.as_ref().is_none_or(|(name, value)| {
                doc.attr(id, name)
                    .is_some_and(|v| normalized_space(v) == *value)
            })
    }
}

/// A ranked pattern with what the wrapper needs.
#[derive(Debug, Clone)]
pub struct Ranked {
    pub pattern: Pattern,
    /// `R = Σ_k I(sp, d_k) × p × level` (eq. 5) or its Coverage twin (eq. 7).
    pub relevance: f64,
    /// `p`: the number of pages on whose significant paths the pattern occurs.
    pub pages: usize,
    /// `dfs` numbers of the elements that carry the pattern, over all pages.
    pub dfs: BTreeSet<u32>,
}

#[derive(Default)]
struct Stats {
    sum: f64,
    pages: usize,
    dfs: BTreeSet<u32>,
}

/// Ranks every structural pattern of the pages' significant paths, best
/// first. Ties are broken by the pattern's order, so the result does not
/// depend on hashing or on thread count.
pub fn rank(pages: &[PageInput<'_>], options: &ForestOptions) -> Vec<Ranked> {
    let mut stats: HashMap<Pattern, Stats> = HashMap::new();
    for page in pages {
        for (pattern, score, dfs) in page_patterns(page, options) {
            let s = stats.entry(pattern).or_default();
            s.sum += score.0;
            s.pages += 1;
            s.dfs.extend(dfs);
        }
    }
    let mut ranked: Vec<Ranked> = stats
        .into_iter()
        .map(|(pattern, s)| Ranked {
            relevance: s.sum * s.pages as f64 * f64::from(pattern.level),
            pages: s.pages,
            dfs: s.dfs,
            pattern,
        })
        .collect();
    ranked.sort_by(|a, b| {
        b.relevance
            .total_cmp(&a.relevance)
            .then_with(|| a.pattern.cmp(&b.pattern))
    });
    ranked
}

/// Score of a pattern in one page (the best of its elements there).
#[derive(Clone, Copy)]
struct Score(f64);

/// The patterns on one page's significant paths, each with its best score
/// on the page and the `dfs` numbers of its elements.
fn page_patterns(page: &PageInput<'_>, options: &ForestOptions) -> Vec<(Pattern, Score, Vec<u32>)> {
    let doc = page.doc;
    let body = doc.body();
    let end = doc.node(body).end;
    let sigs = &page.signifiers[..page.signifiers.len().min(64)];
    let max_weight = sigs.iter().map(|s| s.1).fold(0.0, f64::max);

    // Per node (relative to body): signifier and other term counts, and the
    // set of distinct signifiers (a bit each) for Coverage.
    let len = end - body;
    let mut x = vec![0u32; len];
    let mut y = vec![0u32; len];
    let mut seen = vec![0u64; len];
    for n in body..end {
        for t in page.terms.of(n) {
            match sigs.iter().position(|s| s.0 == *t) {
                Some(i) => {
                    x[n - body] += 1;
                    seen[n - body] |= 1 << i;
                }
                None => y[n - body] += 1,
            }
        }
    }
    // Sum up the tree: children come after their parent in depth-first order.
    for n in (body + 1..end).rev() {
        if let Some(p) = doc.node(n).parent {
            let (i, pi) = (n - body, p - body);
            x[pi] += x[i];
            y[pi] += y[i];
            seen[pi] |= seen[i];
        }
    }
    let (big_x, big_y) = (f64::from(x[0]), f64::from(y[0]));

    // Elements on significant terminal paths: ancestors of text nodes with
    // at least one signifier.
    let mut on_path = vec![false; len];
    for n in body..end {
        if doc.text(n).is_some() && x[n - body] > 0 {
            let mut a = doc.node(n).parent;
            while let Some(e) = a {
                if e < body || on_path[e - body] {
                    break;
                }
                on_path[e - body] = true;
                a = doc.node(e).parent;
            }
        }
    }

    let levels = levels(doc);
    let mut best: HashMap<Pattern, (Score, Vec<u32>)> = HashMap::new();
    // `tbody` is never a pattern: parsers disagree on whether it exists, and
    // its table holds the same text.
    for n in (body..end).filter(|&n| on_path[n - body] && doc.tag(n) != "tbody") {
        let i = n - body;
        let (xf, yf) = (f64::from(x[i]), f64::from(y[i]));
        let score = match options.measure {
            Measure::Forest => informativeness(xf, yf, big_x, big_y),
            Measure::Coverage => {
                let covered: f64 = (0..sigs.len())
                    .filter(|b| seen[i] & (1 << b) != 0)
                    .map(|b| sigs[b].1 / max_weight.max(f64::MIN_POSITIVE))
                    .sum();
                covered / sigs.len().max(1) as f64
            }
        };
        let pattern = Pattern {
            ty: ElementType::of(doc, n, options.untyped),
            level: levels[n],
            exact: None,
        };
        let dfs = doc.element(n).map_or(0, |e| e.dfs);
        let entry = best
            .entry(pattern)
            .or_insert((Score(f64::NEG_INFINITY), Vec::new()));
        entry.0 = Score(entry.0 .0.max(score));
        entry.1.push(dfs);
    }
    best.into_iter().map(|(p, (s, d))| (p, s, d)).collect()
}
