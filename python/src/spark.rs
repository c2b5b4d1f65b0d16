//! Native side of `multitrace.spark`: events held as columns (one Arrow batch or one Spark
//! partition at a time) checked per run, and seed 004's semi-centralized split: the local step
//! per (run, location) gives a compact summary, the central step per run combines them.
//!
//! Summaries travel between Spark tasks as bytes (format version 1, little endian, `varint` is
//! LEB128):
//!
//! ```text
//! u8 version (1) | u64 model digest | u8 mode (0 complete, 1 prefix) | u8 kind
//! kind 0 (Pass):       varint location | varint n | n × varint letter | varint words | words × u64
//! kind 1 (LocalError): varint location | varint n | n × varint letter | varint position
//!                      | varint m | m × varint letter (allowed there)
//! kind 2 (Error):      varint length | UTF-8 message (a bad event of the run)
//! ```
//!
//! The letters are the location's trace: the central step needs it for AC on `Inter`.

use crate::compiled::Model;
use crate::options::{parse_mode, Options, Signature};
use crate::threads::detached;
use multitrace_batch::events::check_runs;
use multitrace_batch::BatchOptions;
use multitrace_check::explore::Budget;
use multitrace_check::semi::{central_check, local_summary};
use multitrace_check::settings::Settings;
use multitrace_check::summary::{LocalSummary, Summary, SummarySet};
use multitrace_check::CheckOptions;
use multitrace_formats::events::{
    EventError, Field, Grouper, OrderKey, OrderKeyError, RawEvent, RunOut,
};
use multitrace_model::model::CompiledModel;
use multitrace_model::nfa::{LetterId, LocationId};
use multitrace_model::record::{ErrorRecord, Names, Record};
use multitrace_model::verdict::Procedure;
use multitrace_model::verdict::{Mode, Sym};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyTuple};
use std::time::{Duration, Instant};

/// One output row: run, verdict, reason, explanation, local_error and diagnosis (JSON, or
/// None), the record as JSON.
type Row = (
    Option<String>,
    String,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
    String,
);

/// One local summary: run, location index (-1 for a run with a bad event), bytes.
type SummaryRow = (Option<String>, i64, Py<PyBytes>);

fn row(r: &Record) -> Row {
    (
        r.id.clone(),
        r.verdict.clone(),
        r.reason.clone(),
        r.explanation.clone(),
        r.local_error
            .as_ref()
            .and_then(|e| serde_json::to_string(e).ok()),
        r.diagnosis
            .as_ref()
            .and_then(|d| serde_json::to_string(d).ok()),
        r.to_json(),
    )
}

/// The order keys of a column: integers, floats, strings (numbers or RFC 3339), or None.
pub(crate) fn order_keys(orders: &Bound<'_, PyList>) -> Vec<Result<OrderKey, EventError>> {
    let bad = |error| EventError::OrderKey { field: None, error };
    orders
        .iter()
        .map(|o| {
            if o.is_none() {
                Err(EventError::MissingValue(Field::Order))
            } else if let Ok(i) = o.extract::<i64>() {
                Ok(OrderKey::Int(i.into()))
            } else if let Ok(f) = o.extract::<f64>() {
                if f.is_finite() {
                    Ok(OrderKey::Float(f))
                } else {
                    Err(bad(OrderKeyError::NotFinite { value: f }))
                }
            } else if let Ok(s) = o.extract::<String>() {
                OrderKey::parse(&s).map_err(bad)
            } else {
                Err(bad(OrderKeyError::Type {
                    value: o.to_string(),
                }))
            }
        })
        .collect()
}

/// A partition's events as three columns `(runs, actions, orders)` (what `_columns` of
/// `multitrace/spark.py` gives).
#[derive(FromPyObject)]
struct Columns<'py>(Vec<Option<String>>, Vec<Option<String>>, Bound<'py, PyList>);

/// Events from columns; `source` names them in messages (`SOURCE:ROW`, rows from 1).
fn events(source: &str, columns: Columns<'_>) -> PyResult<Vec<RawEvent>> {
    let Columns(runs, actions, orders) = columns;
    let orders = order_keys(&orders);
    if runs.len() != actions.len() || runs.len() != orders.len() {
        return Err(PyValueError::new_err(format!(
            "columns of different lengths: {} runs, {} actions, {} order keys",
            runs.len(),
            actions.len(),
            orders.len()
        )));
    }
    Ok(runs
        .into_iter()
        .zip(actions)
        .zip(orders)
        .enumerate()
        .map(|(i, ((run, action), order))| RawEvent {
            at: format!("{source}:{}", i + 1),
            file: source.to_string(),
            line: i as u32 + 1,
            run,
            body: match (action, order) {
                (None, _) => Err(EventError::MissingValue(Field::Action)),
                (Some(_), Err(e)) => Err(e),
                (Some(a), Ok(k)) => Ok((a, k)),
            },
        })
        .collect())
}

/// `_events_check(model, columns, source="events", <check options>)`: the check
/// options by keyword, with the runtime's defaults (no time limit: a Spark task is bounded by
/// Spark).
const EVENTS_CHECK: Signature = Signature {
    name: "_events_check",
    before: &[],
    after: &[],
};

/// Checks the events of whole runs (all events of each run are in these columns): one row
/// per run, in the order of each run's first event.
#[pyfunction]
#[pyo3(signature = (model, columns, source="events", **options))]
fn _events_check(
    py: Python<'_>,
    model: &Bound<'_, Model>,
    columns: Columns<'_>,
    source: &str,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Vec<Row>> {
    let model = model.get();
    let none = PyTuple::empty(py);
    let check = Options::bind(&EVENTS_CHECK, &none, options)?
        .settings(Settings::default())?
        .check_options();
    let evs = events(source, columns)?;
    let batch = model.batch.reconfigure(
        check,
        BatchOptions {
            jobs: 1,
            ..BatchOptions::default()
        },
    );
    let rows = detached(py, move || {
        let grouper = Grouper::new(&batch.engine().model().alphabet);
        let runs = grouper.group(evs);
        let mut rows = Vec::with_capacity(runs.len());
        let _ = check_runs(&batch, runs.into_iter(), |o| {
            rows.push(row(&o.record));
            Ok::<(), std::convert::Infallible>(())
        });
        rows
    })?;
    Ok(rows)
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn byte(&mut self) -> Option<u8> {
        let (&b, rest) = self.0.split_first()?;
        self.0 = rest;
        Some(b)
    }
    fn varint(&mut self) -> Option<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            v |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return Some(v);
            }
        }
        None
    }
    fn u64(&mut self) -> Option<u64> {
        let (w, rest) = self.0.split_at_checked(8)?;
        self.0 = rest;
        Some(u64::from_le_bytes(w.try_into().ok()?))
    }
    fn letters(&mut self, model: &CompiledModel) -> Option<Vec<String>> {
        let n = self.varint()? as usize;
        let names = model.alphabet.names();
        (0..n)
            .map(|_| names.get(self.varint()? as usize).cloned())
            .collect()
    }
}

fn mode_byte(mode: Mode) -> u8 {
    match mode {
        Mode::Complete => 0,
        Mode::Prefix => 1,
    }
}

/// Encodes a local summary (see the module documentation).
fn encode(model: &CompiledModel, k: LocationId, mode: Mode, s: &LocalSummary) -> Vec<u8> {
    let a = &model.alphabet;
    let id = |n: &String| a.letter(n).map_or(0, |l| l.index() as u64);
    let mut out = vec![1u8];
    out.extend_from_slice(&model.digest.to_le_bytes());
    out.push(mode_byte(mode));
    let pass = s.verdict == "Pass";
    out.push(if pass { 0 } else { 1 });
    put_varint(&mut out, k.index() as u64);
    put_varint(&mut out, s.trace.len() as u64);
    s.trace.iter().for_each(|n| put_varint(&mut out, id(n)));
    if pass {
        let hex = s.area.as_deref().unwrap_or("");
        put_varint(&mut out, (hex.len() / 16) as u64);
        for w in hex.as_bytes().chunks(16) {
            let w = std::str::from_utf8(w)
                .ok()
                .and_then(|w| u64::from_str_radix(w, 16).ok());
            out.extend_from_slice(&w.unwrap_or(0).to_le_bytes());
        }
    } else {
        put_varint(&mut out, s.position.unwrap_or(0) as u64);
        put_varint(&mut out, s.expected.len() as u64);
        s.expected.iter().for_each(|n| put_varint(&mut out, id(n)));
    }
    out
}

fn encode_error(model: &CompiledModel, mode: Mode, message: &str) -> Vec<u8> {
    let mut out = vec![1u8];
    out.extend_from_slice(&model.digest.to_le_bytes());
    out.push(mode_byte(mode));
    out.push(2);
    put_varint(&mut out, message.len() as u64);
    out.extend_from_slice(message.as_bytes());
    out
}

/// A decoded summary: the wire form the runtime validates, or a bad event's message.
enum Decoded {
    Local(LocationId, Box<LocalSummary>),
    Error(String),
}

fn decode(model: &CompiledModel, bytes: &[u8]) -> Option<Decoded> {
    let mut r = Reader(bytes);
    if r.byte()? != 1 {
        return None;
    }
    let digest = r.u64()?;
    let mode = match r.byte()? {
        0 => Mode::Complete,
        1 => Mode::Prefix,
        _ => return None,
    };
    let kind = r.byte()?;
    if kind == 2 {
        let n = r.varint()? as usize;
        let (m, _) = r.0.split_at_checked(n)?;
        return Some(Decoded::Error(String::from_utf8_lossy(m).into_owned()));
    }
    let k = r.varint()? as usize;
    let location = model.alphabet.location_names().get(k)?.clone();
    let trace = r.letters(model)?;
    let mut s = LocalSummary {
        format: multitrace_check::summary::FORMAT.into(),
        version: multitrace_check::summary::VERSION,
        digest: format!("{digest:016x}"),
        location,
        mode: multitrace_check::summary::mode_name(mode).into(),
        trace,
        verdict: "Pass".into(),
        position: None,
        expected: Vec::new(),
        area: None,
    };
    if kind == 0 {
        let words = r.varint()? as usize;
        let mut hex = String::with_capacity(words * 16);
        for _ in 0..words {
            hex.push_str(&format!("{:016x}", r.u64()?));
        }
        s.area = Some(hex);
    } else {
        s.verdict = "LocalError".into();
        s.position = Some(r.varint()? as usize);
        s.expected = r.letters(model)?;
    }
    Some(Decoded::Local(LocationId(k as u32), Box::new(s)))
}

/// The local step of seed 004's architecture on the events of some runs and locations: one
/// summary per (run, location) present, as `(run, location index, bytes)`; a run with a bad
/// event here gives `(run, -1, error bytes)`. Events of one (run, location) must all be in
/// these columns.
#[pyfunction]
#[pyo3(signature = (model, columns, mode="prefix", source="events"))]
fn _events_local(
    py: Python<'_>,
    model: &Bound<'_, Model>,
    columns: Columns<'_>,
    mode: &str,
    source: &str,
) -> PyResult<Vec<SummaryRow>> {
    let model = model.get();
    let mode = parse_mode(mode)?;
    let evs = events(source, columns)?;
    let engine = model.engine();
    let m = engine.model();
    if m.automata().is_none() {
        return Err(PyValueError::new_err(
            "this model is term-only: the semi-centralized check needs automata (its local verifiers); use check_events",
        ));
    }
    let out = detached(py, || {
        let alphabet = &m.alphabet;
        let grouper = Grouper::new(alphabet);
        let mut out: Vec<(Option<String>, i64, Vec<u8>)> = Vec::new();
        for r in grouper.group(evs) {
            match r {
                RunOut::Error(rec) => {
                    let msg = rec.explanation.clone().unwrap_or_default();
                    out.push((rec.id.clone(), -1, encode_error(m, mode, &msg)));
                }
                RunOut::Item(item) => {
                    for (k, (_, names)) in item.traces.iter().enumerate() {
                        if names.is_empty() {
                            continue;
                        }
                        let trace: Vec<LetterId> =
                            names.iter().filter_map(|n| alphabet.letter(n)).collect();
                        let k = LocationId(k as u32);
                        let bytes = match local_summary(m, k, &trace, mode) {
                            Ok(s) => encode(m, k, mode, &s),
                            Err(e) => encode_error(m, mode, &e.to_string()),
                        };
                        out.push((item.id.clone(), k.index() as i64, bytes));
                    }
                }
            }
        }
        out
    })?;
    Ok(out
        .into_iter()
        .map(|(r, k, b)| (r, k, PyBytes::new(py, &b).unbind()))
        .collect())
}

/// The central step: the summaries of runs (any order; a location without a summary has an
/// empty local trace) combined per run into one record each, in the order of each run's first
/// summary. The verdict is the one `check --procedure as` gives the run.
#[pyfunction]
#[pyo3(signature = (model, runs, summaries, diagnosis=true))]
fn _events_central(
    py: Python<'_>,
    model: &Bound<'_, Model>,
    runs: Vec<Option<String>>,
    summaries: Vec<Vec<u8>>,
    diagnosis: bool,
) -> PyResult<Vec<Row>> {
    let model = model.get();
    if runs.len() != summaries.len() {
        return Err(PyValueError::new_err(
            "runs and summaries of different lengths",
        ));
    }
    let engine = model.engine();
    detached(py, move || {
        let m = engine.model();
        let mut order: Vec<String> = Vec::new();
        let mut by_run: std::collections::HashMap<String, Vec<Vec<u8>>> = Default::default();
        // Events without a run: the local step gave each an error summary, which becomes its
        // Error row (after the runs), as check_events gives it.
        let mut orphans: Vec<Row> = Vec::new();
        for (r, s) in runs.into_iter().zip(summaries) {
            let Some(r) = r else {
                let message = match decode(m, &s) {
                    Some(Decoded::Error(msg)) => msg,
                    _ => "a summary without a run is not valid (format version 1)".to_string(),
                };
                let error = ErrorRecord::message(message);
                orphans.push(row(&Record::error(
                    "events".into(),
                    None,
                    error,
                    Duration::ZERO,
                )));
                continue;
            };
            by_run
                .entry(r.clone())
                .or_insert_with(|| {
                    order.push(r);
                    Vec::new()
                })
                .push(s);
        }
        let mut scratch = engine.scratch();
        order
            .into_iter()
            .map(|run| {
                let parts = by_run.remove(&run).unwrap_or_default();
                row(&central(engine, &mut scratch, m, &run, &parts, diagnosis))
            })
            .chain(orphans)
            .collect()
    })
}

fn error_record(run: &str, message: String) -> Record {
    Record::error(
        run.to_string(),
        Some(run.to_string()),
        ErrorRecord::message(message),
        Duration::ZERO,
    )
}

fn central(
    engine: &multitrace_check::Engine,
    scratch: &mut multitrace_check::Scratch,
    m: &CompiledModel,
    run: &str,
    parts: &[Vec<u8>],
    diagnosis: bool,
) -> Record {
    let start = Instant::now();
    let locations = m.alphabet.locations();
    let mut slots: Vec<Option<LocalSummary>> = vec![None; locations];
    let mut mode = None;
    let mut errors: Vec<String> = Vec::new();
    for p in parts {
        match decode(m, p) {
            None => {
                return error_record(
                    run,
                    format!("run {run:?}: a summary is not valid (format version 1)"),
                )
            }
            Some(Decoded::Error(msg)) => errors.push(msg),
            Some(Decoded::Local(k, s)) => {
                mode = Some(s.mode.clone());
                if slots[k.index()].replace(*s).is_some() {
                    return error_record(
                        run,
                        format!("run {run:?}: two summaries for location {}: the events of one (run, location) must be in one partition", m.alphabet.location_name(k)),
                    );
                }
            }
        }
    }
    if let Some(first) = errors.into_iter().min() {
        return error_record(run, first);
    }
    let mode = match mode.as_deref() {
        Some("complete") => Mode::Complete,
        _ => Mode::Prefix,
    };
    let mut set = Vec::with_capacity(locations);
    for (k, slot) in slots.into_iter().enumerate() {
        let k = LocationId(k as u32);
        let s = match slot {
            Some(s) => s,
            None => match local_summary(m, k, &[], mode) {
                Ok(s) => s,
                Err(e) => return error_record(run, e.to_string()),
            },
        };
        match Summary::from_local(run, &s, m) {
            Ok(s) => set.push(s),
            Err(e) => return error_record(run, e.to_string()),
        }
    }
    let set = match SummarySet::new(m, set) {
        Ok(s) => s,
        Err(e) => return error_record(run, e.to_string()),
    };
    let Some(tables) = engine.tables() else {
        return error_record(run, "term-only model: no local verifiers".into());
    };
    let opts = CheckOptions {
        mode,
        ..CheckOptions::default()
    };
    let budget: Budget = opts.budget;
    let mut v = match central_check(m, tables, &set, &budget, false) {
        Ok(v) => v,
        Err(e) => return error_record(run, e.to_string()),
    };
    if diagnosis {
        let traces: Vec<Vec<LetterId>> =
            set.summaries().iter().map(|s| s.trace().to_vec()).collect();
        if let Err(e) = engine.explain_letters(scratch, &traces, &opts, &mut v) {
            return error_record(run, e.to_string());
        }
    }
    let render = |s: Sym| m.sym_name(s);
    Record::checked(
        run.to_string(),
        Some(run.to_string()),
        &v,
        Procedure::As,
        &Names {
            render: &render,
            locations: m.alphabet.location_names(),
        },
        start.elapsed(),
    )
}

/// The location index of each action (-1: not a letter of the model).
#[pyfunction]
fn _action_locations(model: &Bound<'_, Model>, actions: Vec<Option<String>>) -> Vec<i64> {
    let a = &model.get().engine().model().alphabet;
    actions
        .iter()
        .map(|n| {
            n.as_deref()
                .and_then(|n| a.letter(n))
                .map_or(-1, |l| a.location(l).index() as i64)
        })
        .collect()
}

/// Registers the functions of this module in the extension.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_events_check, m)?)?;
    m.add_function(wrap_pyfunction!(_events_local, m)?)?;
    m.add_function(wrap_pyfunction!(_events_central, m)?)?;
    m.add_function(wrap_pyfunction!(_action_locations, m)?)?;
    Ok(())
}
