//! One event taken and checked ([`Session::push`]): its run found or made (closing the
//! oldest idle one past the cap), its order key checked against the reorder window, the
//! event fed or held; and a run marked bad by an event that cannot be read
//! ([`Session::fail_run`]).
//!
//! Invariant: an event later than its window allows, or whose keys mix timestamps and
//! numbers, gives its run an `Error` record naming it, never a silent wrong verdict; later
//! events of a decided run are counted, never checked.

use super::event::LiveEvent;
use super::live::{feed, Key, Live};
use super::reorder::{
    bad_position, expected, feed_if_refused, hold, key_text, later, release, Reorder, MAX_HELD,
};
use super::state::Session;
use crate::decision::{Closed, Decision};
use crate::Monitor;
use multitrace_check::Scratch;
use multitrace_formats::events::OrderKey;
use multitrace_model::record::ErrorRecord;

/// Whether an event of location `j` with key `key`, to the decided run `live`, calls for a
/// correction: the run's record is a Fail, none was written yet, and the event goes before
/// one the Fail checked at its location (under positions a smaller key is a position seen
/// twice, not a late event: the positions before the Fail were all there).
pub(super) fn correction_due(live: &Live, j: usize, key: &OrderKey, reorder: Reorder) -> bool {
    !live.corrected
        && !matches!(reorder.of_key(key), Reorder::Positions(_))
        && live
            .fed
            .get(j)
            .and_then(|f| f.get())
            .is_some_and(|f| later(key, &f))
        && matches!(
            live.run.standing(),
            crate::Standing::Decided(_, multitrace_model::verdict::VerdictKind::Fail)
        )
}

impl Session {
    /// Takes one event; decisions (records to write) are appended to `out`.
    pub fn push(
        &mut self,
        m: &Monitor<'_>,
        scratch: &mut Scratch,
        ev: LiveEvent<'_>,
        out: &mut Vec<Decision>,
    ) {
        self.close_idle_before(m, scratch, &ev.key, out);
        if !self.dirty.is_empty() {
            self.settle_run(m, scratch, ev.run, out);
        }
        let opts = self.opts();
        self.arrivals += 1;
        if let OrderKey::Time(t) = ev.key {
            if self.clock.is_none_or(|c| t > c) {
                self.clock = Some(t);
                self.clock_wall = Some(ev.wall);
            }
        }
        if !self.runs.contains_key(ev.run) {
            // A run closed before: its late event is said so, and starts no run.
            let late = self.ended.late(ev.run, &ev.at.to_string(), ev.at.split());
            if let Some(record) = late {
                out.extend(record);
                return;
            }
            if self.runs.len() >= opts.max_live_runs.max(1) {
                self.evict(m, scratch, out);
            }
            let locations = m.engine().model().alphabet.locations();
            let first_at = self.places.place_at(ev.at);
            self.runs
                .insert(ev.run, Live::new(m.start(), first_at, locations));
        }
        let arrivals = self.arrivals;
        let live = self.runs.get_mut(ev.run).expect("inserted above");
        live.touched = arrivals;
        live.last_wall = ev.wall;
        if let OrderKey::Time(t) = ev.key {
            live.last_time = Key::new(ev.key);
            self.idle_due = self.idle_due.min(t);
        }
        if live.done {
            // Counted only: the run's record is written; but an event that goes before one
            // its Fail checked says that the Fail came under an arrival assumption that did
            // not hold: a correction, once.
            let j = m.engine().model().alphabet.location(ev.letter).index();
            if correction_due(live, j, &ev.key, opts.reorder) {
                live.corrected = true;
                let name = m
                    .engine()
                    .model()
                    .alphabet
                    .location_name(multitrace_model::nfa::LocationId(j as u32));
                let (file, line) = ev.at.split();
                let message = format!(
                    "{}: correction of run {:?}: its Fail was written before this event, which \
                     goes before an event of location {name} that the Fail checked: the events \
                     did not come in the order the arrival model assumes (see --arrival), and \
                     the Fail may be wrong",
                    ev.at, ev.run
                );
                out.push(Decision {
                    run: ev.run.to_string(),
                    first_at: self.places.text(&live.first_at),
                    verdict: Err(ErrorRecord {
                        message,
                        file,
                        line,
                        column: None,
                    }),
                    closed: Closed::Error,
                    at: Some(ev.at.to_string()),
                    order: Some(ev.key),
                    events: live.run.events() + 1,
                    bytes: live.run.state_bytes(),
                    arrival: live.touched,
                    late: None,
                });
            }
            m.push(scratch, &mut live.run, ev.letter);
        } else {
            let is_time = matches!(ev.key, OrderKey::Time(_));
            let mixed = *live.timestamps.get_or_insert(is_time) != is_time;
            let j = m.engine().model().alphabet.location(ev.letter).index();
            let location = || {
                m.engine()
                    .model()
                    .alphabet
                    .location_name(multitrace_model::nfa::LocationId(j as u32))
                    .to_string()
            };
            let why = if mixed {
                Some(
                    "this run mixes timestamps and numbers as order keys, which cannot be compared"
                        .to_string(),
                )
            } else if let Reorder::Positions(first) = opts.reorder.of_key(&ev.key) {
                let held = live.window.as_ref().and_then(|w| w.held.get(j));
                let held = held.map_or(&[][..], Vec::as_slice);
                bad_position(first, live.fed(j), held, &ev.key)
                    .map(|why| format!("location {}: {why}", location()))
                    .or_else(|| {
                        let all: usize = live
                            .window
                            .as_ref()
                            .map_or(0, |w| w.held.iter().map(Vec::len).sum());
                        (all >= MAX_HELD).then(|| {
                            format!(
                                "{all} events of the run are held waiting for position {} of \
                                 location {} (the most held is {MAX_HELD}): a record was lost",
                                key_text(&expected(first, live.fed(j))),
                                location()
                            )
                        })
                    })
            } else if live.fed(j).is_some_and(|f| later(&ev.key, &f)) {
                Some(format!(
                    "event later than the reorder window allows: its order key is smaller \
                     than one of location {} already checked (widen --reorder-window)",
                    location()
                ))
            } else {
                None
            };
            if let Some(why) = why {
                let (file, line) = ev.at.split();
                let error = ErrorRecord {
                    message: format!("{}: bad event of run {:?}: {why}", ev.at, ev.run),
                    file,
                    line,
                    column: None,
                };
                live.done = true;
                out.push(Decision {
                    run: ev.run.to_string(),
                    first_at: self.places.text(&live.first_at),
                    verdict: Err(error),
                    closed: Closed::Error,
                    at: Some(ev.at.to_string()),
                    order: Some(ev.key),
                    events: live.run.events() + 1,
                    bytes: live.run.state_bytes(),
                    arrival: live.touched,
                    late: None,
                });
                live.run.forget();
                live.window = None;
            } else if live.waits(j) {
                // Its location waits for a span's parent (`--otel`): held until it comes,
                // unless it makes the run's Fail certain whatever comes before it.
                hold(live, j, ev.key, ev.letter, &ev.at.to_string());
                feed_if_refused(m, scratch, &mut self.places, ev.run, live, j, out);
            } else if live.nothing_held(j)
                && opts.reorder.in_order()
                && opts.reorder.next(live.fed(j), &ev.key)
            {
                // Nothing held and no window, or the next position: fed at once, without
                // holding a copy (the largest key held is read by duration windows only).
                feed(
                    m,
                    scratch,
                    &mut self.places,
                    ev.run,
                    live,
                    j,
                    ev.letter,
                    ev.key,
                    ev.at,
                    out,
                );
            } else {
                hold(live, j, ev.key, ev.letter, &ev.at.to_string());
                let places = &mut self.places;
                release(
                    m,
                    scratch,
                    places,
                    ev.run,
                    live,
                    j,
                    opts.reorder,
                    false,
                    out,
                );
            }
        }
        let end = ev.end || opts.end_letter == Some(ev.letter);
        if end {
            self.close(m, scratch, ev.run, Closed::EndEvent, out);
        }
    }

    /// Gives every run whose record is not written yet the Error `error(id)`, in the order
    /// the runs were last touched: a part of the input that could not be read and names no
    /// run (a line that is not an event, a span file's line that names none of its traces)
    /// may have held events of any of them, and no run gets a verdict from data known to be
    /// incomplete. Their events fed unchecked are settled first (a Fail they decide is
    /// written as it would be at any other reading round).
    pub fn fail_open(
        &mut self,
        m: &Monitor<'_>,
        scratch: &mut Scratch,
        error: impl Fn(&str) -> ErrorRecord,
        out: &mut Vec<Decision>,
    ) {
        self.settle(m, scratch, out);
        let mut open: Vec<(u64, String)> = self
            .runs
            .iter()
            .filter(|(_, live)| !live.done)
            .map(|(id, live)| (live.touched, id.text()))
            .collect();
        open.sort_unstable();
        for (_, id) in open {
            self.fail_run(m, &id, "", error(&id), out);
        }
    }

    /// Marks run `run` bad with `error` (an event of it that cannot be read): its record is
    /// that Error.
    pub fn fail_run(
        &mut self,
        m: &Monitor<'_>,
        run: &str,
        first_at: &str,
        error: ErrorRecord,
        out: &mut Vec<Decision>,
    ) {
        if !self.dirty.is_empty() {
            self.settle_run(m, &mut m.engine().scratch(), run, out);
        }
        // The bad event is an arrival of its own: its record comes after those of the events
        // before it (see [`Decision::arrival`]).
        self.arrivals += 1;
        let places = &mut self.places;
        let live = self
            .runs
            .get_or_insert_with(run, || Live::new(m.start(), places.place(first_at), 0));
        if live.done {
            return;
        }
        live.done = true;
        let at = match (&error.file, error.line) {
            (Some(f), Some(l)) => Some(format!("{f}:{l}")),
            _ => None,
        };
        out.push(Decision {
            run: run.to_string(),
            first_at: self.places.text(&live.first_at),
            verdict: Err(error),
            closed: Closed::Error,
            at,
            order: None,
            events: live.run.events(),
            bytes: live.run.state_bytes(),
            arrival: self.arrivals,
            late: None,
        });
        live.run.forget();
    }
}
