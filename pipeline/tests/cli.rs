//! The command line itself: help, completions, the manual page, and
//! flags that cannot work together.

mod common;

use std::process::Command;

use common::{bin, corpus_file};

fn stdout(args: &[&str]) -> String {
    let out = Command::new(bin()).args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{args:?}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn help_lists_every_method_and_format() {
    let help = stdout(&["run", "--help"]);
    for method in [
        "forest",
        "forest-feeds",
        "coverage",
        "page",
        "sigfeed",
        "description",
        "wlr",
        "cnr",
        "wnr",
        "clr",
        "r4",
        "blockextractor",
        "density",
    ] {
        assert!(help.contains(method), "--help does not name {method}");
    }
    for format in ["text:", "html:", "markdown:"] {
        assert!(help.contains(format), "--help does not explain {format}");
    }
}

#[test]
fn completions_and_manual_page_come_from_the_flags() {
    let bash = stdout(&["completions", "bash"]);
    assert!(
        bash.contains("--input-list") && bash.contains("partition"),
        "{bash}"
    );
    let zsh = stdout(&["completions", "zsh"]);
    assert!(zsh.starts_with("#compdef canopy"), "{zsh}");
    let man = stdout(&["man"]);
    assert!(man.contains(".TH canopy 1"), "{man}");
}

/// A method that reads feed items refuses a crawl without feeds (exit 2)
/// instead of quietly being another method.
#[test]
fn methods_that_need_feeds_refuse_inputs_without_any() {
    let dir = tempfile::tempdir().unwrap();
    for extra in [&["--method", "sigfeed"][..], &["--signifiers", "feeds"][..]] {
        let out = Command::new(bin())
            .arg("run")
            .arg(corpus_file("big9/big9.warc.gz"))
            .arg("--out")
            .arg(dir.path().join("out"))
            .args(extra)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{extra:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("needs feeds"), "{err}");
    }
    // A feed given but not readable: the refusal says which and why, as
    // the run stops before writing the reject.
    let feed = dir.path().join("broken.rss");
    std::fs::write(&feed, "<rss version=\"2.0\"><channel><item><title>cut").unwrap();
    let out = Command::new(bin())
        .arg("run")
        .arg(corpus_file("big9/big9.warc.gz"))
        .arg(&feed)
        .arg("--out")
        .arg(dir.path().join("out"))
        .args(["--method", "forest-feeds"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("the feed given could not be read") && err.contains("broken.rss: "),
        "{err}"
    );
}
