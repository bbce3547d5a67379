//! The terms of every text node of a page, computed once and reused.

use canopy_dom::{Document, NodeId};

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
