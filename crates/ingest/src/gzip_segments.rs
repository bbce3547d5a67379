//! Inflating a multi-member `.warc.gz` on several threads, for a reader
//! that still reads its records in order.
//!
//! Common Crawl writes one gzip member per record, and inflate was 61 % of
//! the reading thread's samples in a two-thread run of big9, the thread that
//! paced the partition (docs/performance.md, "Threads"). [`SegmentedGzip`]
//! cuts the compressed file into segments of about `segment_bytes` at what
//! looks like a member start, inflates them on the rayon pool, a bounded
//! window ahead, and hands fastwarc their
//! decompressed bytes in file order, member by member, with each member's
//! start as the frame position (the record offsets written in outputs).
//!
//! A cut is only a guess: it is trusted once the segment before it
//! inflated to whole members ending exactly there, so that a file of whole
//! members (every file that is not broken) reads to the bytes and record
//! offsets of fastwarc's own `GzipReader`. A segment that does not inflate
//! whole (a cut inside a member; a corrupt, truncated or empty member, which
//! fastwarc takes for the end of the file; more than `MAX_OUTPUT_FACTOR`
//! times its size once inflated), or is too large to inflate at once
//! (`MAX_PIECE_FACTOR`), is read by a `GzipReader` started at the segment's
//! start, a proven member start; that reader goes on until a member it
//! begins starts at a later cut, where the segments take over again. The
//! first segment is always read that way from offset 0, because fastwarc
//! gives the records of a file's first member the reader's compressed
//! position, which depends on how that reader buffered.
//!
//! Where a member is corrupt, how much of it comes out before the error
//! depends on how the reader had buffered until then, so a record that the
//! corruption breaks may be reported otherwise than by one `GzipReader` over
//! the whole file. It is reported the same way whatever the number of
//! threads: the cuts depend only on the file and `segment_bytes`, and the
//! window of segments inflating ahead only changes when they are inflated.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{sync_channel, Receiver};

use fastwarc::stream_io::bufread::LimitedBufReader;
use fastwarc::stream_io::gzip::GzipReader;
use fastwarc::stream_io::traits::WarcRead;
use zlib_rs::{Inflate, InflateFlush, Status};

/// Bytes of a gzip member header that a cut is checked against.
pub(crate) const HEADER_LEN: usize = 10;
/// zlib's window bits for a gzip wrapper, as fastwarc's `GzipReader` uses.
pub(crate) const GZIP_WINDOW_BITS: u8 = 15 + 16;
/// Past this many segments' worth of bytes without a member start (a file
/// compressed as one member, or one member that large), the rest of the
/// file is read in order.
const MAX_SEGMENT_FACTOR: usize = 64;
/// A segment longer than this many times `segment_bytes` (a large member)
/// is read in order, as a stream, so that the segments inflating at once
/// hold little.
const MAX_PIECE_FACTOR: usize = 4;
/// A segment that inflates to more than this many times its size (a gzip
/// bomb; HTML inflates 4–5 times) is read in order instead, as a stream.
const MAX_OUTPUT_FACTOR: usize = 16;

/// A fastwarc reader over a `.warc.gz` file whose members are inflated in
/// segments on the rayon pool (module documentation).
pub(crate) struct SegmentedGzip {
    path: PathBuf,
    cuts: Option<Cuts>,
    /// Segments handed to the pool, and the tail if the cutting stopped,
    /// in file order.
    pending: VecDeque<Pending>,
    window: usize,
    source: Source,
    /// Decompressed bytes handed out so far.
    pos: u64,
}

/// Where the bytes come from now.
enum Source {
    /// fastwarc's own reader, from a proven member start.
    InOrder(Box<GzipReader<LimitedBufReader>>),
    /// A segment inflated on the pool: its `member`th member, `at` bytes
    /// into its data.
    Segment {
        segment: Inflated,
        member: usize,
        at: usize,
    },
    /// The end of the file, after the member that started at this offset
    /// (fastwarc asks for it after the last line).
    End(Option<u64>),
}

/// A piece of the file after a cut.
struct Pending {
    start: u64,
    /// The segment being inflated; `None` for a piece read in order (the
    /// tail, or a piece too large).
    inflated: Option<Receiver<Inflated>>,
}

/// A segment's members, inflated.
struct Inflated {
    data: Vec<u8>,
    /// Each member's file offset and where its bytes end in `data`.
    members: Vec<(u64, usize)>,
    /// Whether the segment was whole, non-empty members up to its end;
    /// only then are `data` and `members` used.
    whole: bool,
}

impl SegmentedGzip {
    /// Opens `path` for reading with segments of about `segment_bytes`
    /// compressed bytes, `window` of them inflating at once.
    pub(crate) fn open(path: &Path, segment_bytes: usize, window: usize) -> io::Result<Self> {
        let mut reader = Self {
            path: path.to_path_buf(),
            cuts: Some(Cuts::new(File::open(path)?, segment_bytes.max(HEADER_LEN))),
            pending: VecDeque::new(),
            window: window.max(1),
            source: Source::InOrder(Box::new(in_order(path, 0)?)),
            pos: 0,
        };
        // The first segment is read in order (module documentation).
        if let Some(cuts) = &mut reader.cuts {
            cuts.skip_first()?;
        }
        reader.refill()?;
        Ok(reader)
    }

    /// Keeps `window` segments inflating.
    fn refill(&mut self) -> io::Result<()> {
        while self.pending.len() < self.window {
            let Some(cuts) = &mut self.cuts else { break };
            let largest = cuts.segment_bytes.saturating_mul(MAX_PIECE_FACTOR);
            let (start, inflated) = match cuts.next()? {
                Some(Piece::Segment { start, bytes }) if bytes.len() <= largest => {
                    let (send, inflated) = sync_channel(1);
                    rayon::spawn(move || {
                        // The reader may have stopped early and gone.
                        let _ = send.send(inflate_segment(start, &bytes));
                    });
                    (start, Some(inflated))
                }
                Some(Piece::Segment { start, .. }) => (start, None),
                Some(Piece::Tail { start }) => {
                    self.cuts = None;
                    (start, None)
                }
                None => {
                    self.cuts = None;
                    break;
                }
            };
            self.pending.push_back(Pending { start, inflated });
        }
        Ok(())
    }

    /// Goes on with the next piece, once the segment before it inflated
    /// whole: its start is a member start.
    fn take_next(&mut self) -> io::Result<()> {
        let last_member = self.frame_start_position()?;
        self.source = Source::End(last_member);
        if let Some(next) = self.pending.pop_front() {
            let start = next.start;
            self.source = match next.wait() {
                Some(segment) => Source::segment(segment),
                None => Source::InOrder(Box::new(in_order(&self.path, start)?)),
            };
        }
        self.refill()
    }

    /// Reading in order is in the member at `member_pos`: drops the pieces
    /// it went past (their cut was inside a member), cutting further ahead
    /// when it went past them all, and if a piece starts at the member and
    /// inflated whole, switches to it. Returns whether it switched.
    ///
    /// A piece starting at the member is found, and taken or dropped, at
    /// the member's first bytes: the first call for the member cuts as far
    /// as it. Later calls in the member, with some of its bytes handed out,
    /// find only pieces past it.
    fn catch_up(&mut self, member_pos: u64) -> io::Result<bool> {
        loop {
            while self.pending.front().is_some_and(|p| p.start < member_pos) {
                self.pending.pop_front();
            }
            if !self.pending.is_empty() || self.cuts.is_none() {
                break;
            }
            self.refill()?;
        }
        let reached = self.pending.front().is_some_and(|p| p.start == member_pos);
        let segment = match reached {
            true => self.pending.pop_front().and_then(Pending::wait),
            false => None,
        };
        self.refill()?;
        let switched = segment.is_some();
        if let Some(segment) = segment {
            self.source = Source::segment(segment);
        }
        Ok(switched)
    }
}

impl Source {
    fn segment(segment: Inflated) -> Self {
        Source::Segment {
            segment,
            member: 0,
            at: 0,
        }
    }
}

impl Pending {
    /// The segment, once inflated, if it inflated whole.
    fn wait(self) -> Option<Inflated> {
        let segment = self.inflated?.recv().ok()?;
        segment.whole.then_some(segment)
    }
}

/// fastwarc's gzip reader from `offset`, built as its archive iterator
/// builds it over a `BufReader<File>` (`warc::read_stream`).
pub(crate) fn in_order(path: &Path, offset: u64) -> io::Result<GzipReader<LimitedBufReader>> {
    let mut file = File::open(path)?;
    file.seek(SeekFrom::Start(offset))?;
    let raw = LimitedBufReader::new(BufReader::with_capacity(1 << 20, file), None);
    Ok(GzipReader::new(raw))
}

impl BufRead for SegmentedGzip {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        loop {
            match &mut self.source {
                Source::Segment {
                    segment,
                    member,
                    at,
                } => {
                    if *at < segment.members[*member].1 {
                        break;
                    }
                    if *member + 1 < segment.members.len() {
                        *member += 1;
                        continue;
                    }
                    self.take_next()?;
                }
                Source::InOrder(reader) => {
                    if reader.fill_buf()?.is_empty() {
                        // The end, or an empty member, where fastwarc stops
                        // (asked again, the reader would go on past it).
                        return Ok(&[]);
                    }
                    let member_pos = reader.frame_start_position()?.unwrap_or(0);
                    if !self.catch_up(member_pos)? {
                        break;
                    }
                }
                Source::End(_) => break,
            }
        }
        match &mut self.source {
            Source::Segment {
                segment,
                member,
                at,
            } => Ok(&segment.data[*at..segment.members[*member].1]),
            Source::InOrder(reader) => reader.fill_buf(),
            Source::End(_) => Ok(&[]),
        }
    }

    fn consume(&mut self, amount: usize) {
        match &mut self.source {
            Source::Segment { at, .. } => *at += amount,
            Source::InOrder(reader) => reader.consume(amount),
            Source::End(_) => {}
        }
        self.pos += amount as u64;
    }
}

impl Read for SegmentedGzip {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.fill_buf()?.read(buf)?;
        self.consume(n);
        Ok(n)
    }
}

impl Seek for SegmentedGzip {
    /// The position in the decompressed stream; like `GzipReader`, only
    /// forward.
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        let target = crate::stream::forward_target(self.pos, pos, "a gzip stream")?;
        while self.pos < target {
            let available = self.fill_buf()?.len();
            if available == 0 {
                break;
            }
            let step = usize::try_from(target - self.pos).map_or(available, |r| r.min(available));
            self.consume(step);
        }
        Ok(self.pos)
    }
}

impl WarcRead for SegmentedGzip {
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }

    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any> {
        self
    }

    fn inner_seek(&mut self, _pos: SeekFrom) -> io::Result<u64> {
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "seeking in the compressed file of a segmented reader",
        ))
    }

    /// fastwarc writes this as a record's offset only when the frame
    /// position is 0, which segments never have (they start after a cut).
    fn inner_stream_position(&mut self) -> io::Result<u64> {
        match &mut self.source {
            Source::InOrder(reader) => reader.inner_stream_position(),
            Source::Segment {
                segment, member, ..
            } => Ok(segment.members[*member].0),
            Source::End(member) => Ok(member.unwrap_or(0)),
        }
    }

    fn frame_start_position(&mut self) -> io::Result<Option<u64>> {
        match &mut self.source {
            Source::InOrder(reader) => reader.frame_start_position(),
            Source::Segment {
                segment, member, ..
            } => Ok(Some(segment.members[*member].0)),
            Source::End(member) => Ok(*member),
        }
    }

    fn is_stream_decoder(&self) -> bool {
        true
    }
}

/// What [`Cuts`] hands out next.
enum Piece {
    Segment {
        start: u64,
        bytes: Vec<u8>,
    },
    /// From `start` to the end, read in order.
    Tail {
        start: u64,
    },
}

/// Cuts the compressed file into segments at what looks like a gzip
/// member start, reading it once, in order.
struct Cuts {
    file: File,
    /// Bytes read and not handed out yet, from file offset `start`.
    buf: Vec<u8>,
    start: u64,
    eof: bool,
    segment_bytes: usize,
}

impl Cuts {
    fn new(file: File, segment_bytes: usize) -> Self {
        Self {
            file,
            buf: Vec::new(),
            start: 0,
            eof: false,
            segment_bytes,
        }
    }

    /// Drops the first segment, which is read in order.
    fn skip_first(&mut self) -> io::Result<()> {
        self.next().map(drop)
    }

    fn next(&mut self) -> io::Result<Option<Piece>> {
        let mut from = self.segment_bytes;
        loop {
            if let Some(cut) = member_start_from(&self.buf, from) {
                let rest = self.buf.split_off(cut);
                let bytes = std::mem::replace(&mut self.buf, rest);
                let start = self.start;
                self.start += cut as u64;
                return Ok(Some(Piece::Segment { start, bytes }));
            }
            if self.eof {
                if self.buf.is_empty() {
                    return Ok(None);
                }
                let start = self.start;
                self.start += self.buf.len() as u64;
                return Ok(Some(Piece::Segment {
                    start,
                    bytes: std::mem::take(&mut self.buf),
                }));
            }
            if self.buf.len() >= self.segment_bytes.saturating_mul(MAX_SEGMENT_FACTOR) {
                self.buf = Vec::new();
                self.eof = true;
                return Ok(Some(Piece::Tail { start: self.start }));
            }
            // A header may straddle what was read so far.
            from = from.max(self.buf.len().saturating_sub(HEADER_LEN - 1));
            let read = (&mut self.file)
                .take(self.segment_bytes as u64)
                .read_to_end(&mut self.buf)?;
            if read == 0 {
                self.eof = true;
            }
        }
    }
}

/// The first offset at or after `from` where `buf` holds what looks like
/// a gzip member header (RFC 1952: magic, deflate, no reserved flag bits,
/// a known compression level byte and operating system), with its whole
/// header in `buf`. A cut is a guess that costs an inflate when wrong, so
/// it asks for the usual bytes.
fn member_start_from(buf: &[u8], from: usize) -> Option<usize> {
    header_from(buf, from, |h| {
        matches!(h[8], 0 | 2 | 4) && (h[9] <= 13 || h[9] == 255)
    })
}

/// The first offset at or after `from` where `buf` holds a whole gzip
/// member header (magic, deflate, no reserved flag bits) that `also`
/// accepts.
pub(crate) fn header_from(buf: &[u8], from: usize, also: impl Fn(&[u8]) -> bool) -> Option<usize> {
    let mut at = from;
    while at + HEADER_LEN <= buf.len() {
        let found = memchr::memchr(0x1f, buf.get(at..buf.len() + 1 - HEADER_LEN)?)?;
        let p = at + found;
        let h = &buf[p..p + HEADER_LEN];
        if h[1] == 0x8b && h[2] == 8 && h[3] & 0xe0 == 0 && also(h) {
            return Some(p);
        }
        at = p + 1;
    }
    None
}

/// Inflates the members of a segment that starts at file offset `start`.
fn inflate_segment(start: u64, bytes: &[u8]) -> Inflated {
    let broken = || Inflated {
        data: Vec::new(),
        members: Vec::new(),
        whole: false,
    };
    let cap = bytes.len().saturating_mul(MAX_OUTPUT_FACTOR);
    // HTML WARCs inflate to 4-5 times their size.
    let mut data = vec![
        0u8;
        bytes
            .len()
            .saturating_mul(5)
            .clamp(1 << 16, cap.max(1 << 16))
    ];
    let mut filled = 0;
    let mut members = Vec::new();
    let mut used = 0;
    while used < bytes.len() {
        let member_start = used;
        let out_start = filled;
        let mut inflate = Inflate::new(true, GZIP_WINDOW_BITS);
        loop {
            if filled == data.len() {
                if filled >= cap {
                    return broken();
                }
                data.resize((data.len() * 2).min(cap), 0);
            }
            let (total_in, total_out) = (inflate.total_in(), inflate.total_out());
            let status = match inflate.decompress(
                &bytes[used..],
                &mut data[filled..],
                InflateFlush::NoFlush,
            ) {
                Ok(status) => status,
                Err(_) => return broken(),
            };
            let consumed = (inflate.total_in() - total_in) as usize;
            let produced = (inflate.total_out() - total_out) as usize;
            used += consumed;
            filled += produced;
            if status == Status::StreamEnd {
                break;
            }
            if consumed == 0 && produced == 0 {
                // Truncated: the member goes on past the cut.
                return broken();
            }
        }
        if filled == out_start {
            return broken();
        }
        members.push((start + member_start as u64, filled));
    }
    data.truncate(filled);
    Inflated {
        data,
        whole: !members.is_empty(),
        members,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Read through segments, a real file gives fastwarc's in-order bytes,
    /// and most of them come from segments inflated on the pool.
    #[test]
    fn segments_give_the_in_order_bytes() {
        let path = canopy_test_support::corpus_file("big9/years/2005.warc.gz");
        let mut expected = Vec::new();
        in_order(&path, 0)
            .unwrap()
            .read_to_end(&mut expected)
            .unwrap();
        let mut reader = SegmentedGzip::open(&path, 16 << 10, 2).unwrap();
        let (mut got, mut from_segments) = (Vec::new(), 0);
        loop {
            let buf = reader.fill_buf().unwrap();
            let n = buf.len();
            if n == 0 {
                break;
            }
            got.extend_from_slice(buf);
            if matches!(reader.source, Source::Segment { .. }) {
                from_segments += n;
            }
            reader.consume(n);
        }
        assert!(
            got == expected,
            "{} bytes, not {}",
            got.len(),
            expected.len()
        );
        assert!(
            from_segments > expected.len() * 9 / 10,
            "{from_segments} of {} bytes from segments",
            expected.len()
        );
    }

    /// Everything a reader hands out, taken 1000 bytes at a time as fastwarc
    /// takes lines: the bytes, the offsets in them where the frame position
    /// changes and to what, and the error it ends with.
    #[derive(PartialEq, Debug, Default)]
    struct Drained {
        bytes: Vec<u8>,
        frames: Vec<(usize, Option<u64>)>,
        error: Option<String>,
    }

    fn drain(mut reader: impl BufRead + WarcRead) -> Drained {
        let mut out = Drained::default();
        loop {
            let buf = match reader.fill_buf() {
                Ok(buf) => buf,
                Err(e) => {
                    out.error = Some(e.to_string());
                    return out;
                }
            };
            let n = buf.len().min(1000);
            if n == 0 {
                return out;
            }
            let at = out.bytes.len();
            out.bytes.extend_from_slice(&buf[..n]);
            let frame = reader.frame_start_position().unwrap();
            if out.frames.last().map(|&(_, f)| f) != Some(frame) {
                out.frames.push((at, frame));
            }
            reader.consume(n);
        }
    }

    /// big9's 2005 file with `member` inserted at the first member start
    /// past 300 KB, written in `dir`; and that offset.
    fn with_member(dir: &Path, member: &[u8]) -> (PathBuf, usize) {
        let original =
            std::fs::read(canopy_test_support::corpus_file("big9/years/2005.warc.gz")).unwrap();
        let (file, at) = canopy_test_support::insert_member(&original, 300_000, member);
        let path = dir.join("with-member.warc.gz");
        std::fs::write(&path, &file).unwrap();
        (path, at)
    }

    fn gzip_record(body: &[u8]) -> Vec<u8> {
        use std::io::Write;
        let record = canopy_test_support::warc_response(
            1,
            "http://example.com/inserted",
            "HTTP/1.1 200 OK\nContent-Type: text/html\n",
            body,
        );
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(&record).unwrap();
        gz.finish().unwrap()
    }

    /// A whole member that holds 600 KB of a `.warc.gz` (deflate stores it
    /// as it is, member headers and all) then 300 KB of noise: the cuts
    /// inside it are passed by, and the segments take over at the member
    /// after it, never inside it; the same bytes and frames as reading in
    /// order, whatever the window.
    #[test]
    fn a_member_full_of_member_headers_reads_as_in_order() {
        let mut body =
            std::fs::read(canopy_test_support::corpus_file("big9/years/2009.warc.gz")).unwrap();
        body.truncate(600_000);
        body.extend(canopy_test_support::noise(300_000));
        let dir = tempfile::tempdir().unwrap();
        let (path, _) = with_member(dir.path(), &gzip_record(&body));
        let expected = drain(in_order(&path, 0).unwrap());
        assert!(expected.error.is_none());
        for segment in [4 << 10, 128 << 10] {
            for window in [1, 2, 8] {
                let got = drain(SegmentedGzip::open(&path, segment, window).unwrap());
                assert!(
                    got == expected,
                    "segments of {segment}, window {window}: {} bytes, not {}",
                    got.bytes.len(),
                    expected.bytes.len()
                );
            }
        }
    }

    /// A member of 400 KB whose checksum is wrong, after 300 KB of whole
    /// members: read in segments, it comes out the same with one segment
    /// inflating ahead or eight, as with one thread or several.
    #[test]
    fn a_corrupt_member_reads_the_same_whatever_the_window() {
        let corrupt = canopy_test_support::corrupt_gzip_member("http://example.com/crc");
        let dir = tempfile::tempdir().unwrap();
        let (path, at) = with_member(dir.path(), &corrupt);
        for segment in [4 << 10, 128 << 10] {
            let one = drain(SegmentedGzip::open(&path, segment, 1).unwrap());
            assert!(one.error.is_some(), "the checksum error is reported");
            let reached = one.frames.iter().any(|&(_, f)| f == Some(at as u64));
            assert!(reached, "the corrupt member is read");
            for window in [2, 8] {
                let other = drain(SegmentedGzip::open(&path, segment, window).unwrap());
                assert!(one == other, "segments of {segment}, window {window}");
            }
        }
    }

    #[test]
    fn member_starts_are_found_whole_and_checked() {
        let header = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3];
        let mut buf = vec![0x1f; 20];
        buf.extend_from_slice(&header);
        assert_eq!(member_start_from(&buf, 0), Some(20));
        assert_eq!(member_start_from(&buf, 21), None);
        // Cut short, or with a reserved flag bit, or an unknown system.
        assert_eq!(member_start_from(&buf[..29], 0), None);
        for (at, value) in [(3, 0x20), (9, 77)] {
            let mut bad = buf.clone();
            bad[20 + at] = value;
            assert_eq!(member_start_from(&bad, 0), None, "byte {at}");
        }
    }
}
