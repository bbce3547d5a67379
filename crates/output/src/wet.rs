//! WET output: the articles as WARC/1.0 `conversion` records, the format in
//! which Common Crawl publishes the extracted text of its crawls.
//!
//! The file starts with a `warcinfo` record, then holds one `conversion`
//! record per article, in the order given:
//!
//! ```text
//! WARC/1.0
//! WARC-Type: conversion
//! WARC-Target-URI: <the page's URL>
//! WARC-Date: <the source response's WARC-Date>
//! WARC-Record-ID: <urn:uuid:v5 of the source record id and URL>
//! WARC-Refers-To: <the source response's WARC-Record-ID>
//! WARC-Block-Digest: sha1:<base32>
//! Content-Type: text/plain
//! Content-Length: <bytes of the text>
//!
//! <the article's text, UTF-8>
//! ```
//!
//! A `.gz` file gets one gzip member per record (as Common Crawl's, so a
//! reader can seek to any record); any other name gets a plain WARC.
//!
//! Nothing depends on the clock or on randomness: record ids are UUID v5
//! (name-based), the `warcinfo` date is the latest source date, and gzip
//! headers carry no time stamp, so the same articles give the same bytes.
//!
//! Why not the `warc` crate's writer: `warc` 0.4 keeps a record's headers in
//! a `HashMap` and writes them in its iteration order, which changes from
//! process to process (the output would not be byte-identical across runs),
//! and it writes with `Write::write` without checking for short writes.

use std::io::{self, Write};
use std::path::Path;

use chrono::{DateTime, SecondsFormat, Utc};
use data_encoding::BASE32;
use flate2::write::GzEncoder;
use flate2::Compression;
use sha1::{Digest, Sha1};
use uuid::Uuid;

use crate::write_atomic;

/// One article as a `conversion` record.
#[derive(Debug, Clone, Copy)]
pub struct WetRecord<'a> {
    /// The page's URL (`WARC-Target-URI`).
    pub url: &'a str,
    /// The source response's `WARC-Record-ID`, angle brackets included
    /// (`WARC-Refers-To`).
    pub refers_to: &'a str,
    /// The source response's `WARC-Date` as written there. Kept when it is a
    /// valid ISO 8601 date-time (normalised to UTC seconds, as Common Crawl
    /// writes it); otherwise the `warcinfo` record's date is used.
    pub date: Option<&'a str>,
    /// The article's text.
    pub text: &'a str,
}

/// Used when no record carries a valid date (WARC-Date is mandatory).
const EPOCH: &str = "1970-01-01T00:00:00Z";

/// What the `warcinfo` record says about all the records: their newest
/// date and a digest of their ids. Gathered in a first pass over the
/// records, so that the second pass writes them one at a time and the
/// articles are never all in memory.
struct WetInfo {
    newest: Option<String>,
    /// SHA-1 state of the `warcinfo` record's UUID v5 name: the file name,
    /// then every conversion record's id in order.
    ids: Sha1,
}

impl WetInfo {
    /// Starts the summary of the file named `name` (its last path component).
    fn new(name: &str) -> WetInfo {
        let mut ids = Sha1::new();
        ids.update(namespace().as_bytes());
        ids.update(format!("warcinfo\n{name}\n").as_bytes());
        WetInfo { newest: None, ids }
    }

    /// Counts one record, in the order they will be written.
    fn add(&mut self, record: &WetRecord<'_>) {
        if let Some(date) = record.date.and_then(normalize_date) {
            if self.newest.as_ref().is_none_or(|newest| date > *newest) {
                self.newest = Some(date);
            }
        }
        self.ids.update(conversion_id(record).as_bytes());
    }
}

/// Writes a WET file at `path`, atomically (temporary file in the same
/// folder, then rename), in two passes over the records: `records` is called
/// twice and must give the same records in the same order each time, through
/// the callback it is handed. Memory holds one record at a time.
pub fn write_wet_streamed<F>(path: &Path, mut records: F) -> io::Result<()>
where
    F: FnMut(&mut dyn FnMut(&WetRecord<'_>) -> io::Result<()>) -> io::Result<()>,
{
    let (dir, name) = split_path(path)?;
    let gzip = name.ends_with(".gz");
    let mut info = WetInfo::new(name);
    records(&mut |record| {
        info.add(record);
        Ok(())
    })?;
    // The conversion cannot be older than the newest page it converts.
    let info_date = info.newest.unwrap_or_else(|| EPOCH.to_string());
    let info_id = uuid_urn(info.ids);

    write_atomic(dir, name, |w| {
        let info = warcinfo_block();
        write_record(
            w,
            gzip,
            &[
                ("WARC-Type", "warcinfo"),
                ("WARC-Date", &info_date),
                ("WARC-Filename", &header_value(name)),
                ("WARC-Record-ID", &info_id),
                ("WARC-Block-Digest", &block_digest(info.as_bytes())),
                ("Content-Type", "application/warc-fields"),
            ],
            info.as_bytes(),
        )?;
        records(&mut |record| {
            let text = record.text.as_bytes();
            let date = record.date.and_then(normalize_date);
            write_record(
                w,
                gzip,
                &[
                    ("WARC-Type", "conversion"),
                    ("WARC-Target-URI", &header_value(record.url)),
                    ("WARC-Date", date.as_deref().unwrap_or(&info_date)),
                    ("WARC-Record-ID", &conversion_id(record)),
                    ("WARC-Refers-To", &header_value(record.refers_to)),
                    ("WARC-Block-Digest", &block_digest(text)),
                    ("Content-Type", "text/plain"),
                ],
                text,
            )
        })
    })
}

/// Writes `records` as a WET file at `path` ([`write_wet_streamed`] over a
/// slice).
pub fn write_wet(path: &Path, records: &[WetRecord<'_>]) -> io::Result<()> {
    write_wet_streamed(path, |each| records.iter().try_for_each(&mut *each))
}

/// The folder and file name of `path` (a bare name is in the current folder).
fn split_path(path: &Path) -> io::Result<(&Path, &str)> {
    let name = path.file_name().and_then(|n| n.to_str()).ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("not a file name: {}", path.display()),
        )
    })?;
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    Ok((dir, name))
}

/// The `warcinfo` record's block (`application/warc-fields`).
fn warcinfo_block() -> String {
    format!(
        "software: canopy/{}\r\nformat: WARC File Format 1.0\r\n\
         description: article text extracted by Canopy, one conversion record per article\r\n",
        env!("CARGO_PKG_VERSION")
    )
}

/// Writes one record, as its own gzip member when `gzip`. `Content-Length`
/// is added after `headers`.
fn write_record(
    w: &mut dyn Write,
    gzip: bool,
    headers: &[(&str, &str)],
    block: &[u8],
) -> io::Result<()> {
    let mut head = String::from("WARC/1.0\r\n");
    for (name, value) in headers {
        head.push_str(name);
        head.push_str(": ");
        head.push_str(value);
        head.push_str("\r\n");
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n", block.len()));
    if gzip {
        // flate2 writes mtime 0 and no file name: the member depends on the
        // record only.
        let mut gz = GzEncoder::new(&mut *w, Compression::default());
        gz.write_all(head.as_bytes())?;
        gz.write_all(block)?;
        gz.write_all(b"\r\n\r\n")?;
        gz.finish()?;
    } else {
        w.write_all(head.as_bytes())?;
        w.write_all(block)?;
        w.write_all(b"\r\n\r\n")?;
    }
    Ok(())
}

/// `sha1:` and the base32 SHA-1 of `block`, as Common Crawl writes
/// `WARC-Block-Digest`.
fn block_digest(block: &[u8]) -> String {
    format!("sha1:{}", BASE32.encode(&Sha1::digest(block)))
}

/// Canopy's UUID namespace for WET record ids.
fn namespace() -> Uuid {
    Uuid::new_v5(&Uuid::NAMESPACE_URL, b"urn:canopy:wet")
}

/// A `<urn:uuid:...>` record id, UUID v5 of `name` in Canopy's namespace.
fn record_id(name: &str) -> String {
    format!("<urn:uuid:{}>", Uuid::new_v5(&namespace(), name.as_bytes()))
}

/// The `<urn:uuid:...>` of a UUID v5 whose SHA-1 (namespace, then name) was
/// fed incrementally: what `Uuid::new_v5` computes from the name in one piece.
fn uuid_urn(hash: Sha1) -> String {
    let digest = hash.finalize();
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    format!(
        "<urn:uuid:{}>",
        uuid::Builder::from_sha1_bytes(bytes).into_uuid()
    )
}

/// The id of an article's conversion record: from the source record's id and
/// the URL (two inputs may reuse a record id; a URL is not unique either).
fn conversion_id(record: &WetRecord<'_>) -> String {
    record_id(&format!("conversion\n{}\n{}", record.refers_to, record.url))
}

/// An ISO 8601 / RFC 3339 date-time in UTC with seconds (`2005-06-01T12:00:00Z`),
/// or `None` when `raw` is not one (ClueWeb09 has dates such as
/// `2009-03-65T08:43:19-0800`).
fn normalize_date(raw: &str) -> Option<String> {
    let parsed = DateTime::parse_from_rfc3339(raw.trim()).ok()?;
    Some(
        parsed
            .with_timezone(&Utc)
            .to_rfc3339_opts(SecondsFormat::Secs, true),
    )
}

/// A header value on one line: line breaks and other control characters
/// (which a quirky input could carry) become spaces.
fn header_value(value: &str) -> String {
    value
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_warcinfo_id_fed_in_pieces_is_uuid_v5_of_the_whole_name() {
        let records = [
            WetRecord {
                url: "http://example.com/a",
                refers_to: "<urn:uuid:1>",
                date: Some("2012-11-01T10:00:00Z"),
                text: "A",
            },
            WetRecord {
                url: "http://example.com/b",
                refers_to: "<urn:uuid:2>",
                date: Some("2013-01-02T03:04:05+01:00"),
                text: "B",
            },
        ];
        let mut info = WetInfo::new("out.warc.gz");
        records.iter().for_each(|r| info.add(r));
        assert_eq!(info.newest.as_deref(), Some("2013-01-02T02:04:05Z"));
        let ids: String = records.iter().map(conversion_id).collect();
        assert_eq!(
            uuid_urn(info.ids),
            record_id(&format!("warcinfo\nout.warc.gz\n{ids}"))
        );
    }

    #[test]
    fn dates_are_normalised_to_utc_seconds_or_refused() {
        assert_eq!(
            normalize_date("2005-06-01T12:00:00Z").as_deref(),
            Some("2005-06-01T12:00:00Z")
        );
        assert_eq!(
            normalize_date("2009-03-01T08:43:19.5-08:00").as_deref(),
            Some("2009-03-01T16:43:19Z")
        );
        assert_eq!(normalize_date("2009-03-65T08:43:19-0800"), None);
        assert_eq!(normalize_date("yesterday"), None);
    }

    #[test]
    fn digest_is_base32_sha1() {
        // SHA-1("abc") = a9993e36 4706816a ba3e2571 7850c26c 9cd0d89d.
        assert_eq!(
            block_digest(b"abc"),
            "sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5"
        );
    }

    #[test]
    fn ids_are_name_based_version_5() {
        let a = WetRecord {
            url: "http://a/",
            refers_to: "<urn:uuid:1>",
            date: None,
            text: "x",
        };
        let b = WetRecord {
            url: "http://b/",
            ..a
        };
        assert_eq!(conversion_id(&a), conversion_id(&a));
        assert_ne!(conversion_id(&a), conversion_id(&b));
        let id = conversion_id(&a);
        let uuid = id
            .strip_prefix("<urn:uuid:")
            .and_then(|s| s.strip_suffix('>'))
            .and_then(|s| Uuid::parse_str(s).ok())
            .unwrap();
        assert_eq!(uuid.get_version_num(), 5);
    }

    #[test]
    fn header_values_stay_on_one_line() {
        assert_eq!(
            header_value("http://a/\r\nX-Evil: 1"),
            "http://a/  X-Evil: 1"
        );
    }
}
