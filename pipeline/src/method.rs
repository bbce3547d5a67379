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

/// The page-level methods: one page at a time, no site knowledge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageMethod {
    Wlr(WlrVariant),
}

impl PageMethod {
    pub fn name(self) -> &'static str {
        match self {
            PageMethod::Wlr(v) => v.name(),
        }
    }
}

impl Method {
    /// Every method, for `--help` and for `canopy eval`'s defaults.
    pub const ALL: &'static [&'static str] = &[
        "forest",
        "forest-feeds",
        "coverage",
        "wlr",
        "cnr",
        "wnr",
        "clr",
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
}

impl FromStr for Method {
    type Err = String;
    fn from_str(s: &str) -> Result<Method, String> {
        Ok(match s {
            "forest" => Method::Forest,
            "forest-feeds" => Method::ForestFeeds,
            "coverage" => Method::Coverage,
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
