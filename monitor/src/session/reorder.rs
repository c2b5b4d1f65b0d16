//! The per-location reorder windows of a session's runs: an event that comes before one of
//! its location already held is inserted in order-key order (equal keys: arrival order), and
//! fed when the window ([`Reorder`]) lets it go; an event later than the window allows is
//! refused by the session (an `Error` record naming it).

use super::event::At;
use super::live::{feed, Held, Live, Window};
use super::pending::Places;
use crate::decision::Decision;
use crate::Monitor;
use multitrace_check::Scratch;
use multitrace_formats::events::OrderKey;
use multitrace_model::nfa::LetterId;
use serde::{Deserialize, Serialize};

/// How long an event may wait in its location's reorder window.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Reorder {
    /// At most this many events held per location (0: events must come in order).
    Events(usize),
    /// Held while newer than the location's largest key minus this many nanoseconds (numeric
    /// order keys are read as seconds).
    Span(u64),
    /// Held until the run ends (offline input, complete before it is checked).
    Unbounded,
}

/// Key `a` comes strictly before key `b`.
pub(super) fn later(a: &OrderKey, b: &OrderKey) -> bool {
    a.cmp_key(b) == std::cmp::Ordering::Less
}

/// Key distance in nanoseconds (numbers are seconds).
fn span(lo: &OrderKey, hi: &OrderKey) -> f64 {
    match (lo, hi) {
        (OrderKey::Time(a), OrderKey::Time(b)) => (b - a) as f64,
        (OrderKey::Int(a), OrderKey::Int(b)) => (b - a) as f64 * 1e9,
        (OrderKey::Float(a), OrderKey::Float(b)) => (b - a) * 1e9,
        (OrderKey::Int(a), OrderKey::Float(b)) => (b - *a as f64) * 1e9,
        (OrderKey::Float(a), OrderKey::Int(b)) => (*b as f64 - a) * 1e9,
        _ => 0.0,
    }
}

/// Holds an event of location `j` in the run's window (stable insertion by key: equal keys
/// keep arrival order).
pub(super) fn hold(live: &mut Live, j: usize, key: OrderKey, letter: LetterId, at: &str) {
    let locations = live.fed.len();
    let w = live.window.get_or_insert_with(|| {
        Box::new(Window {
            held: vec![Vec::new(); locations],
            max_key: vec![None; locations],
        })
    });
    let h = &mut w.held[j];
    let i = h.partition_point(|x| !later(&key, &x.key));
    h.insert(
        i,
        Held {
            key,
            letter,
            at: at.to_string(),
        },
    );
    if w.max_key[j].is_none_or(|k| later(&k, &key)) {
        w.max_key[j] = Some(key);
    }
}

/// Feeds location `j`'s held events that `reorder` lets go (all of them with `all`).
#[allow(clippy::too_many_arguments)]
pub(super) fn release(
    m: &Monitor<'_>,
    scratch: &mut Scratch,
    places: &mut Places,
    id: &str,
    live: &mut Live,
    j: usize,
    reorder: Reorder,
    all: bool,
    out: &mut Vec<Decision>,
) {
    loop {
        let Some(w) = &mut live.window else {
            return;
        };
        let Some(first) = w.held.get(j).and_then(|h| h.first()) else {
            return;
        };
        let go = all
            || match reorder {
                Reorder::Events(n) => w.held[j].len() > n,
                Reorder::Span(ns) => {
                    w.max_key[j].is_some_and(|mx| span(&first.key, &mx) > ns as f64)
                }
                Reorder::Unbounded => false,
            };
        if !go {
            return;
        }
        let h = w.held[j].remove(0);
        let at = At::Text(&h.at);
        feed(m, scratch, places, id, live, j, h.letter, h.key, at, out);
    }
}
