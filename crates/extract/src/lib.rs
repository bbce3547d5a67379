//! Applies wrappers to pages and runs the page-level methods (WLR and others).
//!
//! # Page-level methods
//!
//! * [`wlr`]: the words/leaves ratio method of Insa, Silva and Tamarit
//!   (`papers/wlr-words-leaves-ratio.md`) and its ratio variants
//!   ([`WlrVariant`]: WLR, CNR, WNR, CLR). It picks the one DOM node whose
//!   subtree is the page's main content. Forest falls back to it for single
//!   pages and for pages a wrapper misses; users can also pick it directly.
//!   The caller makes the article text as the `inner_text` of the returned
//!   nodes joined by newlines.
//!
//! ```
//! use canopy_dom::{Document, DomOptions};
//! use canopy_extract::{wlr, WlrVariant};
//!
//! let html = "<body><ul><li><a>Home</a></li><li><a>News</a></li></ul>\
//!     <div id=story><p>One long paragraph of the story, with many words in it.</p>\
//!     <p>Another paragraph, <b>also</b> long enough to be the story text.</p></div>\
//!     <div>Footer</div></body>";
//! let doc = Document::parse(html, &DomOptions::default());
//! let nodes = wlr(&doc, "wlr".parse::<WlrVariant>().unwrap());
//! assert_eq!(nodes.len(), 1);
//! assert_eq!(doc.attr(nodes[0], "id"), Some("story"));
//! ```
//!
//! The choices the paper leaves open, and the one place this implementation
//! departs from its letter (the relevance multiplier), are documented on the
//! `wlr` module (source: `src/wlr.rs`).

mod blockextractor;
mod check;
mod density;
mod page;
mod r4;
mod residue;
mod sigfeed;
mod text_counts;
mod wlr;

#[cfg(test)]
mod wlr_tests;

pub use blockextractor::{
    ble_ie_blocks, blockextractor, blockextractor_with, Block, BlockExtractorOptions,
    DEFAULT_THRESHOLD,
};
pub use check::{check_wrapper, Extraction};
pub use density::{density, density_text, density_with, Tags as DensityTags};
pub use page::{
    furniture_within, outermost, page, PageContext, PageSelection, Prior, PriorCounts, SiteEvidence,
};
pub use r4::{r4, r4_without_post_process};
pub use residue::{
    clean_selection, clean_selection_kept, clean_selection_read, clean_text, page_host_of,
    CleanOptions, Kept, Residue,
};
pub use sigfeed::sigfeed;
pub use text_counts::{is_cjk, TextCounts};
pub use wlr::{wlr, UnknownWlrVariant, WlrVariant};
#[doc(hidden)]
pub use wlr::{wlr_with, Relevance};
