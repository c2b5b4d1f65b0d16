//! The runs a session closed (an end event, an idle timeout, an eviction, a stop, the end of
//! the input), remembered so that an event of one of them that comes after its record was
//! written is said to be late ([`Session::late_for_closed`]) instead of starting a new run
//! with the same id, whose verdict would be on part of the run (issue 51: the later events
//! of an evicted or idle-closed run made false Fails).
//!
//! Invariant: at most [`KEPT`] ids are remembered, the latest closed; an id closed earlier is
//! forgotten (an event of it then starts a run again, as before). Part of the state bytes, so
//! a restart remembers them too.

use super::state::Session;
use crate::decision::{Closed, Decision};
use multitrace_model::record::ErrorRecord;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// How many closed runs a session remembers (about 50 bytes each).
pub const KEPT: usize = 100_000;

/// One closed run: why it closed, and whether a late event of it was reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Gone {
    /// Its place in [`Ended::order`] (counting every id ever pushed).
    seq: u64,
    why: Closed,
    reported: bool,
}

/// The runs closed, the latest [`KEPT`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(super) struct Ended {
    by_id: FxHashMap<Box<str>, Gone>,
    /// The ids in the order they closed, with their `seq`.
    order: VecDeque<(u64, Box<str>)>,
    next: u64,
}

impl Ended {
    /// Run `id` closed for `why`.
    pub(super) fn insert(&mut self, id: &str, why: Closed) {
        let seq = self.next;
        self.next += 1;
        self.by_id.insert(
            id.into(),
            Gone {
                seq,
                why,
                reported: false,
            },
        );
        self.order.push_back((seq, id.into()));
        while self.order.len() > KEPT {
            let (s, old) = self.order.pop_front().expect("longer than KEPT");
            // (An id closed twice is kept by its latest closing.)
            if self.by_id.get(&old).is_some_and(|g| g.seq == s) {
                self.by_id.remove(&old);
            }
        }
    }

    /// Bytes held.
    pub(super) fn bytes(&self) -> usize {
        self.order
            .iter()
            .map(|(_, id)| 2 * (24 + id.len()) + 24)
            .sum()
    }
}

impl Session {
    /// Whether run `run` is remembered as closed.
    pub(super) fn is_closed(&self, run: &str) -> bool {
        self.ended.by_id.contains_key(run)
    }

    /// An event of run `run` (not live) whose record was written when it closed: `true` when
    /// the run is remembered as closed, and then, at its first late event, an `Error` record
    /// of the run that says so (this event and the later ones of the run are not checked);
    /// the caller drops the event. `false`: a run not seen, or forgotten: the event starts
    /// a run.
    pub(super) fn late_for_closed(
        &mut self,
        run: &str,
        at: &str,
        events_line: (Option<String>, Option<u32>),
        out: &mut Vec<Decision>,
    ) -> bool {
        let Some(gone) = self.ended.by_id.get_mut(run) else {
            return false;
        };
        if gone.reported {
            return true;
        }
        gone.reported = true;
        let hint = match gone.why {
            Closed::Idle => "raise --idle-timeout",
            Closed::Evicted => "raise --max-live-runs",
            Closed::EndEvent => "its end event came before it: check --end-action",
            Closed::Stop | Closed::EndOfInput => {
                "the run was still live when the monitor stopped or its input ended"
            }
            Closed::Decided | Closed::Error => "",
        };
        let (file, line) = events_line;
        out.push(Decision {
            run: run.to_string(),
            first_at: at.to_string(),
            verdict: Err(ErrorRecord {
                message: format!(
                    "{at}: late event of run {run:?}: its record was written when the run \
                     closed ({}), so this event and its later ones are not checked; {hint} \
                     (run ids must not be reused)",
                    gone.why.name()
                ),
                file,
                line,
                column: None,
            }),
            closed: Closed::Error,
            at: Some(at.to_string()),
            order: None,
            events: 1,
            bytes: 0,
            arrival: self.arrivals,
            late: None,
        });
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_latest_closed_are_kept() {
        let mut e = Ended::default();
        for i in 0..KEPT + 10 {
            e.insert(&format!("r{i}"), Closed::Idle);
        }
        assert_eq!(e.by_id.len(), KEPT);
        assert!(!e.by_id.contains_key("r9"));
        assert!(e.by_id.contains_key("r10"));
        // Closed again: kept by its latest closing.
        e.insert("r10", Closed::Evicted);
        for i in 0..20 {
            e.insert(&format!("s{i}"), Closed::Idle);
        }
        assert_eq!(e.by_id["r10"].why, Closed::Evicted);
    }
}
