//! `canopy run` as one call ([`run()`]): the pipeline over the inputs into
//! a new output set, which then takes the place of `out` in one step
//! (`canopy_output::switch`), with `_SUCCESS` written last.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::{ensure, Context};
use canopy_output::switch::OutputSwitch;
use canopy_site::Reuse;

use crate::merge::RunStats;
use crate::{Error, Result, Settings};

/// What [`run()`] reads and writes, besides its settings.
#[derive(Debug, Clone, Default)]
pub struct RunRequest {
    /// WARC files, feed files, HTML files, folders of them, `-` or http(s)
    /// URLs (`canopy::inputs`).
    pub inputs: Vec<PathBuf>,
    /// The output folder (created if missing; an earlier set in it is
    /// replaced whole, once the new one is complete).
    pub out: PathBuf,
    /// A work folder to keep (default: a temporary one, removed).
    pub work: Option<PathBuf>,
    /// Also write the articles as WET records to this file.
    pub wet: Option<PathBuf>,
    /// Last run's `wrappers.jsonl`, reused where its templates still fit.
    pub wrappers: Option<PathBuf>,
    /// Extract with the saved wrappers only, learning none (`canopy
    /// wrappers apply`).
    pub apply_only: bool,
}

/// What a run did.
#[derive(Debug, Clone)]
pub struct RunReport {
    /// Its counts (the summary line).
    pub stats: RunStats,
    /// Wall time in seconds.
    pub seconds: f64,
    /// With saved wrappers: how many clusters got each `wrapper` status
    /// (`reused`, `relearned`, `drifted`, `new`, `none`).
    pub wrapper_statuses: Option<BTreeMap<String, usize>>,
}

/// Runs the whole pipeline as `canopy run` does, in the global rayon pool
/// (sized by the caller; one thread per core by default). Records that
/// cannot be used are rejects in `rejects.jsonl`, not errors; an error is
/// bad settings, an input named that does not exist, or an output or work
/// folder that cannot be used.
pub fn run(
    request: &RunRequest,
    settings: &Settings,
    progress: &crate::run::Progress,
) -> Result<RunReport> {
    let config = &settings.config;
    let method = settings.method;
    let wrappers = request.wrappers.as_deref();
    let reuse = wrappers
        .map(|path| Reuse::load(path, &config.reuse, !request.apply_only))
        .transpose()?
        .map(Arc::new);
    let expect = crate::fingerprint::extraction_settings(config, method, wrappers)?;
    let wet = request
        .wet
        .as_deref()
        .map(|p| WetPlace::of(p, &request.out).context("--wet"))
        .transpose()?;
    if let Some(work) = &request.work {
        let same = |a: &Path, b: &Path| matches!((a.canonicalize(), b.canonicalize()), (Ok(a), Ok(b)) if a == b);
        if same(work, &request.out) {
            return Err(Error::Usage(
                "--work must be another folder than --out".into(),
            ));
        }
    }
    let wet_name = wet.as_ref().and_then(WetPlace::name_in_set);
    // Locks `out` (a second run into it fails here, at once) and makes the
    // folder the new outputs are written into.
    let parquet = config.run.formats.contains(&crate::Format::Parquet);
    let mut switch = OutputSwitch::begin(&request.out, &crate::merge::set_names(wet_name, parquet))
        .with_context(|| format!("output folder {} is not usable", request.out.display()))?;
    for note in switch.notes() {
        (progress.note)(note);
    }
    let (stats, seconds) = crate::run::run_all(
        &request.inputs,
        switch.dir(),
        request.work.as_deref(),
        config,
        method,
        reuse,
        &expect,
        progress,
    )
    .and_then(|(merged, seconds)| {
        let staging = switch.dir().to_path_buf();
        let threads = rayon::current_num_threads();
        crate::stats::write(&staging, &merged.stats, &merged.method, seconds, threads)?;
        let listed = match &wet {
            Some(wet) => {
                let (path, listed) = wet.paths(&staging);
                crate::run::write_wet(&path, &staging.join("articles.jsonl"))?;
                Some(listed)
            }
            None => None,
        };
        crate::merge::mark_complete(&staging, merged.parquet, listed.as_deref())?;
        crate::merge::switch_in(&mut switch, wet_name, merged.parquet, progress.note)?;
        Ok((merged.stats, seconds))
    })?;
    let wrapper_statuses = match wrappers {
        Some(_) => Some(crate::run::wrapper_statuses(switch.out())?),
        None => None,
    };
    Ok(RunReport {
        stats,
        seconds,
        wrapper_statuses,
    })
}

/// The folder a file is written into (`.` for a bare file name).
fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Where `--wet` goes: a file directly in `--out` is part of the output
/// set (written into the new folder and switched with it); any other
/// path is written in place, atomically, just before the switch.
enum WetPlace {
    /// Its name in `--out`.
    InSet(String),
    /// Its absolute path.
    Elsewhere(PathBuf),
}

impl WetPlace {
    /// Checks early that `wet`'s folder can be written (created if
    /// missing), so a bad path fails before hours of work. The path must be a new or a regular file, never `-` (standard
    /// output) nor a device, FIFO or symlink, which the file would be
    /// renamed over (`canopy_output::check_replaceable`).
    fn of(wet: &Path, out: &Path) -> crate::Result<WetPlace> {
        ensure!(
            Usage,
            wet != Path::new("-"),
            "writing the WET file to standard output (-) is not supported: give a file path"
        );
        canopy_output::check_replaceable(wet)?;
        let parent = parent_dir(wet);
        std::fs::create_dir_all(parent)?;
        tempfile::tempfile_in(parent)?;
        let name = wet
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or_else(|| Error::Usage(format!("{} names no file", wet.display())))?;
        std::fs::create_dir_all(out)?;
        if parent.canonicalize()? != out.canonicalize()? {
            return Ok(WetPlace::Elsewhere(std::path::absolute(wet)?));
        }
        ensure!(
            Usage,
            !crate::merge::set_names(None, true).contains(&name),
            "{} is one of the run's outputs",
            wet.display()
        );
        Ok(WetPlace::InSet(name.to_string()))
    }

    fn name_in_set(&self) -> Option<&str> {
        match self {
            WetPlace::InSet(name) => Some(name),
            WetPlace::Elsewhere(_) => None,
        }
    }

    /// Where to write it (`staging`: the new set's folder), and how
    /// `_SUCCESS` names it.
    fn paths(&self, staging: &Path) -> (PathBuf, PathBuf) {
        match self {
            WetPlace::InSet(name) => (staging.join(name), PathBuf::from(name)),
            WetPlace::Elsewhere(path) => (path.clone(), path.clone()),
        }
    }
}
