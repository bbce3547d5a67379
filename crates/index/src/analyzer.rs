//! tantivy tokenizers that give the same terms as the signifiers' analyzer
//! (`canopy_signifiers::Analyzer`), one per language.
//!
//! The chain, for a language `L`:
//!
//! ```text
//! SimpleTokenizer → LowerCaser → StopWordFilter(L) → CjkTerms → Stemmer(L)
//! ```
//!
//! The first three and the last are tantivy's; `CjkTerms` carries the
//! signifiers' own rules: a token with Han, Hiragana or Katakana characters
//! is split into one term per such character (the runs of other characters
//! between them are ordinary words), and an ordinary word is kept when it has
//! 2 to 40 characters and is not all digits (`canopy_signifiers::keep_token`).
//! Languages without a tantivy stop list or stemmer (see
//! `canopy_signifiers::Language`) skip that filter. The test below checks
//! that the terms equal the signifiers' on text in several languages.

use std::collections::VecDeque;

use canopy_signifiers::{is_cjk, keep_token, Language};
use tantivy::tokenizer::{
    Language as Stem, LowerCaser, SimpleTokenizer, Stemmer, StopWordFilter, TextAnalyzer, Token,
    TokenFilter, TokenStream, Tokenizer,
};

/// The name under which [`text_analyzer`] of `lang` is registered in an index.
pub fn tokenizer_name(lang: Language) -> String {
    format!("canopy_{}", lang.code())
}

/// The tantivy analyzer of `lang`.
pub fn text_analyzer(lang: Language) -> TextAnalyzer {
    let mut builder = TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(LowerCaser)
        .dynamic();
    if let Some(stop_words) = lang.stop_list().and_then(StopWordFilter::new) {
        builder = builder.filter_dynamic(stop_words);
    }
    builder = builder.filter_dynamic(CjkTerms);
    if let Some(stem) = stemmer_language(lang) {
        builder = builder.filter_dynamic(Stemmer::new(stem));
    }
    builder.build()
}

/// tantivy's stemmer language for `lang` (the same Snowball algorithm as
/// `Language::stemmer_algorithm`); `None` for [`Language::Other`].
fn stemmer_language(lang: Language) -> Option<Stem> {
    let stem = match lang {
        Language::English => Stem::English,
        Language::French => Stem::French,
        Language::German => Stem::German,
        Language::Spanish => Stem::Spanish,
        Language::Italian => Stem::Italian,
        Language::Portuguese => Stem::Portuguese,
        Language::Dutch => Stem::Dutch,
        Language::Russian => Stem::Russian,
        Language::Swedish => Stem::Swedish,
        Language::Norwegian => Stem::Norwegian,
        Language::Danish => Stem::Danish,
        Language::Finnish => Stem::Finnish,
        Language::Hungarian => Stem::Hungarian,
        Language::Romanian => Stem::Romanian,
        Language::Turkish => Stem::Turkish,
        Language::Greek => Stem::Greek,
        Language::Arabic => Stem::Arabic,
        Language::Tamil => Stem::Tamil,
        Language::Other => return None,
    };
    Some(stem)
}

/// The signifiers' term rules as a tantivy filter: CJK characters become
/// terms of their own, other words are kept by `keep_token`.
#[derive(Clone)]
struct CjkTerms;

impl TokenFilter for CjkTerms {
    type Tokenizer<T: Tokenizer> = CjkTermsFilter<T>;

    fn transform<T: Tokenizer>(self, tokenizer: T) -> CjkTermsFilter<T> {
        CjkTermsFilter { inner: tokenizer }
    }
}

#[derive(Clone)]
struct CjkTermsFilter<T> {
    inner: T,
}

impl<T: Tokenizer> Tokenizer for CjkTermsFilter<T> {
    type TokenStream<'a> = CjkTermsStream<T::TokenStream<'a>>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Self::TokenStream<'a> {
        CjkTermsStream {
            tail: self.inner.token_stream(text),
            pending: VecDeque::new(),
            current: Token::default(),
            extra_positions: 0,
        }
    }
}

struct CjkTermsStream<T> {
    tail: T,
    /// Terms split from the last token, not yet given out.
    pending: VecDeque<Token>,
    current: Token,
    /// Positions added by splitting, so that later tokens keep their order
    /// (phrase queries) after a token became several terms.
    extra_positions: usize,
}

impl<T: TokenStream> CjkTermsStream<T> {
    /// Splits a token with CJK characters into `pending`.
    fn split(&mut self, token: &Token) {
        let text = token.text.as_str();
        // Offsets of the pieces in the page text are exact when lowercasing
        // kept the byte length (always for CJK); otherwise each piece gets
        // the whole token's offsets.
        let exact = text.len() == token.offset_to.saturating_sub(token.offset_from);
        let mut position = token.position + self.extra_positions;
        let mut push = |pending: &mut VecDeque<Token>, from: usize, to: usize| {
            let Some(piece) = text.get(from..to) else {
                return;
            };
            let (offset_from, offset_to) = if exact {
                (token.offset_from + from, token.offset_from + to)
            } else {
                (token.offset_from, token.offset_to)
            };
            pending.push_back(Token {
                offset_from,
                offset_to,
                position,
                text: piece.to_string(),
                position_length: 1,
            });
            position += 1;
        };
        let mut run_start = 0;
        for (at, c) in text.char_indices() {
            if !is_cjk(c) {
                continue;
            }
            if at > run_start && text.get(run_start..at).is_some_and(keep_token) {
                push(&mut self.pending, run_start, at);
            }
            push(&mut self.pending, at, at + c.len_utf8());
            run_start = at + c.len_utf8();
        }
        if run_start < text.len() && text.get(run_start..).is_some_and(keep_token) {
            push(&mut self.pending, run_start, text.len());
        }
        self.extra_positions += self.pending.len().saturating_sub(1);
    }
}

impl<T: TokenStream> TokenStream for CjkTermsStream<T> {
    fn advance(&mut self) -> bool {
        loop {
            if let Some(token) = self.pending.pop_front() {
                self.current = token;
                return true;
            }
            if !self.tail.advance() {
                return false;
            }
            let token = self.tail.token().clone();
            if token.text.chars().any(is_cjk) {
                self.split(&token);
            } else if keep_token(&token.text) {
                self.current = Token {
                    position: token.position + self.extra_positions,
                    ..token
                };
                return true;
            }
        }
    }

    fn token(&self) -> &Token {
        &self.current
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.current
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use canopy_signifiers::Analyzer;

    fn index_terms(text: &str, lang: Language) -> Vec<String> {
        let mut analyzer = text_analyzer(lang);
        let mut stream = analyzer.token_stream(text);
        let mut out = Vec::new();
        while stream.advance() {
            out.push(stream.token().text.clone());
        }
        out
    }

    fn signifier_terms(text: &str, lang: Language) -> Vec<String> {
        let mut analyzer = Analyzer::new();
        let mut ids = Vec::new();
        analyzer.analyze(text, lang, &mut ids);
        ids.iter()
            .map(|&id| analyzer.term(id).to_string())
            .collect()
    }

    #[test]
    fn same_terms_as_the_signifiers() {
        let samples = [
            (
                "The runners were running in the park; AMD's 64-bit chips, 2005.",
                Language::English,
            ),
            (
                "Die Regierung hat beschlossen, die Steuern für Familien zu senken.",
                Language::German,
            ),
            (
                "Les coureurs couraient dans les parcs de la ville.",
                Language::French,
            ),
            (
                "Правительство решило снизить налоги для семей.",
                Language::Russian,
            ),
            ("東京は日本の首都, iPhone手机 und Straße", Language::Other),
            ("東京は日本の首都です。running", Language::English),
            (
                "Los corredores corrían por los parques de Madrid en 2013.",
                Language::Spanish,
            ),
        ];
        for (text, lang) in samples {
            let expected = signifier_terms(text, lang);
            assert!(!expected.is_empty());
            assert_eq!(index_terms(text, lang), expected, "{lang:?}: {text}");
        }
    }

    #[test]
    fn cjk_pieces_point_at_their_characters() {
        let text = "Tokyo 東京 x";
        let mut analyzer = text_analyzer(Language::Other);
        let mut stream = analyzer.token_stream(text);
        let mut pieces = Vec::new();
        while stream.advance() {
            let t = stream.token();
            pieces.push((
                text.get(t.offset_from..t.offset_to).unwrap().to_string(),
                t.position,
            ));
        }
        assert_eq!(
            pieces,
            [
                ("Tokyo".to_string(), 0),
                ("東".to_string(), 1),
                ("京".to_string(), 2)
            ]
        );
    }
}
