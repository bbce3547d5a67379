//! Feeds have bounds like pages: the text of their items is decoded in
//! linear time whatever it holds, a feed larger than `max_feed_bytes` is
//! rejected unparsed, and a parse past its time budget is stopped
//! (docs/robustness.md, "Feeds, metadata and charsets"). The feeds are
//! generated here.

use std::time::{Duration, Instant};

use canopy_ingest::{parse_feed, parse_feed_within, read_feed_file, read_warc_bytes, Event};
use canopy_ingest::{FeedError, IngestOptions};

/// Far above what the feeds below take once decoding is linear (tens of
/// milliseconds, in a debug build a few hundred), far below what they took
/// when it was quadratic (7 to 24 s each in a release build).
const LINEAR_BOUND: Duration = Duration::from_secs(3);

/// An RSS feed of one item linking to `http://news.example/a`, whose title
/// and description are given as written in the XML.
fn rss(title: &str, description: &str) -> String {
    format!(
        "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>t</title><item>\
         <title>{title}</title><link>http://news.example/a</link>\
         <description>{description}</description></item></channel></rss>"
    )
}

/// An RSS feed of about `bytes` bytes: items of ordinary text.
fn rss_of_items(bytes: usize) -> String {
    let mut items = String::new();
    let mut i = 0;
    while items.len() < bytes {
        items.push_str(&format!(
            "<item><title>Story {i}</title><link>http://news.example/{i}</link>\
             <description>{}</description></item>",
            "words of a description ".repeat(20)
        ));
        i += 1;
    }
    rss("x", "x").replace("<item>", &format!("{items}<item>"))
}

/// Regression: a 15 MB feed of entity references inside a WARC took four
/// minutes (ten on a loaded machine). feed-rs decodes `&amp;` to `&`, and
/// Canopy's entity decoder then looked for each `&`'s `;` in the whole rest
/// of the text; the text-of-HTML step copied the rest of the text in
/// lowercase at every `<script`. Both were quadratic in the text. Each of
/// these 3 MB feeds as a feed file, `canopy run` before and after the fix
/// (release build, shared machine): `&amp;` in a description 14.6 s →
/// 0.14 s, `&#38;` in a title 14.6 s → 0.14 s, escaped
/// `<script></script>`s 7.1 s → 0.16 s, and in CDATA 23.7 s → 0.11 s.
#[test]
fn item_text_is_decoded_in_linear_time() {
    let mb = 3_000_000;
    let cases = [
        ("&amp; in a description", rss("x", &"&amp;".repeat(mb / 5))),
        ("&#38; in a title", rss(&"&#38;".repeat(mb / 5), "x")),
        (
            "escaped scripts",
            rss("x", &"&lt;script&gt;&lt;/script&gt;".repeat(mb / 30)),
        ),
        (
            "scripts in CDATA",
            rss(
                "x",
                &format!("<![CDATA[{}]]>", "<SCRIPT></script>".repeat(mb / 17)),
            ),
        ),
    ];
    for (what, feed) in cases {
        let start = Instant::now();
        let items = parse_feed(feed.as_bytes(), None).unwrap();
        let took = start.elapsed();
        eprintln!("{what}: {} bytes in {took:?}", feed.len());
        assert!(took < LINEAR_BOUND, "{what}: {took:?}");
        assert_eq!(items.len(), 1, "{what}");
        let item = &items[0];
        match what {
            "&amp; in a description" => assert_eq!(item.description, "&".repeat(mb / 5)),
            "&#38; in a title" => assert_eq!(item.title, "&".repeat(mb / 5)),
            // The scripts are removed with what they hold.
            _ => assert_eq!(item.description, "", "{what}"),
        }
    }
}

/// A feed larger than `max_feed_bytes`, as a file or as a response inside
/// a WARC, is rejected with its size and the cap named; one at the cap is
/// read. The file is rejected from its size, before any of it is read.
#[test]
fn a_feed_over_max_feed_bytes_is_rejected() {
    let feed = rss_of_items(20_000);
    let opts = IngestOptions {
        max_feed_bytes: feed.len() - 1,
        ..IngestOptions::default()
    };
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("big.rss");
    std::fs::write(&path, &feed).unwrap();
    let reject = read_feed_file(&path, &opts).unwrap_err();
    assert_eq!(reject.stage, canopy_types::Stage::Feed);
    assert_eq!(
        reject.reason,
        format!(
            "feed file of {} bytes exceeds max_feed_bytes {}",
            feed.len(),
            feed.len() - 1
        )
    );
    let at_cap = IngestOptions {
        max_feed_bytes: feed.len(),
        ..IngestOptions::default()
    };
    assert!(read_feed_file(&path, &at_cap).unwrap().len() > 10);

    let warc = canopy_test_support::warc_response(
        1,
        "http://news.example/feed.rss",
        "HTTP/1.1 200 OK\nContent-Type: application/rss+xml\n",
        feed.as_bytes(),
    );
    for (options, rejected) in [(&opts, true), (&at_cap, false)] {
        let mut events = Vec::new();
        read_warc_bytes("feed.warc", warc.clone(), options, &mut |e| events.push(e));
        assert_eq!(events.len(), 1);
        match &events[0] {
            Event::Reject(r) if rejected => {
                assert_eq!(r.stage, canopy_types::Stage::Http);
                assert!(
                    r.reason
                        .ends_with(&format!("bytes exceeds max_feed_bytes {}", feed.len() - 1)),
                    "{r:?}"
                );
            }
            Event::Feed { items, .. } if !rejected => assert!(items.len() > 10),
            other => panic!("{other:?}"),
        }
    }
}

/// A parse past its time budget stops there and is an error of stage
/// `budget` (as a page over `run.page_budget_ms` is); without a budget the
/// same feed is read. A feed of 4 MB takes some 100 ms to parse, so a 1 ms
/// budget is spent whatever the machine; the reader is stopped within one
/// 8 KiB read of the deadline.
#[test]
fn a_feed_past_its_time_budget_is_stopped() {
    let feed = rss_of_items(4 << 20);
    let start = Instant::now();
    let err = parse_feed_within(feed.as_bytes(), None, Some(Duration::from_millis(1))).unwrap_err();
    let stopped_after = start.elapsed();
    let FeedError { stage, reason } = err;
    assert_eq!(stage, canopy_types::Stage::Budget);
    assert!(
        reason.starts_with("feed time budget of 1 ms exceeded while parsing"),
        "{reason}"
    );
    let start = Instant::now();
    let items = parse_feed_within(feed.as_bytes(), None, None).unwrap();
    let whole = start.elapsed();
    assert!(items.len() > 1000);
    eprintln!("stopped after {stopped_after:?}, whole parse {whole:?}");
    assert!(
        stopped_after < whole,
        "stopped after {stopped_after:?}, whole parse {whole:?}"
    );
}
