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
pub fn detect_language(html_lang: Option<&str>, sample: &str) -> Language {
    if let Some(lang) = html_lang.and_then(Language::from_tag) {
        return lang;
    }
    let sample = match sample.char_indices().nth(MAX_SAMPLE_CHARS) {
        Some((end, _)) => sample.get(..end).unwrap_or(sample),
        None => sample,
    };
    match whatlang::detect(sample) {
        Some(info) if info.is_reliable() => Language::from_whatlang(info.lang()),
        _ => Language::English,
    }
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
    fn tags() {
        assert_eq!(Language::from_tag("en-GB"), Some(Language::English));
        assert_eq!(Language::from_tag(" PT_br "), Some(Language::Portuguese));
        assert_eq!(Language::from_tag("nb-NO"), Some(Language::Norwegian));
        assert_eq!(Language::from_tag("ger"), Some(Language::German));
        assert_eq!(Language::from_tag("zh-CN"), None);
        assert_eq!(Language::from_tag(""), None);
    }
}
