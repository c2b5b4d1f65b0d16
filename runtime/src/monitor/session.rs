//! A stream of events of many runs: runs keyed by id, per-location reorder windows, the ends of
//! runs, a cap on live runs, and the whole state as bytes (checkpoints).
//!
//! - **Order within a location.** An event is held in its location's reorder window until
//!   [`Reorder`] lets it go, then fed to the run's [`LiveRun`] in order-key order (equal keys:
//!   arrival order). An event whose key is smaller than one already fed is later than the
//!   window allows: the run gets an `Error` record naming it (never a silent wrong verdict).
//! - **Ends.** A run ends at its end event (the end action, or an event flagged as the end),
//!   after an idle time without events ([`Session::close_idle`]: in event time when the order
//!   keys are timestamps, else wall-clock time), at the end of the input or at a stop
//!   ([`Session::close_all`]), or when it is the oldest idle run and a new run would pass
//!   [`SessionOptions::max_live_runs`]. Its held events are fed first.
//! - **One record per run.** A run decided by an event (Fail, Inconclusive, Error) gets its
//!   record then; it stays known (without its traces) until its end, so its later events are
//!   counted, not taken for a new run. A run id seen again after its end starts a new run.

pub use super::decision::{Closed, Decision};
use super::{LiveRun, Monitor, Standing};

use crate::check::Scratch;
use crate::events::OrderKey;
use crate::nfa::LetterId;
use crate::record::ErrorRecord;
use crate::verdict::Verdict;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::time::Duration;

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

/// How a session treats its stream.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SessionOptions {
    /// A run ends after an event with this letter.
    pub end_letter: Option<LetterId>,
    /// A run ends after this long without events.
    pub idle_timeout: Option<Duration>,
    /// Per-location reorder window.
    pub reorder: Reorder,
    /// Most runs live at once; past it the oldest idle one is closed.
    pub max_live_runs: usize,
}

impl Default for SessionOptions {
    fn default() -> Self {
        SessionOptions {
            end_letter: None,
            idle_timeout: None,
            reorder: Reorder::Events(0),
            max_live_runs: 1_000_000,
        }
    }
}

/// One event of a stream.
#[derive(Clone, Copy, Debug)]
pub struct LiveEvent<'a> {
    /// The run id.
    pub run: &'a str,
    /// The letter (its location is the model's).
    pub letter: LetterId,
    /// Its order key within its location.
    pub key: OrderKey,
    /// Where it was read (`FILE:LINE`).
    pub at: &'a str,
    /// Wall-clock time of its arrival (nanoseconds on the caller's clock).
    pub wall: u64,
    /// The event says its run ends with it (`--end-field`).
    pub end: bool,
}

/// One held event.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Held {
    key: OrderKey,
    letter: LetterId,
    at: String,
}

/// A live run and its bookkeeping.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Live {
    run: LiveRun,
    first_at: String,
    /// Arrival number of its latest event (the oldest idle run has the smallest).
    touched: u64,
    last_wall: u64,
    last_time: Option<i128>,
    /// Whether its keys are timestamps (fixed by its first event).
    timestamps: Option<bool>,
    /// Held events per location (empty until an event is held: a run read in order holds
    /// none).
    held: Vec<Vec<Held>>,
    /// Largest key fed per location.
    fed: Vec<Option<OrderKey>>,
    /// Largest key held per location (with [`Reorder::Span`] only; empty until then).
    max_key: Vec<Option<OrderKey>>,
    /// The deciding event: where, and its key.
    last_at: Option<(String, OrderKey)>,
    /// The record was written (Fail, Inconclusive, Error): later events are only counted.
    done: bool,
    /// Events fed unchecked ([`Session::push_deferred`]): how many, and the first of them in
    /// the session's [`Pending`] list (their places are kept there, not per run).
    #[serde(default)]
    pending_n: u32,
    #[serde(default)]
    pending_head: u32,
}

/// The places of the events fed unchecked in one round, for all runs: one arena of
/// `FILE:LINE` texts and one list per run (linked by `next`), emptied when every run is
/// settled. Per run, only a count and the index of its first event stay in [`Live`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Pending {
    text: String,
    events: Vec<PendingEvent>,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct PendingEvent {
    /// `text[from..to]` is its `FILE:LINE`.
    from: u32,
    to: u32,
    key: OrderKey,
    /// Its event number in its run, and its arrival number.
    number: u64,
    arrival: u64,
    /// The next pending event of the same run (`u32::MAX`: none).
    next: u32,
    /// The last pending event of the run (kept on its first only).
    last: u32,
}

/// All live runs of a stream.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Session {
    /// Boxed: the map's slack (a quarter of its slots may be empty) costs a pointer per
    /// slot, not a whole run.
    runs: FxHashMap<Box<str>, Box<Live>>,
    arrivals: u64,
    /// Largest timestamp seen (the stream's event clock).
    clock: Option<i128>,
    /// Runs with events fed unchecked, to settle ([`Session::settle`]).
    #[serde(default)]
    dirty: Vec<String>,
    #[serde(default)]
    pending: Pending,
    #[serde(skip)]
    opts: Option<SessionOptions>,
}

fn later(a: &OrderKey, b: &OrderKey) -> bool {
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

impl Session {
    /// An empty session.
    pub fn new(opts: SessionOptions) -> Session {
        Session {
            runs: FxHashMap::default(),
            arrivals: 0,
            clock: None,
            dirty: Vec::new(),
            pending: Pending::default(),
            opts: Some(opts),
        }
    }

    fn opts(&self) -> SessionOptions {
        self.opts.unwrap_or_default()
    }

    /// Runs known (live, or decided and waiting for their end).
    pub fn live_runs(&self) -> usize {
        self.runs.len()
    }

    /// Events arrived so far (bad events of known runs included): the arrival number of the
    /// latest (see [`Decision::arrival`]).
    pub fn arrivals(&self) -> u64 {
        self.arrivals
    }

    /// Bytes held by the runs' states (engine states and held events).
    pub fn bytes(&self) -> usize {
        self.runs
            .iter()
            .map(|(id, l)| {
                id.len()
                    + l.first_at.len()
                    + l.run.bytes()
                    + l.held
                        .iter()
                        .flatten()
                        .map(|h| 48 + h.at.len())
                        .sum::<usize>()
                    + std::mem::size_of::<Live>()
            })
            .sum::<usize>()
            + self.pending.text.capacity()
            + self.pending.events.capacity() * std::mem::size_of::<PendingEvent>()
    }

    /// The whole state as bytes; [`Session::from_bytes`] reads it back (with the options).
    pub fn to_bytes(&self) -> Vec<u8> {
        bincode::serde::encode_to_vec(self, bincode::config::standard())
            .expect("a session always encodes")
    }

    /// Reads a state written by [`Session::to_bytes`].
    pub fn from_bytes(bytes: &[u8], opts: SessionOptions) -> Result<Session, super::StateError> {
        let (mut s, _): (Session, usize) =
            bincode::serde::decode_from_slice(bytes, bincode::config::standard())
                .map_err(|e| super::StateError(e.to_string()))?;
        s.opts = Some(opts);
        Ok(s)
    }

    /// Takes one event; decisions (records to write) are appended to `out`.
    pub fn push(
        &mut self,
        m: &Monitor<'_>,
        scratch: &mut Scratch,
        ev: LiveEvent<'_>,
        out: &mut Vec<Decision>,
    ) {
        if !self.dirty.is_empty() {
            self.settle_run(m, scratch, ev.run, out);
        }
        let opts = self.opts();
        self.arrivals += 1;
        if let OrderKey::Time(t) = ev.key {
            self.clock = Some(self.clock.map_or(t, |c| c.max(t)));
        }
        if !self.runs.contains_key(ev.run) {
            if self.runs.len() >= opts.max_live_runs.max(1) {
                self.evict(m, scratch, out);
            }
            let locations = m.engine().model().alphabet.locations();
            self.runs.insert(
                ev.run.into(),
                Box::new(Live {
                    run: m.start(),
                    first_at: ev.at.to_string(),
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
                }),
            );
        }
        let arrivals = self.arrivals;
        let live = self.runs.get_mut(ev.run).expect("inserted above");
        live.touched = arrivals;
        live.last_wall = ev.wall;
        if let OrderKey::Time(t) = ev.key {
            live.last_time = Some(t);
        }
        if live.done {
            // Counted only: the run's record is written.
            m.push(scratch, &mut live.run, ev.letter);
        } else {
            let is_time = matches!(ev.key, OrderKey::Time(_));
            let mixed = *live.timestamps.get_or_insert(is_time) != is_time;
            let j = m.engine().model().alphabet.location(ev.letter).index();
            let late = live.fed[j].is_some_and(|f| later(&ev.key, &f));
            if mixed || late {
                let why = if mixed {
                    "this run mixes timestamps and numbers as order keys, which cannot be compared"
                        .to_string()
                } else {
                    format!(
                        "event later than the reorder window allows: its order key is smaller \
                         than one of location {} already checked (widen --reorder-window)",
                        m.engine()
                            .model()
                            .alphabet
                            .location_name(crate::nfa::LocationId(j as u32))
                    )
                };
                let (file, line) = split_at(ev.at);
                let error = ErrorRecord {
                    message: format!("{}: bad event of run {:?}: {why}", ev.at, ev.run),
                    file,
                    line,
                    column: None,
                };
                live.done = true;
                out.push(Decision {
                    run: ev.run.to_string(),
                    first_at: live.first_at.clone(),
                    verdict: Err(error),
                    closed: Closed::Error,
                    at: Some(ev.at.to_string()),
                    order: Some(ev.key),
                    events: live.run.events() + 1,
                    bytes: live.run.state_bytes(),
                    arrival: live.touched,
                });
                live.run.forget();
            } else if nothing_held(live, j) && opts.reorder == Reorder::Events(0) {
                // Nothing held and no window: fed at once, without holding a copy (the
                // largest key held is read by duration windows only).
                feed(m, scratch, ev.run, live, j, ev.letter, ev.key, ev.at, out);
            } else {
                let locations = live.fed.len();
                if live.held.is_empty() {
                    live.held = vec![Vec::new(); locations];
                }
                if live.max_key.is_empty() {
                    live.max_key = vec![None; locations];
                }
                let h = &mut live.held[j];
                // Stable insertion by key: equal keys keep arrival order.
                let i = h.partition_point(|x| !later(&ev.key, &x.key));
                h.insert(
                    i,
                    Held {
                        key: ev.key,
                        letter: ev.letter,
                        at: ev.at.to_string(),
                    },
                );
                if live.max_key[j].is_none_or(|k| later(&k, &ev.key)) {
                    live.max_key[j] = Some(ev.key);
                }
                release(m, scratch, ev.run, live, j, opts.reorder, false, out);
            }
        }
        let end = ev.end || opts.end_letter == Some(ev.letter);
        if end {
            self.close(m, scratch, ev.run, Closed::EndEvent, out);
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
        let live = self.runs.entry(run.into()).or_insert_with(|| {
            Box::new(Live {
                run: m.start(),
                first_at: first_at.to_string(),
                touched: 0,
                last_wall: 0,
                last_time: None,
                timestamps: None,
                held: Vec::new(),
                fed: Vec::new(),
                max_key: Vec::new(),
                last_at: None,
                done: false,
                pending_n: 0,
                pending_head: 0,
            })
        });
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
            first_at: live.first_at.clone(),
            verdict: Err(error),
            closed: Closed::Error,
            at,
            order: None,
            events: live.run.events(),
            bytes: live.run.state_bytes(),
            arrival: self.arrivals,
        });
        live.run.forget();
    }

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
        let Some(mut live) = self.runs.remove(run) else {
            return;
        };
        if live.done {
            return;
        }
        for j in 0..live.held.len() {
            release(m, scratch, run, &mut live, j, Reorder::Events(0), true, out);
        }
        if live.done {
            return;
        }
        let (at, order) = match live.last_at {
            Some((a, k)) => (Some(a), Some(k)),
            None => (None, None),
        };
        out.push(Decision {
            run: run.to_string(),
            first_at: live.first_at,
            verdict: Ok(m.finish(scratch, &live.run)),
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
            .filter(|(_, l)| match (l.last_time, clock) {
                (Some(last), Some(c)) => c - last > t,
                _ => (now_wall as i128) - (l.last_wall as i128) > t,
            })
            .map(|(id, l)| (l.touched, id.to_string()))
            .collect();
        idle.sort();
        for (_, id) in idle {
            self.close(m, scratch, &id, Closed::Idle, out);
        }
    }

    /// Ends every run (end of input, or a stop), oldest first.
    pub fn close_all(
        &mut self,
        m: &Monitor<'_>,
        scratch: &mut Scratch,
        why: Closed,
        out: &mut Vec<Decision>,
    ) {
        let mut all: Vec<(u64, String)> = self
            .runs
            .iter()
            .map(|(id, l)| (l.touched, id.to_string()))
            .collect();
        all.sort();
        for (_, id) in all {
            self.close(m, scratch, &id, why, out);
        }
    }

    /// Takes one event like [`Session::push`], but an in-order event of a live run is fed
    /// unchecked ([`Monitor::push_unchecked`]): its run is checked by the next
    /// [`Session::settle`] (or when it ends, or takes another kind of event), which gives the
    /// same decisions, at the same events, as [`Session::push`] would have, later. A front end
    /// calls `settle` after each batch of events it reads: one check per run and batch instead
    /// of one per event.
    pub fn push_deferred(
        &mut self,
        m: &Monitor<'_>,
        scratch: &mut Scratch,
        ev: LiveEvent<'_>,
        out: &mut Vec<Decision>,
    ) {
        let opts = self.opts();
        let plain = opts.reorder == Reorder::Events(0)
            && !ev.end
            && opts.end_letter != Some(ev.letter)
            && m.incremental();
        let live = match self.runs.get_mut(ev.run) {
            Some(live) if plain && !live.done => live,
            _ => return self.push(m, scratch, ev, out),
        };
        let j = m.engine().model().alphabet.location(ev.letter).index();
        let is_time = matches!(ev.key, OrderKey::Time(_));
        if !nothing_held(live, j)
            || live.timestamps != Some(is_time)
            || live.fed[j].is_some_and(|f| later(&ev.key, &f))
        {
            return self.push(m, scratch, ev, out);
        }
        self.arrivals += 1;
        if let OrderKey::Time(t) = ev.key {
            self.clock = Some(self.clock.map_or(t, |c| c.max(t)));
            live.last_time = Some(t);
        }
        live.touched = self.arrivals;
        live.last_wall = ev.wall;
        live.fed[j] = Some(ev.key);
        let number = live.run.events() + 1;
        let p = &mut self.pending;
        let index = p.events.len() as u32;
        let from = p.text.len() as u32;
        p.text.push_str(ev.at);
        p.events.push(PendingEvent {
            from,
            to: p.text.len() as u32,
            key: ev.key,
            number,
            arrival: self.arrivals,
            next: u32::MAX,
            last: index,
        });
        if live.pending_n == 0 {
            self.dirty.push(ev.run.to_string());
            live.pending_head = index;
        } else {
            let head = live.pending_head as usize;
            let tail = p.events[head].last as usize;
            p.events[tail].next = index;
            p.events[head].last = index;
        }
        live.pending_n += 1;
        match &mut live.last_at {
            Some((a, k)) => {
                a.clear();
                a.push_str(ev.at);
                *k = ev.key;
            }
            None => live.last_at = Some((ev.at.to_string(), ev.key)),
        }
        if let Some(decided) = m.push_unchecked(scratch, &mut live.run, ev.letter) {
            decide_pending(ev.run, live, &self.pending, decided, out);
        }
    }

    /// Checks every run with events fed unchecked ([`Session::push_deferred`]); decisions are
    /// appended to `out`.
    pub fn settle(&mut self, m: &Monitor<'_>, scratch: &mut Scratch, out: &mut Vec<Decision>) {
        let mut dirty = std::mem::take(&mut self.dirty);
        let start = out.len();
        for id in &dirty {
            self.settle_run(m, scratch, id, out);
        }
        // Runs are settled in the order they were first fed this round; their records come
        // in the order of the events that decided them, as when every event is checked.
        out[start..].sort_by_key(|d| d.arrival);
        dirty.clear();
        if self.dirty.is_empty() {
            self.dirty = dirty;
            // Every run is settled: no place is pending.
            self.pending.text.clear();
            self.pending.events.clear();
        }
    }

    fn settle_run(
        &mut self,
        m: &Monitor<'_>,
        scratch: &mut Scratch,
        id: &str,
        out: &mut Vec<Decision>,
    ) {
        let Some(live) = self.runs.get_mut(id) else {
            return;
        };
        if live.pending_n == 0 {
            return;
        }
        if let Some(decided) = m.settle(scratch, &mut live.run) {
            decide_pending(id, live, &self.pending, decided, out);
        }
        live.pending_n = 0;
    }

    fn evict(&mut self, m: &Monitor<'_>, scratch: &mut Scratch, out: &mut Vec<Decision>) {
        // The decided runs go first (their record is written), then the oldest idle one.
        let oldest = self
            .runs
            .iter()
            .min_by_key(|(_, l)| (!l.done, l.touched))
            .map(|(id, _)| id.to_string());
        if let Some(id) = oldest {
            self.close(m, scratch, &id, Closed::Evicted, out);
        }
    }
}

fn split_at(at: &str) -> (Option<String>, Option<u32>) {
    match at.rsplit_once(':') {
        Some((f, l)) => match l.parse() {
            Ok(l) => (Some(f.to_string()), Some(l)),
            Err(_) => (Some(at.to_string()), None),
        },
        None => (Some(at.to_string()), None),
    }
}

/// Feeds location `j`'s held events that `reorder` lets go (all of them with `all`).
#[allow(clippy::too_many_arguments)]
fn release(
    m: &Monitor<'_>,
    scratch: &mut Scratch,
    id: &str,
    live: &mut Live,
    j: usize,
    reorder: Reorder,
    all: bool,
    out: &mut Vec<Decision>,
) {
    loop {
        let Some(first) = live.held.get(j).and_then(|h| h.first()) else {
            return;
        };
        let go = all
            || match reorder {
                Reorder::Events(n) => live.held[j].len() > n,
                Reorder::Span(ns) => {
                    live.max_key[j].is_some_and(|mx| span(&first.key, &mx) > ns as f64)
                }
                Reorder::Unbounded => false,
            };
        if !go {
            return;
        }
        let h = live.held[j].remove(0);
        feed(m, scratch, id, live, j, h.letter, h.key, &h.at, out);
    }
}

/// The record of a run decided at event number `decided.0`, one of its unchecked events.
fn decide_pending(
    id: &str,
    live: &mut Live,
    pending: &Pending,
    decided: (u64, Verdict),
    out: &mut Vec<Decision>,
) {
    let (number, v) = decided;
    let mut place = None;
    let mut at = if live.pending_n > 0 {
        live.pending_head
    } else {
        u32::MAX
    };
    while let Some(p) = pending.events.get(at as usize) {
        if p.number == number {
            let text = pending.text[p.from as usize..p.to as usize].to_string();
            place = Some((text, p.key, p.arrival));
            break;
        }
        at = p.next;
    }
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

/// Whether location `j` of the run holds no event.
fn nothing_held(live: &Live, j: usize) -> bool {
    live.held.get(j).is_none_or(Vec::is_empty)
}

/// Feeds one event of location `j` to the run (its record when the event decides it).
#[allow(clippy::too_many_arguments)]
fn feed(
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
    // The deciding event's place, in a buffer reused from event to event.
    match &mut live.last_at {
        Some((a, k)) => {
            a.clear();
            a.push_str(at);
            *k = key;
        }
        None => live.last_at = Some((at.to_string(), key)),
    }
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

/// Whether the JSON event `text` has field `field` set to `true` (`--end-field`).
pub fn end_flag(text: &str, field: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .and_then(|v| v.get(field).cloned())
        .is_some_and(|v| v == serde_json::Value::Bool(true))
}

/// What a checkpoint of a monitor holds: read positions, the session, the output's length.
#[derive(Debug, Serialize, Deserialize)]
pub struct Checkpoint {
    /// Read positions of the followed files.
    pub positions: Vec<super::follow::Position>,
    /// [`Session::to_bytes`].
    pub session: Vec<u8>,
    /// Bytes of records written when it was taken.
    pub output_len: u64,
}

impl Checkpoint {
    /// Writes it to `dir/checkpoint` atomically (a temporary file, synced, then renamed).
    pub fn write(&self, dir: &std::path::Path) -> std::io::Result<()> {
        use std::io::Write;
        let bytes = bincode::serde::encode_to_vec(self, bincode::config::standard())
            .map_err(std::io::Error::other)?;
        let tmp = dir.join("checkpoint.tmp");
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(&bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, dir.join("checkpoint"))?;
        if let Ok(d) = std::fs::File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(())
    }

    /// Reads `dir/checkpoint` (`Ok(None)` when there is none yet).
    pub fn read(dir: &std::path::Path) -> Result<Option<Checkpoint>, super::StateError> {
        match std::fs::read(dir.join("checkpoint")) {
            Ok(bytes) => bincode::serde::decode_from_slice(&bytes, bincode::config::standard())
                .map(|(c, _)| Some(c))
                .map_err(|e| super::StateError(e.to_string())),
            Err(_) => Ok(None),
        }
    }
}
