//! WARC data that cannot seek: standard input and http(s) bodies.
//!
//! fastwarc reads through `Read + Seek`, but on a WARC it only ever asks
//! where it is and skips forward (to the end of a record's block); the
//! compression is told from the first bytes (`framing::open`), never by
//! going back. [`Forward`] gives any `Read` that interface: it counts its
//! position and skips forward by reading, and refuses to go back.

use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};

/// A forward-only, buffered view of `R` that knows its position.
pub(crate) struct Forward<R> {
    inner: BufReader<R>,
    pos: u64,
}

/// The buffer: as large as the one files are read with.
const BUFFER: usize = 1 << 20;

impl<R: Read> Forward<R> {
    pub(crate) fn new(inner: R) -> Forward<R> {
        Forward {
            inner: BufReader::with_capacity(BUFFER, inner),
            pos: 0,
        }
    }
}

impl<R: Read> Read for Forward<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.pos += n as u64;
        Ok(n)
    }
}

impl<R: Read> BufRead for Forward<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amt: usize) {
        self.inner.consume(amt);
        self.pos += amt as u64;
    }
}

impl<R: Read> Seek for Forward<R> {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        let target = forward_target(self.pos, pos, "a stream")?;
        let skip = target - self.pos;
        let skipped = io::copy(&mut self.by_ref().take(skip), &mut io::sink())?;
        if skipped < skip {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the stream ends before the position sought",
            ));
        }
        Ok(self.pos)
    }

    fn stream_position(&mut self) -> io::Result<u64> {
        Ok(self.pos)
    }
}

/// A stream whose first bytes were read ahead to tell what it is: they
/// are read again first, then an error met while reading them (if any),
/// then the rest, so that reading it gives what the stream gave.
pub(crate) struct Peeked<R> {
    head: io::Cursor<Vec<u8>>,
    error: Option<io::Error>,
    rest: R,
}

impl<R: Read> Peeked<R> {
    /// Reads up to `n` bytes of `rest` ahead (fewer if it ends or fails).
    pub(crate) fn new(mut rest: R, n: usize) -> Peeked<R> {
        let mut head = Vec::with_capacity(n);
        let mut error = None;
        while head.len() < n {
            let mut chunk = [0u8; 8 << 10];
            let want = chunk.len().min(n - head.len());
            match rest.read(&mut chunk[..want]) {
                Ok(0) => break,
                Ok(got) => head.extend_from_slice(&chunk[..got]),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    error = Some(e);
                    break;
                }
            }
        }
        Peeked {
            head: io::Cursor::new(head),
            error,
            rest,
        }
    }

    /// The bytes read ahead.
    pub(crate) fn head(&self) -> &[u8] {
        self.head.get_ref()
    }
}

impl<R: Read> Read for Peeked<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.head.read(buf)?;
        if n > 0 || buf.is_empty() {
            return Ok(n);
        }
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.rest.read(buf)
    }
}

/// Where a seek to `to` from position `pos` lands in a reader that only
/// goes forward (`what` names it in the errors): an error for a seek from
/// the end, or back.
pub(crate) fn forward_target(pos: u64, to: SeekFrom, what: &str) -> io::Result<u64> {
    let target = match to {
        SeekFrom::Start(p) => p,
        SeekFrom::Current(d) => pos
            .checked_add_signed(d)
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "seek before the start"))?,
        SeekFrom::End(_) => {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                format!("seeking from the end of {what}"),
            ))
        }
    };
    if target < pos {
        return Err(io::Error::new(
            io::ErrorKind::Unsupported,
            format!("seeking backwards in {what}"),
        ));
    }
    Ok(target)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skips_forward_and_refuses_to_go_back() {
        let mut f = Forward::new(&b"0123456789"[..]);
        let mut two = [0u8; 2];
        f.read_exact(&mut two).unwrap();
        assert_eq!(f.seek(SeekFrom::Current(3)).unwrap(), 5);
        f.read_exact(&mut two).unwrap();
        assert_eq!(&two, b"56");
        assert_eq!(f.stream_position().unwrap(), 7);
        assert!(f.seek(SeekFrom::Start(1)).is_err());
        assert!(f.seek(SeekFrom::Start(20)).is_err());
    }

    /// A reader that gives `bytes`, then fails once, then gives `after`.
    struct FailsOnce {
        bytes: &'static [u8],
        failed: bool,
        after: &'static [u8],
    }

    impl Read for FailsOnce {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if !self.bytes.is_empty() {
                return self.bytes.read(buf);
            }
            if !self.failed {
                self.failed = true;
                return Err(io::Error::other("dropped"));
            }
            self.after.read(buf)
        }
    }

    #[test]
    fn peeked_bytes_are_read_again_and_an_error_is_kept_in_its_place() {
        let source = || FailsOnce {
            bytes: b"0123",
            failed: false,
            after: b"45",
        };
        // Read ahead within the bytes: the stream as it was.
        let mut peeked = Peeked::new(source(), 3);
        assert_eq!(peeked.head(), b"012");
        let mut four = [0u8; 4];
        peeked.read_exact(&mut four).unwrap();
        assert_eq!(&four, b"0123");
        assert!(peeked.read(&mut four).is_err());
        // Read ahead into the error: it comes where it came.

        let mut peeked = Peeked::new(source(), 64);
        assert_eq!(peeked.head(), b"0123");
        let mut got = [0u8; 8];
        assert_eq!(peeked.read(&mut got).unwrap(), 4);
        assert_eq!(peeked.read(&mut got).unwrap_err().to_string(), "dropped");
        assert_eq!(peeked.read(&mut got).unwrap(), 2);
    }
}
