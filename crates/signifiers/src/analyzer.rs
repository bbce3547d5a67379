//! Text → term ids: tantivy tokenization and stop words, rust-stemmers stems.

use std::cell::RefCell;
use std::fmt;

use rust_stemmers::Stemmer;
use rustc_hash::FxHashMap;
use tantivy::tokenizer::{LowerCaser, SimpleTokenizer, StopWordFilter, TextAnalyzer, TokenStream};

use crate::language::Language;

/// Tokens longer than this many characters are dropped (URLs, base64 and
/// other run-together junk).
pub const MAX_TOKEN_CHARS: usize = 40;

/// A term (a stem) of an [`Analyzer`]: an index into its interner. Ids are
/// given out in order of first appearance, so they depend on the order of the
/// [`Analyzer::analyze`] calls; results never depend on them (ties are broken
/// by the term's string).
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct TermId(pub u32);

/// Turns text into term ids.
///
/// One `Analyzer` gives the term ids of one template cluster (the pipeline
/// learns each cluster with its own); text analyzed elsewhere, by each
/// thread's own analyzer ([`Analyzer::with_thread_analyzer`]), joins it by
/// [`Analyzer::adopt`].
/// It owns the term interner (`TermId` → stem), and, per language,
/// built on first use and reused afterwards: the tantivy `TextAnalyzer` (`SimpleTokenizer` →
/// `LowerCaser` → `StopWordFilter`), the `rust-stemmers` stemmer and a memo
/// from lowercased surface form to its term (or to nothing when the token is
/// dropped). The memo grows with the vocabulary analyzed. A memoised
/// token costs one hash lookup and no allocation; the stems themselves are
/// also cached per thread, across analyzers (`STEMS`).
///
/// See the crate documentation for the tokenization rules.
pub struct Analyzer {
    langs: Vec<Option<LangState>>,
    interner: Interner,
}

/// What an [`Analyzer`] keeps for one language.
struct LangState {
    text: TextAnalyzer,
    stemmer: Option<Stemmer>,
    memo: FxHashMap<Box<str>, Option<TermId>>,
}

/// Stem strings ↔ dense ids.
#[derive(Default)]
struct Interner {
    ids: FxHashMap<Box<str>, TermId>,
    terms: Vec<Box<str>>,
}

impl Interner {
    fn intern(&mut self, term: &str) -> TermId {
        if let Some(&id) = self.ids.get(term) {
            return id;
        }
        let id = TermId(u32::try_from(self.terms.len()).expect("more than 2^32 terms"));
        self.terms.push(term.into());
        self.ids.insert(term.into(), id);
        id
    }
}

impl LangState {
    fn new(lang: Language) -> LangState {
        let builder = TextAnalyzer::builder(SimpleTokenizer::default()).filter(LowerCaser);
        let text = match lang.stop_list().and_then(StopWordFilter::new) {
            Some(stop_words) => builder.filter(stop_words).build(),
            None => builder.build(),
        };
        LangState {
            text,
            stemmer: lang.stemmer_algorithm().map(Stemmer::create),
            memo: FxHashMap::default(),
        }
    }
}

impl Default for Analyzer {
    fn default() -> Self {
        Analyzer::new()
    }
}

impl fmt::Debug for Analyzer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let langs: Vec<&str> = crate::language::Language::ALL
            .iter()
            .zip(&self.langs)
            .filter(|(_, state)| state.is_some())
            .map(|(lang, _)| lang.code())
            .collect();
        f.debug_struct("Analyzer")
            .field("terms", &self.interner.terms.len())
            .field("languages", &langs)
            .finish()
    }
}

impl Analyzer {
    /// An analyzer with no terms; the per-language parts are built on first
    /// use of each language.
    pub fn new() -> Self {
        Analyzer {
            langs: Language::ALL.iter().map(|_| None).collect(),
            interner: Interner::default(),
        }
    }

    /// Appends the terms of `text` (tokenized, lowercased, stop words and
    /// dropped tokens removed, stemmed by `lang`'s stemmer) to `out`, in text
    /// order.
    pub fn analyze(&mut self, text: &str, lang: Language, out: &mut Vec<TermId>) {
        let Analyzer { langs, interner } = self;
        let state = langs[lang.index()].get_or_insert_with(|| LangState::new(lang));
        let LangState {
            text: analyzer,
            stemmer,
            memo,
        } = state;
        let stemmer = stemmer.as_ref().map(|s| (s, lang.index()));
        let mut stream = analyzer.token_stream(text);
        while stream.advance() {
            let token = stream.token().text.as_str();
            if token.is_ascii() || !token.chars().any(is_cjk) {
                word(token, stemmer, memo, interner, out);
            } else {
                split_cjk(token, stemmer, memo, interner, out);
            }
        }
    }

    /// The stem of a term.
    ///
    /// # Panics
    ///
    /// If `id` was not given out by this analyzer.
    pub fn term(&self, id: TermId) -> &str {
        &self.interner.terms[id.0 as usize]
    }

    /// The stems of `ids`, in that order, apart from this analyzer.
    pub fn stems(&self, ids: impl IntoIterator<Item = TermId>) -> Stems {
        let mut stems = Stems::default();
        for id in ids {
            stems.text.push_str(self.term(id));
            stems.ends.push(stems.text.len());
        }
        stems
    }

    /// This analyzer's ids for `stems`, by position; the stems it does not
    /// have yet are interned in that order. Text analyzed in parts (in
    /// parallel, by other analyzers), each part's stems listed in order of
    /// first appearance and adopted part after part, gets the ids one
    /// analyzer reading the parts in that order would have given.
    pub fn adopt(&mut self, stems: &Stems) -> Vec<TermId> {
        stems
            .iter()
            .map(|stem| self.interner.intern(stem))
            .collect()
    }

    /// Runs `f` with this thread's own analyzer, which keeps its memos
    /// from call to call (the pages a thread analyzes share most of their
    /// vocabulary); its ids mean nothing outside it, so hand its terms on
    /// as [`Stems`]. Started anew once it holds `THREAD_ANALYZER_MAX`
    /// terms, so that its memory does not grow with the crawl.
    pub fn with_thread_analyzer<R>(f: impl FnOnce(&mut Analyzer) -> R) -> R {
        THREAD_ANALYZER.with_borrow_mut(|analyzer| {
            if analyzer.num_terms() >= THREAD_ANALYZER_MAX {
                *analyzer = Analyzer::new();
            }
            f(analyzer)
        })
    }

    /// The id of `stem`, if this analyzer has given it out.
    pub fn id_of(&self, stem: &str) -> Option<TermId> {
        self.interner.ids.get(stem).copied()
    }

    /// Number of distinct terms given out so far (ids are `0..num_terms`).
    pub(crate) fn num_terms(&self) -> usize {
        self.interner.terms.len()
    }
}

/// Stems in a list of their own, detached from the [`Analyzer`] that made
/// them ([`Analyzer::stems`], [`Analyzer::adopt`]).
#[derive(Debug, Default, Clone)]
pub struct Stems {
    text: String,
    /// Where each stem ends in `text`.
    ends: Vec<usize>,
}

impl<'a> FromIterator<&'a str> for Stems {
    fn from_iter<I: IntoIterator<Item = &'a str>>(stems: I) -> Stems {
        let mut out = Stems::default();
        for stem in stems {
            out.text.push_str(stem);
            out.ends.push(out.text.len());
        }
        out
    }
}

impl Stems {
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts
            .zip(&self.ends)
            .map(|(start, &end)| self.text.get(start..end).unwrap_or(""))
    }
}

/// Most terms a thread's own analyzer holds before it starts anew
/// ([`Analyzer::with_thread_analyzer`]): ≈ 150 bytes a term with its memo
/// entries, so ≈ 10 MB per thread at the most.
const THREAD_ANALYZER_MAX: usize = 1 << 16;

/// Most stems a thread keeps per language in its cache (see [`STEMS`]):
/// ≈ 100 bytes an entry, so ≈ 6.5 MB per language in use at the most.
const STEM_CACHE_MAX: usize = 1 << 16;

thread_local! {
    /// [`Analyzer::with_thread_analyzer`]'s analyzer.
    static THREAD_ANALYZER: RefCell<Analyzer> = RefCell::new(Analyzer::new());

    /// The stems this thread has computed, per language (by
    /// [`Language::index`]). An analyzer's memo serves one analyzer and
    /// starts empty, but the pages one thread goes through share most of
    /// their vocabulary, and stemming is the costliest step of a token's first
    /// sight. A stem depends only on the token and the language, so what the
    /// cache holds never changes a result. Emptied when it reaches
    /// [`STEM_CACHE_MAX`] entries, so that its memory does not grow with the
    /// crawl.
    static STEMS: RefCell<Vec<FxHashMap<Box<str>, Box<str>>>> =
        RefCell::new(Language::ALL.iter().map(|_| FxHashMap::default()).collect());
}

/// `token`'s term: its stem by `stemmer` (through the thread's [`STEMS`]
/// cache), or the token itself without one; `None` for an empty stem.
fn stem_id(
    token: &str,
    stemmer: Option<(&Stemmer, usize)>,
    interner: &mut Interner,
) -> Option<TermId> {
    let Some((stemmer, lang)) = stemmer else {
        return (!token.is_empty()).then(|| interner.intern(token));
    };
    STEMS.with_borrow_mut(|stems| {
        let cache = &mut stems[lang];
        if let Some(stem) = cache.get(token) {
            return (!stem.is_empty()).then(|| interner.intern(stem));
        }
        let stem = stemmer.stem(token);
        let id = (!stem.is_empty()).then(|| interner.intern(&stem));
        if cache.len() >= STEM_CACHE_MAX {
            cache.clear();
        }
        cache.insert(token.into(), stem.into());
        id
    })
}

/// A token without CJK characters: memo lookup, else keep/drop, stem, intern.
fn word(
    token: &str,
    stemmer: Option<(&Stemmer, usize)>,
    memo: &mut FxHashMap<Box<str>, Option<TermId>>,
    interner: &mut Interner,
    out: &mut Vec<TermId>,
) {
    let id = match memo.get(token) {
        Some(&id) => id,
        None => {
            let id = if keep(token) {
                stem_id(token, stemmer, interner)
            } else {
                None
            };
            memo.insert(token.into(), id);
            id
        }
    };
    out.extend(id);
}

/// Whether a (non-CJK) token is a term: 2 to [`MAX_TOKEN_CHARS`] characters,
/// not all numeric.
pub fn keep(token: &str) -> bool {
    let chars = token.chars().count();
    (2..=MAX_TOKEN_CHARS).contains(&chars) && !token.chars().all(char::is_numeric)
}

/// A token with CJK characters: each CJK character is a term (not stemmed);
/// the runs of other characters between them are ordinary words.
fn split_cjk(
    token: &str,
    stemmer: Option<(&Stemmer, usize)>,
    memo: &mut FxHashMap<Box<str>, Option<TermId>>,
    interner: &mut Interner,
    out: &mut Vec<TermId>,
) {
    let mut run_start = 0;
    for (at, c) in token.char_indices() {
        if !is_cjk(c) {
            continue;
        }
        if let Some(run) = token.get(run_start..at).filter(|run| !run.is_empty()) {
            word(run, stemmer, memo, interner, out);
        }
        let mut buf = [0u8; 4];
        out.push(interner.intern(c.encode_utf8(&mut buf)));
        run_start = at + c.len_utf8();
    }
    if let Some(run) = token.get(run_start..).filter(|run| !run.is_empty()) {
        word(run, stemmer, memo, interner, out);
    }
}

/// Han ideographs, Hiragana and Katakana: scripts written without spaces
/// between words.
pub fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{3040}'..='\u{30FF}'     // Hiragana, Katakana
        | '\u{31F0}'..='\u{31FF}'   // Katakana phonetic extensions
        | '\u{3400}'..='\u{4DBF}'   // CJK extension A
        | '\u{4E00}'..='\u{9FFF}'   // CJK unified ideographs
        | '\u{F900}'..='\u{FAFF}'   // CJK compatibility ideographs
        | '\u{FF66}'..='\u{FF9D}'   // halfwidth Katakana
        | '\u{20000}'..='\u{323AF}' // CJK extensions B..H
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stems(analyzer: &mut Analyzer, text: &str, lang: Language) -> Vec<String> {
        let mut out = Vec::new();
        analyzer.analyze(text, lang, &mut out);
        out.iter().map(|&id| analyzer.term(id).to_owned()).collect()
    }

    #[test]
    fn analyzer_is_send() {
        fn send<T: Send>() {}
        send::<Analyzer>();
    }

    #[test]
    fn digits_and_single_chars_dropped() {
        let mut a = Analyzer::new();
        assert_eq!(
            stems(&mut a, "AMD's 64-bit chip, 2005 x86 ½ Ⅻ", Language::English),
            ["amd", "bit", "chip", "x86"]
        );
    }

    #[test]
    fn long_tokens_dropped() {
        let mut a = Analyzer::new();
        let long = "a".repeat(MAX_TOKEN_CHARS + 1);
        let ok = "b".repeat(MAX_TOKEN_CHARS);
        let got = stems(&mut a, &format!("{long} {ok}"), Language::Other);
        assert_eq!(got, [ok]);
    }

    #[test]
    fn cjk_characters_are_terms() {
        let mut a = Analyzer::new();
        // SimpleTokenizer alone returns "東京は日本の首都" as one token.
        assert_eq!(
            stems(&mut a, "東京は日本の首都, iPhone手机", Language::Other),
            ["東", "京", "は", "日", "本", "の", "首", "都", "iphone", "手", "机"]
        );
    }

    #[test]
    fn memo_gives_same_ids_and_ids_are_dense() {
        let mut a = Analyzer::new();
        let mut first = Vec::new();
        a.analyze("Running runs; RUNNING!", Language::English, &mut first);
        assert_eq!(first.len(), 3);
        assert_eq!(first[0], first[1]);
        assert_eq!(first[0], first[2]);
        assert_eq!(a.term(first[0]), "run");
        assert_eq!(a.num_terms(), 1);
        let mut second = Vec::new();
        a.analyze("running", Language::English, &mut second);
        assert_eq!(second, [first[0]]);
    }

    #[test]
    fn stem_cache_keeps_languages_apart() {
        // One thread, two analyzers: the second finds "katzen" in the
        // thread's cache of English stems, which must not answer for German.
        let mut en = Analyzer::new();
        let mut de = Analyzer::new();
        assert_eq!(stems(&mut en, "katzen", Language::English), ["katzen"]);
        assert_eq!(stems(&mut de, "katzen", Language::German), ["katz"]);
        assert_eq!(
            stems(&mut Analyzer::new(), "katzen", Language::English),
            ["katzen"]
        );
    }

    #[test]
    fn stem_cache_emptied_at_its_cap_gives_the_same_stems() {
        let stemmer = Stemmer::create(rust_stemmers::Algorithm::English);
        let tokens: Vec<String> = (0..STEM_CACHE_MAX + 10)
            .map(|i| format!("walking{i}s"))
            .collect();
        for round in 0..2 {
            let mut a = Analyzer::new();
            for token in tokens.iter().step_by(997).chain(tokens.last()) {
                let want = stemmer.stem(token);
                assert_eq!(stems(&mut a, token, Language::English), [&*want], "{round}");
            }
            // Fill the cache past its cap.
            let mut out = Vec::new();
            a.analyze(&tokens.join(" "), Language::English, &mut out);
            assert_eq!(out.len(), tokens.len());
            STEMS.with_borrow(|s| assert!(s[Language::English.index()].len() <= STEM_CACHE_MAX));
        }
    }

    #[test]
    fn languages_share_the_interner_but_not_the_memo() {
        let mut a = Analyzer::new();
        // English stop word "it" is no French stop word; "die" is a German one.
        assert_eq!(stems(&mut a, "it die", Language::English), ["die"]);
        assert_eq!(stems(&mut a, "it die", Language::German), ["it"]);
        assert_eq!(stems(&mut a, "it die", Language::Other), ["it", "die"]);
        assert_eq!(a.num_terms(), 2);
    }
}
