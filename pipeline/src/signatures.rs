//! A site's page signatures: in memory for a site held parsed, in a
//! temporary file for a site parsed again.
//!
//! The template grouping and a cluster's template sketch need every page's
//! signature (≈ 190 full-path and as many own-label hashes, ≈ 3 KB a page
//! on the dev corpora), long after the page's DOM is freed. Held for a site
//! of a hundred thousand pages that is hundreds of megabytes, and small
//! blocks that live on between the DOMs freed around them; in a file it is
//! 16 bytes a page (where each one is), and the grouping reads them back a
//! chunk at a time ([`canopy_cluster::group_site_templates`]).

use std::borrow::Cow;
use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use canopy_cluster::{Signature, SignatureSource};

use crate::spill::temporary_file_error;

/// A site's signatures, in page order.
pub enum SiteSignatures {
    Held(Vec<Signature>),
    Spilled(SignatureSpill),
}

impl SignatureSource for SiteSignatures {
    fn len(&self) -> usize {
        match self {
            SiteSignatures::Held(held) => held.len(),
            SiteSignatures::Spilled(spill) => spill.spans.len(),
        }
    }

    fn load(&self, indices: &[usize]) -> io::Result<Vec<Cow<'_, Signature>>> {
        match self {
            SiteSignatures::Held(held) => held.load(indices),
            SiteSignatures::Spilled(spill) => spill.load(indices),
        }
    }
}

/// Where a page's signature is in the file.
#[derive(Debug, Clone, Copy)]
pub struct Span {
    offset: u64,
    len: u32,
}

/// Writes signatures into a temporary file, each where its [`Span`] says.
pub struct SignatureWriter {
    dir: PathBuf,
    file: BufWriter<File>,
    written: u64,
    scratch: Vec<u8>,
}

impl SignatureWriter {
    /// A writer into a new temporary file in `dir`, unlinked from the start
    /// where the file system allows it.
    pub fn new_in(dir: &Path) -> io::Result<SignatureWriter> {
        let file = tempfile::tempfile_in(dir).map_err(|e| in_dir(dir, e))?;
        Ok(SignatureWriter {
            dir: dir.to_path_buf(),
            file: BufWriter::with_capacity(1 << 16, file),
            written: 0,
            scratch: Vec::new(),
        })
    }

    /// Writes `signature`; its span is for [`SignatureWriter::finish`].
    pub fn write(&mut self, signature: &Signature) -> io::Result<Span> {
        self.scratch.clear();
        signature.encode(&mut self.scratch);
        let len = u32::try_from(self.scratch.len())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "signature over 4 GiB"))?;
        self.file
            .write_all(&self.scratch)
            .map_err(|e| in_dir(&self.dir, e))?;
        let span = Span {
            offset: self.written,
            len,
        };
        self.written += u64::from(len);
        Ok(span)
    }

    /// The signatures at `spans`, in that order: the site's pages in page
    /// order.
    pub fn finish(self, spans: Vec<Span>) -> io::Result<SignatureSpill> {
        let file = self
            .file
            .into_inner()
            .map_err(|e| in_dir(&self.dir, e.into_error()))?;
        Ok(SignatureSpill {
            dir: self.dir,
            file: Mutex::new(file),
            spans,
        })
    }
}

/// A site's signatures in a temporary file, read back as the grouping and
/// the clusters need them.
pub struct SignatureSpill {
    dir: PathBuf,
    file: Mutex<File>,
    /// Each page's signature, in page order.
    spans: Vec<Span>,
}

impl SignatureSpill {
    fn load(&self, indices: &[usize]) -> io::Result<Vec<Cow<'_, Signature>>> {
        let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        let mut bytes = Vec::new();
        let mut read = |span: Span| -> io::Result<Signature> {
            bytes.resize(span.len as usize, 0);
            file.seek(SeekFrom::Start(span.offset))?;
            file.read_exact(&mut bytes)?;
            Signature::decode(&bytes).ok_or_else(|| {
                io::Error::new(io::ErrorKind::InvalidData, "not the signature written")
            })
        };
        indices
            .iter()
            .map(|&i| {
                read(self.spans[i])
                    .map(Cow::Owned)
                    .map_err(|e| in_dir(&self.dir, e))
            })
            .collect()
    }
}

/// `error` of the temporary signature file in `dir`.
fn in_dir(dir: &Path, error: io::Error) -> io::Error {
    temporary_file_error("signature", dir, error)
}

#[cfg(test)]
mod tests {
    use super::*;
    use canopy_dom::{Document, DomOptions};

    fn sig(html: &str) -> Signature {
        Signature::of(&Document::parse(html, &DomOptions::default()))
    }

    #[test]
    fn spilled_signatures_load_as_held_ones_in_page_order() {
        let pages = [
            sig("<body><div id=a><p>x</p></div></body>"),
            sig("<body><table><tr><td>y</td></tr></table></body>"),
            sig("<body></body>"),
            sig("<body><section class=s><h1>t</h1><ul><li>z</li></ul></section></body>"),
        ];
        let dir = tempfile::tempdir().unwrap();
        let mut writer = SignatureWriter::new_in(dir.path()).unwrap();
        // Written in one order, read in another (a large site's pages are
        // parsed in bucket order, numbered in URL order).
        let spans: Vec<Span> = pages.iter().map(|s| writer.write(s).unwrap()).collect();
        let order = [2, 0, 3, 1];
        let spill = writer
            .finish(order.iter().map(|&i| spans[i]).collect())
            .unwrap();
        let spilled = SiteSignatures::Spilled(spill);
        let held = SiteSignatures::Held(order.iter().map(|&i| pages[i].clone()).collect());
        assert_eq!(spilled.len(), 4);
        let indices = [3, 1, 1, 0, 2];
        let (a, b) = (
            spilled.load(&indices).unwrap(),
            held.load(&indices).unwrap(),
        );
        assert_eq!(a, b);
        assert_eq!(*a[0], pages[1]);
        assert_eq!(a[0].similarity(&a[1]), pages[1].similarity(&pages[0]));
    }
}
