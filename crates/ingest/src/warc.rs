//! Streaming WARC reader built on fastwarc.

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use canopy_types::{PageRecord, Reject, SourceRef, Stage};
use fastwarc::stream_io::bufread::{LimitedBufReader, RawReaderAdapter};
use fastwarc::stream_io::traits::{IntoWarcReader, WarcRead};
use fastwarc::warc::header::WarcHeader;
use fastwarc::warc::iter::{ArchiveIterator, ArchiveIteratorOptions};
use fastwarc::warc::record::{AutoDecode, WarcRecord, WarcRecordType};

use crate::feed::parse_feed_within;
use crate::framing::{self, BlockEnd, NotARecord};
use crate::gzip_segments::{in_order, SegmentedGzip};
use crate::http::{self, ContentCodingError, PayloadKind};
use crate::resync;
use crate::stream::{Forward, Peeked};
use crate::{Event, IngestOptions, Skip, WarcStats};

/// Maximum accepted length of a WARC or HTTP header block.
pub(crate) const MAX_HEADER_LEN: usize = 64 << 10;

/// Streams one WARC file (`.warc` or `.warc.gz`, one gzip member per record or
/// one member for the whole file) record by record, calling `on_event` for
/// every page, feed and reject. Never loads the whole file.
///
/// Returns `Err` only when the file cannot be opened at all. Everything else
/// becomes an [`Event::Reject`] and the stream goes on, or ends with a reject
/// saying why it stopped (for example a truncated gzip member). After a
/// corrupt gzip member or a record header fastwarc cannot parse, reading
/// resumes at the next record (`resync.rs`); the stretch skipped is one
/// reject. fastwarc's
/// quirks mode is always on, so ClueWeb09 files (LF-only headers, odd dates)
/// are read too. ARC files (plain or gzipped, recognised by their
/// `filedesc://` start) are read by `arc.rs`.
pub fn read_warc(
    path: &Path,
    opts: &IngestOptions,
    on_event: &mut dyn FnMut(Event),
) -> std::io::Result<WarcStats> {
    let mut decoded = WarcStats::default();
    let read = read_warc_split(path, opts, &mut |item| {
        decode_inline(item, opts, &mut decoded, on_event);
    })?;
    Ok(read.plus(&decoded))
}

/// [`read_warc`] in two steps, so that a caller can decode payloads on
/// other threads: `on_item` gets what reading alone decides (rejects, and
/// the pages and feeds of ARC files) as [`SplitItem::Event`] and every payload
/// that may be a page or a feed as an undecoded [`SplitItem::Payload`], in file
/// order. The stats count what reading decided; [`Payload::decode`]
/// decides the rest.
pub fn read_warc_split(
    path: &Path,
    opts: &IngestOptions,
    on_item: &mut dyn FnMut(SplitItem),
) -> std::io::Result<WarcStats> {
    let file_name = path.display().to_string();
    let mut file = File::open(path)?;
    let mut head = vec![0u8; HEAD_BYTES];
    let n = read_up_to(&mut file, &mut head)?;
    head.truncate(n);
    if is_arc(&head) {
        file.seek(SeekFrom::Start(0))?;
        return Ok(crate::arc::read_arc(file, &file_name, opts, &mut |event| {
            on_item(SplitItem::Event(event))
        }));
    }
    if let Some(segment_bytes) = opts.inflate_segments {
        // On a pool thread, waiting for segments inflated on the same pool
        // could leave nobody to inflate them.
        if rayon::current_thread_index().is_none()
            && file.metadata()?.len() > 2 * segment_bytes as u64
            && framing::Compression::of(&head) == framing::Compression::Gzip
        {
            // More pieces ahead only queue the pool's other work behind them.
            let window = rayon::current_num_threads();
            let reader = SegmentedGzip::open(path, segment_bytes, window)?;
            return read_file(path, Box::new(reader), &head, &file_name, opts, on_item);
        }
    }
    file.seek(SeekFrom::Start(0))?;
    let reader = BufReader::with_capacity(1 << 20, file);
    read_file(
        path,
        reader.into_warc_reader(),
        &head,
        &file_name,
        opts,
        on_item,
    )
}

/// Reads the records of the WARC file at `path` from `reader`, past each
/// place where fastwarc stops (a corrupt gzip member, a record header it
/// cannot parse): reading resumes at the next gzip member, or in a plain
/// file the next version line, that starts a record (`resync.rs`), and the
/// stretch skipped is one reject.
fn read_file(
    path: &Path,
    mut reader: Box<dyn WarcRead>,
    head: &[u8],
    file_name: &str,
    opts: &IngestOptions,
    on_item: &mut dyn FnMut(SplitItem),
) -> std::io::Result<WarcStats> {
    let compression = framing::Compression::of(head);
    // Gzip and plain files can be resumed in (`resync.rs`).
    let resumable = matches!(
        compression,
        framing::Compression::Gzip | framing::Compression::None
    );
    let ctx = Ctx {
        file: file_name,
        opts,
        max_gap: None,
    };
    let mut stats = WarcStats::default();
    let mut budget = resync::Budget::for_file(std::fs::metadata(path)?.len());
    let mut resumptions = 0;
    // Where reading last resumed; `None` on the first pass, from the start.
    let mut resumed_at: Option<u64> = None;
    // The stretch skipped last, written before the first item read after
    // it: one that breaks again before any (a broken header in a whole
    // member) grows instead of giving a second reject.
    let mut skipped: Option<Skipped> = None;
    loop {
        let broken = read_records(reader, &ctx, &mut stats, &mut |item| {
            if let Some(stretch) = skipped.take() {
                on_item(ctx.skipped_reject(stretch));
            }
            on_item(item);
        });
        let broken = match broken {
            Some(broken) if resumable && broken.resumable => broken,
            end => {
                if let Some(stretch) = skipped.take() {
                    on_item(ctx.skipped_reject(stretch));
                }
                if let Some(broken) = end {
                    ctx.stop(&mut stats, on_item, broken.reason);
                }
                return Ok(stats);
            }
        };
        // Past the last record read and the last place resumed at, so that
        // every resumption moves forward; from the file's start when its
        // first member is the corrupt one.
        let from = match (broken.last_record, resumed_at) {
            (Some(record), resumed) => record.max(resumed.unwrap_or(0)) + 1,
            (None, Some(resumed)) => resumed + 1,
            (None, None) => 0,
        };
        let resync = if resumptions == MAX_RESUMPTIONS {
            resync::Resync::given_up()
        } else {
            match compression {
                framing::Compression::Gzip => resync::next_record_member(path, from, &mut budget)?,
                _ => resync::next_record_line(path, from, &mut budget)?,
            }
        };
        let mut stretch = skipped.take().unwrap_or_else(|| {
            // The stretch counts as one record read, rejected.
            stats.records += 1;
            stats.rejected += 1;
            Skipped {
                offset: None,
                reason: broken.reason,
                next: None,
            }
        });
        stretch.offset = stretch.offset.or(resync.first_broken);
        stretch.next = resync.next;
        let Some(next) = resync.next else {
            if resync.gave_up {
                stretch
                    .reason
                    .push_str("; gave up looking for the next record (the file breaks too often)");
            }
            on_item(ctx.skipped_reject(stretch));
            return Ok(stats);
        };
        resumptions += 1;
        skipped = Some(stretch);
        reader = match compression {
            framing::Compression::Gzip => Box::new(in_order(path, next)?),
            _ => {
                let mut file = File::open(path)?;
                file.seek(SeekFrom::Start(next))?;
                BufReader::with_capacity(1 << 20, file).into_warc_reader()
            }
        };
        resumed_at = Some(next);
    }
}

/// Times reading one file resumes after fastwarc stopped: a file that
/// breaks more often is not a crawl's file damaged in places, and each
/// resumption opens a reader (a 1 MiB buffer) and scans (`resync.rs`).
const MAX_RESUMPTIONS: usize = 1000;

/// A stretch of a file skipped where fastwarc stopped.
struct Skipped {
    /// The corrupt gzip member's offset, when its header survived.
    offset: Option<u64>,
    /// Why reading broke where the stretch starts.
    reason: String,
    /// Where reading resumed; `None` when nothing after it could be read.
    next: Option<u64>,
}

/// [`read_warc_split`] over a stream that cannot seek: standard input, an
/// http(s) body ([`crate::HttpBody`]). `name` is the name written in
/// events. The compression (gzip, zstd, LZ4 or none) and the format (WARC
/// or ARC) are told from the first bytes. Records are read in one pass,
/// front to back.
pub fn read_warc_stream_split(
    name: &str,
    reader: impl Read + Send + 'static,
    opts: &IngestOptions,
    on_item: &mut dyn FnMut(SplitItem),
) -> WarcStats {
    let reader = Peeked::new(reader, HEAD_BYTES);
    if is_arc(reader.head()) {
        return crate::arc::read_arc(reader, name, opts, &mut |event| {
            on_item(SplitItem::Event(event))
        });
    }
    let raw = RawReaderAdapter::new(Forward::new(reader));
    read_stream(raw.into_warc_reader(), name, opts, on_item)
}

/// [`read_warc`] over a WARC or ARC file held in memory (plain or
/// compressed bytes); `name` is the file name written in events. Used by
/// the fuzz targets (`crates/fuzz`) and tests.
pub fn read_warc_bytes(
    name: &str,
    bytes: Vec<u8>,
    opts: &IngestOptions,
    on_event: &mut dyn FnMut(Event),
) -> WarcStats {
    if is_arc(bytes.get(..HEAD_BYTES).unwrap_or(&bytes)) {
        return crate::arc::read_arc(std::io::Cursor::new(bytes), name, opts, on_event);
    }
    let mut decoded = WarcStats::default();
    let reader = std::io::Cursor::new(bytes).into_warc_reader();
    let read = read_stream(reader, name, opts, &mut |item| {
        decode_inline(item, opts, &mut decoded, on_event);
    });
    read.plus(&decoded)
}

/// Decodes a payload where it was read, counting its outcome.
fn decode_inline(
    item: SplitItem,
    opts: &IngestOptions,
    stats: &mut WarcStats,
    on_event: &mut dyn FnMut(Event),
) {
    match item {
        SplitItem::Event(event) => on_event(event),
        SplitItem::Payload(payload) => match payload.decode(opts) {
            Ok(event) => {
                stats.count(&event);
                on_event(event);
            }
            Err(why) => stats.skip(why),
        },
    }
}

/// Reads every record of a WARC stream (plain, or compressed as its first
/// bytes say). Every record read, and every stretch between records that
/// is not one, is counted in [`WarcStats::records`] and ends as an item or
/// a counted skip (`framing.rs`).
fn read_stream(
    raw: Box<dyn WarcRead>,
    file_name: &str,
    opts: &IngestOptions,
    on_item: &mut dyn FnMut(SplitItem),
) -> WarcStats {
    let mut stats = WarcStats::default();
    let ctx = Ctx {
        file: file_name,
        opts,
        max_gap: Some(opts.max_decoded_bytes as u64),
    };
    if let Some(broken) = read_records(raw, &ctx, &mut stats, on_item) {
        ctx.stop(&mut stats, on_item, broken.reason);
    }
    stats
}

/// Why [`read_records`] stopped before the end of its stream.
struct Broken {
    /// The reject's reason.
    reason: String,
    /// Whether the stream broke inside the records (a corrupt compressed
    /// member, a broken record header), where a later record may still be
    /// whole; not when it could not be opened or held no WARC records.
    resumable: bool,
    /// Where the last record read starts (in a gzip file, its member).
    last_record: Option<u64>,
}

/// Reads the records of a stream into `stats` and `on_item`, and says why
/// it stopped if not at the stream's end (the caller writes the reject).
fn read_records(
    raw: Box<dyn WarcRead>,
    ctx: &Ctx,
    stats: &mut WarcStats,
    on_item: &mut dyn FnMut(SplitItem),
) -> Option<Broken> {
    let first_read = stats.records == 0;
    let mut last_record = None;
    let broken = |reason: String, resumable: bool, last_record: Option<u64>| Broken {
        reason,
        resumable,
        last_record,
    };
    let stream = match framing::open(raw) {
        Ok(stream) => stream,
        Err(e) => return Some(broken(format!("cannot read: {e}"), false, None)),
    };
    // What precedes the first record; all of the file, if it is not a WARC.
    let mut head = LimitedBufReader::new(stream, None);
    let leading = framing::read_gap(&mut head, ctx.max_gap).and_then(|junk| {
        head.set_limit(u64::MAX);
        let at_end = head.fill_buf()?.is_empty();
        Ok((junk, at_end))
    });
    match leading {
        Ok((Some(junk), true)) => {
            let reason = format!("no WARC records found (not a WARC file): {}", junk.reason());
            return Some(broken(reason, false, None));
        }
        Ok((junk, _)) => ctx.not_a_record(junk, stats, on_item),
        Err(e) => return Some(broken(format!("cannot read: {e}"), true, None)),
    }
    let options = ArchiveIteratorOptions {
        // `framing::open` has put the decoder in place.
        stream_detect: false,
        parse_http: false,
        decode_http_payload: AutoDecode::None,
        verify_digests: false,
        quirks_mode: true,
        max_header_len: MAX_HEADER_LEN,
        inplace: false,
    };
    for item in ArchiveIterator::with_options(head.into_inner(), options) {
        match item {
            Ok(shared) => {
                let mut record = shared.borrow_mut();
                stats.records += 1;
                last_record = Some(record.stream_pos());
                if let Some(item) = ctx.process(&mut record, stats) {
                    if let SplitItem::Event(event) = &item {
                        stats.count(event);
                    }
                    on_item(item);
                }
                // The rest of the record's block, then what lies before
                // the next record.
                let gap = record.reader_mut().map(|reader| {
                    framing::read_block(reader, None, 0, true)?;
                    framing::read_gap(reader, ctx.max_gap)
                });
                match gap {
                    Some(Ok(junk)) => ctx.not_a_record(junk, stats, on_item),
                    Some(Err(e)) => {
                        return Some(broken(format!("cannot read: {e}"), true, last_record));
                    }
                    None => {}
                }
            }
            Err(e) => {
                // fastwarc cannot resynchronise after a broken record header
                // or a corrupt compressed stream; `read_file` can, in a file.
                let reason = format!("stopped reading after {} records: {e}", stats.records);
                return Some(broken(reason, true, last_record));
            }
        }
    }
    if first_read && stats.records == 0 {
        // Nothing at all: an empty file.
        let reason = "no WARC records found (an empty file)".to_string();
        return Some(broken(reason, false, None));
    }
    None
}

/// Bytes of a stream's start read to tell what it is ([`is_arc`],
/// [`sniff`]): enough compressed bytes for the first decoded ones, even
/// after a gzip header that carries a file name or extra fields.
const HEAD_BYTES: usize = 64 << 10;

/// Whether a stream that starts with `head` is an ARC file: decoded
/// (plain, gzip, zstd or LZ4), it starts with `filedesc://`.
fn is_arc(head: &[u8]) -> bool {
    const MARK: &[u8] = b"filedesc://";
    if head.starts_with(MARK) {
        return true;
    }
    // Plain bytes were looked at above, without a decoder's buffers: the
    // ARC reader asks this of every record it hands to the WARC path.
    framing::Compression::of(head) != framing::Compression::None
        && decoded_head(std::io::Cursor::new(head.to_vec()), MARK.len()) == MARK
}

/// Up to `n` bytes of the start of `raw` as decoded (plain, gzip, zstd or
/// LZ4, as [`framing::open`] tells); fewer where the stream ends, is cut
/// or cannot be read: only the first bytes matter to who asks.
fn decoded_head(raw: impl Read + Send + 'static, n: usize) -> Vec<u8> {
    let raw = RawReaderAdapter::new(Forward::new(raw));
    let Ok(mut decoded) = framing::open(raw.into_warc_reader()) else {
        return Vec::new();
    };
    let mut head = vec![0u8; n];
    let got = read_up_to(&mut decoded, &mut head).unwrap_or(0);
    head.truncate(got);
    head
}

/// Reads until `buf` is full or the reader ends (or fails after some bytes).
fn read_up_to(reader: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match reader.read(buf.get_mut(filled..).unwrap_or_default()) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            // Keep what was read before the error.
            Err(_) if filled > 0 => break,
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// Per-file context.
struct Ctx<'a> {
    file: &'a str,
    opts: &'a IngestOptions,
    /// Most bytes read without a record start before reading stops: in a
    /// stream, the largest record read (`max_decoded_bytes`), past which
    /// it is no WARC stream; none in a file, which ends.
    max_gap: Option<u64>,
}

/// Identity of the record being processed, for events.
#[derive(Debug)]
struct RecordInfo {
    source: SourceRef,
    record_id: String,
    url: String,
    /// `WARC-Date`, as written.
    date: Option<String>,
}

impl RecordInfo {
    fn reject_item(&self, stage: Stage, reason: impl Into<String>) -> SplitItem {
        SplitItem::Event(self.reject(stage, reason))
    }

    fn reject(&self, stage: Stage, reason: impl Into<String>) -> Event {
        Event::Reject(Reject {
            source: self.source.clone(),
            record_id: Some(self.record_id.clone()).filter(|r| !r.is_empty()),
            url: Some(self.url.clone()).filter(|u| !u.is_empty()),
            stage,
            reason: reason.into(),
        })
    }
}

impl Ctx<'_> {
    /// The reading of the file stops here: the rest of it counts as one
    /// record that could not be read.
    fn stop(&self, stats: &mut WarcStats, on_item: &mut dyn FnMut(SplitItem), reason: String) {
        stats.records += 1;
        stats.rejected += 1;
        let offset = if stats.records == 1 { Some(0) } else { None };
        on_item(SplitItem::Event(Event::Reject(Reject {
            source: SourceRef {
                file: self.file.to_string(),
                offset,
            },
            record_id: None,
            url: None,
            stage: Stage::Warc,
            reason,
        })));
    }

    /// The reject of a stretch skipped (counted when it was found).
    fn skipped_reject(&self, stretch: Skipped) -> SplitItem {
        let reason = match stretch.next {
            Some(next) => format!(
                "{}; skipped to the next record, at offset {next}",
                stretch.reason
            ),
            None => stretch.reason,
        };
        SplitItem::Event(Event::Reject(Reject {
            source: SourceRef {
                file: self.file.to_string(),
                offset: stretch.offset,
            },
            record_id: None,
            url: None,
            stage: Stage::Warc,
            reason,
        }))
    }

    /// A stretch that is not a record counts as one record read, rejected.
    fn not_a_record(
        &self,
        junk: Option<NotARecord>,
        stats: &mut WarcStats,
        on_item: &mut dyn FnMut(SplitItem),
    ) {
        let Some(junk) = junk else { return };
        stats.records += 1;
        stats.rejected += 1;
        on_item(SplitItem::Event(Event::Reject(Reject {
            source: SourceRef {
                file: self.file.to_string(),
                offset: Some(junk.offset),
            },
            reason: junk.reason(),
            record_id: junk.record_id,
            url: junk.url,
            stage: Stage::Warc,
        })));
    }

    /// Turns one record into at most one event, updating the counters.
    fn process(&self, record: &mut WarcRecord, stats: &mut WarcStats) -> Option<SplitItem> {
        let info = RecordInfo {
            source: SourceRef {
                file: self.file.to_string(),
                offset: Some(record.stream_pos()),
            },
            record_id: record
                .record_id()
                .map(|r| r.trim().to_string())
                .unwrap_or_default(),
            url: record
                .headers()
                .get(WarcHeader::WarcTargetUri)
                .map(|u| {
                    u.trim()
                        .trim_start_matches('<')
                        .trim_end_matches('>')
                        .to_string()
                })
                .unwrap_or_default(),
            date: record
                .headers()
                .get(WarcHeader::WarcDate)
                .map(|d| d.trim().to_string())
                .filter(|d| !d.is_empty()),
        };
        match record.record_type() {
            WarcRecordType::Response => {
                stats.responses += 1;
                if record.is_http() {
                    self.process_http(record, info, stats)
                } else {
                    let ct = record
                        .headers()
                        .get(WarcHeader::ContentType)
                        .map(|c| c.into_owned());
                    self.read_payload(record, info, ct, None, None, stats)
                }
            }
            WarcRecordType::Resource => {
                let ct = record
                    .headers()
                    .get(WarcHeader::ContentType)
                    .map(|c| c.into_owned());
                let is_html = ct.as_deref().is_some_and(|c| {
                    matches!(
                        http::media_type(c).as_str(),
                        "text/html" | "application/xhtml+xml"
                    )
                });
                if is_html {
                    self.read_payload(record, info, ct, None, None, stats)
                } else {
                    stats.skip(Skip::RecordType);
                    None
                }
            }
            WarcRecordType::Revisit => {
                stats.revisits += 1;
                None
            }
            _ => {
                stats.skip(Skip::RecordType);
                None
            }
        }
    }

    /// Parses the HTTP header block of a response, then handles its payload.
    fn process_http(
        &self,
        record: &mut WarcRecord,
        info: RecordInfo,
        stats: &mut WarcStats,
    ) -> Option<SplitItem> {
        if let Err(e) = record.parse_http_with_opts(AutoDecode::None, MAX_HEADER_LEN, true) {
            return Some(info.reject_item(Stage::Http, format!("cannot parse HTTP headers: {e}")));
        }
        let headers = record.http_headers();
        let status = headers.and_then(|h| h.status_code());
        let get = |name: &str| {
            headers
                .and_then(|h| h.get(name))
                .map(|v| v.trim().to_string())
        };
        let content_type = get("Content-Type");
        let content_language = get("Content-Language").filter(|v| !v.is_empty());
        let transfer = get("Transfer-Encoding");
        let coding = get("Content-Encoding");
        if status.is_none() {
            return Some(info.reject_item(Stage::Http, "missing or malformed HTTP status line"));
        }
        self.read_payload(
            record,
            info,
            content_type,
            status,
            Some(HttpFields {
                transfer,
                coding,
                content_language,
            }),
            stats,
        )
    }

    /// Reads a payload that may be a page or a feed, leaving its decoding
    /// to [`Payload::decode`].
    fn read_payload(
        &self,
        record: &mut WarcRecord,
        info: RecordInfo,
        content_type: Option<String>,
        status: Option<u16>,
        http: Option<HttpFields>,
        stats: &mut WarcStats,
    ) -> Option<SplitItem> {
        if !http::may_be_wanted(content_type.as_deref()) {
            stats.skip(Skip::NotAPage);
            return None;
        }
        let expected = record.content_length();
        let Some(reader) = record.reader_mut() else {
            return Some(info.reject_item(Stage::Warc, "record has no payload reader"));
        };
        let cap = self.opts.max_decoded_bytes;
        // Sized from the record's length (an upper bound of the payload's),
        // so that reading does not grow and copy the buffer.
        let hint = usize::try_from(expected).unwrap_or(cap).min(cap);
        let mut raw = Vec::with_capacity(hint);
        let end = framing::read_block(reader, Some(&mut raw), cap.saturating_add(1), true);
        match end {
            Err(e) => {
                return Some(
                    info.reject_item(Stage::Warc, format!("cannot read record payload: {e}")),
                );
            }
            Ok(BlockEnd::NextRecord(at)) => {
                return Some(info.reject_item(
                    Stage::Warc,
                    format!(
                        "Content-Length runs past the record: the next record starts {at} bytes into its {expected}-byte payload"
                    ),
                ));
            }
            Ok(BlockEnd::Whole | BlockEnd::IntoSeparator) => {}
        }
        if raw.len() > cap {
            return Some(
                info.reject_item(Stage::Warc, format!("record payload exceeds {cap} bytes")),
            );
        }
        if (raw.len() as u64) < expected && !matches!(end, Ok(BlockEnd::IntoSeparator)) {
            return Some(info.reject_item(
                Stage::Warc,
                format!(
                    "truncated record: expected {expected} payload bytes, found {}",
                    raw.len()
                ),
            ));
        }
        let HttpFields {
            transfer,
            coding,
            content_language,
        } = http.unwrap_or_default();
        Some(SplitItem::Payload(Payload {
            info,
            content_type,
            status,
            transfer,
            coding,
            content_language,
            body: raw,
        }))
    }
}

/// What reading a WARC file yields ([`read_warc_split`]).
#[derive(Debug)]
pub enum SplitItem {
    /// Decided while reading: a reject, or a page or feed of an ARC file.
    Event(Event),
    /// A payload still to decode.
    Payload(Payload),
}

/// A response or resource payload as stored, with what decoding it needs:
/// de-chunking, content decoding, classification and charset decoding are
/// left to [`Payload::decode`], which can run on any thread.
#[derive(Debug)]
pub struct Payload {
    info: RecordInfo,
    content_type: Option<String>,
    status: Option<u16>,
    transfer: Option<String>,
    coding: Option<String>,
    content_language: Option<String>,
    body: Vec<u8>,
}

impl SplitItem {
    /// Where the item's record starts in its file (compressed bytes for a
    /// file of gzip members), when known: how far the reading has got.
    pub fn offset(&self) -> Option<u64> {
        let source = match self {
            SplitItem::Payload(p) => &p.info.source,
            SplitItem::Event(Event::Page(page)) => &page.source,
            SplitItem::Event(Event::Feed { source, .. }) => source,
            SplitItem::Event(Event::Reject(reject)) => &reject.source,
        };
        source.offset
    }
}

/// The HTTP headers of a response that its payload's decoding and its
/// page record need besides `Content-Type`.
#[derive(Debug, Default)]
struct HttpFields {
    transfer: Option<String>,
    coding: Option<String>,
    /// `Content-Language`, carried to the page record as sent.
    content_language: Option<String>,
}

impl Payload {
    /// The stored payload's size in bytes.
    pub fn len(&self) -> usize {
        self.body.len()
    }

    /// Whether the stored payload is empty.
    pub fn is_empty(&self) -> bool {
        self.body.is_empty()
    }

    /// Decodes the payload into a page, a feed or a reject; why not when it
    /// is skipped on purpose (not HTML nor a feed, or an empty body).
    pub fn decode(self, opts: &IngestOptions) -> Result<Event, Skip> {
        let Payload {
            info,
            content_type,
            status,
            transfer,
            coding,
            content_language,
            body,
        } = self;
        let content_type = content_type.as_deref();
        let cap = opts.max_decoded_bytes;
        let mut body = body;
        if transfer
            .as_deref()
            .is_some_and(|t| t.to_ascii_lowercase().contains("chunked"))
        {
            // Wrong chunk framing: keep the raw body rather than lose the page.
            if let Some(dechunked) = http::dechunk(&body) {
                body = dechunked;
            }
        }
        if let Some(coding) = coding.as_deref().filter(|c| !c.trim().is_empty()) {
            match http::decode_content(&body, coding, cap) {
                Ok(decoded) => body = decoded,
                Err(ContentCodingError::ExceededCap) => {
                    return Ok(info.reject(Stage::Http, "content decoding exceeded cap"));
                }
                // Archivers often store the decoded body but keep the
                // Content-Encoding header: use the body as it is.
                Err(_) if !http::looks_compressed(&body) => {}
                Err(ContentCodingError::Unsupported(c)) => {
                    return Ok(info.reject(Stage::Http, format!("unsupported content coding {c}")));
                }
                Err(ContentCodingError::Corrupt(e)) if e.contains("unexpected end of file") => {
                    return Ok(info.reject(Stage::Http, format!("truncated {coding} content: {e}")));
                }
                Err(ContentCodingError::Corrupt(e)) => {
                    return Ok(info.reject(Stage::Http, format!("content decoding failed: {e}")));
                }
            }
        }
        let kind = http::classify(content_type, &body);
        if kind == PayloadKind::Other {
            return Err(Skip::NotAPage);
        }
        if let Some(code) = status {
            if !(200..400).contains(&code) {
                return Ok(info.reject(Stage::Http, format!("HTTP status {code}")));
            }
        }
        if body.iter().all(|b| b.is_ascii_whitespace()) {
            // Typically a redirect without a body.
            return Err(Skip::EmptyBody);
        }
        let (cap, cap_name) = match kind {
            PayloadKind::Feed => (opts.max_feed_bytes, "max_feed_bytes"),
            _ => (opts.max_page_bytes, "max_page_bytes"),
        };
        if body.len() > cap {
            return Ok(info.reject(
                Stage::Http,
                format!(
                    "decoded body of {} bytes exceeds {cap_name} {cap}",
                    body.len()
                ),
            ));
        }
        match kind {
            PayloadKind::Feed => match parse_feed_within(
                &body,
                Some(&info.url)
                    .filter(|u| !u.is_empty())
                    .map(|u| u.as_str()),
                opts.feed_budget,
            ) {
                Ok(items) => Ok(Event::Feed {
                    source: info.source,
                    url: info.url,
                    items,
                }),
                Err(e) => Ok(info.reject(e.stage, e.reason)),
            },
            _ => {
                let Some((html, charset)) = crate::decode_page(&body, content_type) else {
                    return Ok(info.reject(Stage::Http, crate::BINARY_CONTENT));
                };
                Ok(Event::Page(PageRecord {
                    url: info.url,
                    record_id: info.record_id,
                    source: info.source,
                    status,
                    charset: charset.to_string(),
                    date: info.date,
                    content_language,
                    html,
                }))
            }
        }
    }
}

/// What the first bytes of a file say it is, for files whose name says
/// nothing (a folder of downloads named by hash).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sniffed {
    /// A WARC or ARC file, plain or compressed (gzip, zstd, LZ4).
    Archive,
    /// An RSS, Atom, RDF or JSON feed.
    Feed,
}

/// Bytes of a file looked at by [`sniff`]: a WARC's version line, after
/// decompression, or a feed's root element after an XML prolog.
const SNIFF_BYTES: usize = 4 << 10;

/// What the file at `path` is by its content, if Canopy reads it.
pub fn sniff(path: &Path) -> Option<Sniffed> {
    let file = File::open(path).ok()?;
    let head = decoded_head(file.take(HEAD_BYTES as u64), SNIFF_BYTES);
    if head.starts_with(b"WARC/") || head.starts_with(b"filedesc://") {
        return Some(Sniffed::Archive);
    }
    crate::feed::looks_like_feed(&head).then_some(Sniffed::Feed)
}
