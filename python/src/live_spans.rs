//! The OpenTelemetry spans of a live `Monitor` (`Model.monitor(otel=True)`,
//! `Monitor.push_otel`): lines of OTLP JSON fed to the session by the command's own code
//! (`multitrace_monitor::drive::otel::push_line`, as `multitrace monitor --otel` feeds them),
//! their records in the order the command writes them (`drive::in_order`).
//!
//! Invariant: no mapping or ordering of spans is decided here; a line is named `FILE:LINE` as
//! the command names a line of a followed file.

use crate::errors::{error, At};
use multitrace_check::Scratch;
use multitrace_formats::events::{Lost, RawEvent};
use multitrace_formats::otel::OtelMap;
use multitrace_formats::NameIndex;
use multitrace_model::nfa::Alphabet;
use multitrace_model::record::Record;
use multitrace_monitor::drive::otel::{push_line, Line, SpanBuffers, Spans as LineSpans};
use multitrace_monitor::drive::{in_order, Written};
use multitrace_monitor::session::{Decision, Session};
use multitrace_monitor::Monitor;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

/// What a monitor of OpenTelemetry spans keeps beside the session: the mapping, whether
/// spans' parents are followed, the buffers of a line, and the first line that may have held
/// spans of runs it does not name (then no run gets a verdict from later spans).
pub(crate) struct Spans {
    map: OtelMap,
    parents: bool,
    /// Lines taken by `push_otel` (they are named `SOURCE:N`, N from 1); kept in the state.
    pub(crate) lines: u64,
    letters: NameIndex,
    raw: Vec<RawEvent>,
    buffers: SpanBuffers,
    pub(crate) lost: Option<Lost>,
}

impl Spans {
    /// A monitor's spans, mapped by `map`, following parents when `parents`.
    pub(crate) fn new(map: OtelMap, parents: bool, alphabet: &Alphabet) -> Spans {
        Spans {
            map,
            parents,
            lines: 0,
            letters: NameIndex::new(alphabet),
            raw: Vec::new(),
            buffers: SpanBuffers::default(),
            lost: None,
        }
    }

    /// Feeds the lines of `text` (`at`: the place of the first, `FILE:LINE`; else the next
    /// of `source`'s lines), their events stamped `wall`; returns the records in the order
    /// the command writes them, and the span events taken.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn push(
        &mut self,
        m: &Monitor<'_>,
        session: &mut Session,
        scratch: &mut Scratch,
        text: &str,
        at: Option<&str>,
        source: &str,
        wall: u64,
    ) -> (Vec<Written>, u64) {
        // Where the first line is: `at` (`FILE:LINE`, or a file whose lines count from 1),
        // else the next of this monitor's lines.
        let (file, first) = match at {
            Some(a) => match a.rsplit_once(':').map(|(f, n)| (f, n.parse::<u64>())) {
                Some((f, Ok(n))) => (f.to_string(), n),
                _ => (a.to_string(), 1),
            },
            None => (source.to_string(), self.lines + 1),
        };
        let mut decided: Vec<Decision> = Vec::new();
        let mut errors: Vec<Record> = Vec::new();
        // The Error records of lines, keyed by the arrivals before them (as the command
        // keys them).
        let mut loose: Vec<(u64, Record)> = Vec::new();
        let mut place = String::new();
        let mut taken = 0u64;
        let mut count = 0u64;
        for (i, line) in text.lines().enumerate() {
            count += 1;
            if line.chars().all(char::is_whitespace) {
                continue;
            }
            place.clear();
            place.push_str(&format!("{file}:{}", first + i as u64));
            taken += push_line(
                Line {
                    spans: LineSpans::Text(line),
                    at: &place,
                    wall,
                    map: &self.map,
                    parents: self.parents,
                },
                m,
                scratch,
                session,
                &self.letters,
                &mut self.raw,
                &mut self.buffers,
                &mut errors,
                &mut decided,
                &mut self.lost,
            );
            loose.extend(errors.drain(..).map(|r| (session.arrivals(), r)));
        }
        if at.is_none() {
            self.lines += count;
        }
        (in_order(&mut decided, &mut loose), taken)
    }
}

/// The text of `push_otel`'s `spans`: str, or bytes as UTF-8 (bytes that are not replaced,
/// as the command reads a file's lines).
pub(crate) fn text_of(spans: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(b) = spans.downcast::<PyBytes>() {
        return Ok(String::from_utf8_lossy(b.as_bytes()).into_owned());
    }
    spans.extract().map_err(|_| {
        PyTypeError::new_err(format!(
            "spans must be str or bytes (lines of OTLP JSON), not {}",
            spans
                .get_type()
                .name()
                .map_or_else(|_| "?".into(), |n| n.to_string())
        ))
    })
}

/// The keys of a mapping file (`--otel-map`).
const MAP_KEYS: [&str; 4] = ["lifeline", "run", "message", "reply_suffix"];

/// `otel_map`: the path of a mapping file (`--otel-map`) or a dict of its keys.
pub(crate) fn otel_map_of(v: &Bound<'_, PyAny>) -> PyResult<OtelMap> {
    let py = v.py();
    if let Ok(d) = v.downcast::<PyDict>() {
        let mut text = String::new();
        for (k, val) in d.iter() {
            let k: String = k.extract()?;
            if !MAP_KEYS.contains(&k.as_str()) {
                return Err(PyValueError::new_err(format!(
                    "otel_map: unknown key {k:?} (keys: {})",
                    crate::options::choices(&MAP_KEYS)
                )));
            }
            text.push_str(&format!("{k} = {}\n", val.str()?));
        }
        return crate::otel::map_of(py, Some(&text), "<map>");
    }
    let path: std::path::PathBuf = v.extract().map_err(|_| {
        PyTypeError::new_err(
            "argument 'otel_map': the path of a mapping file or a dict of its keys",
        )
    })?;
    let file = path.display().to_string();
    let text = std::fs::read_to_string(&path).map_err(|e| {
        error(
            py,
            "ReadError",
            format!("{file}: cannot read: {e}"),
            At::file(file.clone()),
        )
    })?;
    crate::otel::map_of(py, Some(&text), &file)
}
