//! The HTML → DOM builder, and the accessors every method uses on a
//! parsed page. Invalid UTF-8 is replaced, as ingest's decoder would.
#![no_main]

use canopy_dom::{Document, DomOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let html = String::from_utf8_lossy(data);
    // A low depth cap so that deep nesting (and its flattening) is reached
    // with small inputs.
    let options = DomOptions {
        max_depth: 32,
        max_bytes: 1 << 20,
        max_nodes: 100_000,
        drop_id_class: vec!["comment".to_string()],
        section_anchors: vec!["comment".to_string()],
        ..DomOptions::default()
    };
    for opts in [DomOptions::default(), options] {
        let doc = Document::parse(&html, &opts);
        let body = doc.body();
        let _ = doc.title();
        let _ = doc.lang();
        let _ = doc.meta("og:title");
        let _ = doc.inner_text(body);
        for id in 0..doc.len() {
            let _ = doc.children(id).count();
            let _ = doc.ancestors(id).count();
        }
    }
});
