//! Languages with a stemmer and/or stop list, and language detection.

use rust_stemmers::Algorithm;

/// A language the analysis knows: one with a Snowball stemmer in
/// `rust-stemmers` (and, for some, a stop list in tantivy), or [`Other`].
///
/// [`Other`]: Language::Other
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Language {
    /// English (`en`): Lucene's 33 stop words, Snowball English (Porter2) stemmer.
    English,
    /// French (`fr`).
    French,
    /// German (`de`).
    German,
    /// Spanish (`es`).
    Spanish,
    /// Italian (`it`).
    Italian,
    /// Portuguese (`pt`).
    Portuguese,
    /// Dutch (`nl`).
    Dutch,
    /// Russian (`ru`).
    Russian,
    /// Swedish (`sv`).
    Swedish,
    /// Norwegian (`no`, `nb`, `nn`).
    Norwegian,
    /// Danish (`da`).
    Danish,
    /// Finnish (`fi`).
    Finnish,
    /// Hungarian (`hu`).
    Hungarian,
    /// Romanian (`ro`): stemmer, no stop list.
    Romanian,
    /// Turkish (`tr`): stemmer, no stop list.
    Turkish,
    /// Greek (`el`): stemmer, no stop list.
    Greek,
    /// Arabic (`ar`): stemmer, no stop list.
    Arabic,
    /// Tamil (`ta`): stemmer, no stop list.
    Tamil,
    /// Any other language (`und`): tokens are lowercased only, with no stop
    /// words and no stemming.
    Other,
}

impl Language {
    /// All the variants, in declaration order.
    pub const ALL: [Language; 19] = [
        Language::English,
        Language::French,
        Language::German,
        Language::Spanish,
        Language::Italian,
        Language::Portuguese,
        Language::Dutch,
        Language::Russian,
        Language::Swedish,
        Language::Norwegian,
        Language::Danish,
        Language::Finnish,
        Language::Hungarian,
        Language::Romanian,
        Language::Turkish,
        Language::Greek,
        Language::Arabic,
        Language::Tamil,
        Language::Other,
    ];

    /// The ISO 639-1 code of the language (`"en"`, `"fr"`, ...), `"und"` for
    /// [`Language::Other`].
    pub fn code(&self) -> &'static str {
        match self {
            Language::English => "en",
            Language::French => "fr",
            Language::German => "de",
            Language::Spanish => "es",
            Language::Italian => "it",
            Language::Portuguese => "pt",
            Language::Dutch => "nl",
            Language::Russian => "ru",
            Language::Swedish => "sv",
            Language::Norwegian => "no",
            Language::Danish => "da",
            Language::Finnish => "fi",
            Language::Hungarian => "hu",
            Language::Romanian => "ro",
            Language::Turkish => "tr",
            Language::Greek => "el",
            Language::Arabic => "ar",
            Language::Tamil => "ta",
            Language::Other => "und",
        }
    }

    /// Index of the variant in [`Language::ALL`].
    pub(crate) fn index(self) -> usize {
        self as usize
    }

    /// The language of a BCP 47 tag's primary subtag (`"en-GB"` → English),
    /// given as an ISO 639-1 code or an ISO 639-2/3 code (`"deu"`, `"ger"`).
    /// `None` for tags of languages outside this enum and for garbage.
    pub fn from_tag(tag: &str) -> Option<Language> {
        let primary = tag.trim().split(['-', '_']).next()?.to_ascii_lowercase();
        let lang = match primary.as_str() {
            "en" | "eng" => Language::English,
            "fr" | "fra" | "fre" => Language::French,
            "de" | "deu" | "ger" => Language::German,
            "es" | "spa" => Language::Spanish,
            "it" | "ita" => Language::Italian,
            "pt" | "por" => Language::Portuguese,
            "nl" | "nld" | "dut" => Language::Dutch,
            "ru" | "rus" => Language::Russian,
            "sv" | "swe" => Language::Swedish,
            "no" | "nb" | "nn" | "nor" | "nob" | "nno" => Language::Norwegian,
            "da" | "dan" => Language::Danish,
            "fi" | "fin" => Language::Finnish,
            "hu" | "hun" => Language::Hungarian,
            "ro" | "ron" | "rum" | "mo" => Language::Romanian,
            "tr" | "tur" => Language::Turkish,
            "el" | "ell" | "gre" => Language::Greek,
            "ar" | "ara" => Language::Arabic,
            "ta" | "tam" => Language::Tamil,
            _ => return None,
        };
        Some(lang)
    }

    /// The language of a whatlang detection; [`Language::Other`] for the
    /// languages whatlang knows and this enum does not.
    fn from_whatlang(lang: whatlang::Lang) -> Language {
        use whatlang::Lang;
        match lang {
            Lang::Eng => Language::English,
            Lang::Fra => Language::French,
            Lang::Deu => Language::German,
            Lang::Spa => Language::Spanish,
            Lang::Ita => Language::Italian,
            Lang::Por => Language::Portuguese,
            Lang::Nld => Language::Dutch,
            Lang::Rus => Language::Russian,
            Lang::Swe => Language::Swedish,
            Lang::Nob => Language::Norwegian,
            Lang::Dan => Language::Danish,
            Lang::Fin => Language::Finnish,
            Lang::Hun => Language::Hungarian,
            Lang::Ron => Language::Romanian,
            Lang::Tur => Language::Turkish,
            Lang::Ell => Language::Greek,
            Lang::Ara => Language::Arabic,
            Lang::Tam => Language::Tamil,
            _ => Language::Other,
        }
    }

    /// The Snowball algorithm of the language, `None` for [`Language::Other`].
    pub fn stemmer_algorithm(self) -> Option<Algorithm> {
        let algorithm = match self {
            Language::English => Algorithm::English,
            Language::French => Algorithm::French,
            Language::German => Algorithm::German,
            Language::Spanish => Algorithm::Spanish,
            Language::Italian => Algorithm::Italian,
            Language::Portuguese => Algorithm::Portuguese,
            Language::Dutch => Algorithm::Dutch,
            Language::Russian => Algorithm::Russian,
            Language::Swedish => Algorithm::Swedish,
            Language::Norwegian => Algorithm::Norwegian,
            Language::Danish => Algorithm::Danish,
            Language::Finnish => Algorithm::Finnish,
            Language::Hungarian => Algorithm::Hungarian,
            Language::Romanian => Algorithm::Romanian,
            Language::Turkish => Algorithm::Turkish,
            Language::Greek => Algorithm::Greek,
            Language::Arabic => Algorithm::Arabic,
            Language::Tamil => Algorithm::Tamil,
            Language::Other => return None,
        };
        Some(algorithm)
    }

    /// tantivy's language for the stop list, `None` where tantivy has no list.
    pub fn stop_list(self) -> Option<tantivy::tokenizer::Language> {
        use tantivy::tokenizer::Language as T;
        let lang = match self {
            Language::English => T::English,
            Language::French => T::French,
            Language::German => T::German,
            Language::Spanish => T::Spanish,
            Language::Italian => T::Italian,
            Language::Portuguese => T::Portuguese,
            Language::Dutch => T::Dutch,
            Language::Russian => T::Russian,
            Language::Swedish => T::Swedish,
            Language::Norwegian => T::Norwegian,
            Language::Danish => T::Danish,
            Language::Finnish => T::Finnish,
            Language::Hungarian => T::Hungarian,
            Language::Romanian
            | Language::Turkish
            | Language::Greek
            | Language::Arabic
            | Language::Tamil
            | Language::Other => return None,
        };
        Some(lang)
    }
}

/// Characters of the sample given to whatlang.
const MAX_SAMPLE_CHARS: usize = 4096;

/// Characters of an article's text given to whatlang
/// ([`PageLanguage::of_text`]), about 150 words: enough for a sure
/// detection of an article (512, 1024 and 4096 give the same codes on the
/// corpora but for one Norwegian page, which 4096 calls `nb` and the others
/// its declared `no`). whatlang's cost is mostly per call, not per
/// character.
const TEXT_SAMPLE_CHARS: usize = 1024;

/// Fewest letters of a sample whose detection is taken as sure: below it a
/// detection counts as unsure, whatever whatlang's confidence (a short
/// menu or a caption says little about a page's language).
const MIN_SURE_LETTERS: usize = 20;

/// The language of a page.
///
/// `html_lang` is the value of the page's `<html lang>` attribute, if any
/// (`"en-US"`, `"fr"`, `"deu"`): when its primary subtag names a language of
/// [`Language`] but [`Language::Other`], that language is returned. Otherwise
/// whatlang detects the language of `sample` (a few hundred characters of the
/// page's text are enough); only a reliable detection (whatlang's
/// `is_reliable`, confidence above 0.9) is used, and a reliable detection of a
/// language outside this enum gives [`Language::Other`]. Without a reliable
/// detection the result is [`Language::English`]. Only the first
/// 4096 characters of `sample` are looked at.
///
/// This is the language a page's terms are analysed in; the language its
/// article is reported in is [`PageLanguage::of_text`]'s.
pub fn detect_language(html_lang: Option<&str>, sample: &str) -> Language {
    if let Some(lang) = html_lang.and_then(Language::from_tag) {
        return lang;
    }
    match whatlang::detect(cut(sample, MAX_SAMPLE_CHARS)) {
        Some(info) if info.is_reliable() => Language::from_whatlang(info.lang()),
        _ => Language::English,
    }
}

/// The first `chars` characters of `sample`.
fn cut(sample: &str, chars: usize) -> &str {
    match sample.char_indices().nth(chars) {
        Some((end, _)) => sample.get(..end).unwrap_or(sample),
        None => sample,
    }
}

/// The language a page declares, from which [`PageLanguage::of_text`]
/// tells the language its article is reported in. (The language its terms
/// are analysed in is [`detect_language`]'s.)
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct PageLanguage {
    /// The ISO 639-1 code of the language the page declares: its
    /// `<html lang>` (or `xml:lang`), else its `<meta http-equiv=
    /// "Content-Language">`, else its HTTP `Content-Language`, the order of
    /// HTML's rule for a document's language ([`declared_code`]); `None`
    /// when it declares none that is usable.
    pub declared: Option<&'static str>,
}

/// The language a page declares, from its `<html lang>` (or `xml:lang`)
/// value `html_lang` and its other declarations `content_language` in their
/// order of precedence (the `content` of `<meta http-equiv=
/// "Content-Language">`, then the HTTP `Content-Language` header): the
/// first usable one is [`PageLanguage::declared`].
pub fn page_language(html_lang: Option<&str>, content_language: &[Option<&str>]) -> PageLanguage {
    PageLanguage {
        declared: std::iter::once(html_lang)
            .chain(content_language.iter().copied())
            .flatten()
            .find_map(declared_code),
    }
}

impl PageLanguage {
    /// The ISO 639-1 code of `text`, a text of this page (its article), over
    /// every language whatlang knows, in order:
    ///
    /// 1. whatlang's detection of `text` when it is sure: whatlang's
    ///    `is_reliable` and at least `MIN_SURE_LETTERS` letters. A sure
    ///    detection wins over a declared language that differs
    ///    (docs/algorithms.md, "Language": measured on trafbench, where
    ///    most such pages are a template's `lang="en"` over an article in
    ///    another language);
    /// 2. else the page's declared language ([`PageLanguage::declared`]);
    /// 3. else whatlang's unsure detection;
    /// 4. else `None`, reported as `und`: no declaration and no letter.
    ///
    /// Only the first `TEXT_SAMPLE_CHARS` characters of `text` are looked
    /// at.
    pub fn of_text(&self, text: &str) -> Option<&'static str> {
        let text = cut(text, TEXT_SAMPLE_CHARS);
        let letters = text
            .chars()
            .filter(|c| c.is_alphabetic())
            .take(MIN_SURE_LETTERS)
            .count();
        if letters == 0 {
            // whatlang guesses a language for text without letters ("12 ©").
            return self.declared;
        }
        let detection = whatlang::detect(text);
        let sure =
            letters >= MIN_SURE_LETTERS && detection.as_ref().is_some_and(|i| i.is_reliable());
        let detected = detection.map(|info| whatlang_code(info.lang()));
        match detected {
            Some(code) if sure => Some(code),
            _ => self.declared.or(detected),
        }
    }
}

/// The ISO 639-1 code of a language whatlang detects: from ISO 639-3
/// (`Lang::code`) by the tables of the `isolang` crate (ISO 639-3's code
/// table), and for the two individual languages whatlang names whose
/// ISO 639-1 code is their macrolanguage's, that code: Mandarin (`cmn`) is
/// `zh` (Chinese, `zho`) and Iranian Persian (`pes`) is `fa` (Persian,
/// `fas`), as ISO 639-3's macrolanguage table has them.
pub fn whatlang_code(lang: whatlang::Lang) -> &'static str {
    match lang {
        whatlang::Lang::Cmn => "zh",
        whatlang::Lang::Pes => "fa",
        other => isolang::Language::from_639_3(other.code())
            .and_then(|l| l.to_639_1())
            // Every other language of whatlang 0.18 has an ISO 639-1 code
            // (the unit test `every_whatlang_language_has_a_code`).
            .unwrap_or("und"),
    }
}

/// The ISO 639-1 code of a declared language: an `<html lang>` value, a
/// `Content-Language` header (its first usable entry of a list:
/// `"de-CH, en"` → `de`) or a locale (`"en_US.UTF-8"`). Only the primary
/// subtag counts, case-insensitive: an ISO 639-1 code, or an ISO 639-2/3
/// code of a language that has one (`"deu"`, `"ger"`); the retired
/// ISO 639-1 codes still in use are read as their successors (`iw` → `he`,
/// `in` → `id`, `ji` → `yi`, `jw` → `jv`, `mo` → `ro`). Anything else is
/// `None`: empty values, `und`, `mul`, private use (`x-…`), template
/// placeholders, codes that do not exist.
pub fn declared_code(value: &str) -> Option<&'static str> {
    value.split(',').find_map(|entry| {
        // `de-CH;q=0.8` in lists that borrow Accept-Language's form.
        let tag = entry.split(';').next().unwrap_or_default().trim();
        let primary = tag.split(['-', '_', '.', '@']).next().unwrap_or_default();
        if !(2..=3).contains(&primary.len()) || !primary.bytes().all(|b| b.is_ascii_alphabetic()) {
            return None;
        }
        let primary = primary.to_ascii_lowercase();
        if let Some(code) = retired_639_1(&primary).or_else(|| bibliographic_639_2(&primary)) {
            return Some(code);
        }
        let lang = match primary.len() {
            2 => isolang::Language::from_639_1(&primary),
            _ => isolang::Language::from_639_3(&primary),
        };
        lang.and_then(|l| l.to_639_1())
    })
}

/// ISO 639-1 codes withdrawn by the standard that pages and locales still
/// declare (Java wrote `iw`, `in` and `ji` until version 17), and their
/// successors.
fn retired_639_1(code: &str) -> Option<&'static str> {
    Some(match code {
        "iw" => "he",
        "in" => "id",
        "ji" => "yi",
        "jw" => "jv",
        "mo" => "ro",
        _ => return None,
    })
}

/// The ISO 639-1 codes of the twenty ISO 639-2 bibliographic (B) codes
/// that differ from the terminology (T) code ISO 639-3 uses (the
/// standard's code list); `isolang` knows the T codes only.
fn bibliographic_639_2(code: &str) -> Option<&'static str> {
    Some(match code {
        "alb" => "sq",
        "arm" => "hy",
        "baq" => "eu",
        "bur" => "my",
        "chi" => "zh",
        "cze" => "cs",
        "dut" => "nl",
        "fre" => "fr",
        "geo" => "ka",
        "ger" => "de",
        "gre" => "el",
        "ice" => "is",
        "mac" => "mk",
        "mao" => "mi",
        "may" => "ms",
        "per" => "fa",
        "rum" => "ro",
        "slo" => "sk",
        "tib" => "bo",
        "wel" => "cy",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_matches_all() {
        for (i, lang) in Language::ALL.iter().enumerate() {
            assert_eq!(lang.index(), i);
        }
    }

    #[test]
    fn codes_round_trip() {
        for lang in Language::ALL {
            if lang == Language::Other {
                assert_eq!(Language::from_tag(lang.code()), None);
            } else {
                assert_eq!(Language::from_tag(lang.code()), Some(lang));
            }
        }
    }

    #[test]
    fn long_samples_are_cut() {
        let german = "Die Regierung hat beschlossen, die Steuern zu senken. ";
        let english = "The government decided to cut taxes for small firms. ";
        let sample = german.repeat(200) + &english.repeat(2000);
        assert!(sample.chars().count() > 10 * MAX_SAMPLE_CHARS);
        assert_eq!(detect_language(None, &sample), Language::German);
    }

    #[test]
    fn every_whatlang_language_has_a_code() {
        let mut seen = std::collections::HashSet::new();
        for &lang in whatlang::Lang::all() {
            let code = whatlang_code(lang);
            assert_eq!(code.len(), 2, "{lang:?} → {code}");
            assert_eq!(declared_code(code), Some(code), "{lang:?}");
            assert!(seen.insert(code), "{lang:?}: {code} twice");
        }
        assert_eq!(seen.len(), 70);
        assert_eq!(whatlang_code(whatlang::Lang::Cmn), "zh");
        assert_eq!(whatlang_code(whatlang::Lang::Jpn), "ja");
        assert_eq!(whatlang_code(whatlang::Lang::Pol), "pl");
        assert_eq!(whatlang_code(whatlang::Lang::Ell), "el");
        assert_eq!(whatlang_code(whatlang::Lang::Nob), "nb");
        assert_eq!(whatlang_code(whatlang::Lang::Pes), "fa");
        // The stemmer languages report the code they always had, but Norwegian
        // (whatlang knows Bokmål, `nb`).
        for lang in Language::ALL {
            let back = whatlang::Lang::all()
                .iter()
                .find(|&&w| Language::from_whatlang(w) == lang && lang != Language::Other);
            if let Some(&w) = back {
                let want = if lang == Language::Norwegian {
                    "nb"
                } else {
                    lang.code()
                };
                assert_eq!(whatlang_code(w), want);
            }
        }
    }

    #[test]
    fn declared_codes() {
        assert_eq!(declared_code("de-ch"), Some("de"));
        assert_eq!(declared_code("EN_us"), Some("en"));
        assert_eq!(declared_code(" zh-Hans-CN "), Some("zh"));
        assert_eq!(declared_code("en_US.UTF-8"), Some("en"));
        assert_eq!(declared_code("de-CH, en"), Some("de"));
        assert_eq!(declared_code("x-klingon, fr;q=0.8"), Some("fr"));
        assert_eq!(declared_code("deu"), Some("de"));
        assert_eq!(declared_code("GER"), Some("de"));
        assert_eq!(declared_code("ell"), Some("el"));
        assert_eq!(declared_code("iw"), Some("he"));
        assert_eq!(declared_code("pl-PL"), Some("pl"));
        // Garbage, placeholders, codes with no ISO 639-1 code.
        for value in [
            "",
            "  ",
            "-",
            "e",
            "english",
            "zz",
            "xx-YY",
            "und",
            "mul",
            "zxx",
            "x-klingon",
            "i-klingon",
            "{{lang}}",
            "<?php echo $lang ?>",
            "*",
            "e1",
            "日本語",
            "cmn",
        ] {
            assert_eq!(declared_code(value), None, "{value:?}");
        }
    }

    #[test]
    fn reported_code() {
        let german = "Die Regierung hat beschlossen, die Steuern zu senken. ";
        let chinese = "国务院总理今天在北京主持召开国务院常务会议，部署进一步促进消费的措施。";
        // Sure detection: the detected language, whatever is declared.
        let page = page_language(Some("en"), &[Some("en")]);
        assert_eq!(page.declared, Some("en"));
        assert_eq!(detect_language(Some("en"), chinese), Language::English);
        assert_eq!(page.of_text(chinese), Some("zh"));
        assert_eq!(page_language(None, &[None]).of_text(german), Some("de"));
        // Unsure: the declared language, <html lang> first.
        let short = "Kontakt";
        assert_eq!(
            page_language(None, &[Some("de-ch")]).of_text(short),
            Some("de")
        );
        assert_eq!(
            page_language(Some("fr"), &[Some("de-ch")]).of_text(short),
            Some("fr")
        );
        assert_eq!(
            page_language(Some("zz"), &[Some("de-ch")]).of_text(short),
            Some("de")
        );
        // `<meta http-equiv>` before the HTTP header; garbage is skipped.
        let meta_then_header = page_language(None, &[Some("fr"), Some("de")]);
        assert_eq!(meta_then_header.declared, Some("fr"));
        let garbage_meta = page_language(None, &[Some("UTF-8"), Some("de-ch")]);
        assert_eq!(garbage_meta.declared, Some("de"));
        // Nothing declared: the unsure guess; no letters either: unknown.
        assert!(page_language(None, &[None]).of_text(short).is_some());
        assert_eq!(page_language(None, &[None]).of_text("12 345 — ©"), None);
        assert_eq!(
            page_language(None, &[Some("pl")]).of_text("12 345"),
            Some("pl")
        );
    }

    #[test]
    fn tags() {
        assert_eq!(Language::from_tag("en-GB"), Some(Language::English));
        assert_eq!(Language::from_tag(" PT_br "), Some(Language::Portuguese));
        assert_eq!(Language::from_tag("nb-NO"), Some(Language::Norwegian));
        assert_eq!(Language::from_tag("ger"), Some(Language::German));
        assert_eq!(Language::from_tag("zh-CN"), None);
        assert_eq!(Language::from_tag(""), None);
    }
}
