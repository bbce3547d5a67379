//! The feed parser and the join key: parse a document as RSS, Atom or JSON
//! Feed (with and without a base URL), then normalise every item's link as
//! the join to pages does.
#![no_main]

use canopy_ingest::{normalize_url, parse_feed};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for base in [None, Some("http://example.com/blog/feed.xml")] {
        if let Ok(items) = parse_feed(data, base) {
            for item in items {
                let _ = normalize_url(&item.url);
            }
        }
    }
    // The join key of arbitrary text (feed links are arbitrary text).
    let _ = normalize_url(&String::from_utf8_lossy(data));
});
