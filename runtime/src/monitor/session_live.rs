//! One run of a session: its engine state ([`LiveRun`]) and the bookkeeping around it (where
//! it started and where it was decided, its clocks, its held events, the largest key fed per
//! location, its events fed unchecked), and the feeding of one event to it.

use super::decision::{Closed, Decision};
use super::session_pending::Pending;
use super::{LiveRun, Monitor, Standing};
use crate::check::Scratch;
use crate::events::OrderKey;
use crate::nfa::LetterId;
use crate::verdict::Verdict;
use serde::{Deserialize, Serialize};

/// One held event.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(super) struct Held {
    pub(super) key: OrderKey,
    pub(super) letter: LetterId,
    pub(super) at: String,
}

/// A live run and its bookkeeping.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(super) struct Live {
    pub(super) run: LiveRun,
    pub(super) first_at: String,
    /// Arrival number of its latest event (the oldest idle run has the smallest).
    pub(super) touched: u64,
    pub(super) last_wall: u64,
    pub(super) last_time: Option<i128>,
    /// Whether its keys are timestamps (fixed by its first event).
    pub(super) timestamps: Option<bool>,
    /// Held events per location (empty until an event is held: a run read in order holds
    /// none).
    pub(super) held: Vec<Vec<Held>>,
    /// Largest key fed per location.
    pub(super) fed: Vec<Option<OrderKey>>,
    /// Largest key held per location (with
    /// [`Reorder::Span`](super::session_reorder::Reorder::Span) only; empty until then).
    pub(super) max_key: Vec<Option<OrderKey>>,
    /// The deciding event: where, and its key.
    pub(super) last_at: Option<(String, OrderKey)>,
    /// The record was written (Fail, Inconclusive, Error): later events are only counted.
    pub(super) done: bool,
    /// Events fed unchecked
    /// ([`Session::push_deferred`](super::session::Session::push_deferred)): how many, and
    /// the first of them in the session's [`Pending`] list (their places are kept there, not
    /// per run).
    #[serde(default)]
    pub(super) pending_n: u32,
    #[serde(default)]
    pub(super) pending_head: u32,
}

impl Live {
    /// A run first seen at `first_at`, with no event yet (`locations`: the model's; 0 for a
    /// run whose first event is unreadable, which takes no event).
    pub(super) fn new(run: LiveRun, first_at: &str, locations: usize) -> Box<Live> {
        Box::new(Live {
            run,
            first_at: first_at.to_string(),
            touched: 0,
            last_wall: 0,
            last_time: None,
            timestamps: None,
            held: Vec::new(),
            fed: vec![None; locations],
            max_key: Vec::new(),
            last_at: None,
            done: false,
            pending_n: 0,
            pending_head: 0,
        })
    }

    /// Location `j` holds no event.
    pub(super) fn nothing_held(&self, j: usize) -> bool {
        self.held.get(j).is_none_or(Vec::is_empty)
    }

    /// Keeps the place of the latest event fed (the deciding one when the run ends), in a
    /// buffer reused from event to event.
    pub(super) fn set_last_at(&mut self, at: &str, key: OrderKey) {
        match &mut self.last_at {
            Some((a, k)) => {
                a.clear();
                a.push_str(at);
                *k = key;
            }
            None => self.last_at = Some((at.to_string(), key)),
        }
    }
}

/// Feeds one event of location `j` to the run (its record when the event decides it).
#[allow(clippy::too_many_arguments)]
pub(super) fn feed(
    m: &Monitor<'_>,
    scratch: &mut Scratch,
    id: &str,
    live: &mut Live,
    j: usize,
    letter: LetterId,
    key: OrderKey,
    at: &str,
    out: &mut Vec<Decision>,
) {
    live.fed[j] = Some(key);
    let decided = m.push(scratch, &mut live.run, letter);
    live.set_last_at(at, key);
    if live.done {
        return;
    }
    if let Some(v) = decided {
        live.done = true;
        out.push(Decision {
            run: id.to_string(),
            first_at: live.first_at.clone(),
            verdict: Ok(v),
            closed: Closed::Decided,
            at: Some(at.to_string()),
            order: Some(key),
            events: live.run.events(),
            bytes: live.run.state_bytes(),
            arrival: live.touched,
        });
        debug_assert!(matches!(live.run.standing(), Standing::Decided(..)));
    }
}

/// The record of a run decided at event number `decided.0`, one of its unchecked events.
pub(super) fn decide_pending(
    id: &str,
    live: &mut Live,
    pending: &Pending,
    decided: (u64, Verdict),
    out: &mut Vec<Decision>,
) {
    let (number, v) = decided;
    let head = (live.pending_n > 0).then_some(live.pending_head);
    let place = pending.find(head, number);
    let place_arrival = place.as_ref().map_or(live.touched, |p| p.2);
    live.done = true;
    live.pending_n = 0;
    out.push(Decision {
        run: id.to_string(),
        first_at: live.first_at.clone(),
        verdict: Ok(v),
        closed: Closed::Decided,
        at: place.as_ref().map(|p| p.0.clone()),
        order: place.map(|p| p.1),
        events: number,
        bytes: live.run.state_bytes(),
        arrival: place_arrival,
    });
}
