//! The columns `Monitor.push_many` takes (lists, tuples, pyarrow arrays, pandas Series), as
//! Python lists and the runtime's values: run ids and actions as text, order keys read as the
//! Spark side reads them (`spark::order_keys`), integers as timestamps with a `time_unit`; durations and wall-clock times as `Monitor` takes them.

use crate::spark::order_keys;
use multitrace_formats::events::{EventError, OrderKey};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A Python list of the values of a column: a list, a tuple, or anything with `to_pylist()`
/// (a pyarrow Array or ChunkedArray) or `tolist()` (a pandas Series, a numpy array).
pub(crate) fn column<'py>(v: &Bound<'py, PyAny>, name: &str) -> PyResult<Bound<'py, PyList>> {
    if let Ok(l) = v.downcast::<PyList>() {
        return Ok(l.clone());
    }
    if let Ok(t) = v.downcast::<PyTuple>() {
        return PyList::new(v.py(), t.iter());
    }
    for m in ["to_pylist", "tolist"] {
        if v.hasattr(m)? {
            return Ok(v.call_method0(m)?.downcast_into::<PyList>()?);
        }
    }
    Err(PyTypeError::new_err(format!(
        "{name} must be a list, a pyarrow array or a pandas Series, not {}",
        v.get_type().name()?
    )))
}

pub(crate) fn optional_strings(l: &Bound<'_, PyList>, name: &str) -> PyResult<Vec<Option<String>>> {
    l.iter()
        .map(|v| {
            if v.is_none() {
                Ok(None)
            } else if let Ok(s) = v.extract::<String>() {
                Ok(Some(s))
            } else {
                // Run ids may be numbers: their text, as a JSON event's would be.
                match name {
                    "runs" => Ok(Some(v.str()?.extract()?)),
                    _ => Err(PyTypeError::new_err(format!(
                        "{name} must hold str (or None), not {}",
                        v.get_type().name()?
                    ))),
                }
            }
        })
        .collect()
}

/// The order keys of a column; with `time_unit` (`"s"`, `"ms"`, `"us"`, `"ns"`) integers are
/// Unix timestamps in that unit (as Spark's `unix_micros` gives them).
pub(crate) fn keys_of(
    orders: &Bound<'_, PyList>,
    time_unit: Option<&str>,
) -> PyResult<Vec<Result<OrderKey, EventError>>> {
    let keys = order_keys(orders);
    let Some(unit) = time_unit else {
        return Ok(keys);
    };
    let scale: i128 = match unit {
        "s" => 1_000_000_000,
        "ms" => 1_000_000,
        "us" => 1_000,
        "ns" => 1,
        _ => {
            return Err(PyValueError::new_err(format!(
                "time_unit={unit:?}: expected {}",
                crate::options::choices(&["s", "ms", "us", "ns"])
            )))
        }
    };
    Ok(keys
        .into_iter()
        .map(|k| match k {
            Ok(OrderKey::Int(i)) => Ok(OrderKey::Time(i.saturating_mul(scale))),
            k => k,
        })
        .collect())
}

/// Seconds (int or float) or a `datetime.timedelta`, as a duration.
pub(crate) fn duration(v: &Bound<'_, PyAny>, name: &str) -> PyResult<Duration> {
    let secs: f64 = if let Ok(s) = v.call_method0("total_seconds") {
        s.extract()?
    } else if v.is_instance_of::<pyo3::types::PyBool>() {
        return Err(PyTypeError::new_err(format!(
            "argument '{name}': seconds (int or float) or a datetime.timedelta, not bool"
        )));
    } else {
        v.extract().map_err(|_| {
            PyTypeError::new_err(format!(
                "argument '{name}': seconds (int or float) or a datetime.timedelta"
            ))
        })?
    };
    if !(secs.is_finite() && secs >= 0.0) {
        return Err(PyValueError::new_err(format!(
            "{name}={secs}: a duration is finite and not negative"
        )));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// Now on the Unix clock, in nanoseconds.
pub(crate) fn wall_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// A wall-clock time on the clock of pushed events (Unix nanoseconds): seconds since the Unix
/// epoch or a datetime; now when not given.
pub(crate) fn wall_of(now: Option<&Bound<'_, PyAny>>) -> PyResult<u64> {
    let Some(v) = now.filter(|v| !v.is_none()) else {
        return Ok(wall_now());
    };
    let secs: f64 = if v.hasattr("timestamp")? {
        v.call_method0("timestamp")?.extract()?
    } else if v.is_instance_of::<pyo3::types::PyBool>() {
        return Err(PyTypeError::new_err(
            "now must be seconds since the Unix epoch or a datetime, not bool",
        ));
    } else {
        v.extract().map_err(|_| {
            PyTypeError::new_err("now must be seconds since the Unix epoch or a datetime")
        })?
    };
    Ok((secs.max(0.0) * 1e9) as u64)
}
