//! A corrupt gzip member spoils its own record, not the rest of the file:
//! reading resumes at the next member that starts a WARC record
//! (`src/resync.rs`), and the stretch skipped is one reject. Checked on a
//! real file of one member a record (big9's 2005 crawl), read in order and
//! in segments; a file compressed as one member still stops at the error.

mod common;

use std::io::{Read, Write};
use std::path::Path;

use canopy_ingest::{read_warc, Event, IngestOptions, WarcStats};
use canopy_test_support::gzip_member_ends;
use common::{corpus_file, rejects};

/// Reads `bytes` as a `.warc.gz` file: in order, and in segments of 4 KiB
/// (both must give the same events and counts).
fn read(dir: &Path, bytes: &[u8]) -> (Vec<Event>, WarcStats) {
    let path = dir.join("file.warc.gz");
    std::fs::write(&path, bytes).unwrap();
    let results = [None, Some(4 << 10)].map(|segments| {
        let opts = IngestOptions {
            inflate_segments: segments,
            ..IngestOptions::default()
        };
        let mut events = Vec::new();
        let stats = read_warc(&path, &opts, &mut |e| events.push(e)).expect("file opens");
        (events, stats)
    });
    let [(in_order, in_order_stats), (segmented, segmented_stats)] = results;
    assert_eq!(
        format!("{in_order_stats:?}"),
        format!("{segmented_stats:?}"),
        "counts in order and in segments"
    );
    assert!(in_order == segmented, "events in order and in segments");
    (in_order, in_order_stats)
}

/// Where an event's record starts.
fn offset(event: &Event) -> Option<u64> {
    match event {
        Event::Page(page) => page.source.offset,
        Event::Feed { source, .. } => source.offset,
        Event::Reject(reject) => reject.source.offset,
    }
}

/// `original` with the deflate data of the members starting at `starts`
/// spoilt (their headers left whole).
fn spoil(original: &[u8], member_starts: &[usize]) -> Vec<u8> {
    let mut bytes = original.to_vec();
    for &start in member_starts {
        for b in &mut bytes[start + 30..start + 60] {
            *b ^= 0x5a;
        }
    }
    bytes
}

struct File {
    bytes: Vec<u8>,
    /// Each member's start, and the file's end.
    starts: Vec<usize>,
    events: Vec<Event>,
    stats: WarcStats,
}

fn original(dir: &Path) -> File {
    let bytes = std::fs::read(corpus_file("big9/years/2005.warc.gz")).unwrap();
    let mut starts = vec![0];
    starts.extend(gzip_member_ends(&bytes));
    let (events, stats) = read(dir, &bytes);
    assert!(rejects(&events).is_empty());
    File {
        bytes,
        starts,
        events,
        stats,
    }
}

/// `events` are the original's without those of the members `lost` (indices
/// of adjacent members), plus the reject of the stretch skipped.
fn assert_only_lost(file: &File, events: &[Event], stats: &WarcStats, lost: &[usize]) {
    let lost_at: Vec<u64> = lost.iter().map(|&i| file.starts[i] as u64).collect();
    let kept: Vec<&Event> = file
        .events
        .iter()
        .filter(|e| !lost_at.contains(&offset(e).unwrap()))
        .collect();
    let read: Vec<&Event> = events
        .iter()
        .filter(|e| !matches!(e, Event::Reject(_)))
        .collect();
    assert!(
        kept.len() + lost.len() >= file.events.len(),
        "a record a member"
    );
    assert!(read == kept, "every other record is read as before");
    let rejects = rejects(events);
    assert_eq!(rejects.len(), 1, "{rejects:?}");
    assert_eq!(rejects[0].source.offset, Some(lost_at[0]));
    let next = file.starts[lost[lost.len() - 1] + 1];
    let resumed = format!("skipped to the next record, at offset {next}");
    assert!(
        rejects[0].reason.ends_with(&resumed),
        "{}",
        rejects[0].reason
    );
    // The records spoilt count as the one reject.
    assert_eq!(stats.records, file.stats.records - lost.len() as u64 + 1);
}

#[test]
fn reading_resumes_after_a_corrupt_member() {
    let dir = tempfile::tempdir().unwrap();
    let file = original(dir.path());
    let n = file.starts.len() - 1;
    assert!(n > 20);
    for lost in [vec![n / 2], vec![0], vec![n / 3, n / 3 + 1]] {
        let starts: Vec<usize> = lost.iter().map(|&i| file.starts[i]).collect();
        let (events, stats) = read(dir.path(), &spoil(&file.bytes, &starts));
        assert_only_lost(&file, &events, &stats, &lost);
    }
}

#[test]
fn reading_resumes_after_garbage_between_members() {
    let dir = tempfile::tempdir().unwrap();
    let file = original(dir.path());
    let at = file.starts[file.starts.len() / 2];
    let mut bytes = file.bytes[..at].to_vec();
    bytes.extend_from_slice(&[0x55; 300]);
    bytes.extend_from_slice(&file.bytes[at..]);
    let (events, stats) = read(dir.path(), &bytes);
    let read: Vec<Event> = events
        .iter()
        .filter(|e| !matches!(e, Event::Reject(_)))
        .cloned()
        .collect();
    assert_eq!(
        read.len(),
        file.events.len(),
        "no record is lost: {:?}",
        rejects(&events)
    );
    let rejects = rejects(&events);
    assert_eq!(rejects.len(), 1);
    let resumed = format!("skipped to the next record, at offset {}", at + 300);
    assert!(
        rejects[0].reason.ends_with(&resumed),
        "{}",
        rejects[0].reason
    );
    assert_eq!(stats.records, file.stats.records + 1);
}

#[test]
fn a_file_of_one_member_stops_at_its_corruption() {
    let dir = tempfile::tempdir().unwrap();
    let file = original(dir.path());
    let mut whole = Vec::new();
    flate2::read::MultiGzDecoder::new(&file.bytes[..])
        .read_to_end(&mut whole)
        .unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&whole).unwrap();
    let mut one = gz.finish().unwrap();
    let middle = one.len() / 2;
    for b in &mut one[middle..middle + 30] {
        *b ^= 0x5a;
    }
    let (events, _) = read(dir.path(), &one);
    let last = rejects(&events).into_iter().last().expect("a reject");
    assert!(last.reason.contains("data error"), "{}", last.reason);
    assert!(!last.reason.contains("skipped to"), "{}", last.reason);
}

/// A record header fastwarc cannot parse (one line past its 64 KiB
/// header limit), in a plain file and in a member of its own: the other
/// records are read, the broken one is one reject.
#[test]
fn reading_resumes_after_a_record_header_too_long() {
    let dir = tempfile::tempdir().unwrap();
    let file = original(dir.path());
    let k = (file.starts.len() - 1) / 2;
    let inflate = |member: &[u8]| {
        let mut out = Vec::new();
        flate2::read::MultiGzDecoder::new(member)
            .read_to_end(&mut out)
            .unwrap();
        out
    };
    let members: Vec<Vec<u8>> = file
        .starts
        .windows(2)
        .map(|w| inflate(&file.bytes[w[0]..w[1]]))
        .collect();
    let mut broken = members[k].clone();
    let version_line = broken.iter().position(|&b| b == b'\n').unwrap() + 1;
    let long_line = format!("X-Long: {}\r\n", "a".repeat(70_000));
    broken.splice(version_line..version_line, long_line.into_bytes());
    let lost_id = {
        let text = String::from_utf8_lossy(&members[k]);
        text.lines()
            .find_map(|l| l.strip_prefix("WARC-Record-ID: "))
            .unwrap()
            .trim()
            .to_string()
    };
    let plain: Vec<u8> = members
        .iter()
        .enumerate()
        .flat_map(|(i, m)| if i == k { broken.clone() } else { m.clone() })
        .collect();
    let gzipped: Vec<u8> = members
        .iter()
        .enumerate()
        .flat_map(|(i, m)| {
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            gz.write_all(if i == k { &broken } else { m }).unwrap();
            gz.finish().unwrap()
        })
        .collect();
    let id = |e: &Event| match e {
        Event::Page(p) => Some(p.record_id.clone()),
        _ => None,
    };
    let want: Vec<String> = file
        .events
        .iter()
        .filter_map(id)
        .filter(|r| *r != lost_id)
        .collect();
    for (what, bytes) in [("plain", plain), ("gzip", gzipped)] {
        let path = dir.path().join("file.warc");
        std::fs::write(&path, &bytes).unwrap();
        let mut events = Vec::new();
        read_warc(&path, &IngestOptions::default(), &mut |e| events.push(e)).unwrap();
        let got: Vec<String> = events.iter().filter_map(id).collect();
        assert_eq!(got, want, "{what}: every other page is read");
        let rejects = rejects(&events);
        assert_eq!(rejects.len(), 1, "{what}: {rejects:?}");
        assert!(
            rejects[0].reason.contains("skipped to the next record"),
            "{what}: {}",
            rejects[0].reason
        );
    }
}

/// Members that each start a record whose header is too long: a run of
/// them is one stretch skipped; past 1,000 resumptions in a file, reading
/// gives up (a file that breaks that often is not a crawl's file damaged
/// in places, and each resumption costs a reader).
#[test]
fn a_run_of_broken_records_is_one_reject_and_reading_gives_up_on_too_many() {
    let dir = tempfile::tempdir().unwrap();
    let file = original(dir.path());
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(format!("WARC/1.0\r\nX-Long: {}\r\n\r\n", "a".repeat(70_000)).as_bytes())
        .unwrap();
    let broken = gz.finish().unwrap();
    for (copies, gives_up) in [(50, false), (1_500, true)] {
        let mut bytes = broken.repeat(copies);
        bytes.extend_from_slice(&file.bytes);
        let path = dir.path().join("file.warc.gz");
        std::fs::write(&path, &bytes).unwrap();
        let mut events = Vec::new();
        read_warc(&path, &IngestOptions::default(), &mut |e| events.push(e)).unwrap();
        let rejects = rejects(&events);
        assert_eq!(rejects.len(), 1, "{copies}: {rejects:?}");
        let pages = events
            .iter()
            .filter(|e| matches!(e, Event::Page(_)))
            .count();
        let all = file
            .events
            .iter()
            .filter(|e| matches!(e, Event::Page(_)))
            .count();
        if gives_up {
            assert!(
                rejects[0].reason.contains("gave up"),
                "{}",
                rejects[0].reason
            );
            assert_eq!(pages, 0);
        } else {
            let next = broken.len() * copies;
            let resumed = format!("skipped to the next record, at offset {next}");
            assert!(
                rejects[0].reason.ends_with(&resumed),
                "{}",
                rejects[0].reason
            );
            assert_eq!(pages, all);
        }
    }
}
