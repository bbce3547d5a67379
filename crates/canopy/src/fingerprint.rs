//! What decides the content of a work folder's partition and of its
//! extracted buckets, from this binary's settings (`canopy_buckets`
//! stores and compares them: `fingerprint.rs`, `BucketMarker`).

use std::path::{Path, PathBuf};

use crate::error::Context;
use canopy_buckets::{InputFile, Layout, WorkFingerprint};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::config::Config;
use canopy_site::Method;

/// Canopy's version, in every fingerprint: another build's folders are
/// not reused.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The fingerprint of partitioning `files` (expanded, in order) into
/// `layout` with `config`: only the `[ingest]` keys change what is spilled.
pub fn work_fingerprint(files: &[PathBuf], layout: Layout, config: &Config) -> WorkFingerprint {
    WorkFingerprint {
        canopy: VERSION.to_string(),
        format: canopy_buckets::WORK_FORMAT,
        world_size: layout.world_size,
        buckets: layout.buckets,
        settings: serde_json::json!({ "ingest": config.ingest }),
        inputs: files.iter().map(|f| InputFile::stat(f)).collect(),
    }
}

/// Now, in nanoseconds since 1970: what stands for the modification time
/// of standard input, which has none.
pub fn now_ns() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
}

/// Everything that changes what `extract` writes for a bucket: Canopy's
/// version, the method, the whole config but `[ingest]` (the partition's)
/// and the two keys that do not change outputs (`run.threads`,
/// `run.pin_threads`: outputs are the same whatever the threads), and the
/// content of the files the config or flags name (`extract.prior`,
/// `--wrappers`), by SHA-256.
pub fn extraction_settings(
    config: &Config,
    method: Method,
    wrappers: Option<&Path>,
) -> crate::Result<Value> {
    let mut config_json = serde_json::to_value(config)
        .map_err(|e| crate::Error::Invalid(format!("settings: {e}")))?;
    if let Value::Object(table) = &mut config_json {
        table.remove("ingest");
        if let Some(Value::Object(run)) = table.get_mut("run") {
            run.remove("threads");
            run.remove("pin_threads");
        }
    }
    let prior = match config.extract.prior.as_str() {
        "" | "none" => Value::Null,
        path => Value::String(sha256_of(Path::new(path)).context("extract.prior")?),
    };
    let wrappers = match wrappers {
        Some(path) => Value::String(sha256_of(path).context("--wrappers")?),
        None => Value::Null,
    };
    Ok(serde_json::json!({
        "canopy": VERSION,
        "method": method.to_string(),
        "config": config_json,
        "prior_sha256": prior,
        "wrappers_sha256": wrappers,
    }))
}

fn sha256_of(path: &Path) -> crate::Result<String> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    Ok(Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_do_not_count_and_every_other_key_does() {
        let config = Config::load(None).unwrap();
        let base = extraction_settings(&config, Method::Forest, None).unwrap();
        let mut threads = config.clone();
        threads.run.threads = 7;
        threads.run.pin_threads = false;
        threads.ingest.max_page_bytes = 1;
        assert_eq!(
            extraction_settings(&threads, Method::Forest, None).unwrap(),
            base
        );
        let mut other = config.clone();
        other.extract.link_density = 0.25;
        let changed = extraction_settings(&other, Method::Forest, None).unwrap();
        let mut diffs = Vec::new();
        canopy_buckets::fingerprint::json_differences("settings", &base, &changed, &mut diffs);
        assert_eq!(diffs, ["settings.config.extract.link_density 0.5 vs 0.25"]);
        assert_ne!(
            extraction_settings(&config, Method::Coverage, None).unwrap(),
            base
        );
    }
}
