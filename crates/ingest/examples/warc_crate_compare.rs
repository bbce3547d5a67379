//! Compares the `warc` crate (0.4) with fastwarc (2.0, which Canopy uses) on
//! real WARC files: for each file and reader it prints records, `response`
//! records, errors (with the first message), payload bytes, and the best of
//! three wall-clock times with throughput in MB/s of *file* bytes.
//!
//! ```text
//! cargo run --release -p canopy-ingest --example warc_crate_compare -- FILE.warc[.gz]...
//! ```
//!
//! Readers:
//! - `warc iter_records`: `WarcReader::iter_records` (buffers each record).
//! - `warc stream_records`: `WarcReader::stream_records`, bodies read with `io::copy`.
//! - `fastwarc raw`: `ArchiveIterator` in quirks mode, bodies consumed, nothing parsed.
//! - `canopy read_warc`: the full Canopy ingest path; "errors" are its `warc`-stage
//!   rejects and payload bytes are not measured.
//!
//! The `warc` readers open `.gz` files with `WarcReader::from_path_gzip` (libflate,
//! multi-member). Plain files are opened with `File::open`, because
//! `WarcReader::from_path` opens with `create(true)` and no write access, which
//! current Rust rejects with `InvalidInput`; the first run checks and says so.
//! The `warc` readers stop at the first I/O error and after 1000 errors.

use std::fs::File;
use std::io::{self, BufReader};
use std::path::Path;
use std::time::Instant;

use canopy_ingest::{read_warc, Event, IngestOptions};
use fastwarc::warc::iter::{ArchiveIterator, ArchiveIteratorOptions};
use fastwarc::warc::record::WarcRecordType;
use warc::{RecordType, WarcReader};

/// Stop a `warc` loop after this many errors (it may not resynchronise).
const MAX_ERRORS: u64 = 1000;

/// What one reader saw in one file.
#[derive(Default)]
struct Count {
    records: u64,
    responses: u64,
    errors: u64,
    first_error: Option<String>,
    payload: Option<u64>,
}

impl Count {
    fn error(&mut self, e: impl std::fmt::Display) {
        self.errors += 1;
        self.first_error.get_or_insert_with(|| e.to_string());
    }
}

type Reader = fn(&Path) -> io::Result<Count>;

fn main() {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    if paths.is_empty() {
        eprintln!("usage: warc_crate_compare FILE.warc[.gz]...");
        std::process::exit(2);
    }
    if let Some(p) = paths.first() {
        if let Err(e) = WarcReader::from_path(p) {
            println!("note: WarcReader::from_path fails ({e}); plain files use File::open\n");
        }
    }
    let readers: [(&str, Reader); 4] = [
        ("warc iter_records", warc_iter),
        ("warc stream_records", warc_stream),
        ("fastwarc raw", fastwarc_raw),
        ("canopy read_warc", canopy),
    ];
    println!(
        "{:<22} {:>8} {:>9} {:>6} {:>10} {:>8} {:>7}  first error",
        "reader", "records", "responses", "errors", "payload MB", "best s", "MB/s"
    );
    for path in &paths {
        let path = Path::new(path);
        let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0) as f64 / 1e6;
        println!("{} ({size:.1} MB)", path.display());
        for (name, read) in readers {
            let mut best = f64::INFINITY;
            let mut last = None;
            for _ in 0..3 {
                let start = Instant::now();
                let result = read(path);
                best = best.min(start.elapsed().as_secs_f64());
                last = Some(result);
            }
            match last {
                Some(Ok(c)) => println!(
                    "  {name:<20} {:>8} {:>9} {:>6} {:>10} {best:>8.3} {:>7.0}  {}",
                    c.records,
                    c.responses,
                    c.errors,
                    c.payload
                        .map_or("-".to_string(), |b| format!("{:.1}", b as f64 / 1e6)),
                    size / best,
                    c.first_error.unwrap_or_default(),
                ),
                Some(Err(e)) => println!("  {name:<20} cannot open: {e}"),
                None => {}
            }
        }
    }
}

fn is_gzip(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "gz")
}

/// Wraps a `warc` error with its source (its `Display` alone is terse).
fn warc_error(e: &warc::Error) -> String {
    match std::error::Error::source(e) {
        Some(s) => format!("{e} ({s})"),
        None => e.to_string(),
    }
}

fn warc_iter(path: &Path) -> io::Result<Count> {
    fn run<R: io::BufRead>(reader: WarcReader<R>) -> Count {
        let mut c = Count {
            payload: Some(0),
            ..Count::default()
        };
        for item in reader.iter_records() {
            match item {
                Ok(r) => {
                    c.records += 1;
                    c.responses += u64::from(*r.warc_type() == RecordType::Response);
                    c.payload = c.payload.map(|p| p + r.body().len() as u64);
                }
                Err(e) => {
                    c.error(warc_error(&e));
                    if matches!(e, warc::Error::ReadData(_)) || c.errors >= MAX_ERRORS {
                        break;
                    }
                }
            }
        }
        c
    }
    Ok(if is_gzip(path) {
        run(WarcReader::from_path_gzip(path)?)
    } else {
        run(WarcReader::new(BufReader::with_capacity(
            1 << 20,
            File::open(path)?,
        )))
    })
}

fn warc_stream(path: &Path) -> io::Result<Count> {
    fn run<R: io::BufRead>(mut reader: WarcReader<R>) -> Count {
        let mut c = Count::default();
        let mut payload = 0;
        let mut iter = reader.stream_records();
        while let Some(item) = iter.next_item() {
            match item {
                Ok(mut r) => {
                    c.records += 1;
                    c.responses += u64::from(*r.warc_type() == RecordType::Response);
                    match io::copy(&mut r, &mut io::sink()) {
                        Ok(n) => payload += n,
                        Err(e) => {
                            c.error(e);
                            break;
                        }
                    }
                }
                Err(e) => {
                    // The streaming iterator cannot recover from a bad record.
                    c.error(warc_error(&e));
                    break;
                }
            }
        }
        c.payload = Some(payload);
        c
    }
    Ok(if is_gzip(path) {
        run(WarcReader::from_path_gzip(path)?)
    } else {
        run(WarcReader::new(BufReader::with_capacity(
            1 << 20,
            File::open(path)?,
        )))
    })
}

/// The same loop as the `--raw` mode of `warc_throughput`, plus response counts.
fn fastwarc_raw(path: &Path) -> io::Result<Count> {
    let options = ArchiveIteratorOptions {
        quirks_mode: true,
        ..ArchiveIteratorOptions::default()
    };
    let reader = BufReader::with_capacity(1 << 20, File::open(path)?);
    let mut c = Count::default();
    let mut payload = 0;
    for item in ArchiveIterator::with_options(reader, options) {
        match item {
            Ok(r) => {
                let mut r = r.borrow_mut();
                c.records += 1;
                c.responses += u64::from(r.record_type() == WarcRecordType::Response);
                match r.consume() {
                    Ok(n) => payload += n as u64,
                    Err(e) => c.error(e),
                }
            }
            Err(e) => {
                // fastwarc stops after a broken header or compressed stream.
                c.error(e);
                break;
            }
        }
    }
    c.payload = Some(payload);
    Ok(c)
}

fn canopy(path: &Path) -> io::Result<Count> {
    let mut c = Count::default();
    let stats = read_warc(path, &IngestOptions::default(), &mut |event| {
        if let Event::Reject(r) = event {
            if r.stage == canopy_types::Stage::Warc {
                c.error(r.reason);
            }
        }
    })?;
    c.records = stats.records;
    c.responses = stats.responses;
    Ok(c)
}
