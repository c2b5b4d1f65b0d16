//! The per-location reorder windows of a session's runs: an event that comes before one of
//! its location already held is inserted in order-key order (equal keys: arrival order), and
//! fed when the window ([`Reorder`]) lets it go; an event later than the window allows is
//! refused by the session (an `Error` record naming it).
//!
//! Under [`Reorder::Positions`] the order key is the event's position in its local trace
//! (`first`, `first + 1`, ...): an event is fed when every position before it was, so the
//! events fed are always a prefix of each local trace, whatever the arrival order, and a
//! verdict on them is certain (nothing to tune). A position seen twice, below the first, or a
//! key that is not an integer is an `Error` of its run; a gap still open when the run ends is
//! an `Error` naming the missing position.

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
    /// The order key is the position in the local trace, from `first` (0 or 1, no gaps):
    /// an event is held until the positions before it are fed.
    Positions(i64),
    /// By each event's key: an integer is a position ([`Reorder::Positions`] from this
    /// first position), a timestamp or another number is held until its run ends
    /// ([`Reorder::Unbounded`]). The safe default: no event is fed before every event that
    /// may come before it.
    Auto(i64),
}

impl Reorder {
    /// The window an event of key `key` is held in: [`Reorder::Auto`] resolved by the key's
    /// kind, any other as it is.
    pub(super) fn of_key(self, key: &OrderKey) -> Reorder {
        match (self, key) {
            (Reorder::Auto(first), OrderKey::Int(_)) => Reorder::Positions(first),
            (Reorder::Auto(_), _) => Reorder::Unbounded,
            (r, _) => r,
        }
    }

    /// Whether an event of key `key` is the next one of its location, whose largest key fed
    /// is `fed` (none: nothing fed), and can be fed at once when nothing is held there.
    pub(super) fn next(self, fed: Option<OrderKey>, key: &OrderKey) -> bool {
        match self.of_key(key) {
            Reorder::Positions(first) => *key == expected(first, fed),
            Reorder::Unbounded => false,
            _ => fed.is_none_or(|f| !later(key, &f)),
        }
    }

    /// Whether an event that is the next of its location is fed at once when nothing is held
    /// there (no window; positions; or by the key).
    pub(super) fn in_order(self) -> bool {
        matches!(
            self,
            Reorder::Events(0) | Reorder::Positions(_) | Reorder::Auto(_)
        )
    }
}

/// The position a location waits for under [`Reorder::Positions`]: `first`, or the one
/// after the largest fed.
pub(super) fn expected(first: i64, fed: Option<OrderKey>) -> OrderKey {
    match fed {
        Some(OrderKey::Int(p)) => OrderKey::Int(p + 1),
        _ => OrderKey::Int(i128::from(first)),
    }
}

/// A position as a record's message writes it.
pub(super) fn key_text(key: &OrderKey) -> String {
    match key {
        OrderKey::Int(p) => p.to_string(),
        other => format!("{other:?}"),
    }
}

/// The most events one run holds under [`Reorder::Positions`] while a position is missing:
/// past it the run's record is an `Error` naming the missing position (memory stays bounded
/// when a record is lost early in a long run).
pub(super) const MAX_HELD: usize = 100_000;

/// Why event `key` of a location cannot be taken under [`Reorder::Positions`] (its run's
/// `Error`), given the largest key fed there and the keys held: not an integer, below the
/// first position, or a position already fed or held.
pub(super) fn bad_position(
    first: i64,
    fed: Option<OrderKey>,
    held: &[Held],
    key: &OrderKey,
) -> Option<String> {
    let OrderKey::Int(p) = *key else {
        let kind = if matches!(key, OrderKey::Time(_)) {
            "a timestamp"
        } else {
            "a number"
        };
        return Some(format!(
            "its order key is {kind}, not a position in the local trace (an integer from \
             {first}): with timestamps, choose --arrival window or end"
        ));
    };
    if p < i128::from(first) {
        return Some(format!(
            "position {p} is below the first position, {first} (--first-position)"
        ));
    }
    let twice = fed.is_some_and(|f| !later(&f, key)) || held.iter().any(|h| h.key == *key);
    twice.then(|| {
        format!("position {p} came twice (a record doubled, or two sources for one location)")
    })
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

/// Feeds location `j`'s first held event when its location can never read it after the
/// events fed there, whatever comes between ([`Monitor::never_reads`]): the run's Fail is
/// certain now, and written now rather than when the window lets the event go (a held event
/// never stops a certain Fail from being reported). Its diagnosis is that of the events fed
/// then. An event that comes later and goes between the fed ones and this one cannot change
/// the Fail, so it calls for no correction; one that goes before an event fed before still
/// does (the location's largest key fed is kept as it was).
pub(super) fn feed_if_refused(
    m: &Monitor<'_>,
    scratch: &mut Scratch,
    places: &mut Places,
    id: &str,
    live: &mut Live,
    j: usize,
    out: &mut Vec<Decision>,
) {
    if live.done {
        return;
    }
    let Some(w) = &mut live.window else {
        return;
    };
    let Some(first) = w.held.get(j).and_then(|h| h.first()) else {
        return;
    };
    if !m.never_reads(&live.run, first.letter) {
        return;
    }
    let fed = live.fed[j];
    feed_first(m, scratch, places, id, live, j, out);
    live.fed[j] = fed;
}

/// Feeds location `j`'s first held event (there is one).
fn feed_first(
    m: &Monitor<'_>,
    scratch: &mut Scratch,
    places: &mut Places,
    id: &str,
    live: &mut Live,
    j: usize,
    out: &mut Vec<Decision>,
) {
    let w = live.window.as_mut().expect("a held event");
    let h = w.held[j].remove(0);
    feed(
        m,
        scratch,
        places,
        id,
        live,
        j,
        h.letter,
        h.key,
        At::Text(&h.at),
        out,
    );
}

/// Feeds location `j`'s held events whose timestamps are below `watermark` (nanoseconds),
/// in order-key order; then its first held one if it makes a Fail certain.
#[allow(clippy::too_many_arguments)]
pub(super) fn release_below(
    m: &Monitor<'_>,
    scratch: &mut Scratch,
    places: &mut Places,
    id: &str,
    live: &mut Live,
    j: usize,
    watermark: i128,
    out: &mut Vec<Decision>,
) {
    loop {
        let Some(w) = &mut live.window else {
            return;
        };
        match w.held.get(j).and_then(|h| h.first()) {
            Some(Held {
                key: OrderKey::Time(t),
                ..
            }) if *t < watermark => {}
            _ => return feed_if_refused(m, scratch, places, id, live, j, out),
        }
        feed_first(m, scratch, places, id, live, j, out);
    }
}

/// Feeds location `j`'s held events that `reorder` lets go (all of them with `all`); then its
/// first held one if it makes a Fail certain ([`feed_if_refused`]).
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
        let fed = live.fed(j);
        let Some(w) = &mut live.window else {
            return;
        };
        let Some(first) = w.held.get(j).and_then(|h| h.first()) else {
            return;
        };
        let go = all
            || match reorder.of_key(&first.key) {
                Reorder::Events(n) => w.held[j].len() > n,
                Reorder::Span(ns) => {
                    w.max_key[j].is_some_and(|mx| span(&first.key, &mx) > ns as f64)
                }
                Reorder::Unbounded => false,
                Reorder::Positions(p) => first.key == expected(p, fed),
                Reorder::Auto(_) => unreachable!("resolved by the key"),
            };
        if !go {
            return feed_if_refused(m, scratch, places, id, live, j, out);
        }
        feed_first(m, scratch, places, id, live, j, out);
    }
}
