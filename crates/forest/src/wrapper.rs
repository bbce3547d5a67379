//! A cluster's wrapper: the best structural pattern, as XPath and as a
//! matcher over the arena DOM.

use std::collections::BTreeSet;

use canopy_dom::{Document, NodeId};

use crate::element_type::{levels, xpath_literal};
use crate::rank::{Pattern, Ranked};

/// A learned wrapper. Applying it selects, on any page of its template,
/// every element of its pattern that is not inside another match (as its
/// XPath does, minus the nested ones), each with the end of its content
/// that the HTML parser moved out of it ([`Document::adopted_rest`]).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Wrapper {
    pub pattern: Pattern,
    pub relevance: f64,
    /// `dfs` numbers seen at learning time, for the paper's XPath form.
    pub dfs: Vec<u32>,
}

impl Wrapper {
    /// The wrapper of a ranked pattern.
    pub fn from_ranked(r: &Ranked) -> Wrapper {
        Wrapper {
            pattern: r.pattern.clone(),
            relevance: r.relevance,
            dfs: r.dfs.iter().copied().collect(),
        }
    }

    /// The elements this wrapper selects on `doc`, in document order,
    /// outermost only; a match's adopted rest follows it.
    pub fn apply(&self, doc: &Document) -> Vec<NodeId> {
        let body = doc.body();
        let levels = levels(doc);
        let mut out: Vec<NodeId> = Vec::new();
        let mut n = body;
        let end = doc.node(body).end;
        while n < end {
            let node = doc.node(n);
            if self.pattern.matches(doc, n, levels[n], &levels) {
                out.push(n);
                n = node.end; // skip the match's subtree
                if let Some(rest) = doc.adopted_rest(out[out.len() - 1]) {
                    out.push(rest);
                    n = doc.node(rest).end;
                }
            } else {
                n += 1;
            }
        }
        out
    }

    /// The paper's form: the element type completed with its `dfs`
    /// positions (forest.md §3.4),
    /// `//div[contains(@class,'story') and (@dfs='78' or @dfs='82')]`.
    /// A narrowed wrapper's whole value is tested before the `dfs`
    /// positions.
    pub fn xpath(&self) -> String {
        let dfs: BTreeSet<&u32> = self.dfs.iter().collect();
        let alternatives: Vec<String> = dfs.iter().map(|d| format!("@dfs='{d}'")).collect();
        let dfs_pred = match alternatives.len() {
            0 => None,
            1 => Some(alternatives[0].clone()),
            _ => Some(format!("({})", alternatives.join(" or "))),
        };
        let preds: Vec<String> = self.exact_predicate().into_iter().chain(dfs_pred).collect();
        let extra = (!preds.is_empty()).then(|| preds.join(" and "));
        format!("//{}", self.pattern.ty.paper_form(extra.as_deref()))
    }

    /// A form without `dfs` that any XPath 1.0 engine evaluates on the raw
    /// page to the same elements; `None` for the paper's `dfs` types.
    pub fn xpath_portable(&self) -> Option<String> {
        let mut xpath = self.pattern.ty.portable_xpath(self.pattern.level)?;
        if let Some(pred) = self.exact_predicate() {
            xpath.push_str(&format!("[{pred}]"));
        }
        Some(xpath)
    }

    /// The XPath test of a narrowed pattern's whole value.
    fn exact_predicate(&self) -> Option<String> {
        let (name, value) = self.pattern.exact.as_ref()?;
        Some(format!("normalize-space(@{name})={}", xpath_literal(value)))
    }
}
