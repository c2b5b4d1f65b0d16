//! OpenTelemetry spans in Python: `multitrace.read_otel` (span files to the runs that
//! `multitrace check --otel` checks) and the native side of `multitrace.spark.events_from_otel`
//! (OTLP JSON lines to event columns), both by the runtime's reader
//! ([`multitrace_formats::otel`]) and its mapping rules.
//!
//! Invariant: nothing is dropped silently: a run with a span that gives no action of the model
//! is an Error item (its record as `check --otel` writes it), an unreadable file an Error item
//! after the runs; a line or span that gives no event is a row with its `error`.

use crate::compiled::Model;
use crate::errors::{error, At};
use crate::result::to_py;
use crate::threads::detached;
use multitrace_formats::events::{OrderKey, RawEvent, RunOut};
use multitrace_formats::otel::{
    otel_json_spans, parse_otel_map, read_otel_runs, OtelMap, SpanLink,
};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::path::PathBuf;

/// The mapping: the rules' defaults, or the text of a mapping file (`file` names it).
pub(crate) fn map_of(py: Python<'_>, text: Option<&str>, file: &str) -> PyResult<OtelMap> {
    match text {
        None => Ok(OtelMap::default()),
        Some(t) => parse_otel_map(file, t).map_err(|e| {
            error(
                py,
                "ParseError",
                e.to_string(),
                At {
                    file: Some(e.file.clone()),
                    line: Some(e.line),
                    column: Some(e.column),
                },
            )
        }),
    }
}

/// `read_otel`: the runs of span files, in the order of each run's first span, as
/// `{"trace", "id", "traces"}` dicts; a run that cannot be checked (a span without an action
/// of the model, an unreadable file) as `{"trace", "id", "error"}` with the Error record's
/// `error` object.
#[pyfunction]
#[pyo3(signature = (model, paths, map_text=None, map_file="<map>"))]
fn _read_otel<'py>(
    py: Python<'py>,
    model: &Bound<'py, Model>,
    paths: Vec<PathBuf>,
    map_text: Option<&str>,
    map_file: &str,
) -> PyResult<Bound<'py, PyList>> {
    let map = map_of(py, map_text, map_file)?;
    for p in &paths {
        if !p.exists() {
            let f = p.display().to_string();
            return Err(error(
                py,
                "ReadError",
                format!("{f}: no such file"),
                At::file(f),
            ));
        }
    }
    let m = model.get();
    let batch = m.shared_engine();
    let runs = detached(py, move || {
        read_otel_runs(&batch.engine().model().alphabet, &paths, &map)
    })?;
    let list = PyList::empty(py);
    for r in runs {
        let d = PyDict::new(py);
        match r {
            RunOut::Item(item) => {
                d.set_item("trace", &item.trace)?;
                d.set_item("id", &item.id)?;
                d.set_item("traces", crate::read::traces_to_py(py, &item.traces)?)?;
            }
            RunOut::Error(rec) => {
                d.set_item("trace", &rec.trace)?;
                d.set_item("id", &rec.id)?;
                d.set_item("error", to_py(py, &rec.error)?)?;
            }
        }
        list.append(d)?;
    }
    Ok(list)
}

/// Event columns of OTLP JSON lines: `(runs, actions, orders, ats, errors)`, orders in
/// nanoseconds since the Unix epoch; a span that gives no action has a null action and its
/// error, a line that is not OTLP JSON one row with a null run and its error. Line N (from 1)
/// of `lines` is named `SOURCE:N`. With `spans`, also `(span ids, parents, kinds, services)`
/// (what `Monitor.push_spans` takes: [`SpanLink`]'s) and a row without an action, an order
/// or an error for each span that gives no event (it says where it is in its trace).
type Columns = (
    Vec<Option<String>>,
    Vec<Option<String>>,
    Vec<Option<i64>>,
    Vec<String>,
    Vec<Option<String>>,
);

/// The span columns of [`_otel_events`] with `spans`.
type SpanColumns = (
    Vec<Option<String>>,
    Vec<Option<String>>,
    Vec<Option<String>>,
    Vec<Option<String>>,
);

#[pyfunction]
#[pyo3(signature = (lines, map_text=None, map_file="<map>", source="spans", first_line=1, spans=false))]
fn _otel_events(
    py: Python<'_>,
    lines: Vec<Option<String>>,
    map_text: Option<&str>,
    map_file: &str,
    source: &str,
    first_line: u32,
    spans: bool,
) -> PyResult<(Columns, Option<SpanColumns>)> {
    let map = map_of(py, map_text, map_file)?;
    let source = source.to_string();
    detached(py, move || {
        let mut cols: Columns = Default::default();
        let mut span_cols: SpanColumns = Default::default();
        let mut evs: Vec<RawEvent> = Vec::new();
        let mut links: Vec<SpanLink> = Vec::new();
        for (i, text) in lines.iter().enumerate() {
            let line = first_line + i as u32;
            let Some(text) = text.as_deref().filter(|t| !t.trim().is_empty()) else {
                continue;
            };
            evs.clear();
            links.clear();
            if let Err(bad) = otel_json_spans(text, &map, &source, line, &mut evs, &mut links) {
                cols.0.push(None);
                cols.1.push(None);
                cols.2.push(None);
                cols.3.push(format!("{source}:{line}"));
                cols.4
                    .push(Some(format!("{source}:{line}:{}: {}", bad.column, bad.why)));
                if spans {
                    span_cols.0.push(None);
                    span_cols.1.push(None);
                    span_cols.2.push(None);
                    span_cols.3.push(None);
                }
                continue;
            }
            let mut evs = evs.drain(..);
            for link in &links {
                let mut span_row = || {
                    span_cols.0.push(Some(link.id.clone()));
                    span_cols.1.push(link.parent.clone());
                    span_cols.2.push(Some(link.kind.to_string()));
                    span_cols.3.push(link.lifeline.clone());
                };
                if link.events == 0 && spans {
                    span_row();
                    cols.0.push(link.run.clone());
                    cols.1.push(None);
                    cols.2.push(None);
                    cols.3.push(format!(
                        "{source}:{line}: span {} ({} span, no action)",
                        link.id, link.kind
                    ));
                    cols.4.push(None);
                }
                for e in evs.by_ref().take(link.events) {
                    if spans {
                        span_row();
                    }
                    cols.0.push(e.run);
                    cols.3.push(e.at);
                    match e.body {
                        Ok((action, key)) => {
                            cols.1.push(Some(action));
                            cols.2.push(match key {
                                OrderKey::Time(ns) => i64::try_from(ns).ok(),
                                _ => None,
                            });
                            cols.4.push(None);
                        }
                        Err(err) => {
                            cols.1.push(None);
                            cols.2.push(None);
                            cols.4.push(Some(err.to_string()));
                        }
                    }
                }
            }
        }
        (cols, spans.then_some(span_cols))
    })
}

/// Registers the functions of this module in the extension.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_read_otel, m)?)?;
    m.add_function(wrap_pyfunction!(_otel_events, m)?)
}
