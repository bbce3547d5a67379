//! The bytes of one record in a bucket data file (a "frame").
//!
//! ```text
//! frame   = xxh64 (8 bytes, little-endian, of `block`) ‖ block
//! block   = content length (u32 LE) ‖ LZ4 block of content
//!         | (content length | STORED) (u32 LE) ‖ content
//! content = header length (u32 LE) ‖ header ‖ payload
//! ```
//!
//! A stored frame (the length's top bit set) holds its content as is:
//! `canopy run`'s scratch work folder of a small input skips LZ4, which
//! there only trades CPU for disk space that is freed at the end of the run.
//!
//! `header` is the record as JSON with a page's HTML left empty; `payload`
//! is that HTML, raw UTF-8 (empty for a feed item). Why not a gzip member of
//! one JSON line: escaping the HTML into a JSON string and back, and
//! deflating and inflating it, cost a fifth of `canopy run`'s CPU time on
//! the dev corpora; LZ4 compresses at several hundred MB/s and
//! inflates at several GB/s, for files about a third larger than gzip
//! level 1's. The checksum is verified before the block is decompressed,
//! so a damaged file is an error, never a wrong page.

use std::io;

use crate::{Item, Record};

const HASH_LEN: usize = 8;

/// The content length's top bit: the content is stored, not compressed.
const STORED: u32 = 1 << 31;

/// Encodes `record` (consumed: its HTML moves into the frame), LZ4
/// compressed if `compress`, else stored.
pub fn encode(mut record: Record, compress: bool) -> io::Result<Vec<u8>> {
    let payload = match &mut record.item {
        Item::Page(page) => std::mem::take(&mut page.html),
        Item::Feed(_) => String::new(),
    };
    let header = serde_json::to_vec(&record)?;
    let header_len = u32::try_from(header.len())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "record header over 2 GiB"))?;
    let content_len = 4 + header.len() + payload.len();
    if u32::try_from(content_len).map_or(true, |n| n & STORED != 0) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "record over 2 GiB",
        ));
    }
    // [hash][length (| STORED)][content], content = [header length][header][HTML];
    // the content is LZ4-compressed in place when asked.
    let start = HASH_LEN + 4;
    let mut frame = Vec::with_capacity(start + content_len);
    frame.resize(start, 0);
    frame.extend_from_slice(&header_len.to_le_bytes());
    frame.extend_from_slice(&header);
    frame.extend_from_slice(payload.as_bytes());
    drop(payload);
    let length = if compress {
        let content = frame.split_off(start);
        crate::lz4::compress(&content, &mut frame)?;
        content_len as u32
    } else {
        content_len as u32 | STORED
    };
    frame[HASH_LEN..start].copy_from_slice(&length.to_le_bytes());
    let hash = crate::xxh64(&frame[HASH_LEN..]);
    frame[..HASH_LEN].copy_from_slice(&hash.to_le_bytes());
    Ok(frame)
}

fn invalid(what: impl std::fmt::Display) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.to_string())
}

/// Decodes a frame written by [`encode`].
pub fn decode(frame: &[u8]) -> io::Result<Record> {
    if frame.len() < HASH_LEN {
        return Err(invalid("frame shorter than its checksum"));
    }
    let (hash, block) = frame.split_at(HASH_LEN);
    let hash = u64::from_le_bytes(hash.try_into().expect("8 bytes"));
    if crate::xxh64(block) != hash {
        return Err(invalid("checksum mismatch"));
    }
    if block.len() < 4 {
        return Err(invalid("frame without a content length"));
    }
    let (len, compressed) = block.split_at(4);
    let len = u32::from_le_bytes(len.try_into().expect("4 bytes"));
    let content: std::borrow::Cow<'_, [u8]> = if len & STORED != 0 {
        if compressed.len() != (len & !STORED) as usize {
            return Err(invalid("stored frame of the wrong length"));
        }
        compressed.into()
    } else {
        crate::lz4::decompress(compressed, len as usize)?.into()
    };
    if content.len() < 4 {
        return Err(invalid("frame without a header length"));
    }
    let header_len = u32::from_le_bytes(content[..4].try_into().expect("4 bytes")) as usize;
    let header = content
        .get(4..4 + header_len)
        .ok_or_else(|| invalid("header length past the end of the frame"))?;
    let mut record: Record = serde_json::from_slice(header)?;
    let payload = &content[4 + header_len..];
    match &mut record.item {
        Item::Page(page) => {
            page.html = std::str::from_utf8(payload)
                .map_err(|e| invalid(format!("HTML is not UTF-8: {e}")))?
                .to_owned();
        }
        Item::Feed(_) if payload.is_empty() => {}
        Item::Feed(_) => return Err(invalid("feed item with a payload")),
    }
    Ok(record)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::InputPos;
    use canopy_types::{FeedItem, PageRecord, SourceRef};

    fn page(html: &str) -> Record {
        Record {
            pos: InputPos { file: 3, seq: 7 },
            item: Item::Page(PageRecord {
                url: "http://a.example/x".into(),
                record_id: "<urn:uuid:1>".into(),
                source: SourceRef {
                    file: "a.warc.gz".into(),
                    offset: Some(42),
                },
                status: Some(200),
                charset: "UTF-8".into(),
                date: None,
                content_language: Some("de-CH".into()),
                html: html.into(),
            }),
        }
    }

    #[test]
    fn pages_and_feed_items_round_trip() {
        let html = "<p>\"quoted\" \\ ünïcode \u{0}\n</p>".repeat(50);
        for record in [
            page(&html),
            page(""),
            Record {
                pos: InputPos { file: 0, seq: 0 },
                item: Item::Feed(FeedItem {
                    url: "http://a.example/x".into(),
                    title: "T".into(),
                    description: "D".into(),
                }),
            },
        ] {
            for compress in [true, false] {
                let frame = encode(record.clone(), compress).unwrap();
                assert_eq!(decode(&frame).unwrap(), record);
            }
        }
        // Repetitive HTML compresses; a stored frame holds it as is.
        assert!(encode(page(&html), true).unwrap().len() < html.len() / 4);
        assert!(encode(page(&html), false).unwrap().len() > html.len());
    }

    #[test]
    fn damage_is_an_error() {
        for compress in [true, false] {
            let frame = encode(page("<p>some text</p>"), compress).unwrap();
            for i in [0, 9, 11, frame.len() - 1] {
                let mut bad = frame.clone();
                bad[i] ^= 0x20;
                let err = decode(&bad).unwrap_err();
                assert_eq!(err.kind(), io::ErrorKind::InvalidData, "byte {i}");
            }
            assert!(decode(&frame[..frame.len() - 1]).is_err());
            assert!(decode(&frame[..5]).is_err());
        }
    }
}
