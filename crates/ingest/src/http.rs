//! HTTP payload handling: content classification, de-chunking and content
//! decoding with an output cap.

use std::io::Read;

/// What a response payload is, as far as ingest cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PayloadKind {
    /// An HTML page.
    Html,
    /// An RSS, Atom or JSON feed.
    Feed,
    /// Anything else (images, scripts, robots.txt, ...).
    Other,
}

/// The lowercase media type of a Content-Type value, parameters removed.
pub(crate) fn media_type(content_type: &str) -> String {
    content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

/// Whether a payload with this Content-Type might be kept, so its body is
/// worth reading: HTML, feeds, generic XML/JSON (checked against the body),
/// or a missing type (sniffed).
pub(crate) fn may_be_wanted(content_type: Option<&str>) -> bool {
    match content_type.map(media_type).as_deref() {
        None | Some("") => true,
        Some(mt) => {
            is_html_type(mt)
                || is_feed_type(mt)
                || matches!(
                    mt,
                    "text/xml" | "application/xml" | "application/json" | "application/rdf+xml"
                )
        }
    }
}

fn is_html_type(mt: &str) -> bool {
    matches!(mt, "text/html" | "application/xhtml+xml")
}

fn is_feed_type(mt: &str) -> bool {
    matches!(
        mt,
        "application/rss+xml" | "application/atom+xml" | "application/feed+json"
    )
}

/// Classifies a decoded payload from its Content-Type and, where the type is
/// generic or missing, from its first bytes.
pub(crate) fn classify(content_type: Option<&str>, body: &[u8]) -> PayloadKind {
    match content_type.map(media_type).as_deref() {
        Some(mt) if is_html_type(mt) => PayloadKind::Html,
        Some(mt) if is_feed_type(mt) => PayloadKind::Feed,
        Some("text/xml" | "application/xml" | "application/rdf+xml") => {
            if sniff_xml_feed(body) {
                PayloadKind::Feed
            } else {
                PayloadKind::Other
            }
        }
        Some("application/json") => {
            if sniff_json_feed(body) {
                PayloadKind::Feed
            } else {
                PayloadKind::Other
            }
        }
        None | Some("") => {
            if sniff_html(body) {
                PayloadKind::Html
            } else if sniff_xml_feed(body) {
                PayloadKind::Feed
            } else {
                PayloadKind::Other
            }
        }
        Some(_) => PayloadKind::Other,
    }
}

/// Skips a UTF-8 BOM and leading whitespace.
fn skip_bom_ws(body: &[u8]) -> &[u8] {
    let body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
    let start = body
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(body.len());
    body.get(start..).unwrap_or_default()
}

fn starts_with_ci(s: &[u8], prefix: &[u8]) -> bool {
    s.get(..prefix.len())
        .is_some_and(|p| p.eq_ignore_ascii_case(prefix))
}

/// Whether the body starts (after BOM and whitespace) like an HTML document.
pub(crate) fn sniff_html(body: &[u8]) -> bool {
    let s = skip_bom_ws(body);
    [&b"<!doctype html"[..], b"<html", b"<head", b"<body"]
        .iter()
        .any(|p| starts_with_ci(s, p))
}

/// Whether the body's root element (after an XML declaration, comments,
/// processing instructions and doctype) is `<rss`, `<feed` or `<rdf:RDF`.
pub(crate) fn sniff_xml_feed(body: &[u8]) -> bool {
    let mut s = skip_bom_ws(body);
    // Skip at most a handful of prolog constructs.
    for _ in 0..16 {
        if s.starts_with(b"<?") || s.starts_with(b"<!") {
            let end_pat: &[u8] = if s.starts_with(b"<!--") { b"-->" } else { b">" };
            let Some(end) = s.windows(end_pat.len()).position(|w| w == end_pat) else {
                return false;
            };
            s = skip_bom_ws(s.get(end + end_pat.len()..).unwrap_or_default());
        } else {
            break;
        }
    }
    starts_with_ci(s, b"<rss") || starts_with_ci(s, b"<feed") || s.starts_with(b"<rdf:RDF")
}

/// Whether a JSON body looks like a JSON Feed (`"version": "https://jsonfeed.org/..."`).
pub(crate) fn sniff_json_feed(body: &[u8]) -> bool {
    let s = skip_bom_ws(body);
    let head = s.get(..4096).unwrap_or(s);
    s.starts_with(b"{") && head.windows(12).any(|w| w == b"jsonfeed.org")
}

/// Undoes chunked transfer coding. Returns `None` when the chunk framing is
/// wrong, so the caller can fall back to the raw body.
pub(crate) fn dechunk(body: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(body.len());
    let mut rest = body;
    loop {
        let line_end = rest.iter().position(|&b| b == b'\n')?;
        let line = rest.get(..line_end)?;
        let size_field = line.split(|&b| b == b';').next()?.trim_ascii();
        let size_str = std::str::from_utf8(size_field).ok()?;
        if size_str.is_empty() {
            return None;
        }
        let size = usize::from_str_radix(size_str, 16).ok()?;
        rest = rest.get(line_end + 1..)?;
        if size == 0 {
            return Some(out);
        }
        out.extend_from_slice(rest.get(..size)?);
        rest = rest.get(size..)?;
        // Chunk data is followed by CRLF (or a bare LF).
        rest = rest
            .strip_prefix(b"\r\n")
            .or_else(|| rest.strip_prefix(b"\n"))
            .or(if rest.is_empty() { Some(rest) } else { None })?;
        if rest.is_empty() {
            // Missing last-chunk: accept what we have.
            return Some(out);
        }
    }
}

/// Why undoing a `Content-Encoding` failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ContentCodingError {
    /// The decoded output would exceed the cap.
    ExceededCap,
    /// The coding is not supported.
    Unsupported(String),
    /// The coded data is corrupt.
    Corrupt(String),
}

/// Undoes the `Content-Encoding` codings (applied in reverse order), never
/// producing more than `cap` bytes.
pub(crate) fn decode_content(
    body: &[u8],
    encoding: &str,
    cap: usize,
) -> Result<Vec<u8>, ContentCodingError> {
    let mut data = body.to_vec();
    for coding in encoding.rsplit(',').map(|c| c.trim().to_ascii_lowercase()) {
        data = match coding.as_str() {
            "" | "identity" | "none" => data,
            "gzip" | "x-gzip" => {
                read_capped(flate2::read::MultiGzDecoder::new(data.as_slice()), cap)?
            }
            "deflate" => match read_capped(flate2::read::ZlibDecoder::new(data.as_slice()), cap) {
                Err(ContentCodingError::Corrupt(_)) => {
                    read_capped(flate2::read::DeflateDecoder::new(data.as_slice()), cap)?
                }
                other => other?,
            },
            "br" => read_capped(brotli::Decompressor::new(data.as_slice(), 4096), cap)?,
            other => return Err(ContentCodingError::Unsupported(other.to_string())),
        };
    }
    Ok(data)
}

/// Reads a decoder to the end, failing once more than `cap` bytes come out.
fn read_capped(reader: impl Read, cap: usize) -> Result<Vec<u8>, ContentCodingError> {
    let mut out = Vec::new();
    let limit = u64::try_from(cap).unwrap_or(u64::MAX).saturating_add(1);
    reader
        .take(limit)
        .read_to_end(&mut out)
        .map_err(|e| ContentCodingError::Corrupt(e.to_string()))?;
    if out.len() > cap {
        return Err(ContentCodingError::ExceededCap);
    }
    Ok(out)
}

/// Whether bytes start with a gzip, zlib or brotli-looking header; used to
/// decide whether a body labelled as coded was in fact stored decoded.
pub(crate) fn looks_compressed(body: &[u8]) -> bool {
    match body {
        [0x1f, 0x8b, ..] => true,
        [a, b, ..] => (*a & 0x0f) == 8 && (u16::from(*a) << 8 | u16::from(*b)) % 31 == 0,
        _ => false,
    }
}

/// Whether an HTML-typed body is really binary (an image, archive or
/// random bytes served as `text/html`): more than 1 in 50 of its first
/// 64 KiB are binary data bytes in the sense of the MIME Sniffing standard
/// (C0 controls other than tab, LF, FF, CR and ESC). UTF-16 and UTF-32
/// bodies (every ASCII character holds NULs) are text: those with a byte
/// order mark, or with a declared UTF-16/32 charset that the bytes bear
/// out (`charset::wide_encoding`, which decoding then uses too), so that
/// binary data labelled `utf-16` is still caught.
pub(crate) fn looks_binary(content_type: Option<&str>, body: &[u8]) -> bool {
    if crate::charset::wide_encoding(body, content_type).is_some() {
        return false;
    }
    let sample = body.get(..body.len().min(64 << 10)).unwrap_or(body);
    binary_bytes(sample) * 50 > sample.len()
}

/// How many bytes of `sample` are control bytes that do not occur in
/// text: below 0x20, except tab, line feed, form feed, carriage return and
/// escape. Counted in runs of 255 bytes into a `u8` with plain comparisons,
/// so that the compiler vectorises the loop (every HTML payload has up to
/// 64 KiB checked; counting byte by byte into a `usize`, or testing a bit
/// mask with a per-byte shift, cost 1–2 % of a run's CPU).
fn binary_bytes(sample: &[u8]) -> usize {
    sample
        .chunks(255)
        .map(|chunk| {
            let n: u8 = chunk.iter().fold(0u8, |n, &b| {
                let text = b == b'\t' || b == b'\n' || b == 0x0C || b == b'\r' || b == 0x1B;
                n + u8::from(b < 0x20 && !text)
            });
            usize::from(n)
        })
        .sum()
}

#[cfg(test)]
mod tests {
    #[test]
    fn control_bytes_are_counted_as_byte_by_byte() {
        let bytes: Vec<u8> = (0..=255u8).cycle().take(70_000).collect();
        let slow = bytes
            .iter()
            .filter(|&&b| matches!(b, 0x00..=0x08 | 0x0B | 0x0E..=0x1A | 0x1C..=0x1F))
            .count();
        assert_eq!(super::binary_bytes(&bytes), slow);
        assert_eq!(super::binary_bytes(b"<p>\t\r\n\x0c\x1b</p>"), 0);
        assert_eq!(super::binary_bytes(&[0u8; 600]), 600);
    }

    #[test]
    fn binary_bodies_are_told_from_text() {
        use super::looks_binary;
        let mut x: u32 = 1;
        let random: Vec<u8> = (0..4096)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                x as u8
            })
            .collect();
        assert!(looks_binary(Some("text/html"), &random));
        assert!(looks_binary(
            None,
            b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\x01\0"
        ));
        assert!(!looks_binary(
            None,
            "<p>Grüße \x1b$B text</p>\t\n".as_bytes()
        ));
        assert!(!looks_binary(
            None,
            b"<p>one stray \0 byte in a long enough page of text</p>"
        ));
        assert!(!looks_binary(None, b"\xFF\xFE<\0p\0>\0"));
        assert!(!looks_binary(
            Some("text/html; charset=UTF-16LE"),
            b"<\0p\0>\0"
        ));
        // UTF-32BE by its BOM: three NULs in every ASCII character.
        assert!(!looks_binary(
            Some("text/html"),
            b"\0\0\xFE\xFF\0\0\0<\0\0\0p\0\0\0>"
        ));
        assert!(!looks_binary(
            Some("text/html; charset=utf-32"),
            b"<\0\0\0p\0\0\0>\0\0\0"
        ));
        // A UTF-16 label does not make random bytes text.
        assert!(looks_binary(Some("text/html; charset=utf-16le"), &random));
    }

    use super::*;
    use std::io::Write;

    #[test]
    fn dechunks_valid_and_rejects_wrong_sizes() {
        assert_eq!(
            dechunk(b"4\r\nWiki\r\n5;ext\r\npedia\r\n0\r\n\r\n").as_deref(),
            Some(&b"Wikipedia"[..])
        );
        assert_eq!(dechunk(b"4\r\nWiki\r\n").as_deref(), Some(&b"Wiki"[..]));
        assert_eq!(dechunk(b"10\r\nWiki\r\n0\r\n\r\n"), None);
        assert_eq!(dechunk(b"<html>not chunked</html>"), None);
    }

    #[test]
    fn gzip_and_deflate_and_brotli_decode() {
        let text = b"<html><body>hello hello hello</body></html>".to_vec();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(&text).unwrap();
        let gz = gz.finish().unwrap();
        assert!(looks_compressed(&gz));
        assert_eq!(decode_content(&gz, "gzip", 1 << 20).unwrap(), text);

        let mut zl = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        zl.write_all(&text).unwrap();
        let zl = zl.finish().unwrap();
        assert!(looks_compressed(&zl));
        assert_eq!(decode_content(&zl, "deflate", 1 << 20).unwrap(), text);

        let mut raw =
            flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
        raw.write_all(&text).unwrap();
        assert_eq!(
            decode_content(&raw.finish().unwrap(), "deflate", 1 << 20).unwrap(),
            text
        );

        let mut br = Vec::new();
        {
            let mut w = brotli::CompressorWriter::new(&mut br, 4096, 5, 22);
            w.write_all(&text).unwrap();
        }
        assert_eq!(decode_content(&br, "br", 1 << 20).unwrap(), text);
        assert!(!looks_compressed(&text));
    }

    #[test]
    fn gzip_bomb_hits_cap() {
        let zeros = vec![0u8; 4 << 20];
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        gz.write_all(&zeros).unwrap();
        let gz = gz.finish().unwrap();
        assert!(gz.len() < 64 << 10);
        assert_eq!(
            decode_content(&gz, "gzip", 1 << 20),
            Err(ContentCodingError::ExceededCap)
        );
    }

    #[test]
    fn unsupported_coding() {
        assert_eq!(
            decode_content(b"x", "compress", 10),
            Err(ContentCodingError::Unsupported("compress".into()))
        );
    }

    #[test]
    fn classification() {
        assert_eq!(
            classify(Some("text/html; charset=utf-8"), b"x"),
            PayloadKind::Html
        );
        assert_eq!(
            classify(Some("application/xhtml+xml"), b"x"),
            PayloadKind::Html
        );
        assert_eq!(
            classify(None, b"\xEF\xBB\xBF  <!DOCTYPE HTML><p>"),
            PayloadKind::Html
        );
        assert_eq!(classify(None, b"<Body>"), PayloadKind::Html);
        assert_eq!(classify(None, b"GIF89a"), PayloadKind::Other);
        assert_eq!(classify(Some("image/png"), b"<html>"), PayloadKind::Other);
        assert_eq!(
            classify(Some("application/rss+xml"), b"x"),
            PayloadKind::Feed
        );
        assert_eq!(
            classify(
                Some("text/xml"),
                b"<?xml version=\"1.0\"?>\n<!-- c -->\n<rss version=\"2.0\">"
            ),
            PayloadKind::Feed
        );
        assert_eq!(
            classify(Some("application/xml"), b"<rdf:RDF xmlns:rdf=\"\">"),
            PayloadKind::Feed
        );
        assert_eq!(
            classify(Some("text/xml"), b"<sitemap/>"),
            PayloadKind::Other
        );
        assert_eq!(
            classify(
                Some("application/json"),
                br#"{"version": "https://jsonfeed.org/version/1.1"}"#
            ),
            PayloadKind::Feed
        );
        assert_eq!(
            classify(Some("application/json"), br#"{"a": 1}"#),
            PayloadKind::Other
        );
    }
}
