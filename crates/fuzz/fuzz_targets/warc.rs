//! The WARC and ARC record readers over arbitrary bytes (`read_warc_bytes`
//! tells an ARC by its `filedesc://` start): as given (plain or, from the
//! `.gz` seeds, gzip), and gzip-compressed, so that the record parser
//! behind the gzip reader sees the same mutations.
#![no_main]

use std::io::Write;

use canopy_ingest::{read_warc_bytes, IngestOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // Small caps so that a fuzzed gzip bomb costs little.
    let opts = IngestOptions {
        max_page_bytes: 1 << 20,
        max_decoded_bytes: 4 << 20,
        max_feed_bytes: 1 << 20,
        ..IngestOptions::default()
    };
    read_warc_bytes("fuzz.warc", data.to_vec(), &opts, &mut |_| {});
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    if gz.write_all(data).is_ok() {
        if let Ok(bytes) = gz.finish() {
            read_warc_bytes("fuzz.warc.gz", bytes, &opts, &mut |_| {});
        }
    }
});
