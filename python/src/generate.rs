//! `Model.generate`: labelled multitraces of a category, by the generator of the `gen`
//! command (`multitrace_analysis::generate`), as dicts.
//!
//! Invariant: each dict's `verdict`, `reason` and `mode` are those the multitrace was checked
//! to have when it was generated; `reason` is None where a Result's is (Pass, WeakPass).

use crate::compiled::Model;
use crate::errors::{error, At};
use crate::options::choices;
use crate::read::traces_to_py;
use crate::threads::detached;
use multitrace_analysis::generate::{
    generate as gen_multitraces, reason_label, GenError, GenOptions, Kind,
};
use multitrace_model::verdict::Mode;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// The generation options of `Model.generate`'s arguments: `kind` a category name, `length`
/// None (10 to 20 actions), an int or an inclusive `(min, max)`, `max_vertices` 0 for none.
pub(crate) fn options(
    kind: &str,
    count: usize,
    length: Option<&Bound<'_, PyAny>>,
    seed: u64,
    max_attempts: Option<usize>,
    max_vertices: u64,
) -> PyResult<GenOptions> {
    let Some(k) = Kind::from_name(kind) else {
        let names: Vec<&str> = Kind::ALL.iter().map(|k| k.name()).collect();
        return Err(PyValueError::new_err(format!(
            "kind={kind:?}: expected {}",
            choices(&names)
        )));
    };
    let (lo, hi): (usize, usize) = match length {
        None => (10, 20),
        Some(length) => match length.extract::<usize>() {
            Ok(n) => (n, n),
            Err(_) => length
                .extract()
                .map_err(|_| PyTypeError::new_err("length must be an int or a (min, max) tuple"))?,
        },
    };
    if lo > hi {
        return Err(PyValueError::new_err(format!(
            "length: empty range {lo}..{hi}"
        )));
    }
    Ok(GenOptions {
        max_attempts,
        max_vertices: (max_vertices > 0).then_some(max_vertices),
        ..GenOptions::new(k, count, lo, hi, seed)
    })
}

/// Generates the multitraces `opts` asks for; with `allow_fewer`, a shortfall gives those
/// found instead of a GenerateError.
pub(crate) fn generate<'py>(
    model: &Model,
    py: Python<'py>,
    opts: GenOptions,
    allow_fewer: bool,
) -> PyResult<Bound<'py, PyList>> {
    let k = opts.kind;
    let engine = model.shared_engine();
    let generated = detached(py, move || gen_multitraces(engine.engine(), &opts))?;
    let generation = match generated {
        Ok(g) => g,
        Err(GenError::Shortfall { partial, .. }) if allow_fewer => *partial,
        Err(e) => return Err(error(py, "GenerateError", e.to_string(), At::default())),
    };
    let compiled = model.engine().model();
    let a = &compiled.alphabet;
    let list = PyList::empty(py);
    for (i, item) in generation.items.iter().enumerate() {
        let name = format!("{k}-{:04}", i + 1);
        let traces: Vec<(String, Vec<String>)> = a
            .location_names()
            .iter()
            .zip(&item.traces)
            .map(|(n, t)| {
                (
                    n.clone(),
                    t.iter().map(|&l| a.name(l).to_string()).collect(),
                )
            })
            .collect();
        let d = PyDict::new(py);
        d.set_item("trace", &name)?;
        d.set_item("id", &name)?;
        d.set_item("traces", traces_to_py(py, &traces)?)?;
        d.set_item("verdict", item.verdict.kind.name())?;
        // The `gen` command's label (`LocalError(brok)`), None where a Result's is.
        let reason = item
            .verdict
            .reason
            .is_some()
            .then(|| reason_label(compiled, &item.verdict));
        d.set_item("reason", reason)?;
        d.set_item(
            "mode",
            match item.mode {
                Mode::Complete => "complete",
                Mode::Prefix => "prefix",
            },
        )?;
        d.set_item("length", item.len())?;
        list.append(d)?;
    }
    Ok(list)
}
