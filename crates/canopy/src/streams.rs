//! Inputs that are streams: a WARC on standard input (`-`) and http(s)
//! URLs, read front to back as they arrive (`canopy_ingest::HttpBody`
//! resumes a download after a dropped connection).

use std::io::{self, Read};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use canopy_ingest::{IngestOptions, RemoteOptions, SplitItem, WarcStats};

use crate::inputs::STDIN;

/// Reads the stream `input` names; its stats and the bytes read. `Err`
/// when it cannot be opened (an http error, a refused connection after
/// the retries).
pub fn read(
    input: &Path,
    options: &IngestOptions,
    on_item: &mut dyn FnMut(SplitItem),
) -> io::Result<(WarcStats, u64)> {
    let name = input.display().to_string();
    let bytes = Arc::new(AtomicU64::new(0));
    let stats = if name == STDIN {
        let stdin = Counted::new(io::stdin(), &bytes);
        canopy_ingest::read_warc_stream_split(&name, stdin, options, on_item)
    } else {
        let body = canopy_ingest::HttpBody::open(&name, &RemoteOptions::default())?;
        let body = Counted::new(body, &bytes);
        canopy_ingest::read_warc_stream_split(&name, body, options, on_item)
    };
    Ok((stats, bytes.load(Ordering::Relaxed)))
}

/// A reader that counts the bytes it hands out.
struct Counted<R> {
    inner: R,
    bytes: Arc<AtomicU64>,
}

impl<R> Counted<R> {
    fn new(inner: R, bytes: &Arc<AtomicU64>) -> Counted<R> {
        Counted {
            inner,
            bytes: Arc::clone(bytes),
        }
    }
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.bytes.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}
