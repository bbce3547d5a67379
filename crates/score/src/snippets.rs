//! trafilatura's snippet score (`tests/eval_common.py` in adbar/trafilatura), used by
//! corpora whose gold is a list of text snippets per page rather than a full text.
//!
//! The output and every snippet are whitespace-normalised ([`normalize_whitespace`]). A
//! `with` snippet (one the main content must contain) found as a substring of the output
//! is a true positive, else a false negative; a `without` snippet (boilerplate) found is a
//! false positive, else a true negative. A page with no output finds nothing. The corpus
//! score sums the counts over all pages, then takes precision, recall and F of the sums
//! ([`SnippetCounts::prf`]): a micro average, not a mean of per-page scores.

use std::iter::Sum;
use std::ops::AddAssign;

use crate::Prf;

/// The snippet outcomes of one page, or their sums over a corpus.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SnippetCounts {
    /// `with` snippets found in the output.
    pub tp: usize,
    /// `with` snippets not found.
    pub fn_: usize,
    /// `without` snippets found.
    pub fp: usize,
    /// `without` snippets not found.
    pub tn: usize,
}

impl SnippetCounts {
    /// `P = tp / (tp + fp)`, `R = tp / (tp + fn)`, F their harmonic mean; a division by
    /// zero counts as 0.
    ///
    /// ```
    /// use canopy_score::SnippetCounts;
    /// let c = SnippetCounts { tp: 3, fn_: 1, fp: 1, tn: 5 };
    /// let s = c.prf();
    /// assert_eq!((s.precision, s.recall, s.f1), (0.75, 0.75, 0.75));
    /// ```
    pub fn prf(&self) -> Prf {
        Prf::from_counts(self.tp, self.tp + self.fp, self.tp + self.fn_)
    }
}

impl AddAssign for SnippetCounts {
    fn add_assign(&mut self, other: SnippetCounts) {
        self.tp += other.tp;
        self.fn_ += other.fn_;
        self.fp += other.fp;
        self.tn += other.tn;
    }
}

impl Sum for SnippetCounts {
    fn sum<I: Iterator<Item = SnippetCounts>>(iter: I) -> SnippetCounts {
        let mut total = SnippetCounts::default();
        for c in iter {
            total += c;
        }
        total
    }
}

/// Python's whitespace (`str.isspace`, what `re`'s `\s` matches): Rust's
/// [`char::is_whitespace`] plus the four information separators U+001C–U+001F.
fn is_python_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Runs of whitespace to one space, trimmed: Python's `re.sub(r"\s+", " ", s).strip()`.
///
/// ```
/// assert_eq!(canopy_score::normalize_whitespace(" a\t\n b\u{a0}c "), "a b c");
/// ```
pub fn normalize_whitespace(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text.split(is_python_space).filter(|w| !w.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// Scores one page's `output` against its `with` and `without` snippets.
///
/// ```
/// use canopy_score::{snippet_counts, SnippetCounts};
/// let c = snippet_counts("The article.\nIts  text.", &["article. Its text"], &["Menu"]);
/// assert_eq!(c, SnippetCounts { tp: 1, fn_: 0, fp: 0, tn: 1 });
/// ```
pub fn snippet_counts<S: AsRef<str>>(output: &str, with: &[S], without: &[S]) -> SnippetCounts {
    let out = normalize_whitespace(output);
    let found = |s: &S| !out.is_empty() && out.contains(normalize_whitespace(s.as_ref()).as_str());
    let tp = with.iter().filter(|s| found(s)).count();
    let fp = without.iter().filter(|s| found(s)).count();
    SnippetCounts {
        tp,
        fn_: with.len() - tp,
        fp,
        tn: without.len() - fp,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_is_normalised_on_both_sides() {
        assert_eq!(
            normalize_whitespace("\t a \r\n\n b\u{a0}\u{a0}c\u{3000}"),
            "a b c"
        );
        assert_eq!(normalize_whitespace("x\u{1f}y\u{2009}z"), "x y z");
        assert_eq!(normalize_whitespace(" \n\t"), "");
        // Tabs, newlines and no-break spaces in the output and in the snippets.
        let out = "Die bumm\u{a0}film GmbH\n\tbietet Web und\r\nLive-Entertainment";
        let with = ["Die bumm film  GmbH bietet", "Web und Live-Entertainment\n"];
        let without = ["film\tGmbH", "Kontakt"];
        assert_eq!(
            snippet_counts(out, &with, &without),
            SnippetCounts {
                tp: 2,
                fn_: 0,
                fp: 1,
                tn: 1
            }
        );
    }

    #[test]
    fn matching_is_case_and_punctuation_sensitive() {
        let c = snippet_counts("Hello, world", &["hello, world", "Hello,world"], &[]);
        assert_eq!((c.tp, c.fn_), (0, 2));
    }

    #[test]
    fn empty_output_finds_nothing() {
        let with = ["a", ""];
        let without = ["b", " "];
        for out in ["", " \n\u{a0}\t"] {
            assert_eq!(
                snippet_counts(out, &with, &without),
                SnippetCounts {
                    tp: 0,
                    fn_: 2,
                    fp: 0,
                    tn: 2
                }
            );
        }
    }

    #[test]
    fn corpus_score_is_over_summed_counts() {
        // Page 1: 2 of 2 `with` found, 1 of 1 `without` found; page 2: nothing found.
        let pages = [
            snippet_counts("a b c", &["a b", "c"], &["b c"]),
            snippet_counts("", &["x", "y"], &["z"]),
        ];
        let total: SnippetCounts = pages.iter().copied().sum();
        assert_eq!(
            total,
            SnippetCounts {
                tp: 2,
                fn_: 2,
                fp: 1,
                tn: 1
            }
        );
        // P = 2/3, R = 2/4, F = 2·(1/3)/(7/6) = 4/7 — not the mean of per-page F.
        let s = total.prf();
        assert!((s.precision - 2.0 / 3.0).abs() < 1e-12);
        assert!((s.recall - 0.5).abs() < 1e-12);
        assert!((s.f1 - 4.0 / 7.0).abs() < 1e-12);
        assert_eq!(SnippetCounts::default().prf(), Prf::ZERO);
    }
}
