//! Lines of OpenTelemetry spans (`monitor --otel`): each line of a source is one OTLP JSON
//! request, mapped to events by the rules of `check --otel`, and pushed to the session; a
//! request received over OTLP/HTTP (`receive`) is one such line, read already.
//!
//! A line that is not a request is the rule of `check --otel` too: an `Error` record for the
//! line, one for each run it names (`multitrace_formats::otel::bad`), and when it may hold
//! spans of runs it does not name, no run gets a verdict from the spans that come after: each
//! run open then, and each run that gets a span later, gets an `Error` naming the line
//! instead (a record already written cannot be taken back).

use super::options::OtelMap;
use crate::session::{At, Decision, LiveEvent, Session};
use crate::Monitor;
use multitrace_check::Scratch;
use multitrace_formats::events::{EventError, Lost, RawEvent};
use multitrace_formats::otel::{otel_json_spans, SpanLink};
use multitrace_formats::NameIndex;
use multitrace_model::nfa::LocationId;
use multitrace_model::record::{ErrorRecord, Record};
use std::time::Duration;

/// What a line holds: its text, or a request already decoded (received over OTLP/HTTP).
#[derive(Clone, Copy)]
pub enum Spans<'a> {
    /// A line of OTLP JSON.
    Text(&'a str),
    /// A request received (`--otlp-http`, `--otlp-grpc`).
    #[cfg(feature = "otlp")]
    Request(&'a crate::receive::Received),
}

/// One line of spans (or request) and where it was read.
pub struct Line<'a> {
    /// The line.
    pub spans: Spans<'a>,
    /// `FILE:LINE` (`otlp-http:N`, `otlp-grpc:N` for the N-th request received so).
    pub at: &'a str,
    /// Wall-clock nanoseconds since the monitor started.
    pub wall: u64,
    /// The mapping rules.
    pub map: &'a OtelMap,
    /// Whether spans' parents are followed (`--arrival parents`).
    pub parents: bool,
}

/// What a line's spans need beside its events: their links, the runs they touch, and the
/// model's locations by lifeline name (for spans without actions).
#[derive(Default)]
pub struct SpanBuffers {
    links: Vec<SpanLink>,
    runs: Vec<String>,
    locations: Option<rustc_hash::FxHashMap<String, LocationId>>,
}

/// Pushes the events of one line (returns how many); a line that is not a request, and
/// an event with no run, give an Error record in `errors`; a bad event fails its run
/// (as in `check`).
#[allow(clippy::too_many_arguments)]
pub fn push_line(
    line: Line<'_>,
    m: &Monitor<'_>,
    scratch: &mut Scratch,
    session: &mut Session,
    letters: &NameIndex,
    raw: &mut Vec<RawEvent>,
    spans: &mut SpanBuffers,
    errors: &mut Vec<Record>,
    decided: &mut Vec<Decision>,
    lost: &mut Option<Lost>,
) -> u64 {
    let (file, no) = match line.at.rsplit_once(':') {
        Some((f, n)) => (f, n.parse().unwrap_or(0)),
        None => (line.at, 0),
    };
    raw.clear();
    spans.links.clear();
    // Set after this line's events: its own runs get the Error naming their spans there.
    let mut now_lost = None;
    let read = match line.spans {
        Spans::Text(text) => otel_json_spans(text, line.map, file, no, raw, &mut spans.links),
        #[cfg(feature = "otlp")]
        Spans::Request(req) => {
            let links = &mut spans.links;
            multitrace_formats::otel::otel_request_spans(req, line.map, file, no, raw, links);
            Ok(())
        }
    };
    if let Err(bad) = read {
        let e = ErrorRecord {
            message: bad.message(file, no),
            file: Some(file.to_string()),
            line: Some(no),
            column: Some(bad.column),
        };
        errors.push(Record::error(line.at.to_string(), None, e, Duration::ZERO));
        // Its runs are failed as the bad events `check` gives them are.
        raw.extend(bad.events(file, no));
        now_lost = bad.lost(file, no);
    }
    let read = Read {
        at: line.at,
        wall: line.wall,
        parents: line.parents,
    };
    push_read(
        read, m, scratch, session, letters, raw, spans, errors, decided, lost, now_lost,
    )
}

/// Where a delivery of spans was read, and how it is followed.
#[derive(Clone, Copy)]
pub struct Read<'a> {
    /// `FILE:LINE`, or another name of the delivery.
    pub at: &'a str,
    /// Wall-clock nanoseconds since the monitor started.
    pub wall: u64,
    /// Whether spans' parents are followed (`--arrival parents`).
    pub parents: bool,
}

impl SpanBuffers {
    /// The links of the spans to push (see [`push_read`]), to fill.
    pub fn links(&mut self) -> &mut Vec<SpanLink> {
        &mut self.links
    }
}

/// Pushes the events of one delivery read already (a line's, or span rows given by columns,
/// as the Spark job gives them): `raw`, and when `read.parents`, the links of `spans` (each
/// link's `events` are the next events of `raw`, in order: all of them are accounted for);
/// the spans are known first, then the events are pushed in order-key order, then the
/// locations whose parents came feed what they held. `now_lost`: the delivery could not be
/// read whole (every run open after it gets an Error). Returns how many events were pushed.
#[allow(clippy::too_many_arguments)]
pub fn push_read(
    read: Read<'_>,
    m: &Monitor<'_>,
    scratch: &mut Scratch,
    session: &mut Session,
    letters: &NameIndex,
    raw: &mut Vec<RawEvent>,
    spans: &mut SpanBuffers,
    errors: &mut Vec<Record>,
    decided: &mut Vec<Decision>,
    lost: &mut Option<Lost>,
    now_lost: Option<Lost>,
) -> u64 {
    if read.parents {
        follow_spans(read.at, m, scratch, session, letters, raw, spans, decided);
    }
    // A line holds the spans of one export in the order they ended (a parent after
    // its children): its events are taken in timestamp order (a stable sort, and only
    // each location's order matters). Events without a key fail their run first.
    raw.sort_by(|a, b| match (&a.body, &b.body) {
        (Ok((_, x)), Ok((_, y))) => x.cmp_key(y),
        (Err(_), Ok(_)) => std::cmp::Ordering::Less,
        (Ok(_), Err(_)) => std::cmp::Ordering::Greater,
        (Err(_), Err(_)) => std::cmp::Ordering::Equal,
    });
    let alphabet = &m.engine().model().alphabet;
    let n = raw.len() as u64;
    for ev in raw.drain(..) {
        let Some(run) = &ev.run else {
            let why = match &ev.body {
                Err(e) => e.to_string(),
                Ok(_) => "no run id".into(),
            };
            let e = ErrorRecord {
                message: format!("{}: bad event (no run): {why}", ev.at),
                file: Some(ev.file.clone()),
                line: Some(ev.line),
                column: None,
            };
            errors.push(Record::error(ev.at.clone(), None, e, Duration::ZERO));
            continue;
        };
        if let Some(lost) = lost {
            // A line before may have held spans of this run: no verdict.
            let e = lost.error(run, 0);
            session.fail_run(m, run, &ev.at, e, decided);
            continue;
        }
        let problem = match &ev.body {
            Err(e) => e.clone(),
            Ok((action, key)) => match letters.letter(action) {
                Some(letter) => {
                    session.push(
                        m,
                        scratch,
                        LiveEvent {
                            run,
                            letter,
                            key: *key,
                            at: At::Text(&ev.at),
                            wall: read.wall,
                            end: false,
                        },
                        decided,
                    );
                    continue;
                }
                None => {
                    let names = alphabet.names().iter().map(String::as_str);
                    let closest = multitrace_model::suggest::closest(action, names);
                    EventError::UnknownAction(action.clone(), closest.map(str::to_string))
                }
            },
        };
        // The Error record `check --otel` gives the run: it names the span and the rule.
        let e = ErrorRecord {
            message: format!("{}: bad event of run {run:?}: {problem}", ev.at),
            file: Some(ev.file.clone()),
            line: Some(ev.line),
            column: None,
        };
        session.fail_run(m, run, &ev.at, e, decided);
    }
    // The locations whose parents came in this line feed what they held.
    for run in spans.runs.drain(..) {
        session.unblock(m, scratch, &run, decided);
    }
    if let (None, Some(l)) = (&*lost, now_lost) {
        // Every run open now may have had spans there too.
        session.fail_open(m, scratch, |id| l.error(id, 0), decided);
        *lost = Some(l);
    }
    n
}

/// The spans of a line, before its events: each span's id is known to its run, and a
/// location whose span's parent (in its own service) has not come waits for it.
#[allow(clippy::too_many_arguments)]
fn follow_spans(
    at: &str,
    m: &Monitor<'_>,
    scratch: &mut Scratch,
    session: &mut Session,
    letters: &NameIndex,
    raw: &[RawEvent],
    spans: &mut SpanBuffers,
    decided: &mut Vec<Decision>,
) {
    let alphabet = &m.engine().model().alphabet;
    let locations = spans.locations.get_or_insert_with(|| {
        (0..alphabet.locations())
            .map(|k| {
                let k = LocationId(k as u32);
                (alphabet.location_name(k).to_string(), k)
            })
            .collect()
    });
    let mut next = 0;
    for link in &spans.links {
        let own = &raw[next..next + link.events];
        next += link.events;
        let Some(run) = &link.run else {
            continue;
        };
        // Its location: its first action's, else its lifeline's (a span with no action).
        let location = own
            .iter()
            .find_map(|e| e.body.as_ref().ok().and_then(|(a, _)| letters.letter(a)))
            .map(|l| alphabet.location(l))
            .or_else(|| {
                let name = link.lifeline.as_deref()?;
                let name =
                    multitrace_model::label::label_name(name).unwrap_or_else(|| name.to_string());
                locations.get(&name).copied()
            });
        session.span(
            m,
            scratch,
            run,
            at,
            &link.id,
            link.parent.as_deref(),
            link.local_parent,
            location,
            decided,
        );
        if spans.runs.last() != Some(run) {
            spans.runs.push(run.clone());
        }
    }
    spans.runs.sort_unstable();
    spans.runs.dedup();
}
