//! The runs a session closed (an end event, an idle timeout, an eviction, a stop, the end of
//! the input), remembered so that an event of one of them that comes after its record was
//! written is said to be late ([`Ended::late`]) instead of starting a new run
//! with the same id, whose verdict would be on part of the run (issue 51: the later events
//! of an evicted or idle-closed run made false Fails).
//!
//! Invariant: at most [`KEPT`] ids are remembered, the latest closed; an id closed earlier is
//! forgotten (an event of it then starts a run again, as before). Part of the state bytes, so
//! a restart remembers them too.

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

impl Ended {
    /// Whether run `id` is remembered as closed.
    pub(super) fn has(&self, id: &str) -> bool {
        self.by_id.contains_key(id)
    }

    /// An event of run `run` (not live) at `at` (`FILE:LINE`, split in `place`): `None` when the run is not remembered as closed (never seen, or
    /// forgotten: the event starts a run); else `Some`, and at its first late event the
    /// `Error` record of the run that says so (this event and its later ones are not
    /// checked): the caller drops the event.
    pub(super) fn late(
        &mut self,
        run: &str,
        at: &str,
        place: (Option<String>, Option<u32>),
    ) -> Option<Option<Decision>> {
        let gone = self.by_id.get_mut(run)?;
        if gone.reported {
            return Some(None);
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
        let (file, line) = place;
        Some(Some(Decision {
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
            // After the record of its run's close in the same round (which has no arrival
            // number either, and was handed back before it).
            arrival: u64::MAX,
            late: None,
        }))
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
