//! `stats.json`: a run's figures in its output set, for the scheduler
//! and the dashboards that read a finished folder rather than stderr.
//!
//! Two parts. `counts` is a function of the inputs and settings alone,
//! the same for any thread count, work folder, or `run` against the
//! scale-out steps (what the summary lines say, and the breakdowns of
//! `rejects.jsonl` and `duplicates.jsonl`). `measured` is this run's:
//! threads, wall time, rates and peak memory, different at every run. So
//! the file's own bytes (and its line in `_SUCCESS`) differ between two
//! runs of the same inputs; every other output's do not.

use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::Context;
use crate::merge::RunStats;

/// The file's name in the output set.
pub const STATS: &str = "stats.json";

/// The whole file, its keys in this order.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StatsFile {
    /// Canopy's version.
    pub canopy: String,
    /// The extraction method (`--method`).
    pub method: String,
    /// What the inputs and settings give, whatever the run.
    pub counts: Counts,
    /// What this run took.
    pub measured: Measured,
}

/// The deterministic part: every record read ends as one article, feed,
/// revisit, skip, reject or article left out by language, so `records` =
/// `articles` + `feeds` + `revisits` + `skipped` + `rejected` +
/// `left_out_by_language`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    /// Bytes of the inputs read (compressed, as stored).
    pub input_bytes: u64,
    /// WARC and ARC records, feed files and unreadable inputs read.
    pub records: u64,
    /// Lines of `articles.jsonl`.
    pub articles: u64,
    /// Articles a wrapper served.
    pub by_wrapper: u64,
    /// Articles the page-level method served.
    pub by_page_method: u64,
    /// Feed records and feed files read.
    pub feeds: u64,
    /// Items of feeds inside WARCs dropped for speaking for another site
    /// (`--trust-feeds` keeps them).
    pub feed_items_foreign: u64,
    /// WARC `revisit` records.
    pub revisits: u64,
    /// Records skipped: `skipped_on_reading` + `duplicates`.
    pub skipped: u64,
    /// Requests, metadata, `warcinfo`, non-HTML payloads, empty bodies.
    pub skipped_on_reading: u64,
    /// `skipped_on_reading` by reason: `record type` (requests, metadata,
    /// `warcinfo`…), `not a page` (payloads neither HTML nor a feed),
    /// `empty body`.
    pub skipped_on_reading_by_reason: BTreeMap<String, u64>,
    /// Pages left out as duplicates (lines of `duplicates.jsonl`).
    pub duplicates: u64,
    /// `duplicates` by their `reason` (`same URL`, `same HTML`, `near duplicate`).
    pub duplicates_by_reason: BTreeMap<String, u64>,
    /// Records rejected (lines of `rejects.jsonl` less `wrapper_rejects`).
    pub rejected: u64,
    /// Lines of `rejects.jsonl` by their `stage` (`warc`, `http`, `feed`,
    /// `url`, `extract`, …), `wrapper_rejects` included.
    pub rejects_by_stage: BTreeMap<String, u64>,
    /// The same lines by stage, then by the kind of their reason
    /// ([`reason_kind`]: "truncated record", "HTTP status N").
    pub rejects_by_reason: BTreeMap<String, BTreeMap<String, u64>>,
    /// Lines of the saved wrappers file (`--wrappers`) that could not be used.
    pub wrapper_rejects: u64,
    /// Articles not written for their language (`--lang`).
    pub left_out_by_language: u64,
    /// `left_out_by_language` by language code.
    pub languages_left_out: BTreeMap<String, u64>,
    /// Template clusters (rows of `summary.csv`).
    pub clusters: u64,
    /// Lines of `wrappers.jsonl`.
    pub wrappers: u64,
}

/// The part that differs from run to run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Measured {
    /// Worker threads (`--threads`).
    pub threads: usize,
    /// Wall time in seconds (the summary line's; for `canopy merge`, the
    /// merge's own), to the millisecond.
    pub seconds: f64,
    /// Articles per second (the summary line's pages/s).
    pub pages_per_second: f64,
    /// Input bytes per second.
    pub input_bytes_per_second: f64,
    /// The process's peak resident memory in bytes (`VmHWM`; for a Python
    /// caller, the interpreter's whole life so far); `null` where not
    /// known (systems other than Linux).
    pub peak_memory_bytes: Option<u64>,
}

impl Counts {
    /// The counts of `stats`, with the breakdowns of the `rejects.jsonl`
    /// and `duplicates.jsonl` already written into `out`.
    pub fn of(stats: &RunStats, out: &Path) -> crate::Result<Counts> {
        // One read of rejects.jsonl: the stages' counts add up their kinds.
        let rejects_by_reason = tally_reasons(&out.join("rejects.jsonl"))?;
        let rejects_by_stage = rejects_by_reason
            .iter()
            .map(|(stage, kinds)| (stage.clone(), kinds.values().sum()))
            .collect();
        Ok(Counts {
            input_bytes: stats.bytes,
            records: stats.records,
            articles: stats.articles,
            by_wrapper: stats.by_wrapper,
            by_page_method: stats.articles - stats.by_wrapper,
            feeds: stats.feeds,
            feed_items_foreign: stats.feed_items_foreign,
            revisits: stats.revisits,
            skipped: stats.all_skipped(),
            skipped_on_reading: stats.skipped,
            skipped_on_reading_by_reason: stats.skipped_by.clone(),
            duplicates: stats.duplicates,
            duplicates_by_reason: tally(&out.join("duplicates.jsonl"), "reason")?,
            rejected: stats.rejects - stats.wrapper_rejects,
            rejects_by_stage,
            rejects_by_reason,
            wrapper_rejects: stats.wrapper_rejects,
            left_out_by_language: stats.lang_filtered.values().sum(),
            languages_left_out: stats.lang_filtered.clone(),
            clusters: stats.clusters,
            wrappers: stats.wrappers,
        })
    }

    /// The records whose outcome the counts hold (equal to `records`).
    pub fn accounted(&self) -> u64 {
        self.articles
            + self.feeds
            + self.revisits
            + self.skipped
            + self.rejected
            + self.left_out_by_language
    }
}

impl Measured {
    /// This process's figures for a run of `counts` that took `seconds`
    /// on `threads` threads.
    pub fn now(counts: &Counts, seconds: f64, threads: usize) -> Measured {
        let per_second = |n: u64| (n as f64 / seconds.max(1e-9) * 10.0).round() / 10.0;
        Measured {
            threads,
            seconds: (seconds * 1000.0).round() / 1000.0,
            pages_per_second: per_second(counts.articles),
            input_bytes_per_second: per_second(counts.input_bytes),
            peak_memory_bytes: peak_memory_bytes(),
        }
    }
}

/// How many lines of the JSON Lines file `path` have each value of the
/// string field `key` (none when the file is missing).
fn tally(path: &Path, key: &str) -> crate::Result<BTreeMap<String, u64>> {
    let mut counts = BTreeMap::new();
    for_each_line(path, |fields| {
        let value = fields.get(key).and_then(|v| v.as_str()).unwrap_or_default();
        *counts.entry(value.to_string()).or_insert(0) += 1;
    })?;
    Ok(counts)
}

/// The lines of `rejects.jsonl` at `path` by stage and kind of reason.
fn tally_reasons(path: &Path) -> crate::Result<BTreeMap<String, BTreeMap<String, u64>>> {
    let mut counts: BTreeMap<String, BTreeMap<String, u64>> = BTreeMap::new();
    for_each_line(path, |fields| {
        let field = |key: &str| fields.get(key).and_then(|v| v.as_str()).unwrap_or_default();
        *counts
            .entry(field("stage").to_string())
            .or_default()
            .entry(reason_kind(field("reason")))
            .or_insert(0) += 1;
    })?;
    Ok(counts)
}

/// Calls `each` with the fields of every line of the JSON Lines file
/// `path` (none when the file is missing).
fn for_each_line(
    path: &Path,
    mut each: impl FnMut(&BTreeMap<String, serde_json::Value>),
) -> crate::Result<()> {
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    for (n, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.with_context(|| format!("cannot read {}", path.display()))?;
        let fields: BTreeMap<String, serde_json::Value> =
            serde_json::from_str(&line).map_err(|e| {
                crate::Error::Invalid(format!("{} line {}: {e}", path.display(), n + 1))
            })?;
        each(&fields);
    }
    Ok(())
}

/// The kind of a reject's reason, to count rejects by: a reason says what
/// went wrong, then `: ` and its particulars ("truncated record: expected
/// 88038 payload bytes, found 74970"), so its kind is the part before the
/// first `: `, with each run of digits written `N` ("HTTP status N",
/// "page_budget_ms N exceeded").
pub fn reason_kind(reason: &str) -> String {
    let head = reason.split(": ").next().unwrap_or_default();
    let mut kind = String::with_capacity(head.len());
    let mut in_digits = false;
    for c in head.chars() {
        if c.is_ascii_digit() {
            if !in_digits {
                kind.push('N');
            }
            in_digits = true;
        } else {
            kind.push(c);
            in_digits = false;
        }
    }
    kind
}

/// The process's peak resident set size in bytes: `VmHWM` of
/// `/proc/self/status`, the high-water mark of this process's own memory
/// since it started. Not `getrusage`'s `ru_maxrss`: Linux carries that
/// across `execve`, so a `canopy` started by a large parent (a test
/// harness, a Spark executor) reported the parent's peak (a Python parent
/// holding 900 MiB made a 22 MiB run of `data/` report 913 MiB).
#[cfg(target_os = "linux")]
fn peak_memory_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kib = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))?
        .trim()
        .strip_suffix("kB")?
        .trim()
        .parse::<u64>()
        .ok()?;
    Some(kib * 1024)
}

#[cfg(not(target_os = "linux"))]
fn peak_memory_bytes() -> Option<u64> {
    None
}

/// Writes `out/stats.json` for a run of `stats` with `method` that took
/// `seconds` on `threads` threads; call it once `rejects.jsonl` and
/// `duplicates.jsonl` are in `out`, before `_SUCCESS`.
pub fn write(
    out: &Path,
    stats: &RunStats,
    method: &str,
    seconds: f64,
    threads: usize,
) -> crate::Result<StatsFile> {
    let counts = Counts::of(stats, out)?;
    let file = StatsFile {
        canopy: crate::fingerprint::VERSION.to_string(),
        method: method.to_string(),
        measured: Measured::now(&counts, seconds, threads),
        counts,
    };
    canopy_output::write_atomic(out, STATS, |w| {
        serde_json::to_writer_pretty(&mut *w, &file)?;
        w.write_all(b"\n")
    })
    .with_context(|| format!("cannot write {}/{STATS}", out.display()))?;
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::reason_kind;

    #[test]
    fn a_reason_s_kind_is_its_head_without_figures() {
        assert_eq!(
            reason_kind("truncated record: expected 88038 payload bytes, found 74970"),
            "truncated record"
        );
        assert_eq!(reason_kind("HTTP status 404"), "HTTP status N");
        assert_eq!(
            reason_kind("page_budget_ms 2000 exceeded: during extraction"),
            "page_budget_ms N exceeded"
        );
        assert_eq!(
            reason_kind("stopped reading after 12 records: unexpected end of file"),
            "stopped reading after N records"
        );
        assert_eq!(reason_kind(""), "");
    }
}
