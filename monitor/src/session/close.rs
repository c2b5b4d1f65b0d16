//! The ends of a session's runs: an end event ([`Session::close`]), an idle timeout
//! ([`Session::close_idle`]), the cap on live runs (the oldest idle run is evicted), the end
//! of the input or a stop ([`Session::close_all`], [`Session::close_all_by`]).
//!
//! Invariant: a run that ends has its unchecked events settled and its held events fed
//! first; its record is written once, unless an event decided it before.

use super::event::split_at;
use super::live::Live;
use super::reorder::{expected, key_text, later, release, Reorder};
use super::settle::settle_live;
use super::state::Session;
use crate::decision::{Closed, Decision};
use crate::Monitor;
use multitrace_check::Scratch;
use multitrace_formats::events::OrderKey;
use multitrace_model::record::ErrorRecord;

impl Session {
    /// Ends run `run` (its held events are fed first); its record, unless already written.
    pub fn close(
        &mut self,
        m: &Monitor<'_>,
        scratch: &mut Scratch,
        run: &str,
        why: Closed,
        out: &mut Vec<Decision>,
    ) {
        self.settle_run(m, scratch, run, out);
        if let Some(mut live) = self.runs.remove(run) {
            self.release_all(m, scratch, run, &mut live, out);
            self.end(m, scratch, run, &live, why, out);
            self.ended.insert(run, why);
        }
    }

    /// Feeds every held event of a run that ends; under [`Reorder::Positions`], those after
    /// no gap, and a gap still open makes the run's record an `Error` naming the missing
    /// position (the events after it were never checked: no verdict from part of the run).
    fn release_all(
        &mut self,
        m: &Monitor<'_>,
        scratch: &mut Scratch,
        run: &str,
        live: &mut Live,
        out: &mut Vec<Decision>,
    ) {
        if live.done {
            return;
        }
        // Held events of one kind (a run that mixes them has its Error): the first says it.
        let key = live
            .window
            .as_ref()
            .and_then(|w| w.held.iter().flatten().next())
            .map(|h| h.key);
        let reorder = match key.map(|k| self.opts().reorder.of_key(&k)) {
            Some(p @ Reorder::Positions(_)) => p,
            _ => Reorder::Events(0),
        };
        let Reorder::Positions(first) = reorder else {
            // Every event of the run is known now: its held events are added unchecked and
            // the run is checked whole when it ends ([`Monitor::append`]), so its record is
            // `check`'s on the whole run, not that of a prefix in the order its locations'
            // held events happened to be fed (one diagnosis, whatever the input path).
            self.append_held(m, live);
            return;
        };
        for j in 0..live.windows() {
            let places = &mut self.places;
            release(m, scratch, places, run, live, j, reorder, false, out);
            if live.done {
                return;
            }
        }
        let gaps: Vec<String> = (0..live.windows())
            .filter(|&j| !live.nothing_held(j))
            .map(|j| {
                let held = &live.window.as_ref().expect("held events").held[j];
                let name = m
                    .engine()
                    .model()
                    .alphabet
                    .location_name(multitrace_model::nfa::LocationId(j as u32));
                format!(
                    "position {} of location {name} never came ({} later event{} held, from \
                     {})",
                    key_text(&expected(first, live.fed(j))),
                    held.len(),
                    if held.len() == 1 { "" } else { "s" },
                    held[0].at
                )
            })
            .collect();
        if gaps.is_empty() {
            return;
        }
        let (at, order) = match &live.last_at {
            Some((a, k)) => (Some(self.places.text(a)), k.get()),
            None => (None, None),
        };
        let first_at = self.places.text(&live.first_at);
        let (file, line) = at.as_deref().map_or((None, None), split_at);
        let message = format!(
            "run {run:?} ended with a gap: {} (a record lost, or --first-position is not the \
             first position the sources write)",
            gaps.join("; ")
        );
        live.done = true;
        out.push(Decision {
            run: run.to_string(),
            first_at,
            verdict: Err(ErrorRecord {
                message,
                file,
                line,
                column: None,
            }),
            closed: Closed::Error,
            at,
            order,
            events: live.run.events(),
            bytes: live.run.state_bytes(),
            arrival: u64::MAX,
            late: None,
        });
        live.window = None;
    }

    /// Adds every held event of a run that ends to it, unchecked ([`Monitor::append`]): the
    /// run is checked whole by its end's record. Its deciding place is its held event of
    /// the largest key (the last in order-key order, of the last location on a tie).
    fn append_held(&mut self, m: &Monitor<'_>, live: &mut Live) {
        let Some(w) = live.window.take() else {
            return;
        };
        let mut last: Option<(OrderKey, String)> = None;
        for (j, held) in w.held.into_iter().enumerate() {
            for h in held {
                m.append(&mut live.run, h.letter);
                live.fed[j] = super::live::Key::new(h.key);
                if last.as_ref().is_none_or(|(k, _)| !later(&h.key, k)) {
                    last = Some((h.key, h.at));
                }
            }
        }
        if let Some((key, at)) = last {
            let place = self.places.place(&at);
            live.set_last_at(place, key);
        }
    }

    /// The record of a run that ends (its held events fed), unless already written.
    fn end(
        &self,
        m: &Monitor<'_>,
        scratch: &mut Scratch,
        run: &str,
        live: &Live,
        why: Closed,
        out: &mut Vec<Decision>,
    ) {
        if live.done {
            return;
        }
        let (at, order) = match &live.last_at {
            Some((a, k)) => (Some(self.places.text(a)), k.get()),
            None => (None, None),
        };
        let v = m.finish(scratch, &live.run);
        out.push(Decision {
            run: run.to_string(),
            first_at: self.places.text(&live.first_at),
            late: m.late_note(&v, &live.run),
            verdict: Ok(v),
            closed: why,
            at,
            order,
            events: live.run.events(),
            bytes: live.run.state_bytes(),
            arrival: u64::MAX,
        });
    }

    /// Ends every run idle for longer than the idle timeout: by event time (the largest
    /// timestamp seen) for runs with timestamp keys, else by `now_wall` (the caller's clock).
    pub fn close_idle(
        &mut self,
        m: &Monitor<'_>,
        scratch: &mut Scratch,
        now_wall: u64,
        out: &mut Vec<Decision>,
    ) {
        let Some(t) = self.opts().idle_timeout else {
            return;
        };
        let t = t.as_nanos() as i128;
        let clock = self.clock;
        let mut idle: Vec<(u64, String)> = self
            .runs
            .iter()
            .filter(|(_, l)| match (l.last_time.get(), clock) {
                // In event time, closed as the events come ([`Session::close_idle_before`]).
                (Some(OrderKey::Time(_)), Some(_)) => false,
                _ => (now_wall as i128) - (l.last_wall as i128) > t,
            })
            .map(|(id, l)| (l.touched, id.text()))
            .collect();
        idle.sort();
        for (_, id) in idle {
            self.close(m, scratch, &id, Closed::Idle, out);
        }
    }

    /// Before an event with order key `key` is taken: with `--idle-timeout`, closes (oldest
    /// first) the runs whose last timestamp is more than the timeout before the clock, the
    /// event's timestamp counted. So in event time a run's end depends on the input alone,
    /// not on the pacing of its lines (when the wall clock looked every 100 ms, two runs of
    /// one file differed on 757 runs). The runs are scanned only when the clock passes the
    /// least last timestamp by the timeout: a scan either closes a run or raises that bound
    /// by more than the timeout.
    pub(super) fn close_idle_before(
        &mut self,
        m: &Monitor<'_>,
        scratch: &mut Scratch,
        key: &OrderKey,
        out: &mut Vec<Decision>,
    ) {
        let (Some(t), OrderKey::Time(k)) = (self.opts().idle_timeout, key) else {
            return;
        };
        let now = self.clock.map_or(*k, |c| c.max(*k));
        let cut = now.saturating_sub(t.as_nanos() as i128);
        if cut <= self.idle_due {
            return;
        }
        let mut due = i128::MAX;
        let mut idle: Vec<(u64, String)> = Vec::new();
        for (id, l) in self.runs.iter() {
            if let Some(OrderKey::Time(last)) = l.last_time.get() {
                if last < cut {
                    idle.push((l.touched, id.text()));
                } else {
                    due = due.min(last);
                }
            }
        }
        self.idle_due = due;
        idle.sort();
        for (_, id) in idle {
            self.close(m, scratch, &id, Closed::Idle, out);
        }
    }

    /// Every run, out of the session, oldest first (by the arrival of its latest event, then
    /// by id): moved, not copied (a session may hold a million runs).
    fn take_all(&mut self) -> Vec<(Box<str>, Box<Live>)> {
        let mut all: Vec<(Box<str>, Box<Live>)> = self.runs.drain();
        all.sort_unstable_by(|(a, x), (b, y)| (x.touched, a).cmp(&(y.touched, b)));
        all
    }

    /// Ends every run (end of input, or a stop), oldest first.
    pub fn close_all(
        &mut self,
        m: &Monitor<'_>,
        scratch: &mut Scratch,
        why: Closed,
        out: &mut Vec<Decision>,
    ) {
        for (id, mut live) in self.take_all() {
            settle_live(
                m,
                scratch,
                &mut self.places,
                &self.pending,
                &id,
                &mut live,
                out,
            );
            self.release_all(m, scratch, &id, &mut live, out);
            self.end(m, scratch, &id, &live, why, out);
            self.ended.insert(&id, why);
        }
        // No run is left with events to settle.
        self.dirty.clear();
        self.pending.clear();
    }

    /// Ends every run like [`Session::close_all`], handing the records to `write` in parts,
    /// so that the records of a million runs are never all in memory at once: first those
    /// of the events still to check (the runs' unchecked and held events, with the
    /// decisions already in `out`: `write` orders them by [`Decision::arrival`]), then those
    /// of the ends, `part` runs at a time, in the order [`Session::close_all`] gives them
    /// (the records are those of `close_all` sorted by arrival). `out` is empty after each
    /// call of `write`. On an error of `write`, it is returned and the runs not yet ended
    /// are dropped.
    pub fn close_all_by<E>(
        &mut self,
        m: &Monitor<'_>,
        scratch: &mut Scratch,
        why: Closed,
        part: usize,
        out: &mut Vec<Decision>,
        mut write: impl FnMut(&mut Vec<Decision>) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut all = self.take_all();
        for (id, live) in &mut all {
            settle_live(m, scratch, &mut self.places, &self.pending, id, live, out);
            self.release_all(m, scratch, id, live, out);
        }
        self.dirty.clear();
        self.pending.clear();
        write(out)?;
        out.clear();
        let mut all = all.into_iter().peekable();
        while all.peek().is_some() {
            for (id, live) in all.by_ref().take(part.max(1)) {
                self.end(m, scratch, &id, &live, why, out);
                self.ended.insert(&id, why);
            }
            write(out)?;
            out.clear();
        }
        Ok(())
    }

    pub(super) fn evict(
        &mut self,
        m: &Monitor<'_>,
        scratch: &mut Scratch,
        out: &mut Vec<Decision>,
    ) {
        // The decided runs go first (their record is written), then the oldest idle one.
        let oldest = self
            .runs
            .iter()
            .min_by_key(|(_, l)| (!l.done, l.touched))
            .map(|(id, _)| id.text());
        if let Some(id) = oldest {
            self.close(m, scratch, &id, Closed::Evicted, out);
        }
    }
}
