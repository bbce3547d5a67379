//! Settings: `configs/default.toml`, compiled in, overlaid by `--config FILE`
//! and then by command-line flags.

use std::path::Path;

use crate::Error;
use serde::{Deserialize, Serialize};

/// The defaults shipped in `configs/default.toml`.
pub const DEFAULT_TOML: &str = include_str!("../../../configs/default.toml");

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub ingest: IngestConfig,
    pub dom: DomConfig,
    pub cluster: ClusterConfig,
    pub signifiers: SignifiersConfig,
    pub forest: ForestConfig,
    pub extract: ExtractConfig,
    pub run: RunConfig,
    pub reuse: ReuseConfig,
    pub dedup: DedupConfig,
}

/// Which pages are left out as duplicates (`crate::dedup`).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DedupConfig {
    /// `exact`, `near` or `none` (`--dedup`).
    pub mode: crate::dedup::DedupMode,
    /// `near`: words in a shingle (`crate::near`).
    pub ngram: usize,
    /// `near`: LSH bands of a signature.
    pub buckets: usize,
    /// `near`: hashes in a band.
    pub hashes_per_bucket: usize,
    /// `near`: least MinHash-estimated Jaccard similarity of a candidate
    /// pair for the later article to be left out.
    pub threshold: f64,
}

impl DedupConfig {
    /// The signatures these settings ask for.
    pub fn minhash(&self) -> crate::near::MinHash {
        crate::near::MinHash::new(self.ngram, self.buckets, self.hashes_per_bucket)
    }
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct IngestConfig {
    pub max_page_bytes: usize,
    pub max_decoded_bytes: usize,
    /// Largest feed file or feed response body accepted, in bytes.
    pub max_feed_bytes: usize,
    /// Feeds inside WARCs may speak for other sites than their own (`--trust-feeds`).
    pub trust_feeds: bool,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DomConfig {
    pub max_depth: u32,
    pub max_bytes: usize,
    pub max_nodes: usize,
    pub drop_id_class: Vec<String>,
    pub section_anchors: Vec<String>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ClusterConfig {
    pub template_threshold: f64,
    pub max_group_pages: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum SignifierSource {
    Tfidf,
    Feeds,
}

impl SignifierSource {
    pub fn name(self) -> &'static str {
        match self {
            SignifierSource::Tfidf => "tfidf",
            SignifierSource::Feeds => "feeds",
        }
    }
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SignifiersConfig {
    pub source: SignifierSource,
    pub top_k: usize,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ForestConfig {
    pub measure: canopy_forest::Measure,
    pub untyped: canopy_forest::Untyped,
    /// Most share of its matches' signifier occurrences that the matches a
    /// narrowed wrapper leaves out may hold (0: never narrow).
    pub narrow: f64,
    /// Most pages a cluster's wrapper is learned from (0: all).
    pub max_learn_pages: usize,
    /// Each wrapper is checked against the page-level path on pages of its
    /// cluster, which serves them when it wins.
    pub validate: bool,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ExtractConfig {
    pub fallback: String,
    pub residue: bool,
    pub link_density: f64,
    pub paragraph_link_density: f64,
    pub media_text: Vec<String>,
    pub title_lead: usize,
    pub notices: bool,
    pub forms: bool,
    pub attributions: bool,
    pub offsite_lists: bool,
    pub orphan_labels: bool,
    /// Word counts of the page-level extractor's prior: "" for the shipped
    /// `configs/prior.tsv`, "none" for no prior, else a file of that form.
    pub prior: String,
    /// Single pages are extracted with the prior plus what the bucket's
    /// wrappers teach.
    pub crawl_prior: bool,
    /// Pages of each cluster whose wrapper selection teaches the prior.
    pub prior_pages: usize,
}

/// The prior shipped with Canopy, learned from the dev corpora's wrappers
/// by `scripts/learn-prior.sh`.
pub const DEFAULT_PRIOR_TSV: &str = include_str!("../../../configs/prior.tsv");

impl ExtractConfig {
    /// The counts `prior` names.
    pub fn prior_counts(&self) -> Result<canopy_extract::PriorCounts, Error> {
        let text = match self.prior.as_str() {
            "" => DEFAULT_PRIOR_TSV.to_string(),
            "none" => String::new(),
            path => std::fs::read_to_string(path).map_err(|error| Error::Read {
                what: "extract.prior",
                path: path.into(),
                error,
            })?,
        };
        canopy_extract::PriorCounts::from_tsv(&text)
            .map_err(|e| Error::Settings(format!("extract.prior: {e}")))
    }
}

/// The drift check of saved wrappers (`docs/wrappers.md`).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ReuseConfig {
    pub page_containment: f64,
    pub min_template_share: f64,
    pub min_match_ratio: f64,
    pub min_length_ratio: f64,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RunConfig {
    pub threads: usize,
    /// Bind each worker to one CPU when there are as many as the process's
    /// CPUs (`threads.rs`).
    pub pin_threads: bool,
    /// Per-page (and per-feed) time budget in milliseconds; 0: none.
    pub page_budget_ms: u64,
    /// Most pages of one site held parsed at once; 0: all.
    pub max_resident_pages: usize,
    /// Most bytes of HTML of one site held parsed at once; 0: no bound.
    pub max_resident_bytes: u64,
    /// Renderings of each article in `articles.jsonl` (`text` is always
    /// written), and `parquet`: `articles.parquet` too.
    pub formats: Vec<Format>,
    /// ISO 639-1 codes (and `und`) of the articles written; empty: all.
    /// `--lang` overrides. Normalised by [`Config::load`].
    pub languages: Vec<String>,
}

/// `languages` as ISO 639-1 codes (`"DE-ch"` → `de`; `und` stays),
/// sorted, without repeats; an error names a value that is no language.
pub fn normalise_languages(languages: &[String]) -> Result<Vec<String>, Error> {
    let mut codes = languages
        .iter()
        .map(|l| {
            let l = l.trim();
            if l.eq_ignore_ascii_case("und") {
                return Ok("und");
            }
            canopy_signifiers::declared_code(l).ok_or_else(|| {
                Error::Settings(format!(
                    "language {l:?} is not an ISO 639-1 code (or `und`)"
                ))
            })
        })
        .collect::<Result<Vec<&str>, Error>>()?;
    codes.sort_unstable();
    codes.dedup();
    Ok(codes.into_iter().map(str::to_string).collect())
}

/// A rendering of the article (`--format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// Plain text (always written, as `text`)
    Text,
    /// Clean HTML of the article (`html`)
    Html,
    /// Markdown of the article (`markdown`)
    Markdown,
    /// The articles also as `articles.parquet` (typed columns)
    Parquet,
}

impl Config {
    /// The defaults, overlaid with `file` if given: keys missing from the
    /// file keep their default.
    pub fn load(file: Option<&Path>) -> Result<Config, Error> {
        let Some(path) = file else {
            return Config::overlaid("");
        };
        let text = std::fs::read_to_string(path).map_err(|error| Error::Read {
            what: "config",
            path: path.display().to_string(),
            error,
        })?;
        Config::overlaid(&text).map_err(|e| Error::Settings(format!("{}: {e}", path.display())))
    }

    /// The defaults overlaid with the TOML text `overlay` (the same
    /// sections and keys as `configs/default.toml`; an unknown key is an
    /// error).
    pub fn overlaid(overlay: &str) -> Result<Config, Error> {
        let mut value: toml::Table = DEFAULT_TOML
            .parse()
            .map_err(|e| Error::Settings(format!("built-in defaults: {e}")))?;
        let overlay: toml::Table = overlay
            .parse()
            .map_err(|e| Error::Settings(format!("invalid TOML: {e}")))?;
        merge(&mut value, overlay);
        let config: Config = toml::Value::Table(value)
            .try_into()
            .map_err(|e| Error::Settings(format!("invalid configuration: {e}")))?;
        if config.signifiers.top_k == 0 || config.signifiers.top_k > 64 {
            return Err(Error::Settings(
                "signifiers.top_k must be between 1 and 64".into(),
            ));
        }
        let dedup = &config.dedup;
        if dedup.ngram == 0
            || dedup.buckets == 0
            || dedup.hashes_per_bucket == 0
            || dedup.buckets * dedup.hashes_per_bucket > 1024
        {
            return Err(Error::Settings(
                "dedup.ngram, dedup.buckets and dedup.hashes_per_bucket must be at least 1, \
                 with at most 1024 hashes (buckets × hashes_per_bucket)"
                    .into(),
            ));
        }
        if !(0.0..=1.0).contains(&dedup.threshold) {
            return Err(Error::Settings(
                "dedup.threshold must be between 0 and 1".into(),
            ));
        }
        let mut config = config;
        config.run.languages = normalise_languages(&config.run.languages)
            .map_err(|e| Error::Settings(format!("run.languages: {e}")))?;
        Ok(config)
    }
}

fn merge(base: &mut toml::Table, overlay: toml::Table) {
    for (key, value) in overlay {
        match (base.get_mut(&key), value) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge(b, o),
            (_, v) => {
                base.insert(key, v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_parse_and_overlay_merges_and_typos_fail() {
        let c = Config::load(None).unwrap();
        assert_eq!(c.signifiers.top_k, 10);
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("c.toml");
        std::fs::write(&f, "[signifiers]\ntop_k = 5\n").unwrap();
        let c = Config::load(Some(&f)).unwrap();
        assert_eq!((c.signifiers.top_k, c.dom.max_depth), (5, 512));
        std::fs::write(&f, "[signifiers]\ntop_kk = 5\n").unwrap();
        assert!(Config::load(Some(&f)).is_err());
    }

    #[test]
    fn near_dedup_parameters_default_to_datatrove_and_are_checked() {
        let d = Config::load(None).unwrap().dedup;
        assert_eq!(
            (d.ngram, d.buckets, d.hashes_per_bucket, d.threshold),
            (5, 14, 8, 0.8)
        );
        assert_eq!(d.minhash().len(), 112);
        for bad in ["buckets = 0", "threshold = 1.5", "hashes_per_bucket = 2000"] {
            let e = Config::overlaid(&format!("[dedup]\n{bad}\n")).unwrap_err();
            assert!(format!("{e}").contains("dedup."), "{bad}: {e}");
        }
        let c = Config::overlaid("[dedup]\nmode = \"near\"\n").unwrap();
        assert_eq!(c.dedup.mode, crate::dedup::DedupMode::Near);
    }

    #[test]
    fn languages_are_normalised_and_checked() {
        assert!(Config::load(None).unwrap().run.languages.is_empty());
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("c.toml");
        std::fs::write(
            &f,
            "[run]\nlanguages = [\"FR\", \"de-CH\", \"und\", \"de\"]\n",
        )
        .unwrap();
        let c = Config::load(Some(&f)).unwrap();
        assert_eq!(c.run.languages, ["de", "fr", "und"]);
        std::fs::write(&f, "[run]\nlanguages = [\"german\"]\n").unwrap();
        let e = Config::load(Some(&f)).unwrap_err();
        assert!(
            format!("{e:#}").contains("\"german\" is not an ISO 639-1 code"),
            "{e:#}"
        );
    }
}
