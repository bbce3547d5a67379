//! `canopy run --wet`, `canopy index` and `canopy search` end to end on the
//! dev corpora in `../shared/corpora`.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

mod common;

use canopy_index::{plain_query, ArticleIndex};
use common::{articles, canopy, corpus_file};
use fastwarc::warc::header::WarcHeader;
use fastwarc::warc::iter::{ArchiveIterator, ArchiveIteratorOptions};
use fastwarc::warc::record::WarcRecordType;

/// Runs the pipeline over a corpus's WARC into `out`, with a WET file.
fn run_with_wet(corpus: &Path, out: &Path, wet: &Path, threads: &str) {
    let name = corpus.file_name().unwrap().to_str().unwrap();
    let warc = corpus.join(format!("{name}.warc.gz"));
    canopy(&[
        "run".as_ref(),
        warc.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
        "--wet".as_ref(),
        wet.as_os_str(),
        "--threads".as_ref(),
        threads.as_ref(),
    ]);
}

/// (type, target URI, refers-to, date, text) of every record, digests verified.
fn read_wet(path: &Path) -> Vec<(WarcRecordType, String, String, String, String)> {
    let options = ArchiveIteratorOptions {
        parse_http: false,
        ..ArchiveIteratorOptions::default()
    };
    let mut out = Vec::new();
    let reader = BufReader::new(File::open(path).unwrap());
    for item in ArchiveIterator::with_options(reader, options) {
        let shared = item.unwrap();
        let mut record = shared.borrow_mut();
        assert!(record.verify_block_digest(false).unwrap());
        let header = |h: WarcHeader| {
            record
                .headers()
                .get(h)
                .map(|v| v.into_owned())
                .unwrap_or_default()
        };
        let (uri, refers, date) = (
            header(WarcHeader::WarcTargetUri),
            header(WarcHeader::WarcRefersTo),
            header(WarcHeader::WarcDate),
        );
        let mut text = String::new();
        record
            .reader_mut()
            .unwrap()
            .read_to_string(&mut text)
            .unwrap();
        out.push((record.record_type(), uri, refers, date, text));
    }
    out
}

#[test]
fn wet_matches_articles_and_is_byte_identical_across_thread_counts() {
    let dir = tempfile::tempdir().unwrap();
    let big9 = corpus_file("big9");
    let (one, two) = (dir.path().join("t1"), dir.path().join("t2"));
    run_with_wet(&big9, &one, &one.join("big9.warc.gz"), "1");
    run_with_wet(&big9, &two, &two.join("big9.warc.gz"), "2");
    let bytes = std::fs::read(one.join("big9.warc.gz")).unwrap();
    assert_eq!(bytes, std::fs::read(two.join("big9.warc.gz")).unwrap());

    let articles = articles(&one);
    assert_eq!(articles.len(), 200);
    let records = read_wet(&one.join("big9.warc.gz"));
    assert_eq!(records.len(), articles.len() + 1);
    assert_eq!(records[0].0, WarcRecordType::WarcInfo);
    for ((kind, uri, refers, date, text), article) in records[1..].iter().zip(&articles) {
        // big9's responses are dated 2005-06-01..2017-06-01.
        assert!(date.starts_with("20") && date.ends_with('Z'), "{date}");
        assert_eq!(*kind, WarcRecordType::Conversion);
        assert_eq!(uri, article["url"].as_str().unwrap());
        assert_eq!(refers, article["record_id"].as_str().unwrap());
        assert_eq!(text, article["text"].as_str().unwrap());
    }
}

#[test]
fn invalid_source_dates_get_the_warcinfo_date() {
    // ClueWeb09 dates such as 2008-10-294T05:21:46-0700 are not ISO 8601.
    let warc = corpus_file("warc/resiliparse").join("clueweb-quirk.warc.gz");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let wet = out.join("quirk.warc");
    canopy(&[
        "run".as_ref(),
        warc.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
        "--wet".as_ref(),
        wet.as_os_str(),
    ]);
    let records = read_wet(&wet);
    assert_eq!(records.len(), articles(&out).len() + 1);
    assert!(records.len() > 20);
    for record in &records {
        assert_eq!(record.3, "1970-01-01T00:00:00Z");
    }
}

/// The gold title (first line of the gold text) of each page, by record id.
fn gold_titles(corpus: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(corpus.join("manifest.tsv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (rid, gold) = (col("record_id"), col("gold"));
    lines
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            let gold = std::fs::read_to_string(corpus.join(f[gold])).ok()?;
            let title = gold.lines().next()?.trim().to_string();
            (!title.is_empty()).then(|| (f[rid].to_string(), title))
        })
        .collect()
}

/// Whether a gold first line reads as a title: at least four words that are
/// not numbers (dragnet's gold often starts with a dateline such as
/// "July 24, 2012 12:11 AM", which names no article).
fn title_like(line: &str) -> bool {
    plain_query(line)
        .split_whitespace()
        .filter(|w| !w.chars().all(|c| c.is_numeric()))
        .count()
        >= 4
}

/// Gold first lines whose article is the first hit when the line is the
/// (plain) query, out of how many: all first lines, then the title-like ones.
fn first_hits(name: &str, dir: &Path) -> [(usize, usize); 2] {
    let corpus = corpus_file(name);
    let out = dir.join(name);
    run_with_wet(&corpus, &out, &out.join("wet.warc.gz"), "2");
    let index_dir = dir.join(format!("{name}-index"));
    canopy(&[
        "index".as_ref(),
        out.join("articles.jsonl").as_os_str(),
        "--out".as_ref(),
        index_dir.as_os_str(),
    ]);
    let index = ArticleIndex::open(&index_dir).unwrap();
    let indexed: HashMap<String, ()> = articles(&out)
        .iter()
        .map(|a| (a["record_id"].as_str().unwrap().to_string(), ()))
        .collect();
    assert_eq!(index.len() as usize, indexed.len());
    let mut counts = [(0, 0); 2];
    for (record_id, title) in &gold_titles(&corpus) {
        let (hits, _) = index.search(&plain_query(title), 1).unwrap();
        let first = usize::from(hits.first().is_some_and(|h| &h.record_id == record_id));
        counts[0].0 += first;
        counts[0].1 += 1;
        if title_like(title) {
            counts[1].0 += first;
            counts[1].1 += 1;
        }
    }
    counts
}

#[test]
fn gold_titles_find_their_article_first() {
    let dir = tempfile::tempdir().unwrap();
    // Bars at the measured shares (docs/usage.md, "Searching the articles"), rounded down.
    for (name, bars) in [("big9", [0.99, 0.99]), ("dragnet", [0.74, 0.93])] {
        let counts = first_hits(name, dir.path());
        for ((first, total), (bar, what)) in
            counts.iter().zip(bars.iter().zip(["all", "title-like"]))
        {
            let share = *first as f64 / *total as f64;
            eprintln!("{name}: {first} of {total} gold first lines ({what}) find their article first ({share:.3})");
            assert!(share >= *bar, "{name} ({what}): {share:.3} < {bar}");
        }
    }
}

#[test]
fn search_prints_hits_with_snippets() {
    let dir = tempfile::tempdir().unwrap();
    let big9 = corpus_file("big9");
    let out = dir.path().join("big9");
    run_with_wet(&big9, &out, &out.join("wet.warc.gz"), "2");
    let index_dir = dir.path().join("index");
    canopy(&[
        "index".as_ref(),
        out.join("articles.jsonl").as_os_str(),
        "--out".as_ref(),
        index_dir.as_os_str(),
    ]);
    // The title of big9's first page, as a query: the stemmed words are found.
    let (_, title) = gold_titles(&big9).into_iter().next().unwrap();
    let output = canopy(&[
        "search".as_ref(),
        index_dir.as_os_str(),
        title.as_ref(),
        "--limit".as_ref(),
        "3".as_ref(),
    ]);
    let stdout = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 9, "{stdout}");
    assert!(lines[0].starts_with("1. "), "{stdout}");
    assert!(lines[1].trim_start().starts_with("http"), "{stdout}");
    assert!(lines[2].contains("**"), "{stdout}");
}
