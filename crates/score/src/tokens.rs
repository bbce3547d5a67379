//! Tokenization for the bigram and token scores.

use std::sync::OnceLock;

use regex::Regex;

/// The code point ranges whose word characters are tokens of their own: Han ideographs,
/// Hiragana and Katakana (with their iteration and prolonged-sound marks).
///
/// Only characters that are also word characters (general category `L*` or `N*`) count;
/// punctuation inside these blocks (`。`, `・`, `゠`, combining voicing marks) separates tokens
/// like any other non-word character.
///
/// Hangul is deliberately **not** included: Korean separates words with spaces, so Hangul
/// syllables stay in word runs like Latin letters (`한국어 텍스트` is two tokens).
///
/// `scripts/peers/score_ref.py` holds the same list; keep the two in sync.
pub const CJK_RANGES: &[(u32, u32)] = &[
    (0x3005, 0x3007),   // 々 〆 〇
    (0x3021, 0x3029),   // Hangzhou numerals
    (0x3038, 0x303C),   // more Han numerals and iteration marks
    (0x3040, 0x309F),   // Hiragana
    (0x30A0, 0x30FF),   // Katakana (incl. ー U+30FC)
    (0x31F0, 0x31FF),   // Katakana phonetic extensions
    (0x3400, 0x4DBF),   // CJK Unified Ideographs Extension A
    (0x4E00, 0x9FFF),   // CJK Unified Ideographs
    (0xF900, 0xFAFF),   // CJK Compatibility Ideographs
    (0xFF66, 0xFF9F),   // Halfwidth Katakana
    (0x1AFF0, 0x1B16F), // Kana Extended-B, Kana Supplement, Kana Extended-A, Small Kana Ext.
    (0x20000, 0x323AF), // CJK Unified Ideographs Extensions B–I, Compatibility Supplement
];

/// Whether `c` is in one of [`CJK_RANGES`] (whether or not it is a word character).
pub fn is_cjk(c: char) -> bool {
    let cp = c as u32;
    CJK_RANGES.iter().any(|&(lo, hi)| (lo..=hi).contains(&cp))
}

fn token_regex() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        let cjk: String = CJK_RANGES
            .iter()
            .map(|&(lo, hi)| format!("\\x{{{lo:X}}}-\\x{{{hi:X}}}"))
            .collect();
        // Python's `\w` on str is exactly general category L* or N* or `_` (checked over
        // every code point with Python 3.11 / Unicode 14), so that is the word class here
        // rather than regex's own Unicode `\w` (which adds marks, Join_Control and all Pc).
        let word = r"[\p{L}\p{N}_]";
        let pattern = format!("[{word}&&[{cjk}]]|[{word}--[{cjk}]]+");
        Regex::new(&pattern).expect("token pattern compiles")
    })
}

/// The tokens of `text` as slices of `lowered`, which must be `text.to_lowercase()`.
pub(crate) fn token_slices(lowered: &str) -> Vec<&str> {
    token_regex()
        .find_iter(lowered)
        .map(|m| m.as_str())
        .collect()
}

/// Splits `text` into score tokens.
///
/// The text is lowercased first (Unicode full lowercasing, as Python's `str.lower()`),
/// then split into maximal runs of word characters, where a word character is one of
/// general category letter (`L*`) or number (`N*`), or `_` — exactly Python's `re` `\w`
/// on `str`. Each CJK ideograph or kana character (see [`CJK_RANGES`]) is a token of its
/// own and splits the run around it. Everything else (punctuation, symbols, whitespace,
/// combining marks) separates tokens. This equals
/// `[t for run in re.findall(r"\w+", text.lower()) for t in split_cjk(run)]` in Python,
/// up to differences in the Unicode versions of the two implementations.
///
/// ```
/// use canopy_score::tokens;
/// assert_eq!(tokens("Hello, World_2!"), ["hello", "world_2"]);
/// assert_eq!(tokens("東京abcタワー"), ["東", "京", "abc", "タ", "ワ", "ー"]);
/// assert_eq!(tokens("한국어 텍스트"), ["한국어", "텍스트"]);
/// ```
pub fn tokens(text: &str) -> Vec<String> {
    let lowered = text.to_lowercase();
    token_slices(&lowered)
        .into_iter()
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn punctuation_and_case() {
        assert_eq!(
            tokens("The CAT's  hat—it's \"big\"."),
            ["the", "cat", "s", "hat", "it", "s", "big"]
        );
        assert_eq!(tokens("   ...  !!"), Vec::<String>::new());
        assert_eq!(tokens(""), Vec::<String>::new());
    }

    #[test]
    fn python_w_semantics() {
        // Digits and other numbers are word characters, `_` joins, `-` splits.
        assert_eq!(tokens("a_b-c 3½ x²"), ["a_b", "c", "3½", "x²"]);
        // Combining marks are not word characters for Python: "é" written as e + U+0301
        // splits, the precomposed U+00E9 does not.
        assert_eq!(tokens("caf\u{e9}"), ["caf\u{e9}"]);
        assert_eq!(tokens("cafe\u{301}x"), ["cafe", "x"]);
        // Final sigma lowercasing, as Python's str.lower().
        assert_eq!(tokens("ΟΔΟΣ"), ["οδος"]);
    }

    #[test]
    fn cjk_characters_are_single_tokens() {
        assert_eq!(
            tokens("日本語のテキスト。ABC漢字"),
            ["日", "本", "語", "の", "テ", "キ", "ス", "ト", "abc", "漢", "字"]
        );
        // Halfwidth katakana and the iteration mark.
        assert_eq!(tokens("ｶﾀ人々"), ["ｶ", "ﾀ", "人", "々"]);
        // The katakana middle dot is punctuation, not a token.
        assert_eq!(tokens("ア・イ"), ["ア", "イ"]);
    }
}
