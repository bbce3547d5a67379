//! The settings flags shared by `run`, `wrappers apply`, `extract`,
//! `partition` and `page`, overlaid on the config file.

use std::path::{Path, PathBuf};

use anyhow::Context;
use canopy::{Config, Format, Method, SignifierSource};

/// The settings flags of `run`, `wrappers apply` and `extract`, overlaid
/// on the config file (every step of one run must get the same).
#[derive(clap::Args)]
pub struct SettingsArgs {
    /// Where signifiers come from (default: the config's, "tfidf").
    #[arg(long, value_enum)]
    pub signifiers: Option<SignifierSource>,
    /// Signifiers kept per page (default 10).
    #[arg(long)]
    top_k: Option<usize>,
    /// Extraction method (docs/algorithms.md).
    ///
    /// Site level (a wrapper per template, the rest by `page`):
    ///   forest          Forest's structural patterns, tf-idf signifiers (default)
    ///   forest-feeds    Forest with signifiers from feed items (needs feeds)
    ///   coverage        wrappers ranked by signifier coverage
    /// Page level (every page alone):
    ///   page            Canopy's page-level extractor
    ///   sigfeed         the feed item's signifiers located in the page (needs feeds)
    ///   description     the feed item's description (needs feeds)
    ///   wlr, cnr, wnr, clr   WLR and its variants (word/character, node/line ratios)
    ///   r4              R4's text-density blocks
    ///   blockextractor  BlockExtractor's blocks
    ///   density         text density (Sun et al.)
    #[arg(long, default_value = "forest", verbatim_doc_comment)]
    pub method: Method,
    /// Worker threads (default: one per core).
    #[arg(long)]
    threads: Option<usize>,
    /// Settings file overlaid on configs/default.toml.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Article renderings: text, html, markdown (comma-separated or repeated;
    /// `text` is always written); parquet also writes articles.parquet.
    #[arg(long = "format", value_enum, value_delimiter = ',')]
    formats: Vec<Format>,
    /// Duplicates left out: exact (captures of one URL but the latest, pages
    /// of identical HTML but the first, within a site), near (exact, then
    /// articles whose text is a near duplicate of an earlier article's, of
    /// any site, out of the outputs) or none (default: the config's
    /// `dedup.mode`, exact).
    #[arg(long, value_enum)]
    dedup: Option<canopy_site::dedup::DedupMode>,
    /// Write only the articles in these languages: ISO 639-1 codes, `und`
    /// for pages of no known language (comma-separated or repeated;
    /// `run.languages`). The others are counted, not written; their pages
    /// still take part in learning wrappers.
    #[arg(long = "lang", value_delimiter = ',')]
    languages: Vec<String>,
}

impl SettingsArgs {
    /// The config file overlaid with these flags.
    pub fn resolve(&self) -> anyhow::Result<(Config, Method)> {
        let (mut config, method) = resolve_settings(
            self.config.as_deref(),
            self.signifiers,
            self.top_k,
            self.threads,
            self.method,
            &self.formats,
        )?;
        if let Some(mode) = self.dedup {
            config.dedup.mode = mode;
        }
        if !self.languages.is_empty() {
            config.run.languages =
                canopy_site::config::normalise_languages(&self.languages).context("--lang")?;
        }
        Ok((config, method))
    }
}

/// The config file overlaid with settings flags (`partition` passes only
/// its own).
pub fn resolve_settings(
    config: Option<&Path>,
    signifiers: Option<SignifierSource>,
    top_k: Option<usize>,
    threads: Option<usize>,
    method: Method,
    formats: &[Format],
) -> anyhow::Result<(Config, Method)> {
    let mut config = Config::load(config)?;
    if let Some(s) = signifiers {
        config.signifiers.source = s;
    }
    if let Some(k) = top_k {
        anyhow::ensure!((1..=64).contains(&k), "--top-k must be between 1 and 64");
        config.signifiers.top_k = k;
    }
    if let Some(t) = threads {
        config.run.threads = t;
    }
    if !formats.is_empty() {
        config.run.formats = formats.to_vec();
    }
    let method = method.with_signifiers(config.signifiers.source);
    Ok((config, method))
}
