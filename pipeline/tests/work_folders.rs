//! Work folders, locks and the output switch, end to end on generated
//! inputs (docs/robustness.md, "Work folders, locks and the output
//! switch"): a kept `--work` never gives the results of other inputs or
//! settings; scale-out ranks given other input lists are refused; a second
//! run into a folder another holds fails at once and leaves the first
//! whole; a killed run blocks nothing; other files kept in `--out` stay.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use canopy_test_support::warc_response;

mod common;

/// The files of an output set (without `--wet`).
const SET: [&str; 8] = common::OUTPUT_SET;

const HTML_HEAD: &str = "HTTP/1.1 200 OK\nContent-Type: text/html; charset=utf-8\n";

/// Page `i` of a site of one template; `tag` (of fixed length) changes
/// every text, so two versions of a file have the same size.
fn page(site: &str, i: usize, tag: &str) -> Vec<u8> {
    let para = |n: usize| {
        format!(
            "<p>Paragraph {n} of story {i} on {site}, edition {tag}: the council met on \
             Tuesday and agreed the budget for the bridge, the library and the harbour \
             after a long debate about the schools.</p>"
        )
    };
    let body: String = (0..6).map(para).collect();
    format!(
        "<!DOCTYPE html><html><head><title>Story {i} {tag}</title></head><body>\
         <div class=\"nav\"><a href=\"/\">Home</a> <a href=\"/news\">News</a></div>\
         <div class=\"story\"><h1>Story {i} {tag}</h1>{body}</div>\
         <div class=\"side\"><a href=\"/a\">Most read</a> <a href=\"/b\">Weather</a></div>\
         </body></html>"
    )
    .into_bytes()
}

fn url(site: &str, i: usize) -> String {
    format!("http://{site}/news/story-{i}")
}

/// A plain WARC of `pages` pages of `site`.
fn warc(path: &Path, site: &str, pages: usize, tag: &str) -> PathBuf {
    let mut out = Vec::new();
    for i in 0..pages {
        out.extend(warc_response(
            i as u32 + 1,
            &url(site, i),
            HTML_HEAD,
            &page(site, i, tag),
        ));
    }
    std::fs::write(path, out).unwrap();
    path.to_path_buf()
}

/// An RSS feed with an item for each page of `site`.
fn feed(path: &Path, site: &str, pages: usize) -> PathBuf {
    let items: String = (0..pages)
        .map(|i| {
            format!(
                "<item><title>Story {i} council budget bridge</title><link>{}</link>\
                 <description>The council agreed the budget for the bridge.</description></item>",
                url(site, i)
            )
        })
        .collect();
    std::fs::write(
        path,
        format!("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>{site}</title>{items}</channel></rss>"),
    )
    .unwrap();
    path.to_path_buf()
}

fn canopy(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(common::bin()).args(args).output().unwrap()
}

fn s(p: &Path) -> &std::ffi::OsStr {
    p.as_os_str()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn finished(o: &Output, what: &str) {
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "{what}: exit {:?}: {}",
        o.status.code(),
        stderr(o)
    );
}

/// The bytes of every file of the set in `out`, as runs compare them
/// (`common::comparable`).
fn set_of(out: &Path) -> Vec<Vec<u8>> {
    common::comparable_set(out)
}

/// `canopy run INPUTS --out OUT EXTRA`.
fn run(inputs: &[PathBuf], out: &Path, extra: &[&std::ffi::OsStr]) -> Output {
    let mut args: Vec<&std::ffi::OsStr> = vec!["run".as_ref()];
    args.extend(inputs.iter().map(|p| p.as_os_str()));
    args.extend([std::ffi::OsStr::new("--out"), s(out)]);
    args.extend_from_slice(extra);
    canopy(&args)
}

/// Each rerun with a kept `--work` gives what a fresh run gives, whatever
/// changed since the last one: the input list, a file rewritten in place
/// (same size, other bytes), `--method`, `--format`, `--top-k`,
/// `--signifiers`, `--config`, `--wrappers`. Before fingerprints, every
/// rerun printed the first run's articles with exit 0. A rerun with
/// nothing changed reuses the folder.
#[test]
fn a_kept_work_folder_never_gives_stale_results() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let a = warc(&t.join("a.warc"), "alpha.example", 8, "one");
    let b = warc(&t.join("b.warc"), "beta.example", 8, "one");
    let rss = feed(&t.join("alpha.rss"), "alpha.example", 8);
    let config = t.join("markdown.toml");
    std::fs::write(&config, "[run]\nformats = [\"text\", \"markdown\"]\n").unwrap();
    let saved = t.join("saved-wrappers.jsonl");
    let work = t.join("work");
    let kept = t.join("kept");
    let os = |x: &'static str| std::ffi::OsStr::new(x);

    let mut last: Option<Vec<Vec<u8>>> = None;
    for (step, (what, inputs, extra)) in [
        ("first", vec![a.clone()], vec![]),
        ("another input", vec![b.clone()], vec![]),
        ("both inputs", vec![a.clone(), b.clone()], vec![]),
        ("same again", vec![a.clone(), b.clone()], vec![]),
        ("a rewritten in place", vec![a.clone(), b.clone()], vec![]),
        (
            "--method coverage",
            vec![a.clone(), b.clone()],
            vec![os("--method"), os("coverage")],
        ),
        (
            "--format html",
            vec![a.clone(), b.clone()],
            vec![os("--format"), os("html")],
        ),
        (
            "--top-k 2",
            vec![a.clone(), b.clone()],
            vec![os("--top-k"), os("2")],
        ),
        (
            "--signifiers feeds",
            vec![a.clone(), b.clone(), rss.clone()],
            vec![os("--signifiers"), os("feeds")],
        ),
        (
            "--config",
            vec![a.clone(), b.clone()],
            vec![os("--config"), s(&config)],
        ),
        (
            "--wrappers",
            vec![a.clone(), b.clone()],
            vec![os("--wrappers"), s(&saved)],
        ),
    ]
    .into_iter()
    .enumerate()
    {
        if what == "a rewritten in place" {
            let before = std::fs::metadata(&a).unwrap().len();
            std::thread::sleep(Duration::from_millis(20));
            warc(&a, "alpha.example", 8, "two");
            assert_eq!(std::fs::metadata(&a).unwrap().len(), before);
        }
        let fresh = t.join(format!("fresh-{step}"));
        finished(&run(&inputs, &fresh, &extra), what);
        let mut with_work = extra.clone();
        with_work.extend([os("--work"), s(&work)]);
        let rerun = run(&inputs, &kept, &with_work);
        finished(&rerun, what);
        assert!(
            set_of(&kept) == set_of(&fresh),
            "{what}: the kept work folder gave other outputs than a fresh run: {}",
            stderr(&rerun)
        );
        let said = stderr(&rerun);
        if what == "same again" {
            assert!(
                !said.contains("starting it over") && !said.contains("extracting them again"),
                "{what}: the work folder is reused: {said}"
            );
            assert!(last.as_ref() == Some(&set_of(&fresh)));
        } else {
            // Each step changes the outputs, so a stale folder would show.
            assert!(
                last.as_ref() != Some(&set_of(&fresh)),
                "{what} changes nothing"
            );
        }
        if what == "a rewritten in place" {
            assert!(said.contains("a.warc (modified since)"), "{said}");
        }
        if what == "--method coverage" {
            assert!(
                said.contains("settings.method \"forest\" vs \"coverage\""),
                "names what differs: {said}"
            );
        }
        if what == "both inputs" {
            std::fs::copy(fresh.join("wrappers.jsonl"), &saved).unwrap();
        }
        last = Some(set_of(&fresh));
    }
}

fn partition(inputs: &[&Path], work: &Path, rank: u32, world: u32) -> Output {
    let (rank, world) = (rank.to_string(), world.to_string());
    let mut args: Vec<&std::ffi::OsStr> = vec!["partition".as_ref()];
    args.extend(inputs.iter().map(|p| p.as_os_str()));
    args.extend([
        "--work".as_ref(),
        s(work),
        "--rank".as_ref(),
        rank.as_ref(),
        "--world-size".as_ref(),
        world.as_ref(),
        "--buckets".as_ref(),
        "3".as_ref(),
    ]);
    canopy(&args)
}

fn extract(work: &Path, bucket: u32, out: &Path, extra: &[&str]) -> Output {
    let bucket = bucket.to_string();
    let mut args: Vec<&std::ffi::OsStr> = vec![
        "extract".as_ref(),
        "--work".as_ref(),
        s(work),
        "--bucket".as_ref(),
        bucket.as_ref(),
        "--out".as_ref(),
        s(out),
    ];
    args.extend(extra.iter().map(std::ffi::OsStr::new));
    canopy(&args)
}

fn merge(work: &Path, out: &Path) -> Output {
    canopy(&[
        "merge".as_ref(),
        "--work".as_ref(),
        s(work),
        "--out".as_ref(),
        s(out),
    ])
}

fn refused(o: &Output, what: &str, says: &str) {
    assert_eq!(o.status.code(), Some(2), "{what}: {}", stderr(o));
    assert!(stderr(o).contains(says), "{what}: {}", stderr(o));
}

/// Ranks of one scale-out job must be given one input list: a rank given
/// another is refused at once (before, its files were assigned by their
/// index in its own list and a WARC's pages were silently lost at
/// `merge`); markers of another partition copied in, and buckets extracted
/// with other settings, are refused by `extract` and `merge`.
#[test]
fn ranks_and_buckets_of_other_inputs_or_settings_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let a = warc(&t.join("a.warc"), "alpha.example", 4, "one");
    let b = warc(&t.join("b.warc"), "beta.example", 4, "one");
    let c = warc(&t.join("c.warc"), "gamma.example", 4, "one");
    let (work, out) = (t.join("work"), t.join("out"));

    finished(&partition(&[&a, &b], &work, 0, 2), "rank 0");
    // Rank 1 given a longer list: file 2 (c.warc) would be rank 0's, which
    // never saw it.
    refused(
        &partition(&[&a, &b, &c], &work, 1, 2),
        "rank 1 with another list",
        "c.warc (not in the work folder's list)",
    );
    finished(&partition(&[&a, &b], &work, 1, 2), "rank 1");
    refused(
        &partition(&[&a, &c], &work, 0, 2),
        "rank 0 rerun with another list",
        "was partitioned from other inputs",
    );

    // A rank marker of another job's partition, copied in.
    let other = t.join("other-work");
    finished(&partition(&[&a, &b, &c], &other, 1, 2), "another job");
    let ours = std::fs::read(work.join("rank-00001.done")).unwrap();
    std::fs::copy(other.join("rank-00001.done"), work.join("rank-00001.done")).unwrap();
    refused(
        &extract(&work, 0, &out, &[]),
        "extract",
        "rank 1 (another input list",
    );
    refused(&merge(&work, &out), "merge", "rank 1 (another input list");
    std::fs::write(work.join("rank-00001.done"), ours).unwrap();

    for k in 0..3 {
        finished(&extract(&work, k, &out, &[]), "extract");
    }
    // Bucket 0 again with another method into the same --out: refused,
    // not "already done".
    refused(
        &extract(&work, 0, &out, &["--method", "coverage"]),
        "extract with other flags",
        "settings.method",
    );
    finished(&merge(&work, &out), "merge");
    let reference = t.join("reference");
    finished(&run(&[a.clone(), b.clone()], &reference, &[]), "run");
    assert!(
        set_of(&out) == set_of(&reference),
        "the scale-out steps give run's bytes"
    );
    // `buckets/` is kept through the switch: the merge can be run again.
    finished(&merge(&work, &out), "merge again");
    assert!(set_of(&out) == set_of(&reference));

    // A bucket extracted with other settings (another --out's, copied in).
    let elsewhere = t.join("elsewhere");
    finished(
        &extract(&work, 1, &elsewhere, &["--method", "coverage"]),
        "extract",
    );
    let bucket = |root: &Path| root.join("buckets/bucket-00001");
    std::fs::remove_dir_all(bucket(&out)).unwrap();
    std::fs::rename(bucket(&elsewhere), bucket(&out)).unwrap();
    refused(
        &merge(&work, &out),
        "merge of mixed buckets",
        "bucket 1 (settings.method",
    );
    assert!(
        set_of(&out) == set_of(&reference),
        "a refused merge leaves the outputs"
    );
}

/// Whether a run into `out` has begun writing: its new folder beside
/// `out` (or, before the switch, its work folder inside `out`).
fn started(out: &Path) -> bool {
    let name = out.file_name().unwrap().to_string_lossy().into_owned();
    let beside = std::fs::read_dir(out.parent().unwrap()).unwrap().any(|e| {
        e.unwrap()
            .file_name()
            .to_string_lossy()
            .starts_with(&format!(".{name}.canopy-"))
    });
    let inside = std::fs::read_dir(out).is_ok_and(|mut d| {
        d.any(|e| {
            e.unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with(".work-")
        })
    });
    beside || inside
}

fn wait_until_started(out: &Path, child: &mut std::process::Child) {
    let start = Instant::now();
    while !started(out) {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the first run ended before it was seen"
        );
        assert!(start.elapsed() < Duration::from_secs(60), "never started");
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// Two runs into one `--out`: the second fails at once (exit 2, saying
/// another canopy holds the folder), the first completes with its own
/// outputs. The same with one `--work` and two outputs. Before the locks,
/// the second run removed the first one's work folder. A run killed with
/// SIGKILL holds nothing: the next run into its folders goes ahead and
/// cleans up what it left.
#[test]
fn a_second_run_into_a_held_folder_fails_at_once_and_the_first_completes() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let c = common::corpora();
    // Long enough for the second run to start while the first works.
    let big: Vec<PathBuf> = ["big9/big9.warc.gz", "dragnet/dragnet.warc.gz"]
        .iter()
        .map(|f| c.join(f))
        .collect();
    let small = vec![warc(&t.join("small.warc"), "alpha.example", 3, "one")];
    let reference = t.join("reference");
    finished(&run(&big, &reference, &[]), "reference");
    let spawn = |out: &Path, work: Option<&Path>| {
        let mut cmd = Command::new(common::bin());
        cmd.arg("run").args(&big).arg("--out").arg(out);
        cmd.args(["--threads", "1"]);
        if let Some(w) = work {
            cmd.arg("--work").arg(w);
        }
        cmd.stderr(Stdio::piped()).spawn().unwrap()
    };

    // One --out.
    let out = t.join("out");
    let mut first = spawn(&out, None);
    wait_until_started(&out, &mut first);
    let start = Instant::now();
    let second = run(&small, &out, &[]);
    let took = start.elapsed();
    assert!(
        first.try_wait().unwrap().is_none(),
        "the first run is still working (the machine is too fast for this test)"
    );
    refused(
        &second,
        "second run into --out",
        "in use by another canopy process",
    );
    assert!(took < Duration::from_secs(5), "fails at once: {took:?}");
    let first = first.wait_with_output().unwrap();
    finished(&first, "first run");
    assert!(
        set_of(&out) == set_of(&reference),
        "the first run's outputs, whole"
    );

    // One --work, two outputs.
    let (work, out1, out2) = (t.join("work"), t.join("out1"), t.join("out2"));
    let mut first = spawn(&out1, Some(&work));
    wait_until_started(&out1, &mut first);
    let second = run(&small, &out2, &["--work".as_ref(), s(&work)]);
    assert!(first.try_wait().unwrap().is_none(), "still working");
    refused(
        &second,
        "second run with --work",
        "in use by another canopy process",
    );
    let first = first.wait_with_output().unwrap();
    finished(&first, "first run with --work");
    assert!(set_of(&out1) == set_of(&reference));

    // A killed run holds nothing: the next one goes ahead at once.
    let work = t.join("work-killed");
    let mut killed = spawn(&out, Some(&work));
    wait_until_started(&out, &mut killed);
    killed.kill().unwrap();
    killed.wait().unwrap();
    let next = run(&small, &out, &["--work".as_ref(), s(&work)]);
    finished(&next, "after a kill");
    let fresh = t.join("fresh-small");
    finished(&run(&small, &fresh, &[]), "fresh");
    assert!(set_of(&out) == set_of(&fresh));
    let left: Vec<String> = std::fs::read_dir(t)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(left.is_empty(), "the killed run's folder is gone: {left:?}");
}

/// Files a user keeps in `--out` stay through the switch; a WET file
/// written inside `--out` is part of the set (switched with it, named in
/// `_SUCCESS` by its name) and goes with it when the next run writes none.
#[test]
fn other_files_in_out_stay_and_a_wet_inside_out_switches_with_the_set() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let a = vec![warc(&t.join("a.warc"), "alpha.example", 4, "one")];
    let out = t.join("out");
    std::fs::create_dir_all(out.join("index/segments")).unwrap();
    std::fs::write(out.join("index/segments/0"), "an index").unwrap();
    std::fs::write(out.join("NOTES"), "mine").unwrap();
    let wet = out.join("articles.warc.gz");
    finished(&run(&a, &out, &["--wet".as_ref(), s(&wet)]), "with --wet");
    let names = |dir: &Path| {
        let mut n: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        n.sort();
        n
    };
    let mut want: Vec<&str> = SET.to_vec();
    want.extend(["NOTES", "articles.warc.gz", "index"]);
    want.sort();
    assert_eq!(names(&out), want);
    let manifest = std::fs::read_to_string(out.join("_SUCCESS")).unwrap();
    assert!(manifest.ends_with("  articles.warc.gz\n"), "{manifest}");
    let check = Command::new("sha256sum")
        .args(["--check", "--strict", "--quiet", "_SUCCESS"])
        .current_dir(&out)
        .status()
        .unwrap();
    assert!(check.success());
    assert_eq!(
        std::fs::read_to_string(out.join("index/segments/0")).unwrap(),
        "an index"
    );

    finished(&run(&a, &out, &[]), "without --wet");
    let mut want: Vec<&str> = SET.to_vec();
    want.extend(["NOTES", "index"]);
    want.sort();
    assert_eq!(names(&out), want, "the last run's WET went with its set");
    let siblings: Vec<String> = names(t)
        .into_iter()
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(siblings.is_empty(), "{siblings:?}");
}
