//! How many bytes of text the tree holds for the bytes of the page between
//! two tags: html5ever's newline normalization and character references,
//! and the white space at a text node's ends, counted without building the
//! text.

use html5ever::data::{C1_REPLACEMENTS, NAMED_ENTITIES};

/// A run of text as the tree holds it: its UTF-8 length and the white
/// space (`char::is_whitespace`) at its start and end.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Piece {
    len: usize,
    /// Bytes of white space it starts with (all of them when it is blank).
    lead: usize,
    /// Bytes of white space it ends with (all of them when it is blank).
    trail: usize,
}

impl Piece {
    /// A text as the tree holds it ([`decode`]d).
    pub(crate) fn of_text(text: &str) -> Piece {
        let lead = text.len() - text.trim_start().len();
        let trail = if lead == text.len() {
            lead
        } else {
            text.len() - text.trim_end().len()
        };
        Piece {
            len: text.len(),
            lead,
            trail,
        }
    }

    /// The text node two runs make when the tree joins them.
    pub(crate) fn join(self, next: Piece) -> Piece {
        let blank = |p: &Piece| p.lead == p.len;
        Piece {
            len: self.len + next.len,
            lead: if blank(&self) {
                self.len + next.lead
            } else {
                self.lead
            },
            trail: if blank(&next) {
                self.trail + next.len
            } else {
                next.trail
            },
        }
    }

    /// Its length without the white space at its ends (`str::trim`), what
    /// `canopy_dom` counts of a text node.
    pub(crate) fn trimmed(self) -> usize {
        if self.lead == self.len {
            0
        } else {
            self.len - self.lead - self.trail
        }
    }
}

/// Whether [`decode`] may change `raw`: it holds an ampersand, a carriage
/// return or a NUL.
pub(crate) fn needs_decoding(raw: &str) -> bool {
    memchr::memchr3(b'&', b'\r', 0, raw.as_bytes()).is_some()
}

/// Which character references a run of bytes decodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Refs {
    /// None: the raw text of `<script>`, `<style>` and the like.
    Kept,
    /// All of them: text, and the content of `<title>` and `<textarea>`.
    Text,
    /// An attribute's value: a named reference without its `;` is left as
    /// written when a letter, a digit or `=` follows it (`?a=1&copy=2`).
    Attribute,
}

/// The characters of `raw` as the tree holds them, to `push`: a CR LF or
/// a lone CR is one newline; character references decoded as `refs` says;
/// a NUL is dropped (`nul` false: text) or becomes U+FFFD (`nul` true: raw
/// text and attribute values).
pub(crate) fn decode(raw: &str, refs: Refs, nul: bool, mut push: impl FnMut(char)) {
    let mut rest = raw;
    while let Some(c) = rest.chars().next() {
        rest = rest.get(c.len_utf8()..).unwrap_or_default();
        match c {
            '\r' => {
                if !rest.starts_with('\n') {
                    push('\n');
                }
            }
            '\0' => {
                if nul {
                    push('\u{FFFD}');
                }
            }
            '&' if refs != Refs::Kept => {
                let (consumed, chars) = char_ref(rest.as_bytes());
                let left_as_written = refs == Refs::Attribute
                    && !rest.starts_with('#')
                    && consumed > 0
                    && rest.as_bytes()[consumed - 1] != b';'
                    && rest
                        .as_bytes()
                        .get(consumed)
                        .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'=');
                match chars {
                    Some((c1, c2)) if !left_as_written => {
                        push(c1);
                        if let Some(c2) = c2 {
                            push(c2);
                        }
                        rest = rest.get(consumed..).unwrap_or_default();
                    }
                    _ => push('&'),
                }
            }
            c => push(c),
        }
    }
}

/// A character reference after its `&`: the bytes it takes and what it
/// stands for, or `None` when there is none (the `&` is itself).
fn char_ref(after: &[u8]) -> (usize, Option<(char, Option<char>)>) {
    if after.first() == Some(&b'#') {
        let hex = matches!(after.get(1), Some(b'x' | b'X'));
        let from = 1 + usize::from(hex);
        let digits = after
            .get(from..)
            .unwrap_or_default()
            .iter()
            .take_while(|c| {
                if hex {
                    c.is_ascii_hexdigit()
                } else {
                    c.is_ascii_digit()
                }
            })
            .count();
        if digits == 0 {
            return (0, None);
        }
        let text = std::str::from_utf8(after.get(from..from + digits).unwrap_or_default())
            .unwrap_or_default();
        let value = u32::from_str_radix(text, if hex { 16 } else { 10 }).unwrap_or(u32::MAX);
        let c = match value {
            0 | 0xD800..=0xDFFF => '\u{FFFD}',
            v if v > 0x10FFFF => '\u{FFFD}',
            v @ 0x80..=0x9F => C1_REPLACEMENTS[(v - 0x80) as usize]
                .or_else(|| char::from_u32(v))
                .unwrap_or('\u{FFFD}'),
            v => char::from_u32(v).unwrap_or('\u{FFFD}'),
        };
        let semicolon = after.get(from + digits) == Some(&b';');
        return (from + digits + usize::from(semicolon), Some((c, None)));
    }
    // The longest name that is an entity, as the tokenizer reads it: it
    // goes on while the name read is a prefix of one.
    let mut best = None;
    let mut len = 0;
    while len < after.len() {
        len += 1;
        let Some(name) = after.get(..len).and_then(|n| std::str::from_utf8(n).ok()) else {
            break;
        };
        match NAMED_ENTITIES.get(name) {
            Some(&(0, _)) => {}
            Some(&(c1, c2)) => best = Some((len, c1, c2)),
            None => break,
        }
    }
    match best {
        Some((len, c1, c2)) => {
            let c1 = char::from_u32(c1).unwrap_or('\u{FFFD}');
            let c2 = (c2 != 0).then(|| char::from_u32(c2).unwrap_or('\u{FFFD}'));
            (len, Some((c1, c2)))
        }
        None => (0, None),
    }
}

#[cfg(test)]
mod tests {
    use super::{decode, Piece, Refs};

    fn attr(raw: &str) -> String {
        let mut out = String::new();
        decode(raw, Refs::Attribute, true, |c| out.push(c));
        out
    }

    #[test]
    fn attribute_values_keep_unterminated_names_before_letters() {
        assert_eq!(attr("mailto:&#106;o&#64;x.org"), "mailto:jo@x.org");
        assert_eq!(attr("?a=1&copy=2&amp;b&lt;"), "?a=1&copy=2&b<");
        assert_eq!(attr("&copy 1&notit;&not;"), "© 1&notit;¬");
    }

    fn trimmed(pieces: &[&str]) -> usize {
        pieces
            .iter()
            .map(|p| {
                let mut text = String::new();
                decode(p, Refs::Text, false, |c| text.push(c));
                Piece::of_text(&text)
            })
            .reduce(Piece::join)
            .map_or(0, Piece::trimmed)
    }

    #[test]
    fn references_newlines_and_the_ends_white_space() {
        assert_eq!(trimmed(&["  a b  "]), 3);
        assert_eq!(trimmed(&["a&amp;b"]), 3);
        // `&nbsp;` is white space to `str::trim`; `&notit;` is `¬it;`.
        assert_eq!(trimmed(&["&nbsp;x&nbsp;"]), 1);
        assert_eq!(trimmed(&["&notit;"]), "¬it;".len());
        assert_eq!(trimmed(&["&#x1F600;&#0;&#128;"]), 4 + 3 + "€".len());
        assert_eq!(trimmed(&["a\r\nb\rc"]), 5);
        assert_eq!(trimmed(&["&#x;&"]), 5);
        // Joined runs trim as one text.
        assert_eq!(trimmed(&[" ", "a ", " ", "b", " "]), 4);
        assert_eq!(trimmed(&["  ", " "]), 0);
    }
}
