//! Everything that happens to one site: its pages parsed, grouped by
//! template, a wrapper learned (or a saved one reused) per template and
//! checked against the page-level path, and every page's article
//! extracted, by the wrapper or by the page-level path.
//!
//! [`process_site`] is the entry point; [`SiteSettings`] come from a
//! [`Config`] (the TOML settings, `configs/default.toml` overlaid) and a
//! [`Method`]. The records arrive as [`SiteInput`]: held in memory, or as
//! bucket entries that a large site reads a chunk at a time.
//!
//! ```
//! use canopy_site::{process_site, Backlog, Config, Method, SiteInput, SiteSettings};
//! use std::collections::HashMap;
//!
//! let config = Config::load(None).unwrap();
//! let settings = SiteSettings::new(&config, Method::Forest).unwrap();
//! let html = "<html><head><title>Rain</title></head><body><article>\
//!     <p>Rain fell on the valley all night, and the river rose by a metre \
//!     before the morning, the highest it has been in forty years.</p>\
//!     </article></body></html>";
//! let url = "https://example.org/rain".to_string();
//! let record = canopy_ingest::page_record(url, String::new(), String::new(), html.as_bytes(), None).unwrap();
//! let site = canopy_cluster::site_key(&record.url);
//! let out = process_site(&site, SiteInput::Records(vec![record]), &HashMap::new(),
//!                        &settings, &Backlog::default()).unwrap();
//! assert!(out.articles[0].text.contains("river rose"));
//! ```

mod backlog;
pub mod config;
pub mod dedup;
mod fallback;
pub mod feed_trust;
mod method;
pub mod near;
mod page;
mod page_codec;
mod pages;
mod reuse;
mod settings;
mod signatures;
mod site;
mod spanfile;
mod spill;
mod title;

pub use backlog::Backlog;
pub use config::{Config, Format, SignifierSource};
pub use method::{needs_feeds, Method, PageMethod};
pub use reuse::Reuse;
pub use settings::{Render, SiteOutput, SiteSettings};
pub use site::{process_site, SiteInput};
pub use spill::ArticleSpill;

/// Why settings or saved wrappers cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A setting with a value that cannot be used, or settings that do
    /// not parse.
    #[error("{0}")]
    Settings(String),
    /// A file named by the settings that cannot be read.
    #[error("cannot read {what} {path}: {error}")]
    Read {
        /// What the file is (`config`, `wrappers`, `extract.prior`).
        what: &'static str,
        /// The file.
        path: String,
        /// Why.
        error: std::io::Error,
    },
}
