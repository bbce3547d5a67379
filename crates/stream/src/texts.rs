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
}

impl TextRuns {
    /// Room for the runs of a page of `bytes` bytes: its text is a part of
    /// them.
    pub(crate) fn with_capacity(bytes: usize) -> TextRuns {
        TextRuns {
            runs: Vec::with_capacity(bytes / 256),
            buffer: String::with_capacity(bytes / 4),
            ..TextRuns::default()
        }
    }

    /// Adds text of the page, decoded as the tree holds it
    /// (`text_len::decode`), to the run of `parent`, `elements` being the
    /// body's elements made so far.
    pub(crate) fn push(&mut self, parent: u32, elements: u32, text: &str) {
        if self.open.is_none() {
            self.open = Some((parent, elements, self.buffer.len(), None));
            self.space = false;
        }
        self.push_collapsed(text);
    }

    /// Appends the words of `text` to the open run's, one space between
    /// two words that white space parts. What is already so (words
    /// parted by single spaces) is copied at once.
    fn push_collapsed(&mut self, text: &str) {
        let Some((_, _, _, lead)) = &mut self.open else {
            return;
        };
        let bytes = text.as_bytes();
        // The start of the stretch of words being read.
        let mut stretch: Option<usize> = None;
        let mut at = 0;
        while at < bytes.len() {
            let (white, width) = char_at(bytes, at);
            if !white {
                if stretch.is_none() {
                    match lead {
                        None => *lead = Some(self.space),
                        Some(_) if self.space => self.buffer.push(' '),
                        Some(_) => {}
                    }
                    self.space = false;
                    stretch = Some(at);
                }
                at += width;
                continue;
            }
            let single = bytes[at] == b' '
                && stretch.is_some()
                && at + 1 < bytes.len()
                && !char_at(bytes, at + 1).0;
            if !single {
                if let Some(from) = stretch.take() {
                    self.buffer.push_str(text.get(from..at).unwrap_or_default());
                }
                self.space = true;
            }
            at += width;
        }
        if let Some(from) = stretch {
            self.buffer.push_str(text.get(from..).unwrap_or_default());
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
        let runs: Vec<&Run> = self.runs.iter().filter(|r| !is_gone(r.parent)).collect();
        let text = |run: &Run| self.buffer.get(run.text.clone()).unwrap_or_default();
        let mut keys = Vec::with_capacity(runs.len());
        let mut node = String::new();
        let mut first = 0;
        while first < runs.len() {
            // The runs of one text node of the tree: one parent, nothing
            // the tree keeps between them.
            let mut end = first + 1;
            while runs.get(end).is_some_and(|r| {
                let last = runs[end - 1];
                last.parent == r.parent && (last.elements.end..r.elements.start).all(is_gone)
            }) {
                end += 1;
            }
            let key = if end == first + 1 {
                Some(text(runs[first]))
                    .filter(|t| !t.is_empty())
                    .map(text_key)
            } else {
                node.clear();
                let mut space = false;
                for &run in &runs[first..end] {
                    let text = text(run);
                    if text.is_empty() {
                        space |= run.lead;
                        continue;
                    }
                    if !node.is_empty() && (space || run.lead) {
                        node.push(' ');
                    }
                    node.push_str(text);
                    space = run.trail;
                }
                Some(node.as_str()).filter(|t| !t.is_empty()).map(text_key)
            };
            keys.extend(key);
            first = end;
        }
        keys.sort_unstable();
        keys.dedup();
        keys
    }
}

/// Whether the character at byte `at` of a UTF-8 text is white space
/// (`char::is_whitespace`), and its width. Only four lead bytes start a
/// white space character past ASCII (U+0085, U+00A0, U+1680, U+2000 to
/// U+3000): other characters are not decoded.
#[inline(always)]
fn char_at(bytes: &[u8], at: usize) -> (bool, usize) {
    let b = bytes[at];
    if b < 0x80 {
        return (b == b' ' || (b'\t'..=b'\r').contains(&b), 1);
    }
    wide_char_at(bytes, at)
}

/// [`char_at`] past ASCII.
fn wide_char_at(bytes: &[u8], at: usize) -> (bool, usize) {
    let b = bytes[at];
    let width = match b {
        0x80..=0xdf => 2,
        0xe0..=0xef => 3,
        _ => 4,
    };
    if !matches!(b, 0xc2 | 0xe1 | 0xe2 | 0xe3) {
        return (false, width);
    }
    let white = bytes
        .get(at..at + width)
        .and_then(|c| std::str::from_utf8(c).ok())
        .and_then(|c| c.chars().next())
        .is_some_and(char::is_whitespace);
    (white, width)
}

#[cfg(test)]
mod tests {
    use super::TextRuns;
    use canopy_dom::text_key;

    fn keys(runs: &[(u32, u32, &[&str])], gone: &[bool]) -> Vec<u64> {
        let mut texts = TextRuns::default();
        for &(parent, made, pieces) in runs {
            for piece in pieces {
                let mut text = String::new();
                crate::text_len::decode(piece, crate::text_len::Refs::Text, false, |c| {
                    text.push(c)
                });
                texts.push(parent, made, &text);
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
        // White space past ASCII is white space; other characters are not.
        assert_eq!(
            keys(&[(0, 0, &["\u{a0}é\u{2003}ü\u{3000}x\u{85}"])], &[false]),
            expected(&["é ü x"])
        );
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
