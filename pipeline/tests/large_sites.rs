//! A site of more than `run.max_resident_pages` pages is not held parsed
//! whole: its parsed pages wait in a temporary file and are read back as
//! each step needs them (crates/site/src/pages.rs). Run on big9 with that
//! bound set below its sites' sizes, it must give what holding them gives.

use std::ffi::OsStr;
use std::io::Read;
use std::path::Path;
use std::process::Output;

mod common;
use common::{articles, canopy, corpora};

/// `canopy run` of `inputs` into `out` with `settings` (a config file's
/// text), two threads and the `extra` arguments.
fn run_with(inputs: &[&Path], out: &Path, settings: &str, extra: &[&str]) -> Output {
    let config = out.with_extension("toml");
    std::fs::write(&config, settings).unwrap();
    let mut args: Vec<&OsStr> = vec!["run".as_ref()];
    args.extend(inputs.iter().map(|p| p.as_os_str()));
    args.extend([
        "--out".as_ref(),
        out.as_os_str(),
        "--config".as_ref(),
        config.as_os_str(),
        "--threads".as_ref(),
        "2".as_ref(),
    ]);
    args.extend(extra.iter().map(OsStr::new));
    canopy(&args)
}

/// `canopy run` of big9's WARC and feeds into `out` with `settings`, with
/// HTML renderings.
fn run_big9(out: &Path, settings: &str) {
    let big9 = corpora().join("big9");
    let inputs = [&*big9.join("big9.warc.gz"), &*big9.join("feeds")];
    run_with(&inputs, out, settings, &["--format", "html"]);
}

fn read(out: &Path, file: &str) -> String {
    std::fs::read_to_string(out.join(file)).unwrap()
}

/// Each wrapper line's cluster and XPath.
fn xpaths(out: &Path) -> Vec<(String, String)> {
    common::jsonl(&out.join("wrappers.jsonl"))
        .iter()
        .map(|w| (w["cluster"].to_string(), w["xpath"].to_string()))
        .collect()
}

#[test]
fn sites_on_disk_give_the_files_of_sites_held_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let held = tmp.path().join("held");
    let spilled = tmp.path().join("spilled");
    run_big9(&held, "[run]\nmax_resident_pages = 0\n");
    // Most of big9's pages are on sites of more than 10 pages, and no
    // cluster has more than 10, the learning sample's size here (at most
    // `run.max_resident_pages`): each cluster learns from the same pages,
    // read back from disk, and the outputs are the same bytes.
    run_big9(&spilled, "[run]\nmax_resident_pages = 10\n");
    for file in [
        "articles.jsonl",
        "wrappers.jsonl",
        "rejects.jsonl",
        "summary.csv",
    ] {
        assert!(
            read(&held, file) == read(&spilled, file),
            "{file} differs when the sites' pages wait on disk"
        );
    }
    assert!(articles(&spilled).len() > 100);
}

#[test]
fn a_cluster_larger_than_its_sample_is_extracted_a_chunk_at_a_time() {
    let tmp = tempfile::tempdir().unwrap();
    let held = tmp.path().join("held");
    let spilled = tmp.path().join("spilled");
    // Clusters of more than 4 pages learn from 4: the same 4 pages whether
    // the site is held or on disk, so the same wrappers. On disk, the rest
    // of the cluster is read back for its articles, and
    // template residue is learned on the 4 pages rather than on all.
    run_big9(
        &held,
        "[run]\nmax_resident_pages = 0\n[forest]\nmax_learn_pages = 4\n",
    );
    run_big9(
        &spilled,
        "[run]\nmax_resident_pages = 5\n[forest]\nmax_learn_pages = 4\n",
    );
    assert_eq!(xpaths(&held), xpaths(&spilled));
    assert!(!xpaths(&spilled).is_empty());
    // The same clusters (whether a page is served by the wrapper may
    // differ: its text is cleaned with the sample's residue), and an
    // article for every page.
    let clusters = |out: &Path| -> Vec<String> {
        read(out, "summary.csv")
            .lines()
            .map(|l| l.split(',').take(3).collect::<Vec<_>>().join(","))
            .collect()
    };
    assert_eq!(clusters(&held), clusters(&spilled));
    let urls = |out: &Path| -> Vec<String> {
        articles(out)
            .iter()
            .map(|a| a["url"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(urls(&held), urls(&spilled));
    // Most articles are the same text; those that differ differ by what
    // the smaller residue sample kept or dropped.
    let same = articles(&held)
        .iter()
        .zip(articles(&spilled))
        .filter(|(a, b)| a["text"] == b["text"])
        .count();
    assert!(
        same * 2 > articles(&held).len(),
        "{same} articles of {} the same",
        articles(&held).len()
    );
}

/// big9's WARC, uncompressed, with every page moved to the one site
/// `one.example` (`http://host/x` -> `http://one.example/host/x`): a site of
/// 200 pages. Only the WARC headers change, so every record's
/// Content-Length stays right.
fn big9_as_one_site(out: &Path) {
    let mut raw = Vec::new();
    let gz = std::fs::File::open(corpora().join("big9/big9.warc.gz")).unwrap();
    flate2::read::MultiGzDecoder::new(gz)
        .read_to_end(&mut raw)
        .unwrap();
    const URI: &[u8] = b"\r\nWARC-Target-URI: ";
    let find = |hay: &[u8], needle: &[u8]| hay.windows(needle.len()).position(|w| w == needle);
    let mut one = Vec::with_capacity(raw.len() + (1 << 16));
    let mut rest = &raw[..];
    let mut moved = 0;
    while let Some(at) = find(rest, URI) {
        let scheme = at + URI.len();
        let host = scheme + find(&rest[scheme..], b"://").unwrap() + 3;
        one.extend_from_slice(&rest[..host]);
        one.extend_from_slice(b"one.example/");
        rest = &rest[host..];
        moved += 1;
    }
    one.extend_from_slice(rest);
    assert!(moved >= 200, "{moved} URIs rewritten");
    std::fs::write(out, one).unwrap();
}

#[test]
fn a_large_site_writes_its_articles_through_a_temporary_file() {
    let tmp = tempfile::tempdir().unwrap();
    let warc = tmp.path().join("one.warc");
    big9_as_one_site(&warc);
    // WLR reads no sibling pages, so a large site must give the same bytes
    // as one held. Its one cluster of 200 pages is read back in two chunks
    // (128 pages a chunk) and, with HTML and Markdown renderings, its
    // articles take about 3 MB: several segments of the file.
    let run = |name: &str, bound: usize| {
        let out = tmp.path().join(name);
        let settings = format!("[run]\nmax_resident_pages = {bound}\n");
        let extra = ["--method", "wlr", "--format", "html,markdown"];
        let done = run_with(&[&warc], &out, &settings, &extra);
        // The counts of the run's summary: "…(N pages/s): <counts>", and
        // the records line after it.
        let stderr = String::from_utf8(done.stderr).unwrap();
        let summary = stderr.lines().find(|l| l.contains(" pages/s): ")).unwrap();
        let counts = summary.split("): ").nth(1).unwrap();
        let records = stderr.lines().last().unwrap();
        (out, format!("{counts}\n{records}"))
    };
    let (held, held_counts) = run("held", 0);
    let (spilled, spilled_counts) = run("spilled", 100);
    for file in ["articles.jsonl", "summary.csv", "rejects.jsonl"] {
        assert!(
            read(&held, file) == read(&spilled, file),
            "{file} differs when the site's articles go through a file"
        );
    }
    assert_eq!(held_counts, spilled_counts);
    assert_eq!(articles(&spilled).len(), 200);
    assert!(read(&spilled, "articles.jsonl").len() > 1 << 21);
}
