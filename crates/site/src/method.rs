//! The extraction methods a user can pick with `--method`.

use std::fmt;
use std::str::FromStr;

use canopy_extract::WlrVariant;

/// An extraction method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// Forest with tf-idf signifiers (forest.md §3).
    Forest,
    /// Forest with feed signifiers (forest.md §3.1).
    ForestFeeds,
    /// Forest's Coverage baseline (forest.md §3.5).
    Coverage,
    /// A page-level method (also Forest's fallback).
    Page(PageMethod),
}

/// The page-level methods: one page at a time (BlockExtractor also looks
/// at the other pages of the site to remove recurring blocks).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageMethod {
    /// WLR and its variants (wlr-words-leaves-ratio.md).
    Wlr(WlrVariant),
    /// R4 (r4-euclidean-dom-features.md).
    R4,
    /// Text density graph (text-density-graph.md).
    Density,
    /// BlockExtractor with cross-page redundancy removal (blockextractor.md).
    BlockExtractor,
    /// Sigfeed: the `div` densest in feed keywords (forest.md §2, §4).
    Sigfeed,
    /// The feed item's title and description (forest.md §4).
    Description,
    /// Canopy's page-level extractor (`canopy_extract::page`).
    Page,
}

impl PageMethod {
    pub fn name(self) -> &'static str {
        match self {
            PageMethod::Wlr(v) => v.name(),
            PageMethod::R4 => "r4",
            PageMethod::Density => "density",
            PageMethod::BlockExtractor => "blockextractor",
            PageMethod::Sigfeed => "sigfeed",
            PageMethod::Description => "description",
            PageMethod::Page => "page",
        }
    }
}

impl Method {
    /// Every method, for `--help` and for `canopy eval`'s defaults.
    pub const ALL: &'static [&'static str] = &[
        "forest",
        "forest-feeds",
        "coverage",
        "sigfeed",
        "description",
        "page",
        "wlr",
        "cnr",
        "wnr",
        "clr",
        "r4",
        "blockextractor",
        "density",
    ];

    pub fn name(self) -> &'static str {
        match self {
            Method::Forest => "forest",
            Method::ForestFeeds => "forest-feeds",
            Method::Coverage => "coverage",
            Method::Page(p) => p.name(),
        }
    }

    /// Whether the method learns wrappers over clusters of pages.
    pub fn is_site_level(self) -> bool {
        !matches!(self, Method::Page(_))
    }

    /// The method run with signifiers from `source`: Forest with feed
    /// signifiers is `forest-feeds`; any other method is itself.
    pub fn with_signifiers(self, source: crate::config::SignifierSource) -> Method {
        match (self, source) {
            (Method::Forest, crate::config::SignifierSource::Feeds) => Method::ForestFeeds,
            (m, _) => m,
        }
    }

    /// Whether the method reads feed items (the feed files must be inputs).
    pub fn uses_feeds(self) -> bool {
        matches!(
            self,
            Method::ForestFeeds | Method::Page(PageMethod::Sigfeed | PageMethod::Description)
        )
    }
}

/// Whether a run with `method` and `config` takes its signifiers or its
/// text from feed items: run without any, it would be another method.
pub fn needs_feeds(config: &crate::config::Config, method: Method) -> bool {
    method.uses_feeds() || config.signifiers.source == crate::config::SignifierSource::Feeds
}

impl FromStr for Method {
    type Err = String;
    fn from_str(s: &str) -> Result<Method, String> {
        Ok(match s {
            "forest" => Method::Forest,
            "forest-feeds" => Method::ForestFeeds,
            "coverage" => Method::Coverage,
            "r4" => Method::Page(PageMethod::R4),
            "density" => Method::Page(PageMethod::Density),
            "blockextractor" => Method::Page(PageMethod::BlockExtractor),
            "sigfeed" => Method::Page(PageMethod::Sigfeed),
            "description" => Method::Page(PageMethod::Description),
            "page" => Method::Page(PageMethod::Page),
            other => match other.parse::<WlrVariant>() {
                Ok(v) => Method::Page(PageMethod::Wlr(v)),
                Err(_) => {
                    return Err(format!(
                        "unknown method {other:?}; expected one of {}",
                        Method::ALL.join(", ")
                    ))
                }
            },
        })
    }
}

impl FromStr for PageMethod {
    type Err = String;
    fn from_str(s: &str) -> Result<PageMethod, String> {
        match s.parse::<Method>()? {
            Method::Page(p) => Ok(p),
            m => Err(format!("{} is not a page-level method", m.name())),
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_method_parses_to_itself() {
        for name in Method::ALL {
            assert_eq!(name.parse::<Method>().unwrap().name(), *name);
        }
        assert!("forest".parse::<PageMethod>().is_err());
        assert!("nope".parse::<Method>().is_err());
    }
}
