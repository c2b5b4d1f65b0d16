//! One run of a session: its engine state ([`LiveRun`]) and the bookkeeping around it (where
//! it started and where it was decided, its clocks, its held events, the largest key fed per
//! location, its events fed unchecked), and the feeding of one event to it.

use super::event::At;
use super::pending::{Pending, Place, Places};
use crate::decision::{Closed, Decision};
use crate::{LiveRun, Monitor, Standing};
use multitrace_check::Scratch;
use multitrace_formats::events::OrderKey;
use multitrace_model::nfa::LetterId;
use multitrace_model::verdict::Verdict;
use serde::{Deserialize, Serialize};

/// One held event.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(super) struct Held {
    pub(super) key: OrderKey,
    pub(super) letter: LetterId,
    pub(super) at: String,
}

/// An order key in 24 bytes, exactly (an `Option<OrderKey>` takes 32: its `i128` is aligned
/// to 16 bytes); [`Key::NONE`] for none.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Key {
    kind: u8,
    lo: u64,
    hi: u64,
}

impl Key {
    pub(super) const NONE: Key = Key {
        kind: 0,
        lo: 0,
        hi: 0,
    };

    pub(super) fn new(key: OrderKey) -> Key {
        let wide = |kind, x: i128| Key {
            kind,
            lo: x as u64,
            hi: (x >> 64) as u64,
        };
        match key {
            OrderKey::Int(x) => wide(1, x),
            OrderKey::Time(x) => wide(3, x),
            OrderKey::Float(f) => Key {
                kind: 2,
                lo: f.to_bits(),
                hi: 0,
            },
        }
    }

    pub(super) fn get(self) -> Option<OrderKey> {
        let x = (i128::from(self.hi as i64) << 64) | i128::from(self.lo);
        match self.kind {
            1 => Some(OrderKey::Int(x)),
            2 => Some(OrderKey::Float(f64::from_bits(self.lo))),
            3 => Some(OrderKey::Time(x)),
            _ => None,
        }
    }
}

/// A run's reorder windows: held events per location, and the largest key held per location
/// (read with [`Reorder::Span`](super::reorder::Reorder::Span) only). Made at the
/// first event held (a run read in order has none).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(super) struct Window {
    pub(super) held: Vec<Vec<Held>>,
    pub(super) max_key: Vec<Option<OrderKey>>,
}

/// A live run and its bookkeeping, in one heap block (but its engine state's vectors and the
/// largest keys fed): a session holds very many.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(super) struct Live {
    pub(super) run: LiveRun,
    pub(super) first_at: Place,
    /// The latest event fed (the deciding one when the run ends): where, and its key.
    pub(super) last_at: Option<(Place, Key)>,
    /// Arrival number of its latest event (the oldest idle run has the smallest).
    pub(super) touched: u64,
    pub(super) last_wall: u64,
    /// The timestamp of its latest event ([`Key::NONE`]: none yet).
    pub(super) last_time: Key,
    /// Largest key fed per location.
    pub(super) fed: Box<[Key]>,
    pub(super) window: Option<Box<Window>>,
    /// Events fed unchecked
    /// ([`Session::push_deferred`](super::state::Session::push_deferred)): how many, and
    /// the first of them in the session's [`Pending`] list (their places are kept there, not
    /// per run).
    pub(super) pending_n: u32,
    pub(super) pending_head: u32,
    /// Whether its keys are timestamps (fixed by its first event).
    pub(super) timestamps: Option<bool>,
    /// The record was written (Fail, Inconclusive, Error): later events are only counted.
    pub(super) done: bool,
    /// A correction was written: its Fail came before an event that goes before one it
    /// checked (the arrival model's assumption did not hold); said once.
    pub(super) corrected: bool,
    /// Its spans (`--otel`): the ids come so far and the locations waiting for a parent.
    pub(super) spans: Option<Box<Spans>>,
}

/// The spans of a run followed as they are exported (`monitor --otel`): the ids come so far,
/// and the parents that locations wait for. A location waits while one of its spans' parents
/// in its own service has not come: the parent's start, an earlier action of that location,
/// is still to come, so its events are held.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(super) struct Spans {
    pub(super) came: rustc_hash::FxHashSet<Box<str>>,
    /// (location, the parent it waits for).
    pub(super) waits: Vec<(u32, Box<str>)>,
}

impl Live {
    /// A run first seen at `first_at`, with no event yet (`locations`: the model's; 0 for a
    /// run whose first event is unreadable, which takes no event).
    pub(super) fn new(run: LiveRun, first_at: Place, locations: usize) -> Box<Live> {
        Box::new(Live {
            run,
            first_at,
            last_at: None,
            touched: 0,
            last_wall: 0,
            last_time: Key::NONE,
            fed: vec![Key::NONE; locations].into_boxed_slice(),
            window: None,
            pending_n: 0,
            pending_head: 0,
            timestamps: None,
            done: false,
            corrected: false,
            spans: None,
        })
    }

    /// Location `j` holds no event.
    pub(super) fn nothing_held(&self, j: usize) -> bool {
        self.window
            .as_ref()
            .and_then(|w| w.held.get(j))
            .is_none_or(Vec::is_empty)
    }

    /// Location `j` waits for a span's parent (its events are held).
    pub(super) fn waits(&self, j: usize) -> bool {
        self.spans
            .as_ref()
            .is_some_and(|s| s.waits.iter().any(|(k, _)| *k as usize == j))
    }

    /// Locations with held events to feed at the end (none when nothing was ever held).
    pub(super) fn windows(&self) -> usize {
        self.window.as_ref().map_or(0, |w| w.held.len())
    }

    /// The largest key fed at location `j`.
    pub(super) fn fed(&self, j: usize) -> Option<OrderKey> {
        self.fed[j].get()
    }

    /// Keeps the place of the latest event fed (the deciding one when the run ends).
    pub(super) fn set_last_at(&mut self, at: Place, key: OrderKey) {
        self.last_at = Some((at, Key::new(key)));
    }

    /// Bytes held (the run's engine state, its bookkeeping and held events).
    pub(super) fn bytes(&self) -> usize {
        std::mem::size_of::<Live>()
            + self.run.bytes()
            + self.fed.len() * std::mem::size_of::<Key>()
            + self.first_at.bytes()
            + self.last_at.as_ref().map_or(0, |(p, _)| p.bytes())
            + self.window.as_ref().map_or(0, |w| {
                w.held
                    .iter()
                    .flatten()
                    .map(|h| std::mem::size_of::<Held>() + h.at.len())
                    .sum::<usize>()
                    + w.max_key.len() * std::mem::size_of::<Option<OrderKey>>()
            })
            + self.spans.as_ref().map_or(0, |s| {
                std::mem::size_of::<Spans>()
                    + s.came.iter().map(|id| 24 + id.len()).sum::<usize>()
                    + s.waits.iter().map(|(_, p)| 24 + p.len()).sum::<usize>()
            })
    }
}

/// Feeds one event of location `j` to the run (its record when the event decides it).
#[allow(clippy::too_many_arguments)]
pub(super) fn feed(
    m: &Monitor<'_>,
    scratch: &mut Scratch,
    places: &mut Places,
    id: &str,
    live: &mut Live,
    j: usize,
    letter: LetterId,
    key: OrderKey,
    at: At<'_>,
    out: &mut Vec<Decision>,
) {
    live.fed[j] = Key::new(key);
    let decided = m.push(scratch, &mut live.run, letter);
    live.set_last_at(places.place_at(at), key);
    if live.done {
        return;
    }
    if let Some(v) = decided {
        live.done = true;
        out.push(Decision {
            run: id.to_string(),
            first_at: places.text(&live.first_at),
            late: m.late_note(&v, &live.run),
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
    m: &Monitor<'_>,
    id: &str,
    live: &mut Live,
    places: &Places,
    pending: &Pending,
    decided: (u64, Verdict),
    out: &mut Vec<Decision>,
) {
    let (number, v) = decided;
    let head = (live.pending_n > 0).then_some(live.pending_head);
    let place = pending.find(places, head, number);
    let place_arrival = place.as_ref().map_or(live.touched, |p| p.2);
    live.done = true;
    live.pending_n = 0;
    out.push(Decision {
        run: id.to_string(),
        first_at: places.text(&live.first_at),
        late: m.late_note(&v, &live.run),
        verdict: Ok(v),
        closed: Closed::Decided,
        at: place.as_ref().map(|p| p.0.clone()),
        order: place.map(|p| p.1),
        events: number,
        bytes: live.run.state_bytes(),
        arrival: place_arrival,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_keep_their_value_exactly() {
        let keys = [
            OrderKey::Int(0),
            OrderKey::Int(-1),
            OrderKey::Int(i128::MAX),
            OrderKey::Int(i128::MIN),
            OrderKey::Int(i128::from(u64::MAX) + 1),
            OrderKey::Time(-(1 << 70) - 3),
            OrderKey::Time(1_764_000_000_000_000_000),
            OrderKey::Float(-0.0),
            OrderKey::Float(2.5e300),
        ];
        for k in keys {
            let back = Key::new(k).get().unwrap();
            assert_eq!(format!("{back:?}"), format!("{k:?}"));
        }
        assert_eq!(Key::NONE.get(), None);
    }
}
