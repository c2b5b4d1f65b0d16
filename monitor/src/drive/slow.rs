//! Events the fast path does not read in place (read by the full JSON parser, or from CSV):
//! pushed to their run, or their run's Error; an event with no run is an Error record of its
//! own.

use crate::session::{At, Decision, LiveEvent, Session};
use crate::Monitor;
use multitrace_check::Scratch;
use multitrace_formats::events::{EventError, Lost, OrderKey};
use multitrace_formats::NameIndex;
use multitrace_model::record::{ErrorRecord, Record};
use std::time::Duration;

/// One event as read, with where it was read (`at`: `FILE:LINE`) and when.
pub struct SlowEvent<'a> {
    /// `FILE:LINE`.
    pub at: &'a str,
    /// Wall-clock nanoseconds since the monitor started.
    pub wall: u64,
    /// Whether the event ends its run.
    pub end: bool,
    /// The run id, if the event has one.
    pub run: Option<String>,
    /// The action and the order key, or why they cannot be read.
    pub body: Result<(String, OrderKey), EventError>,
}

/// Pushes `ev` to its run, or fails its run; returns whether it had no run (an Error record
/// of its own, in `loose`, keyed by the arrivals before it). An event with no run is `lost`
/// (the first such is kept): it may have been an event of any run, so every run open then
/// gets an Error naming it, and so does every run that gets an event after it (as in
/// `check --events`: no run gets a verdict from data known to be incomplete).
#[allow(clippy::too_many_arguments)]
pub fn push_slow(
    m: &Monitor<'_>,
    scratch: &mut Scratch,
    session: &mut Session,
    letters: &NameIndex,
    ev: SlowEvent<'_>,
    decided: &mut Vec<Decision>,
    loose: &mut Vec<(u64, Record)>,
    lost: &mut Option<Lost>,
) -> bool {
    let SlowEvent {
        at,
        wall,
        end,
        run,
        body,
    } = ev;
    if let (Some(run), Some(lost)) = (&run, &*lost) {
        session.fail_run(m, run, at, lost.error(run, 0), decided);
        return false;
    }
    match (run, body) {
        // Deferred as the fast path's events are (the same decisions, at the same events).
        (Some(run), Ok((action, key))) => match letters.letter(&action) {
            Some(letter) => session.push_deferred(
                m,
                scratch,
                LiveEvent {
                    run: &run,
                    letter,
                    key,
                    at: At::Text(at),
                    wall,
                    end,
                },
                decided,
            ),
            None => {
                let e = event_error(
                    at,
                    &run,
                    &format!("unknown action {action:?}: not a letter of the model"),
                );
                session.fail_run(m, &run, at, e, decided);
            }
        },
        (Some(run), Err(e)) => {
            let e = event_error(at, &run, &e.to_string());
            session.fail_run(m, &run, at, e, decided);
        }
        (None, body) => {
            let why = body
                .err()
                .map_or("no run id".to_string(), |e| e.to_string());
            let (file, no) = split_place(at);
            let e = ErrorRecord {
                message: format!("{at}: bad event (no run): {why}"),
                file: Some(file.to_string()),
                line: no,
                column: None,
            };
            let r = Record::error(at.to_string(), None, e, Duration::ZERO);
            loose.push((session.arrivals(), r));
            if lost.is_none() {
                // Worded as `check --events` words it.
                let l = Lost {
                    file: file.to_string(),
                    line: no,
                    column: None,
                    why: format!("an event whose run is not known ({why})"),
                };
                session.fail_open(m, scratch, |id| l.error(id, 0), decided);
                *lost = Some(l);
            }
            return true;
        }
    }
    false
}

/// `FILE:LINE` split.
fn split_place(at: &str) -> (&str, Option<u32>) {
    at.rsplit_once(':')
        .map_or((at, None), |(f, n)| (f, n.parse().ok()))
}

/// The Error of a run whose event at `at` cannot be read.
fn event_error(at: &str, run: &str, why: &str) -> ErrorRecord {
    let (file, line) = split_place(at);
    ErrorRecord {
        message: format!("{at}: bad event of run {run:?}: {why}"),
        file: Some(file.to_string()),
        line,
        column: None,
    }
}
