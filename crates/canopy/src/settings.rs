//! [`Settings`]: the TOML settings and the extraction method, the one
//! source of defaults for every caller.

use std::path::Path;

use canopy_site::{Config, Method, SiteSettings};

use crate::Result;

/// What a call extracts with: `configs/default.toml` overlaid by the
/// caller's settings, and the method (`--method`).
#[derive(Debug, Clone)]
pub struct Settings {
    /// The settings, section by section as in `configs/default.toml`.
    pub config: Config,
    /// The extraction method (default `forest`).
    pub method: Method,
}

impl Default for Settings {
    /// `configs/default.toml` and Forest.
    fn default() -> Settings {
        // The built-in defaults parse: `defaults_parse` checks them.
        let config = Config::load(None).unwrap_or_else(|e| panic!("configs/default.toml: {e}"));
        Settings::new(config, Method::Forest)
    }
}

impl Settings {
    /// `config` with `method`; Forest with feed signifiers
    /// (`signifiers.source = "feeds"`) is `forest-feeds`, as on the
    /// command line.
    pub fn new(config: Config, method: Method) -> Settings {
        let method = method.with_signifiers(config.signifiers.source);
        Settings { config, method }
    }

    /// The defaults overlaid with the TOML text `overlay` (sections and
    /// keys of `configs/default.toml`; an unknown one is an error).
    pub fn from_toml(overlay: &str) -> Result<Settings> {
        Ok(Settings::new(Config::overlaid(overlay)?, Method::Forest))
    }

    /// The defaults overlaid with the TOML file at `path`.
    pub fn load(path: &Path) -> Result<Settings> {
        Ok(Settings::new(Config::load(Some(path))?, Method::Forest))
    }

    /// These settings with the method named `name` (as `--method`).
    pub fn with_method(self, name: &str) -> Result<Settings> {
        let method: Method = name
            .parse()
            .map_err(|e: String| canopy_site::Error::Settings(format!("method: {e}")))?;
        Ok(Settings::new(self.config, method))
    }

    /// These settings with `threads` worker threads for [`crate::run()`]
    /// (0: one per core).
    pub fn with_threads(mut self, threads: usize) -> Settings {
        self.config.run.threads = threads;
        self
    }

    /// What the site stage takes.
    pub(crate) fn site(&self) -> Result<SiteSettings> {
        Ok(SiteSettings::new(&self.config, self.method)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_parse() {
        assert!(Config::load(None).is_ok());
    }

    #[test]
    fn an_unknown_key_is_an_error_naming_it() {
        let e = Settings::from_toml("[extract]\nresidu = false\n").unwrap_err();
        assert!(e.to_string().contains("residu"), "{e}");
    }

    #[test]
    fn overlays_keep_the_other_defaults() {
        let s = Settings::from_toml("[extract]\nresidue = false\n").unwrap();
        assert!(!s.config.extract.residue);
        assert_eq!(
            s.config.signifiers.top_k,
            Settings::default().config.signifiers.top_k
        );
    }

    #[test]
    fn feed_signifiers_make_forest_forest_feeds() {
        let s = Settings::from_toml("[signifiers]\nsource = \"feeds\"\n").unwrap();
        assert_eq!(s.method, Method::ForestFeeds);
        assert!(Settings::default().with_method("no-such").is_err());
    }
}
