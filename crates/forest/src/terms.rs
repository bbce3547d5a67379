//! The terms of every text node of a page, computed once and reused.

use canopy_dom::{Document, NodeId};
use rustc_hash::FxHashMap;

/// Term ids of each text node of a page, in one flat buffer.
///
/// Term ids come from any interner (Canopy uses `canopy-signifiers`); Forest
/// only compares them.
#[derive(Debug, Clone, Default)]
pub struct NodeTerms {
    /// `offsets[n]..offsets[n + 1]` are node `n`'s terms in `terms`.
    offsets: Vec<u32>,
    terms: Vec<u32>,
}

impl NodeTerms {
    /// Analyzes every text node of `doc` with `analyze(text, out)`, which
    /// appends the text's term ids to `out`.
    pub fn build(doc: &Document, mut analyze: impl FnMut(&str, &mut Vec<u32>)) -> NodeTerms {
        let mut offsets = Vec::with_capacity(doc.len() + 1);
        let mut terms = Vec::new();
        offsets.push(0);
        for n in 0..doc.len() {
            if let Some(text) = doc.text(n) {
                analyze(text, &mut terms);
            }
            offsets.push(terms.len() as u32);
        }
        NodeTerms { offsets, terms }
    }

    /// Renumbers the term ids 0, 1, … in order of first appearance, and
    /// returns the old id of each new one.
    pub fn renumber(&mut self) -> Vec<u32> {
        let mut new_ids: FxHashMap<u32, u32> = FxHashMap::default();
        let mut old_ids = Vec::new();
        for term in &mut self.terms {
            *term = *new_ids.entry(*term).or_insert_with(|| {
                old_ids.push(*term);
                old_ids.len() as u32 - 1
            });
        }
        old_ids
    }

    /// Replaces every term id by `id(term)`: the ids of another interner.
    pub fn remap(&mut self, id: impl Fn(u32) -> u32) {
        for term in &mut self.terms {
            *term = id(*term);
        }
    }

    /// The terms of node `n` (empty for elements).
    pub fn of(&self, n: NodeId) -> &[u32] {
        match (self.offsets.get(n), self.offsets.get(n + 1)) {
            (Some(&a), Some(&b)) => &self.terms[a as usize..b as usize],
            _ => &[],
        }
    }

    /// The terms of a subtree (`start..end` node range), in order.
    pub fn of_range(&self, start: NodeId, end: NodeId) -> &[u32] {
        match (self.offsets.get(start), self.offsets.get(end)) {
            (Some(&a), Some(&b)) => &self.terms[a as usize..b as usize],
            _ => &[],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use canopy_dom::DomOptions;

    #[test]
    fn renumber_follows_first_appearance() {
        let doc = Document::parse(
            "<p>a b</p><div>c <b>a</b></div><p>d b</p>",
            &DomOptions::default(),
        );
        // Ids from some other interner: a=7, b=3, c=9, d=5.
        let id = |w: &str| match w {
            "a" => 7,
            "b" => 3,
            "c" => 9,
            _ => 5,
        };
        let mut terms = NodeTerms::build(&doc, |text, out| {
            out.extend(text.split_whitespace().map(id));
        });
        let before = terms.terms.clone();
        assert_eq!(before, [7, 3, 9, 7, 5, 3]);
        let old_ids = terms.renumber();
        assert_eq!(old_ids, [7, 3, 9, 5]);
        assert_eq!(terms.terms, [0, 1, 2, 0, 3, 1]);
        // Node boundaries are untouched.
        let body = doc.body();
        assert_eq!(terms.of_range(body, doc.node(body).end).len(), 6);
        terms.remap(|t| old_ids[t as usize]);
        assert_eq!(terms.terms, before);
    }
}
