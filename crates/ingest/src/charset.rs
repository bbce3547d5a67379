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
pub fn decode_html(body: &[u8], content_type: Option<&str>) -> (String, &'static str) {
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
        return label_to_encoding(value);
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
