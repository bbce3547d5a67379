//! The quality score: bigram, token and LCS precision, recall and F1.
//!
//! This crate implements the reference definition in `shared/corpora/README.md`, the one
//! every Canopy evaluation reports, plus a character-level LCS figure as used by the
//! BlockExtractor and text-density papers. Each page is scored on its own
//! ([`score_page`]); a corpus score is the plain mean of the page scores ([`mean`]).
//! Corpora whose gold is snippets (trafbench) are scored by trafilatura's rule instead:
//! [`snippet_counts`] per page, precision/recall/F over the corpus's summed counts.
//!
//! # Definitions
//!
//! **Tokens** ([`tokens`]): the text is lowercased, then split into runs of word characters
//! (general category `L*`/`N*` or `_`, i.e. Python's `re` `\w`); every Han, Hiragana or
//! Katakana character ([`CJK_RANGES`]) is a token of its own. Hangul is not split (Korean
//! is written with spaces between words).
//!
//! **Bigram score** (the Forest paper's measure): with `S` and `G` the *sets* of consecutive
//! token pairs of the output and the gold, `P = |G ∩ S| / |S|`, `R = |G ∩ S| / |G|`,
//! `F1 = 2PR / (P + R)`. Pairs run across line breaks: the token sequence of the whole text
//! is used.
//!
//! **Token score**: the same on token *multisets* (`|G ∩ S| = Σ min(count_S, count_G)`,
//! `|S|` and `|G|` the token counts).
//!
//! **LCS score**: `P = L / |S|`, `R = L / |G|`, `F1 = 2PR / (P + R)`, where the texts are
//! taken as sequences of `char`s with all whitespace removed (the text-density paper
//! ignores spaces "in both automatic and manual extracted texts"), case kept, no other
//! normalisation, and `L` is the length of their longest common subsequence. Each text is
//! capped at [`LCS_MAX_CHARS`] characters for this figure only.
//!
//! # Edge cases
//!
//! - **No output**: an output with no tokens scores 0 for bigram and token P/R/F1; an
//!   output with no non-whitespace character scores 0 for LCS too. This holds even when
//!   the gold is empty as well ("a page with no output scores 0").
//! - **Empty gold, some output**: P = R = F1 = 0 (nothing in the output is right, and a
//!   recall of 0/0 counts as 0).
//! - **Fewer than two tokens on one side** (no bigrams there, e.g. a one-word gold): the
//!   bigram score falls back to the *sets of single tokens* on both sides for that page,
//!   so a one-word gold matched exactly by a one-word output scores 1.
//! - **Zero overlap**: F1 = 0 (when P + R = 0).
//!
//! `scripts/peers/score_ref.py` is a small Python reference implementation of the bigram
//! and token scores with the same definitions; the test `tests/reference.rs` checks this
//! crate against values it produced.
//!
//! # Example
//!
//! ```
//! use canopy_score::{mean, score_page};
//!
//! let gold = "The quick brown fox.";
//! let page = score_page("the quick brown dog", gold);
//! // Bigrams: S = {the quick, quick brown, brown dog}, G = {the quick, quick brown,
//! // brown fox}: 2 shared, P = R = F1 = 2/3. Tokens: 3 of 4 shared: P = R = 3/4.
//! assert!((page.bigram.f1 - 2.0 / 3.0).abs() < 1e-12);
//! assert!((page.token.precision - 0.75).abs() < 1e-12);
//! // LCS over "thequickbrowndog" (16 chars) and "Thequickbrownfox." (17 chars):
//! // "hequickbrowno" (13 chars): P = 13/16, R = 13/17.
//! assert!((page.lcs.precision - 13.0 / 16.0).abs() < 1e-12);
//! assert!((page.lcs.recall - 13.0 / 17.0).abs() < 1e-12);
//!
//! let empty = score_page("", gold);
//! assert_eq!(empty.bigram.f1, 0.0);
//! let corpus = mean(&[page, empty]);
//! assert!((corpus.bigram.f1 - 1.0 / 3.0).abs() < 1e-12);
//! ```

mod lcs;
mod snippets;
mod tokens;

use std::collections::{HashMap, HashSet};
use std::hash::Hash;

pub use lcs::{lcs_len, LCS_MAX_CHARS};
pub use snippets::{normalize_whitespace, snippet_counts, SnippetCounts};
pub use tokens::{is_cjk, tokens, CJK_RANGES};

/// Precision, recall and their harmonic mean F1, each in `[0, 1]`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Prf {
    /// Share of the output that is in the gold.
    pub precision: f64,
    /// Share of the gold that is in the output.
    pub recall: f64,
    /// Harmonic mean of precision and recall; 0 when both are 0.
    pub f1: f64,
}

impl Prf {
    /// All zeros: the score of a page with no output.
    pub const ZERO: Prf = Prf {
        precision: 0.0,
        recall: 0.0,
        f1: 0.0,
    };

    /// From the size of the overlap and of each side: `P = common / output`,
    /// `R = common / gold`, a division by zero counting as 0.
    ///
    /// ```
    /// let s = canopy_score::Prf::from_counts(2, 4, 2);
    /// assert_eq!((s.precision, s.recall), (0.5, 1.0));
    /// assert!((s.f1 - 2.0 / 3.0).abs() < 1e-12);
    /// ```
    pub fn from_counts(common: usize, output: usize, gold: usize) -> Prf {
        let ratio = |num: usize, den: usize| {
            if den == 0 {
                0.0
            } else {
                num as f64 / den as f64
            }
        };
        Prf::from_pr(ratio(common, output), ratio(common, gold))
    }

    /// From precision and recall; F1 is their harmonic mean, 0 when both are 0.
    pub fn from_pr(precision: f64, recall: f64) -> Prf {
        let f1 = if precision + recall > 0.0 {
            2.0 * precision * recall / (precision + recall)
        } else {
            0.0
        };
        Prf {
            precision,
            recall,
            f1,
        }
    }
}

/// The three scores of one page (or their means over a corpus).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PageScore {
    /// Sets of consecutive token pairs (the Forest paper's measure).
    pub bigram: Prf,
    /// Token multisets.
    pub token: Prf,
    /// Character longest common subsequence, whitespace removed.
    pub lcs: Prf,
}

impl PageScore {
    /// All zeros: the score of a page with no output.
    pub const ZERO: PageScore = PageScore {
        bigram: Prf::ZERO,
        token: Prf::ZERO,
        lcs: Prf::ZERO,
    };
}

/// Scores one page's extracted `output` against its `gold` text.
///
/// See the crate documentation for the exact definitions and edge cases.
///
/// ```
/// use canopy_score::score_page;
/// let s = score_page("a b a b", "a b c");
/// // Bigram sets: S = {ab, ba}, G = {ab, bc}: P = 1/2, R = 1/2.
/// assert_eq!((s.bigram.precision, s.bigram.recall), (0.5, 0.5));
/// // Token multisets: S = {a:2, b:2}, G = {a, b, c}: common 2, P = 2/4, R = 2/3.
/// assert_eq!(s.token.precision, 0.5);
/// ```
pub fn score_page(output: &str, gold: &str) -> PageScore {
    let out_lower = output.to_lowercase();
    let gold_lower = gold.to_lowercase();
    let out_tokens = tokens::token_slices(&out_lower);
    let gold_tokens = tokens::token_slices(&gold_lower);

    let (bigram, token) = if out_tokens.is_empty() {
        (Prf::ZERO, Prf::ZERO)
    } else {
        (
            bigram_score(&out_tokens, &gold_tokens),
            token_score(&out_tokens, &gold_tokens),
        )
    };
    PageScore {
        bigram,
        token,
        lcs: lcs_score(output, gold),
    }
}

fn bigram_score(out: &[&str], gold: &[&str]) -> Prf {
    if out.len() < 2 || gold.len() < 2 {
        // No bigrams on at least one side: fall back to sets of single tokens.
        return set_score(out.iter().copied(), gold.iter().copied());
    }
    set_score(
        out.windows(2).map(|w| (w[0], w[1])),
        gold.windows(2).map(|w| (w[0], w[1])),
    )
}

fn set_score<T: Eq + Hash>(out: impl Iterator<Item = T>, gold: impl Iterator<Item = T>) -> Prf {
    let out: HashSet<T> = out.collect();
    let gold: HashSet<T> = gold.collect();
    let common = out.iter().filter(|x| gold.contains(*x)).count();
    Prf::from_counts(common, out.len(), gold.len())
}

fn token_score(out: &[&str], gold: &[&str]) -> Prf {
    let mut gold_counts: HashMap<&str, usize> = HashMap::new();
    for &t in gold {
        *gold_counts.entry(t).or_insert(0) += 1;
    }
    let mut common = 0;
    for &t in out {
        if let Some(n) = gold_counts.get_mut(t) {
            if *n > 0 {
                *n -= 1;
                common += 1;
            }
        }
    }
    Prf::from_counts(common, out.len(), gold.len())
}

fn lcs_score(output: &str, gold: &str) -> Prf {
    let out = lcs::lcs_chars(output);
    if out.is_empty() {
        return Prf::ZERO;
    }
    let gold = lcs::lcs_chars(gold);
    Prf::from_counts(lcs_len(&out, &gold), out.len(), gold.len())
}

/// The mean of each of the nine figures over `scores` (F1 is the mean of the per-page
/// F1s, not the F1 of the mean precision and recall). An empty slice gives all zeros.
///
/// ```
/// use canopy_score::{mean, score_page, PageScore};
/// let m = mean(&[score_page("a b", "a b"), PageScore::ZERO]);
/// assert_eq!(m.bigram.f1, 0.5);
/// assert_eq!(mean(&[]), PageScore::ZERO);
/// ```
pub fn mean(scores: &[PageScore]) -> PageScore {
    if scores.is_empty() {
        return PageScore::ZERO;
    }
    let n = scores.len() as f64;
    let avg = |f: &dyn Fn(&PageScore) -> Prf| {
        let (p, r, f1) = scores.iter().map(f).fold((0.0, 0.0, 0.0), |acc, s| {
            (acc.0 + s.precision, acc.1 + s.recall, acc.2 + s.f1)
        });
        Prf {
            precision: p / n,
            recall: r / n,
            f1: f1 / n,
        }
    };
    PageScore {
        bigram: avg(&|s| s.bigram),
        token: avg(&|s| s.token),
        lcs: avg(&|s| s.lcs),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    fn assert_prf(got: Prf, p: f64, r: f64, f1: f64) {
        assert!(
            close(got.precision, p) && close(got.recall, r) && close(got.f1, f1),
            "got {got:?}, want P={p} R={r} F1={f1}"
        );
    }

    #[test]
    fn empty_output_scores_zero() {
        assert_eq!(score_page("", "some gold text"), PageScore::ZERO);
        assert_eq!(score_page("  \n\t ", "some gold text"), PageScore::ZERO);
        // Even when the gold is empty too.
        assert_eq!(score_page("", ""), PageScore::ZERO);
        // Punctuation only: no tokens (bigram/token 0), but LCS sees the characters:
        // out "..." (3 chars), gold "a." (2 chars), LCS "." = 1: P = 1/3, R = 1/2,
        // F1 = 2·(1/6)/(5/6) = 2/5.
        let s = score_page("...", "a.");
        assert_eq!(s.bigram, Prf::ZERO);
        assert_eq!(s.token, Prf::ZERO);
        assert_prf(s.lcs, 1.0 / 3.0, 0.5, 0.4);
    }

    #[test]
    fn empty_gold_scores_zero() {
        assert_eq!(score_page("some output", ""), PageScore::ZERO);
    }

    #[test]
    fn identical_text_scores_one() {
        let s = score_page("Hello big world", "Hello big world");
        for prf in [s.bigram, s.token, s.lcs] {
            assert_prf(prf, 1.0, 1.0, 1.0);
        }
    }

    #[test]
    fn repeated_tokens_set_vs_multiset() {
        // out tokens: a a a b          gold tokens: a b b
        // Bigram sets: S = {aa, ab}, G = {ab, bb}; common {ab} = 1.
        //   P = 1/2, R = 1/2, F1 = 1/2.
        // Token multisets: S = {a:3, b:1} (4), G = {a:1, b:2} (3);
        //   common = min(3,1) + min(1,2) = 2. P = 2/4, R = 2/3,
        //   F1 = 2·(1/2)(2/3)/(1/2 + 2/3) = (2/3)/(7/6) = 4/7.
        let s = score_page("a a a b", "a b b");
        assert_prf(s.bigram, 0.5, 0.5, 0.5);
        assert_prf(s.token, 0.5, 2.0 / 3.0, 4.0 / 7.0);
        // LCS on "aaab" vs "abb": "ab" = 2. P = 2/4, R = 2/3, F1 = 4/7.
        assert_prf(s.lcs, 0.5, 2.0 / 3.0, 4.0 / 7.0);
    }

    #[test]
    fn duplicated_output_keeps_bigram_precision_but_not_token_precision() {
        // out: "x y x y" → bigram set {xy, yx}; gold "x y" → {xy}. Common 1:
        //   P = 1/2, R = 1, F1 = 2/3.
        // Tokens: S = {x:2, y:2} (4), G = {x, y} (2): common 2, P = 1/2, R = 1, F1 = 2/3.
        let s = score_page("x y. X Y!", "x y");
        assert_prf(s.bigram, 0.5, 1.0, 2.0 / 3.0);
        assert_prf(s.token, 0.5, 1.0, 2.0 / 3.0);
        // The same text repeated: bigram set {xy, yx} vs {xy, yx}: all 1; tokens all 1.
        let s = score_page("x y x y", "x y x y x y");
        assert_prf(s.bigram, 1.0, 1.0, 1.0);
        // Tokens: S (4) vs G (6): common 4, P = 1, R = 4/6, F1 = 2·(2/3)/(5/3) = 4/5.
        assert_prf(s.token, 1.0, 2.0 / 3.0, 0.8);
    }

    #[test]
    fn punctuation_and_case_are_ignored_by_tokens() {
        // Same tokens [hello, world, it, s, fine] on both sides.
        let s = score_page("HELLO, world!!! It's... fine", "hello world -- it s fine");
        assert_prf(s.bigram, 1.0, 1.0, 1.0);
        assert_prf(s.token, 1.0, 1.0, 1.0);
        // LCS is case-sensitive and keeps punctuation: strictly below 1.
        assert!(s.lcs.f1 < 1.0);
    }

    #[test]
    fn cjk_each_character_is_a_token() {
        // out: 東京 タワー → tokens 東 京 タ ワ ー (5), bigrams {東京, 京タ, タワ, ワー}
        // gold: 東京の塔 → tokens 東 京 の 塔 (4), bigrams {東京, 京の, の塔}
        // Bigram common {東京} = 1: P = 1/4, R = 1/3, F1 = 2·(1/12)/(7/12) = 2/7.
        // Token common {東, 京} = 2: P = 2/5, R = 2/4, F1 = 2·(1/5)/(9/10) = 4/9.
        let s = score_page("東京 タワー", "東京の塔");
        assert_prf(s.bigram, 0.25, 1.0 / 3.0, 2.0 / 7.0);
        assert_prf(s.token, 0.4, 0.5, 4.0 / 9.0);
        // LCS: "東京タワー" (5) vs "東京の塔" (4): "東京" = 2. P = 2/5, R = 1/2, F1 = 4/9.
        assert_prf(s.lcs, 0.4, 0.5, 4.0 / 9.0);
    }

    #[test]
    fn single_token_falls_back_to_unigram_sets() {
        // gold "Hello" has one token, no bigrams: unigram sets.
        // out {hello, there} vs gold {hello}: common 1, P = 1/2, R = 1, F1 = 2/3.
        let s = score_page("hello there", "Hello");
        assert_prf(s.bigram, 0.5, 1.0, 2.0 / 3.0);
        // One token on each side, equal: 1.
        assert_prf(score_page("hello!", "HELLO").bigram, 1.0, 1.0, 1.0);
        // One output token, many gold tokens: out {b} vs gold {a, b, c}:
        // P = 1, R = 1/3, F1 = 2·(1/3)/(4/3) = 1/2.
        assert_prf(score_page("b", "a b c").bigram, 1.0, 1.0 / 3.0, 0.5);
    }

    #[test]
    fn bigrams_span_lines() {
        // "a\nb" has the bigram (a, b) across the line break.
        assert_prf(score_page("a\nb", "a b").bigram, 1.0, 1.0, 1.0);
    }

    #[test]
    fn lcs_ignores_whitespace() {
        // "ab c" → "abc", "a bc\n" → "abc": identical.
        assert_prf(score_page("ab c", "a bc\n").lcs, 1.0, 1.0, 1.0);
    }

    #[test]
    fn mean_of_pages() {
        let a = score_page("a b", "a b"); // all 1
        let b = score_page("a a a b", "a b b"); // bigram 1/2, token P 1/2 R 2/3
        let m = mean(&[a, b, PageScore::ZERO]);
        assert!(close(m.bigram.f1, (1.0 + 0.5 + 0.0) / 3.0));
        assert!(close(m.token.recall, (1.0 + 2.0 / 3.0) / 3.0));
        assert!(close(m.token.f1, (1.0 + 4.0 / 7.0) / 3.0));
    }
}
