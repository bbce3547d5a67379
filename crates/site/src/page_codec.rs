//! A parsed page as bytes, for a large site's pages that wait on disk
//! between the steps that read them ([`crate::pages`]).
//!
//! ```text
//! page    = content length (u32 LE) ‖ LZ4 block of content
//! content = record length (u32 LE) ‖ record
//!           ‖ declared length (u8) ‖ declared ‖ parse time (u64 LE, nanoseconds)
//!           ‖ document
//! ```
//!
//! `record` is the page's record without its HTML, as JSON; `declared` the
//! ISO 639-1 code of its declared language in ASCII (empty: none);
//! `document` is
//! [`Document::encode`]. Reading a page back (LZ4 and decoding) takes ≈ 6 %
//! of the time parsing its HTML again would, and LZ4 shrinks the DOM's
//! bytes to a quarter of the HTML's (docs/performance.md, "Memory";
//! `crates/dom/examples/codec_cost.rs`).

use std::collections::HashMap;
use std::io;
use std::time::Duration;

use canopy_dom::Document;
use canopy_signifiers::PageLanguage;
use canopy_types::{FeedItem, PageRecord};

use crate::page::Page;

/// The bytes of `page` (its HTML already freed), read back by [`decode`].
pub fn encode(page: &Page<'_>) -> io::Result<Vec<u8>> {
    debug_assert!(page.record.html.is_empty(), "the HTML is freed once parsed");
    let record = serde_json::to_vec(&page.record)?;
    let mut content = Vec::with_capacity(4 + record.len() + 1 + 8);
    content.extend_from_slice(&length(record.len())?.to_le_bytes());
    content.extend_from_slice(&record);
    let code = page.lang.declared.unwrap_or_default();
    content.push(code.len() as u8);
    content.extend_from_slice(code.as_bytes());
    let nanos = u64::try_from(page.spent.as_nanos()).unwrap_or(u64::MAX);
    content.extend_from_slice(&nanos.to_le_bytes());
    page.doc.encode(&mut content);

    let mut out = length(content.len())?.to_le_bytes().to_vec();
    canopy_buckets::lz4::compress(&content, &mut out)?;
    Ok(out)
}

/// The page that [`encode`] wrote as `bytes`, with its feed item from
/// `feeds`; its `index` is left 0.
pub fn decode<'f>(bytes: &[u8], feeds: &'f HashMap<String, FeedItem>) -> io::Result<Page<'f>> {
    let (len, block) = split(bytes, 4)?;
    let content = canopy_buckets::lz4::decompress(block, u32_le(len) as usize)?;
    let (len, rest) = split(&content, 4)?;
    let (record, rest) = split(rest, u32_le(len) as usize)?;
    let record: PageRecord = serde_json::from_slice(record)?;
    let (len, rest) = split(rest, 1)?;
    let (declared, rest) = split(rest, usize::from(len[0]))?;
    let declared = match declared {
        [] => None,
        code => Some(
            std::str::from_utf8(code)
                .ok()
                .and_then(canopy_signifiers::declared_code)
                .ok_or_else(|| invalid("unknown language code"))?,
        ),
    };
    let lang = PageLanguage { declared };
    let (nanos, document) = split(rest, 8)?;
    let spent = Duration::from_nanos(u64::from_le_bytes(nanos.try_into().expect("8 bytes")));
    let doc = Document::decode(document).map_err(invalid)?;
    Ok(Page::new(record, doc, lang, spent, feeds))
}

fn length(n: usize) -> io::Result<u32> {
    u32::try_from(n).map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a page over 4 GiB"))
}

fn split(bytes: &[u8], n: usize) -> io::Result<(&[u8], &[u8])> {
    if bytes.len() < n {
        return Err(invalid("a parsed page cut short"));
    }
    Ok(bytes.split_at(n))
}

fn u32_le(bytes: &[u8]) -> u32 {
    u32::from_le_bytes(bytes.try_into().expect("4 bytes"))
}

fn invalid(what: impl std::fmt::Display) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use canopy_dom::DomOptions;
    use canopy_types::SourceRef;

    /// A big9 page (`../shared/corpora`) as the site steps hold it.
    fn big9_page(feeds: &HashMap<String, FeedItem>, n: usize) -> Page<'_> {
        let row = &canopy_test_support::manifest("big9")[n];
        let path = canopy_test_support::corpus_file(&format!("big9/{}", row["html"]));
        let html = String::from_utf8_lossy(&std::fs::read(path).unwrap()).into_owned();
        let record = PageRecord {
            url: row["url"].clone(),
            record_id: row["record_id"].clone(),
            source: SourceRef {
                file: "big9.warc.gz".into(),
                offset: Some(1234),
            },
            status: Some(200),
            charset: "UTF-8".into(),
            date: Some("2026-11-25T00:00:00Z".into()),
            content_language: Some("de-CH".into()),
            html: String::new(),
        };
        let doc = Document::parse(&html, &DomOptions::default());
        Page::new(
            record,
            doc,
            PageLanguage {
                declared: Some("de"),
            },
            Duration::from_micros(1234),
            feeds,
        )
    }

    #[test]
    fn a_page_reads_back_as_it_was_written() {
        let mut feeds = HashMap::new();
        let page = big9_page(&feeds, 7);
        let item = FeedItem {
            url: page.record.url.clone(),
            title: "t".into(),
            description: "d".into(),
        };
        feeds.insert(canopy_ingest::normalize_url(&item.url), item);
        let page = big9_page(&feeds, 7);
        assert!(page.feed.is_some());
        let bytes = encode(&page).unwrap();
        let back = decode(&bytes, &feeds).unwrap();
        assert_eq!(back.record, page.record);
        assert_eq!(back.doc, page.doc);
        assert_eq!(back.lang, page.lang);
        assert_eq!(back.analysis(), page.analysis());
        assert_eq!(back.spent, page.spent);
        assert_eq!(back.feed, page.feed);
        // LZ4 keeps the page well under its DOM's size.
        let mut dom = Vec::new();
        page.doc.encode(&mut dom);
        assert!(
            bytes.len() < dom.len() / 2,
            "{} of {}",
            bytes.len(),
            dom.len()
        );
    }

    #[test]
    fn a_page_cut_short_or_damaged_is_an_error() {
        let feeds = HashMap::new();
        let bytes = encode(&big9_page(&feeds, 3)).unwrap();
        for n in [0, 3, 4, bytes.len() / 2, bytes.len() - 1] {
            assert!(decode(&bytes[..n], &feeds).is_err(), "cut at {n}");
        }
        // A content length far past what the block holds allocates nothing.
        let mut damaged = bytes.clone();
        damaged[..4].copy_from_slice(&u32::MAX.to_le_bytes());
        let Err(err) = decode(&damaged, &feeds) else {
            panic!("a damaged length decoded");
        };
        assert!(err.to_string().contains("past what"), "{err}");
    }
}
