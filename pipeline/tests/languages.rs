//! The `lang` of articles (ISO 639-1 over every language whatlang knows,
//! the declared language when detection is unsure) and `--lang`, which
//! keeps the articles of some languages and counts the others (issue #38).

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use canopy_test_support::warc_response;
use common::{corpus_file, run, Run};

/// The sample WARC of 16 Common Crawl pages of as many hosts: Chinese,
/// Russian, Dutch, Swiss German, English.
fn sample_warc() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/warc/warcfile.warc.gz")
}

/// `canopy run` on a WARC of `records`, into a folder of `dir`.
fn run_records(dir: &Path, records: &[Vec<u8>], extra: &[&str]) -> Run {
    let warc = dir.join("in.warc");
    std::fs::write(&warc, records.concat()).unwrap();
    let r = run(&[warc.as_path()], &dir.join("out"), extra);
    assert_eq!(r.code, 0, "{}", r.stderr);
    r
}

/// A trafbench page as the response of `uri`, with `head` as its HTTP head.
fn trafbench_record(id: u32, file: &str, uri: &str, head: &str) -> Vec<u8> {
    let html = std::fs::read(corpus_file(&format!("trafbench/html/{file}"))).unwrap();
    warc_response(id, uri, head, &html)
}

fn langs(r: &Run) -> BTreeMap<String, String> {
    r.articles()
        .iter()
        .map(|a| {
            (
                a["url"].as_str().unwrap().to_string(),
                a["lang"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn the_sample_crawl_gets_a_code_for_every_page() {
    let dir = tempfile::tempdir().unwrap();
    let r = run(&[sample_warc().as_path()], &dir.path().join("out"), &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let langs = langs(&r);
    assert_eq!(langs.len(), 16);
    // A Chinese company page, which the 18 stemmer languages called `und`.
    let chinese = "http://0615235.com/02mjqjo%7Bibotij2.btq?odmbtt=106&tdmbtt=121";
    assert_eq!(
        langs.get(chinese).map(String::as_str),
        Some("zh"),
        "{langs:?}"
    );
    assert_eq!(
        langs.values().filter(|l| *l == "zh").count(),
        11,
        "{langs:?}"
    );
    // Swiss German pages (`Content-Language: de-ch`), which came out `en`.
    for (url, lang) in &langs {
        if url.contains("live-radsport.ch") {
            assert_eq!(lang, "de", "{url}");
        }
    }
    assert!(!langs.values().any(|l| l == "und"), "{langs:?}");
}

#[test]
fn languages_outside_the_stemmer_set_get_their_code() {
    let dir = tempfile::tempdir().unwrap();
    let head = "HTTP/1.1 200 OK\nContent-Type: text/html; charset=utf-8\n";
    // Polish (`<html lang="pl-PL">`; rust-stemmers has no Polish), and a
    // German article on a page whose template says `lang="en"`: a sure
    // detection wins over the declaration.
    let records = [
        trafbench_record(
            1,
            "trafbench-00413.html",
            "https://www.portalspozywczy.pl/a.html",
            head,
        ),
        trafbench_record(
            2,
            "trafbench-00003.html",
            "http://feuerwehrtaucher-oldenburg.de/a.html",
            head,
        ),
    ];
    let r = run_records(dir.path(), &records, &[]);
    let langs = langs(&r);
    assert_eq!(langs["https://www.portalspozywczy.pl/a.html"], "pl");
    assert_eq!(langs["http://feuerwehrtaucher-oldenburg.de/a.html"], "de");
}

#[test]
fn an_unsure_page_takes_its_declared_language() {
    let dir = tempfile::tempdir().unwrap();
    // A short page: too little text for a sure detection.
    let page = |html_attrs: &str, head: &str| {
        format!(
            "<!doctype html><html{html_attrs}><head><title>Kontakt</title>{head}</head>\
             <body><h1>Kontakt</h1><p>Tel. 044 123 45 67</p></body></html>"
        )
    };
    let head = |extra: &str| format!("HTTP/1.1 200 OK\nContent-Type: text/html\n{extra}");
    let records = [
        warc_response(
            1,
            "http://a.example/",
            &head("Content-Language: de-ch\n"),
            page("", "").as_bytes(),
        ),
        // `<html lang>` comes before the header.
        warc_response(
            2,
            "http://b.example/",
            &head("Content-Language: de-ch\n"),
            page(" lang=\"fr\"", "").as_bytes(),
        ),
        // A garbage declaration is no declaration.
        warc_response(
            3,
            "http://c.example/",
            &head("Content-Language: DE_at\n"),
            page(" lang=\"{{lang}}\"", "").as_bytes(),
        ),
        // `<meta http-equiv="Content-Language">` comes before the header.
        warc_response(
            5,
            "http://e.example/",
            &head("Content-Language: en\n"),
            page(
                "",
                "<meta http-equiv=\"Content-Language\" content=\"de-ch\">",
            )
            .as_bytes(),
        ),
        // Nothing declared, and no letters: unknown.
        warc_response(
            4,
            "http://d.example/",
            &head(""),
            b"<html><body><p>044 123 45 67</p></body></html>",
        ),
    ];
    let r = run_records(dir.path(), &records, &[]);
    let langs = langs(&r);
    assert_eq!(langs["http://a.example/"], "de");
    assert_eq!(langs["http://b.example/"], "fr");
    assert_eq!(langs["http://c.example/"], "de");
    assert_eq!(langs["http://d.example/"], "und");
    assert_eq!(langs["http://e.example/"], "de");
}

/// The numbers of the run's records line, and its "left out" part.
fn records_line(r: &Run) -> String {
    r.stderr
        .lines()
        .find_map(|l| {
            l.strip_prefix("canopy: ")
                .filter(|l| l.contains(" records read: "))
        })
        .unwrap_or_else(|| panic!("no records line in {}", r.stderr))
        .to_string()
}

#[test]
fn lang_keeps_the_articles_of_its_languages_and_counts_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let all = run(&[sample_warc().as_path()], &dir.path().join("all"), &[]);
    let en = run(
        &[sample_warc().as_path()],
        &dir.path().join("en"),
        &["--lang", "EN"],
    );
    assert_eq!((all.code, en.code), (0, 0), "{}", en.stderr);
    let kept = en.articles();
    assert!(!kept.is_empty() && kept.iter().all(|a| a["lang"] == "en"));
    let want: Vec<_> = all
        .articles()
        .into_iter()
        .filter(|a| a["lang"] == "en")
        .collect();
    assert_eq!(kept, want);
    // The others are counted by language, and the records add up.
    let line = records_line(&en);
    assert!(
        line.ends_with(", 15 left out by language (zh 11, de 2, nl 1, ru 1)"),
        "{line}"
    );
    assert!(line.contains(" 1 articles,"), "{line}");
    assert!(
        en.stderr.contains("rejected, 15 left out by language"),
        "{}",
        en.stderr
    );
    // Filtered pages still take part in learning: the same wrappers.
    assert_eq!(all.file("wrappers.jsonl"), en.file("wrappers.jsonl"));
    assert_eq!(all.file("summary.csv"), en.file("summary.csv"));
    // Several languages, and `und`; the config key does the same.
    let two = run(
        &[sample_warc().as_path()],
        &dir.path().join("two"),
        &["--lang", "ru,nl", "--lang", "und"],
    );
    let config = dir.path().join("c.toml");
    std::fs::write(&config, "[run]\nlanguages = [\"nl\", \"ru-RU\"]\n").unwrap();
    let conf = run(
        &[sample_warc().as_path()],
        &dir.path().join("conf"),
        &["--config", config.to_str().unwrap()],
    );
    for r in [&two, &conf] {
        let mut langs: Vec<String> = langs(r).into_values().collect();
        langs.sort();
        assert_eq!(langs, ["nl", "ru"], "{}", r.stderr);
    }
    // Not a language: bad usage.
    let bad = run(
        &[sample_warc().as_path()],
        &dir.path().join("bad"),
        &["--lang", "english"],
    );
    assert_eq!(bad.code, 2);
    assert!(
        bad.stderr.contains("\"english\" is not an ISO 639-1 code"),
        "{}",
        bad.stderr
    );
}

#[test]
fn extract_takes_lang_as_run_does() {
    let dir = tempfile::tempdir().unwrap();
    let (work, out) = (dir.path().join("work"), dir.path().join("out"));
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let warc = s(&sample_warc());
    common::canopy(&[
        "partition",
        &warc,
        "--work",
        &s(&work),
        "--rank",
        "0",
        "--world-size",
        "1",
        "--buckets",
        "1",
    ]);
    let extracted = common::canopy(&[
        "extract",
        "--work",
        &s(&work),
        "--bucket",
        "0",
        "--out",
        &s(&out),
        "--lang",
        "zh",
    ]);
    let stderr = String::from_utf8_lossy(&extracted.stderr);
    assert!(
        stderr.contains(", 5 left out by language (de 2, en 1, nl 1, ru 1)"),
        "{stderr}"
    );
    let merged = common::canopy(&["merge", "--work", &s(&work), "--out", &s(&out)]);
    let stderr = String::from_utf8_lossy(&merged.stderr);
    assert!(stderr.contains(" 11 articles,"), "{stderr}");
    assert!(stderr.contains("5 left out by language"), "{stderr}");
    let articles = common::articles(&out);
    assert_eq!(articles.len(), 11);
    assert!(articles.iter().all(|a| a["lang"] == "zh"));
}

#[test]
fn lang_filters_a_large_sites_spilled_articles_too() {
    // 29 Japanese pages of one shop; held 5 at a time, their articles wait
    // in a temporary file (`run.max_resident_pages`).
    let warc = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/warc/clueweb-quirk.warc.gz");
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("c.toml");
    std::fs::write(&config, "[run]\nmax_resident_pages = 5\n").unwrap();
    let config = config.to_str().unwrap();
    let ja = run(
        &[warc.as_path()],
        &dir.path().join("ja"),
        &["--config", config, "--lang", "ja"],
    );
    let en = run(
        &[warc.as_path()],
        &dir.path().join("en"),
        &["--config", config, "--lang", "en"],
    );
    assert_eq!((ja.code, en.code), (0, 0), "{}", en.stderr);
    assert_eq!(ja.articles().len(), 29);
    assert!(ja.articles().iter().all(|a| a["lang"] == "ja"));
    assert!(en.articles().is_empty());
    let line = records_line(&en);
    assert!(line.contains(" 0 articles,"), "{line}");
    assert!(
        line.ends_with(", 29 left out by language (ja 29)"),
        "{line}"
    );
    assert_eq!(ja.file("wrappers.jsonl"), en.file("wrappers.jsonl"));
}
