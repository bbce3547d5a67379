//! `canopy._canopy`: the canopy crate's API for Python (the package
//! `canopy` re-exports it, python/canopy/__init__.py).
//!
//! Every call that parses or extracts releases the GIL (`Python::detach`),
//! so Python threads extract in parallel; the batch calls
//! (`extract_many`, `extract_site`) run on rayon's pool. Nothing crosses
//! the boundary as a panic: a panic inside the library is caught and
//! raised as `CanopyError` (see `guard`).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use rayon::prelude::*;

mod convert;
mod records;
mod settings;

use convert::{list_to_py, to_py};
use records::{html_bytes, page_input, PageInput};

pyo3::create_exception!(
    canopy,
    CanopyError,
    PyException,
    "A record, file or run Canopy could not use: `reason` says why; `stage`, `url` and `record_id` say where, when known."
);

/// `f()`, or the panic's message: a bug in the library becomes a
/// `CanopyError` of that page, not an abort of the interpreter nor a
/// `PanicException` (a BaseException that `except Exception` misses).
fn guard<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|payload| {
        let msg = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_string());
        format!("internal error (please report): {msg}")
    })
}

fn error(py: Python<'_>, reason: &str, reject: Option<&canopy::Reject>) -> PyErr {
    let err = CanopyError::new_err(reason.to_string());
    let value = err.value(py);
    let (stage, url, record_id) = match reject {
        Some(r) => (Some(r.stage.as_str()), r.url.clone(), r.record_id.clone()),
        None => (None, None, None),
    };
    // Setting attributes on a fresh exception object cannot fail in practice;
    // if it did, the reason (its message) still reaches the caller.
    let _ = value.setattr("reason", reason);
    let _ = value.setattr("stage", stage);
    let _ = value.setattr("url", url);
    let _ = value.setattr("record_id", record_id);
    err
}

fn reject_error(py: Python<'_>, reject: &canopy::Reject) -> PyErr {
    error(py, &reject.reason, Some(reject))
}

/// The stage of the reject that says a page was read and parsed but gave
/// no article: `extract` returns None for it, and raises for the others.
const NO_ARTICLE: canopy::Stage = canopy::Stage::Extract;

/// An article as a dict, None for a page without one, the error otherwise.
fn article_or_none(
    py: Python<'_>,
    result: Result<Result<canopy::Article, Box<canopy::Reject>>, String>,
) -> PyResult<Option<Bound<'_, PyAny>>> {
    match result {
        Ok(Ok(article)) => Ok(Some(to_py(py, &article)?)),
        Ok(Err(reject)) if reject.stage == NO_ARTICLE => Ok(None),
        Ok(Err(reject)) => Err(reject_error(py, &reject)),
        Err(panic) => Err(error(py, &panic, None)),
    }
}

/// extract(html, url=None, content_type=None, **settings) -> dict | None
///
/// The article of one page, as `canopy page` gives it: the page goes
/// through the site path as a site of one page, with `canopy page`'s
/// method (`page`) unless `method=` names another. `html` is bytes (its
/// charset found as `canopy run` finds it: BOM, `content_type`, `<meta>`,
/// detection) or str. Returns the fields of a line of articles.jsonl, or
/// None when the page has no article text. Raises CanopyError when the
/// page cannot be used (over the page budget, no web site in its URL, ...)
/// and ValueError for bad settings.
#[pyfunction]
#[pyo3(signature = (html, url=None, content_type=None, **settings))]
fn extract<'py>(
    py: Python<'py>,
    html: &Bound<'py, PyAny>,
    url: Option<String>,
    content_type: Option<String>,
    settings: Option<&Bound<'py, PyDict>>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let settings = settings::from_kwargs(settings, settings::PAGE)?;
    let (bytes, declared) = html_bytes(html)?;
    let content_type = content_type.or(declared.map(str::to_string));
    let url = url.unwrap_or_default();
    let result = py.detach(|| {
        guard(|| {
            let record = canopy::page_record(&url, &bytes, content_type.as_deref())?;
            canopy::extract_page(record, &settings)
        })
    });
    article_or_none(py, result)
}

/// extract_many(pages, **settings) -> list[dict | CanopyError | None]
///
/// `extract` over a list of `(html, url)` pairs on rayon's pool (all cores,
/// or `threads=N`), in their order. One item per page: the article, None
/// (no article), or the CanopyError of that page, returned rather than
/// raised so that one bad page loses nothing else.
#[pyfunction]
#[pyo3(signature = (pages, **settings))]
fn extract_many<'py>(
    py: Python<'py>,
    pages: &Bound<'py, PyAny>,
    settings: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyList>> {
    let threads = match settings {
        Some(s) => s
            .get_item("threads")?
            .map(|t| t.extract::<usize>())
            .transpose()?,
        None => None,
    };
    let settings = settings::from_kwargs(settings, settings::PAGE)?;
    let mut inputs = Vec::new();
    for item in pages.try_iter()? {
        let item = item?;
        let (html, url): (Bound<'py, PyAny>, Option<String>) = item.extract().map_err(|_| {
            pyo3::exceptions::PyTypeError::new_err("extract_many takes (html, url) pairs")
        })?;
        let (bytes, declared) = html_bytes(&html)?;
        inputs.push((bytes, url.unwrap_or_default(), declared));
    }
    let results = py.detach(|| {
        let work = || {
            inputs
                .par_iter()
                .map(|(bytes, url, declared)| {
                    guard(|| {
                        let record = canopy::page_record(url, bytes, *declared)?;
                        canopy::extract_page(record, &settings)
                    })
                })
                .collect::<Vec<_>>()
        };
        match threads.filter(|&t| t > 0) {
            Some(t) => rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .map_or_else(|_| work(), |pool| pool.install(work)),
            None => work(),
        }
    });
    let out = PyList::empty(py);
    for result in results {
        match article_or_none(py, result) {
            Ok(Some(a)) => out.append(a)?,
            Ok(None) => out.append(py.None())?,
            Err(e) if e.is_instance_of::<CanopyError>(py) => out.append(e.into_value(py))?,
            Err(e) => return Err(e),
        }
    }
    Ok(out)
}

/// extract_site(pages, **settings) -> dict
///
/// All pages of one site through everything `canopy run` does to a site
/// (duplicates left out, template groups, wrappers learned and checked,
/// the page-level path), in process. `pages`: `(url, html)` tuples or the
/// page dicts of `read_warc`, in read order. The package's
/// `canopy.extract_site` wraps the dict in a `SiteResult`.
#[pyfunction]
#[pyo3(signature = (pages, **settings))]
fn extract_site<'py>(
    py: Python<'py>,
    pages: &Bound<'py, PyAny>,
    settings: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyDict>> {
    let settings = settings::from_kwargs(settings, None)?;
    let inputs = site_pages(pages)?;
    let result = py.detach(|| {
        guard(|| {
            let (records, rejects) = site_records(inputs);
            canopy::extract_site(records, &settings).map(|site| with_rejects(site, rejects))
        })
    });
    site_result(py, result)
}

/// The records of a site's pages, and the rejects of those that are no
/// page (binary bytes).
fn site_records(inputs: Vec<PageInput>) -> (Vec<canopy::PageRecord>, Vec<canopy::Reject>) {
    let (mut records, mut rejects) = (Vec::new(), Vec::new());
    for input in inputs {
        match input.into_record() {
            Ok(record) => records.push(record),
            Err(reject) => rejects.push(*reject),
        }
    }
    (records, rejects)
}

/// `site` with the rejects of the pages that never reached it first.
fn with_rejects(
    mut site: canopy::SiteResult,
    mut rejects: Vec<canopy::Reject>,
) -> canopy::SiteResult {
    rejects.append(&mut site.rejects);
    site.rejects = rejects;
    site
}

/// A site's pages from Python (tuples or dicts; feeds and rejects passed over).
fn site_pages(pages: &Bound<'_, PyAny>) -> PyResult<Vec<PageInput>> {
    let mut inputs = Vec::new();
    for item in pages.try_iter()? {
        if let Some(page) = page_input(&item?)? {
            inputs.push(page);
        }
    }
    Ok(inputs)
}

/// A site's result as the dict the package's `SiteResult` is made from.
fn site_result(
    py: Python<'_>,
    result: Result<canopy::Result<canopy::SiteResult>, String>,
) -> PyResult<Bound<'_, PyDict>> {
    let site = match result {
        Ok(Ok(site)) => site,
        Ok(Err(e)) => return Err(error(py, &e.to_string(), None)),
        Err(panic) => return Err(error(py, &panic, None)),
    };
    let out = PyDict::new(py);
    out.set_item("articles", list_to_py(py, &site.articles)?)?;
    out.set_item("wrappers", list_to_py(py, &site.wrappers)?)?;
    out.set_item("summary", list_to_py(py, &site.summary)?)?;
    out.set_item("rejects", list_to_py(py, &site.rejects)?)?;
    out.set_item("duplicates", list_to_py(py, &site.duplicates)?)?;
    Ok(out)
}

/// check_settings(**settings) -> None
///
/// Raises ValueError (with the reason) when the keywords are not valid
/// settings: for recipes that take settings and run much later.
#[pyfunction]
#[pyo3(signature = (**settings))]
fn check_settings(settings: Option<&Bound<'_, PyDict>>) -> PyResult<()> {
    settings::from_kwargs(settings, None).map(|_| ())
}

/// site_key(url) -> str
///
/// The site a page belongs to (its host without `www.` or `m.`): what
/// `canopy run` groups pages by and what the scale-out shuffles on.
#[pyfunction]
fn site_key(url: &str) -> String {
    canopy::site_key(url)
}

/// run(inputs, out, wrappers=None, wet=None, work=None, **settings) -> dict
///
/// `canopy run INPUTS --out OUT`: the whole pipeline, its files written to
/// `out` (replacing an earlier set whole); `wrappers` reuses a saved
/// wrappers.jsonl (`--wrappers`), `wet` also writes the articles as WET
/// records (`--wet`), `work` keeps the work folder (`--work`). Returns the
/// counts of its summary line, `seconds` and, with `wrappers`, the
/// clusters by wrapper status. Raises CanopyError when the run cannot be
/// done (an input that does not exist, an output folder that cannot be
/// written); records it could not use are lines of OUT/rejects.jsonl, as
/// with the command. On rayon's pool (`threads=N`: a pool of N).
#[pyfunction]
#[pyo3(signature = (inputs, out, wrappers=None, wet=None, work=None, **settings))]
fn run<'py>(
    py: Python<'py>,
    inputs: &Bound<'py, PyAny>,
    out: &Bound<'py, PyAny>,
    wrappers: Option<&Bound<'py, PyAny>>,
    wet: Option<&Bound<'py, PyAny>>,
    work: Option<&Bound<'py, PyAny>>,
    settings: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyDict>> {
    let settings = settings::from_kwargs(settings, None)?;
    let path = |p: Option<&Bound<'py, PyAny>>| -> PyResult<Option<PathBuf>> {
        p.map(|p| settings::path_string(p).map(PathBuf::from))
            .transpose()
    };
    let inputs: Vec<PathBuf> = if inputs.is_instance_of::<pyo3::types::PyString>() {
        vec![PathBuf::from(settings::path_string(inputs)?)]
    } else {
        inputs
            .try_iter()?
            .map(|p| settings::path_string(&p?).map(PathBuf::from))
            .collect::<PyResult<_>>()?
    };
    let request = canopy::RunRequest {
        inputs,
        out: PathBuf::from(settings::path_string(out)?),
        work: path(work)?,
        wet: path(wet)?,
        wrappers: path(wrappers)?,
        apply_only: false,
    };
    let threads = settings.config.run.threads;
    let result = py.detach(|| {
        guard(|| {
            let progress = canopy::Progress::hidden();
            let work = || canopy::run(&request, &settings, &progress);
            match threads {
                0 => work(),
                n => match rayon::ThreadPoolBuilder::new().num_threads(n).build() {
                    Ok(pool) => pool.install(work),
                    Err(_) => work(),
                },
            }
        })
    });
    let report = match result {
        Ok(Ok(report)) => report,
        Ok(Err(e)) => return Err(error(py, &e.to_string(), None)),
        Err(panic) => return Err(error(py, &panic, None)),
    };
    let s = &report.stats;
    let out = PyDict::new(py);
    for (key, value) in [
        ("bytes", s.bytes),
        ("records", s.records),
        ("articles", s.articles),
        ("by_wrapper", s.by_wrapper),
        ("wrappers", s.wrappers),
        ("clusters", s.clusters),
        ("feeds", s.feeds),
        ("revisits", s.revisits),
        ("skipped", s.skipped),
        ("duplicates", s.duplicates),
        ("rejects", s.rejects),
        ("wrapper_rejects", s.wrapper_rejects),
        ("feed_items_foreign", s.feed_items_foreign),
    ] {
        out.set_item(key, value)?;
    }
    out.set_item("lang_filtered", to_py(py, &s.lang_filtered)?)?;
    out.set_item("seconds", report.seconds)?;
    out.set_item("wrapper_statuses", to_py(py, &report.wrapper_statuses)?)?;
    Ok(out)
}

/// Saved wrappers (a wrappers.jsonl), applied to pages without learning,
/// as `canopy wrappers apply` does.
#[pyclass(frozen, module = "canopy")]
struct Wrappers {
    inner: Arc<canopy::Wrappers>,
}

#[pymethods]
impl Wrappers {
    /// Wrappers.load(path, **settings) -> Wrappers
    ///
    /// Reads a wrappers.jsonl written by `canopy run` (or `extract_site`'s
    /// wrappers, written one JSON object a line).
    #[staticmethod]
    #[pyo3(signature = (path, **settings))]
    fn load(
        py: Python<'_>,
        path: &Bound<'_, PyAny>,
        settings: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Wrappers> {
        let settings = settings::from_kwargs(settings, None)?;
        let path = PathBuf::from(settings::path_string(path)?);
        let result = py.detach(|| guard(|| canopy::Wrappers::load(&path, &settings)));
        match result {
            Ok(Ok(w)) => Ok(Wrappers { inner: Arc::new(w) }),
            Ok(Err(e)) => Err(error(py, &e.to_string(), None)),
            Err(panic) => Err(error(py, &panic, None)),
        }
    }

    /// apply(url, html, content_type=None) -> dict | None
    ///
    /// The article the saved wrapper of the page's site and template
    /// selects (the page-level path where none fits), as a line of
    /// articles.jsonl; None when the page has no article text.
    #[pyo3(signature = (url, html, content_type=None))]
    fn apply<'py>(
        &self,
        py: Python<'py>,
        url: String,
        html: &Bound<'py, PyAny>,
        content_type: Option<String>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        let (bytes, declared) = html_bytes(html)?;
        let content_type = content_type.or(declared.map(str::to_string));
        let inner = self.inner.clone();
        let result = py.detach(|| {
            guard(|| {
                let record = canopy::page_record(&url, &bytes, content_type.as_deref())?;
                inner.apply(record)
            })
        });
        article_or_none(py, result)
    }

    /// apply_site(pages) -> SiteResult
    ///
    /// One site's pages (as `extract_site` takes them, in read order), as
    /// `canopy wrappers apply` extracts them: duplicates left out, pages
    /// grouped by template, each group served by the saved wrapper that
    /// fits it or by the page-level path; nothing learned. A `SiteResult`,
    /// as `extract_site` gives.
    fn apply_site<'py>(
        &self,
        py: Python<'py>,
        pages: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let inputs = site_pages(pages)?;
        let inner = self.inner.clone();
        let result = py.detach(|| {
            guard(|| {
                let (records, rejects) = site_records(inputs);
                inner
                    .apply_site(records)
                    .map(|site| with_rejects(site, rejects))
            })
        });
        let fields = site_result(py, result)?;
        py.import("canopy")?
            .getattr("SiteResult")?
            .call((), Some(&fields))
    }
}

type Events = Box<dyn Iterator<Item = canopy::Event> + Send>;

/// The records of a WARC or ARC file, as they are read (a reader thread
/// runs ahead; nothing more than its queue is held).
#[pyclass(frozen, module = "canopy")]
struct WarcRecords {
    events: Mutex<Option<Events>>,
}

#[pymethods]
impl WarcRecords {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        loop {
            // Waiting for the reader thread: without the GIL.
            let next = py.detach(|| {
                guard(|| {
                    let mut events = self.events.lock().unwrap_or_else(|e| e.into_inner());
                    let event = events.as_mut().and_then(Iterator::next);
                    if event.is_none() {
                        *events = None;
                    }
                    event
                })
            });
            let event = match next {
                Ok(Some(event)) => event,
                Ok(None) => return Ok(None),
                Err(panic) => return Err(error(py, &panic, None)),
            };
            if let Some(record) = event_to_py(py, event)? {
                return Ok(Some(record));
            }
        }
    }
}

/// A page, feed or reject as a dict with its `kind`; None for the other
/// events (counted skips), which `read_warc` does not yield.
fn event_to_py(py: Python<'_>, event: canopy::Event) -> PyResult<Option<Bound<'_, PyAny>>> {
    let (kind, value) = match event {
        canopy::Event::Page(page) => {
            let dict = to_py(py, &page)?.cast_into::<PyDict>()?;
            // Always present, so that every page dict has the same keys.
            if !dict.contains("content_language")? {
                dict.set_item("content_language", py.None())?;
            }
            ("page", dict)
        }
        canopy::Event::Feed { source, url, items } => {
            let dict = PyDict::new(py);
            dict.set_item("url", url)?;
            dict.set_item("source", to_py(py, &source)?)?;
            dict.set_item("items", list_to_py(py, &items)?)?;
            ("feed", dict)
        }
        canopy::Event::Reject(reject) => ("reject", to_py(py, &reject)?.cast_into::<PyDict>()?),
        #[allow(unreachable_patterns)]
        _ => return Ok(None),
    };
    value.set_item("kind", kind)?;
    Ok(Some(value.into_any()))
}

/// read_warc(path, **settings) -> iterator of dicts
///
/// The records of a WARC or ARC file (plain, .gz, .zst, .lz4) as `canopy
/// run` reads them, one at a time: pages (`kind` "page": url, html decoded
/// to str, record_id, date, status, charset, content_language, source),
/// feeds (`kind` "feed": url, items, source) and rejects (`kind` "reject":
/// stage, reason, url, record_id, source). Raises CanopyError when the
/// file cannot be opened.
#[pyfunction]
#[pyo3(signature = (path, **settings))]
fn read_warc(
    py: Python<'_>,
    path: &Bound<'_, PyAny>,
    settings: Option<&Bound<'_, PyDict>>,
) -> PyResult<WarcRecords> {
    let settings = settings::from_kwargs(settings, None)?;
    let path = PathBuf::from(settings::path_string(path)?);
    let result = py
        .detach(|| guard(|| canopy::read_warc(&path, &settings).map(|it| Box::new(it) as Events)));
    match result {
        Ok(Ok(events)) => Ok(WarcRecords {
            events: Mutex::new(Some(events)),
        }),
        Ok(Err(e)) => Err(error(py, &e.to_string(), None)),
        Err(panic) => Err(error(py, &panic, None)),
    }
}

#[pymodule]
fn _canopy(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("CanopyError", m.py().get_type::<CanopyError>())?;
    m.add_function(wrap_pyfunction!(extract, m)?)?;
    m.add_function(wrap_pyfunction!(extract_many, m)?)?;
    m.add_function(wrap_pyfunction!(extract_site, m)?)?;
    m.add_function(wrap_pyfunction!(site_key, m)?)?;
    m.add_function(wrap_pyfunction!(check_settings, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(read_warc, m)?)?;
    m.add_class::<Wrappers>()?;
    m.add_class::<WarcRecords>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
