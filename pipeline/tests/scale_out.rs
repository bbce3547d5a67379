//! The scale-out steps (`partition`, `extract`, `merge`) with several ranks
//! give the same files as `canopy run`, reruns of finished steps do
//! nothing, and an incomplete partition is refused.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;

fn big9() -> PathBuf {
    common::corpus_file("big9")
}

fn canopy(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_canopy"))
        .args(args)
        .output()
        .unwrap()
}

fn ok(output: Output) -> Output {
    assert!(
        output.status.code() == Some(0) || output.status.code() == Some(1),
        "canopy failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `summary.csv` without its `millis` column (wall time), if it has one.
fn summary_without_time(path: &Path) -> Vec<Vec<String>> {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    let time = header.iter().position(|h| h == "millis");
    let keep = |row: Vec<String>| -> Vec<String> {
        row.into_iter()
            .enumerate()
            .filter(|(i, _)| Some(*i) != time)
            .map(|(_, v)| v)
            .collect()
    };
    let mut rows = vec![keep(header.clone())];
    for r in reader.records() {
        rows.push(keep(r.unwrap().iter().map(String::from).collect()));
    }
    rows
}

/// Whether `out` holds a `.work-*` folder (`run`'s temporary one).
fn has_work_folder(out: &Path) -> bool {
    std::fs::read_dir(out).unwrap().any(|e| {
        e.unwrap()
            .file_name()
            .to_string_lossy()
            .starts_with(".work")
    })
}

fn partition(inputs: &[&str], work: &Path, rank: u32, world: u32, buckets: u32) -> Output {
    let (rank, world, buckets) = (rank.to_string(), world.to_string(), buckets.to_string());
    let mut args = vec!["partition"];
    args.extend_from_slice(inputs);
    args.extend_from_slice(&[
        "--work",
        s(work),
        "--rank",
        &rank,
        "--world-size",
        &world,
        "--buckets",
        &buckets,
    ]);
    canopy(&args)
}

fn extract(work: &Path, bucket: u32, out: &Path) -> Output {
    let bucket = bucket.to_string();
    canopy(&[
        "extract",
        "--work",
        s(work),
        "--bucket",
        &bucket,
        "--out",
        s(out),
        "--signifiers",
        "feeds",
    ])
}

#[test]
fn three_ranks_extract_and_merge_equal_one_run_on_big9() {
    let corpus = big9();
    let warc = corpus.join("big9.warc.gz");
    let feeds = corpus.join("feeds");
    // The WARC goes to rank 0 and the 20 feed files to all three ranks, so
    // feed items meet their pages only through the buckets.
    let inputs = [s(&warc), s(&feeds)];
    let tmp = tempfile::tempdir().unwrap();
    let (single, work, out) = (
        tmp.path().join("single"),
        tmp.path().join("work"),
        tmp.path().join("out"),
    );
    let mut run_args = vec!["run"];
    run_args.extend_from_slice(&inputs);
    run_args.extend_from_slice(&["--out", s(&single), "--signifiers", "feeds"]);
    ok(canopy(&run_args));
    assert!(
        !has_work_folder(&single),
        "run's temporary work folder is removed"
    );

    let buckets = 5;
    for rank in 0..3 {
        ok(partition(&inputs, &work, rank, 3, buckets));
    }
    for bucket in 0..buckets {
        ok(extract(&work, bucket, &out));
    }
    let merged = canopy(&["merge", "--work", s(&work), "--out", s(&out)]);
    ok(merged);

    for file in [
        "articles.jsonl",
        "wrappers.jsonl",
        "rejects.jsonl",
        "stats.json",
    ] {
        let a = common::comparable(&single, file);
        let b = common::comparable(&out, file);
        assert!(
            a == b,
            "{file} differs between run and partition/extract/merge"
        );
    }
    assert_eq!(
        summary_without_time(&single.join("summary.csv")),
        summary_without_time(&out.join("summary.csv"))
    );
    let articles = std::fs::read_to_string(out.join("articles.jsonl")).unwrap();
    assert!(articles.lines().count() > 100);
    assert!(
        articles.contains("\"method\":\"forest-feeds\""),
        "feed items joined their pages across ranks"
    );

    // A finished rank or bucket is not redone: its files stay as they are.
    let marker = work.join("rank-00001.done");
    let bucket_articles = out.join("buckets/bucket-00000/articles.jsonl");
    let before = (
        std::fs::metadata(&marker).unwrap().modified().unwrap(),
        std::fs::metadata(&bucket_articles)
            .unwrap()
            .modified()
            .unwrap(),
    );
    let again = ok(partition(&inputs, &work, 1, 3, buckets));
    assert!(String::from_utf8_lossy(&again.stderr).contains("already done"));
    let again = ok(extract(&work, 0, &out));
    assert!(String::from_utf8_lossy(&again.stderr).contains("already done"));
    let after = (
        std::fs::metadata(&marker).unwrap().modified().unwrap(),
        std::fs::metadata(&bucket_articles)
            .unwrap()
            .modified()
            .unwrap(),
    );
    assert_eq!(before, after);

    // Every rank must be given the same W and B.
    let other = partition(&inputs, &work, 2, 3, buckets + 1);
    assert_eq!(other.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&other.stderr).contains("--buckets"));
}

#[test]
fn extract_and_merge_refuse_an_unfinished_partition() {
    let corpus = big9();
    let feeds = corpus.join("feeds");
    let tmp = tempfile::tempdir().unwrap();
    let (work, out) = (tmp.path().join("work"), tmp.path().join("out"));

    let nothing = extract(&work, 0, &out);
    assert_eq!(nothing.status.code(), Some(2));

    // Ranks 0 and 2 of 3 finish; rank 1 never ran.
    ok(partition(&[s(&feeds)], &work, 0, 3, 4));
    ok(partition(&[s(&feeds)], &work, 2, 3, 4));
    let missing = extract(&work, 0, &out);
    assert_eq!(missing.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&missing.stderr);
    assert!(stderr.contains("rank 1"), "{stderr}");
    assert!(!out.join("buckets/bucket-00000/done.json").exists());

    // With every rank done, a merge before every bucket is extracted fails too.
    ok(partition(&[s(&feeds)], &work, 1, 3, 4));
    ok(extract(&work, 0, &out));
    let early = canopy(&["merge", "--work", s(&work), "--out", s(&out)]);
    assert_eq!(early.status.code(), Some(2));
    assert!(!out.join("articles.jsonl").exists());
}

#[test]
fn run_frees_its_own_work_folder_but_keeps_a_given_one() {
    let warc = big9().join("big9.warc.gz");
    let tmp = tempfile::tempdir().unwrap();
    let (own, given, work) = (
        tmp.path().join("own"),
        tmp.path().join("given"),
        tmp.path().join("work"),
    );
    ok(canopy(&["run", s(&warc), "--out", s(&own)]));
    ok(canopy(&[
        "run",
        s(&warc),
        "--out",
        s(&given),
        "--work",
        s(&work),
    ]));
    // `run` removes each bucket's pages once extracted, but only from its
    // own scratch folder: a given one is kept whole for reruns.
    let pages: Vec<PathBuf> = std::fs::read_dir(&work)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("bucket-")
        })
        .flat_map(|bucket| {
            std::fs::read_dir(bucket)
                .unwrap()
                .map(|e| e.unwrap().path())
        })
        .filter(|f| f.extension().is_some_and(|x| x == "data"))
        .collect();
    assert!(!pages.is_empty(), "the given work folder keeps its pages");
    assert!(!has_work_folder(&own), "run's own work folder is removed");
    for file in [
        "articles.jsonl",
        "wrappers.jsonl",
        "rejects.jsonl",
        "stats.json",
    ] {
        assert!(
            common::comparable(&own, file) == common::comparable(&given, file),
            "{file} differs with a given work folder"
        );
    }
}
