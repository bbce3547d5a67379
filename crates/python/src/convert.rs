//! Rust records to Python objects, through their serde form: a dict has
//! exactly the keys and values of the record's JSON line (`articles.jsonl`,
//! `wrappers.jsonl`, ...), so Python sees what the files hold.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use serde::Serialize;
use serde_json::Value;

/// `record` as the Python value of its JSON form (dicts, lists, str, int,
/// float, bool, None).
pub fn to_py<'py, T: Serialize>(py: Python<'py>, record: &T) -> PyResult<Bound<'py, PyAny>> {
    let value = serde_json::to_value(record)
        .map_err(|e| PyValueError::new_err(format!("cannot convert a record: {e}")))?;
    value_to_py(py, &value)
}

/// A list of `records`, each as [`to_py`] gives it.
pub fn list_to_py<'py, T: Serialize>(
    py: Python<'py>,
    records: &[T],
) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for r in records {
        list.append(to_py(py, r)?)?;
    }
    Ok(list)
}

fn value_to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => b.into_pyobject(py)?.to_owned().into_any(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any()
            } else if let Some(u) = n.as_u64() {
                u.into_pyobject(py)?.into_any()
            } else {
                n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any()
            }
        }
        Value::String(s) => s.into_pyobject(py)?.into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(value_to_py(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, v) in map {
                dict.set_item(k, value_to_py(py, v)?)?;
            }
            dict.into_any()
        }
    })
}
