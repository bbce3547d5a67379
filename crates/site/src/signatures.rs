//! A site's page signatures: in memory for a site held parsed, in a
//! temporary file for a large site, whose parsed pages wait on disk too.
//!
//! The template grouping and a cluster's template sketch need every page's
//! signature (≈ 190 full-path and as many own-label hashes, ≈ 3 KB a page
//! on the dev corpora), long after the page's DOM is freed. Held for a site
//! of a hundred thousand pages that is hundreds of megabytes, and small
//! blocks that live on between the DOMs freed around them; in a file it is
//! 16 bytes a page (where each one is), and the grouping reads them back a
//! chunk at a time ([`canopy_cluster::group_site_templates`]).

use std::borrow::Cow;
use std::io;

use canopy_cluster::{Signature, SignatureSource};

use crate::spanfile::{Span, SpanFile};

/// A site's signatures, in page order.
pub enum SiteSignatures {
    Held(Vec<Signature>),
    /// The file and where each page's signature is in it.
    Spilled(SpanFile, Vec<Span>),
}

impl SignatureSource for SiteSignatures {
    fn len(&self) -> usize {
        match self {
            SiteSignatures::Held(held) => held.len(),
            SiteSignatures::Spilled(_, spans) => spans.len(),
        }
    }

    fn load(&self, indices: &[usize]) -> io::Result<Vec<Cow<'_, Signature>>> {
        match self {
            SiteSignatures::Held(held) => held.load(indices),
            SiteSignatures::Spilled(file, spans) => {
                file.read(indices.iter().map(|&i| spans[i]), |bytes| {
                    Signature::decode(bytes).map(Cow::Owned).ok_or_else(|| {
                        io::Error::new(io::ErrorKind::InvalidData, "not the signature written")
                    })
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spanfile::SpanWriter;
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
        let mut writer = SpanWriter::new_in("signature", dir.path()).unwrap();
        // Written in one order, read in another (a large site's pages are
        // parsed in bucket order, numbered in URL order).
        let mut bytes = Vec::new();
        let spans: Vec<Span> = pages
            .iter()
            .map(|s| {
                bytes.clear();
                s.encode(&mut bytes);
                writer.write(&bytes).unwrap()
            })
            .collect();
        let order = [2, 0, 3, 1];
        let spilled = SiteSignatures::Spilled(
            writer.finish().unwrap(),
            order.iter().map(|&i| spans[i]).collect(),
        );
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
