//! Wrapper reuse across crawls on big9's template years: wrappers learned
//! on one year's pages, applied to the same year and to the next.

mod years;

use std::collections::BTreeMap;
use std::path::Path;

use tempfile::TempDir;
use years::{
    canopy, jsonl, mean_f1, status_counts, summary, xpaths_by_site, year_gold, year_warc, YEARS,
};

fn bin() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_canopy"))
}

/// `canopy run` on one year, no saved wrappers.
fn fresh(year: &str) -> TempDir {
    let out = tempfile::tempdir().unwrap();
    canopy(
        bin(),
        &["run", year_warc(year).to_str().unwrap()],
        out.path(),
    );
    out
}

/// `canopy run YEAR --wrappers SAVED/wrappers.jsonl`.
fn reuse(year: &str, saved: &Path, extra: &[&str]) -> TempDir {
    let out = tempfile::tempdir().unwrap();
    let wrappers = saved.join("wrappers.jsonl");
    let warc = year_warc(year);
    let mut args = vec![
        "run",
        warc.to_str().unwrap(),
        "--wrappers",
        wrappers.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    canopy(bin(), &args, out.path());
    out
}

/// The lines of a wrappers file, by site.
fn saved_lines_by_site(text: &str) -> BTreeMap<String, Vec<&str>> {
    let mut by_site: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for line in text.lines() {
        let w: serde_json::Value = serde_json::from_str(line).unwrap();
        by_site
            .entry(w["site"].as_str().unwrap().to_string())
            .or_default()
            .push(line);
    }
    by_site
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn same_year_reuses_every_wrapper_and_keeps_the_output() {
    for year in YEARS {
        let learned = fresh(year);
        let again = reuse(year, learned.path(), &[]);
        let fresh_rows = summary(learned.path());
        let rows = summary(again.path());
        assert_eq!(rows.len(), fresh_rows.len(), "{year}: same clusters");
        for (f, r) in fresh_rows.iter().zip(&rows) {
            assert_eq!(f.cluster, r.cluster);
            // Every cluster that had a wrapper reuses it; the single pages
            // that had none still have none.
            let expected = if f.status == "new" { "reused" } else { "none" };
            assert_eq!(r.status, expected, "{year} {}", r.cluster);
        }
        let gold = year_gold(year);
        let (f1_fresh, f1_reuse) = (mean_f1(learned.path(), &gold), mean_f1(again.path(), &gold));
        assert!(
            (f1_fresh - f1_reuse).abs() <= 0.01,
            "{year}: F1 {f1_reuse:.4} reused vs {f1_fresh:.4} fresh"
        );
        // Reused wrappers are written back as they were saved.
        assert!(
            read(&again.path().join("wrappers.jsonl"))
                == read(&learned.path().join("wrappers.jsonl")),
            "{year}: wrappers.jsonl differs"
        );
    }
}

#[test]
fn next_year_detects_drift_relearns_and_carries_unseen_sites_over() {
    for pair in YEARS.windows(2) {
        let (learn_year, next_year) = (pair[0], pair[1]);
        let learned = fresh(learn_year);
        let next_fresh = fresh(next_year);
        let next = reuse(next_year, learned.path(), &[]);

        let saved_xpaths = xpaths_by_site(learned.path());
        let fresh_xpaths = xpaths_by_site(next_fresh.path());
        for row in summary(next.path()) {
            if row.pages < 2 {
                continue;
            }
            let expected = match saved_xpaths.get(&row.site) {
                None => "new",
                // The template changed: the wrapper learned on this year
                // differs from every saved one of the site.
                Some(saved) if fresh_xpaths[&row.site].is_disjoint(saved) => "relearned",
                Some(_) => continue,
            };
            assert_eq!(
                row.status, expected,
                "{learn_year}->{next_year} {}",
                row.cluster
            );
        }
        let counts = status_counts(next.path());
        assert!(
            counts.get("relearned").copied().unwrap_or(0) >= 2,
            "{learn_year}->{next_year}: {counts:?}"
        );

        let gold = year_gold(next_year);
        let (f1_fresh, f1_reuse) = (
            mean_f1(next_fresh.path(), &gold),
            mean_f1(next.path(), &gold),
        );
        assert!(
            (f1_fresh - f1_reuse).abs() <= 0.01,
            "{learn_year}->{next_year}: F1 {f1_reuse:.4} vs {f1_fresh:.4} fresh"
        );

        // Saved wrappers of sites not crawled tonight are kept verbatim;
        // on the crawled sites, tonight's wrappers replace drifted ones.
        let rows = summary(next.path());
        let out = read(&next.path().join("wrappers.jsonl"));
        let out_lines: Vec<&str> = out.lines().collect();
        let saved = read(&learned.path().join("wrappers.jsonl"));
        for (site, lines) in saved_lines_by_site(&saved) {
            let kept = lines.iter().filter(|l| out_lines.contains(l)).count();
            let relearned = rows
                .iter()
                .any(|r| r.site == site && r.status == "relearned");
            if !rows.iter().any(|r| r.site == site) {
                assert_eq!(kept, lines.len(), "{learn_year}->{next_year}: {site}");
            } else if relearned {
                assert!(kept < lines.len(), "{learn_year}->{next_year}: {site}");
            }
        }
        let learned_tonight = jsonl(&next_fresh.path().join("wrappers.jsonl")).len();
        let carried = saved.lines().filter(|l| out_lines.contains(l)).count();
        assert_eq!(out_lines.len(), learned_tonight + carried);
    }
}

#[test]
fn wrappers_apply_extracts_without_learning() {
    let learned = fresh("2009");
    let wrappers = learned.path().join("wrappers.jsonl");
    let apply = |year: &str| {
        let out = tempfile::tempdir().unwrap();
        canopy(
            bin(),
            &[
                "wrappers",
                "apply",
                "--wrappers",
                wrappers.to_str().unwrap(),
                year_warc(year).to_str().unwrap(),
            ],
            out.path(),
        );
        out
    };

    // Same pages: every wrapper applies, same articles as the run that
    // learned them.
    let same = apply("2009");
    assert!(
        read(&same.path().join("articles.jsonl")) == read(&learned.path().join("articles.jsonl")),
        "articles.jsonl differs"
    );
    assert!(
        read(&same.path().join("wrappers.jsonl")) == read(&wrappers),
        "wrappers.jsonl differs"
    );

    // Next year: nothing learned, the drifted clusters go to the fallback.
    let next = apply("2013");
    let counts = status_counts(next.path());
    assert!(!counts.contains_key("new") && !counts.contains_key("relearned"));
    assert!(
        counts.get("drifted").copied().unwrap_or(0) >= 2,
        "{counts:?}"
    );
    let articles = jsonl(&next.path().join("articles.jsonl"));
    assert_eq!(articles.len(), year_gold("2013").len());
    assert!(articles.iter().all(|a| a["wrapper"].is_null()));
    // The saved wrappers are all still there.
    let mut out: Vec<String> = read(&next.path().join("wrappers.jsonl"))
        .lines()
        .map(String::from)
        .collect();
    let mut saved: Vec<String> = read(&wrappers).lines().map(String::from).collect();
    out.sort();
    saved.sort();
    assert!(out == saved, "saved wrappers lost");
}

/// A reused wrapper keeps the decision of the check saved with it: with
/// every saved decision turned to the page-level path, the same pages are
/// all served by the page-level path and the summary says why, although
/// a new check would let the wrappers serve (big9's clusters all agree).
#[test]
fn a_reused_wrapper_keeps_its_saved_check() {
    let learned = fresh("2009");
    let dir = tempfile::tempdir().unwrap();
    let lines: Vec<String> = read(&learned.path().join("wrappers.jsonl"))
        .lines()
        .map(|line| {
            let mut w: serde_json::Value = serde_json::from_str(line).unwrap();
            assert_eq!(w["check"]["decision"], "agree", "{line}");
            w["check"]["decision"] = "page".into();
            w.to_string()
        })
        .collect();
    std::fs::write(dir.path().join("wrappers.jsonl"), lines.join("\n") + "\n").unwrap();
    let again = reuse("2009", dir.path(), &[]);
    let mut reader = csv::Reader::from_path(again.path().join("summary.csv")).unwrap();
    let headers = reader.headers().unwrap().clone();
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let (status, served, check) = (col("wrapper"), col("wrapper_matches"), col("check"));
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    let reused: Vec<&csv::StringRecord> = rows.iter().filter(|r| &r[status] == "reused").collect();
    assert_eq!(reused.len(), lines.len());
    for row in reused {
        assert_eq!((&row[served], &row[check]), ("0", "page"), "{row:?}");
    }
}

#[test]
fn bad_wrapper_lines_are_rejected_and_the_rest_is_used() {
    let learned = fresh("2005");
    let dir = tempfile::tempdir().unwrap();
    let saved = read(&learned.path().join("wrappers.jsonl"));
    let first = saved.lines().next().unwrap();
    let old = first.replacen("\"version\":1", "\"version\":0", 1);
    assert_ne!(old, first);
    std::fs::write(
        dir.path().join("wrappers.jsonl"),
        format!("{{broken\n{old}\n{saved}"),
    )
    .unwrap();
    let out = reuse("2005", dir.path(), &[]);
    let rejects = jsonl(&out.path().join("rejects.jsonl"));
    assert_eq!(rejects.len(), 2, "{rejects:?}");
    assert!(rejects.iter().all(|r| r["stage"] == "wrappers"));
    assert_eq!(rejects[0]["source"]["offset"], 0);
    assert_eq!(rejects[1]["source"]["offset"], 8);
    assert!(rejects[1]["reason"].as_str().unwrap().contains("version 0"));
    assert!(!status_counts(out.path()).contains_key("new"));
}

#[test]
fn reuse_output_is_identical_across_thread_counts() {
    let learned = fresh("2009");
    let a = reuse("2013", learned.path(), &["--threads", "1"]);
    let b = reuse("2013", learned.path(), &["--threads", "2"]);
    for name in ["articles.jsonl", "wrappers.jsonl", "rejects.jsonl"] {
        assert!(
            read(&a.path().join(name)) == read(&b.path().join(name)),
            "{name} differs"
        );
    }
}

#[test]
fn a_template_whose_body_is_named_for_each_page_is_saved_and_reused() {
    // theatlantic.com's three pages on dragnet: one template whose <body id>
    // is each page's own ("theLostBattalionPage"), so no full tag path is on
    // two of them; a template of full paths would be empty, and its line
    // one that `wrappers apply` cannot use.
    let mut warc = Vec::new();
    let corpus = canopy_test_support::corpus_file("dragnet");
    let rows: Vec<_> = canopy_test_support::manifest("dragnet")
        .into_iter()
        .filter(|r| r["site"] == "theatlantic.com")
        .collect();
    assert_eq!(rows.len(), 3);
    for (i, row) in rows.iter().enumerate() {
        let html = std::fs::read(corpus.join(&row["html"])).unwrap();
        let head = "HTTP/1.1 200 OK\nContent-Type: text/html; charset=utf-8\n";
        warc.extend(canopy_test_support::warc_response(
            i as u32,
            &row["url"],
            head,
            &html,
        ));
    }
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("theatlantic.warc");
    std::fs::write(&input, warc).unwrap();
    let input = input.to_str().unwrap();

    let learned = dir.path().join("learned");
    canopy(bin(), &["run", input], &learned);
    let lines = jsonl(&learned.join("wrappers.jsonl"));
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["template_paths"], "own");
    assert!(!lines[0]["template"].as_array().unwrap().is_empty());

    let applied = dir.path().join("applied");
    let wrappers = learned.join("wrappers.jsonl");
    let status = std::process::Command::new(bin())
        .args([
            "wrappers",
            "apply",
            "--wrappers",
            wrappers.to_str().unwrap(),
            input,
        ])
        .args(["--out", applied.to_str().unwrap()])
        .status()
        .unwrap();
    assert_eq!(
        status.code(),
        Some(0),
        "a line was rejected or the run failed"
    );
    assert_eq!(status_counts(&applied)["reused"], 1);
    assert!(
        read(&applied.join("articles.jsonl")) == read(&learned.join("articles.jsonl")),
        "articles.jsonl differs"
    );
    assert!(
        read(&applied.join("wrappers.jsonl")) == read(&wrappers),
        "wrappers.jsonl differs"
    );
}
