//! Reads one WARC file with `canopy_ingest::read_warc` and prints record,
//! page, feed and reject counts and throughput (file bytes per second).
//!
//! ```text
//! cargo run --release -p canopy-ingest --example warc_throughput -- FILE.warc.gz [-v]
//! ```
//! With `-v`, every reject is printed too. With `--raw`, the file is also
//! iterated with bare fastwarc (HTTP headers parsed, payloads consumed, no
//! decoding) to show the parser's own speed.

use std::path::PathBuf;
use std::time::Instant;

use canopy_ingest::{read_warc, Event, IngestOptions};

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next().map(PathBuf::from) else {
        eprintln!("usage: warc_throughput FILE.warc[.gz] [-v]");
        std::process::exit(2);
    };
    let rest: Vec<String> = args.collect();
    let verbose = rest.iter().any(|a| a == "-v");
    if rest.iter().any(|a| a == "--raw") {
        raw_fastwarc(&path);
    }
    let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    let opts = IngestOptions::default();
    let mut page_bytes = 0usize;
    let start = Instant::now();
    let result = read_warc(&path, &opts, &mut |event| match event {
        Event::Page(p) => page_bytes += p.html.len(),
        Event::Reject(r) if verbose => eprintln!(
            "reject @{:?} {:?} [{}] {}",
            r.source.offset, r.record_id, r.stage, r.reason
        ),
        _ => {}
    });
    let secs = start.elapsed().as_secs_f64();
    match result {
        Ok(stats) => {
            let mb = size as f64 / 1e6;
            println!(
                "{}: {} records, {} responses, {} pages, {} feeds, {} revisits, {} skipped, {} rejected; \
                 {:.1} MB file, {:.1} MB decoded HTML in {:.3} s = {:.0} MB/s (file), {:.0} MB/s (HTML)",
                path.display(),
                stats.records,
                stats.responses,
                stats.html,
                stats.feeds,
                stats.revisits,
                stats.skipped(),
                stats.rejected,
                mb,
                page_bytes as f64 / 1e6,
                secs,
                mb / secs,
                page_bytes as f64 / 1e6 / secs,
            );
        }
        Err(e) => {
            eprintln!("{}: cannot open: {e}", path.display());
            std::process::exit(1);
        }
    }
}

/// Iterates the file with fastwarc alone and prints its speed.
fn raw_fastwarc(path: &std::path::Path) {
    use fastwarc::warc::iter::{ArchiveIterator, ArchiveIteratorOptions};
    let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0) as f64 / 1e6;
    let options = ArchiveIteratorOptions {
        quirks_mode: true,
        ..ArchiveIteratorOptions::default()
    };
    let start = Instant::now();
    let Ok(file) = std::fs::File::open(path) else {
        eprintln!("{}: cannot open", path.display());
        return;
    };
    let reader = std::io::BufReader::with_capacity(1 << 20, file);
    let mut records = 0u64;
    let mut bytes = 0u64;
    for record in ArchiveIterator::with_options(reader, options) {
        match record {
            Ok(r) => {
                records += 1;
                bytes += r.borrow_mut().consume().unwrap_or(0) as u64;
            }
            Err(_) => break,
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "fastwarc only: {records} records, {:.1} MB payload in {secs:.3} s = {:.0} MB/s (file)",
        bytes as f64 / 1e6,
        size / secs
    );
}
