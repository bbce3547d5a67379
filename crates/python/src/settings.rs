//! Keyword arguments to [`canopy::Settings`].
//!
//! `extract(html, extract={"residue": False}, method="page")`: each keyword
//! naming a section of configs/default.toml takes a dict of that section's
//! keys, and they become a TOML overlay for [`canopy::Settings::from_toml`],
//! the one place that knows the settings: an unknown section or key, or a
//! value of the wrong type, is a `ValueError` with serde's reason. Three
//! keywords are not sections: `config` (a TOML file, overlaid first, as
//! `--config`), `method` (as `--method`) and `threads` (as `--threads`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use pyo3::exceptions::{PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

/// Settings already built, by their overlay: a loop calling
/// `extract(html, extract={...})` parses its settings once, not per page.
static CACHE: Mutex<Option<HashMap<String, Arc<canopy::Settings>>>> = Mutex::new(None);
/// Distinct settings kept; a program that makes more starts the cache anew.
const CACHE_LIMIT: usize = 64;

/// The method of the page-level calls (`extract`, `extract_many`) unless
/// the caller names one: `canopy page`'s default, so that `extract` gives
/// what `canopy page` prints.
pub const PAGE: Option<&str> = Some("page");

/// The settings the keywords describe (the defaults when there are none),
/// with `default_method` when the keywords name none (None: the
/// defaults', Forest, as `canopy run`).
pub fn from_kwargs(
    kwargs: Option<&Bound<'_, PyDict>>,
    default_method: Option<&str>,
) -> PyResult<Arc<canopy::Settings>> {
    let mut overlay = toml::Table::new();
    let mut config: Option<String> = None;
    let mut method: Option<String> = default_method.map(str::to_string);
    let mut threads: Option<usize> = None;
    if let Some(kwargs) = kwargs {
        for (key, value) in kwargs.iter() {
            let key: String = key.extract()?;
            match key.as_str() {
                "config" => config = Some(path_string(&value)?),
                "method" => method = Some(value.extract()?),
                "threads" => threads = Some(value.extract()?),
                _ => {
                    overlay.insert(key.clone(), to_toml(&value, &key)?);
                }
            }
        }
    }
    let overlay =
        toml::to_string(&overlay).map_err(|e| PyValueError::new_err(format!("settings: {e}")))?;
    let key = format!("{config:?}\n{method:?}\n{threads:?}\n{overlay}");
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    let cache = cache.get_or_insert_with(HashMap::new);
    if let Some(settings) = cache.get(&key) {
        return Ok(settings.clone());
    }
    let settings = Arc::new(build(
        config.as_deref(),
        &overlay,
        method.as_deref(),
        threads,
    )?);
    if cache.len() >= CACHE_LIMIT {
        cache.clear();
    }
    cache.insert(key, settings.clone());
    Ok(settings)
}

fn build(
    config: Option<&str>,
    overlay: &str,
    method: Option<&str>,
    threads: Option<usize>,
) -> PyResult<canopy::Settings> {
    // A config file and keywords together: the file's tables first, the
    // keywords' keys over them, one overlay for from_toml to check.
    let text = match config {
        Some(path) => {
            let file = std::fs::read_to_string(path)
                .map_err(|e| PyOSError::new_err(format!("cannot read {path}: {e}")))?;
            let mut merged: toml::Table = file
                .parse()
                .map_err(|e| PyValueError::new_err(format!("{path}: {e}")))?;
            let keywords: toml::Table = overlay
                .parse()
                .map_err(|e| PyValueError::new_err(format!("settings: {e}")))?;
            merge(&mut merged, keywords);
            toml::to_string(&merged).map_err(|e| PyValueError::new_err(format!("{path}: {e}")))?
        }
        None => overlay.to_string(),
    };
    let mut settings = canopy::Settings::from_toml(&text)
        .map_err(|e| PyValueError::new_err(format!("settings: {e}")))?;
    if let Some(method) = method {
        settings = settings
            .with_method(method)
            .map_err(|e| PyValueError::new_err(format!("method: {e}")))?;
    }
    if let Some(threads) = threads {
        settings = settings.with_threads(threads);
    }
    Ok(settings)
}

/// `over`'s keys into `base`, tables merged key by key.
fn merge(base: &mut toml::Table, over: toml::Table) {
    for (k, v) in over {
        match (base.get_mut(&k), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge(b, o),
            (_, v) => {
                base.insert(k, v);
            }
        }
    }
}

/// A str or an os.PathLike, as a path string.
pub fn path_string(value: &Bound<'_, PyAny>) -> PyResult<String> {
    let py = value.py();
    let fspath = py.import("os")?.getattr("fspath")?.call1((value,))?;
    fspath
        .extract::<String>()
        .map_err(|_| PyTypeError::new_err("a path must be a str or an os.PathLike of str"))
}

fn to_toml(value: &Bound<'_, PyAny>, key: &str) -> PyResult<toml::Value> {
    // bool before int: True is an int in Python.
    if value.is_instance_of::<PyBool>() {
        return Ok(toml::Value::Boolean(value.extract()?));
    }
    if value.is_instance_of::<PyInt>() {
        return Ok(toml::Value::Integer(value.extract().map_err(|_| {
            PyValueError::new_err(format!("settings: {key}: integer out of range"))
        })?));
    }
    if value.is_instance_of::<PyFloat>() {
        return Ok(toml::Value::Float(value.extract()?));
    }
    if value.is_instance_of::<PyString>() {
        return Ok(toml::Value::String(value.extract()?));
    }
    if let Ok(dict) = value.cast::<PyDict>() {
        let mut table = toml::Table::new();
        for (k, v) in dict.iter() {
            let k: String = k
                .extract()
                .map_err(|_| PyTypeError::new_err(format!("settings: {key}: keys must be str")))?;
            let inner = format!("{key}.{k}");
            table.insert(k, to_toml(&v, &inner)?);
        }
        return Ok(toml::Value::Table(table));
    }
    if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        let mut items = Vec::new();
        for item in value.try_iter()? {
            items.push(to_toml(&item?, key)?);
        }
        return Ok(toml::Value::Array(items));
    }
    if let Ok(path) = path_string(value) {
        return Ok(toml::Value::String(path));
    }
    Err(PyTypeError::new_err(format!(
        "settings: {key}: {} is not a settings value (bool, int, float, str, list or dict)",
        value.get_type().name()?
    )))
}
