//! Operator inputs and input folders (`docs/robustness.md`, "Operator
//! inputs and input folders"): what an operator can hand `canopy` by
//! mistake or by malice, each on an input generated here. Every run has a
//! deadline: a run that hangs is killed and the test fails.

use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use canopy_test_support::warc_response;
use common::jsonl;
use serde_json::Value;

mod common;

/// Bound on one run over these small inputs (a release build takes well
/// under a second; the machine may be loaded).
const DEADLINE: Duration = Duration::from_secs(60);

const HTML_HEAD: &str = "HTTP/1.1 200 OK\nContent-Type: text/html; charset=utf-8\n";

struct Ran {
    /// `None`: killed at the deadline, or by a signal.
    code: Option<i32>,
    stderr: String,
    took: Duration,
}

/// `program ARGS` with a deadline: killed (and `code` None) past it.
fn run_cmd(program: &OsStr, args: &[&OsStr]) -> Ran {
    let start = Instant::now();
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cannot start canopy");
    let stderr = child.stderr.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::io::BufReader::new(stderr), &mut text).ok();
        text
    });
    let code = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status.code();
        }
        if start.elapsed() > DEADLINE {
            child.kill().expect("kill our own child");
            child.wait().expect("wait");
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Ran {
        code,
        stderr: reader.join().unwrap_or_default(),
        took: start.elapsed(),
    }
}

fn os<S: AsRef<OsStr> + ?Sized>(s: &S) -> &OsStr {
    s.as_ref()
}

fn canopy(args: &[&OsStr]) -> Ran {
    run_cmd(common::bin().as_os_str(), args)
}

/// `canopy run INPUTS --out OUT EXTRA`.
fn run(inputs: &[&Path], out: &Path, extra: &[&str]) -> Ran {
    let mut args: Vec<&OsStr> = vec![os("run")];
    args.extend(inputs.iter().map(|p| p.as_os_str()));
    args.extend([os("--out"), out.as_os_str()]);
    args.extend(extra.iter().map(os));
    canopy(&args)
}

fn page(title: &str) -> Vec<u8> {
    let sentence = format!("{title} is a page that must become one article and only one.");
    format!(
        "<!DOCTYPE html><html><head><title>{title}</title></head><body><article>\
         <h1>{title}</h1><p>{}</p></article></body></html>",
        [sentence.as_str(); 12].join(" ")
    )
    .into_bytes()
}

/// A plain WARC of one page per URL.
fn write_warc(path: &Path, urls: &[&str]) {
    let mut out = Vec::new();
    for (i, url) in urls.iter().enumerate() {
        out.extend(warc_response(
            i as u32 + 1,
            url,
            HTML_HEAD,
            &page(&format!("Page {i} at {url}")),
        ));
    }
    std::fs::write(path, out).unwrap();
}

fn urls_of(out: &Path) -> Vec<String> {
    let mut urls: Vec<String> = jsonl(&out.join("articles.jsonl"))
        .iter()
        .map(|a| a["url"].as_str().unwrap().to_string())
        .collect();
    urls.sort();
    urls
}

fn rejects(out: &Path) -> Vec<Value> {
    jsonl(&out.join("rejects.jsonl"))
}

fn finished(r: &Ran, code: i32, what: &str) {
    assert_eq!(
        r.code,
        Some(code),
        "{what}: after {:?}: {}",
        r.took,
        r.stderr
    );
}

// ---------------------------------------------------------------------------
// Input folders

/// Regression: two symlink cycles hung the run (RSS growing); one read the
/// same file 41 times. The same file named twice, through a symlink or a
/// hard link was read twice.
#[cfg(unix)]
#[test]
fn symlink_cycles_and_second_names_read_each_file_once() {
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("crawl");
    std::fs::create_dir_all(root.join("day1/sub")).unwrap();
    std::fs::create_dir_all(root.join("day2")).unwrap();
    let warc = root.join("day1/a.warc");
    write_warc(&warc, &["http://one.example/a", "http://two.example/b"]);
    write_warc(&root.join("day2/b.warc"), &["http://one.example/c"]);
    // Two cycles, a second path to a folder, to a file, and a hard link.
    symlink(&root, root.join("day1/sub/top")).unwrap();
    symlink(root.join("day1"), root.join("day2/again")).unwrap();
    symlink(&warc, root.join("day2/link.warc")).unwrap();
    std::fs::hard_link(&warc, root.join("day2/hard.warc")).unwrap();
    let out = dir.path().join("out");
    let r = run(&[&root, &warc, &root.join("day2/link.warc")], &out, &[]);
    finished(&r, 0, "cycles");
    assert_eq!(
        urls_of(&out),
        [
            "http://one.example/a",
            "http://one.example/c",
            "http://two.example/b"
        ]
    );
    assert!(rejects(&out).is_empty());
}

/// Regression: a FIFO named `*.warc` in a folder, `/dev/zero` behind a
/// symlink, `/dev/urandom` named on the command line each hung the run.
#[cfg(unix)]
#[test]
fn special_files_are_rejects_not_hangs() {
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("crawl");
    std::fs::create_dir_all(&root).unwrap();
    write_warc(&root.join("good.warc"), &["http://good.example/a"]);
    let fifo = root.join("x.warc");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    symlink("/dev/zero", root.join("zero.warc.gz")).unwrap();
    let out = dir.path().join("out");
    let r = run(&[&root, Path::new("/dev/urandom")], &out, &[]);
    finished(&r, 1, "special files");
    assert_eq!(urls_of(&out), ["http://good.example/a"]);
    let rejects = rejects(&out);
    let found: Vec<(&str, &str)> = rejects
        .iter()
        .map(|r| {
            (
                r["source"]["file"].as_str().unwrap(),
                r["reason"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(found.len(), 3, "{rejects:?}");
    assert_eq!(found[0].0, "/dev/urandom");
    assert!(found[0].1.starts_with("a character device"), "{found:?}");
    assert_eq!(found[1].0, fifo.to_str().unwrap());
    assert!(found[1].1.starts_with("a FIFO"), "{found:?}");
    assert!(found[2].0.ends_with("zero.warc.gz"));
    assert!(found[2].1.starts_with("a character device"), "{found:?}");
    assert!(rejects.iter().all(|r| r["stage"] == "input"));
}

/// Regression: an unreadable subfolder stopped the whole run (exit 2),
/// where an unreadable file was a reject. Root reads everything, so as
/// root the run is made as `nobody` (setpriv, util-linux).
#[cfg(unix)]
#[test]
fn unreadable_folders_and_files_are_rejects_and_the_run_goes_on() {
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &Path, m: u32| std::fs::set_permissions(p, std::fs::Permissions::from_mode(m));
    let dir = tempfile::tempdir().unwrap();
    mode(dir.path(), 0o755).unwrap();
    let root = dir.path().join("crawl");
    std::fs::create_dir_all(root.join("locked")).unwrap();
    write_warc(&root.join("good.warc"), &["http://good.example/a"]);
    write_warc(
        &root.join("locked/hidden.warc"),
        &["http://hidden.example/a"],
    );
    write_warc(&root.join("secret.warc"), &["http://secret.example/a"]);
    mode(&root.join("locked"), 0o000).unwrap();
    mode(&root.join("secret.warc"), 0o000).unwrap();
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    mode(&out, 0o777).unwrap();
    let args = [os("run"), root.as_os_str(), os("--out"), out.as_os_str()];
    let r = if std::fs::read_dir(root.join("locked")).is_ok() {
        // Root: drop to nobody for the run, with a binary nobody can reach
        // (the checkout may be in a folder of root's own).
        let bin = dir.path().join("canopy");
        std::fs::hard_link(common::bin(), &bin)
            .or_else(|_| std::fs::copy(common::bin(), &bin).map(drop))
            .unwrap();
        mode(&bin, 0o755).unwrap();
        let mut wrapped = vec![
            os("--reuid=65534"),
            os("--regid=65534"),
            os("--clear-groups"),
            bin.as_os_str(),
        ];
        wrapped.extend(args);
        run_cmd(os("setpriv"), &wrapped)
    } else {
        canopy(&args)
    };
    mode(&root.join("locked"), 0o755).unwrap();
    finished(&r, 1, "unreadable");
    assert_eq!(urls_of(&out), ["http://good.example/a"]);
    let rejects = rejects(&out);
    assert_eq!(rejects.len(), 2, "{rejects:?}");
    assert_eq!(
        rejects[0]["source"]["file"],
        root.join("locked").to_str().unwrap()
    );
    assert_eq!(rejects[0]["stage"], "input");
    assert!(rejects[0]["reason"]
        .as_str()
        .unwrap()
        .contains("cannot read the folder"));
    assert_eq!(
        rejects[1]["source"]["file"],
        root.join("secret.warc").to_str().unwrap()
    );
    assert!(rejects[1]["reason"]
        .as_str()
        .unwrap()
        .contains("cannot open"));
}

// ---------------------------------------------------------------------------
// Records

/// A WARC response record without a `WARC-Target-URI` header.
fn response_without_uri(id: u32, body: &[u8]) -> Vec<u8> {
    let with = warc_response(id, "http://x.example/", HTML_HEAD, body);
    let text = String::from_utf8(with).unwrap();
    text.replace("WARC-Target-URI: http://x.example/\r\n", "")
        .into_bytes()
}

/// Regression: records with no or an empty `WARC-Target-URI`, or a
/// `file:`, `javascript:`, `data:` URL became articles of one site "".
#[test]
fn pages_whose_url_names_no_web_site_are_rejects() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("urls.warc");
    let mut warc = response_without_uri(1, &page("No URI"));
    let bad = [
        "",
        "file:///etc/passwd",
        "javascript:alert(1)",
        "data:text/html,<p>x</p>",
        "ftp://files.example/a.html",
        "not a url",
    ];
    for (i, url) in bad.iter().enumerate() {
        warc.extend(warc_response(
            i as u32 + 2,
            url,
            HTML_HEAD,
            &page(&format!("Bad {i}")),
        ));
    }
    warc.extend(warc_response(
        9,
        "http://good.example/a",
        HTML_HEAD,
        &page("Good"),
    ));
    std::fs::write(&path, warc).unwrap();
    let out = dir.path().join("out");
    let r = run(&[&path], &out, &[]);
    finished(&r, 1, "urls");
    let articles = jsonl(&out.join("articles.jsonl"));
    assert_eq!(articles.len(), 1, "{articles:?}");
    assert_eq!(articles[0]["site"], "good.example");
    let rejects = rejects(&out);
    assert_eq!(rejects.len(), 1 + bad.len(), "{rejects:?}");
    assert!(rejects.iter().all(|r| r["stage"] == "url"), "{rejects:?}");
    assert!(
        r.stderr.contains(&format!("{} rejected", 1 + bad.len())),
        "{}",
        r.stderr
    );
    assert!(rejects
        .iter()
        .any(|r| r["url"].is_null() && r["reason"].as_str().unwrap().starts_with("no URL")));
}

// ---------------------------------------------------------------------------
// Flags

/// Regression: `--threads 100000` spent minutes starting threads.
#[test]
fn threads_far_beyond_the_cpus_are_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.warc");
    write_warc(&path, &["http://good.example/a"]);
    let out = dir.path().join("out");
    let r = run(&[&path], &out, &["--threads", "100000"]);
    finished(&r, 0, "threads");
    assert!(r.took < Duration::from_secs(20), "{:?}", r.took);
    assert!(r.stderr.contains("per CPU"), "{}", r.stderr);
    assert_eq!(urls_of(&out), ["http://good.example/a"]);
}

/// Regression: `search --limit 18446744073709551615` panicked (exit 101),
/// `--limit 1000000000000` aborted.
#[test]
fn search_limits_of_any_size() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.warc");
    write_warc(&path, &["http://one.example/a", "http://two.example/b"]);
    let out = dir.path().join("out");
    finished(&run(&[&path], &out, &[]), 0, "run");
    let index = dir.path().join("index");
    let articles = out.join("articles.jsonl");
    finished(
        &canopy(&[
            os("index"),
            articles.as_os_str(),
            os("--out"),
            index.as_os_str(),
        ]),
        0,
        "index",
    );
    for limit in ["18446744073709551615", "1000000000000"] {
        let r = canopy(&[
            os("search"),
            index.as_os_str(),
            os("page"),
            os("--limit"),
            os(limit),
        ]);
        finished(&r, 0, limit);
    }
}

// ---------------------------------------------------------------------------
// Scale-out steps

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `sh -c 'ulimit -n N && exec canopy ARGS'`: the step under a descriptor
/// limit.
fn canopy_with_fd_limit(limit: u32, args: &[&str]) -> Ran {
    let mut sh = vec![os("-c"), os("ulimit -n \"$0\" && exec \"$@\"")];
    let limit = limit.to_string();
    sh.push(os(&limit));
    sh.push(common::bin().as_os_str());
    sh.extend(args.iter().map(os));
    run_cmd(os("sh"), &sh)
}

/// Regression: `partition --buckets 600` opened two files per bucket at
/// once and failed under the usual limit of 1024 descriptors; `merge` of
/// 600 buckets opened all their outputs at once. Each step now runs under
/// that limit and the outputs are `run`'s.
#[test]
fn six_hundred_buckets_under_1024_descriptors() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("many.warc");
    let urls: Vec<String> = (0..1500)
        .map(|i| format!("http://site{i}.example/p"))
        .collect();
    write_warc(&path, &urls.iter().map(String::as_str).collect::<Vec<_>>());
    let work = dir.path().join("work");
    let out = dir.path().join("out");
    let r = canopy_with_fd_limit(
        1024,
        &[
            "partition",
            s(&path),
            "--work",
            s(&work),
            "--buckets",
            "600",
        ],
    );
    finished(&r, 0, "partition");
    let buckets = std::fs::read_dir(&work)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with("bucket-")
        })
        .count();
    assert!(buckets > 550, "{buckets} buckets written");
    // One process extracts every bucket in turn (600 processes would take
    // as long as the rest of the test).
    let script = "ulimit -n 1024 && for k in $(seq 0 599); do \
                  \"$0\" extract --work \"$1\" --bucket $k --out \"$2\" --threads 1 2>/dev/null || exit 1; done";
    let r = run_cmd(
        os("sh"),
        &[
            os("-c"),
            os(script),
            common::bin().as_os_str(),
            work.as_os_str(),
            out.as_os_str(),
        ],
    );
    finished(&r, 0, "extract");
    let r = canopy_with_fd_limit(1024, &["merge", "--work", s(&work), "--out", s(&out)]);
    finished(&r, 0, "merge");
    let single = dir.path().join("single");
    finished(&run(&[&path], &single, &[]), 0, "run");
    for file in [
        "articles.jsonl",
        "wrappers.jsonl",
        "summary.csv",
        "rejects.jsonl",
        "stats.json",
    ] {
        assert!(
            common::comparable(&single, file) == common::comparable(&out, file),
            "{file} differs from run's"
        );
    }
    assert_eq!(urls_of(&out).len(), 1500);
}

/// Regression: a damaged `len` in a bucket index made `extract` allocate
/// that much (gigabytes, then abort).
#[test]
fn a_damaged_bucket_index_is_an_error_not_an_allocation() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.warc");
    write_warc(&path, &["http://one.example/a", "http://one.example/b"]);
    let work = dir.path().join("work");
    let out = dir.path().join("out");
    let r = canopy(&[
        os("partition"),
        path.as_os_str(),
        os("--work"),
        work.as_os_str(),
        os("--buckets"),
        os("1"),
    ]);
    finished(&r, 0, "partition");
    let index = work.join("bucket-00000/rank-00000.index.jsonl");
    let text = std::fs::read_to_string(&index).unwrap();
    let damaged = with_first_len(&text, 1_000_000_000_000);
    std::fs::write(&index, damaged).unwrap();
    let r = canopy(&[
        os("extract"),
        os("--work"),
        work.as_os_str(),
        os("--bucket"),
        os("0"),
        os("--out"),
        out.as_os_str(),
    ]);
    finished(&r, 2, "extract");
    assert!(
        r.stderr.contains("past the end of the data file"),
        "{}",
        r.stderr
    );
}

/// The index `text` with its first line's `len` made `len`.
fn with_first_len(text: &str, len: u64) -> String {
    let mut lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    lines[0]["len"] = len.into();
    lines.iter().map(|l| format!("{l}\n")).collect()
}

// ---------------------------------------------------------------------------
// Outputs

/// Regression: outputs were renamed over whatever their path was: a
/// symlink (replaced, not written through), a FIFO, `/dev/stdout` (as
/// root, `--wet /dev/stdout` replaced `/dev/stdout` itself).
#[cfg(unix)]
#[test]
fn outputs_are_never_renamed_over_what_is_not_a_regular_file() {
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.warc");
    write_warc(&path, &["http://one.example/a"]);
    let theirs = dir.path().join("theirs.txt");
    std::fs::write(&theirs, "theirs\n").unwrap();
    let is_link = |p: &Path| {
        std::fs::symlink_metadata(p)
            .unwrap()
            .file_type()
            .is_symlink()
    };

    // --wet: a symlink, a FIFO, a folder, standard output.
    let link = dir.path().join("link.warc.gz");
    symlink(&theirs, &link).unwrap();
    let dev_link = dir.path().join("stdout.warc");
    symlink("/dev/stdout", &dev_link).unwrap();
    let fifo = dir.path().join("fifo.warc");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let folder = dir.path().join("folder.warc");
    std::fs::create_dir(&folder).unwrap();
    for (wet, what) in [
        (link.as_path(), "a symlink"),
        (dev_link.as_path(), "a symlink"),
        (fifo.as_path(), "a special file"),
        (folder.as_path(), "a folder"),
        (Path::new("-"), "standard output"),
    ] {
        let out = dir.path().join("out-wet");
        let r = run(&[&path], &out, &["--wet", s(wet)]);
        finished(&r, 2, &format!("--wet {}", wet.display()));
        assert!(r.stderr.contains(what), "{}: {}", wet.display(), r.stderr);
        // Refused before any work: no outputs.
        assert!(!out.join("articles.jsonl").exists());
    }
    assert!(is_link(&link) && is_link(&dev_link));
    assert_eq!(std::fs::read_to_string(&theirs).unwrap(), "theirs\n");
    assert!(!Path::new("-").exists());

    // An output in --out that is a symlink or a FIFO.
    for name in ["articles.jsonl", "rejects.jsonl", "_SUCCESS"] {
        let out = dir.path().join(format!("out-{name}"));
        std::fs::create_dir(&out).unwrap();
        symlink(&theirs, out.join(name)).unwrap();
        let r = run(&[&path], &out, &[]);
        finished(&r, 2, name);
        assert!(r.stderr.contains("a symbolic link"), "{name}: {}", r.stderr);
        assert!(is_link(&out.join(name)), "{name}");
    }
    assert_eq!(std::fs::read_to_string(&theirs).unwrap(), "theirs\n");
    let out = dir.path().join("out-fifo");
    std::fs::create_dir(&out).unwrap();
    assert!(Command::new("mkfifo")
        .arg(out.join("summary.csv"))
        .status()
        .unwrap()
        .success());
    let r = run(&[&path], &out, &[]);
    finished(&r, 2, "fifo in --out");
    assert!(r.stderr.contains("a special file"), "{}", r.stderr);

    // A regular file is replaced as ever.
    let out = dir.path().join("out-ok");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("articles.jsonl"), "old\n").unwrap();
    let wet = dir.path().join("ok.warc.gz");
    std::fs::write(&wet, "old").unwrap();
    finished(
        &run(&[&path], &out, &["--wet", s(&wet)]),
        0,
        "regular files",
    );
    assert_eq!(urls_of(&out), ["http://one.example/a"]);
    assert!(std::fs::metadata(&wet).unwrap().len() > 100);
}
