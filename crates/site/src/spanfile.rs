//! A temporary file of byte strings, written one after another and read
//! back by where each one is: how a site too large to hold parsed
//! (`run.max_resident_pages`, `run.max_resident_bytes`) keeps its pages' signatures
//! ([`crate::signatures`]) and parsed pages ([`crate::pages`]) out of
//! memory. The file is unlinked from the start where the file system
//! allows it (`tempfile::tempfile_in`), so a killed run leaves nothing
//! behind.

use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::spill::temporary_file_error;

/// Where one string is in the file: 16 bytes in memory for what may be
/// kilobytes on disk.
#[derive(Debug, Clone, Copy)]
pub struct Span {
    offset: u64,
    len: u32,
}

/// Writes strings into a new temporary file.
pub struct SpanWriter {
    /// What the file holds and where it is, for errors.
    what: &'static str,
    dir: PathBuf,
    file: BufWriter<File>,
    written: u64,
}

impl SpanWriter {
    /// A writer into a new temporary file of `what` in `dir`.
    pub fn new_in(what: &'static str, dir: &Path) -> io::Result<SpanWriter> {
        let file = tempfile::tempfile_in(dir).map_err(|e| temporary_file_error(what, dir, e))?;
        Ok(SpanWriter {
            what,
            dir: dir.to_path_buf(),
            file: BufWriter::with_capacity(1 << 16, file),
            written: 0,
        })
    }

    /// Appends `bytes`; its span reads them back from the finished file.
    pub fn write(&mut self, bytes: &[u8]) -> io::Result<Span> {
        let len = u32::try_from(bytes.len()).map_err(|_| {
            self.error(io::Error::new(
                io::ErrorKind::InvalidInput,
                "a string over 4 GiB",
            ))
        })?;
        self.file.write_all(bytes).map_err(|e| self.error(e))?;
        let span = Span {
            offset: self.written,
            len,
        };
        self.written += u64::from(len);
        Ok(span)
    }

    /// The file, written, to read back.
    pub fn finish(self) -> io::Result<SpanFile> {
        let (what, dir) = (self.what, self.dir);
        let file = self
            .file
            .into_inner()
            .map_err(|e| temporary_file_error(what, &dir, e.into_error()))?;
        Ok(SpanFile {
            what,
            dir,
            file: Mutex::new(file),
        })
    }

    fn error(&self, error: io::Error) -> io::Error {
        temporary_file_error(self.what, &self.dir, error)
    }
}

/// A finished file of strings, read from any thread.
pub struct SpanFile {
    what: &'static str,
    dir: PathBuf,
    file: Mutex<File>,
}

impl SpanFile {
    /// `decode` of the strings at `spans`, in that order. An error of
    /// `decode` is reported as one of the file.
    pub fn read<T>(
        &self,
        spans: impl IntoIterator<Item = Span>,
        mut decode: impl FnMut(&[u8]) -> io::Result<T>,
    ) -> io::Result<Vec<T>> {
        let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        let mut bytes = Vec::new();
        let mut read = |span: Span| -> io::Result<T> {
            bytes.resize(span.len as usize, 0);
            file.seek(SeekFrom::Start(span.offset))?;
            file.read_exact(&mut bytes)?;
            decode(&bytes)
        };
        spans
            .into_iter()
            .map(|span| read(span).map_err(|e| self.error(e)))
            .collect()
    }

    /// `error` (of reading or of decoding what was read), naming the file.
    pub fn error(&self, error: io::Error) -> io::Error {
        temporary_file_error(self.what, &self.dir, error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_read_back_by_span_in_any_order() {
        let dir = tempfile::tempdir().unwrap();
        let mut writer = SpanWriter::new_in("test", dir.path()).unwrap();
        let strings: [&[u8]; 4] = [b"one", b"", b"three", &[0xff; 70_000]];
        let spans: Vec<Span> = strings.iter().map(|s| writer.write(s).unwrap()).collect();
        let file = writer.finish().unwrap();
        let order = [3, 0, 2, 0, 1];
        let read = file
            .read(order.iter().map(|&i| spans[i]), |b| Ok(b.to_vec()))
            .unwrap();
        let expected: Vec<Vec<u8>> = order.iter().map(|&i| strings[i].to_vec()).collect();
        assert_eq!(read, expected);
    }

    #[test]
    fn a_decoding_error_names_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let mut writer = SpanWriter::new_in("parsed page", dir.path()).unwrap();
        let span = writer.write(b"x").unwrap();
        let file = writer.finish().unwrap();
        let err = file
            .read([span], |_| -> io::Result<()> {
                Err(io::Error::new(io::ErrorKind::InvalidData, "not a page"))
            })
            .unwrap_err();
        let message = err.to_string();
        assert!(message.contains("parsed page"), "{message}");
        assert!(message.contains("not a page"), "{message}");
    }
}
