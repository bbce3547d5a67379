//! Where reading a WARC file can go on after fastwarc stopped at an error.
//!
//! Common Crawl writes one gzip member per record, so a member whose
//! deflate data is broken (a flipped bit, a torn write, a bad disk sector)
//! spoils one record, not the file. fastwarc's reader stops at the error,
//! and at a record header it cannot parse;
//! [`next_record_member`] finds the next member that inflates cleanly to
//! the start of a WARC record, [`next_record_line`] the next version line
//! of a plain file, so that reading resumes there and the stretch in
//! between becomes one reject (`warc.rs`, `read_file`). A file compressed
//! as one member has no later member to resume at: its reading still stops
//! at the error.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

use zlib_rs::{Inflate, InflateFlush, Status};

use crate::gzip_segments::{header_from, GZIP_WINDOW_BITS, HEADER_LEN};

/// Compressed bytes scanned at a time for a member header.
const SCAN_BYTES: usize = 1 << 20;
/// A candidate member that has inflated this many bytes without an error
/// is taken as real without inflating the rest: a record's member
/// inflates to at most a few megabytes, and the probe of every false
/// header in a hostile file stays bounded.
const PROBE_OUTPUT: usize = 1 << 20;
/// Compressed bytes read at first while probing a candidate (a false
/// header fails within them), doubled at each read up to [`PROBE_INPUT`].
const PROBE_FIRST_INPUT: usize = 4 << 10;
/// Most compressed bytes read at a time while probing a candidate.
const PROBE_INPUT: usize = 64 << 10;
/// What the scans of one file may read besides its size, twice over: a
/// scan reads the file forward, but the probe of each header-like candidate
/// reads on from it, and a hostile file can nest such candidates (stored
/// blocks holding further members) so that probes overlap. A scan that
/// runs out gives up, and reading stops there as it would without resync.
const BUDGET_EXTRA: u64 = 64 << 20;
/// What a WARC record's decompressed bytes start with.
const WARC_MAGIC: &[u8] = b"WARC/";
/// The version lines a record of a plain file starts with, after the
/// line break that ends what precedes it.
const VERSION_LINES: [&[u8]; 4] = [
    b"\nWARC/1.0\r\n",
    b"\nWARC/1.1\r\n",
    b"\nWARC/1.0\n",
    b"\nWARC/1.1\n",
];

/// The bytes the scans of one file may still read ([`BUDGET_EXTRA`]).
#[derive(Debug)]
pub(crate) struct Budget {
    left: u64,
}

impl Budget {
    /// The budget of a file of `len` bytes.
    pub(crate) fn for_file(len: u64) -> Budget {
        Budget {
            left: len.saturating_mul(2).saturating_add(BUDGET_EXTRA),
        }
    }

    /// Takes `n` bytes read; false once the budget is spent.
    fn take(&mut self, n: usize) -> bool {
        self.left = self.left.saturating_sub(n as u64);
        self.left > 0
    }
}

/// Where the scan for the next record's member stopped.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Resync {
    /// The first offset at or after the scan's start that looked like a
    /// member header but did not inflate to a record (the corrupt member,
    /// where its header survived).
    pub(crate) first_broken: Option<u64>,
    /// The next member that inflates cleanly and starts with `WARC/`.
    pub(crate) next: Option<u64>,
    /// Whether the scan stopped because the file's [`Budget`] was spent.
    pub(crate) gave_up: bool,
}

impl Resync {
    /// Reading gives up at the stretch.
    pub(crate) fn given_up() -> Resync {
        Resync {
            gave_up: true,
            ..Resync::default()
        }
    }
}

/// Scans `path` from offset `from` for the next gzip member that inflates
/// without an error (all of it, or its first [`PROBE_OUTPUT`] bytes) to
/// bytes that start with `WARC/`.
pub(crate) fn next_record_member(
    path: &Path,
    from: u64,
    budget: &mut Budget,
) -> io::Result<Resync> {
    let mut scan = File::open(path)?;
    let mut probe = File::open(path)?;
    scan.seek(SeekFrom::Start(from))?;
    let mut found = Resync::default();
    // `buf` holds the file from offset `base`; the search goes on at `at`.
    let (mut base, mut buf, mut at, mut eof) = (from, Vec::new(), 0, false);
    loop {
        // Any operating system byte, unlike the segments' cuts: writers
        // put unusual values there (the Common Crawl extract in
        // `data/warc` has 19), and the probe tells a member anyway.
        match header_from(&buf, at, |_| true) {
            Some(p) => {
                let offset = base + p as u64;
                let Some(starts) = starts_a_record(&mut probe, offset, budget)? else {
                    found.gave_up = true;
                    return Ok(found);
                };
                if starts {
                    found.next = Some(offset);
                    return Ok(found);
                }
                found.first_broken.get_or_insert(offset);
                at = p + 1;
            }
            None if eof => return Ok(found),
            None => {
                // Only the last bytes held may start a header that the
                // next chunk completes.
                let keep_from = at.max(buf.len().saturating_sub(HEADER_LEN - 1));
                buf.drain(..keep_from);
                base += keep_from as u64;
                at = 0;
                let read = (&mut scan).take(SCAN_BYTES as u64).read_to_end(&mut buf)?;
                eof = read == 0;
                if !budget.take(read) {
                    found.gave_up = true;
                    return Ok(found);
                }
            }
        }
    }
}

/// Whether the gzip member at `offset` inflates without an error (to its
/// end, or for [`PROBE_OUTPUT`] bytes) to bytes that start with `WARC/`;
/// `None` once `budget` is spent.
fn starts_a_record(file: &mut File, offset: u64, budget: &mut Budget) -> io::Result<Option<bool>> {
    file.seek(SeekFrom::Start(offset))?;
    let mut inflate = Inflate::new(true, GZIP_WINDOW_BITS);
    let mut input = vec![0u8; PROBE_INPUT];
    let mut output = vec![0u8; 64 << 10];
    let mut head: Vec<u8> = Vec::with_capacity(WARC_MAGIC.len());
    let mut produced_total = 0usize;
    let mut chunk = PROBE_FIRST_INPUT;
    loop {
        let n = file.read(&mut input[..chunk])?;
        chunk = (chunk * 2).min(PROBE_INPUT);
        if !budget.take(n) {
            return Ok(None);
        }
        if n == 0 {
            // The file ends inside the member: a truncated member.
            return Ok(Some(false));
        }
        let mut used = 0;
        while used < n {
            let (total_in, total_out) = (inflate.total_in(), inflate.total_out());
            let status =
                match inflate.decompress(&input[used..n], &mut output, InflateFlush::NoFlush) {
                    Ok(status) => status,
                    Err(_) => return Ok(Some(false)),
                };
            let consumed = (inflate.total_in() - total_in) as usize;
            let produced = (inflate.total_out() - total_out) as usize;
            used += consumed;
            let wanted = WARC_MAGIC.len() - head.len();
            head.extend_from_slice(&output[..produced.min(wanted)]);
            if head.len() == WARC_MAGIC.len() && head != WARC_MAGIC {
                return Ok(Some(false));
            }
            produced_total += produced;
            if status == Status::StreamEnd || produced_total >= PROBE_OUTPUT {
                return Ok(Some(head == WARC_MAGIC));
            }
            if consumed == 0 && produced == 0 {
                // No progress with input and room left: not a member.
                return Ok(Some(false));
            }
        }
    }
}

/// Scans the plain WARC file at `path` from offset `from` for the next
/// line that starts a record (`WARC/1.0` or `WARC/1.1`, after a line
/// break): where reading goes on after a record header fastwarc cannot
/// parse.
pub(crate) fn next_record_line(path: &Path, from: u64, budget: &mut Budget) -> io::Result<Resync> {
    let mut scan = File::open(path)?;
    // From the byte before, so that a line starting at `from` is seen.
    let start = from.saturating_sub(1);
    scan.seek(SeekFrom::Start(start))?;
    let longest = VERSION_LINES.iter().map(|l| l.len()).max().unwrap_or(0);
    let (mut base, mut buf) = (start, Vec::new());
    loop {
        let read = (&mut scan).take(SCAN_BYTES as u64).read_to_end(&mut buf)?;
        if !budget.take(read) {
            return Ok(Resync::given_up());
        }
        let found = memchr::memmem::find_iter(&buf, b"\nWARC/1.").find(|&i| {
            VERSION_LINES.iter().any(|line| buf[i..].starts_with(line))
                && base + i as u64 + 1 >= from
        });
        if let Some(i) = found {
            return Ok(Resync {
                next: Some(base + i as u64 + 1),
                ..Resync::default()
            });
        }
        if read == 0 {
            return Ok(Resync::default());
        }
        // Keep the bytes a version line may straddle.
        let keep_from = buf.len().saturating_sub(longest - 1);
        buf.drain(..keep_from);
        base += keep_from as u64;
    }
}
