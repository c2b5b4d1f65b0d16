//! The OpenTelemetry spans of a live `Monitor` (`Model.monitor(otel=True)`,
//! `Monitor.push_otel`): lines of OTLP JSON fed to the session by the command's own code
//! (`multitrace_monitor::drive::otel::push_line`, as `multitrace monitor --otel` feeds them),
//! their records in the order the command writes them (`drive::in_order`).
//!
//! Invariant: no mapping or ordering of spans is decided here; a line is named `FILE:LINE` as
//! the command names a line of a followed file.

use crate::columns::{column, keys_of, optional_strings};
use crate::errors::{error, At};
use multitrace_check::Scratch;
use multitrace_formats::events::{EventError, Field, Lost, OrderKey, RawEvent};
use multitrace_formats::otel::{kind_parent_is_local, OtelMap, SpanLink};
use multitrace_formats::NameIndex;
use multitrace_model::nfa::Alphabet;
use multitrace_model::record::Record;
use multitrace_monitor::drive::otel::{
    push_line, push_read, Line, Read, SpanBuffers, Spans as LineSpans,
};
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

/// Span rows by columns (`Monitor.push_spans`, the rows of `multitrace.spark.events_from_otel`
/// with `spans=True`): one row per event of a span, or one row without an action for a span
/// that gives none; each row names its run, span, parent span, kind and service (the
/// lifeline: the location of a span without actions). `errors`: why a row's span gives no
/// event (then the row is a bad event of its run).
pub(crate) struct SpanRows {
    pub(crate) runs: Vec<Option<String>>,
    pub(crate) actions: Vec<Option<String>>,
    pub(crate) keys: Vec<Result<OrderKey, EventError>>,
    pub(crate) ats: Vec<String>,
    pub(crate) spans: Vec<Option<String>>,
    pub(crate) parents: Vec<Option<String>>,
    pub(crate) kinds: Vec<Option<String>>,
    pub(crate) services: Vec<Option<String>>,
    pub(crate) errors: Vec<Option<String>>,
}

impl SpanRows {
    /// The rows of `push_spans`' columns `[runs, actions, orders, spans, parents, kinds,
    /// services]` (`errors` and `ats` optional); a row without a place is named `SOURCE:N`,
    /// N counting from the `taken` events before.
    pub(crate) fn of(
        columns: [&Bound<'_, PyAny>; 7],
        errors: Option<&Bound<'_, PyAny>>,
        time_unit: Option<&str>,
        ats: Option<&Bound<'_, PyAny>>,
        source: &str,
        taken: u64,
    ) -> PyResult<SpanRows> {
        const NAMES: [&str; 7] = [
            "runs", "actions", "orders", "spans", "parents", "kinds", "services",
        ];
        let strings = |v: &Bound<'_, PyAny>, name: &str| optional_strings(&column(v, name)?, name);
        let [runs, actions, orders, spans, parents, kinds, services] = columns;
        let runs = strings(runs, "runs")?;
        let n = runs.len();
        let given = |v: Option<&Bound<'_, PyAny>>, name: &str| match v {
            Some(v) if !v.is_none() => strings(v, name),
            _ => Ok(vec![None; n]),
        };
        let ats = given(ats, "ats")?;
        let rows = SpanRows {
            actions: strings(actions, "actions")?,
            keys: keys_of(&column(orders, "orders")?, time_unit)?,
            spans: strings(spans, "spans")?,
            parents: strings(parents, "parents")?,
            kinds: strings(kinds, "kinds")?,
            services: strings(services, "services")?,
            errors: given(errors, "errors")?,
            ats: (ats.into_iter().enumerate())
                .map(|(i, a)| a.unwrap_or_else(|| format!("{source}:{}", taken + i as u64 + 1)))
                .collect(),
            runs,
        };
        let lengths = [
            n,
            rows.actions.len(),
            rows.keys.len(),
            rows.spans.len(),
            rows.parents.len(),
            rows.kinds.len(),
            rows.services.len(),
        ];
        if let Some(k) = lengths.iter().position(|&l| l != n) {
            return Err(PyValueError::new_err(format!(
                "columns of different lengths: {n} {}, {} {}",
                NAMES[0], lengths[k], NAMES[k]
            )));
        }
        if rows.errors.len() != n || rows.ats.len() != n {
            return Err(PyValueError::new_err(format!(
                "columns of different lengths: {n} runs, {} errors, {} places",
                rows.errors.len(),
                rows.ats.len()
            )));
        }
        Ok(rows)
    }

    /// How many rows.
    pub(crate) fn len(&self) -> usize {
        self.runs.len()
    }
}

impl Spans {
    /// Feeds span rows as one delivery (`at` names it): as a line of spans is fed, their
    /// spans known first (a row's span with its parent, kind and service), then their events
    /// in order-key order, then the locations whose parents came feed what they held. Returns
    /// the records in the order the command would write them.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn push_rows(
        &mut self,
        m: &Monitor<'_>,
        session: &mut Session,
        scratch: &mut Scratch,
        rows: SpanRows,
        at: &str,
        wall: u64,
    ) -> Vec<Written> {
        let SpanRows {
            runs,
            actions,
            keys,
            ats,
            spans,
            parents,
            kinds,
            services,
            errors: why,
        } = rows;
        let mut decided: Vec<Decision> = Vec::new();
        // Bad rows (a span that gives no event, said by `errors`) fail their runs first, as a
        // line's events without a key do.
        let mut errors: Vec<Record> = Vec::new();
        for (i, w) in why.iter().enumerate() {
            let Some(w) = w else { continue };
            let at = &ats[i];
            match &runs[i] {
                Some(run) => {
                    let e = crate::errors::event_error(at, Some(run), w);
                    session.fail_run(m, run, at, e, &mut decided);
                }
                // A line that is not a request: its Error record.
                None => errors.push(Record::error(
                    at.clone(),
                    None,
                    crate::errors::event_error(at, None, w),
                    std::time::Duration::ZERO,
                )),
            }
        }
        // The rows of each (run, span) together (a link per span, its events after it), then
        // the events of no span.
        let mut order: Vec<usize> = (0..runs.len()).filter(|&i| why[i].is_none()).collect();
        order.sort_by(|&a, &b| {
            (spans[a].is_none(), &runs[a], &spans[a]).cmp(&(
                spans[b].is_none(),
                &runs[b],
                &spans[b],
            ))
        });
        self.raw.clear();
        let links = self.buffers.links();
        links.clear();
        let mut keys: Vec<Option<Result<OrderKey, EventError>>> =
            keys.into_iter().map(Some).collect();
        for i in order {
            if let Some(id) = &spans[i] {
                let same = links
                    .last()
                    .is_some_and(|l: &SpanLink| l.run == runs[i] && &l.id == id);
                if !same {
                    links.push(SpanLink {
                        run: runs[i].clone(),
                        lifeline: services[i].clone(),
                        id: id.clone(),
                        parent: parents[i].clone(),
                        local_parent: kind_parent_is_local(kinds[i].as_deref()),
                        kind: "",
                        events: 0,
                    });
                }
                if actions[i].is_none() {
                    // The span gives no action: it only says where it is.
                    continue;
                }
                if let Some(l) = links.last_mut() {
                    l.events += 1;
                }
            }
            let key = keys[i].take().expect("each row once");
            let body = match (&actions[i], key) {
                (None, _) => Err(EventError::MissingValue(Field::Action)),
                (Some(_), Err(e)) => Err(e),
                (Some(a), Ok(k)) => Ok((a.clone(), k)),
            };
            let (file, line) = ats[i]
                .rsplit_once(':')
                .map_or((ats[i].as_str(), 0), |(f, n)| (f, n.parse().unwrap_or(0)));
            self.raw.push(RawEvent {
                at: ats[i].clone(),
                file: file.to_string(),
                line,
                run: runs[i].clone(),
                body,
            });
        }
        push_read(
            Read {
                at,
                wall,
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
            None,
        );
        let mut loose: Vec<(u64, Record)> = errors
            .into_iter()
            .map(|r| (session.arrivals(), r))
            .collect();
        in_order(&mut decided, &mut loose)
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
