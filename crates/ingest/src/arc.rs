//! ARC v1 files (the Internet Archive's format before WARC, used by Common
//! Crawl's older crawls), read by handing each record to the WARC path.
//!
//! An ARC file is a version block (`filedesc://…` header line and its
//! content) followed by records, each one header line
//! `URL IP-address archive-date content-type length` and `length` bytes
//! (for `http:` URLs, the HTTP response with its headers), then a newline.
//! A `.arc.gz` file usually holds one gzip member per record. An ARC is
//! recognised by its content wherever a WARC is read (a file, standard
//! input, an http(s) body, bytes in memory): its decoded stream starts
//! with `filedesc://`.
//!
//! Each record becomes an in-memory WARC `response` record and goes through
//! the same code as a WARC record ([`crate::warc`]): de-chunking, content
//! decoding, charset decoding, classification, caps and rejects. ARC has no
//! record ids, so `record_id` is empty; the offset is the record's byte
//! offset in a plain file, and the offset of its gzip member in a gzipped
//! one (exact for one member per record, the usual layout).

use std::io::{self, BufRead, BufReader, Read};

use canopy_types::{Reject, SourceRef, Stage};
use fastwarc::stream_io::bufread::RawReaderAdapter;
use fastwarc::stream_io::traits::IntoWarcReader;

use crate::framing::Compression;
use crate::stream::Forward;
use crate::{Event, IngestOptions, Skip, WarcStats};

/// A `BufRead` that counts the bytes consumed from it.
struct Counting<R> {
    inner: R,
    pos: u64,
}

impl<R: BufRead> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.pos += n as u64;
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Counting<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }
    fn consume(&mut self, amt: usize) {
        self.pos += amt as u64;
        self.inner.consume(amt);
    }
}

/// One ARC header line, split.
struct ArcHeader {
    url: String,
    date: String,
    content_type: String,
    length: u64,
}

/// Parses `URL IP-address archive-date content-type length`. The fields
/// are taken from the right, so a URL with spaces (seen in old crawls)
/// stays whole.
fn parse_header(line: &str) -> Option<ArcHeader> {
    let mut fields = line.trim_end().rsplitn(5, ' ');
    let length = fields.next()?.parse().ok()?;
    let content_type = fields.next()?.to_string();
    let date = fields.next()?.to_string();
    let _ip = fields.next()?;
    let url = fields.next()?.trim().to_string();
    if url.is_empty() {
        return None;
    }
    Some(ArcHeader {
        url,
        date,
        content_type,
        length,
    })
}

/// ARC's `YYYYMMDDhhmmss` as a WARC date (`YYYY-MM-DDThh:mm:ssZ`); other
/// forms are passed through (the date is not used downstream).
fn warc_date(arc: &str) -> String {
    match arc
        .get(..14)
        .filter(|d| d.bytes().all(|b| b.is_ascii_digit()))
    {
        Some(d) => {
            let part = |a: usize, b: usize| d.get(a..b).unwrap_or_default();
            format!(
                "{}-{}-{}T{}:{}:{}Z",
                part(0, 4),
                part(4, 6),
                part(6, 8),
                part(8, 10),
                part(10, 12),
                part(12, 14)
            )
        }
        None => arc.to_string(),
    }
}

/// Reads an ARC stream, calling `on_event` as [`crate::read_warc`] does.
/// `raw` is the stream as stored: plain, gzip, zstd or LZ4 (told from its
/// first bytes). `file_name` is the name written in events.
///
/// Offsets: a plain stream's are its byte offsets; a gzipped one's are
/// those of each record's gzip member (exact for one member per record,
/// the usual layout); zstd and LZ4 are read as one decoded stream, and
/// their offsets are positions in it.
pub(crate) fn read_arc<R: Read + Send + 'static>(
    raw: R,
    file_name: &str,
    opts: &IngestOptions,
    on_event: &mut dyn FnMut(Event),
) -> WarcStats {
    let mut reader = Counting {
        inner: BufReader::with_capacity(1 << 20, raw),
        pos: 0,
    };
    let mut arc = ArcReader {
        file: file_name,
        opts,
        stats: WarcStats::default(),
        on_event,
    };
    let magic = match reader.fill_buf() {
        Ok(head) => head.get(..4).unwrap_or(head).to_vec(),
        Err(e) => {
            arc.stop(Some(0), &format!("cannot read: {e}"));
            return arc.stats;
        }
    };
    let compression = Compression::of(&magic);
    if compression == Compression::Gzip {
        // One member at a time, so each record knows where its member starts.
        loop {
            let member = reader.pos;
            match reader.fill_buf() {
                Ok([]) => break,
                Ok(_) => {}
                Err(e) => {
                    arc.stop(Some(member), &format!("cannot read: {e}"));
                    break;
                }
            }
            let decoder = BufReader::new(flate2::bufread::GzDecoder::new(&mut reader));
            if !arc.read_records(decoder, |_| member) {
                break;
            }
        }
    } else if compression != Compression::None {
        // Decoded as the WARC path decodes them.
        let raw = RawReaderAdapter::new(Forward::new(reader)).into_warc_reader();
        match crate::framing::open(raw) {
            Ok(decoded) => {
                arc.read_records(decoded, |pos| pos);
            }
            Err(e) => arc.stop(Some(0), &format!("cannot read: {e}")),
        }
    } else {
        arc.read_records(reader, |pos| pos);
    }
    arc.stats
}

struct ArcReader<'a> {
    file: &'a str,
    opts: &'a IngestOptions,
    stats: WarcStats,
    on_event: &'a mut dyn FnMut(Event),
}

impl ArcReader<'_> {
    /// A reject that ends the file (ARC has no marker to resynchronise on).
    fn stop(&mut self, offset: Option<u64>, reason: &str) {
        let read = self.stats.records;
        // The rest of the file counts as one record, rejected.
        self.stats.records += 1;
        self.stats.rejected += 1;
        (self.on_event)(Event::Reject(Reject {
            source: SourceRef {
                file: self.file.to_string(),
                offset,
            },
            record_id: None,
            url: None,
            stage: Stage::Arc,
            reason: format!("stopped reading after {read} records: {reason}"),
        }));
    }

    /// Reads the records of one stream (a plain file, or one gzip member)
    /// to its end; `offset_of` maps a position in the stream to the offset
    /// reported. Returns false when reading must stop.
    fn read_records(&mut self, reader: impl BufRead, offset_of: impl Fn(u64) -> u64) -> bool {
        let mut reader = Counting {
            inner: reader,
            pos: 0,
        };
        let mut line = Vec::new();
        loop {
            let start = reader.pos;
            line.clear();
            // Header lines are short; a longer "line" is not an ARC header.
            let read = (&mut reader)
                .take(crate::warc::MAX_HEADER_LEN as u64)
                .read_until(b'\n', &mut line);
            match read {
                Ok(0) => return true,
                Ok(_) => {}
                Err(e) => {
                    self.stop(Some(offset_of(start)), &format!("cannot read: {e}"));
                    return false;
                }
            }
            if line.iter().all(u8::is_ascii_whitespace) {
                continue; // the newline between records
            }
            let header = std::str::from_utf8(&line).ok().and_then(parse_header);
            let Some(header) = header else {
                self.stop(Some(offset_of(start)), "malformed ARC record header");
                return false;
            };
            let offset = offset_of(start);
            self.stats.records += 1;
            let cap = self.opts.max_decoded_bytes as u64;
            let mut block = Vec::new();
            let got = (&mut reader)
                .take(header.length.min(cap.saturating_add(1)))
                .read_to_end(&mut block);
            if let Err(e) = got {
                self.stop(Some(offset), &format!("cannot read record: {e}"));
                return false;
            }
            if header.length > cap {
                self.reject(
                    offset,
                    &header.url,
                    format!("record payload exceeds {cap} bytes"),
                );
                // Skip the rest of the record to reach the next one.
                if io::copy(
                    &mut (&mut reader).take(header.length - block.len() as u64),
                    &mut io::sink(),
                )
                .is_err()
                {
                    return false;
                }
                continue;
            }
            if (block.len() as u64) < header.length {
                self.reject(
                    offset,
                    &header.url,
                    format!(
                        "truncated record: expected {} payload bytes, found {}",
                        header.length,
                        block.len()
                    ),
                );
                return false;
            }
            if header.url.starts_with("filedesc:") {
                self.stats.skip(Skip::RecordType); // the version block
                continue;
            }
            self.process(offset, &header, block);
        }
    }

    fn reject(&mut self, offset: u64, url: &str, reason: String) {
        self.stats.rejected += 1;
        (self.on_event)(Event::Reject(Reject {
            source: SourceRef {
                file: self.file.to_string(),
                offset: Some(offset),
            },
            record_id: None,
            url: Some(url.to_string()),
            stage: Stage::Arc,
            reason,
        }));
    }

    /// Hands one record to the WARC path as a `response` record.
    fn process(&mut self, offset: u64, header: &ArcHeader, block: Vec<u8>) {
        let content_type = if block.starts_with(b"HTTP/") {
            "application/http; msgtype=response".to_string()
        } else {
            header.content_type.clone()
        };
        // The URL goes into a header line: no line breaks.
        let url: String = header.url.chars().filter(|c| !c.is_control()).collect();
        let mut record = format!(
            "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: {url}\r\n\
             WARC-Date: {}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
            warc_date(&header.date),
            block.len()
        )
        .into_bytes();
        record.extend_from_slice(&block);
        record.extend_from_slice(b"\r\n\r\n");
        let on_event = &mut *self.on_event;
        let file = self.file;
        let stats = crate::warc::read_warc_bytes(file, record, self.opts, &mut |event| {
            on_event(at_offset(event, offset))
        });
        // The record is counted once, as an ARC record (more if its block
        // holds WARC records: `framing.rs`).
        self.stats.records += stats.records.saturating_sub(1);
        self.stats.revisits += stats.revisits;
        self.stats.responses += stats.responses;
        self.stats.html += stats.html;
        self.stats.feeds += stats.feeds;
        self.stats.skipped_by = self.stats.skipped_by.plus(&stats.skipped_by);
        self.stats.rejected += stats.rejected;
    }
}

/// The event with the ARC record's offset in place of the in-memory one.
fn at_offset(mut event: Event, offset: u64) -> Event {
    match &mut event {
        Event::Page(p) => p.source.offset = Some(offset),
        Event::Feed { source, .. } => source.offset = Some(offset),
        Event::Reject(r) => r.source.offset = Some(offset),
    }
    event
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_lines() {
        let h = parse_header("http://example.com/ 93.184.216.119 20140216050221 text/html 1591\n")
            .unwrap();
        assert_eq!(
            (h.url.as_str(), h.content_type.as_str(), h.length),
            ("http://example.com/", "text/html", 1591)
        );
        assert_eq!(warc_date(&h.date), "2014-02-16T05:02:21Z");
        let spaced =
            parse_header("http://a.example/x y.html 1.2.3.4 19960923142103 text/html 10").unwrap();
        assert_eq!(spaced.url, "http://a.example/x y.html");
        assert!(parse_header("not an arc header").is_none());
        assert!(parse_header("http://a/ 1.2.3.4 1996 text/html -5").is_none());
    }
}
