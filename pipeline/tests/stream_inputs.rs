//! Inputs that are not local files named one by one: a WARC stream on
//! standard input, http(s) URLs (served here by a local server that drops
//! connections), input lists, and folders whose files are known by their
//! content. Each run must write the articles a run on the local file
//! writes, but for their `source`, which names what the run read.

mod common;

use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use common::{bin, canopy, corpus_file, jsonl};
use serde_json::Value;

fn big9() -> PathBuf {
    corpus_file("big9/big9.warc.gz")
}

/// The articles of a run in `out`, each without its `source`, and their
/// sources in the same order.
fn articles_and_sources(out: &Path) -> (Vec<Value>, Vec<Value>) {
    jsonl(&out.join("articles.jsonl"))
        .into_iter()
        .map(|mut a| {
            let source = a.as_object_mut().unwrap().remove("source").unwrap();
            (a, source)
        })
        .unzip()
}

/// `canopy run` on the local file: what every other way of reading it
/// must give (its articles without `source`, and their sources).
fn reference(dir: &Path) -> (Vec<Value>, Vec<Value>) {
    let out = dir.join("reference");
    canopy(&[
        "run".as_ref(),
        big9().as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    articles_and_sources(&out)
}

/// That the run in `out` gave the `expected` articles, each read from
/// `file`: at the reference's offsets when the bytes read were the
/// file's (`same_bytes`), else at offsets of their own.
fn check_read_from(out: &Path, expected: &(Vec<Value>, Vec<Value>), file: &str, same_bytes: bool) {
    let (articles, sources) = articles_and_sources(out);
    assert!(articles == expected.0, "{file}: other articles");
    for (source, reference) in sources.iter().zip(&expected.1) {
        assert_eq!(source["file"], file, "{source}");
        assert!(source["offset"].is_u64(), "{source}");
        if same_bytes {
            assert_eq!(source["offset"], reference["offset"], "{source}");
        }
    }
}

/// How the local server misbehaves.
#[derive(Clone, Copy)]
enum Serve {
    /// Every answer stops after this many bytes of the body (and closes the
    /// connection), though its `Content-Length` says the whole; ranges are
    /// honoured.
    DropEvery(usize),
    /// The first answer stops half way; a range is answered with the
    /// whole body again (`200`).
    NoRanges,
}

/// Serves `body` at every path but `/missing` on a local port; the number
/// of requests it answered.
fn serve(body: Vec<u8>, how: Serve) -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let requests = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&requests);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            count.fetch_add(1, Ordering::SeqCst);
            let _ = answer(stream, &body, how);
        }
    });
    (base, requests)
}

fn answer(mut stream: TcpStream, body: &[u8], how: Serve) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let path = line.split_whitespace().nth(1).unwrap_or("/").to_string();
    let mut from = 0usize;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 || header.trim().is_empty() {
            break;
        }
        let lower = header.to_ascii_lowercase();
        if let Some(range) = lower.strip_prefix("range: bytes=") {
            from = range.trim().trim_end_matches('-').parse().unwrap_or(0);
        }
    }
    if path == "/missing" {
        return stream.write_all(
            b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        );
    }
    let (status, from) = match how {
        Serve::NoRanges => ("200 OK", 0),
        Serve::DropEvery(_) if from > 0 => ("206 Partial Content", from),
        Serve::DropEvery(_) => ("200 OK", 0),
    };
    let rest = &body[from..];
    let mut head = format!(
        "HTTP/1.1 {status}\r\nContent-Length: {}\r\nContent-Type: application/warc\r\nConnection: close\r\n",
        rest.len()
    );
    if from > 0 {
        head += &format!(
            "Content-Range: bytes {from}-{}/{}\r\n",
            body.len() - 1,
            body.len()
        );
    }
    head += "\r\n";
    stream.write_all(head.as_bytes())?;
    let cut = match how {
        Serve::DropEvery(n) => n.min(rest.len()),
        Serve::NoRanges => rest.len() / 2,
    };
    stream.write_all(&rest[..cut])?;
    stream.flush()
    // Dropped here: the connection closes, short of its Content-Length.
}

#[test]
fn a_warc_on_standard_input_compressed_or_not() {
    let dir = tempfile::tempdir().unwrap();
    let expected = reference(dir.path());
    let gz = std::fs::read(big9()).unwrap();
    let mut plain = Vec::new();
    flate2::read::MultiGzDecoder::new(gz.as_slice())
        .read_to_end(&mut plain)
        .unwrap();
    let zst = zstd::encode_all(plain.as_slice(), 3).unwrap();
    for (name, bytes) in [("gzip", &gz), ("plain", &plain), ("zstd", &zst)] {
        let out = dir.path().join(name);
        run_on_stdin(&out, bytes, name);
        check_read_from(&out, &expected, "-", name == "gzip");
    }
}

/// `canopy run - --out OUT` with `bytes` on its standard input; it must
/// exit 0.
fn run_on_stdin(out: &Path, bytes: &[u8], what: &str) {
    canopy_on_stdin(
        &[
            "run".as_ref(),
            "-".as_ref(),
            "--out".as_ref(),
            out.as_os_str(),
        ],
        bytes,
        what,
    );
}

/// `canopy ARGS` with `bytes` on its standard input; it must exit 0.
fn canopy_on_stdin<S: AsRef<OsStr>>(args: &[S], bytes: &[u8], what: &str) {
    let mut child = Command::new(bin())
        .args(args)
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let bytes = bytes.to_vec();
    let feeder = std::thread::spawn(move || stdin.write_all(&bytes));
    let done = child.wait_with_output().unwrap();
    feeder.join().unwrap().unwrap();
    assert_eq!(
        done.status.code(),
        Some(0),
        "{what}: {}",
        String::from_utf8_lossy(&done.stderr)
    );
}

/// An ARC file (Common Crawl's crawls before 2013) is told from a WARC by
/// its content wherever a WARC is read: on standard input, over HTTP, as a
/// `.arc.zst` file; gzipped, plain or zstd. Each way gives the article of
/// reading the `.arc.gz` file, at the offset of its gzip member where the
/// bytes are the file's, else of its header line in the decoded stream.
#[test]
fn an_arc_is_read_from_every_kind_of_input() {
    let dir = tempfile::tempdir().unwrap();
    let arc_gz = corpus_file("warc/warcio/example.arc.gz");
    let out = dir.path().join("file");
    canopy(&[
        "run".as_ref(),
        arc_gz.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    let expected = articles_and_sources(&out);
    assert_eq!(expected.0.len(), 1, "the ARC's one page");
    assert_eq!(expected.0[0]["url"], "http://example.com/");
    assert_eq!(expected.1[0]["offset"], 171, "its gzip member");

    let gz = std::fs::read(&arc_gz).unwrap();
    let (plain, header_at) = canopy_test_support::example_arc_plain();
    let zst = zstd::encode_all(plain.as_slice(), 3).unwrap();
    let at = |out: &Path, file: &str, offset: u64| {
        let (articles, sources) = articles_and_sources(out);
        assert!(articles == expected.0, "{file}: other articles");
        assert_eq!(
            sources,
            [serde_json::json!({"file": file, "offset": offset})]
        );
    };
    for (name, bytes, offset) in [
        ("gzip", &gz, 171),
        ("plain", &plain, header_at),
        ("zstd", &zst, header_at),
    ] {
        let out = dir.path().join(format!("stdin-{name}"));
        run_on_stdin(&out, bytes, name);
        at(&out, "-", offset);
    }

    let (base, _) = serve(gz, Serve::DropEvery(usize::MAX));
    let url = format!("{base}/example.arc.gz");
    let out = dir.path().join("http");
    canopy(&["run", &url, "--out", out.to_str().unwrap()]);
    at(&out, &url, 171);

    let file = dir.path().join("example.arc.zst");
    std::fs::write(&file, &zst).unwrap();
    let out = dir.path().join("zst-file");
    canopy(&[
        "run".as_ref(),
        file.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    at(&out, file.to_str().unwrap(), header_at);
}

#[test]
fn an_http_input_resumes_after_every_dropped_connection() {
    let dir = tempfile::tempdir().unwrap();
    let expected = reference(dir.path());
    let body = std::fs::read(big9()).unwrap();
    // Seven drops: more than the retries in a row, but each brings bytes.
    let (base, requests) = serve(body.clone(), Serve::DropEvery(body.len() / 7 + 1));
    let url = format!("{base}/big9.warc.gz");
    let out = dir.path().join("http");
    canopy(&["run", &url, "--out", out.to_str().unwrap()]);
    check_read_from(&out, &expected, &url, true);
    assert!(
        requests.load(Ordering::SeqCst) >= 7,
        "the server dropped every answer"
    );
}

#[test]
fn an_http_input_that_cannot_be_read_is_a_reject_and_the_run_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let body = std::fs::read(big9()).unwrap();
    let (base, _) = serve(body, Serve::NoRanges);
    let out = dir.path().join("out");
    let output = Command::new(bin())
        .args([
            "run",
            &format!("{base}/missing"),
            &format!("{base}/norange.warc.gz"),
        ])
        .arg(big9())
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let rejects = jsonl(&out.join("rejects.jsonl"));
    let reasons: Vec<String> = rejects
        .iter()
        .map(|r| format!("{} {}", r["source"]["file"], r["reason"]))
        .collect();
    assert!(
        reasons
            .iter()
            .any(|r| r.contains("/missing") && r.contains("404")),
        "{reasons:?}"
    );
    assert!(
        reasons
            .iter()
            .any(|r| r.contains("/norange.warc.gz") && r.contains("does not resume")),
        "{reasons:?}"
    );
    // The local copy is read all the same, and the half the server sent
    // before it failed to resume is used: no article is lost or doubled.
    let articles = jsonl(&out.join("articles.jsonl"));
    let mut urls: Vec<&str> = articles
        .iter()
        .map(|a| a["url"].as_str().unwrap())
        .collect();
    urls.sort();
    urls.dedup();
    assert_eq!(urls.len(), 200);
}

#[test]
fn an_input_list_gzipped_with_comments_and_a_base() {
    let dir = tempfile::tempdir().unwrap();
    let expected = reference(dir.path());
    let body = std::fs::read(big9()).unwrap();
    let (base, _) = serve(body, Serve::DropEvery(usize::MAX));
    // As warc.paths.gz: paths relative to the base, one a line.
    let list = dir.path().join("warc.paths.gz");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(b"# tonight's crawl\n\ncrawl-data/big9.warc.gz\n")
        .unwrap();
    std::fs::write(&list, gz.finish().unwrap()).unwrap();
    let out = dir.path().join("listed");
    canopy(&[
        "run",
        "--input-list",
        list.to_str().unwrap(),
        "--input-base",
        &format!("{base}/"),
        "--out",
        out.to_str().unwrap(),
    ]);
    check_read_from(
        &out,
        &expected,
        &format!("{base}/crawl-data/big9.warc.gz"),
        true,
    );
}

#[test]
fn a_folder_takes_files_by_their_content_when_their_names_say_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let expected = reference(dir.path());
    let folder = dir.path().join("downloads");
    std::fs::create_dir(&folder).unwrap();
    // Named by hash, as some fetchers save them; and a .warc.zst.
    std::fs::copy(big9(), folder.join("3f9a0c")).unwrap();
    std::fs::write(folder.join("notes"), "not an input").unwrap();
    let out = dir.path().join("by-content");
    canopy(&[
        "run",
        folder.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let hashed = folder.join("3f9a0c");
    check_read_from(&out, &expected, hashed.to_str().unwrap(), true);

    let mut plain = Vec::new();
    flate2::read::MultiGzDecoder::new(std::fs::read(big9()).unwrap().as_slice())
        .read_to_end(&mut plain)
        .unwrap();
    let zfolder = dir.path().join("zst");
    std::fs::create_dir(&zfolder).unwrap();
    std::fs::write(
        zfolder.join("big9.warc.zst"),
        zstd::encode_all(plain.as_slice(), 3).unwrap(),
    )
    .unwrap();
    let out = dir.path().join("zst-out");
    canopy(&[
        "run",
        zfolder.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let zst = zfolder.join("big9.warc.zst");
    check_read_from(&out, &expected, zst.to_str().unwrap(), false);
}

/// The scale-out steps take the same inputs: `partition -` reads the stream
/// on its standard input, and extract and merge give `run`'s bytes.
#[test]
fn partition_reads_standard_input_too() {
    let dir = tempfile::tempdir().unwrap();
    let expected = reference(dir.path());
    let work = dir.path().join("work");
    let out = dir.path().join("out");
    canopy_on_stdin(
        &[
            "partition".as_ref(),
            "-".as_ref(),
            "--buckets".as_ref(),
            "3".as_ref(),
            "--work".as_ref(),
            work.as_os_str(),
        ],
        &std::fs::read(big9()).unwrap(),
        "partition -",
    );
    for k in 0..3 {
        let k = k.to_string();
        canopy(&[
            "extract",
            "--work",
            work.to_str().unwrap(),
            "--bucket",
            &k,
            "--out",
            out.to_str().unwrap(),
        ]);
    }
    canopy(&[
        "merge",
        "--work",
        work.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    check_read_from(&out, &expected, "-", true);
}

/// A folder of saved pages: `HOST/PATH` as `wget -r` lays them out, or a
/// sidecar `NAME.url`; a page with neither is a reject (stage `url`).
#[test]
fn html_files_are_pages_with_the_url_their_place_or_sidecar_gives() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("saved");
    let news = root.join("mirror/www.example.com/news");
    std::fs::create_dir_all(&news).unwrap();
    std::fs::create_dir_all(root.join("loose")).unwrap();
    let page = |n: &str| {
        format!(
            "<html><head><title>Story {n}</title></head><body><div id=nav><a href=/>Home</a> \
             <a href=/news>News</a></div><div id=story><h1>Story {n}</h1><p>This is story {n}, \
             which tells of the night crawl and of the pages it brings back to the archive \
             every morning without fail.</p><p>Its second paragraph, story {n}, goes on \
             about the crawler.</p></div><div id=foot>Copyright Example</div></body></html>"
        )
    };
    for n in ["one", "two", "three"] {
        std::fs::write(news.join(format!("{n}.html")), page(n)).unwrap();
    }
    std::fs::write(root.join("loose/page.htm"), page("loose")).unwrap();
    std::fs::write(
        root.join("loose/page.htm.url"),
        "https://blog.example.org/p/1\n",
    )
    .unwrap();
    std::fs::write(root.join("loose/orphan.html"), page("orphan")).unwrap();
    // An image saved under a page's name: rejected as its WARC response is.
    std::fs::write(news.join("photo.html"), common::noise(4096)).unwrap();
    let out = dir.path().join("out");
    let r = common::run(&[&root], &out, &[]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let articles = r.articles();
    let urls: Vec<&str> = articles
        .iter()
        .map(|a| a["url"].as_str().unwrap())
        .collect();
    assert_eq!(
        urls,
        [
            "https://blog.example.org/p/1",
            "http://www.example.com/news/one.html",
            "http://www.example.com/news/three.html",
            "http://www.example.com/news/two.html",
        ]
    );
    // The three pages of one template share a wrapper.
    assert!(
        articles[1..].iter().all(|a| a["method"] == "forest"),
        "{articles:?}"
    );
    assert!(articles[1]["text"]
        .as_str()
        .unwrap()
        .contains("This is story one"));
    assert!(!articles[1]["text"].as_str().unwrap().contains("Copyright"));
    // Each names its file; a file is one page, at no offset.
    let one = news.join("one.html");
    assert_eq!(articles[1]["source"]["file"], one.to_str().unwrap());
    assert!(articles[1]["source"]["offset"].is_null());
    let rejects = r.rejects();
    assert_eq!(rejects.len(), 2, "{rejects:?}");
    let file = |r: &Value| r["source"]["file"].as_str().unwrap().to_string();
    let orphan = rejects.iter().find(|r| file(r).ends_with("orphan.html"));
    assert_eq!(orphan.unwrap()["stage"], "url", "{rejects:?}");
    let photo = rejects.iter().find(|r| file(r).ends_with("photo.html"));
    let photo = photo.unwrap();
    assert_eq!(photo["stage"], "http");
    assert_eq!(photo["url"], "http://www.example.com/news/photo.html");
    assert!(photo["reason"]
        .as_str()
        .unwrap()
        .starts_with("binary content"));
}
