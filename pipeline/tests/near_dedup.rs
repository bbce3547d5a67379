//! Near deduplication (`--dedup near`): a mirror of a real corpus (the
//! same records under other hosts) adds no article, only near duplicates
//! listed; `--dedup exact` keeps both copies; the outputs are the same
//! whatever the threads, and the scale-out steps give `run`'s.

mod common;

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use common::{corpora, jsonl, run, Run};
use serde_json::Value;

/// The host of each mirrored URL: the original's with this after it, so
/// that each mirror site sorts right after its original.
const MIRROR: &str = ".mirror.example";

/// `dragnet.warc.gz` as a mirror serves it: every record as it is, its
/// `WARC-Target-URI`'s host followed by [`MIRROR`] (the HTML, its links
/// and the record ids unchanged), written uncompressed into `dir`.
fn mirror_of_dragnet(dir: &Path) -> PathBuf {
    let mut warc = Vec::new();
    flate2::read::MultiGzDecoder::new(
        std::fs::File::open(corpora().join("dragnet/dragnet.warc.gz")).unwrap(),
    )
    .read_to_end(&mut warc)
    .unwrap();
    let mut out = Vec::with_capacity(warc.len() + warc.len() / 50);
    let mut rest = &warc[..];
    let mut records = 0;
    while !rest.is_empty() {
        let head_end = find(rest, b"\r\n\r\n").expect("a WARC header") + 4;
        let head = std::str::from_utf8(&rest[..head_end]).unwrap();
        let length: usize = header(head, "Content-Length").parse().unwrap();
        for line in head.split_inclusive("\r\n") {
            match line.strip_prefix("WARC-Target-URI: ") {
                Some(uri) => {
                    let (scheme, after) = uri.split_once("://").unwrap();
                    let (host, path) = after.split_at(after.find(['/', ':', '?', '\r']).unwrap());
                    out.extend_from_slice(
                        format!("WARC-Target-URI: {scheme}://{host}{MIRROR}{path}").as_bytes(),
                    );
                }
                None => out.extend_from_slice(line.as_bytes()),
            }
        }
        // The block and the two CRLFs that end the record.
        let end = head_end + length + 4;
        out.extend_from_slice(&rest[head_end..end]);
        rest = &rest[end..];
        while rest.first().is_some_and(|b| b.is_ascii_whitespace()) {
            rest = &rest[1..];
        }
        records += 1;
    }
    assert_eq!(records, 1495, "dragnet's records");
    let path = dir.join("mirror.warc");
    std::fs::write(&path, out).unwrap();
    path
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn header<'a>(head: &'a str, name: &str) -> &'a str {
    head.split("\r\n")
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case(name).then(|| v.trim())
        })
        .unwrap_or_else(|| panic!("no {name} in {head}"))
}

/// (articles, duplicates, near duplicates) of the run's records line.
fn figures(r: &Run) -> (u64, u64, u64) {
    assert_eq!(r.code, 0, "{}", r.stderr);
    let line = r
        .stderr
        .lines()
        .find(|l| l.contains(" records read: "))
        .unwrap_or_else(|| panic!("no records line in {}", r.stderr));
    let number = |after: &str| -> u64 {
        line.split(after)
            .next()
            .unwrap()
            .rsplit([' ', '('])
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    let near = if line.contains(" near)") {
        number(" near)")
    } else {
        0
    };
    (number(" articles"), number(" duplicates"), near)
}

#[test]
fn a_mirror_adds_only_near_duplicates_whatever_the_threads_and_steps() {
    let tmp = tempfile::tempdir().unwrap();
    let inputs = tmp.path().join("inputs");
    std::fs::create_dir(&inputs).unwrap();
    let dragnet = corpora().join("dragnet/dragnet.warc.gz");
    let mirror = mirror_of_dragnet(&inputs);
    let near = ["--dedup", "near"];

    let alone = run(&[&dragnet], &tmp.path().join("alone"), &near);
    let (articles, duplicates, near_alone) = figures(&alone);
    // dragnet alone: two articles of its own are near duplicates
    // (a story's ?page=2 and a wire story served twice).
    assert_eq!((duplicates, near_alone), (2, 2));
    let both = run(
        &[&dragnet, &mirror],
        &tmp.path().join("both"),
        &["--dedup", "near", "--threads", "2"],
    );
    // Every article of the mirror is a near duplicate: the articles are
    // dragnet's alone, byte for byte.
    let mirrored = articles + near_alone;
    assert_eq!(
        figures(&both),
        (articles, duplicates + mirrored, near_alone + mirrored)
    );
    assert!(both.file("articles.jsonl") == alone.file("articles.jsonl"));
    let listed = jsonl(&both.out.join("duplicates.jsonl"));
    let of_alone = jsonl(&alone.out.join("duplicates.jsonl"));
    // An original near duplicate's line is the same; a mirrored article
    // names its original, or what its original is a near duplicate of.
    let kept_of: HashMap<&str, &Value> = of_alone
        .iter()
        .map(|d| (d["record_id"].as_str().unwrap(), &d["kept"]))
        .collect();
    for d in &listed {
        assert_eq!(d["reason"], "near duplicate", "{d}");
        let id = d["record_id"].as_str().unwrap();
        if !d["site"].as_str().unwrap().ends_with(MIRROR) {
            assert!(of_alone.contains(d), "{d}");
            continue;
        }
        assert!(d["similarity"].as_f64().unwrap() >= 0.8, "{d}");
        let kept = &d["kept"];
        assert!(!kept["site"].as_str().unwrap().ends_with(MIRROR), "{d}");
        // Each names the record it was read from: the mirror's, dragnet's.
        assert_eq!(d["source"]["file"], mirror.display().to_string(), "{d}");
        assert_eq!(kept["source"]["file"], dragnet.display().to_string(), "{d}");
        assert!(d["source"]["offset"].is_u64() && kept["source"]["offset"].is_u64());
        match kept_of.get(id) {
            Some(original_kept) => assert_eq!(kept, *original_kept, "{d}"),
            None => {
                assert_eq!(kept["record_id"], id, "{d}");
                assert_eq!(d["similarity"], 1.0, "{d}");
                assert_eq!(
                    format!("{}{MIRROR}", kept["site"].as_str().unwrap()),
                    d["site"].as_str().unwrap()
                );
            }
        }
    }
    assert_eq!(listed.len() as u64, duplicates + mirrored);
    // stats.json counts them by their reason, among the duplicates.
    let counts = common::stats_counts(&both.out);
    assert_eq!(
        counts["duplicates_by_reason"]["near duplicate"],
        duplicates + mirrored
    );

    // `--dedup exact` keeps both copies: other sites, other URLs.
    let exact = run(&[&dragnet, &mirror], &tmp.path().join("exact"), &[]);
    let (exact_articles, exact_duplicates, exact_near) = figures(&exact);
    assert_eq!((exact_duplicates, exact_near), (0, 0));
    assert_eq!(exact_articles, 2 * mirrored);

    // One thread: the same bytes.
    let one = run(
        &[&dragnet, &mirror],
        &tmp.path().join("one"),
        &["--dedup", "near", "--threads", "1"],
    );
    for name in common::OUTPUT_SET {
        assert!(
            one.comparable(name) == both.comparable(name),
            "{name}: one thread differs"
        );
    }

    // Each input read by another rank, its buckets extracted apart, then
    // merged: `run`'s bytes.
    std::fs::copy(&dragnet, inputs.join("dragnet.warc.gz")).unwrap();
    let (work, out) = (tmp.path().join("work"), tmp.path().join("merged"));
    common::scale_out(&inputs, &work, &out, 2, 3, &["--dedup", "near"]);
    let steps = run(&[&inputs], &tmp.path().join("steps-run"), &near);
    for name in common::OUTPUT_SET {
        let merged = common::comparable(&out, name);
        assert!(
            merged == steps.comparable(name),
            "{name}: merge differs from run"
        );
    }
    assert_eq!(figures(&steps), figures(&both));
}
