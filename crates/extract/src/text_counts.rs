//! How much text each node holds, and how much of it is link text: the
//! measure behind every link-density rule (the selection's cleaning, the
//! fallback's prose siblings and its heading container).

use canopy_dom::{Document, NodeId};

/// Characters (white space aside) of each node's subtree text, and of the
/// part of it inside links.
pub struct TextCounts {
    chars: Vec<u32>,
    link_chars: Vec<u32>,
}

impl TextCounts {
    /// One pass over the document, children before parents.
    pub fn of(doc: &Document) -> TextCounts {
        TextCounts::of_subtrees(doc, std::slice::from_ref(&(0..doc.len())))
    }

    /// The counts of the nodes of `subtrees` (each the whole subtree of its
    /// first node, or the whole document, none inside another), the same as
    /// over the whole document; other nodes read 0. A selection's cleaning reads
    /// only the nodes around the selection, and a pass over the whole page
    /// for each one cost more than the cleaning itself.
    pub fn of_subtrees(doc: &Document, subtrees: &[std::ops::Range<NodeId>]) -> TextCounts {
        let mut chars = vec![0u32; doc.len()];
        let mut link_chars = vec![0u32; doc.len()];
        for range in subtrees {
            for n in range.clone().rev() {
                if let Some(t) = doc.text(n) {
                    chars[n] = non_white_chars(t);
                }
                // A link's text counts once, even with links nested inside it.
                if doc.tag(n) == "a" {
                    link_chars[n] = chars[n];
                }
                if n != range.start {
                    if let Some(p) = doc.node(n).parent {
                        chars[p] += chars[n];
                        link_chars[p] += link_chars[n];
                    }
                }
            }
        }
        TextCounts { chars, link_chars }
    }

    /// The characters of the text under `root`, and of that text inside
    /// links, counted over `root`'s subtree alone (what [`TextCounts::of`]
    /// gives for `root`, without a pass over the whole page).
    pub fn of_subtree(doc: &Document, root: NodeId) -> (u32, u32) {
        let end = doc.node(root).end;
        // Text before this index is inside a link.
        let mut link_end = if doc.ancestors(root).any(|a| doc.tag(a) == "a") {
            end
        } else {
            root
        };
        let (mut chars, mut links) = (0, 0);
        for n in root..end {
            if n >= link_end && doc.tag(n) == "a" {
                link_end = doc.node(n).end;
            }
            if let Some(t) = doc.text(n) {
                let c = non_white_chars(t);
                chars += c;
                if n < link_end {
                    links += c;
                }
            }
        }
        (chars, links)
    }

    /// Characters of `n`'s text.
    pub fn chars(&self, n: NodeId) -> u32 {
        self.chars[n]
    }

    /// Characters of `n`'s text inside links.
    pub fn link_chars(&self, n: NodeId) -> u32 {
        self.link_chars[n]
    }

    /// Characters of `n`'s text outside links.
    pub fn prose_chars(&self, n: NodeId) -> u32 {
        self.chars[n] - self.link_chars[n]
    }
}

/// How many Latin letters one CJK character (Han, kana) stands for in a
/// text's length. Every length the extractors weigh or compare with a
/// threshold (a block's value, `PARAGRAPH_CHARS`, a caption's or a label's
/// bound) was chosen on pages of alphabetic scripts, where a word is about
/// five letters; a Chinese word is one or two characters, and translators'
/// rates put 1,000 Chinese characters at 600–700 English words, about
/// 3,000–3,500 letters. Unweighted, a Chinese paragraph counted a third of
/// its translation against those bounds.
/// Measured with `scripts/cjk_shape.py` (trafbench's pages with each word
/// written as ⌈letters ÷ r⌉ ideographs and no spaces, for r = 2, 3, 4:
/// Japanese-like to Chinese-like): of the 1,320 `with` snippets the
/// original pages' articles hold, the rewritten pages' articles lose 28,
/// 34, 45 at weight 1, 16, 22, 26 at weight 2, and 13, 17, 22 at weight 3.
pub(crate) const CJK_CHAR_WEIGHT: u32 = 3;

/// How many Latin letters one Hangul syllable stands for, on the same
/// reasoning: a syllable block writes two or three letters (an initial
/// consonant, a vowel, often a final one), and Korean spaces its words, so
/// only the length is off. Measured with `scripts/cjk_shape.py --script
/// hangul` (each word written as ⌈letters ÷ r⌉ syllables, spaces kept): of
/// the 1,328 `with` snippets the original pages' articles hold, the
/// rewritten pages' articles lose 28 at weight 1 for r = 2 and 2.5, 16 and
/// 14 at weight 2, and 13 and 17 at weight 3. Two is what a syllable
/// writes; three gains nothing more.
pub(crate) const HANGUL_CHAR_WEIGHT: u32 = 2;

/// Han ideographs, Hiragana and Katakana: scripts written without spaces
/// between words.
pub fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{3040}'..='\u{30FF}'     // Hiragana, Katakana
        | '\u{31F0}'..='\u{31FF}'   // Katakana phonetic extensions
        | '\u{3400}'..='\u{4DBF}'   // CJK extension A
        | '\u{4E00}'..='\u{9FFF}'   // CJK unified ideographs
        | '\u{F900}'..='\u{FAFF}'   // CJK compatibility ideographs
        | '\u{FF66}'..='\u{FF9F}'   // halfwidth Katakana
        | '\u{20000}'..='\u{323AF}' // CJK extensions B..H
    )
}

/// A Hangul syllable block (its letters, the jamo, count one each).
fn is_hangul_syllable(c: char) -> bool {
    ('\u{AC00}'..='\u{D7A3}').contains(&c)
}

/// The length of `t` in Latin letters: its characters that are not white
/// space (`char::is_whitespace`), a CJK one counting [`CJK_CHAR_WEIGHT`]
/// and a Hangul syllable [`HANGUL_CHAR_WEIGHT`].
/// Its ASCII bytes are counted in a pass the compiler vectorises (the ASCII
/// white space is `\t`..=`\r` and the space), then only its other
/// characters are decoded and weighed: most text is ASCII but for a curly
/// quote, a dash or a no-break space, which would otherwise send every
/// character of it through the decoder.
pub(crate) fn non_white_chars(t: &str) -> u32 {
    let bytes = t.as_bytes();
    let ascii = bytes
        .iter()
        .filter(|&&b| b.is_ascii() && !matches!(b, b'\t'..=b'\r' | b' '))
        .count();
    if t.is_ascii() {
        return ascii as u32;
    }
    let others: u32 = bytes
        .iter()
        .enumerate()
        // A byte from 0xC0 up leads a character of two bytes or more.
        .filter(|&(_, &b)| b >= 0xC0)
        .filter_map(|(i, _)| t.get(i..)?.chars().next())
        .map(char_weight)
        .sum();
    ascii as u32 + others
}

/// What a character adds to [`non_white_chars`].
fn char_weight(c: char) -> u32 {
    if c.is_whitespace() {
        0
    } else if is_cjk(c) {
        CJK_CHAR_WEIGHT
    } else if is_hangul_syllable(c) {
        HANGUL_CHAR_WEIGHT
    } else {
        1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use canopy_dom::DomOptions;

    #[test]
    fn a_cjk_character_counts_three_letters_and_a_hangul_syllable_two() {
        assert_eq!(non_white_chars(" plain text\n"), 9);
        // Han and kana three each, a Hangul syllable two, its letters
        // (jamo) and Cyrillic one each: "ок" is two.
        assert_eq!(
            non_white_chars("中文 かな ок 한 ㅎ"),
            4 * CJK_CHAR_WEIGHT + 2 + HANGUL_CHAR_WEIGHT + 1
        );
    }

    #[test]
    fn link_text_is_counted_once_per_subtree() {
        let doc = Document::parse(
            "<body><p id=p>Read <a href=/a>the <b>full</b> story</a> here.</p></body>",
            &DomOptions::default(),
        );
        let p = (0..doc.len()).find(|&n| doc.tag(n) == "p").unwrap();
        // "Read" + "thefullstory" + "here." (white space aside).
        assert_eq!(counts_of(&doc, p), (21, 12, 9));
        assert_eq!(TextCounts::of_subtree(&doc, p), (21, 12));
        let a = (0..doc.len()).find(|&n| doc.tag(n) == "b").unwrap();
        assert_eq!(TextCounts::of_subtree(&doc, a), (4, 4), "inside a link");
        assert_eq!(counts_of(&doc, doc.body()), (21, 12, 9));
    }

    #[test]
    fn subtree_counts_are_the_whole_page_counts() {
        let doc = Document::parse(
            "<body><div><p>Read <a href=/a>the <b>full</b> story</a> here.</p></div>\
             <ul><li><a href=/b>More</a></li></ul></body>",
            &DomOptions::default(),
        );
        let whole = TextCounts::of(&doc);
        let div = (0..doc.len()).find(|&n| doc.tag(n) == "div").unwrap();
        let b = (0..doc.len()).find(|&n| doc.tag(n) == "b").unwrap();
        let ul = (0..doc.len()).find(|&n| doc.tag(n) == "ul").unwrap();
        let some = TextCounts::of_subtrees(&doc, &[div..doc.node(div).end, ul..doc.node(ul).end]);
        for n in (div..doc.node(div).end).chain(ul..doc.node(ul).end) {
            assert_eq!(
                (some.chars(n), some.link_chars(n)),
                (whole.chars(n), whole.link_chars(n)),
                "node {n}"
            );
        }
        // Inside a link, as the whole page counts it (the link is above).
        let inner = TextCounts::of_subtrees(&doc, std::slice::from_ref(&(b..doc.node(b).end)));
        assert_eq!((inner.chars(b), inner.link_chars(b)), (4, 0));
        assert_eq!(inner.chars(doc.body()), 0, "outside the subtrees");
    }

    #[test]
    fn non_white_chars_weighs_every_character_as_decoding_each_would() {
        let weight = |t: &str| -> u32 { t.chars().map(char_weight).sum() };
        for t in [
            "“Quoted” — a dash\u{a0}and a no-break space",
            "日本語のテキスト、漢字とかな。",
            "한국어 문장입니다 ok",
            "mixed 中文 text\u{3000}with ideographic space and 𠀀 (ext. B)",
            "\u{85}\u{2028}\u{2029}\u{202f}\u{205f}\u{1680}é",
        ] {
            assert_eq!(non_white_chars(t), weight(t), "{t:?}");
        }
    }

    #[test]
    fn non_white_chars_is_the_char_count() {
        for t in [
            "",
            " a b\t\n\x0b\x0c\r c ",
            "x\u{a0}y\u{2003}z é",
            "\x1c\x1f\x7f",
        ] {
            let chars = t.chars().filter(|c| !c.is_whitespace()).count() as u32;
            assert_eq!(non_white_chars(t), chars, "{t:?}");
        }
    }

    fn counts_of(doc: &Document, n: NodeId) -> (u32, u32, u32) {
        let c = TextCounts::of(doc);
        (c.chars(n), c.link_chars(n), c.prose_chars(n))
    }
}
