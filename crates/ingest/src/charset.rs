//! Character-set detection and decoding of HTML bodies.

use chardetng::{EncodingDetector, Iso2022JpDetection, Utf8Detection};
use encoding_rs::{Encoding, UTF_16BE, UTF_16LE, UTF_8, WINDOWS_1252, X_USER_DEFINED};

/// How many leading bytes the `<meta>` prescan looks at (as in the HTML spec).
const PRESCAN_BYTES: usize = 1024;

/// A second, wider `<meta>` scan when the first 1024 bytes declare nothing:
/// browsers honour a late `<meta charset>` by re-parsing, and pages with long
/// heads put it well past 1024 bytes.
const LATE_META_BYTES: usize = 64 << 10;

/// How many bytes chardetng is fed at most; enough for a confident guess.
const DETECT_BYTES: usize = 64 << 10;

/// Decodes an HTML body to UTF-8 and names the encoding used.
///
/// The encoding is chosen from, in order: a byte-order mark; the `charset=`
/// parameter of the HTTP `Content-Type`; a prescan of the first 1024 bytes for
/// `<meta charset>` or `<meta http-equiv content="...charset=...">`; and
/// finally chardetng's detection. Declared charsets are checked against the
/// bytes: a declared UTF-8 that is not valid UTF-8 falls back to detection,
/// and a declared charset that decodes with errors loses to a detected one
/// that decodes cleanly. A declared legacy single-byte or CJK charset also
/// loses to UTF-8 when the body is valid UTF-8 with non-ASCII characters (a
/// common mislabelling that decodes without errors but yields mojibake).
///
/// UTF-16 and UTF-32 (`wide_encoding`) are read from their BOM, or from
/// the HTTP `charset=` when the bytes bear it out.
pub fn decode_html(body: &[u8], content_type: Option<&str>) -> (String, &'static str) {
    if let Some(wide) = wide_encoding(body, content_type) {
        return wide.decode(body);
    }
    if let Some((enc, bom_len)) = Encoding::for_bom(body) {
        let rest = body.get(bom_len..).unwrap_or_default();
        let (text, _) = enc.decode_without_bom_handling(rest);
        return (text.into_owned(), enc.name());
    }
    let declared = content_type
        .and_then(charset_from_content_type)
        .or_else(|| prescan_meta_charset(body, PRESCAN_BYTES))
        .or_else(|| prescan_meta_charset(body, LATE_META_BYTES));
    let Some(declared) = declared else {
        return decode_detected(body);
    };
    if declared == UTF_8 {
        return match std::str::from_utf8(body) {
            Ok(s) => (s.to_string(), UTF_8.name()),
            Err(_) => decode_detected(body),
        };
    }
    if !body.is_ascii() && std::str::from_utf8(body).is_ok() {
        // Valid non-ASCII UTF-8 is vanishingly unlikely in a legacy encoding.
        return (String::from_utf8_lossy(body).into_owned(), UTF_8.name());
    }
    let (text, had_errors) = declared.decode_without_bom_handling(body);
    if had_errors {
        let guess = detect(body);
        if guess != declared {
            let (alt, alt_errors) = guess.decode_without_bom_handling(body);
            if !alt_errors {
                return (alt.into_owned(), guess.name());
            }
        }
    }
    (text.into_owned(), declared.name())
}

/// How many leading bytes decide whether a body declared UTF-16 or UTF-32
/// really is: enough for a page's head, which is nearly all ASCII markup.
const WIDE_SAMPLE_BYTES: usize = 4 << 10;

/// A body in UTF-16 or UTF-32: the encodings in which every ASCII character
/// takes NUL bytes, so that read as an ASCII-compatible charset the page is
/// markup strewn with NULs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wide {
    /// `encoding_rs::UTF_16LE` or `UTF_16BE`.
    Utf16(&'static Encoding),
    /// UTF-32, big-endian or not.
    Utf32 { big_endian: bool },
}

impl Wide {
    /// How long the BOM of this encoding is.
    fn bom_len(self) -> usize {
        match self {
            Wide::Utf16(_) => 2,
            Wide::Utf32 { .. } => 4,
        }
    }

    /// Decodes `body` (after its BOM, if it starts with this encoding's)
    /// to UTF-8 and names the encoding; malformed units become U+FFFD.
    fn decode(self, body: &[u8]) -> (String, &'static str) {
        let rest = if self.bom_of(body) {
            body.get(self.bom_len()..).unwrap_or_default()
        } else {
            body
        };
        match self {
            Wide::Utf16(enc) => (
                enc.decode_without_bom_handling(rest).0.into_owned(),
                enc.name(),
            ),
            Wide::Utf32 { big_endian } => (
                decode_utf32(rest, big_endian),
                if big_endian { "UTF-32BE" } else { "UTF-32LE" },
            ),
        }
    }

    /// Whether `body` starts with this encoding's BOM.
    fn bom_of(self, body: &[u8]) -> bool {
        match self {
            Wide::Utf16(enc) if enc == UTF_16BE => body.starts_with(b"\xFE\xFF"),
            Wide::Utf16(_) => body.starts_with(b"\xFF\xFE"),
            Wide::Utf32 { big_endian: true } => body.starts_with(b"\0\0\xFE\xFF"),
            Wide::Utf32 { big_endian: false } => body.starts_with(b"\xFF\xFE\0\0"),
        }
    }
}

/// Whether `body` is UTF-16 or UTF-32, and which: from its byte order mark
/// (UTF-32's first, as `FF FE 00 00` also starts like UTF-16LE's; a UTF-8
/// BOM means UTF-8 whatever the header says), else from the HTTP
/// `Content-Type` charset. The HTTP label is a transport-level declaration,
/// so unlike a `<meta>` one (which is read from the bytes, so cannot be
/// UTF-16: HTML's rule maps it to UTF-8) it is honoured, but only when the
/// bytes bear it out: at least a quarter of the first 4 KiB's code units
/// must be ASCII characters (a NUL byte beside a non-NUL one, as `<`, `a`,
/// space are), as the markup of any UTF-16 or UTF-32 page is; servers that
/// label UTF-8 pages `utf-16` exist, and such a page decodes as if the
/// label were absent. The byte order is the one whose reading gives more
/// ASCII characters, whatever the label's `le`/`be` says (the label
/// `utf-16` alone names none).
pub(crate) fn wide_encoding(body: &[u8], content_type: Option<&str>) -> Option<Wide> {
    if body.starts_with(b"\xFF\xFE\0\0") {
        return Some(Wide::Utf32 { big_endian: false });
    }
    if body.starts_with(b"\0\0\xFE\xFF") {
        return Some(Wide::Utf32 { big_endian: true });
    }
    if let Some((enc, _)) = Encoding::for_bom(body) {
        return (enc != UTF_8).then_some(Wide::Utf16(enc));
    }
    let label = content_type.and_then(|c| charset_label_in(c.as_bytes()))?;
    let sample = body.get(..WIDE_SAMPLE_BYTES).unwrap_or(body);
    let enough = |ascii: usize, unit: usize| ascii > 0 && ascii * 4 >= sample.len() / unit;
    if is_utf32_label(label) {
        let (le, be) = (
            ascii_units::<4>(sample, false),
            ascii_units::<4>(sample, true),
        );
        return enough(le.max(be), 4).then_some(Wide::Utf32 {
            big_endian: be > le,
        });
    }
    let declared = Encoding::for_label(label.trim_ascii())?;
    if declared != UTF_16LE && declared != UTF_16BE {
        return None;
    }
    let (le, be) = (
        ascii_units::<2>(sample, false),
        ascii_units::<2>(sample, true),
    );
    enough(le.max(be), 2).then_some(Wide::Utf16(if be > le { UTF_16BE } else { UTF_16LE }))
}

/// Labels of UTF-32, which the Encoding Standard (and so encoding_rs) does
/// not know: IANA's `UTF-32`, `UTF-32LE`, `UTF-32BE`, and `UCS-4`.
fn is_utf32_label(label: &[u8]) -> bool {
    let label = label.trim_ascii();
    [
        "utf-32",
        "utf-32le",
        "utf-32be",
        "utf32",
        "ucs-4",
        "iso-10646-ucs-4",
    ]
    .iter()
    .any(|l| label.eq_ignore_ascii_case(l.as_bytes()))
}

/// How many of the `N`-byte code units of `sample` read, in the given byte
/// order, as an ASCII character other than NUL.
fn ascii_units<const N: usize>(sample: &[u8], big_endian: bool) -> usize {
    sample
        .chunks_exact(N)
        .filter(|unit| {
            let (low, high) = if big_endian {
                unit.split_last().map(|(l, h)| (*l, h))
            } else {
                unit.split_first().map(|(l, h)| (*l, h))
            }
            .unwrap_or_default();
            (1..0x80).contains(&low) && high.iter().all(|&b| b == 0)
        })
        .count()
}

/// Decodes UTF-32 (no BOM) to UTF-8. encoding_rs implements the Encoding
/// Standard, which has no UTF-32, and no well-kept crate does only this,
/// so it is done here: each four bytes are one code point, checked by
/// `char::from_u32` (surrogates and values past U+10FFFF are malformed);
/// malformed units and a last partial unit become U+FFFD, as encoding_rs
/// does for malformed UTF-16.
fn decode_utf32(body: &[u8], big_endian: bool) -> String {
    let units = body.chunks_exact(4);
    let partial = !units.remainder().is_empty();
    let mut out = String::with_capacity(body.len() / 4 + 3);
    for unit in units {
        let code = <[u8; 4]>::try_from(unit).map(|bytes| {
            if big_endian {
                u32::from_be_bytes(bytes)
            } else {
                u32::from_le_bytes(bytes)
            }
        });
        let c = code.ok().and_then(char::from_u32);
        out.push(c.unwrap_or(char::REPLACEMENT_CHARACTER));
    }
    if partial {
        out.push(char::REPLACEMENT_CHARACTER);
    }
    out
}

/// Decodes with the detected encoding: UTF-8 when the body is valid UTF-8,
/// or mostly UTF-8 with a few stray legacy bytes (pages assembled from
/// several sources); otherwise chardetng's guess.
fn decode_detected(body: &[u8]) -> (String, &'static str) {
    if let Ok(s) = std::str::from_utf8(body) {
        return (s.to_string(), UTF_8.name());
    }
    let (valid_multibyte, invalid) = utf8_census(body);
    if valid_multibyte > 0 && valid_multibyte >= invalid {
        return (decode_utf8_with_1252_fallback(body), UTF_8.name());
    }
    let enc = detect(body);
    let (text, _) = enc.decode_without_bom_handling(body);
    (text.into_owned(), enc.name())
}

/// Counts valid multi-byte UTF-8 characters and invalid sequences.
fn utf8_census(body: &[u8]) -> (usize, usize) {
    let (mut valid_multibyte, mut invalid) = (0, 0);
    for chunk in body.utf8_chunks() {
        valid_multibyte += chunk.valid().chars().filter(|c| !c.is_ascii()).count();
        if !chunk.invalid().is_empty() {
            invalid += 1;
        }
    }
    (valid_multibyte, invalid)
}

/// Decodes UTF-8, reading each invalid byte as windows-1252 instead of
/// replacing it with U+FFFD.
fn decode_utf8_with_1252_fallback(body: &[u8]) -> String {
    let mut out = String::with_capacity(body.len());
    for chunk in body.utf8_chunks() {
        out.push_str(chunk.valid());
        if !chunk.invalid().is_empty() {
            let (legacy, _) = WINDOWS_1252.decode_without_bom_handling(chunk.invalid());
            out.push_str(&legacy);
        }
    }
    out
}

/// Guesses a legacy encoding with chardetng (UTF-8 is not a candidate: callers
/// check UTF-8 validity themselves). Only non-ASCII bytes carry evidence, so
/// the sample starts at the word before the first non-ASCII byte and is
/// limited to `DETECT_BYTES`, which keeps detection cheap on large pages.
fn detect(body: &[u8]) -> &'static Encoding {
    let first_non_ascii = body.iter().position(|b| !b.is_ascii()).unwrap_or(0);
    let start = body
        .get(..first_non_ascii)
        .and_then(|head| {
            head.iter()
                .rposition(|b| b.is_ascii_whitespace() || *b == b'>')
        })
        .map_or(0, |p| p + 1);
    let sample = body.get(start..).unwrap_or(body);
    let sample = sample.get(..DETECT_BYTES).unwrap_or(sample);
    let mut detector = EncodingDetector::new(Iso2022JpDetection::Allow);
    detector.feed(sample, start + sample.len() == body.len());
    detector.guess(None, Utf8Detection::Deny)
}

/// Maps a charset label to an encoding, applying the HTML rules for labels
/// found in documents (UTF-16 means UTF-8, `x-user-defined` means windows-1252).
fn label_to_encoding(label: &[u8]) -> Option<&'static Encoding> {
    let enc = Encoding::for_label(label.trim_ascii())?;
    if enc == UTF_16LE || enc == UTF_16BE {
        Some(UTF_8)
    } else if enc == X_USER_DEFINED {
        Some(WINDOWS_1252)
    } else {
        Some(enc)
    }
}

/// Extracts the `charset=` parameter of a Content-Type value.
pub(crate) fn charset_from_content_type(content_type: &str) -> Option<&'static Encoding> {
    charset_in(content_type.as_bytes())
}

/// Finds `charset` `=` value (optionally quoted) in a byte string, as the HTML
/// spec's "extracting a character encoding from a meta element" algorithm.
fn charset_in(s: &[u8]) -> Option<&'static Encoding> {
    charset_label_in(s).and_then(label_to_encoding)
}

/// The label of [`charset_in`], as written.
fn charset_label_in(s: &[u8]) -> Option<&[u8]> {
    let lower = s.to_ascii_lowercase();
    let mut from = 0;
    while let Some(pos) = memchr::memmem::find(lower.get(from..)?, b"charset") {
        let mut i = from + pos + b"charset".len();
        while lower.get(i).is_some_and(|b| b.is_ascii_whitespace()) {
            i += 1;
        }
        if lower.get(i) != Some(&b'=') {
            from = i;
            continue;
        }
        i += 1;
        while lower.get(i).is_some_and(|b| b.is_ascii_whitespace()) {
            i += 1;
        }
        let rest = s.get(i..)?;
        let value = match rest.first() {
            Some(&q @ (b'"' | b'\'')) => {
                let inner = rest.get(1..)?;
                let end = inner.iter().position(|&b| b == q)?;
                inner.get(..end)?
            }
            Some(_) => {
                let end = rest
                    .iter()
                    .position(|&b| b.is_ascii_whitespace() || b == b';' || b == b'"' || b == b'\'')
                    .unwrap_or(rest.len());
                rest.get(..end)?
            }
            None => return None,
        };
        return Some(value);
    }
    None
}

/// A simplified version of the HTML spec's encoding prescan over the first
/// `limit` bytes: skips comments, and reads `<meta>` attributes `charset`, or
/// `http-equiv="content-type"` together with `content`.
pub(crate) fn prescan_meta_charset(body: &[u8], limit: usize) -> Option<&'static Encoding> {
    let head = body.get(..limit).unwrap_or(body);
    let mut i = 0;
    // Everything the scan reads starts at a `<`: jump from one to the next
    // (the late scan reads up to 64 KiB of a page that declares nothing).
    while let Some(at) = memchr::memchr(b'<', head.get(i..)?) {
        i += at;
        let rest = head.get(i..)?;
        if rest.starts_with(b"<!--") {
            i += match memchr::memmem::find(rest.get(4..)?, b"-->") {
                Some(end) => 4 + end + 3,
                None => return None,
            };
            continue;
        }
        if rest.len() > 5
            && rest
                .get(..5)
                .is_some_and(|t| t.eq_ignore_ascii_case(b"<meta"))
            && rest
                .get(5)
                .is_some_and(|&b| b.is_ascii_whitespace() || b == b'/')
        {
            let (attrs, consumed) = parse_attributes(rest.get(5..)?);
            i += 5 + consumed;
            if let Some(enc) = meta_encoding(&attrs) {
                return Some(enc);
            }
            continue;
        }
        i += 1;
    }
    None
}

/// A tag attribute: lowercase name and raw value.
type Attribute = (Vec<u8>, Vec<u8>);

/// Decides a `<meta>` element's encoding from its attributes.
fn meta_encoding(attrs: &[Attribute]) -> Option<&'static Encoding> {
    let get = |name: &[u8]| {
        attrs
            .iter()
            .find(|(k, _)| k.as_slice() == name)
            .map(|(_, v)| v.as_slice())
    };
    if let Some(cs) = get(b"charset") {
        if let Some(enc) = label_to_encoding(cs) {
            return Some(enc);
        }
    }
    let is_content_type =
        get(b"http-equiv").is_some_and(|v| v.trim_ascii().eq_ignore_ascii_case(b"content-type"));
    if is_content_type {
        return get(b"content").and_then(charset_in);
    }
    None
}

/// Parses the attributes of a tag starting after its name; returns
/// lowercase names with raw values, and how many bytes were consumed
/// (up to and including `>`).
fn parse_attributes(s: &[u8]) -> (Vec<Attribute>, usize) {
    let mut attrs = Vec::new();
    let mut i = 0;
    let at = |i: usize| s.get(i).copied();
    loop {
        while at(i).is_some_and(|b| b.is_ascii_whitespace() || b == b'/') {
            i += 1;
        }
        match at(i) {
            None => return (attrs, i),
            Some(b'>') => return (attrs, i + 1),
            _ => {}
        }
        let name_start = i;
        while at(i).is_some_and(|b| !b.is_ascii_whitespace() && b != b'=' && b != b'>' && b != b'/')
        {
            i += 1;
        }
        let name = s
            .get(name_start..i)
            .unwrap_or_default()
            .to_ascii_lowercase();
        while at(i).is_some_and(|b| b.is_ascii_whitespace()) {
            i += 1;
        }
        let mut value = Vec::new();
        if at(i) == Some(b'=') {
            i += 1;
            while at(i).is_some_and(|b| b.is_ascii_whitespace()) {
                i += 1;
            }
            match at(i) {
                Some(q @ (b'"' | b'\'')) => {
                    i += 1;
                    let start = i;
                    while at(i).is_some_and(|b| b != q) {
                        i += 1;
                    }
                    value = s.get(start..i).unwrap_or_default().to_vec();
                    if at(i).is_some() {
                        i += 1;
                    }
                }
                _ => {
                    let start = i;
                    while at(i).is_some_and(|b| !b.is_ascii_whitespace() && b != b'>') {
                        i += 1;
                    }
                    value = s.get(start..i).unwrap_or_default().to_vec();
                }
            }
        }
        if name.is_empty() {
            // Defensive: never loop without progress.
            i += 1;
        } else {
            attrs.push((name, value));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bom_wins() {
        let mut body = vec![0xEF, 0xBB, 0xBF];
        body.extend_from_slice("<p>é</p>".as_bytes());
        let (text, enc) = decode_html(&body, Some("text/html; charset=windows-1251"));
        assert_eq!(enc, "UTF-8");
        assert_eq!(text, "<p>é</p>");
    }

    #[test]
    fn http_charset_is_used() {
        let body = b"<p>\xcf\xf0\xe8\xe2\xe5\xf2</p>"; // "Привет" in windows-1251
        let (text, enc) = decode_html(body, Some("text/html; charset=windows-1251"));
        assert_eq!(enc, "windows-1251");
        assert_eq!(text, "<p>Привет</p>");
    }

    #[test]
    fn meta_charset_and_http_equiv_are_found() {
        let body = b"<html><head><meta charset=\"iso-8859-1\"><title>caf\xe9</title>";
        let (text, enc) = decode_html(body, None);
        assert_eq!(enc, "windows-1252");
        assert!(text.contains("café"));
        let body2 = b"<!-- <meta charset=utf-8> --><meta http-equiv='Content-Type' content='text/html; charset=windows-1251'>\xcf";
        assert_eq!(
            prescan_meta_charset(body2, PRESCAN_BYTES),
            Encoding::for_label(b"windows-1251")
        );
    }

    #[test]
    fn wrong_utf8_declaration_falls_back_to_detection() {
        let body = "<html><meta charset=utf-8><p>Ça coûte très cher, déjà à l'été.</p>"
            .replace('\u{2019}', "'");
        let (latin1, _, _) = WINDOWS_1252.encode(&body);
        let (text, enc) = decode_html(&latin1, None);
        assert_eq!(enc, "windows-1252");
        assert!(text.contains("Ça coûte très cher"));
    }

    #[test]
    fn mostly_utf8_with_stray_legacy_bytes_stays_utf8() {
        let body = b"<meta charset=utf-8><p>Caf\xc3\xa9 na\xc3\xafve PITFALL!\x99 r\xc3\xa9sum\xc3\xa9</p>";
        let (text, enc) = decode_html(body, None);
        assert_eq!(enc, "UTF-8");
        assert_eq!(
            text,
            "<meta charset=utf-8><p>Café naïve PITFALL!™ résumé</p>"
        );
    }

    #[test]
    fn declared_legacy_charset_loses_to_valid_utf8() {
        let body = "<meta charset=iso-8859-1><p>Größe und Übermaß</p>";
        let (text, enc) = decode_html(body.as_bytes(), None);
        assert_eq!(enc, "UTF-8");
        assert!(text.contains("Größe"));
    }

    #[test]
    fn late_meta_charset_is_honoured() {
        let mut body = b"<html><head><title>t</title>".to_vec();
        body.extend(std::iter::repeat_n(b' ', 2000));
        body.extend_from_slice(b"<meta http-equiv=\"content-type\" content=\"text/html; charset=iso-8859-1\"></head><p>more \xbb\xa0</p>");
        let (text, enc) = decode_html(&body, None);
        assert_eq!(enc, "windows-1252");
        assert!(text.ends_with("<p>more \u{bb}\u{a0}</p>"));
    }

    #[test]
    fn no_declaration_detects_gbk() {
        let src = "<html><body><p>中华人民共和国是一个位于东亚的国家，首都是北京。这是一个测试页面。</p></body></html>";
        let (gbk, _, _) = encoding_rs::GBK.encode(src);
        let (text, enc) = decode_html(&gbk, None);
        assert_eq!(enc, "GBK");
        assert_eq!(text, src);
    }

    /// `text` in UTF-16 or UTF-32, in the given byte order, without BOM.
    fn wide(text: &str, unit: usize, big_endian: bool) -> Vec<u8> {
        let mut out = Vec::new();
        let mut push = |code: u32, len: usize| {
            let bytes = code.to_be_bytes();
            let mut unit = bytes.get(4 - len..).unwrap_or_default().to_vec();
            if !big_endian {
                unit.reverse();
            }
            out.extend(unit);
        };
        for c in text.chars() {
            if unit == 4 {
                push(u32::from(c), 4);
            } else {
                let mut buf = [0u16; 2];
                for u in c.encode_utf16(&mut buf) {
                    push(u32::from(*u), 2);
                }
            }
        }
        out
    }

    const PAGE: &str = "<html><head><title>Größe</title></head><body><p>Café, naïve, 日本語 and 😀.</p></body></html>";

    /// UTF-16 and UTF-32 from the HTTP header, without BOM: the header was
    /// read through HTML's `<meta>` rule (UTF-16 means UTF-8), so the page
    /// decoded as UTF-8 with a NUL in every character, or (UTF-32, unknown
    /// to encoding_rs) as a detected single-byte charset.
    #[test]
    fn utf16_and_utf32_declared_in_the_header_decode() {
        for (label, unit, big_endian, name) in [
            ("utf-16le", 2, false, "UTF-16LE"),
            ("UTF-16BE", 2, true, "UTF-16BE"),
            ("utf-16", 2, false, "UTF-16LE"),
            ("utf-16", 2, true, "UTF-16BE"),
            // The bytes decide the order, whatever the label says.
            ("utf-16le", 2, true, "UTF-16BE"),
            ("utf-32", 4, false, "UTF-32LE"),
            ("utf-32be", 4, true, "UTF-32BE"),
            ("UTF-32LE", 4, false, "UTF-32LE"),
        ] {
            let body = wide(PAGE, unit, big_endian);
            let content_type = format!("text/html; charset={label}");
            let (text, enc) = decode_html(&body, Some(&content_type));
            assert_eq!((text.as_str(), enc), (PAGE, name), "{label} {big_endian}");
        }
    }

    /// The byte order mark decides, for UTF-32 too (whose little-endian
    /// mark starts like UTF-16LE's), whatever the header says.
    #[test]
    fn utf16_and_utf32_byte_order_marks_decode() {
        for (bom, unit, big_endian, name) in [
            (&b"\xFF\xFE"[..], 2, false, "UTF-16LE"),
            (b"\xFE\xFF", 2, true, "UTF-16BE"),
            (b"\xFF\xFE\0\0", 4, false, "UTF-32LE"),
            (b"\0\0\xFE\xFF", 4, true, "UTF-32BE"),
        ] {
            let mut body = bom.to_vec();
            body.extend(wide(PAGE, unit, big_endian));
            for content_type in [None, Some("text/html; charset=iso-8859-1")] {
                let (text, enc) = decode_html(&body, content_type);
                assert_eq!(
                    (text.as_str(), enc),
                    (PAGE, name),
                    "{name} {content_type:?}"
                );
            }
        }
    }

    /// A `utf-16` label on a page that is not UTF-16 (servers mislabel
    /// UTF-8 pages so) is ignored, as an absent label is; malformed UTF-32
    /// units and a cut last unit become U+FFFD.
    #[test]
    fn wide_labels_the_bytes_do_not_bear_out_are_ignored() {
        let (text, enc) = decode_html(PAGE.as_bytes(), Some("text/html; charset=utf-16"));
        assert_eq!((text.as_str(), enc), (PAGE, "UTF-8"));
        let (text, enc) = decode_html(PAGE.as_bytes(), Some("text/html; charset=utf-32"));
        assert_eq!((text.as_str(), enc), (PAGE, "UTF-8"));
        let mut body = wide("<p>ab</p>", 4, false);
        body.extend([0x00, 0xD8, 0, 0, 0xFF, 0xFF, 0x11, 0, b'x']);
        let (text, _) = decode_html(&body, Some("text/html; charset=utf-32"));
        assert_eq!(text, "<p>ab</p>\u{FFFD}\u{FFFD}\u{FFFD}");
    }

    #[test]
    fn charset_parameter_parsing() {
        assert_eq!(
            charset_from_content_type("text/html; charset=\"UTF-8\""),
            Some(UTF_8)
        );
        assert_eq!(
            charset_from_content_type("text/html;charset=gb2312"),
            Some(encoding_rs::GBK)
        );
        assert_eq!(charset_from_content_type("text/html"), None);
        assert_eq!(charset_from_content_type("text/html; charset=bogus"), None);
    }
}
