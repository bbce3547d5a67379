//! Where one WARC record ends and the next begins, checked rather than
//! trusted.
//!
//! fastwarc reads a record's block by its `Content-Length` and, in quirks
//! mode (needed for ClueWeb09's LF-only headers), skips any line that is
//! not a WARC header start while it looks for the next record. Both lose
//! records silently on a damaged file: a `Content-Length` larger than the
//! record swallows the records after it into its block, and a stretch that
//! is not a record (a gzip member opening with `HTTP/1.1`, `WARC/2.0`, a
//! lower-case `warc/1.0`, the tail of a record whose length was too small)
//! is skipped with nothing said. So Canopy reads every block and every gap
//! between records itself, through [`LimitedBufReader`] (fastwarc then only
//! parses the headers where this module leaves the stream):
//!
//! - [`read_block`] stops a block where the next record visibly starts: a
//!   blank line then a `WARC/1.0` or `WARC/1.1` line (the separator and
//!   version line of WARC 1.x), or that line at the very start of what is
//!   read. The record is rejected by its caller; the record after it is
//!   read as any other. A block that holds a whole WARC file (an archived
//!   `.warc` fetched as a page) is read the same way: its records become
//!   records of the file.
//! - [`read_gap`] reads what lies between the end of a block and the next
//!   header start: blank lines are the separator; anything else is one
//!   stretch that is not a record, returned so that it becomes a reject.
//!
//! Both need to see a few bytes ahead of what they consume, which a
//! [`BufRead`] does not promise at the seams of its buffer: [`Lookahead`]
//! is the layer under fastwarc that does.

use std::any::Any;
use std::io::{self, BufRead, Read, Seek, SeekFrom};

use fastwarc::stream_io::bufread::LimitedBufReader;
use fastwarc::stream_io::gzip::GzipReader;
use fastwarc::stream_io::lz4::Lz4Reader;
use fastwarc::stream_io::traits::WarcRead;
use fastwarc::stream_io::zstd::ZstdReader;

/// The separator and version lines of the next record, as WARC 1.x writes
/// them: the blank line that ends a record, then the version line. Its
/// first four bytes end the record before it.
const NEXT_RECORD: [&[u8]; 2] = [b"\r\n\r\nWARC/1.0\r\n", b"\r\n\r\nWARC/1.1\r\n"];
/// The common prefix of [`NEXT_RECORD`], searched for first.
const NEXT_RECORD_PREFIX: &[u8] = b"\r\n\r\nWARC/1.";
/// Bytes [`Lookahead`] shows at least, where the stream has them: a record
/// start held back at a block's end plus a whole one past it.
const MIN_AHEAD: usize = 32;
/// Bytes of a stretch that is not a record quoted in its reject.
const QUOTED: usize = 40;

/// A [`WarcRead`] that shows at least [`MIN_AHEAD`] bytes at every
/// `fill_buf` where the stream has them. It hands out its inner reader's
/// buffer as it is, and copies only the few bytes left at a seam of that
/// buffer, with the start of the next, into a buffer of its own.
pub(crate) struct Lookahead {
    inner: Box<dyn WarcRead>,
    /// Bytes taken from `inner` at a seam and not yet consumed.
    seam: Vec<u8>,
    at: usize,
    /// An error of `inner` met while gathering a seam that already held
    /// bytes: returned once those are used up. In a `.warc.gz` the bytes
    /// are a record's last and the error is the next member's, which must
    /// not fail the record before it.
    deferred: Option<io::Error>,
}

impl Lookahead {
    pub fn new(inner: Box<dyn WarcRead>) -> Self {
        Lookahead {
            inner,
            seam: Vec::new(),
            at: 0,
            deferred: None,
        }
    }

    fn pending(&self) -> usize {
        self.seam.len() - self.at
    }
}

impl BufRead for Lookahead {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.pending() == 0 {
            if let Some(e) = self.deferred.take() {
                return Err(e);
            }
            self.seam.clear();
            self.at = 0;
            if self.inner.fill_buf()?.len() >= MIN_AHEAD {
                return self.inner.fill_buf();
            }
        }
        // At a seam: gather what is left and what follows, up to MIN_AHEAD.
        while self.pending() < MIN_AHEAD && self.deferred.is_none() {
            let held = self.pending();
            let wanted = MIN_AHEAD - held;
            let more = match self.inner.fill_buf() {
                Ok(more) => more,
                Err(e) if held > 0 => {
                    self.deferred = Some(e);
                    break;
                }
                Err(e) => return Err(e),
            };
            if more.is_empty() {
                break;
            }
            let take = more.len().min(wanted);
            self.seam.extend_from_slice(&more[..take]);
            self.inner.consume(take);
        }
        Ok(&self.seam[self.at..])
    }

    fn consume(&mut self, amount: usize) {
        let pending = self.pending();
        if pending == 0 {
            self.inner.consume(amount);
        } else {
            // A caller consumes at most what `fill_buf` showed: the seam.
            self.at += amount.min(pending);
        }
    }
}

impl Read for Lookahead {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(buf.len());
        buf[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl Seek for Lookahead {
    /// Only the position can be asked (fastwarc asks it with
    /// `SeekFrom::Current(0)`); the stream is read forward only.
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        match pos {
            SeekFrom::Current(0) => {
                let inner = self.inner.stream_position()?;
                Ok(inner.saturating_sub(self.pending() as u64))
            }
            _ => Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "a WARC stream is read forward only",
            )),
        }
    }
}

impl WarcRead for Lookahead {
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }

    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }

    fn inner_seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.seam.clear();
        self.at = 0;
        self.inner.inner_seek(pos)
    }

    /// What fastwarc gives a record starting here as its offset. A plain
    /// stream's is the position of the next byte not consumed. A framed
    /// decoder's (gzip, LZ4) is its frame's start in the file: the member
    /// a reader seeks to, the first one's too (fastwarc's own reader gives
    /// the records of a file's first member the compressed position its
    /// inflater has reached, which depends on how it buffered). Other
    /// decoders' is their position in the compressed stream.
    fn inner_stream_position(&mut self) -> io::Result<u64> {
        if !self.inner.is_stream_decoder() {
            let inner = self.inner.inner_stream_position()?;
            return Ok(inner.saturating_sub(self.pending() as u64));
        }
        match self.inner.frame_start_position()? {
            Some(start) => Ok(start),
            None => self.inner.inner_stream_position(),
        }
    }

    fn frame_start_position(&mut self) -> io::Result<Option<u64>> {
        self.inner.frame_start_position()
    }

    /// Always: fastwarc must not put a decoder of its own over this layer.
    fn is_stream_decoder(&self) -> bool {
        true
    }
}

/// The stream of a WARC file's records: `raw` decoded as its first bytes
/// say (gzip, zstd, LZ4, or plain), as fastwarc's own detection would,
/// under a [`Lookahead`].
pub(crate) fn open(raw: Box<dyn WarcRead>) -> io::Result<Lookahead> {
    if raw.is_stream_decoder() {
        return Ok(Lookahead::new(raw));
    }
    let mut raw = LimitedBufReader::new(raw, None);
    let magic: Vec<u8> = raw.fill_buf()?.iter().take(4).copied().collect();
    let decoded: Box<dyn WarcRead> = match Compression::of(&magic) {
        Compression::Gzip => Box::new(GzipReader::new(raw)),
        Compression::Zstd => Box::new(ZstdReader::new(raw)),
        Compression::Lz4 => Box::new(Lz4Reader::new(raw)),
        Compression::None => Box::new(raw),
    };
    Ok(Lookahead::new(decoded))
}

/// How a stream is compressed, by its first four bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Compression {
    Gzip,
    Zstd,
    Lz4,
    None,
}

impl Compression {
    pub(crate) fn of(magic: &[u8]) -> Compression {
        match magic {
            [0x1f, 0x8b, 0x08, ..] => Compression::Gzip,
            // A zstd frame, or the first skippable frame's magic, which
            // fastwarc's zstd reader also takes as a zstd stream's start.
            [0x28, 0xb5, 0x2f, 0xfd, ..] | [0x5d, 0x2a, 0x4d, 0x18, ..] => Compression::Zstd,
            [0x04, 0x22, 0x4d, 0x18, ..] => Compression::Lz4,
            _ => Compression::None,
        }
    }
}

/// How a block read by [`read_block`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BlockEnd {
    /// At its `Content-Length`, or earlier at the end of the stream.
    Whole,
    /// Its `Content-Length` took in up to four bytes of the blank line that
    /// separates records: the block is whole without them.
    IntoSeparator,
    /// Where the next record starts, this many bytes into what was read:
    /// the record's `Content-Length` runs into the records after it.
    NextRecord(u64),
}

/// Reads the rest of a record's block from `reader` (limited to the block
/// by fastwarc), appending up to `keep_max` bytes of it to `keep`, and
/// stops early where the next record starts (module documentation).
/// `after_blank`: what is read starts right after a blank line (the WARC
/// header's, or the HTTP header's), so a version line there is a record's
/// start too. Stopped early, the reader is left at that record's version
/// line with no block left, so that fastwarc parses it next.
pub(crate) fn read_block(
    reader: &mut LimitedBufReader,
    mut keep: Option<&mut Vec<u8>>,
    keep_max: usize,
    after_blank: bool,
) -> io::Result<BlockEnd> {
    let mut read: u64 = 0;
    let mut first = true;
    loop {
        let buf = reader.fill_buf()?;
        let at_blank = first && after_blank;
        first = false;
        let found = if at_blank && is_version_line(buf) {
            Some(0)
        } else {
            find_next_record(buf)
        };
        let (take, kept) = match found {
            // The separator's blank line belongs to neither record.
            Some(at) => (at, at.saturating_sub(4)),
            None => {
                // Bytes that may begin a record start which the next bytes
                // complete stay unconsumed; only the block's last bytes
                // (everything else consumed) are all such bytes.
                let hold = partial_start(buf);
                if hold == buf.len() {
                    return block_end(reader, read, keep, keep_max);
                }
                (buf.len() - hold, buf.len() - hold)
            }
        };
        if let Some(keep) = keep.as_deref_mut() {
            let room = keep_max.saturating_sub(keep.len());
            keep.extend_from_slice(&buf[..kept.min(room)]);
        }
        reader.consume(take);
        read += take as u64;
        if found.is_some() {
            reader.set_limit(0);
            return Ok(BlockEnd::NextRecord(read));
        }
    }
}

/// The last bytes of a block, all of which may begin a record start
/// (none, at its true end): whether that record start runs past the
/// block's end. If the block's length takes in only part of the blank line
/// that separates records (at most its four bytes), the record is whole and
/// those bytes are not its own; if it reaches into the next record's
/// version line, the reader is left at that line. Otherwise the bytes are
/// the block's own.
fn block_end(
    reader: &mut LimitedBufReader,
    read: u64,
    keep: Option<&mut Vec<u8>>,
    keep_max: usize,
) -> io::Result<BlockEnd> {
    let left = reader.fill_buf()?.len();
    if left == 0 {
        return Ok(BlockEnd::Whole);
    }
    // Look past the block's end (`set_limit` counts from here).
    reader.set_limit((left + NEXT_RECORD[0].len()) as u64);
    let ahead = reader.fill_buf()?;
    let next_record = NEXT_RECORD.iter().any(|p| ahead.starts_with(p));
    if next_record && left > 4 {
        reader.consume(4);
        reader.set_limit(0);
        return Ok(BlockEnd::NextRecord(read + 4));
    }
    if next_record {
        reader.set_limit(0);
        return Ok(BlockEnd::IntoSeparator);
    }
    if let Some(keep) = keep {
        let room = keep_max.saturating_sub(keep.len());
        keep.extend_from_slice(&ahead[..left.min(room)]);
    }
    reader.consume(left);
    reader.set_limit(0);
    Ok(BlockEnd::Whole)
}

/// Where the next record starts in `buf` (after its separator's blank
/// line), if it does.
fn find_next_record(buf: &[u8]) -> Option<usize> {
    memchr::memmem::find_iter(buf, NEXT_RECORD_PREFIX)
        .find(|&i| NEXT_RECORD.iter().any(|p| buf[i..].starts_with(p)))
        .map(|i| i + 4)
}

/// Whether `buf` starts with a WARC 1.x version line.
fn is_version_line(buf: &[u8]) -> bool {
    NEXT_RECORD.iter().any(|p| buf.starts_with(&p[4..]))
}

/// How many bytes at the end of `buf` may be the beginning of a record
/// start ([`NEXT_RECORD`]) that the bytes after `buf` complete.
fn partial_start(buf: &[u8]) -> usize {
    let longest = (NEXT_RECORD[0].len() - 1).min(buf.len());
    (1..=longest)
        .rev()
        .find(|&n| {
            let tail = &buf[buf.len() - n..];
            NEXT_RECORD.iter().any(|p| p.starts_with(tail))
        })
        .unwrap_or(0)
}

/// A stretch between two records that is not a record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NotARecord {
    /// Where it starts: its gzip (or LZ4) member's start in the file, or
    /// its byte position in a plain stream, as fastwarc gives records theirs.
    pub offset: u64,
    /// Its length, in bytes of the decoded stream.
    pub bytes: u64,
    /// Its first bytes, for the reject's reason.
    pub head: Vec<u8>,
    /// The `WARC-Record-ID` and `WARC-Target-URI` of its first lines, when
    /// it is a record with a version line Canopy does not read (`WARC/2.0`,
    /// a lower-case `warc/1.0`), so that its reject names the record.
    pub record_id: Option<String>,
    pub url: Option<String>,
}

impl NotARecord {
    /// Keeps the record id or target URI a header line of its gives.
    fn note_header(&mut self, line: &[u8]) {
        let Ok(line) = std::str::from_utf8(line) else {
            return;
        };
        let Some((name, value)) = line.split_once(':') else {
            return;
        };
        // As the reader gives them: the id as written, the URI unbracketed.
        let value = value.trim();
        let (slot, value) = if name.eq_ignore_ascii_case("WARC-Record-ID") {
            (&mut self.record_id, value)
        } else if name.eq_ignore_ascii_case("WARC-Target-URI") {
            let uri = value.trim_start_matches('<').trim_end_matches('>');
            (&mut self.url, uri)
        } else {
            return;
        };
        if slot.is_none() && !value.is_empty() {
            *slot = Some(value.to_string());
        }
    }

    /// The reject's reason.
    pub fn reason(&self) -> String {
        format!(
            "not a WARC record: {} bytes (a record starts with a WARC/1.0 or WARC/1.1 line), starting {:?}",
            self.bytes,
            String::from_utf8_lossy(&self.head)
        )
    }
}

/// Reads from `reader` what lies before the next record's header (or the
/// stream's end): blank lines, which separate records, and anything else,
/// returned as one [`NotARecord`]. Leaves the reader at the header with no
/// limit left, so that fastwarc parses it next. A line is a header's start
/// when fastwarc takes it for one: `WARC/1.0`, `WARC/1.1`, or ClueWeb's
/// `WARC/0.x`, then only white space. `max`: most bytes the stretch may
/// run to before reading fails (an error that ends the input): a stream,
/// unlike a file, may never end, and one that is no WARC (standard input
/// fed from the wrong command, a URL that serves something else) would be
/// read forever.
pub(crate) fn read_gap(
    reader: &mut LimitedBufReader,
    max: Option<u64>,
) -> io::Result<Option<NotARecord>> {
    reader.set_limit(u64::MAX);
    let mut junk: Option<NotARecord> = None;
    // Whether the stretch's first lines (up to a blank one) are still read.
    let mut first_lines = true;
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() || is_header_start(buf) {
            break;
        }
        // One line (or what the buffer holds of it: the rest comes next).
        let line = memchr::memchr(b'\n', buf).map_or(buf.len(), |i| i + 1);
        let blank = buf[..line].iter().all(u8::is_ascii_whitespace);
        if !blank || junk.is_some() {
            if junk.is_none() {
                let offset = record_offset(reader)?;
                junk = Some(NotARecord {
                    offset,
                    bytes: 0,
                    head: Vec::new(),
                    record_id: None,
                    url: None,
                });
            }
            let buf = reader.fill_buf()?;
            if let Some(j) = junk.as_mut() {
                j.bytes += line as u64;
                if let Some(max) = max.filter(|&max| j.bytes > max) {
                    return Err(io::Error::other(format!(
                        "{}; gave up past {max} bytes without a record",
                        j.reason()
                    )));
                }
                let room = QUOTED.saturating_sub(j.head.len());
                j.head.extend_from_slice(&buf[..line.min(room)]);
                first_lines &= !blank;
                if first_lines {
                    j.note_header(&buf[..line]);
                }
            }
        }
        reader.consume(line);
    }
    reader.set_limit(0);
    Ok(junk)
}

/// Whether `buf` starts with a line fastwarc takes for a record's start.
fn is_header_start(buf: &[u8]) -> bool {
    let line = memchr::memchr(b'\n', buf).map_or(buf, |i| &buf[..i]);
    let version = line.trim_ascii_end();
    matches!(version, b"WARC/1.0" | b"WARC/1.1")
        || (version.starts_with(b"WARC/0.") && version.len() <= 9)
}

/// The offset fastwarc would give a record starting here
/// ([`Lookahead::inner_stream_position`]).
fn record_offset(reader: &mut LimitedBufReader) -> io::Result<u64> {
    reader.inner_stream_position()
}
