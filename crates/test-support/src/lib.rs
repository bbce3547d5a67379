//! Helpers for the workspace's tests (a dev-dependency only): where the
//! shared corpora are, their manifests, JSON-lines outputs, running the
//! `canopy` binary, and gzip members and noise for broken WARC files.
//! Tests read the corpora from `../shared/corpora`, never from a copy in
//! the repository.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `../shared/corpora` beside the workspace. Panics with a clear message
/// unless both big9's and dragnet's manifests are there, so that no test
/// passes vacuously on a machine without the corpora.
pub fn corpora() -> PathBuf {
    let dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/corpora"
    ));
    assert!(
        dir.join("big9/manifest.tsv").is_file() && dir.join("dragnet/manifest.tsv").is_file(),
        "the shared corpora are missing: expected {}/{{big9,dragnet}}/manifest.tsv \
         (../shared/corpora beside the workspace)",
        dir.display()
    );
    dir
}

/// A file or folder under the corpora (`big9`, `warc/pywb/iana.warc.gz`),
/// asserting it exists.
pub fn corpus_file(rel: &str) -> PathBuf {
    let p = corpora().join(rel);
    assert!(p.exists(), "corpus file missing: {}", p.display());
    p
}

/// The pages of `<corpus>/html` (`big9`, `dragnet`, `trafbench`), in
/// file-name order.
pub fn corpus_pages(corpus: &str) -> Vec<PathBuf> {
    let dir = corpus_file(&format!("{corpus}/html"));
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the corpus's pages")
        .map(|e| e.expect("a directory entry").path())
        .collect();
    files.sort();
    files
}

/// One manifest row: column name → value.
pub type Row = HashMap<String, String>;

/// The rows of `<corpus>/manifest.tsv` (`big9`, `dragnet`).
pub fn manifest(corpus: &str) -> Vec<Row> {
    let path = corpus_file(&format!("{corpus}/manifest.tsv"));
    let text = std::fs::read_to_string(&path).expect("manifest is UTF-8");
    let mut lines = text.lines();
    let header: Vec<String> = lines
        .next()
        .expect("manifest header")
        .split('\t')
        .map(String::from)
        .collect();
    lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            header
                .iter()
                .cloned()
                .zip(l.split('\t').map(String::from))
                .collect()
        })
        .collect()
}

/// Every line of a JSON-lines file (`articles.jsonl`, …) as a value.
pub fn jsonl(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// One uncompressed WARC/1.0 response record around an HTTP message: the
/// head (`\n` line ends, turned into CRLF), a blank line, then `body`. The
/// record id ends with `id`; the date is fixed.
pub fn warc_response(id: u32, uri: &str, http_head: &str, body: &[u8]) -> Vec<u8> {
    warc_response_at(id, uri, "2024-01-01T00:00:00Z", http_head, body)
}

/// [`warc_response`] with `date` as its `WARC-Date`.
pub fn warc_response_at(id: u32, uri: &str, date: &str, http_head: &str, body: &[u8]) -> Vec<u8> {
    let mut http = http_head.replace('\n', "\r\n").into_bytes();
    http.extend_from_slice(b"\r\n");
    http.extend_from_slice(body);
    let mut rec = format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: {uri}\r\nWARC-Date: {date}\r\n\
         WARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-{id:012}>\r\n\
         Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
        http.len()
    )
    .into_bytes();
    rec.extend_from_slice(&http);
    rec.extend_from_slice(b"\r\n\r\n");
    rec
}

/// Runs `bin ARGS` (the `canopy` binary: `env!("CARGO_BIN_EXE_canopy")` in
/// a test) and asserts it finished: exit 0, or 1 (some records rejected).
pub fn run_finished<S: AsRef<OsStr>>(bin: &Path, args: &[S]) -> Output {
    let output = Command::new(bin)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", bin.display()));
    let shown: Vec<_> = args.iter().map(|a| a.as_ref().to_string_lossy()).collect();
    assert!(
        matches!(output.status.code(), Some(0 | 1)),
        "canopy {shown:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// `len` bytes of deterministic noise (xorshift32): data that deflate
/// cannot compress, and so stores as it is.
pub fn noise(len: usize) -> Vec<u8> {
    let mut x: u32 = 2_463_534_242;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as u8
        })
        .collect()
}

/// warcio's ARC file (`warc/warcio/example.arc.gz`, one gzip member per
/// record: the version block, then an HTTP response for
/// `http://example.com/`) inflated to a plain ARC, and the byte offset of
/// its response's header line there.
pub fn example_arc_plain() -> (Vec<u8>, u64) {
    use std::io::Read;
    let mut plain = Vec::new();
    flate2::read::MultiGzDecoder::new(
        std::fs::File::open(corpus_file("warc/warcio/example.arc.gz")).expect("readable"),
    )
    .read_to_end(&mut plain)
    .expect("whole gzip members");
    let header_at = plain
        .windows(20)
        .position(|w| w == b"http://example.com/ ")
        .expect("the response's header line");
    (plain, header_at as u64)
}

/// Where each gzip member of `gz` ends. Panics unless `gz` is whole
/// members.
pub fn gzip_member_ends(gz: &[u8]) -> Vec<usize> {
    let mut ends = Vec::new();
    let mut rest = gz;
    while !rest.is_empty() {
        let mut member = flate2::bufread::GzDecoder::new(rest);
        std::io::copy(&mut member, &mut std::io::sink()).expect("whole gzip members");
        rest = member.into_inner();
        ends.push(gz.len() - rest.len());
    }
    ends
}

/// `gz` (whole gzip members) with `member` inserted at the first member end
/// at or after `min_offset`; and that offset.
pub fn insert_member(gz: &[u8], min_offset: usize, member: &[u8]) -> (Vec<u8>, usize) {
    let at = *gzip_member_ends(gz)
        .iter()
        .find(|&&end| end >= min_offset)
        .expect("a member end that far in");
    let mut out = gz[..at].to_vec();
    out.extend_from_slice(member);
    out.extend_from_slice(&gz[at..]);
    (out, at)
}

/// A gzip member holding one HTML response for `uri`, 366 KB of body once
/// inflated (32 KB compressed), whose CRC is wrong: it inflates to its end,
/// then fails its check.
pub fn corrupt_gzip_member(uri: &str) -> Vec<u8> {
    use std::io::Write;
    let body: String = (0..8000)
        .map(|i| format!("<p class=\"c{}\">paragraph {i} of the page</p>\n", i % 97))
        .collect();
    let record = warc_response(
        1,
        uri,
        "HTTP/1.1 200 OK\nContent-Type: text/html; charset=utf-8\n",
        body.as_bytes(),
    );
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&record).expect("writing to memory");
    let mut member = gz.finish().expect("writing to memory");
    let crc = member.len() - 8;
    member[crc] ^= 0xff;
    member
}
