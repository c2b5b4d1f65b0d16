//! The checks of a session's events fed unchecked ([`Session::settle`]): each run with such
//! events is checked once, and the place of the last of them kept as its latest.
//!
//! Invariant: the decisions are those of checking every event, at the same events; the
//! records of a settle come in the order of the events that decided them.

use super::live::{decide_pending, Live};
use super::pending::{Pending, Places};
use super::state::Session;
use crate::decision::Decision;
use crate::Monitor;
use multitrace_check::Scratch;

impl Session {
    /// Checks every run with events fed unchecked ([`Session::push_deferred`]); decisions are
    /// appended to `out`.
    pub fn settle(&mut self, m: &Monitor<'_>, scratch: &mut Scratch, out: &mut Vec<Decision>) {
        let mut dirty = std::mem::take(&mut self.dirty);
        let start = out.len();
        for id in dirty.iter() {
            self.settle_run(m, scratch, id, out);
        }
        // Runs are settled in the order they were first fed this round (or, in a round fed
        // grouped, of their first events); their records come
        // in the order of the events that decided them, as when every event is checked.
        out[start..].sort_by_key(|d| d.arrival);
        dirty.clear();
        if self.dirty.is_empty() {
            self.dirty = dirty;
            // Every run is settled: no place is pending.
            self.pending.clear();
        }
    }

    pub(super) fn settle_run(
        &mut self,
        m: &Monitor<'_>,
        scratch: &mut Scratch,
        id: &str,
        out: &mut Vec<Decision>,
    ) {
        if let Some(live) = self.runs.get_mut(id) {
            settle_live(m, scratch, &mut self.places, &self.pending, id, live, out);
        }
    }
}

/// Checks a run's events fed unchecked (its record when one decides it), and keeps the
/// place of the last of them as the run's latest.
pub(super) fn settle_live(
    m: &Monitor<'_>,
    scratch: &mut Scratch,
    places: &mut Places,
    pending: &Pending,
    id: &str,
    live: &mut Live,
    out: &mut Vec<Decision>,
) {
    if live.pending_n == 0 {
        return;
    }
    if let Some((at, key)) = pending.last(places, live.pending_head) {
        live.set_last_at(at, key);
    }
    if let Some(decided) = m.settle(scratch, &mut live.run) {
        decide_pending(m, id, live, places, pending, decided, out);
    }
    live.pending_n = 0;
}
