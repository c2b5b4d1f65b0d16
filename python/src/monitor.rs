//! `Model.monitor`: live verdicts from Python, the runtime's incremental engine
//! ([`multitrace_monitor`]) behind a [`PyMonitor`] that takes events one at a time
//! (`push`) or by columns (`push_many`) and returns the records decided.
//!
//! Invariants: the engine and the session are the runtime's, as `multitrace monitor` uses
//! them, so a record is the command's (the `check` record plus its `monitor` object); every
//! event gets into exactly one run's record, or is an Error record itself (no run id); the
//! state (`state()`, pickling) is the session's bytes behind a header naming the model's
//! digest, so a state of another model or version is refused, never used.

use crate::columns::{column, duration, keys_of, optional_strings, wall_now, wall_of};
use crate::compiled::Model;
use crate::errors::{error, event_error, At};
use crate::live_spans::{otel_map_of, text_of, SpanRows, Spans};
use crate::options::{cli_defaults, Options, Signature};
use crate::result::CheckResult;
use multitrace_batch::Batch;
use multitrace_check::Scratch;
use multitrace_formats::events::{EventError, OrderKey};
use multitrace_model::nfa::LetterId;
use multitrace_model::record::Record;
use multitrace_monitor::drive::{Arrival, Written};
use multitrace_monitor::session::{
    At as Place, Closed, Decision, LiveEvent, Reorder, Session, SessionOptions,
};
use multitrace_monitor::{Monitor, MonitorOptions, DEFAULT_MAX_LIVE_VERTICES};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyTuple};
use std::time::Duration;

/// `Model.monitor(<check options>, idle_timeout=None, end_action=None, arrival="auto",
/// first_position=0, reorder_window=None, idleness=None, max_live_runs=1000000,
/// max_live_vertices=4096, otel=False, otel_map=None, source="<python>", state=None)`.
pub(crate) const MONITOR: Signature = Signature {
    name: "Model.monitor",
    before: &[],
    after: &[
        "idle_timeout",
        "end_action",
        "arrival",
        "first_position",
        "reorder_window",
        "idleness",
        "max_live_runs",
        "max_live_vertices",
        "otel",
        "otel_map",
        "source",
        "state",
    ],
};

/// The first bytes of a monitor's state: a name and a version, then the model's digest, the
/// events and the lines of spans taken.
const STATE_MAGIC: &[u8; 8] = b"MTMON\0\0\x02";
/// The state of the version before, without the count of lines of spans (still read).
const STATE_MAGIC_1: &[u8; 8] = b"MTMON\0\0\x01";

type Mon<'a> = Monitor<'a>;

self_cell::self_cell!(
    /// The runtime's monitor over a batch's shared engine (which it borrows).
    struct Engine {
        owner: Batch<'static>,
        #[covariant]
        dependent: Mon,
    }
);

/// A live monitor of many runs (see `Model.monitor`).
#[pyclass(module = "multitrace", name = "Monitor")]
pub(crate) struct PyMonitor {
    model: Py<Model>,
    engine: Engine,
    session: Session,
    scratch: Scratch,
    /// Events taken so far (they are named `SOURCE:N`, N from 1); kept in the state.
    events: u64,
    source: String,
    /// The options as given (to rebuild the monitor when unpickling).
    given: Py<PyDict>,
    sopts: SessionOptions,
    /// Letter ids by name.
    letters: std::collections::HashMap<String, LetterId>,
    /// Spans (`otel=True`, `push_otel`): what follows them, as `multitrace monitor --otel`.
    spans: Option<Spans>,
}

/// Why runs are closed by `close` and `close_all`: `"end-of-input"` (the default), `"idle"` or
/// `"stop"` (records flagged as cut).
fn closed(why: Option<&str>) -> PyResult<Closed> {
    Ok(match why.unwrap_or("end-of-input") {
        "end-of-input" => Closed::EndOfInput,
        "idle" => Closed::Idle,
        "stop" => Closed::Stop,
        other => {
            return Err(PyValueError::new_err(format!(
                "why={other:?}: expected {}",
                crate::options::choices(&["end-of-input", "idle", "stop"])
            )))
        }
    })
}

impl PyMonitor {
    /// `Model.monitor`.
    pub(crate) fn new(model: &Bound<'_, Model>, options: &Options<'_>) -> PyResult<Self> {
        let py = model.py();
        let m = model.get();
        let settings = options.settings(cli_defaults())?;
        let check = settings.check_options();
        let max_vertices = options
            .get::<usize>("max_live_vertices")?
            .unwrap_or(DEFAULT_MAX_LIVE_VERTICES);
        let batch = m.shared_engine();
        let engine = Engine::try_new(batch, |b| {
            Monitor::new(
                b.engine(),
                MonitorOptions {
                    check,
                    max_vertices,
                },
            )
        })
        .map_err(|e| error(py, "CheckError", e.to_string(), At::default()))?;
        let alphabet = &m.engine().model().alphabet;
        let letters: std::collections::HashMap<String, LetterId> = alphabet
            .names()
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), LetterId(i as u32)))
            .collect();
        let end_letter = match options.get::<Option<String>>("end_action")?.flatten() {
            None => None,
            Some(a) => Some(*letters.get(&a).ok_or_else(|| {
                PyValueError::new_err(format!(
                    "end_action={a:?}: not an action of the model (its actions: model.alphabet)"
                ))
            })?),
        };
        let idle_timeout = match options.get::<Option<Bound<'_, PyAny>>>("idle_timeout")? {
            Some(Some(v)) => Some(duration(&v, "idle_timeout")?),
            _ => None,
        };
        let window = match options
            .get::<Option<Bound<'_, PyAny>>>("reorder_window")?
            .flatten()
        {
            None => None,
            Some(v) if v.is_instance_of::<pyo3::types::PyInt>() => {
                Some(Reorder::Events(v.extract::<usize>()?))
            }
            Some(v) if v.extract::<String>().is_ok_and(|s| s == "unbounded") => {
                Some(Reorder::Unbounded)
            }
            Some(v) => Some(Reorder::Span(
                duration(&v, "reorder_window")?.as_nanos() as u64
            )),
        };
        let arrival = options
            .get::<String>("arrival")?
            .unwrap_or_else(|| "auto".into());
        let arrival = Arrival::from_name(&arrival).ok_or_else(|| {
            PyValueError::new_err(format!(
                "arrival={arrival:?}: expected {}",
                crate::options::choices(&[
                    "auto",
                    "parents",
                    "positions",
                    "window",
                    "in-order",
                    "end"
                ])
            ))
        })?;
        let first = options.get::<i64>("first_position")?.unwrap_or(0);
        let otel = options.get::<bool>("otel")?.unwrap_or(false);
        let map = match options
            .get::<Option<Bound<'_, PyAny>>>("otel_map")?
            .flatten()
        {
            None => None,
            Some(_) if !otel => {
                return Err(PyValueError::new_err(
                    "otel_map goes with otel=True (a monitor of spans)",
                ))
            }
            Some(v) => Some(otel_map_of(&v)?),
        };
        let (reorder, parents) = arrival.reorder(first, window, otel).map_err(|_| {
            PyValueError::new_err(match (arrival, window) {
                (Arrival::Parents, _) => "arrival='parents' follows OpenTelemetry spans: it \
                    needs otel=True (spans given to push_otel)"
                    .to_string(),
                (Arrival::Window, None) => {
                    "arrival='window' needs reorder_window (events, seconds or a timedelta)"
                        .to_string()
                }
                _ => format!(
                    "reorder_window goes with arrival='window', 'auto' or 'parents', not with \
                     arrival={:?}",
                    arrival.name()
                ),
            })
        })?;
        let max_live_runs = options.get::<usize>("max_live_runs")?.unwrap_or(1_000_000);
        if max_live_runs == 0 {
            return Err(PyValueError::new_err(
                "max_live_runs=0: at least one run must be live",
            ));
        }
        let idleness = match options
            .get::<Option<Bound<'_, PyAny>>>("idleness")?
            .flatten()
        {
            Some(v) => Some(duration(&v, "idleness")?),
            None => None,
        };
        let sopts = SessionOptions {
            end_letter,
            idle_timeout,
            reorder,
            idleness,
            max_live_runs,
            ..SessionOptions::default()
        };
        let source = options
            .get::<String>("source")?
            .unwrap_or_else(|| "<python>".into());
        let scratch = m.engine().scratch();
        let given = options.given(py)?;
        given.del_item("state").ok();
        let mut mon = PyMonitor {
            model: model.clone().unbind(),
            engine,
            session: Session::new(sopts),
            scratch,
            events: 0,
            source,
            given: given.unbind(),
            sopts,
            letters,
            spans: otel.then(|| Spans::new(map.unwrap_or_default(), parents, alphabet)),
        };
        if let Some(Some(state)) = options.get::<Option<Vec<u8>>>("state")? {
            mon.restore(py, &state)?;
        }
        Ok(mon)
    }

    fn digest(&self) -> u64 {
        self.engine.borrow_owner().engine().model().digest
    }

    fn restore(&mut self, py: Python<'_>, state: &[u8]) -> PyResult<()> {
        let bad = |why: String| {
            error(
                py,
                "LoadError",
                format!("monitor state: {why}"),
                At::default(),
            )
        };
        let (rest, header) = if let Some(rest) = state.strip_prefix(STATE_MAGIC.as_slice()) {
            (rest, 24)
        } else if let Some(rest) = state.strip_prefix(STATE_MAGIC_1.as_slice()) {
            (rest, 16)
        } else {
            return Err(bad(
                "not a multitrace monitor state of this version (Monitor.state() writes one)"
                    .into(),
            ));
        };
        let (digest, rest) = rest
            .split_at_checked(header)
            .ok_or_else(|| bad("truncated".into()))?;
        let (d, counts) = digest.split_at(8);
        let (n, lines) = counts.split_at(8);
        let d = u64::from_le_bytes(d.try_into().expect("8 bytes"));
        if d != self.digest() {
            return Err(bad(format!(
                "written for the model with digest {d:016x}, not this one ({:016x})",
                self.digest()
            )));
        }
        let events = u64::from_le_bytes(n.try_into().expect("8 bytes"));
        let session = Session::from_bytes(rest, self.sopts).map_err(|e| bad(e.to_string()))?;
        self.session = session;
        self.events = events;
        if let Some(spans) = &mut self.spans {
            spans.lines = match lines.try_into() {
                Ok(l) => u64::from_le_bytes(l),
                Err(_) => 0,
            };
            spans.lost = None;
        }
        Ok(())
    }

    fn state_bytes(&self) -> Vec<u8> {
        let s = self.session.to_bytes();
        let mut out = Vec::with_capacity(32 + s.len());
        out.extend_from_slice(STATE_MAGIC);
        out.extend_from_slice(&self.digest().to_le_bytes());
        out.extend_from_slice(&self.events.to_le_bytes());
        let lines = self.spans.as_ref().map_or(0, |s| s.lines);
        out.extend_from_slice(&lines.to_le_bytes());
        out.extend_from_slice(&s);
        out
    }

    /// Pushes events (the order keys already read), returning the decisions and the records
    /// of events without a run, in the order they were made.
    fn push_events(
        &mut self,
        py: Python<'_>,
        runs: Vec<Option<String>>,
        actions: Vec<Option<String>>,
        keys: Vec<Result<OrderKey, EventError>>,
        ends: Option<Vec<bool>>,
        ats: Option<Vec<Option<String>>>,
    ) -> PyResult<Vec<CheckResult>> {
        let n = runs.len();
        if actions.len() != n
            || keys.len() != n
            || ends.as_ref().is_some_and(|e| e.len() != n)
            || ats.as_ref().is_some_and(|a| a.len() != n)
        {
            return Err(PyValueError::new_err(format!(
                "columns of different lengths: {n} runs, {} actions, {} order keys{}{}",
                actions.len(),
                keys.len(),
                ends.as_ref()
                    .map_or(String::new(), |e| format!(", {} end flags", e.len())),
                ats.as_ref()
                    .map_or(String::new(), |a| format!(", {} places", a.len()))
            )));
        }
        let wall = wall_now();
        let first = self.events;
        self.events += n as u64;
        let PyMonitor {
            engine,
            session,
            scratch,
            source,
            letters,
            ..
        } = self;
        let out = py.allow_threads(|| {
            let m = engine.borrow_dependent();
            let mut out: Vec<Out> = Vec::new();
            let mut decided: Vec<Decision> = Vec::new();
            for (i, ((run, action), key)) in runs.into_iter().zip(actions).zip(keys).enumerate() {
                // Where the event is: the caller's place for it, else its position among the
                // events this monitor has taken.
                let at = match ats.as_ref().and_then(|a| a[i].as_deref()) {
                    Some(place) => place.to_string(),
                    None => format!("{source}:{}", first + i as u64 + 1),
                };
                let end = ends.as_ref().is_some_and(|e| e[i]);
                let body = match (action, key) {
                    (None, _) => Err("missing action".to_string()),
                    (Some(_), Err(e)) => Err(e.to_string()),
                    (Some(a), Ok(k)) => match letters.get(&a) {
                        Some(&l) => Ok((l, k)),
                        None => Err(format!("unknown action {a:?}: not a letter of the model")),
                    },
                };
                match (run, body) {
                    (Some(run), Ok((letter, key))) => session.push(
                        m,
                        scratch,
                        LiveEvent {
                            run: &run,
                            letter,
                            key,
                            at: Place::Text(&at),
                            wall,
                            end,
                        },
                        &mut decided,
                    ),
                    (Some(run), Err(why)) => {
                        let e = event_error(&at, Some(&run), &why);
                        session.fail_run(m, &run, &at, e, &mut decided);
                    }
                    (None, body) => {
                        let why = body.err().unwrap_or_else(|| "no run id".into());
                        let why = if why == "no run id" {
                            why
                        } else {
                            format!("no run id; {why}")
                        };
                        out.push(Out::Plain(Record::error(
                            at.clone(),
                            None,
                            event_error(&at, None, &why),
                            Duration::ZERO,
                        )));
                    }
                }
                out.extend(decided.drain(..).map(Out::Decided));
            }
            out
        });
        Ok(self.results(out))
    }

    fn results(&self, out: Vec<Out>) -> Vec<CheckResult> {
        let m = self.engine.borrow_dependent();
        out.into_iter()
            .map(|o| match o {
                Out::Plain(record) => CheckResult { record, line: None },
                Out::Decided(d) => {
                    let record = d.record(m);
                    CheckResult {
                        line: Some(d.to_json(&record)),
                        record,
                    }
                }
            })
            .collect()
    }

    /// Spans given to `what` (a monitor made with `otel=True`): `f` takes them (with the
    /// source's name and the wall clock) and gives the records written and the events taken.
    #[allow(clippy::type_complexity)]
    fn with_spans(
        &mut self,
        py: Python<'_>,
        what: &str,
        f: impl FnOnce(
                &Monitor<'_>,
                &mut Session,
                &mut Scratch,
                &mut Spans,
                &str,
                u64,
            ) -> (Vec<Written>, u64)
            + Send,
    ) -> PyResult<Vec<CheckResult>> {
        let PyMonitor {
            engine,
            session,
            scratch,
            source,
            spans,
            events,
            ..
        } = self;
        let Some(spans) = spans.as_mut() else {
            return Err(PyValueError::new_err(format!(
                "{what} takes spans on a monitor made with otel=True (as `multitrace monitor \
                 --otel`)"
            )));
        };
        let wall = wall_now();
        let (out, taken) = py.allow_threads(|| {
            let m = engine.borrow_dependent();
            let (written, taken) = f(m, session, scratch, spans, source, wall);
            let out: Vec<Out> = (written.into_iter())
                .map(|w| match w {
                    Written::Decided(d) => Out::Decided(d),
                    Written::Line(r) => Out::Plain(r),
                })
                .collect();
            (out, taken)
        });
        *events += taken;
        Ok(self.results(out))
    }

    fn close_with(
        &mut self,
        py: Python<'_>,
        f: impl FnOnce(&Monitor<'_>, &mut Session, &mut Scratch, &mut Vec<Decision>) + Send,
    ) -> Vec<CheckResult> {
        let PyMonitor {
            engine,
            session,
            scratch,
            ..
        } = self;
        let decided = py.allow_threads(|| {
            let mut decided = Vec::new();
            f(engine.borrow_dependent(), session, scratch, &mut decided);
            decided
        });
        self.results(decided.into_iter().map(Out::Decided).collect())
    }
}

/// What a push gives: a run's decision, or the Error record of an event without a run.
enum Out {
    Decided(Decision),
    Plain(Record),
}

#[pymethods]
impl PyMonitor {
    /// Takes one event of run `run`: its `action` (a letter of the model; its location is the
    /// model's) and its `order` key within that location (int, float, or str: a number or an
    /// RFC 3339 timestamp). `end=True` ends the run with this event. Returns the records
    /// decided by it (a list, usually empty): a Fail at the first event that makes it certain,
    /// the run's record at its end event, an Error for a bad or late event. `at` names where
    /// the event is (a record decided by it says so in `monitor["at"]`); without it, the
    /// event's position among those this monitor took (`SOURCE:N`).
    #[pyo3(signature = (run, action, order, end=false, time_unit=None, at=None))]
    #[allow(clippy::too_many_arguments)] // Python's keyword arguments
    fn push(
        &mut self,
        py: Python<'_>,
        run: Option<&Bound<'_, PyAny>>,
        action: Option<String>,
        order: &Bound<'_, PyAny>,
        end: bool,
        time_unit: Option<&str>,
        at: Option<String>,
    ) -> PyResult<Vec<CheckResult>> {
        let runs = PyList::new(py, [run])?;
        let runs = optional_strings(&runs, "runs")?;
        let keys = keys_of(&PyList::new(py, [order])?, time_unit)?;
        let ats = at.map(|a| vec![Some(a)]);
        self.push_events(py, runs, vec![action], keys, end.then(|| vec![true]), ats)
    }

    /// Takes many events in one call: `runs`, `actions` and `orders` are columns of the same
    /// length (lists, pyarrow arrays or pandas Series), `ends` optional end flags. The events
    /// are taken in column order; returns the records they decide, in the order decided.
    /// With `time_unit` (`"s"`, `"ms"`, `"us"` or `"ns"`), integer order keys are Unix
    /// timestamps in that unit (event time, for `idle_timeout` and a duration
    /// `reorder_window`). `ats`, optional, is a column of places, one per event (`None` for
    /// the default), as `push`'s `at`.
    #[pyo3(signature = (runs, actions, orders, ends=None, time_unit=None, ats=None))]
    #[allow(clippy::too_many_arguments)] // Python's keyword arguments
    fn push_many(
        &mut self,
        py: Python<'_>,
        runs: &Bound<'_, PyAny>,
        actions: &Bound<'_, PyAny>,
        orders: &Bound<'_, PyAny>,
        ends: Option<&Bound<'_, PyAny>>,
        time_unit: Option<&str>,
        ats: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Vec<CheckResult>> {
        let runs = optional_strings(&column(runs, "runs")?, "runs")?;
        let actions = optional_strings(&column(actions, "actions")?, "actions")?;
        let keys = keys_of(&column(orders, "orders")?, time_unit)?;
        let ends = match ends {
            Some(e) if !e.is_none() => Some(column(e, "ends")?.extract::<Vec<bool>>()?),
            _ => None,
        };
        let ats = match ats {
            Some(a) if !a.is_none() => Some(optional_strings(&column(a, "ats")?, "ats")?),
            _ => None,
        };
        self.push_events(py, runs, actions, keys, ends, ats)
    }

    /// Ends run `run` (its held events are checked first): its record, unless one was
    /// already returned (then an empty list). An unknown run gives an empty list. `why`
    /// (`"end-of-input"`, `"idle"` or `"stop"`) is what the record's `monitor["closed"]` says.
    #[pyo3(signature = (run, why=None))]
    fn close(
        &mut self,
        py: Python<'_>,
        run: String,
        why: Option<&str>,
    ) -> PyResult<Vec<CheckResult>> {
        let why = closed(why)?;
        Ok(self.close_with(py, move |m, s, sc, out| s.close(m, sc, &run, why, out)))
    }

    /// Ends every run without timestamps idle for longer than `idle_timeout` by the wall
    /// clock `now` (seconds since the Unix epoch, or a datetime; default: now); runs whose
    /// order keys are timestamps are closed by event time, by the `push` that moves the
    /// clock past their last timestamp by the timeout, so their records do not depend on
    /// when this is called. Nothing without an `idle_timeout`.
    #[pyo3(signature = (now=None))]
    fn close_idle(
        &mut self,
        py: Python<'_>,
        now: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Vec<CheckResult>> {
        let now = wall_of(now)?;
        Ok(self.close_with(py, move |m, s, sc, out| s.close_idle(m, sc, now, out)))
    }

    /// Moves the watermark of an event-time `reorder_window` to the wall clock `now` (seconds
    /// since the Unix epoch, or a datetime; default: now), as `multitrace monitor` does
    /// between its reads: after `idleness` without the event clock moving (the largest
    /// timestamp seen), the clock moves on with the wall clock, and every held event more
    /// than the window below it is checked. Returns the records decided (a Fail that waited
    /// in the window comes so without more events). Nothing without a duration
    /// `reorder_window`.
    #[pyo3(signature = (now=None))]
    fn advance(
        &mut self,
        py: Python<'_>,
        now: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Vec<CheckResult>> {
        let now = wall_of(now)?;
        Ok(self.close_with(py, move |m, s, sc, out| s.advance(m, sc, now, out)))
    }

    /// Takes OpenTelemetry spans (a monitor made with `otel=True`): `spans` (str or bytes)
    /// holds one OTLP JSON ExportTraceServiceRequest per line (a line of the Collector's file
    /// exporter, or several), mapped to events as `multitrace monitor --otel` maps them (by
    /// the rules of `read_otel`, or `otel_map`). Returns the records decided, in the order the
    /// command writes them. A line that is not a request gives an Error record (no run), and
    /// each run it names an Error; when it may hold spans of runs it does not name, every run
    /// that gets a span later gets an Error naming it. Lines are named `SOURCE:N` (N from 1,
    /// counting the lines taken), or from `at` (`FILE:LINE` of the first line).
    #[pyo3(signature = (spans, at=None))]
    fn push_otel(
        &mut self,
        py: Python<'_>,
        spans: &Bound<'_, PyAny>,
        at: Option<String>,
    ) -> PyResult<Vec<CheckResult>> {
        let text = text_of(spans)?;
        self.with_spans(
            py,
            "push_otel",
            move |m, session, scratch, spans, source, wall| {
                spans.push(m, session, scratch, &text, at.as_deref(), source, wall)
            },
        )
    }

    /// Takes OpenTelemetry spans as rows (a monitor made with `otel=True`), the columns of
    /// `multitrace.spark.events_from_otel(spans=True)`, as one line of `push_otel` (see
    /// `_native.pyi`): spans known first, then events in order-key order, then the services
    /// whose parents came go on. Returns the records decided, in the order written.
    #[pyo3(signature = (runs, actions, orders, spans, parents, kinds, services, errors=None,
                        time_unit=None, ats=None))]
    #[allow(clippy::too_many_arguments)] // Python's keyword arguments
    fn push_spans(
        &mut self,
        py: Python<'_>,
        runs: &Bound<'_, PyAny>,
        actions: &Bound<'_, PyAny>,
        orders: &Bound<'_, PyAny>,
        spans: &Bound<'_, PyAny>,
        parents: &Bound<'_, PyAny>,
        kinds: &Bound<'_, PyAny>,
        services: &Bound<'_, PyAny>,
        errors: Option<&Bound<'_, PyAny>>,
        time_unit: Option<&str>,
        ats: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Vec<CheckResult>> {
        let columns = [runs, actions, orders, spans, parents, kinds, services];
        let rows = SpanRows::of(columns, errors, time_unit, ats, &self.source, self.events)?;
        let at = format!("{}:{}", self.source, self.events + 1);
        self.with_spans(
            py,
            "push_spans",
            move |m, session, scratch, spans, _, wall| {
                let taken = rows.len() as u64;
                (spans.push_rows(m, session, scratch, rows, &at, wall), taken)
            },
        )
    }

    /// Ends every run (the end of the input), oldest first: their records (`why` as in
    /// `close`).
    #[pyo3(signature = (why=None))]
    fn close_all(&mut self, py: Python<'_>, why: Option<&str>) -> PyResult<Vec<CheckResult>> {
        let why = closed(why)?;
        Ok(self.close_with(py, move |m, s, sc, out| s.close_all(m, sc, why, out)))
    }

    /// Runs known: live, or decided and waiting for their end.
    #[getter]
    fn live_runs(&self) -> usize {
        self.session.live_runs()
    }

    /// Bytes held by the live runs' states.
    #[getter]
    fn state_size(&self) -> usize {
        self.session.bytes()
    }

    /// Events taken so far.
    #[getter]
    fn events(&self) -> u64 {
        self.events
    }

    /// The model.
    #[getter]
    fn model(&self, py: Python<'_>) -> Py<Model> {
        self.model.clone_ref(py)
    }

    /// The whole state as bytes (the runtime's session behind a header with the model's
    /// digest): give it as `state=` to `Model.monitor` (same options) to go on from here.
    fn state<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.state_bytes())
    }

    fn __getstate__<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        self.state(py)
    }

    /// Replaces the state with `state` (from `state()` or `__getstate__`).
    fn __setstate__(&mut self, py: Python<'_>, state: Vec<u8>) -> PyResult<()> {
        self.restore(py, &state)
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, Restore<'py>)> {
        let f = py
            .import("multitrace._native")?
            .getattr("_monitor_restore")?;
        Ok((
            f,
            (
                self.model.clone_ref(py),
                self.given.clone_ref(py),
                self.state(py),
            ),
        ))
    }

    fn __repr__(&self) -> String {
        format!(
            "Monitor(live_runs={}, events={}, state_size={})",
            self.session.live_runs(),
            self.events,
            self.session.bytes()
        )
    }
}

/// The arguments of [`_monitor_restore`]: the model, the options given, the state.
type Restore<'py> = (Py<Model>, Py<PyDict>, Bound<'py, PyBytes>);

/// Rebuilds a monitor (unpickling): the model, the options given, the state.
#[pyfunction]
fn _monitor_restore(
    model: &Bound<'_, Model>,
    options: &Bound<'_, PyDict>,
    state: Vec<u8>,
) -> PyResult<PyMonitor> {
    let py = model.py();
    let empty = PyTuple::empty(py);
    let kwargs = options.copy()?;
    kwargs.set_item("state", PyBytes::new(py, &state))?;
    let options = Options::bind(&MONITOR, &empty, Some(&kwargs))?;
    PyMonitor::new(model, &options)
}

/// Registers the class and function of this module in the extension.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyMonitor>()?;
    m.add_function(wrap_pyfunction!(_monitor_restore, m)?)
}
