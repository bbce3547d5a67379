//! Saved wrappers applied without learning: [`Wrappers`].

use std::path::Path;
use std::sync::Arc;

use canopy_site::{Reuse, SiteSettings};
use canopy_types::{Article, PageRecord, Reject};

use crate::{Result, Settings};

/// The wrappers of a `wrappers.jsonl` (written by `canopy run`), applied
/// as `canopy wrappers apply` applies them: a page whose site and
/// template a saved wrapper fits gets that wrapper's article; any other
/// page the page-level path's. Nothing is learned.
pub struct Wrappers {
    settings: SiteSettings,
    dedup: canopy_site::dedup::DedupMode,
    /// Lines of the file that could not be used.
    rejects: Vec<Reject>,
}

impl Wrappers {
    /// Reads `path`. An unreadable file is an error; a line that cannot be
    /// used is left out and listed by [`Wrappers::rejects`].
    pub fn load(path: &Path, settings: &Settings) -> Result<Wrappers> {
        let reuse = Reuse::load(path, &settings.config.reuse, false)?;
        let rejects = reuse.rejects.clone();
        let mut site_settings = settings.site()?;
        site_settings.reuse = Some(Arc::new(reuse));
        Ok(Wrappers {
            settings: site_settings,
            dedup: settings.config.dedup.mode,
            rejects,
        })
    }

    /// The lines of the file that could not be used, with their reasons.
    pub fn rejects(&self) -> &[Reject] {
        &self.rejects
    }

    /// The article of one page alone: the saved wrapper's when one fits
    /// its site and template, else the page-level path's (`article.method`
    /// says which); a page that gives none is a [`Reject`] saying why.
    /// Alone, a page has no siblings to tell template text (residue) from
    /// its article, so its text may keep lines that [`Wrappers::apply_site`]
    /// on its site's pages together (and `canopy wrappers apply`) remove.
    pub fn apply(&self, record: PageRecord) -> std::result::Result<Article, Box<Reject>> {
        crate::page::alone(record, &self.settings)
    }

    /// The pages of one site (in read order), as `canopy wrappers apply`
    /// extracts them: duplicates left out, pages grouped by template, each
    /// group served by the saved wrapper that fits it, or by the
    /// page-level path.
    pub fn apply_site(&self, records: Vec<PageRecord>) -> Result<crate::SiteResult> {
        crate::site::extract_with(records, &self.settings, self.dedup)
    }
}
