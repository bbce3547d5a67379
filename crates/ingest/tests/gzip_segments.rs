//! A `.warc.gz` inflated in segments on the rayon pool
//! (`IngestOptions::inflate_segments`) reads to the same events, offsets
//! and counts as inflated in order: on the real WARCs of the corpora, and
//! on one of them broken in the ways a crawl's files break. (A corrupt
//! member larger than a reader's first buffer may break its record
//! differently, the same way whatever the thread count: the unit tests of
//! `gzip_segments.rs`.)

mod common;

use std::io::{Read, Write};
use std::path::Path;

use canopy_ingest::{read_warc, Event, IngestOptions};
use canopy_test_support::{gzip_member_ends, noise, warc_response};
use common::corpus_file;
use flate2::write::GzEncoder;
use flate2::Compression;

/// Segment sizes tried: smaller than most members, and a few members.
const SEGMENTS: [usize; 3] = [512, 4 << 10, 32 << 10];

fn read_with(path: &Path, segments: Option<usize>) -> (Vec<Event>, String) {
    let opts = IngestOptions {
        inflate_segments: segments,
        ..IngestOptions::default()
    };
    let mut events = Vec::new();
    let stats = read_warc(path, &opts, &mut |e| events.push(e)).expect("file opens");
    (events, format!("{stats:?}"))
}

fn assert_same_in_segments(path: &Path, what: &str) {
    let (events, stats) = read_with(path, None);
    for segment in SEGMENTS {
        let (seg_events, seg_stats) = read_with(path, Some(segment));
        assert_eq!(seg_stats, stats, "{what}, segments of {segment}: counts");
        assert_eq!(
            seg_events.len(),
            events.len(),
            "{what}, segments of {segment}: events"
        );
        for (i, (a, b)) in seg_events.iter().zip(&events).enumerate() {
            assert_eq!(a, b, "{what}, segments of {segment}: event {i}");
        }
    }
}

fn gzip(data: &[u8], level: Compression) -> Vec<u8> {
    let mut enc = GzEncoder::new(Vec::new(), level);
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

#[test]
fn real_warcs_read_the_same_in_segments() {
    let mut files = vec![
        "big9/big9.warc.gz".to_string(),
        "dragnet/dragnet.warc.gz".to_string(),
    ];
    for dir in [
        "big9/years",
        "warc/jwarc",
        "warc/pywb",
        "warc/resiliparse",
        "warc/warcio",
    ] {
        for entry in std::fs::read_dir(corpus_file(dir)).expect("corpus folder") {
            let name = entry
                .expect("entry")
                .file_name()
                .to_string_lossy()
                .to_string();
            if name.ends_with(".warc.gz") {
                files.push(format!("{dir}/{name}"));
            }
        }
    }
    files.sort();
    assert!(files.len() >= 16, "found {files:?}");
    for rel in &files {
        assert_same_in_segments(&corpus_file(rel), rel);
    }
}

/// One of big9's files, broken: cut, corrupted, with garbage, an empty
/// member, members whose stored bytes look like member headers, as one
/// member, and with bytes after the last member.
#[test]
fn broken_warcs_read_the_same_in_segments() {
    let original = std::fs::read(corpus_file("big9/years/2005.warc.gz")).unwrap();
    let ends = gzip_member_ends(&original);
    assert!(ends.len() > 20);
    // A member boundary about a third and two thirds in.
    let third = ends[ends.len() / 3];
    let two_thirds = ends[2 * ends.len() / 3];
    let insert = |at: usize, bytes: &[u8]| {
        let mut v = original[..at].to_vec();
        v.extend_from_slice(bytes);
        v.extend_from_slice(&original[at..]);
        v
    };
    // A response whose body, stored uncompressed, is full of what looks
    // like gzip member headers.
    let fake_headers: Vec<u8> = (0..200)
        .flat_map(|i| {
            let mut chunk = format!("<p>{i}</p>").into_bytes();
            chunk.extend_from_slice(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]);
            chunk
        })
        .collect();
    let lookalike = gzip(
        &warc_response(
            7,
            "http://example.com/lookalike",
            "HTTP/1.1 200 OK\nContent-Type: text/html\n",
            &fake_headers,
        ),
        Compression::none(),
    );
    // A page holding 600 KB of another `.warc.gz` then noise: deflate
    // stores it as it is, real member headers and all.
    let mut stored = std::fs::read(corpus_file("big9/years/2009.warc.gz")).unwrap();
    stored.truncate(600_000);
    stored.extend(noise(300_000));
    let holding = gzip(
        &warc_response(
            8,
            "http://example.com/holding",
            "HTTP/1.1 200 OK\nContent-Type: text/html\n",
            &stored,
        ),
        Compression::default(),
    );
    let mut whole = Vec::new();
    flate2::read::MultiGzDecoder::new(&original[..])
        .read_to_end(&mut whole)
        .unwrap();
    let mut flipped = original.clone();
    let at = original.len() * 2 / 5;
    flipped[at] ^= 0x5a;

    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("cut in half", original[..original.len() / 2].to_vec()),
        ("cut at a member end", original[..third].to_vec()),
        (
            "cut near the end",
            original[..original.len() - 100].to_vec(),
        ),
        ("one byte flipped", flipped),
        ("garbage between members", insert(third, &[0x55; 300])),
        (
            "an empty member",
            insert(third, &gzip(b"", Compression::default())),
        ),
        (
            "a member of lookalike headers",
            insert(two_thirds, &lookalike),
        ),
        ("a member holding a .warc.gz", insert(third, &holding)),
        ("one member", gzip(&whole, Compression::default())),
        ("bytes after the last member", {
            let mut v = original.clone();
            v.extend_from_slice(b"\x1f\x8b\x08\x00 not a member");
            v
        }),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (what, bytes) in cases {
        let path = dir.path().join("broken.warc.gz");
        std::fs::write(&path, bytes).unwrap();
        assert_same_in_segments(&path, what);
    }
}
