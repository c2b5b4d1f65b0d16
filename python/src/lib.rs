//! `multitrace._native`: the Rust side of the Python package `multitrace`.
//!
//! Invariants of the crate:
//!
//! - it is a skin: it parses Python arguments, calls the libraries and converts their values;
//!   it decides no verdict and has no reader of a format nor batch logic of its own;
//! - the GIL is released whenever Rust works (checking, compiling, reading), and that work
//!   runs on threads with the runtime's checking stack size;
//! - no panic crosses into Python (each is caught and raised as `MultitraceError`); errors are
//!   the exceptions of `multitrace._errors`, with the file, line and column when known.
//!
//! A thin layer over the libraries: models are compiled by `multitrace-compiler` and loaded by
//! `multitrace-model` (`artifact`), multitraces are checked through the batch API
//! (`multitrace_batch`), and every result is the one verdict record
//! (`multitrace_model::record::Record`), converted to Python through its serde
//! serialization, so that Python and the command line write the same record.
//!
//! One module per topic: `model` (the `Model` class's methods, `compile`, `load`; its state
//! is in `compiled`, which the other topics use), `check` (checking
//! one multitrace, many, or files), `result` (the `Result` class), `read` (multitraces in
//! and out of Python), `generate`, `spark` (the native side of `multitrace.spark`), `monitor`
//! (the live `Monitor` of `Model.monitor`; the columns it takes in `columns`, its spans in
//! `live_spans`), `otel` (OpenTelemetry spans: `read_otel` and
//! `spark.events_from_otel`),
//! `options` (the one reading of the check options), `errors` (the exceptions) and
//! `threads` (where Rust work runs). A new topic is a module with
//! a `register` function, added to the list below.

mod check;
mod columns;
mod compiled;
mod errors;
mod generate;
mod live_spans;
mod model;
mod monitor;
mod options;
mod otel;
mod read;
mod result;
mod spark;
mod threads;

use pyo3::prelude::*;

/// The Rust extension of the `multitrace` package: each topic registers its classes and
/// functions.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    model::register(m)?;
    check::register(m)?;
    result::register(m)?;
    spark::register(m)?;
    monitor::register(m)?;
    otel::register(m)?;
    m.add("RECORD_SCHEMA", multitrace_model::record::RECORD_SCHEMA)?;
    m.add("DEFAULT_JOBS", multitrace_model::budget::default_jobs())?;
    Ok(())
}
