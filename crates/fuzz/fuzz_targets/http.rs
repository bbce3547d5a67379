//! The HTTP header and body decoder: the input is an HTTP response (status
//! line, headers, body), wrapped in a well-formed WARC response record so
//! that it goes through header parsing, de-chunking, content decoding,
//! classification, charset decoding and the feed parser.
#![no_main]

use canopy_ingest::{read_warc_bytes, IngestOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let opts = IngestOptions {
        max_page_bytes: 1 << 20,
        max_decoded_bytes: 4 << 20,
        max_feed_bytes: 1 << 20,
        ..IngestOptions::default()
    };
    let mut record = format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:fuzz>\r\n\
         WARC-Target-URI: http://example.com/a/b.html\r\n\
         WARC-Date: 2020-01-01T00:00:00Z\r\n\
         Content-Type: application/http; msgtype=response\r\n\
         Content-Length: {}\r\n\r\n",
        data.len()
    )
    .into_bytes();
    record.extend_from_slice(data);
    record.extend_from_slice(b"\r\n\r\n");
    read_warc_bytes("fuzz.warc", record, &opts, &mut |_| {});
});
