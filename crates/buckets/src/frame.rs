//! The bytes of one record in a bucket data file (a "frame").
//!
//! ```text
//! frame   = block ‖ xxh64 (8 bytes, little-endian, of `block`)
//! block   = LZ4 block of content ‖ content length (u32 LE)
//!         | content ‖ (content length | STORED) (u32 LE)
//! content = payload ‖ header ‖ header length (u32 LE)
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
//!
//! The payload comes first and the lengths and checksum last (the index
//! gives each frame's span), so that a stored frame read into a buffer of
//! its own becomes the page's HTML where it lies: truncated, not copied.

use std::hash::Hasher;
use std::io;

use crate::{Item, Record};

const HASH_LEN: usize = 8;

/// The content length's top bit: the content is stored, not compressed.
const STORED: u32 = 1 << 31;

/// An encoded frame, in two pieces written one after the other: a stored
/// page's HTML stays in its own buffer rather than being copied into one
/// with the header.
#[derive(Debug)]
pub struct Frame {
    body: Vec<u8>,
    tail: Vec<u8>,
}

impl Frame {
    /// The frame's length in bytes.
    pub fn len(&self) -> usize {
        self.body.len() + self.tail.len()
    }

    /// Writes the frame's bytes to `out`.
    pub fn write_to(&self, out: &mut impl io::Write) -> io::Result<()> {
        out.write_all(&self.body)?;
        out.write_all(&self.tail)
    }

    /// The frame's bytes in one buffer.
    #[cfg(test)]
    pub fn into_bytes(self) -> Vec<u8> {
        let mut bytes = self.body;
        bytes.extend_from_slice(&self.tail);
        bytes
    }
}

/// Encodes `record` (consumed: a stored page's HTML buffer becomes the
/// frame's body), LZ4 compressed if `compress`, else stored.
pub fn encode(mut record: Record, compress: bool) -> io::Result<Frame> {
    let payload = match &mut record.item {
        Item::Page(page) => std::mem::take(&mut page.html),
        Item::Feed(_) => String::new(),
    };
    let header = serde_json::to_vec(&record)?;
    let header_len = u32::try_from(header.len())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "record header over 2 GiB"))?;
    let content_len = payload.len() + header.len() + 4;
    if u32::try_from(content_len).map_or(true, |n| n & STORED != 0) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "record over 2 GiB",
        ));
    }
    let (body, mut tail) = if compress {
        let mut content = payload.into_bytes();
        content.extend_from_slice(&header);
        content.extend_from_slice(&header_len.to_le_bytes());
        let mut block = Vec::new();
        crate::lz4::compress(&content, &mut block)?;
        let mut tail = Vec::with_capacity(4 + HASH_LEN);
        tail.extend_from_slice(&(content_len as u32).to_le_bytes());
        (block, tail)
    } else {
        let mut tail = header;
        tail.extend_from_slice(&header_len.to_le_bytes());
        tail.extend_from_slice(&(content_len as u32 | STORED).to_le_bytes());
        (payload.into_bytes(), tail)
    };
    let mut hasher = twox_hash::XxHash64::with_seed(0);
    hasher.write(&body);
    hasher.write(&tail);
    tail.extend_from_slice(&hasher.finish().to_le_bytes());
    Ok(Frame { body, tail })
}

fn invalid(what: impl std::fmt::Display) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.to_string())
}

/// Splits `bytes` into what comes before its last four bytes and those
/// four, read as a little-endian `u32`.
fn split_u32_tail(bytes: &[u8]) -> Option<(&[u8], u32)> {
    let at = bytes.len().checked_sub(4)?;
    let (rest, tail) = bytes.split_at(at);
    Some((rest, u32::from_le_bytes(tail.try_into().ok()?)))
}

/// Decodes a frame written by [`encode`] (consumed: a stored page's HTML
/// is the frame's buffer, cut to the payload).
pub fn decode(mut frame: Vec<u8>) -> io::Result<Record> {
    let Some(block_len) = frame.len().checked_sub(HASH_LEN) else {
        return Err(invalid("frame shorter than its checksum"));
    };
    let (block, hash) = frame.split_at(block_len);
    let hash = u64::from_le_bytes(hash.try_into().expect("8 bytes"));
    if crate::xxh64(block) != hash {
        return Err(invalid("checksum mismatch"));
    }
    let (body, len) =
        split_u32_tail(block).ok_or_else(|| invalid("frame without a content length"))?;
    let mut content = if len & STORED != 0 {
        if body.len() != (len & !STORED) as usize {
            return Err(invalid("stored frame of the wrong length"));
        }
        frame.truncate(body.len());
        frame
    } else {
        crate::lz4::decompress(body, len as usize)?
    };
    let (rest, header_len) =
        split_u32_tail(&content).ok_or_else(|| invalid("frame without a header length"))?;
    let payload_len = rest
        .len()
        .checked_sub(header_len as usize)
        .ok_or_else(|| invalid("header length past the start of the frame"))?;
    let mut record: Record = serde_json::from_slice(&rest[payload_len..])?;
    content.truncate(payload_len);
    match &mut record.item {
        Item::Page(page) => {
            page.html = String::from_utf8(content)
                .map_err(|e| invalid(format!("HTML is not UTF-8: {e}")))?;
        }
        Item::Feed(_) if content.is_empty() => {}
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
                let frame = encode(record.clone(), compress).unwrap().into_bytes();
                assert_eq!(decode(frame).unwrap(), record);
            }
        }
        // Repetitive HTML compresses; a stored frame holds it as is.
        assert!(encode(page(&html), true).unwrap().len() < html.len() / 4);
        assert!(encode(page(&html), false).unwrap().len() > html.len());
    }

    #[test]
    fn damage_is_an_error() {
        for compress in [true, false] {
            let frame = encode(page("<p>some text</p>"), compress)
                .unwrap()
                .into_bytes();
            for i in [0, 9, 11, frame.len() - 13, frame.len() - 9, frame.len() - 1] {
                let mut bad = frame.clone();
                bad[i] ^= 0x20;
                let err = decode(bad).unwrap_err();
                assert_eq!(err.kind(), io::ErrorKind::InvalidData, "byte {i}");
            }
            assert!(decode(frame[..frame.len() - 1].to_vec()).is_err());
            assert!(decode(frame[..5].to_vec()).is_err());
            assert!(decode(frame[1..].to_vec()).is_err());
        }
    }
}
