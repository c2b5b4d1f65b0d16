//! `multitrace._native`: the Rust side of the Python package `multitrace`.
//!
//! A thin layer over the libraries: models are compiled by `multitrace-compiler` and loaded by
//! `multitrace-runtime` (`artifact`), multitraces are checked through the runtime's batch API
//! (`multitrace_runtime::batch`), and every result is the runtime's verdict record
//! (`multitrace_runtime::record::Record`), converted to Python through its serde
//! serialization, so that Python and the command line write the same record.
//!
//! Rules kept here: the GIL is released whenever Rust works (checking, compiling, reading);
//! work runs on threads with the runtime's checking stack size; no panic crosses into Python
//! (each is caught and raised as `MultitraceError`); errors are the exceptions of
//! `multitrace._errors`, with the file, line and column when known.

use multitrace_compiler::compile::{AutomataPolicy, CompileOptions, LocationChoice};
use multitrace_analysis::generate::{
    generate as gen_multitraces, reason_label, GenError, GenOptions, Kind,
};
use multitrace_compiler::source::{
    check_recorded_source, compile_source, load_artifact, read_source, record_source, Freshness,
    SourceError,
};
use multitrace_compiler::syntax::{parse_locations_spec, ModelError};
use multitrace_runtime::artifact::{decode, encode};
use multitrace_runtime::batch::{
    collect_traces, default_jobs, Batch, BatchOptions, Entry, Item, Letters, Outcome, RunError,
};
use multitrace_runtime::check::explore::CHECK_STACK_SIZE;
use multitrace_runtime::check::{self, CheckOptions, Choice, Engine, Procedure, Scratch};
use multitrace_runtime::nfa::LetterId;
use multitrace_runtime::record::{
    BlockedRecord, BudgetRecord, Consumed, DiagnosisRecord, ErrorRecord, Record,
};
use multitrace_runtime::verdict::Mode;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyIterator, PyList, PyMapping, PyString, PyTuple};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, SyncSender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

// ---------------------------------------------------------------------------------------------
// Errors

/// Where an error is, when known.
#[derive(Default)]
struct At {
    file: Option<String>,
    line: Option<u32>,
    column: Option<u32>,
}

/// An exception of `multitrace._errors` (`MultitraceError`, `ParseError`, ...).
fn error(py: Python<'_>, class: &str, message: impl Into<String>, at: At) -> PyErr {
    let message = message.into();
    let made = py
        .import("multitrace._errors")
        .and_then(|m| m.getattr(class))
        .and_then(|c| c.call1((message.clone(), at.file, at.line, at.column)));
    match made {
        Ok(value) => PyErr::from_value(value),
        Err(e) => e,
    }
}

fn model_error(py: Python<'_>, e: &ModelError) -> PyErr {
    match e {
        ModelError::Parse(p) => error(
            py,
            "ParseError",
            p.to_string(),
            At {
                file: Some(p.file.clone()),
                line: Some(p.line),
                column: Some(p.column),
            },
        ),
        ModelError::Io { path, .. } => error(
            py,
            "ReadError",
            e.to_string(),
            At {
                file: Some(path.display().to_string()),
                ..At::default()
            },
        ),
    }
}

fn source_error(py: Python<'_>, e: &SourceError) -> PyErr {
    match e {
        SourceError::Model(m) => model_error(py, m),
        SourceError::Load { path, .. } => error(
            py,
            "LoadError",
            e.to_string(),
            At {
                file: Some(path.clone()),
                ..At::default()
            },
        ),
        SourceError::Compile(_) => error(py, "CompileError", e.to_string(), At::default()),
        SourceError::UnknownKind(p) | SourceError::UnknownSourceKind(p) => error(
            py,
            "LoadError",
            e.to_string(),
            At {
                file: Some(p.clone()),
                ..At::default()
            },
        ),
        SourceError::SourceMismatch(m) | SourceError::Stale(m) => error(
            py,
            "LoadError",
            e.to_string(),
            At {
                file: Some(m.artifact.clone()),
                ..At::default()
            },
        ),
    }
}

/// The exception for an Error record: a ParseError when the record has a position, else a
/// ReadError for a file that could not be read, else a CheckError.
fn record_error(py: Python<'_>, e: &ErrorRecord) -> PyErr {
    let class = match (e.line, &e.file) {
        (Some(_), _) => "ParseError",
        (None, Some(_)) if e.message.contains(": cannot read") => "ReadError",
        _ => "CheckError",
    };
    error(
        py,
        class,
        e.message.clone(),
        At {
            file: e.file.clone(),
            line: e.line,
            column: e.column,
        },
    )
}

/// Runs `f` without the GIL on a thread with the checking stack size; a panic becomes a
/// `MultitraceError`.
fn detached<T: Send>(py: Python<'_>, f: impl FnOnce() -> T + Send) -> PyResult<T> {
    let run = py.allow_threads(|| {
        std::thread::scope(|scope| {
            let handle = std::thread::Builder::new()
                .stack_size(CHECK_STACK_SIZE)
                .spawn_scoped(scope, f)
                .map_err(|e| format!("cannot start a thread: {e}"))?;
            handle.join().map_err(|p| panic_message(p.as_ref()))
        })
    });
    run.map_err(|m| {
        error(
            py,
            "MultitraceError",
            format!("internal error: {m}; please report it"),
            At::default(),
        )
    })
}

/// A job for a checking thread.
type Job = Box<dyn FnOnce() + Send + 'static>;

/// Threads with the checking stack size kept for single checks: starting one per call would
/// cost more than most checks. A thread ends when its sender is dropped (with its model).
#[derive(Default)]
struct Executor {
    idle: Mutex<Vec<Sender<Job>>>,
}

impl Executor {
    /// Runs `f` on an idle checking thread (a new one when none is idle) without the GIL;
    /// Ctrl-C is seen while waiting; a panic becomes a `MultitraceError`.
    fn run<T: Send + 'static>(
        &self,
        py: Python<'_>,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> PyResult<T> {
        let internal = |m: String| {
            error(
                py,
                "MultitraceError",
                format!("internal error: {m}; please report it"),
                At::default(),
            )
        };
        let idle = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let worker = match idle {
            Some(w) => w,
            None => {
                let (tx, rx) = std::sync::mpsc::channel::<Job>();
                std::thread::Builder::new()
                    .name("multitrace-check".into())
                    .stack_size(CHECK_STACK_SIZE)
                    .spawn(move || {
                        for job in rx {
                            job();
                        }
                    })
                    .map_err(|e| internal(format!("cannot start a thread: {e}")))?;
                tx
            }
        };
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        let rx = Mutex::new(rx);
        let job: Job = Box::new(move || {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
                .map_err(|p| panic_message(p.as_ref()));
            let _ = tx.send(r);
        });
        if worker.send(job).is_err() {
            return Err(internal("a checking thread is gone".into()));
        }
        loop {
            let got = py.allow_threads(|| {
                rx.lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .recv_timeout(Duration::from_millis(50))
            });
            match got {
                Ok(r) => {
                    self.idle
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push(worker);
                    return r.map_err(internal);
                }
                // On Ctrl-C the thread finishes the check alone, then ends.
                Err(RecvTimeoutError::Timeout) => py.check_signals()?,
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(internal("a checking thread is gone".into()))
                }
            }
        }
    }
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a thread panicked".into())
}

// ---------------------------------------------------------------------------------------------
// Options

fn parse_mode(mode: &str) -> PyResult<Mode> {
    match mode {
        "prefix" => Ok(Mode::Prefix),
        "complete" => Ok(Mode::Complete),
        _ => Err(PyValueError::new_err(format!(
            "mode={mode:?}: expected \"prefix\" or \"complete\""
        ))),
    }
}

fn parse_procedure(procedure: &str) -> PyResult<Choice> {
    Ok(match procedure {
        "auto" => Choice::Auto,
        "ac" => Choice::Force(Procedure::Ac),
        "as" => Choice::Force(Procedure::As),
        "term" => Choice::Force(Procedure::Term),
        _ => {
            return Err(PyValueError::new_err(format!(
                "procedure={procedure:?}: expected \"auto\", \"ac\", \"as\" or \"term\""
            )))
        }
    })
}

/// What each multitrace is asked: the keyword arguments shared by `check`, `check_many` and
/// `check_files` (their defaults are the command line's), which [`Settings::check_options`]
/// maps to the runtime's [`CheckOptions`], the one place that mapping is written.
#[derive(Clone, Copy, Debug)]
struct Settings<'a> {
    /// `"prefix"` or `"complete"`.
    mode: &'a str,
    /// `"auto"`, `"ac"`, `"as"` or `"term"`.
    procedure: &'a str,
    /// Rebuild one accepted interleaving for a Pass.
    witness: bool,
    /// Time per multitrace in milliseconds (0: none).
    timeout_ms: u64,
    /// Search vertices per multitrace (0: none).
    max_vertices: u64,
    /// Diagnose a Fail.
    diagnosis: bool,
    /// Search vertices of a diagnosis (0: none); its time limit is `timeout_ms`.
    max_diagnosis_vertices: u64,
    /// Term exploration: partial-order reduction.
    por: bool,
    /// Term exploration: local analyses.
    loc: bool,
    /// Term exploration: memoization.
    memo: bool,
}

impl<'a> Settings<'a> {
    /// The runtime's defaults ([`check::settings::Settings::default`]: no time limit) with
    /// `mode`, `procedure` and `diagnosis`: what the Spark functions ask, which take only those.
    fn runtime_defaults(mode: &'a str, procedure: &'a str, diagnosis: bool) -> Self {
        let d = check::settings::Settings::default();
        Settings {
            mode,
            procedure,
            witness: d.witness,
            timeout_ms: d.timeout_ms,
            max_vertices: d.max_vertices,
            diagnosis,
            max_diagnosis_vertices: d.max_diagnosis_vertices,
            por: d.por,
            loc: d.loc,
            memo: d.memo,
        }
    }

    /// The check options, by the runtime's one mapping ([`check::settings::Settings`]); a
    /// ValueError names a wrong `mode` or `procedure`.
    fn check_options(&self) -> PyResult<CheckOptions> {
        Ok(check::settings::Settings {
            mode: parse_mode(self.mode)?,
            choice: parse_procedure(self.procedure)?,
            witness: self.witness,
            timeout_ms: self.timeout_ms,
            max_vertices: self.max_vertices,
            // The runtime's default memory budget (no keyword argument yet).
            max_memory_mb: check::settings::Settings::default().max_memory_mb,
            diagnosis: self.diagnosis,
            max_diagnosis_vertices: self.max_diagnosis_vertices,
            por: self.por,
            loc: self.loc,
            memo: self.memo,
        }
        .check_options())
    }
}

fn batch_options(jobs: Option<usize>, max_line_bytes: u64) -> PyResult<BatchOptions> {
    if jobs == Some(0) {
        return Err(PyValueError::new_err(
            "jobs=0: at least one worker thread is needed; give jobs >= 1, or None for one per core",
        ));
    }
    Ok(BatchOptions {
        jobs: jobs.unwrap_or_else(default_jobs),
        max_line_bytes,
        ..BatchOptions::default()
    })
}

// ---------------------------------------------------------------------------------------------
// Results

/// The result of checking one multitrace: the fields of the JSON record, as attributes.
#[pyclass(frozen, module = "multitrace", name = "Result")]
struct CheckResult {
    record: Record,
}

fn to_py<'py, T: serde::Serialize + ?Sized>(py: Python<'py>, v: &T) -> PyResult<Bound<'py, PyAny>> {
    pythonize::pythonize(py, v).map_err(|e| PyValueError::new_err(e.to_string()))
}

#[pymethods]
impl CheckResult {
    /// Version of the record layout (1).
    #[getter]
    fn schema(&self) -> u32 {
        self.record.schema
    }
    /// Where the multitrace came from: a file, `FILE:LINE` of a JSON Lines input, or the name
    /// given in Python (`<python>:N` by default).
    #[getter]
    fn trace(&self) -> &str {
        &self.record.trace
    }
    /// The multitrace's id, if it has one.
    #[getter]
    fn id(&self) -> Option<&str> {
        self.record.id.as_deref()
    }
    /// `Pass`, `WeakPass`, `Fail`, `Inconclusive`, or `Error` (unreadable input).
    #[getter]
    fn verdict(&self) -> &str {
        &self.record.verdict
    }
    /// `ac`, `as` or `term` (None for an Error).
    #[getter]
    fn procedure(&self) -> Option<&str> {
        self.record.procedure.as_deref()
    }
    /// For a Fail: `LocalError`, `InterError` or `CentralError`; for Inconclusive: `Budget`.
    #[getter]
    fn reason(&self) -> Option<&str> {
        self.record.reason.as_deref()
    }
    /// One sentence: why it failed, which budget ran out, or the error.
    #[getter]
    fn explanation(&self) -> Option<&str> {
        self.record.explanation.as_deref()
    }
    /// For a LocalError: `{"location", "position", "found", "allowed"}`.
    #[getter]
    fn local_error<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.record.local_error)
    }
    /// For a Fail: `{"consumed", "blocked", "ended", "partial"}`.
    #[getter]
    fn diagnosis<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.record.diagnosis)
    }
    /// For Inconclusive: `{"limit", "established"}`.
    #[getter]
    fn budget<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.record.budget)
    }
    /// For an Error: `{"message", "file", "line", "column"}`.
    #[getter]
    fn error<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.record.error)
    }
    /// With `witness=True`, for a Pass: one accepted global interleaving.
    #[getter]
    fn witness(&self) -> Option<Vec<String>> {
        self.record.witness.clone()
    }
    /// Search vertices of the check.
    #[getter]
    fn vertices(&self) -> u64 {
        self.record.vertices
    }
    /// Wall-clock time of reading and checking, in microseconds.
    #[getter]
    fn time_us(&self) -> u64 {
        self.record.time_us
    }
    /// The record as a dict (the keys and order of the JSON record).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.record)
    }
    /// The record as one line of JSON, exactly as `multitrace check --format jsonl` writes it.
    fn to_json(&self) -> String {
        self.record.to_json()
    }
    fn __str__(&self) -> String {
        self.record.text_line()
    }
    fn __repr__(&self) -> String {
        format!(
            "Result(trace={:?}, verdict={:?}, reason={})",
            self.record.trace,
            self.record.verdict,
            self.record
                .reason
                .as_ref()
                .map_or("None".to_string(), |r| format!("{r:?}"))
        )
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .downcast::<CheckResult>()
            .is_ok_and(|o| o.get().record == self.record)
    }
    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.record.to_json().hash(&mut h);
        h.finish()
    }
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        let f = py
            .import("multitrace._native")?
            .getattr("_result_from_json")?;
        Ok((f, (self.record.to_json(),)))
    }
}

/// Rebuilds a Result from its JSON record (unpickling).
#[pyfunction]
fn _result_from_json(json: &str) -> PyResult<CheckResult> {
    let v: Value = serde_json::from_str(json).map_err(|e| PyValueError::new_err(e.to_string()))?;
    record_from_value(&v)
        .map(|record| CheckResult { record })
        .ok_or_else(|| PyValueError::new_err("not a verdict record"))
}

fn record_from_value(v: &Value) -> Option<Record> {
    let s = |v: &Value| v.as_str().map(str::to_string);
    let opt_s = |v: &Value| {
        if v.is_null() {
            Some(None)
        } else {
            s(v).map(Some)
        }
    };
    let blocked = |v: &Value| -> Option<BlockedRecord> {
        Some(BlockedRecord {
            location: s(&v["location"])?,
            position: v["position"].as_u64()? as usize,
            found: opt_s(&v["found"])?,
            allowed: v["allowed"]
                .as_array()?
                .iter()
                .map(s)
                .collect::<Option<_>>()?,
        })
    };
    let opt = |v: &Value, f: &dyn Fn(&Value) -> Option<_>| -> Option<Option<_>> {
        if v.is_null() {
            Some(None)
        } else {
            f(v).map(Some)
        }
    };
    let local_error = opt(&v["local_error"], &|v| blocked(v))?;
    let diagnosis = if v["diagnosis"].is_null() {
        None
    } else {
        let d = &v["diagnosis"];
        Some(DiagnosisRecord {
            consumed: Consumed(
                d["consumed"]
                    .as_object()?
                    .iter()
                    .map(|(k, n)| Some((k.clone(), n.as_u64()? as usize)))
                    .collect::<Option<_>>()?,
            ),
            blocked: d["blocked"]
                .as_array()?
                .iter()
                .map(blocked)
                .collect::<Option<_>>()?,
            ended: d["ended"].as_bool()?,
            partial: d["partial"].as_bool()?,
        })
    };
    let budget = if v["budget"].is_null() {
        None
    } else {
        Some(BudgetRecord {
            limit: s(&v["budget"]["limit"])?,
            established: opt_s(&v["budget"]["established"])?,
        })
    };
    let error = if v["error"].is_null() {
        None
    } else {
        let e = &v["error"];
        let n = |x: &Value| -> Option<Option<u32>> {
            if x.is_null() {
                Some(None)
            } else {
                x.as_u64().map(|n| Some(n as u32))
            }
        };
        Some(ErrorRecord {
            message: s(&e["message"])?,
            file: opt_s(&e["file"])?,
            line: n(&e["line"])?,
            column: n(&e["column"])?,
        })
    };
    let witness = if v["witness"].is_null() {
        None
    } else {
        Some(
            v["witness"]
                .as_array()?
                .iter()
                .map(s)
                .collect::<Option<_>>()?,
        )
    };
    Some(Record {
        schema: v["schema"].as_u64()? as u32,
        trace: s(&v["trace"])?,
        id: opt_s(&v["id"])?,
        verdict: s(&v["verdict"])?,
        procedure: opt_s(&v["procedure"])?,
        reason: opt_s(&v["reason"])?,
        explanation: opt_s(&v["explanation"])?,
        local_error,
        diagnosis,
        budget,
        error,
        witness,
        vertices: v["vertices"].as_u64()?,
        time_us: v["time_us"].as_u64()?,
    })
}

// ---------------------------------------------------------------------------------------------
// Multitraces from Python

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
struct Names {
    letters: Py<PyDict>,
    locations: Py<PyDict>,
    /// The location of each letter.
    letter_location: Vec<u32>,
}

impl Names {
    fn new(py: Python<'_>, model: &multitrace_runtime::model::CompiledModel) -> PyResult<Self> {
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
                .map(|i| a.location(multitrace_runtime::nfa::LetterId(i as u32)).0)
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
fn entry_of(
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

fn traces_to_py<'py>(
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

// ---------------------------------------------------------------------------------------------
// Models

/// A compiled model, ready to check multitraces (immutable; safe to share between threads).
#[pyclass(frozen, module = "multitrace", name = "Model")]
struct Model {
    batch: Batch<'static>,
    /// The model's names as Python dicts (shared with the iterators of `check_many`).
    names: Arc<Names>,
    /// Threads of single checks.
    executor: Executor,
    /// Scratch states of finished single checks, reused by the next ones.
    scratch: Mutex<Vec<Scratch>>,
}

impl Model {
    fn new(py: Python<'_>, model: multitrace_runtime::model::CompiledModel) -> PyResult<Self> {
        let names = Arc::new(Names::new(py, &model)?);
        let engine = Arc::new(Engine::new(model));
        Ok(Model {
            batch: Batch::shared(engine, CheckOptions::default(), BatchOptions::default()),
            names,
            executor: Executor::default(),
            scratch: Mutex::new(Vec::new()),
        })
    }

    fn engine(&self) -> &Engine {
        self.batch.engine()
    }

    fn shared_engine(&self) -> Batch<'static> {
        self.batch
            .reconfigure(CheckOptions::default(), BatchOptions::default())
    }
}

#[pymethods]
impl Model {
    /// Names of the locations, in the model's order (the keys of a multitrace dict).
    #[getter]
    fn locations(&self) -> Vec<String> {
        self.engine().model().alphabet.location_names().to_vec()
    }

    /// Letter names (actions such as `l1!m1` for an interaction), in the model's order.
    #[getter]
    fn alphabet(&self) -> Vec<String> {
        self.engine().model().alphabet.names().to_vec()
    }

    /// For each location, its letters: `{location: [letters]}`.
    #[getter]
    fn letters<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let a = &self.engine().model().alphabet;
        let d = PyDict::new(py);
        for (k, name) in a.location_names().iter().enumerate() {
            let letters: Vec<&str> = a
                .letters_of(multitrace_runtime::nfa::LocationId(k as u32))
                .iter()
                .map(|&l| a.name(l))
                .collect();
            d.set_item(name, letters)?;
        }
        Ok(d)
    }

    /// `"automata"` (checked by AS by default) or `"term-only"` (checked by term exploration).
    #[getter]
    fn kind(&self) -> &'static str {
        self.engine().model().kind_name()
    }

    /// The model's digest (as `multitrace inspect` shows it, as an int).
    #[getter]
    fn digest(&self) -> u64 {
        self.engine().model().digest
    }

    /// The source the model was compiled from, as recorded (`inspect`'s `source:`).
    #[getter]
    fn source(&self) -> String {
        self.engine().model().stats.source.clone()
    }

    /// The compiler's notices (what was rewritten, why a model is term-only).
    #[getter]
    fn notices(&self) -> Vec<String> {
        self.engine().model().stats.notices.clone()
    }

    /// The compiled model as `.mtm` bytes (what `multitrace compile` writes).
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let bytes = py.allow_threads(|| encode(self.engine().model()));
        Ok(PyBytes::new(py, &bytes))
    }

    /// Writes the compiled model to a `.mtm` file.
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        let bytes = py.allow_threads(|| encode(self.engine().model()));
        std::fs::write(&path, bytes).map_err(|e| {
            error(
                py,
                "ReadError",
                format!("{}: cannot write: {e}", path.display()),
                At {
                    file: Some(path.display().to_string()),
                    ..At::default()
                },
            )
        })
    }

    fn __reduce__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyBytes>,))> {
        let load = py.import("multitrace")?.getattr("load")?;
        Ok((load, (self.to_bytes(py)?,)))
    }

    fn __repr__(&self) -> String {
        let m = self.engine().model();
        format!(
            "Model(kind={:?}, locations={:?}, letters={}, digest=0x{:016x})",
            m.kind_name(),
            m.alphabet.location_names(),
            m.alphabet.len(),
            m.digest
        )
    }

    /// Checks one multitrace and returns its Result.
    ///
    /// `traces` maps location names to lists of letter names (for an interaction, actions
    /// such as `l1!m1`); a location not listed has an empty local trace. For an interaction,
    /// keys may also be other groups of lifelines (`"b,c"`): the multitrace is then checked by
    /// term exploration, as its `.htf` file would be. A `{"trace", "id", "traces"}` dict (what
    /// `read` and `generate` return) or an `(id, traces)` pair is accepted too.
    ///
    /// Options (the command line's): `mode` is `"prefix"` (multi-prefixes, the default) or
    /// `"complete"`; `procedure` is `"auto"`, `"ac"`, `"as"` or `"term"`; `witness` rebuilds
    /// one accepted interleaving for a Pass; `timeout_ms` and `max_vertices` bound each check
    /// (0: no bound; a budget that runs out gives Inconclusive); `diagnosis` and
    /// `max_diagnosis_vertices` control the diagnosis of a Fail; `por`, `loc`, `memo` tune term
    /// exploration; `trace` and `id` name the multitrace in the Result.
    ///
    /// Raises CheckError for unknown locations or actions, or a procedure this model cannot
    /// run; ValueError for a wrong option; TypeError when `traces` is not a multitrace.
    #[pyo3(signature = (traces, mode="prefix", procedure="auto", witness=false, timeout_ms=10_000,
        max_vertices=5_000_000, diagnosis=true, max_diagnosis_vertices=1_000_000, por=true, loc=true,
        memo=true, trace=None, id=None))]
    #[allow(clippy::too_many_arguments)]
    fn check(
        &self,
        py: Python<'_>,
        traces: &Bound<'_, PyAny>,
        mode: &str,
        procedure: &str,
        witness: bool,
        timeout_ms: u64,
        max_vertices: u64,
        diagnosis: bool,
        max_diagnosis_vertices: u64,
        por: bool,
        loc: bool,
        memo: bool,
        trace: Option<String>,
        id: Option<String>,
    ) -> PyResult<CheckResult> {
        let check = Settings {
            mode,
            procedure,
            witness,
            timeout_ms,
            max_vertices,
            diagnosis,
            max_diagnosis_vertices,
            por,
            loc,
            memo,
        }
        .check_options()?;
        let mut entry = entry_of(py, &self.names, traces, || "<python>".to_string())?;
        let (name, ident) = match &mut entry {
            Entry::Names(i) => (&mut i.trace, &mut i.id),
            Entry::Letters(l) => (&mut l.trace, &mut l.id),
        };
        if let Some(t) = trace {
            *name = t;
        }
        if id.is_some() {
            *ident = id;
        }
        let batch = self.batch.reconfigure(check, *self.batch.options());
        let mut scratch = self
            .scratch
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .pop()
            .unwrap_or_else(|| self.engine().scratch());
        let (outcome, scratch) = self.executor.run(py, move || {
            let o = batch.check_entry(&mut scratch, entry);
            (o, scratch)
        })?;
        self.scratch
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(scratch);
        if let Some(e) = &outcome.record.error {
            return Err(record_error(py, e));
        }
        Ok(CheckResult {
            record: outcome.record,
        })
    }

    /// Checks many multitraces in parallel and returns an iterator of Results in input order.
    ///
    /// `iterable` yields multitraces as `check` takes them (unnamed ones are named
    /// `<python>:N`, N from 1). Items are taken from it in chunks with the GIL held and checked
    /// on `jobs` threads (default: the number of cores) without the GIL, by the runtime's batch
    /// API; at most `jobs * 128` items are in flight, so memory does not grow with the length
    /// of the iterable. Options are those of `check`. With `errors="record"` (the default) an
    /// item that cannot be checked gives a Result whose verdict is `Error` in its place; with
    /// `errors="raise"` its exception is raised there. An item that is not a multitrace at all
    /// raises TypeError once the results before it have been returned. Stopping early (or
    /// dropping the iterator) stops the workers.
    #[pyo3(signature = (iterable, jobs=None, mode="prefix", procedure="auto", witness=false, timeout_ms=10_000,
        max_vertices=5_000_000, diagnosis=true, max_diagnosis_vertices=1_000_000, por=true, loc=true,
        memo=true, errors="record"))]
    #[allow(clippy::too_many_arguments)]
    fn check_many(
        &self,
        py: Python<'_>,
        iterable: &Bound<'_, PyAny>,
        jobs: Option<usize>,
        mode: &str,
        procedure: &str,
        witness: bool,
        timeout_ms: u64,
        max_vertices: u64,
        diagnosis: bool,
        max_diagnosis_vertices: u64,
        por: bool,
        loc: bool,
        memo: bool,
        errors: &str,
    ) -> PyResult<ResultIterator> {
        let check = Settings {
            mode,
            procedure,
            witness,
            timeout_ms,
            max_vertices,
            diagnosis,
            max_diagnosis_vertices,
            por,
            loc,
            memo,
        }
        .check_options()?;
        let raise = parse_errors(errors)?;
        let options = batch_options(jobs, BatchOptions::default().max_line_bytes)?;
        let batch = self.batch.reconfigure(check, options);
        validate(py, &batch)?;
        let input = PyIterator::from_object(iterable)?.unbind();
        let limit = options.jobs * 2 * options.window_per_job;
        let (item_tx, item_rx) = std::sync::mpsc::channel::<Entry>();
        let (out_tx, out_rx) = std::sync::mpsc::sync_channel::<Outcome>(limit + 1);
        let worker = spawn_batch(move || batch.run_entries(item_rx, sink(out_tx)))?;
        Ok(ResultIterator {
            names: Arc::clone(&self.names),
            input: Some(input),
            feed: Some(item_tx),
            out: Mutex::new(out_rx),
            in_flight: 0,
            limit,
            chunk: (limit / 8).max(1),
            pulled: 0,
            pending: None,
            raise,
            worker: Some(worker),
        })
    }

    /// Checks files and directories as `multitrace check` does; an iterator of Results in
    /// input order.
    ///
    /// `paths` are `.htf`, `.mtf` and `.jsonl` files, `-` (JSON Lines on standard input), or
    /// directories searched recursively (natural order; symbolic-link loops searched once,
    /// with a warning). Files are read by the workers; a JSON line longer than
    /// `max_line_bytes` is an Error. Options and `errors` as in `check_many`. Raises ReadError
    /// for a path that does not exist.
    #[pyo3(signature = (paths, jobs=None, mode="prefix", procedure="auto", witness=false, timeout_ms=10_000,
        max_vertices=5_000_000, diagnosis=true, max_diagnosis_vertices=1_000_000, por=true, loc=true,
        memo=true, errors="record", max_line_bytes=256 << 20))]
    #[allow(clippy::too_many_arguments)]
    fn check_files(
        &self,
        py: Python<'_>,
        paths: Vec<PathBuf>,
        jobs: Option<usize>,
        mode: &str,
        procedure: &str,
        witness: bool,
        timeout_ms: u64,
        max_vertices: u64,
        diagnosis: bool,
        max_diagnosis_vertices: u64,
        por: bool,
        loc: bool,
        memo: bool,
        errors: &str,
        max_line_bytes: u64,
    ) -> PyResult<ResultIterator> {
        let check = Settings {
            mode,
            procedure,
            witness,
            timeout_ms,
            max_vertices,
            diagnosis,
            max_diagnosis_vertices,
            por,
            loc,
            memo,
        }
        .check_options()?;
        let raise = parse_errors(errors)?;
        let options = batch_options(jobs, max_line_bytes)?;
        let batch = self.batch.reconfigure(check, options);
        validate(py, &batch)?;
        let mut notes = Vec::new();
        let files = collect_traces(&paths, &mut |n| notes.push(n)).map_err(|e| {
            error(
                py,
                "ReadError",
                e.to_string(),
                At {
                    file: Some(e.path.display().to_string()),
                    ..At::default()
                },
            )
        })?;
        if !notes.is_empty() {
            let warn = py.import("warnings")?.getattr("warn")?;
            for n in notes {
                warn.call1((n,))?;
            }
        }
        let limit = options.jobs * 2 * options.window_per_job;
        let (out_tx, out_rx) = std::sync::mpsc::sync_channel::<Outcome>(limit);
        let worker = spawn_batch(move || batch.run(files, sink(out_tx)))?;
        Ok(ResultIterator {
            names: Arc::clone(&self.names),
            input: None,
            feed: None,
            out: Mutex::new(out_rx),
            in_flight: 0,
            limit,
            chunk: 1,
            pulled: 0,
            pending: None,
            raise,
            worker: Some(worker),
        })
    }

    /// Reads a multitrace file (`.htf`, `.mtf`, `.jsonl`) into dicts
    /// `{"trace", "id", "traces": {location: [actions]}}`, in file order.
    #[pyo3(signature = (path, max_line_bytes=256 << 20))]
    fn read<'py>(
        &self,
        py: Python<'py>,
        path: PathBuf,
        max_line_bytes: u64,
    ) -> PyResult<Bound<'py, PyList>> {
        let batch = self.batch.reconfigure(
            CheckOptions::default(),
            BatchOptions {
                max_line_bytes,
                ..BatchOptions::default()
            },
        );
        let items =
            detached(py, move || batch.read_items(&path))?.map_err(|e| record_error(py, &e))?;
        let list = PyList::empty(py);
        for item in &items {
            list.append(item_to_py(py, item)?)?;
        }
        Ok(list)
    }

    /// Generates multitraces of a category (the `gen` command's): dicts with `trace`, `id`,
    /// `traces`, `verdict`, `reason`, `mode`, `length`.
    #[pyo3(signature = (kind, count=100, length=None, seed=0, max_attempts=None,
        max_vertices=5_000_000, allow_fewer=false))]
    #[allow(clippy::too_many_arguments)]
    fn generate<'py>(
        &self,
        py: Python<'py>,
        kind: &str,
        count: usize,
        length: Option<&Bound<'py, PyAny>>,
        seed: u64,
        max_attempts: Option<usize>,
        max_vertices: u64,
        allow_fewer: bool,
    ) -> PyResult<Bound<'py, PyList>> {
        let Some(k) = Kind::from_name(kind) else {
            let names: Vec<&str> = Kind::ALL.iter().map(|k| k.name()).collect();
            return Err(PyValueError::new_err(format!(
                "kind={kind:?}: expected one of {}",
                names.join(", ")
            )));
        };
        let (lo, hi): (usize, usize) = match length {
            None => (10, 20),
            Some(length) => match length.extract::<usize>() {
                Ok(n) => (n, n),
                Err(_) => length.extract().map_err(|_| {
                    PyTypeError::new_err("length must be an int or a (min, max) tuple")
                })?,
            },
        };
        if lo > hi {
            return Err(PyValueError::new_err(format!(
                "length: empty range {lo}..{hi}"
            )));
        }
        let opts = GenOptions {
            max_attempts,
            max_vertices: (max_vertices > 0).then_some(max_vertices),
            ..GenOptions::new(k, count, lo, hi, seed)
        };
        let engine = self.shared_engine();
        let generated = detached(py, move || gen_multitraces(engine.engine(), &opts))?;
        let generation = match generated {
            Ok(g) => g,
            Err(GenError::Shortfall { partial, .. }) if allow_fewer => *partial,
            Err(e) => return Err(error(py, "GenerateError", e.to_string(), At::default())),
        };
        let model = self.engine().model();
        let a = &model.alphabet;
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
            d.set_item("reason", reason_label(model, &item.verdict))?;
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
}

fn parse_errors(errors: &str) -> PyResult<bool> {
    match errors {
        "record" => Ok(false),
        "raise" => Ok(true),
        _ => Err(PyValueError::new_err(format!(
            "errors={errors:?}: expected \"record\" (an Error result in its place) or \"raise\""
        ))),
    }
}

fn validate(py: Python<'_>, batch: &Batch<'static>) -> PyResult<()> {
    let b = batch.reconfigure(*batch.check_options(), *batch.options());
    match detached(py, move || b.validate())? {
        Ok(()) => Ok(()),
        Err(e) => Err(error(py, "CheckError", e.to_string(), At::default())),
    }
}

/// The sink of a batch feeding a Python iterator: stops the batch when the iterator is gone.
fn sink(tx: SyncSender<Outcome>) -> impl FnMut(Outcome) -> Result<(), ()> {
    move |o| tx.send(o).map_err(|_| ())
}

/// The thread running a batch; its error is a worker thread that could not be started (the
/// sink's error only means the iterator is gone).
type Worker = std::thread::JoinHandle<Result<(), RunError<std::convert::Infallible>>>;

fn spawn_batch(
    run: impl FnOnce() -> Result<(), RunError<()>> + Send + 'static,
) -> PyResult<Worker> {
    std::thread::Builder::new()
        .name("multitrace-batch".into())
        .spawn(move || match run() {
            Ok(()) | Err(RunError::Sink(())) => Ok(()),
            Err(RunError::Spawn(e)) => Err(RunError::Spawn(e)),
        })
        .map_err(|e| PyValueError::new_err(format!("cannot start a thread: {e}")))
}

/// Results of `check_many` / `check_files`, in input order.
#[pyclass(module = "multitrace", name = "ResultIterator")]
struct ResultIterator {
    /// The model's names, to resolve items on the Python thread.
    names: Arc<Names>,
    /// The Python iterable's iterator, until it is exhausted (check_many).
    input: Option<Py<PyIterator>>,
    /// Items to the batch; dropped when the input is exhausted, which ends the batch's source.
    feed: Option<Sender<Entry>>,
    out: Mutex<Receiver<Outcome>>,
    /// Items sent and not yet returned.
    in_flight: usize,
    /// Most items in flight.
    limit: usize,
    /// Items taken from Python at once.
    chunk: usize,
    /// Items taken so far (they are named `<python>:N` from 1).
    pulled: usize,
    /// An exception from the input, raised once the items before it are returned.
    pending: Option<PyErr>,
    /// `errors="raise"`.
    raise: bool,
    worker: Option<Worker>,
}

impl ResultIterator {
    /// Takes up to `n` items from the Python iterator and sends them to the batch.
    fn feed(&mut self, py: Python<'_>, n: usize) {
        let (Some(input), Some(feed)) = (&self.input, &self.feed) else {
            return;
        };
        let mut it = input.bind(py).clone();
        for _ in 0..n {
            match it.next() {
                None => {
                    self.input = None;
                    self.feed = None;
                    return;
                }
                Some(Err(e)) => {
                    self.pending = Some(e);
                    self.input = None;
                    self.feed = None;
                    return;
                }
                Some(Ok(obj)) => {
                    let n = self.pulled + 1;
                    match entry_of(py, &self.names, &obj, || format!("<python>:{n}")) {
                        Ok(item) => {
                            self.pulled = n;
                            if feed.send(item).is_err() {
                                self.input = None;
                                self.feed = None;
                                return;
                            }
                            self.in_flight += 1;
                        }
                        Err(e) => {
                            let msg = format!("item {n} of check_many: {}", e.value(py));
                            self.pending = Some(PyTypeError::new_err(msg));
                            self.input = None;
                            self.feed = None;
                            return;
                        }
                    }
                }
            }
        }
    }

    fn finish(&mut self, py: Python<'_>) -> PyResult<()> {
        if let Some(w) = self.worker.take() {
            let joined = py.allow_threads(|| w.join());
            match joined {
                Ok(Ok(())) => {}
                Ok(Err(e)) => {
                    return Err(error(py, "MultitraceError", e.to_string(), At::default()))
                }
                Err(p) => {
                    return Err(error(
                        py,
                        "MultitraceError",
                        format!(
                            "internal error: {}; please report it",
                            panic_message(p.as_ref())
                        ),
                        At::default(),
                    ))
                }
            }
        }
        Ok(())
    }
}

#[pymethods]
impl ResultIterator {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<CheckResult>> {
        loop {
            while self.input.is_some() && self.in_flight + self.chunk <= self.limit {
                self.feed(py, self.chunk);
            }
            if self.in_flight == 0 && self.feed.is_none() && self.pending.is_some() {
                // Every item before the bad one was returned.
                return Err(self.pending.take().expect("pending"));
            }
            let got = {
                let out = &self.out;
                // A result already there is taken without releasing the GIL.
                let ready = out
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .try_recv()
                    .ok();
                match ready {
                    Some(o) => Ok(o),
                    None => py.allow_threads(|| {
                        out.lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .recv_timeout(Duration::from_millis(50))
                    }),
                }
            };
            match got {
                Ok(o) => {
                    self.in_flight = self.in_flight.saturating_sub(1);
                    if self.raise {
                        if let Some(e) = &o.record.error {
                            return Err(record_error(py, e));
                        }
                    }
                    return Ok(Some(CheckResult { record: o.record }));
                }
                Err(RecvTimeoutError::Timeout) => py.check_signals()?,
                Err(RecvTimeoutError::Disconnected) => {
                    self.finish(py)?;
                    if let Some(e) = self.pending.take() {
                        return Err(e);
                    }
                    if self.in_flight > 0 {
                        self.in_flight = 0;
                        return Err(error(
                            py,
                            "MultitraceError",
                            "internal error: the batch stopped early; please report it",
                            At::default(),
                        ));
                    }
                    return Ok(None);
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Module functions

fn compile_options(
    locations: Option<&Bound<'_, PyAny>>,
    random_locations: Option<usize>,
    seed: u64,
    state_cap: Option<usize>,
    dfa_cap: Option<usize>,
    area_cap_mb: Option<usize>,
    policy: &str,
) -> PyResult<CompileOptions> {
    let locations = match (locations, random_locations) {
        (Some(_), Some(_)) => {
            return Err(PyValueError::new_err(
                "locations and random_locations: give one of them",
            ))
        }
        (Some(l), None) => {
            if let Ok(spec) = l.downcast::<PyString>() {
                LocationChoice::Groups(
                    parse_locations_spec(&spec.extract::<String>()?)
                        .map_err(|e| PyValueError::new_err(format!("locations: {e}")))?,
                )
            } else {
                let groups: Vec<Vec<String>> = l.extract().map_err(|_| {
                    PyTypeError::new_err(
                        "locations must be a str such as 'l1,l2;l3' or a list of lists of names",
                    )
                })?;
                LocationChoice::Groups(groups)
            }
        }
        (None, Some(count)) => LocationChoice::Random { count, seed },
        (None, None) => LocationChoice::Default,
    };
    let policy = match policy {
        "auto" => AutomataPolicy::Auto,
        "automata" => AutomataPolicy::Require,
        "term-only" => AutomataPolicy::Never,
        _ => {
            return Err(PyValueError::new_err(format!(
                "policy={policy:?}: expected \"auto\", \"automata\" or \"term-only\""
            )))
        }
    };
    let d = CompileOptions::default();
    Ok(CompileOptions {
        locations,
        state_cap: state_cap.unwrap_or(d.state_cap),
        dfa_cap: dfa_cap.unwrap_or(d.dfa_cap),
        area_cap: area_cap_mb.map_or(d.area_cap, |mb| mb.saturating_mul(1 << 20)),
        policy,
    })
}

/// Compiles a source model (`.hif` with its signature, or `.timbuk`).
#[pyfunction]
#[pyo3(signature = (path, signature=None, locations=None, random_locations=None, seed=0,
    state_cap=None, dfa_cap=None, area_cap_mb=None, policy="auto"))]
#[allow(clippy::too_many_arguments)]
fn compile(
    py: Python<'_>,
    path: PathBuf,
    signature: Option<PathBuf>,
    locations: Option<&Bound<'_, PyAny>>,
    random_locations: Option<usize>,
    seed: u64,
    state_cap: Option<usize>,
    dfa_cap: Option<usize>,
    area_cap_mb: Option<usize>,
    policy: &str,
) -> PyResult<Model> {
    let opts = compile_options(
        locations,
        random_locations,
        seed,
        state_cap,
        dfa_cap,
        area_cap_mb,
        policy,
    )?;
    if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("mtm"))
    {
        return Err(error(
            py,
            "LoadError",
            format!(
                "{}: a compiled model; load it with multitrace.load (compile takes a .hif or .timbuk source)",
                path.display()
            ),
            At {
                file: Some(path.display().to_string()),
                ..At::default()
            },
        ));
    }
    let compiled = detached(py, move || {
        let src = read_source(&path, signature.as_deref())?;
        let mut model = compile_source(&src, &opts)?;
        model.stats.source = record_source(&path, signature.as_deref());
        Ok::<_, SourceError>(model)
    })?;
    let model = compiled.map_err(|e| source_error(py, &e))?;
    Model::new(py, model)
}

/// Loads a compiled model: `.mtm` bytes, or the path of a `.mtm` file.
#[pyfunction]
#[pyo3(signature = (path_or_bytes, allow_stale=false))]
fn load(py: Python<'_>, path_or_bytes: &Bound<'_, PyAny>, allow_stale: bool) -> PyResult<Model> {
    if let Ok(b) = path_or_bytes.downcast::<PyBytes>() {
        let bytes = b.as_bytes().to_vec();
        let decoded = detached(py, move || decode(&bytes))?;
        let model =
            decoded.map_err(|e| error(py, "LoadError", format!("<bytes>: {e}"), At::default()))?;
        return Model::new(py, model);
    }
    let path: PathBuf = path_or_bytes.extract().map_err(|_| {
        PyTypeError::new_err(
            "load takes .mtm bytes or the path of a .mtm file (str or os.PathLike)",
        )
    })?;
    let p = path.clone();
    let loaded = detached(py, move || {
        let model = load_artifact(&p)?;
        let fresh = check_recorded_source(&p, &model);
        Ok::<_, SourceError>((model, fresh))
    })?;
    let (model, fresh) = loaded.map_err(|e| source_error(py, &e))?;
    if let Freshness::Stale(m) = fresh {
        if !allow_stale {
            return Err(source_error(py, &SourceError::Stale(m)));
        }
    }
    Model::new(py, model)
}

/// Whether `path` names a compiled model.
#[pyfunction]
fn _is_compiled(path: PathBuf) -> bool {
    Path::new(&path)
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("mtm"))
}

/// The Rust extension of the `multitrace` package.
mod spark;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    spark::register(m)?;
    m.add_class::<Model>()?;
    m.add_class::<CheckResult>()?;
    m.add_class::<ResultIterator>()?;
    m.add_function(wrap_pyfunction!(compile, m)?)?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(_result_from_json, m)?)?;
    m.add_function(wrap_pyfunction!(_is_compiled, m)?)?;
    m.add("RECORD_SCHEMA", multitrace_runtime::record::RECORD_SCHEMA)?;
    m.add("DEFAULT_JOBS", default_jobs())?;
    Ok(())
}
