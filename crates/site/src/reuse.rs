//! Saved wrappers in a run (`--wrappers FILE`, `canopy wrappers apply`):
//! what the site stage needs to decide, per cluster, between reusing a
//! saved wrapper and learning, and the wrapper records it writes.
//! Matching and drift live in `canopy-reuse`; `docs/wrappers.md` has the
//! format and the rules.

use std::path::Path;

use canopy_forest::Wrapper;
use canopy_reuse::{encode_sketch, SavedWrappers, TemplatePaths, Thresholds};
use canopy_types::{Reject, WrapperQuality, WrapperRecord, WRAPPER_FORMAT_VERSION};

use crate::config::ReuseConfig;

/// The saved wrappers of an earlier run and how to use them.
#[derive(Debug, Clone)]
pub struct Reuse {
    pub saved: SavedWrappers,
    /// Lines of the wrappers file that could not be used.
    pub rejects: Vec<Reject>,
    /// Learn a wrapper when no saved one fits (`run`), or extract only
    /// (`wrappers apply`).
    pub learn: bool,
    pub thresholds: Thresholds,
}

impl Reuse {
    /// Reads a wrappers file; an unreadable file is an error, a bad line a
    /// reject.
    pub fn load(path: &Path, config: &ReuseConfig, learn: bool) -> Result<Reuse, crate::Error> {
        let (saved, rejects) = SavedWrappers::load(path).map_err(|error| crate::Error::Read {
            what: "wrappers",
            path: path.display().to_string(),
            error,
        })?;
        Ok(Reuse {
            saved,
            rejects,
            learn,
            thresholds: Thresholds {
                page_containment: config.page_containment,
                min_template_share: config.min_template_share,
                min_match_ratio: config.min_match_ratio,
                min_length_ratio: config.min_length_ratio,
            },
        })
    }
}

/// The record of a wrapper learned tonight.
pub struct NewWrapper<'a> {
    pub site: &'a str,
    pub cluster: &'a str,
    pub wrapper: &'a Wrapper,
    pub pages: usize,
    pub matched: usize,
    pub signifiers: &'a str,
    pub sketch: &'a [u64],
    pub template_paths: TemplatePaths,
    pub learned_on: Option<String>,
    pub quality: WrapperQuality,
}

impl NewWrapper<'_> {
    pub fn record(self) -> WrapperRecord {
        WrapperRecord {
            version: WRAPPER_FORMAT_VERSION,
            site: self.site.to_string(),
            cluster: self.cluster.to_string(),
            xpath: self.wrapper.xpath(),
            xpath_portable: self.wrapper.xpath_portable(),
            relevance: self.wrapper.relevance,
            pages: self.pages,
            matched: self.matched,
            signifiers: self.signifiers.to_string(),
            // A derived Serialize of plain data does not fail.
            pattern: serde_json::to_value(&self.wrapper.pattern).unwrap_or_default(),
            template: encode_sketch(self.sketch),
            template_paths: self.template_paths.name().map(str::to_string),
            learned_on: self.learned_on,
            quality: self.quality,
            check: None,
        }
    }
}
