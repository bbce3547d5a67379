//! Terms of a page (tokenize, stop words, stem) and its tf-idf signifiers.
//!
//! This crate implements the "Signifiers" step of the Forest algorithm
//! (`shared/papers/forest.md` §3.1): the text of each page of a cluster is
//! tokenized, stop words are removed, the remaining words are stemmed, and the
//! top-k terms of a page by tf-idf over the cluster are that page's signifiers.
//!
//! * [`detect_language`] picks the [`Language`] of a page's analysis from
//!   its `<html lang>` value, or else by detection on a text sample;
//!   [`page_language`] reads the page's declared language (`<html lang>`,
//!   HTTP `Content-Language`, [`declared_code`]), and
//!   [`PageLanguage::of_text`] the ISO 639-1 code its article is reported
//!   in, over all the languages whatlang knows.
//! * [`Analyzer`] turns text into [`TermId`]s. It uses tantivy's
//!   `SimpleTokenizer` → `LowerCaser` → `StopWordFilter` chain and stems with
//!   `rust-stemmers` (Snowball); stems are memoised per surface form.
//! * [`top_k_tfidf`] ranks the terms of each page by tf-idf.
//!
//! # Tokenization choices
//!
//! * Tokens are maximal runs of alphanumeric characters (tantivy's
//!   `SimpleTokenizer`), lowercased, then filtered by the language's stop list
//!   (tantivy's: Lucene's 33 words for English, Snowball's lists for Danish,
//!   Dutch, Finnish, French, German, Hungarian, Italian, Norwegian, Portuguese,
//!   Russian, Spanish and Swedish; none for Romanian, Turkish, Greek, Arabic,
//!   Tamil and [`Language::Other`]).
//! * Tokens made only of numeric characters (`2005`, `64`) are dropped, and so
//!   are one-character tokens (`s` from `AMD's`) and tokens longer than
//!   [`MAX_TOKEN_CHARS`] characters (URLs, base64 junk).
//! * Han, Hiragana and Katakana characters are not separated by spaces, so
//!   `SimpleTokenizer` would return whole phrases: every such character is
//!   made a term of its own (a character unigram, not stemmed), which keeps
//!   one-character terms for these scripts. Hangul words are space-separated
//!   and are handled as ordinary tokens.
//! * The remaining tokens are stemmed with the language's Snowball stemmer
//!   (all languages but [`Language::Other`]).
//!
//! # tf-idf
//!
//! For a page `p` of `n` pages, with `count(t, p)` the occurrences of term `t`
//! in `p`, `|p|` the number of terms of `p` and `df(t)` the number of pages
//! holding `t`:
//!
//! ```text
//! tf(t, p)  = count(t, p) / |p|
//! idf(t)    = ln(n / df(t))        (1 when n = 1)
//! w(t, p)   = tf(t, p) * idf(t)
//! ```
//!
//! This is the classic idf the Forest paper names: a term on every page of
//! the cluster (menus, archive lists, the site's name) weighs 0 and is never
//! a signifier, which is what keeps signifiers off the template. With a
//! single page the ranking is by tf alone (the paper notes idf cannot help
//! there). Ties are broken by the term's string, so the result does not
//! depend on the order in which term ids were given out.
//!
//! # Example
//!
//! ```
//! use canopy_signifiers::{detect_language, top_k_tfidf, Analyzer, Language};
//!
//! let lang = detect_language(Some("en-US"), "");
//! assert_eq!(lang, Language::English);
//!
//! let mut analyzer = Analyzer::new();
//! let mut a = Vec::new();
//! analyzer.analyze("The runners were running in the park.", lang, &mut a);
//! let stems: Vec<&str> = a.iter().map(|&t| analyzer.term(t)).collect();
//! assert_eq!(stems, ["runner", "were", "run", "park"]);
//!
//! let mut b = Vec::new();
//! analyzer.analyze("A walk in the park.", lang, &mut b);
//! let top = top_k_tfidf(&[&a, &b], &analyzer, 1);
//! // "park" is on both pages; "run" only on the first.
//! assert_eq!(analyzer.term(top[0][0].0), "run");
//! assert_eq!(analyzer.term(top[1][0].0), "walk");
//! ```

mod analyzer;
mod language;
mod tfidf;

pub use analyzer::{is_cjk, keep as keep_token, Analyzer, Stems, TermId, MAX_TOKEN_CHARS};
pub use language::{
    declared_code, detect_language, page_language, whatlang_code, Language, PageLanguage,
};
pub use tfidf::{top_k_tfidf, top_k_tfidf_among, Background};
