//! Python values to the records the canopy crate takes: a page's HTML as
//! bytes or str, `(url, html)` tuples, and the page dicts `read_warc`
//! yields (taken back unchanged, so a page read in Python is the record
//! `canopy run` reads).

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString, PyTuple};

use canopy::{PageRecord, SourceRef};

/// The declared charset of HTML handed over as a Python str: its bytes are
/// UTF-8 whatever its `<meta charset>` says, and the HTTP charset comes
/// first in Canopy's charset order.
const UTF8: &str = "text/html; charset=utf-8";

/// A page's bytes and the Content-Type they are declared with: bytes as
/// they are (the charset found as `canopy run` finds it), a str as UTF-8.
pub fn html_bytes(html: &Bound<'_, PyAny>) -> PyResult<(Vec<u8>, Option<&'static str>)> {
    if let Ok(b) = html.cast::<PyBytes>() {
        return Ok((b.as_bytes().to_vec(), None));
    }
    if let Ok(s) = html.cast::<PyString>() {
        return Ok((s.to_cow()?.as_bytes().to_vec(), Some(UTF8)));
    }
    if let Ok(b) = html.extract::<Vec<u8>>() {
        // bytearray, memoryview
        return Ok((b, None));
    }
    Err(PyTypeError::new_err(format!(
        "html must be bytes or str, not {}",
        html.get_type().name()?
    )))
}

/// What a page of a site is built from before the GIL is released: bytes
/// still to decode, or a record already read.
pub enum PageInput {
    Raw {
        url: String,
        bytes: Vec<u8>,
        content_type: Option<String>,
        /// The record's id and WARC-Date, when the caller knows them (a
        /// datatrove Document's id): they tell duplicates apart as in a run.
        record_id: Option<String>,
        date: Option<String>,
    },
    Record(PageRecord),
}

impl PageInput {
    /// Decodes the charset of raw input (call without the GIL); binary
    /// bytes are a reject, as in `canopy run`.
    pub fn into_record(self) -> Result<PageRecord, Box<canopy::Reject>> {
        match self {
            PageInput::Raw {
                url,
                bytes,
                content_type,
                record_id,
                date,
            } => {
                let mut record = canopy::page_record(&url, &bytes, content_type.as_deref())?;
                if let Some(id) = record_id {
                    record.record_id = id;
                }
                record.date = date.or(record.date);
                Ok(record)
            }
            PageInput::Record(r) => Ok(r),
        }
    }
}

/// One item of `extract_site`'s pages: `(url, html)`, `(url, html,
/// content_type)` or a page dict of `read_warc`. `None` for the other
/// dicts of `read_warc` (feeds, rejects), which are no pages.
pub fn page_input(item: &Bound<'_, PyAny>) -> PyResult<Option<PageInput>> {
    if let Ok(dict) = item.cast::<PyDict>() {
        return page_from_dict(dict);
    }
    if let Ok(tuple) = item.cast::<PyTuple>() {
        if tuple.len() == 2 || tuple.len() == 3 {
            let url: String = tuple.get_item(0)?.extract().map_err(|_| {
                PyTypeError::new_err("a page tuple is (url: str, html: bytes | str)")
            })?;
            let (bytes, declared) = html_bytes(&tuple.get_item(1)?)?;
            let content_type = if tuple.len() == 3 {
                tuple.get_item(2)?.extract::<Option<String>>()?
            } else {
                declared.map(str::to_string)
            };
            return Ok(Some(PageInput::Raw {
                url,
                bytes,
                content_type,
                record_id: None,
                date: None,
            }));
        }
    }
    Err(PyTypeError::new_err(format!(
        "a page is a (url, html) tuple or a page dict of read_warc, not {}",
        item.get_type().name()?
    )))
}

fn page_from_dict(dict: &Bound<'_, PyDict>) -> PyResult<Option<PageInput>> {
    let kind: Option<String> = get(dict, "kind")?;
    if kind.as_deref().is_some_and(|k| k != "page") {
        return Ok(None);
    }
    let url: String = get(dict, "url")?.ok_or_else(|| missing("url"))?;
    let html = dict.get_item("html")?.ok_or_else(|| missing("html"))?;
    // A dict without read_warc's `charset` is raw input ({url, html, and
    // optionally content_type, record_id, date}): its HTML is decoded as
    // `(url, html)`'s is.
    let Some(charset) = get::<String>(dict, "charset")? else {
        let (bytes, declared) = html_bytes(&html)?;
        let content_type = get::<String>(dict, "content_type")?.or(declared.map(str::to_string));
        return Ok(Some(PageInput::Raw {
            url,
            bytes,
            content_type,
            record_id: get(dict, "record_id")?,
            date: get(dict, "date")?,
        }));
    };
    let html: String = html
        .extract()
        .map_err(|_| PyTypeError::new_err("a read_warc page's html is a str"))?;
    let source = match dict.get_item("source")? {
        Some(s) if !s.is_none() => {
            let s = s
                .cast::<PyDict>()
                .map_err(|_| PyTypeError::new_err("a page's source is a dict {file, offset}"))?;
            SourceRef {
                file: get(s, "file")?.unwrap_or_default(),
                offset: get(s, "offset")?,
            }
        }
        _ => SourceRef {
            file: String::new(),
            offset: None,
        },
    };
    Ok(Some(PageInput::Record(PageRecord {
        url,
        record_id: get(dict, "record_id")?.unwrap_or_default(),
        source,
        status: get(dict, "status")?,
        charset,
        date: get(dict, "date")?,
        content_language: get(dict, "content_language")?,
        html,
    })))
}

/// `dict[key]`, with None and a missing key both `None`.
fn get<'py, T: FromPyObjectOwned<'py>>(
    dict: &Bound<'py, PyDict>,
    key: &str,
) -> PyResult<Option<T>> {
    match dict.get_item(key)? {
        Some(v) if !v.is_none() => v.extract::<T>().map(Some).map_err(|e| {
            let e: PyErr = e.into();
            PyValueError::new_err(format!("page field {key}: {e}"))
        }),
        _ => Ok(None),
    }
}

fn missing(key: &str) -> PyErr {
    PyValueError::new_err(format!("a page dict needs {key:?}"))
}
