//! WARC records and web feeds in, decoded HTML page records out.
//!
//! This is Canopy's first stage. It reads crawl archives and feeds and hands
//! the rest of the pipeline clean, UTF-8 [`PageRecord`]s:
//!
//! - [`read_warc`] streams a `.warc` / `.warc.gz` file record by record with
//!   [fastwarc](https://docs.rs/fastwarc) (quirks mode on, so ClueWeb09 files
//!   work). HTML responses (and HTML `resource` records) become
//!   [`Event::Page`]s after de-chunking, content decoding (gzip, deflate, br,
//!   with an output cap) and charset decoding; feed responses become
//!   [`Event::Feed`]s; anything unusable becomes an [`Event::Reject`] naming
//!   the stage, the reason, the record's offset and its `WARC-Record-ID`.
//!   Requests, metadata, warcinfo and non-HTML payloads are counted as
//!   skipped in [`WarcStats`]; revisits are counted separately.
//!   ARC v1 files (plain or compressed as WARCs are, told by their
//!   content) are read through the same path, one record at a time. [`read_warc_split`] is the same reader in two steps,
//!   so that [`Payload::decode`] can run on other threads than the reading;
//!   [`read_warc_stream_split`] reads a stream that cannot seek (standard
//!   input, an http(s) body: [`HttpBody`], resumed after dropped
//!   connections).
//! - [`decode_html`] picks a body's charset (BOM, HTTP `charset=`, `<meta>`
//!   prescan, chardetng detection), cross-checking declared charsets against
//!   the bytes because they are often wrong.
//! - [`parse_feed`] and [`read_feed_file`] turn RSS 0.9x/1.0/2.0, Atom and
//!   JSON Feed documents into [`FeedItem`]s with plain-text titles and
//!   descriptions and absolute links.
//! - [`normalize_url`] is the normalisation used to join feed items to pages;
//!   [`dedup_url`] is it without [`TRACKING_PARAMS`], the key under which
//!   two captures are one URL for deduplication.
//!
//! Nothing here panics on input: malformed data becomes a [`Reject`] or an
//! `Err`.

#![warn(missing_docs)]

mod arc;
mod charset;
mod feed;
mod framing;
mod gzip_segments;
mod http;
mod remote;
mod resync;
mod stream;
mod url_norm;
mod warc;

pub use canopy_types::{FeedItem, PageRecord, Reject, SourceRef};
pub use charset::decode_html;
pub use feed::{parse_feed, parse_feed_within, read_feed_file, FeedError};
pub use remote::{fetch, is_remote, Fetched, HttpBody, RemoteOptions};
pub use url_norm::{dedup_url, normalize_url, TRACKING_PARAMS};
pub use warc::{
    read_warc, read_warc_bytes, read_warc_split, read_warc_stream_split, sniff, Payload, Sniffed,
    SplitItem,
};

/// Limits applied while reading records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IngestOptions {
    /// Largest accepted decoded page body, in bytes; larger bodies are
    /// rejected. Default 16 MiB.
    pub max_page_bytes: usize,
    /// Cap on the output of content decoding (and on the raw payload read
    /// from a record), in bytes; guards against gzip bombs. Default 64 MiB.
    pub max_decoded_bytes: usize,
    /// `Some(n)`: a `.warc.gz` of many gzip members (one per record, as
    /// Common Crawl writes) is inflated on the rayon pool in segments of
    /// about `n` compressed bytes, while its records are still read in
    /// order on the calling thread; not on a rayon worker thread (it would
    /// wait for its own pool), nor for a file of `2 n` bytes or less or
    /// one that does not start with a gzip header. `None` (the default):
    /// inflated on the calling thread. The records and their offsets are
    /// the same on every file of whole members; a corrupt member may break
    /// its record differently (`gzip_segments.rs`).
    pub inflate_segments: Option<usize>,
    /// Largest feed accepted, in bytes: a feed file, or a feed response's
    /// decoded body (whose pages are capped by `max_page_bytes`); a larger
    /// one is rejected unparsed. Default 16 MiB.
    pub max_feed_bytes: usize,
    /// Wall time one feed's parse may take; past it the feed is rejected
    /// (stage `budget`). `None` (the default): no budget.
    pub feed_budget: Option<std::time::Duration>,
}

impl Default for IngestOptions {
    fn default() -> Self {
        Self {
            max_page_bytes: 16 << 20,
            max_decoded_bytes: 64 << 20,
            inflate_segments: None,
            max_feed_bytes: 16 << 20,
            feed_budget: None,
        }
    }
}

/// One thing found while reading a WARC file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// An HTML response, decoded to UTF-8.
    Page(PageRecord),
    /// An RSS, Atom or JSON feed found as a response inside a WARC.
    Feed {
        /// Where the feed's record was read.
        source: SourceRef,
        /// The feed's `WARC-Target-URI` (also the base for relative links).
        url: String,
        /// The feed's items.
        items: Vec<FeedItem>,
    },
    /// A record that could not be used, with stage, reason, offset and record id.
    Reject(Reject),
}

/// Why a record was skipped on purpose: the reasons `stats.json` counts
/// the skipped records by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Skip {
    /// A record of a type that holds no page: `request`, `metadata`,
    /// `warcinfo`, `conversion`, a `resource` that is not HTML, an ARC's
    /// version block.
    RecordType,
    /// A response whose payload is neither HTML nor a feed (by its
    /// `Content-Type`, or by its bytes when that says nothing).
    NotAPage,
    /// A response with nothing but whitespace in its body (typically a
    /// redirect).
    EmptyBody,
}

impl Skip {
    /// Every reason, in the order they are listed.
    pub const ALL: [Skip; 3] = [Skip::RecordType, Skip::NotAPage, Skip::EmptyBody];

    /// The reason's name in `stats.json`.
    pub fn name(self) -> &'static str {
        match self {
            Skip::RecordType => "record type",
            Skip::NotAPage => "not a page",
            Skip::EmptyBody => "empty body",
        }
    }
}

/// Skipped records by [`Skip`] reason.
#[derive(Default, Debug, Clone, Copy, PartialEq, Eq)]
pub struct SkipCounts([u64; 3]);

impl SkipCounts {
    /// The count of one reason.
    pub fn get(&self, why: Skip) -> u64 {
        self.0[why as usize]
    }

    /// Counts one more record skipped for `why`.
    pub fn add(&mut self, why: Skip) {
        self.0[why as usize] += 1;
    }

    /// The sum of two sets of counts.
    pub fn plus(&self, other: &SkipCounts) -> SkipCounts {
        SkipCounts(std::array::from_fn(|i| self.0[i] + other.0[i]))
    }

    /// Records skipped, whatever the reason.
    pub fn total(&self) -> u64 {
        self.0.iter().sum()
    }

    /// The counts by reason name, reasons that counted nothing left out.
    pub fn by_name(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        Skip::ALL
            .into_iter()
            .map(|why| (why.name(), self.get(why)))
            .filter(|&(_, n)| n > 0)
    }
}

/// Counters for one WARC file.
///
/// Every record read ends in exactly one of `html`, `feeds`, `revisits`,
/// `skipped` and `rejected`, so that [`WarcStats::accounted`] equals
/// `records` after [`read_warc`]; after [`read_warc_split`] the payloads it
/// handed out undecoded make up the difference.
#[derive(Default, Debug, Clone)]
pub struct WarcStats {
    /// Records read, of any type, counting as one record each stretch
    /// between records that is not one and the rest of a file that could
    /// not be read (each becomes a reject).
    pub records: u64,
    /// `response` records.
    pub responses: u64,
    /// Pages emitted ([`Event::Page`]).
    pub html: u64,
    /// Feeds emitted ([`Event::Feed`]).
    pub feeds: u64,
    /// `revisit` records.
    pub revisits: u64,
    /// Records skipped on purpose, by reason: request, metadata, warcinfo,
    /// non-HTML payloads, empty bodies ([`WarcStats::skipped`] in all).
    pub skipped_by: SkipCounts,
    /// Rejects emitted ([`Event::Reject`]).
    pub rejected: u64,
}

impl WarcStats {
    /// Counts one event by its kind.
    pub fn count(&mut self, event: &Event) {
        match event {
            Event::Page(_) => self.html += 1,
            Event::Feed { .. } => self.feeds += 1,
            Event::Reject(_) => self.rejected += 1,
        }
    }

    /// Counts one record skipped on purpose, for `why`.
    pub fn skip(&mut self, why: Skip) {
        self.skipped_by.add(why);
    }

    /// Records skipped on purpose, whatever the reason.
    pub fn skipped(&self) -> u64 {
        self.skipped_by.total()
    }

    /// The records whose outcome these counters hold: pages, feeds,
    /// revisits, skips and rejects.
    pub fn accounted(&self) -> u64 {
        self.html + self.feeds + self.revisits + self.skipped() + self.rejected
    }

    /// The sum of two sets of counters.
    pub fn plus(&self, other: &WarcStats) -> WarcStats {
        WarcStats {
            records: self.records + other.records,
            responses: self.responses + other.responses,
            html: self.html + other.html,
            feeds: self.feeds + other.feeds,
            revisits: self.revisits + other.revisits,
            skipped_by: self.skipped_by.plus(&other.skipped_by),
            rejected: self.rejected + other.rejected,
        }
    }
}

/// Why the body of a response declared as HTML is no page: random bytes,
/// an image or an archive (`http::looks_binary`).
pub const BINARY_CONTENT: &str = "binary content (control bytes) in a page declared as HTML";

/// The HTML of a response body declared as `content_type`, decoded to
/// UTF-8, with the charset it was read in ([`decode_html`]); `None` when
/// the bytes are binary, not text ([`BINARY_CONTENT`]). Every page, from a
/// WARC or not, is judged and decoded here.
pub(crate) fn decode_page(
    bytes: &[u8],
    content_type: Option<&str>,
) -> Option<(String, &'static str)> {
    (!http::looks_binary(content_type, bytes)).then(|| decode_html(bytes, content_type))
}

/// A page record of `bytes` read outside a WARC (an HTML file, `canopy
/// page`'s input, a page handed over from Python): decoded as a response
/// with `content_type`, no `WARC-Date`; rejected (stage `http`) where a
/// WARC response would be, when the bytes are binary ([`BINARY_CONTENT`]).
pub fn page_record(
    url: String,
    record_id: String,
    file: String,
    bytes: &[u8],
    content_type: Option<&str>,
) -> Result<PageRecord, Box<Reject>> {
    let source = SourceRef { file, offset: None };
    let Some((html, charset)) = decode_page(bytes, content_type) else {
        return Err(Box::new(Reject {
            source,
            record_id: (!record_id.is_empty()).then_some(record_id),
            url: (!url.is_empty()).then_some(url),
            stage: canopy_types::Stage::Http,
            reason: BINARY_CONTENT.to_string(),
        }));
    };
    Ok(PageRecord {
        url,
        record_id,
        source,
        status: None,
        charset: charset.to_string(),
        date: None,
        content_language: None,
        html,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_bytes_given_as_a_page_are_rejected_as_a_warc_response_is() {
        let noise: Vec<u8> = (0..=255u8).cycle().take(10_000).collect();
        let reject = page_record(
            "https://a.example/photo".into(),
            String::new(),
            "photo.html".into(),
            &noise,
            Some("text/html"),
        )
        .unwrap_err();
        assert_eq!(reject.stage, canopy_types::Stage::Http);
        assert_eq!(reject.reason, BINARY_CONTENT);
        assert_eq!(reject.url.as_deref(), Some("https://a.example/photo"));
        assert_eq!(reject.record_id, None);
        assert_eq!(reject.source.file, "photo.html");
        // UTF-16 text holds NULs, and is text.
        let mut utf16 = vec![0xFF, 0xFE];
        utf16.extend("<p>Wide text</p>".encode_utf16().flat_map(u16::to_le_bytes));
        let page = page_record(String::new(), String::new(), String::new(), &utf16, None).unwrap();
        assert!(page.html.contains("Wide text"), "{}", page.html);
    }
}
