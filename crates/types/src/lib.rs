//! The records that flow between Canopy's stages.
//!
//! Every stage crate depends on this one instead of on its neighbours, so the
//! contract between stages lives in one small place:
//!
//! - ingest produces [`PageRecord`]s, [`FeedItem`]s and [`Reject`]s;
//! - cluster, signifiers, forest and extract consume pages and produce
//!   [`Article`]s and [`WrapperRecord`]s;
//! - output writes them.

use serde::{Deserialize, Serialize};

/// Where a record came from, for error reports and provenance.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SourceRef {
    /// The input file, as given on the command line.
    pub file: String,
    /// Byte offset of the record in the file (compressed offset for `.gz`).
    pub offset: Option<u64>,
}

/// One HTML page, decoded to UTF-8, ready for the DOM builder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageRecord {
    /// `WARC-Target-URI` of the response (or the file path for bare HTML).
    pub url: String,
    /// `WARC-Record-ID` of the response record, angle brackets included.
    pub record_id: String,
    /// Where the record was read.
    pub source: SourceRef,
    /// HTTP status code, when the record carried an HTTP response.
    pub status: Option<u16>,
    /// The charset the body was decoded with (an encoding_rs name).
    pub charset: String,
    /// `WARC-Date` of the record, as written (ISO 8601 in WARC/1.0+), if
    /// any: the learn date of wrappers, and the date of WET records.
    #[serde(default)]
    pub date: Option<String>,
    /// The HTTP `Content-Language` header of the response, as sent
    /// (trimmed), if any: the page's declared language when its markup
    /// declares none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_language: Option<String>,
    /// The page, decoded to UTF-8.
    pub html: String,
}

/// One item of a web feed (RSS, Atom or JSON Feed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FeedItem {
    /// The item's link, resolved against the feed's base URI.
    pub url: String,
    /// The item's title, as plain text.
    pub title: String,
    /// The item's description or summary, as plain text (HTML removed).
    pub description: String,
}

/// A record, page or feed that could not be used, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reject {
    /// Where it was read.
    pub source: SourceRef,
    /// `WARC-Record-ID`, when known.
    pub record_id: Option<String>,
    /// Target URL, when known.
    pub url: Option<String>,
    /// The stage that rejected it.
    pub stage: Stage,
    /// A short human-readable reason.
    pub reason: String,
}

/// The stage that rejected a record, page or feed: the `stage` of a line of
/// `rejects.jsonl`, written in lower case (`"http"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Stage {
    /// An input that cannot be read: a line of the input list, a file of
    /// a folder.
    Input,
    /// A WARC record that cannot be framed or read.
    Warc,
    /// An ARC record that cannot be framed or read.
    Arc,
    /// An HTTP response that is not a page: bad headers or status, a body
    /// that cannot be decoded, is too large or is binary.
    Http,
    /// A feed that is not one, is malformed or too large, or has no item
    /// with a link.
    Feed,
    /// A URL without a web site in it.
    Url,
    /// A page or feed over its time budget.
    Budget,
    /// A page that gives no article.
    Extract,
    /// Settings that cannot be used for the page (`canopy page`, the
    /// Python API).
    Settings,
    /// A line of a saved `wrappers.jsonl` that cannot be used.
    Wrappers,
}

impl Stage {
    /// The name written in `rejects.jsonl`.
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Input => "input",
            Stage::Warc => "warc",
            Stage::Arc => "arc",
            Stage::Http => "http",
            Stage::Feed => "feed",
            Stage::Url => "url",
            Stage::Budget => "budget",
            Stage::Extract => "extract",
            Stage::Settings => "settings",
            Stage::Wrappers => "wrappers",
        }
    }
}

impl std::fmt::Display for Stage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The extracted article of one page: one line of `articles.jsonl`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Article {
    pub url: String,
    pub record_id: String,
    pub site: String,
    pub cluster: String,
    /// `forest`, `forest-feeds`, or the name of the method that served the page.
    pub method: String,
    /// The portable XPath that selected the article, or `None` for page-level methods.
    pub wrapper: Option<String>,
    pub title: String,
    pub text: String,
    pub lang: String,
    /// The authors' names, `None` when the page names none.
    #[serde(default)]
    pub authors: Option<Vec<String>>,
    /// Publication date, ISO 8601 (`2012-07-02` or `2012-07-02T14:30:00-04:00`).
    #[serde(default)]
    pub date: Option<String>,
    #[serde(default)]
    pub site_name: Option<String>,
    /// `<link rel=canonical>` or `og:url`, absolute.
    #[serde(default)]
    pub canonical_url: Option<String>,
    /// `og:image`, JSON-LD `image` or the article's first figure image, absolute.
    #[serde(default)]
    pub top_image: Option<String>,
    /// `WARC-Date` of the source response record, as written there (when the
    /// page was fetched; the date of its WET record).
    #[serde(default)]
    pub warc_date: Option<String>,
    /// Where its record was read: the input file as named to the run and the
    /// record's byte offset in it, as in `rejects.jsonl` (enough to fetch the
    /// record again); `None` for a page handed over as bytes (`canopy page`,
    /// the library's one-page calls).
    #[serde(default)]
    pub source: Option<SourceRef>,
    /// The article as clean HTML (`--format html`); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub html: Option<String>,
    /// The article as Markdown (`--format markdown`); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub markdown: Option<String>,
}

/// The format version of a `wrappers.jsonl` line (`docs/wrappers.md`).
/// Bump it when a field changes meaning or the template hash changes; a
/// saved line of another version is rejected, not misread.
pub const WRAPPER_FORMAT_VERSION: u32 = 1;

/// A learned wrapper: one line of `wrappers.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WrapperRecord {
    /// [`WRAPPER_FORMAT_VERSION`] of the run that wrote the line.
    pub version: u32,
    pub site: String,
    pub cluster: String,
    /// The paper's form, with `dfs` positions.
    pub xpath: String,
    /// A form without `dfs` that any XPath 1.0 engine evaluates on the raw page
    /// (`None` for the paper's `dfs`-typed patterns, which have none).
    pub xpath_portable: Option<String>,
    pub relevance: f64,
    pub pages: usize,
    pub matched: usize,
    /// `tfidf` or `feeds`.
    pub signifiers: String,
    /// The structural pattern (`canopy_forest::Pattern`), so the wrapper
    /// applies without learning.
    pub pattern: serde_json::Value,
    /// The template signature: a sample of the tag-path hashes shared by
    /// the cluster's pages (16 hex digits each, sorted).
    pub template: Vec<String>,
    /// Which paths `template` samples: absent for full paths (tag, id and
    /// class of every step from `<body>`), `"own"` for own-label paths,
    /// written when the cluster's pages share no full path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template_paths: Option<String>,
    /// The newest `WARC-Date` of the pages it was learned on.
    pub learned_on: Option<String>,
    /// What the wrapper extracted when it was learned.
    pub quality: WrapperQuality,
    /// Its check against the page-level path on its cluster's pages, and
    /// which of the two serves them (absent in lines written before the
    /// check existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<WrapperCheck>,
}

/// A wrapper checked against the page-level path on pages of its cluster
/// (`docs/algorithms.md`, "How a wrapper is validated").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WrapperCheck {
    /// Pages compared.
    pub pages: usize,
    /// Mean share of words the two extractions have in common, over the
    /// longer one's words (1: the same text).
    pub agreement: f64,
    /// Characters of the wrapper's texts that look like an article's:
    /// outside links, in lines no other compared page has.
    pub wrapper_chars: usize,
    /// The same for the page-level path's texts.
    pub page_chars: usize,
    /// Which of the two serves the cluster's pages.
    pub decision: Decision,
}

/// What the check of a wrapper against the page-level path decided,
/// written in lower case (`"agree"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    /// They agree: the wrapper serves.
    Agree,
    /// They disagree and the wrapper's text is the article-like one: the
    /// wrapper serves.
    Wrapper,
    /// They disagree and the page-level path's text is the article-like
    /// one: the page-level path serves the cluster.
    Page,
}

impl Decision {
    /// The name written in `wrappers.jsonl` and `summary.csv`.
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Agree => "agree",
            Decision::Wrapper => "wrapper",
            Decision::Page => "page",
        }
    }
}

impl std::fmt::Display for Decision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What became of a cluster's wrapper: the `wrapper` column of
/// `summary.csv`, written in lower case (`"reused"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WrapperStatus {
    /// Learned tonight; no saved wrapper of the site to compare with.
    New,
    /// A saved wrapper fit and passed the drift check: applied, not learned.
    Reused,
    /// The site's best saved wrapper drifted; learned again tonight.
    Relearned,
    /// The best saved wrapper drifted and nothing was learned in its place
    /// (`wrappers apply`, or a single page): the fallback served the pages.
    Drifted,
    /// No wrapper: nothing saved for the site, nothing learned.
    None,
}

impl WrapperStatus {
    /// The name written in `summary.csv`.
    pub fn as_str(self) -> &'static str {
        match self {
            WrapperStatus::New => "new",
            WrapperStatus::Reused => "reused",
            WrapperStatus::Relearned => "relearned",
            WrapperStatus::Drifted => "drifted",
            WrapperStatus::None => "none",
        }
    }
}

impl std::fmt::Display for WrapperStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Learn-time figures of a wrapper, the baseline of the drift check.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct WrapperQuality {
    /// Share of the cluster's pages on which it selected text.
    pub match_rate: f64,
    /// First quartile of the selected text's length (characters), over
    /// the pages it matched.
    pub text_chars_p25: usize,
    /// Median of the selected text's length (characters).
    pub text_chars_median: usize,
}

#[cfg(test)]
mod tests {
    use super::{Decision, Stage, WrapperStatus};

    /// Each value is written as its `Display` name, in quotes, and read
    /// back to itself.
    fn round_trips<T>(all: &[T])
    where
        T: serde::Serialize
            + serde::de::DeserializeOwned
            + std::fmt::Display
            + PartialEq
            + std::fmt::Debug,
    {
        for value in all {
            let json = serde_json::to_string(value).unwrap();
            assert_eq!(json, format!("\"{value}\""));
            assert_eq!(&serde_json::from_str::<T>(&json).unwrap(), value);
        }
    }

    #[test]
    fn a_stage_is_written_and_read_by_its_name() {
        round_trips(&[
            Stage::Input,
            Stage::Warc,
            Stage::Arc,
            Stage::Http,
            Stage::Feed,
            Stage::Url,
            Stage::Budget,
            Stage::Extract,
            Stage::Settings,
            Stage::Wrappers,
        ]);
        assert!(serde_json::from_str::<Stage>("\"dom\"").is_err());
    }

    #[test]
    fn a_decision_is_written_and_read_by_its_name() {
        round_trips(&[Decision::Agree, Decision::Wrapper, Decision::Page]);
    }

    #[test]
    fn a_wrapper_status_is_written_and_read_by_its_name() {
        use WrapperStatus::*;
        round_trips(&[New, Reused, Relearned, Drifted, None]);
    }
}
