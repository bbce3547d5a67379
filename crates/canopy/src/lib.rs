//! Canopy as a library: clean articles and per-site XPath wrappers from
//! web pages, one page, one site or a whole crawl at a time.
//!
//! - [`extract_page`]: one page alone, through the page-level path (what
//!   `canopy page` prints, and what a single-page site of a crawl gets).
//! - [`extract_site`]: all pages of one site: grouped by template, a
//!   wrapper learned and checked per template, every page's article (what
//!   `canopy run` writes for that site).
//! - [`Wrappers`]: saved wrappers (a `wrappers.jsonl`) applied to new
//!   pages without learning (`canopy wrappers apply`).
//! - [`read_warc`]: the records of a WARC or ARC file, as they are read.
//! - [`run()`]: the whole pipeline over WARC files, feeds and folders into an
//!   output folder (`canopy run`); its three scale-out steps are
//!   [`partition`], [`extract`] and [`merge`].
//!
//! [`Settings`] are `configs/default.toml` overlaid: the same defaults for
//! the command line, Python and Rust callers.
//!
//! ```
//! let html = b"<html><head><title>Rain in the valley</title></head><body>\
//!     <nav><a href='/'>Home</a> <a href='/news'>News</a></nav>\
//!     <article><h1>Rain in the valley</h1><p>Rain fell on the valley all \
//!     night, and by morning the river had risen by a metre, the highest it \
//!     has been in forty years. Farmers moved their herds to higher ground \
//!     before dawn.</p></article><footer>Contact us</footer></body></html>";
//! let page = canopy::page_record("https://example.org/rain", html, None).unwrap();
//! let article = canopy::extract_page(page, &canopy::Settings::default()).unwrap();
//! assert!(article.text.contains("river had risen"));
//! assert!(!article.text.contains("Contact us"));
//! ```

#![warn(missing_docs)]

mod error;
pub mod extract;
pub mod fingerprint;
mod html_files;
pub mod inputs;
pub mod merge;
mod near_dedup;
pub mod order;
mod page;
pub mod partition;
mod records;
mod request;
pub mod run;
mod settings;
mod site;
pub mod stats;
mod streams;
mod wrappers;

pub(crate) use canopy_site::{config, dedup, feed_trust};

pub use canopy_ingest::Event;
pub use canopy_output::SummaryRow;
pub use canopy_site::{Config, Format, Method, PageMethod, SignifierSource};
pub use canopy_types::{
    Article, Decision, FeedItem, PageRecord, Reject, SourceRef, Stage, WrapperRecord, WrapperStatus,
};
pub use merge::RunStats;
pub use page::{extract_page, page_record};
pub use records::{read_warc, Records};
pub use request::{run, RunReport, RunRequest};
pub use run::Progress;
pub use settings::Settings;
pub use site::{extract_site, site_key, Duplicate, SiteResult};
pub use wrappers::Wrappers;

pub use error::{Error, Result};
