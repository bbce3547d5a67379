//! The library API on the dev corpora (`../shared/corpora`): each call
//! gives what `canopy run` writes for the same pages.

use std::collections::BTreeMap;
use std::path::Path;

use canopy::{Event, PageRecord, RunRequest, Settings};
use canopy_test_support::{corpus_file, jsonl};

/// A corpus's pages as `read_warc` yields them, in file order.
fn pages(warc: &Path, settings: &Settings) -> Vec<PageRecord> {
    canopy::read_warc(warc, settings)
        .unwrap()
        .filter_map(|event| match event {
            Event::Page(page) => Some(page),
            _ => None,
        })
        .collect()
}

/// `canopy::run` on `warc` into a temporary folder: its output files' lines.
fn run_lines(warc: &Path, settings: &Settings) -> BTreeMap<&'static str, Vec<String>> {
    let out = tempfile::tempdir().unwrap();
    let request = RunRequest {
        inputs: vec![warc.to_path_buf()],
        out: out.path().join("out"),
        ..RunRequest::default()
    };
    canopy::run(&request, settings, &canopy::Progress::hidden()).unwrap();
    ["articles.jsonl", "wrappers.jsonl", "duplicates.jsonl"]
        .into_iter()
        .map(|name| {
            let text = std::fs::read_to_string(out.path().join("out").join(name)).unwrap();
            (name, text.lines().map(str::to_string).collect())
        })
        .collect()
}

/// Every site of `corpus` through `extract_site`, its pages grouped by
/// `site_key` in read order, gives the lines `run` writes, in its order.
fn extract_site_equals_run(corpus: &str) {
    let warc = corpus_file(&format!("{corpus}/{corpus}.warc.gz"));
    let settings = Settings::default();
    let mut sites: BTreeMap<String, Vec<PageRecord>> = BTreeMap::new();
    for page in pages(&warc, &settings) {
        sites
            .entry(canopy::site_key(&page.url))
            .or_default()
            .push(page);
    }
    let mut got: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for (_, records) in sites {
        let result = canopy::extract_site(records, &settings).unwrap();
        got.entry("articles.jsonl").or_default().extend(
            result
                .articles
                .iter()
                .map(|a| serde_json::to_string(a).unwrap()),
        );
        got.entry("wrappers.jsonl").or_default().extend(
            result
                .wrappers
                .iter()
                .map(|w| serde_json::to_string(w).unwrap()),
        );
        got.entry("duplicates.jsonl").or_default().extend(
            result
                .duplicates
                .iter()
                .map(|d| serde_json::to_string(d).unwrap()),
        );
    }
    let want = run_lines(&warc, &settings);
    for (name, lines) in &want {
        let got = &got[name];
        assert_eq!(got.len(), lines.len(), "{corpus} {name}: line count");
        for (g, w) in got.iter().zip(lines) {
            assert_eq!(g, w, "{corpus} {name}");
        }
    }
    assert!(!want["articles.jsonl"].is_empty() && !want["wrappers.jsonl"].is_empty());
}

#[test]
fn extract_site_equals_run_on_big9() {
    extract_site_equals_run("big9");
}

#[test]
fn extract_site_equals_run_on_dragnet() {
    extract_site_equals_run("dragnet");
}

/// `extract_page` gives what a run gives a site of one page: on
/// trafbench, one page per site, every article of the run.
#[test]
fn extract_page_equals_run_on_single_page_sites() {
    let warc = corpus_file("trafbench/trafbench.warc.gz");
    let settings = Settings::default();
    let run: BTreeMap<String, serde_json::Value> = {
        let out = tempfile::tempdir().unwrap();
        let request = RunRequest {
            inputs: vec![warc.clone()],
            out: out.path().join("out"),
            ..RunRequest::default()
        };
        canopy::run(&request, &settings, &canopy::Progress::hidden()).unwrap();
        jsonl(&out.path().join("out/articles.jsonl"))
            .into_iter()
            .map(|a| (a["record_id"].as_str().unwrap().to_string(), a))
            .collect()
    };
    let mut compared = 0;
    for page in pages(&warc, &settings).into_iter().take(60) {
        let id = page.record_id.clone();
        match canopy::extract_page(page, &settings) {
            Ok(article) => {
                assert_eq!(serde_json::to_value(&article).unwrap(), run[&id], "{id}");
                compared += 1;
            }
            Err(reject) => assert!(!run.contains_key(&id), "{id}: {}", reject.reason),
        }
    }
    assert!(compared > 50, "{compared}");
}

/// Saved wrappers applied to each site's pages give what `canopy
/// wrappers apply` writes; applied to single pages, the saved wrappers
/// still serve them.
#[test]
fn saved_wrappers_apply_as_wrappers_apply() {
    let warc = corpus_file("big9/big9.warc.gz");
    let settings = Settings::default();
    let out = tempfile::tempdir().unwrap();
    let learn = RunRequest {
        inputs: vec![warc.clone()],
        out: out.path().join("learned"),
        ..RunRequest::default()
    };
    canopy::run(&learn, &settings, &canopy::Progress::hidden()).unwrap();
    let saved = out.path().join("learned/wrappers.jsonl");
    let apply = RunRequest {
        inputs: vec![warc.clone()],
        out: out.path().join("applied"),
        wrappers: Some(saved.clone()),
        apply_only: true,
        ..RunRequest::default()
    };
    canopy::run(&apply, &settings, &canopy::Progress::hidden()).unwrap();
    let want: Vec<serde_json::Value> = jsonl(&out.path().join("applied/articles.jsonl"));

    let wrappers = canopy::Wrappers::load(&saved, &settings).unwrap();
    assert!(wrappers.rejects().is_empty());
    let mut sites: BTreeMap<String, Vec<PageRecord>> = BTreeMap::new();
    for page in pages(&warc, &settings) {
        sites
            .entry(canopy::site_key(&page.url))
            .or_default()
            .push(page.clone());
    }
    let mut got = Vec::new();
    let mut alone_by_wrapper = 0;
    for (_, records) in sites {
        for page in records.iter().step_by(10) {
            let article = wrappers.apply(page.clone()).unwrap();
            alone_by_wrapper += usize::from(article.wrapper.is_some());
        }
        let result = wrappers.apply_site(records).unwrap();
        got.extend(
            result
                .articles
                .iter()
                .map(|a| serde_json::to_value(a).unwrap()),
        );
    }
    assert_eq!(got, want);
    assert!(want.iter().filter(|a| !a["wrapper"].is_null()).count() > 150);
    assert!(
        alone_by_wrapper >= 15,
        "{alone_by_wrapper} single pages by a saved wrapper"
    );
}

/// Bad input is a reject with its reason, never a panic.
#[test]
fn hostile_pages_are_rejects_or_articles() {
    let settings = Settings::default();
    let mut deep = "<div>".repeat(100_000);
    deep.push_str("deep text");
    let inputs: Vec<(&str, Vec<u8>)> = vec![
        ("https://example.org/empty", Vec::new()),
        (
            "https://example.org/binary",
            (0..=255u8).cycle().take(100_000).collect(),
        ),
        ("https://example.org/deep", deep.into_bytes()),
        ("not a url", b"<p>text</p>".to_vec()),
    ];
    for (url, html) in inputs {
        match canopy::page_record(url, &html, None).and_then(|r| canopy::extract_page(r, &settings))
        {
            Ok(article) => assert!(!article.text.trim().is_empty()),
            Err(reject) => assert!(!reject.reason.is_empty(), "{url}"),
        }
    }
}

/// The pages bar of a run goes from 0 to the number of pages the partition
/// found, which it knows before the first bucket: every page ends as an
/// article or a duplicate here. Run again on the kept work folder, whose
/// buckets are done, it goes the same way.
#[test]
fn the_pages_bar_ends_at_its_length() {
    let work = tempfile::tempdir().unwrap();
    let request = RunRequest {
        inputs: vec![corpus_file("warc")],
        out: work.path().join("out"),
        work: Some(work.path().join("work")),
        ..RunRequest::default()
    };
    for _ in 0..2 {
        let progress = canopy::Progress::hidden();
        let report = canopy::run(&request, &Settings::default(), &progress).unwrap();
        let pages = report.stats.articles + report.stats.duplicates;
        assert!(report.stats.duplicates > 0 && report.stats.rejects > 0);
        assert_eq!(progress.pages.length(), Some(pages));
        assert_eq!(progress.pages.position(), pages);
    }
}
