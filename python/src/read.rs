//! Multitraces in and out of Python: the dicts, tuples and lists a user gives (`{location:
//! [actions]}`, `{"trace", "id", "traces"}`, `(id, traces)`), resolved against the model's
//! names, and the files `Model.read` reads into those dicts.
//!
//! Invariant: a multitrace whose names are all the model's is resolved to letters on the
//! Python thread by dict lookups ([`Names::resolve`]); anything else goes to the runtime by
//! name ([`Entry::Names`]), which reports what is wrong with it exactly as the command line
//! would. So both paths give the same record.

use crate::errors::record_error;
use crate::threads::detached;
use multitrace_batch::{Batch, BatchOptions};
use multitrace_check::CheckOptions;
use multitrace_formats::entry::{Entry, Item, Letters};
use multitrace_model::model::CompiledModel;
use multitrace_model::nfa::LetterId;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyIterator, PyList, PyMapping, PyString, PyTuple};
use std::path::PathBuf;

/// `Model.read`: the multitraces of a file, in file order, as `{"trace", "id", "traces"}`
/// dicts.
pub(crate) fn read<'py>(
    py: Python<'py>,
    batch: &Batch<'static>,
    path: PathBuf,
    max_line_bytes: u64,
) -> PyResult<Bound<'py, PyList>> {
    let batch = batch.reconfigure(
        CheckOptions::default(),
        BatchOptions {
            max_line_bytes,
            ..BatchOptions::default()
        },
    );
    let items = detached(py, move || batch.read_items(&path))?.map_err(|e| record_error(py, &e))?;
    let list = PyList::empty(py);
    for item in &items {
        list.append(item_to_py(py, item)?)?;
    }
    Ok(list)
}

/// A str, or an error naming what was found.
fn name_of(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<String> {
    match obj.downcast::<PyString>() {
        Ok(s) => s.extract::<String>(),
        Err(_) => Err(PyTypeError::new_err(format!(
            "{what} must be a str, not {}",
            obj.get_type().name()?
        ))),
    }
}

fn letters_of(obj: &Bound<'_, PyAny>, location: &str) -> PyResult<Vec<String>> {
    let what = || format!("the trace of location {location:?}");
    if let Ok(list) = obj.downcast::<PyList>() {
        return list.iter().map(|a| name_of(&a, &what())).collect();
    }
    if let Ok(t) = obj.downcast::<PyTuple>() {
        return t.iter().map(|a| name_of(&a, &what())).collect();
    }
    if obj.downcast::<PyString>().is_ok() {
        return Err(PyTypeError::new_err(format!(
            "{} must be a list of action names, not a str",
            what()
        )));
    }
    PyIterator::from_object(obj)
        .map_err(|_| {
            PyTypeError::new_err(format!(
                "{} must be a list of action names, not {}",
                what(),
                obj.get_type()
                    .name()
                    .map(|n| n.to_string())
                    .unwrap_or_default()
            ))
        })?
        .map(|a| name_of(&a?, &what()))
        .collect()
}

fn traces_of(obj: &Bound<'_, PyAny>) -> PyResult<Vec<(String, Vec<String>)>> {
    if let Ok(d) = obj.downcast::<PyDict>() {
        let mut out = Vec::with_capacity(d.len());
        for (k, v) in d.iter() {
            let loc = name_of(&k, "a location name")?;
            let letters = letters_of(&v, &loc)?;
            out.push((loc, letters));
        }
        return Ok(out);
    }
    let m = obj.downcast::<PyMapping>().map_err(|_| {
        PyTypeError::new_err(format!(
            "a multitrace must be a dict of location names to lists of action names, not {}",
            obj.get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        ))
    })?;
    let mut out = Vec::new();
    for kv in m.items()?.iter() {
        let (k, v): (Bound<'_, PyAny>, Bound<'_, PyAny>) = kv.extract()?;
        let loc = name_of(&k, "a location name")?;
        let letters = letters_of(&v, &loc)?;
        out.push((loc, letters));
    }
    Ok(out)
}

/// An item from Python: `{location: [actions]}`, `{"traces": {...}, "id": ..., "trace": ...}`
/// (what `Model.read` returns), or `(id, {location: [actions]})`; `default` names it.
fn item_of(obj: &Bound<'_, PyAny>, default: impl FnOnce() -> String) -> PyResult<Item> {
    if let Ok(t) = obj.downcast::<PyTuple>() {
        if t.len() != 2 {
            return Err(PyTypeError::new_err(
                "a multitrace given as a tuple must be (id, {location: [actions]})",
            ));
        }
        return Ok(Item {
            trace: default(),
            id: id_of(t.get_item(0)?)?,
            traces: traces_of(&t.get_item(1)?)?,
        });
    }
    if let Ok(d) = obj.downcast::<PyDict>() {
        if let Some(traces) = d.get_item("traces")? {
            if traces.downcast::<PyDict>().is_ok() || traces.downcast::<PyMapping>().is_ok() {
                let (trace, id) = item_header(d, default)?;
                return Ok(Item {
                    trace,
                    id,
                    traces: traces_of(&traces)?,
                });
            }
        }
    }
    Ok(Item {
        trace: default(),
        id: None,
        traces: traces_of(obj)?,
    })
}

/// The model's names as Python dicts, to resolve a multitrace's names on the Python thread
/// with dict lookups (no string conversion): letter name to letter id, location name to index.
pub(crate) struct Names {
    letters: Py<PyDict>,
    locations: Py<PyDict>,
    /// The location of each letter.
    letter_location: Vec<u32>,
}

impl Names {
    pub fn new(py: Python<'_>, model: &CompiledModel) -> PyResult<Self> {
        let a = &model.alphabet;
        let letters = PyDict::new(py);
        for (i, n) in a.names().iter().enumerate() {
            letters.set_item(n, i as u32)?;
        }
        let locations = PyDict::new(py);
        for (i, n) in a.location_names().iter().enumerate() {
            locations.set_item(n, i as u32)?;
        }
        Ok(Names {
            letters: letters.unbind(),
            locations: locations.unbind(),
            letter_location: (0..a.len())
                .map(|i| a.location(LetterId(i as u32)).0)
                .collect(),
        })
    }

    /// The letters of a `{location: [letters]}` dict, or None when some name is not the
    /// model's (or not where it belongs), or a value is not a list or tuple: the names path
    /// then reports it.
    fn resolve(&self, py: Python<'_>, traces: &Bound<'_, PyDict>) -> Option<Vec<Vec<LetterId>>> {
        let (letters, locations) = (self.letters.bind(py), self.locations.bind(py));
        let mut out = vec![Vec::new(); locations.len()];
        for (k, v) in traces.iter() {
            let loc: u32 = locations.get_item(&k).ok()??.extract().ok()?;
            let letter = |a: Bound<'_, PyAny>| -> Option<LetterId> {
                let l: u32 = letters.get_item(&a).ok()??.extract().ok()?;
                (self.letter_location.get(l as usize) == Some(&loc)).then_some(LetterId(l))
            };
            let trace = &mut out[loc as usize];
            if let Ok(list) = v.downcast::<PyList>() {
                trace.reserve(list.len());
                for a in list.iter() {
                    trace.push(letter(a)?);
                }
            } else if let Ok(t) = v.downcast::<PyTuple>() {
                for a in t.iter() {
                    trace.push(letter(a)?);
                }
            } else {
                return None;
            }
        }
        Some(out)
    }
}

/// [`item_of`], with the names resolved to letters on this thread when they are the model's.
pub(crate) fn entry_of(
    py: Python<'_>,
    names: &Names,
    obj: &Bound<'_, PyAny>,
    default: impl FnOnce() -> String,
) -> PyResult<Entry> {
    let plain = |d: &Bound<'_, PyDict>| -> PyResult<bool> {
        // A `{"traces": {...}}` dict is an item, not a location named "traces".
        Ok(match d.get_item("traces")? {
            Some(t) => t.downcast::<PyDict>().is_err() && t.downcast::<PyMapping>().is_err(),
            None => true,
        })
    };
    if let Ok(d) = obj.downcast::<PyDict>() {
        if plain(d)? {
            if let Some(letters) = names.resolve(py, d) {
                return Ok(Entry::Letters(Letters {
                    trace: default(),
                    id: None,
                    letters,
                }));
            }
        } else if let Some(Ok(t)) = d.get_item("traces")?.map(|t| t.downcast_into::<PyDict>()) {
            if let Some(letters) = names.resolve(py, &t) {
                let item = item_header(d, default)?;
                return Ok(Entry::Letters(Letters {
                    trace: item.0,
                    id: item.1,
                    letters,
                }));
            }
        }
    }
    item_of(obj, default).map(Entry::Names)
}

fn id_of(v: Bound<'_, PyAny>) -> PyResult<Option<String>> {
    if v.is_none() {
        Ok(None)
    } else if let Ok(s) = v.downcast::<PyString>() {
        Ok(Some(s.extract::<String>()?))
    } else {
        Ok(Some(v.str()?.extract::<String>()?))
    }
}

/// The `trace` and `id` of a `{"trace", "id", "traces"}` dict.
fn item_header(
    d: &Bound<'_, PyDict>,
    default: impl FnOnce() -> String,
) -> PyResult<(String, Option<String>)> {
    let trace = match d.get_item("trace")? {
        Some(t) if !t.is_none() => name_of(&t, "\"trace\"")?,
        _ => default(),
    };
    let id = match d.get_item("id")? {
        Some(v) => id_of(v)?,
        None => None,
    };
    Ok((trace, id))
}

pub(crate) fn traces_to_py<'py>(
    py: Python<'py>,
    traces: &[(String, Vec<String>)],
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (loc, letters) in traces {
        d.set_item(loc, PyList::new(py, letters)?)?;
    }
    Ok(d)
}

fn item_to_py<'py>(py: Python<'py>, item: &Item) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("trace", &item.trace)?;
    d.set_item("id", &item.id)?;
    d.set_item("traces", traces_to_py(py, &item.traces)?)?;
    Ok(d)
}
