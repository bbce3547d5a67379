//! A whole site's extraction on hostile pages: one to three pages of one
//! site (the input, then copies whose digits are shifted, so that siblings
//! share a template but not their text) through `canopy::extract_site`:
//! clustering, signifiers, Forest's learning and the wrapper check, the
//! page-level path, cleaning, metadata, language, and the text, HTML and
//! Markdown renderings. Invalid UTF-8 is replaced, as ingest's decoder
//! would. A page that gives no article is a reject, never a panic.
#![no_main]

use canopy::{extract_site, Format, PageRecord, Settings};
use libfuzzer_sys::fuzz_target;

/// `html` with every ASCII digit moved on by `shift`.
fn shifted(html: &str, shift: u8) -> String {
    html.chars()
        .map(|c| match c {
            '0'..='9' => char::from(b'0' + (c as u8 - b'0' + shift) % 10),
            c => c,
        })
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let pages = 1 + first % 3;
    let html = String::from_utf8_lossy(rest);
    let mut settings = Settings::default();
    settings.config.run.formats = vec![Format::Text, Format::Html, Format::Markdown];
    // The default budget is wall time; under the sanitizer a page may
    // take longer than a plain build would and be rejected, which is not
    // what is looked for here (libFuzzer's -timeout is).
    settings.config.run.page_budget_ms = 0;
    let records: Vec<PageRecord> = (0..pages)
        .filter_map(|i| {
            // Binary bytes are rejected before the site sees them.
            let mut record = canopy::page_record(
                &format!("http://fuzz.example/page/{i}"),
                shifted(&html, i).as_bytes(),
                Some("text/html"),
            )
            .ok()?;
            record.record_id = format!("<urn:fuzz:{i}>");
            Some(record)
        })
        .collect();
    let _ = extract_site(records, &settings);
});
