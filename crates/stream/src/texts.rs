//! The keys of a page's text nodes as the tree holds them
//! (`canopy_dom::text_key` of each one, whitespace collapsed), read from
//! the pass's runs of text: what site-level cleaning counts across a
//! cluster's pages (`canopy_extract::Residue`), without the tree.
//!
//! The tree's text nodes are not the tokenizer's: the tree merges two
//! texts of one parent that a comment or a dropped element (a script, a
//! hidden element, a block the drop list drops) kept apart. Which blocks
//! the drop list drops is known only at the page's end, so the runs are
//! kept, each with its parent and the elements made before it, and merged
//! then.

use std::ops::Range;

use canopy_dom::text_key;

use crate::text_len::{decode, needs_decoding};

/// One run of text: text between two tags of the page that the tree puts
/// in one parent, or several that the pass joined.
struct Run {
    /// The parent element's index among the body's elements.
    parent: u32,
    /// The body's elements made before it started and when it ended.
    elements: Range<u32>,
    /// Its text collapsed, in the buffer.
    text: Range<usize>,
    /// White space before its first word, or all of it when it is blank.
    lead: bool,
    /// White space after its last word.
    trail: bool,
}

/// The runs of a page's text.
#[derive(Default)]
pub(crate) struct TextRuns {
    runs: Vec<Run>,
    buffer: String,
    /// The run being read: its parent, the elements made before it, where
    /// its text starts in the buffer, whether white space came before its
    /// first word.
    open: Option<(u32, u32, usize, Option<bool>)>,
    /// White space since the last word of the open run.
    space: bool,
    decoded: String,
}

impl TextRuns {
    /// Adds text of the page to the run of `parent`, `elements` being the
    /// body's elements made so far; `refs` and `nul` say how the tree
    /// decodes it (`text_len::decode`).
    pub(crate) fn push(&mut self, parent: u32, elements: u32, raw: &str, refs: bool, nul: bool) {
        if self.open.is_none() {
            self.open = Some((parent, elements, self.buffer.len(), None));
            self.space = false;
        }
        if needs_decoding(raw) {
            let mut decoded = std::mem::take(&mut self.decoded);
            decoded.clear();
            decode(raw, refs, nul, |c| decoded.push(c));
            self.push_collapsed(&decoded);
            self.decoded = decoded;
        } else {
            self.push_collapsed(raw);
        }
    }

    fn push_collapsed(&mut self, text: &str) {
        let Some((_, _, start, lead)) = &mut self.open else {
            return;
        };
        let mut rest = text;
        loop {
            let word = rest.trim_start();
            self.space |= word.len() != rest.len();
            if word.is_empty() {
                break;
            }
            let end = word.find(char::is_whitespace).unwrap_or(word.len());
            match lead {
                None => *lead = Some(self.space),
                Some(_) if self.space => self.buffer.push(' '),
                Some(_) => {}
            }
            debug_assert!(self.buffer.len() >= *start);
            let (word, after) = word.split_at(end);
            self.buffer.push_str(word);
            self.space = false;
            rest = after;
        }
    }

    /// Ends the run being read, `elements` being the body's elements made
    /// so far.
    pub(crate) fn end(&mut self, elements: u32) {
        let Some((parent, made, start, lead)) = self.open.take() else {
            return;
        };
        self.runs.push(Run {
            parent,
            elements: made..elements,
            text: start..self.buffer.len(),
            lead: lead.unwrap_or(self.space),
            trail: self.space,
        });
    }

    /// The keys of the tree's text nodes, sorted, each once, given which
    /// of the body's elements the tree does not hold (`gone`, subtrees
    /// included).
    pub(crate) fn keys(mut self, gone: &[bool]) -> Vec<u64> {
        self.end(gone.len() as u32);
        let is_gone = |e: u32| gone.get(e as usize).copied().unwrap_or(true);
        let mut keys = Vec::with_capacity(self.runs.len());
        let mut node = String::new();
        let mut last: Option<&Run> = None;
        let mut node_trail = false;
        for run in self.runs.iter().filter(|r| !is_gone(r.parent)) {
            let text = self.buffer.get(run.text.clone()).unwrap_or_default();
            let joins = last.is_some_and(|l| {
                l.parent == run.parent && (l.elements.end..run.elements.start).all(is_gone)
            });
            if !joins {
                if !node.is_empty() {
                    keys.push(text_key(&node));
                }
                node.clear();
                node_trail = false;
            }
            if !text.is_empty() {
                if !node.is_empty() && (node_trail || run.lead) {
                    node.push(' ');
                }
                node.push_str(text);
                node_trail = run.trail;
            } else {
                node_trail |= run.lead;
            }
            last = Some(run);
        }
        if !node.is_empty() {
            keys.push(text_key(&node));
        }
        keys.sort_unstable();
        keys.dedup();
        keys
    }
}

#[cfg(test)]
mod tests {
    use super::TextRuns;
    use canopy_dom::text_key;

    fn keys(runs: &[(u32, u32, &[&str])], gone: &[bool]) -> Vec<u64> {
        let mut texts = TextRuns::default();
        for &(parent, made, pieces) in runs {
            for piece in pieces {
                texts.push(parent, made, piece, true, false);
            }
            texts.end(made);
        }
        texts.keys(gone)
    }

    fn expected(texts: &[&str]) -> Vec<u64> {
        let mut keys: Vec<u64> = texts.iter().map(|t| text_key(t)).collect();
        keys.sort_unstable();
        keys.dedup();
        keys
    }

    #[test]
    fn runs_collapse_and_join_as_the_tree_joins_texts() {
        // One run of pieces: white space collapsed across them, references
        // decoded.
        assert_eq!(
            keys(
                &[(0, 0, &["  Fish ", " &amp;\r\n", "chips", "!"])],
                &[false]
            ),
            expected(&["Fish & chips!"])
        );
        // Two runs of one parent with a kept element made between them
        // stay two texts; with that element gone, they are one.
        let runs: &[(u32, u32, &[&str])] = &[(0, 1, &["a "]), (0, 2, &["b"])];
        assert_eq!(keys(runs, &[false, false]), expected(&["a", "b"]));
        assert_eq!(keys(runs, &[false, true]), expected(&["a b"]));
        // No white space between them: one word.
        let runs: &[(u32, u32, &[&str])] = &[(0, 1, &["a"]), (0, 1, &["b"])];
        assert_eq!(keys(runs, &[false, false]), expected(&["ab"]));
        // A blank run between two runs is a space.
        let runs: &[(u32, u32, &[&str])] = &[(0, 1, &["a"]), (0, 1, &["  "]), (0, 1, &["b"])];
        assert_eq!(keys(runs, &[false, false]), expected(&["a b"]));
        // A gone parent's text is not the tree's; a repeated text is one key.
        let runs: &[(u32, u32, &[&str])] = &[(0, 1, &["x"]), (1, 2, &["y"]), (0, 2, &[" x"])];
        assert_eq!(keys(runs, &[false, true]), expected(&["x x"]));
        assert_eq!(keys(runs, &[false, false]), expected(&["x", "y"]));
    }
}
