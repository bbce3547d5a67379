//! `canopy page`: one page's article on standard output, the same article
//! `canopy run --method page` writes for that page in a crawl.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};

use common::{bin, canopy, corpus_file, jsonl, manifest};

/// trafbench's first pages by `canopy page FILE --url URL --format json`
/// against the lines of `canopy run --method page` on trafbench's WARC.
#[test]
fn a_page_gets_the_article_a_crawl_gives_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    canopy(&[
        "run".as_ref(),
        corpus_file("trafbench/trafbench.warc.gz").as_os_str(),
        "--method".as_ref(),
        "page".as_ref(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    let articles = jsonl(&out.join("articles.jsonl"));
    let rows = manifest("trafbench");
    let mut compared = 0;
    for row in rows.iter().take(30) {
        let Some(expected) = articles.iter().find(|a| a["url"] == row["url"].as_str()) else {
            continue;
        };
        let html = corpus_file(&format!("trafbench/html/{}.html", row["id"]));
        let output = Command::new(bin())
            .arg("page")
            .arg(&html)
            .args(["--url", &row["url"], "--format", "json"])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", row["id"]);
        let got: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(got["text"], expected["text"], "{}", row["id"]);
        assert_eq!(got["title"], expected["title"], "{}", row["id"]);
        compared += 1;
    }
    assert!(compared >= 25, "only {compared} pages compared");
}

#[test]
fn formats_standard_input_and_a_page_without_an_article() {
    let html = b"<html><head><title>Night crawl</title></head><body><nav><a href='/'>Home</a></nav>\
        <article><h1>Night crawl</h1><p>The crawler wakes at midnight and reads the sites it \
        knows, one after another, until the morning comes and the index is fresh again.</p>\
        <p>It keeps what it read in WARC files, one record per page, for the extractor.</p></article></body></html>";
    let page = |args: &[&str], input: &[u8]| {
        let mut child = Command::new(bin())
            .arg("page")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(input).unwrap();
        let out = child.wait_with_output().unwrap();
        (
            out.status.code().unwrap(),
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    let (code, text, _) = page(&[], html);
    assert_eq!(code, 0);
    assert!(text.starts_with("Night crawl\n"), "{text}");
    assert!(text.contains("reads the sites it knows"), "{text}");
    assert!(!text.contains("Home"), "{text}");
    let (_, md, _) = page(&["--format", "markdown"], html);
    assert!(md.starts_with("# Night crawl"), "{md}");
    let (_, h, _) = page(
        &["--format", "html", "--url", "https://example.org/a"],
        html,
    );
    assert!(h.contains("<p>The crawler wakes"), "{h}");
    let (code, json, _) = page(
        &["--format", "json", "--url", "https://example.org/a"],
        html,
    );
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["site"], "example.org");
    assert_eq!(v["title"], "Night crawl");
    let (code, out, err) = page(&[], b"<html><body></body></html>");
    assert_eq!((code, out.as_str()), (1, ""));
    assert!(err.contains("no article"), "{err}");
    let (code, _, err) = page(&["/no/such/page.html"], b"");
    assert_eq!(code, 2);
    assert!(err.contains("cannot read"), "{err}");
    // Binary bytes (an image saved as a page) are no page, as a WARC
    // response of them is not: no article of mojibake.
    let (code, out, err) = page(&[], &common::noise(4096));
    assert_eq!((code, out.as_str()), (1, ""));
    assert!(err.contains("no article: binary content"), "{err}");
}

/// A page fetched by `canopy page URL` keeps its `Content-Language`, as a
/// crawled record does: a page too short for a sure detection takes the
/// language its server declares.
#[test]
fn a_fetched_page_takes_the_language_its_server_declares() {
    use std::io::{BufRead, BufReader};
    let body = "<!doctype html><html><head><title>Kontakt</title></head><body>\
        <article><h1>Kontakt</h1><p>Tel. 044 123 45 67, Fax 044 123 45 68</p></article>\
        </body></html>";
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/kontakt", listener.local_addr().unwrap());
    let head = |language: &str| {
        format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n{language}\
             Content-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        )
    };
    let answers = [head("Content-Language: de-ch\r\n"), head("")];
    std::thread::spawn(move || {
        for (stream, head) in listener.incoming().zip(answers) {
            let mut stream = stream.unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            while reader.read_line(&mut line).unwrap() > 0 && line != "\r\n" {
                line.clear();
            }
            stream.write_all(head.as_bytes()).unwrap();
            stream.write_all(body.as_bytes()).unwrap();
        }
    });
    let lang = || {
        let out = Command::new(bin())
            .args(["page", &url, "--format", "json"])
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v["lang"].as_str().unwrap().to_string()
    };
    assert_eq!(lang(), "de");
    // The same page without the header: nothing declared, too little text.
    assert_ne!(lang(), "de");
}
