//! A stream of events of many runs: runs keyed by id, per-location reorder windows, the ends of
//! runs, a cap on live runs, and the whole state as bytes (checkpoints).
//!
//! - **Order within a location.** An event is held in its location's reorder window until
//!   [`Reorder`] lets it go, then fed to the run's [`LiveRun`](super::LiveRun) in order-key order (equal keys:
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

pub use super::checkpoint::Checkpoint;
pub use super::decision::{Closed, Decision};
use super::session_live::{decide_pending, feed, Key, Live};
use super::session_pending::{Ids, Pending, Places};
pub use super::session_reorder::Reorder;
use super::session_reorder::{hold, later, release};
pub use super::session_round::Round;
use super::session_runs::Runs;
use super::Monitor;

use crate::check::Scratch;
use crate::events::OrderKey;
use crate::nfa::LetterId;
use crate::record::ErrorRecord;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// The first bytes of [`Session::to_bytes`], then [`STATE_FORMAT`].
const STATE_MAGIC: &[u8; 8] = b"MTSESSN\0";

/// The version of [`Session::to_bytes`]' format: 3 since a live run keeps its guess and the
/// events its product skipped (2: runs keep their places and keys compact; a state of format
/// 1, which had no number, is refused).
const STATE_FORMAT: u32 = 3;

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
    /// Most events of a run fed unchecked ([`Session::push_deferred`]) before it is checked
    /// without waiting for the end of the round ([`Session::settle`]): a run that breaks is
    /// replayed from its last check, so this bounds that work (on AutomatArk NFA12, 32
    /// took a fifth off the monitor's time against a check per round only). The decisions
    /// do not depend on it.
    pub max_unchecked: usize,
}

impl Default for SessionOptions {
    fn default() -> Self {
        SessionOptions {
            end_letter: None,
            idle_timeout: None,
            reorder: Reorder::Events(0),
            max_live_runs: 1_000_000,
            max_unchecked: 32,
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
    /// Where it was read.
    pub at: At<'a>,
    /// Wall-clock time of its arrival (nanoseconds on the caller's clock).
    pub wall: u64,
    /// The event says its run ends with it (`--end-field`).
    pub end: bool,
}

/// Where an event was read: a line of a file, kept as the file's index and the number (no
/// `FILE:LINE` text is made unless a record names the place), or any other text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum At<'a> {
    /// Line `line` of `file` (a path, or `<stdin>`): `FILE:LINE` in records.
    Line {
        /// The file.
        file: &'a str,
        /// The line's number, from 1.
        line: u32,
    },
    /// A place of another form, written as it is.
    Text(&'a str),
}

impl std::fmt::Display for At<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            At::Line { file, line } => write!(f, "{file}:{line}"),
            At::Text(t) => f.write_str(t),
        }
    }
}

impl At<'_> {
    /// The file and the line number, as an [`ErrorRecord`] gives them.
    fn split(&self) -> (Option<String>, Option<u32>) {
        match self {
            At::Line { file, line } => (Some(file.to_string()), Some(*line)),
            At::Text(t) => split_at(t),
        }
    }
}

/// All live runs of a stream.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Session {
    /// Boxed: the map's slack (a quarter of its slots may be empty) costs a pointer per
    /// slot, not a whole run.
    runs: Runs,
    arrivals: u64,
    /// Largest timestamp seen (the stream's event clock).
    clock: Option<i128>,
    /// Runs with events fed unchecked, to settle ([`Session::settle`]).
    dirty: Ids,
    // Empty whenever a state is written (the monitor checkpoints after `settle`; Python's
    // events are checked at once): its events' layout is not part of format 3's bytes.
    pending: Pending,
    /// The files of the runs' places.
    places: Places,
    #[serde(skip)]
    opts: Option<SessionOptions>,
}

impl Session {
    /// An empty session.
    pub fn new(opts: SessionOptions) -> Session {
        Session {
            runs: Runs::default(),
            arrivals: 0,
            clock: None,
            dirty: Ids::default(),
            pending: Pending::default(),
            places: Places::default(),
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

    /// Bytes held by the runs' states (engine states, bookkeeping and held events).
    pub fn bytes(&self) -> usize {
        self.runs
            .iter()
            .map(|(id, l)| id.len() + l.bytes())
            .sum::<usize>()
            + self.pending.bytes()
            + self.places.bytes()
    }

    /// The whole state as bytes, the format's version first; [`Session::from_bytes`] reads
    /// it back (with the options).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = STATE_MAGIC.to_vec();
        out.extend_from_slice(&STATE_FORMAT.to_le_bytes());
        bincode::serde::encode_into_std_write(self, &mut out, bincode::config::standard())
            .expect("a session always encodes");
        out
    }

    /// Reads a state written by [`Session::to_bytes`] of this version (another version's is
    /// refused, saying so).
    pub fn from_bytes(bytes: &[u8], opts: SessionOptions) -> Result<Session, super::StateError> {
        let format = bytes.strip_prefix(STATE_MAGIC.as_slice()).and_then(|rest| {
            rest.first_chunk::<4>()
                .map(|v| (u32::from_le_bytes(*v), rest))
        });
        let rest = match format {
            Some((STATE_FORMAT, rest)) => &rest[4..],
            Some((v, _)) => {
                return Err(super::StateError(format!(
                    "it is of format {v}, and this version of multitrace reads format \
                     {STATE_FORMAT} only"
                )))
            }
            None => {
                return Err(super::StateError(format!(
                    "it is not of format {STATE_FORMAT}, the only one this version of \
                     multitrace reads (an older version wrote no format number)"
                )))
            }
        };
        let (mut s, _): (Session, usize) =
            bincode::serde::decode_from_slice(rest, bincode::config::standard())
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
            let first_at = self.places.place_at(ev.at);
            self.runs
                .insert(ev.run, Live::new(m.start(), first_at, locations));
        }
        let arrivals = self.arrivals;
        let live = self.runs.get_mut(ev.run).expect("inserted above");
        live.touched = arrivals;
        live.last_wall = ev.wall;
        if let OrderKey::Time(_) = ev.key {
            live.last_time = Key::new(ev.key);
        }
        if live.done {
            // Counted only: the run's record is written.
            m.push(scratch, &mut live.run, ev.letter);
        } else {
            let is_time = matches!(ev.key, OrderKey::Time(_));
            let mixed = *live.timestamps.get_or_insert(is_time) != is_time;
            let j = m.engine().model().alphabet.location(ev.letter).index();
            let late = live.fed(j).is_some_and(|f| later(&ev.key, &f));
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
                });
                live.run.forget();
            } else if live.nothing_held(j) && opts.reorder == Reorder::Events(0) {
                // Nothing held and no window: fed at once, without holding a copy (the
                // largest key held is read by duration windows only).
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
        if let Some(mut live) = self.runs.remove(run) {
            self.release_all(m, scratch, run, &mut live, out);
            self.end(m, scratch, run, &live, why, out);
        }
    }

    /// Feeds every held event of a run that ends.
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
        for j in 0..live.windows() {
            let places = &mut self.places;
            release(
                m,
                scratch,
                places,
                run,
                live,
                j,
                Reorder::Events(0),
                true,
                out,
            );
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
        out.push(Decision {
            run: run.to_string(),
            first_at: self.places.text(&live.first_at),
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
            .filter(|(_, l)| match (l.last_time.get(), clock) {
                (Some(OrderKey::Time(last)), Some(c)) => c - last > t,
                _ => (now_wall as i128) - (l.last_wall as i128) > t,
            })
            .map(|(id, l)| (l.touched, id.text()))
            .collect();
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
            }
            write(out)?;
            out.clear();
        }
        Ok(())
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
        if plain(m, &opts, &ev) {
            if let (Some(live), mut feed) = self.unchecked(ev.run) {
                if defer(&mut feed, m, scratch, live, &ev, &opts, out) {
                    return;
                }
            }
        }
        self.push(m, scratch, ev, out)
    }

    /// Run `id`, and what an event fed to it unchecked changes beside it.
    fn unchecked(&mut self, id: &str) -> (Option<&mut Live>, Unchecked<'_>) {
        let feed = Unchecked {
            arrivals: &mut self.arrivals,
            clock: &mut self.clock,
            pending: &mut self.pending,
            places: &mut self.places,
            dirty: &mut self.dirty,
        };
        (self.runs.get_mut(id), feed)
    }

    /// Feeds a round's events as [`Session::push_deferred`] feeds them one at a time in their
    /// order, grouped by run when nothing can depend on the order of other runs' events
    /// ([`Round`]: an incremental monitor without reorder windows, no end event in the round,
    /// and room for every run of the round without closing one); empties the round.
    ///
    /// The same decisions, with the same arrival numbers, and the same runs; but the
    /// decisions appended to `out` come in the order the runs were fed (sort them by
    /// [`Decision::arrival`], as [`Session::settle`] and `multitrace monitor` do), and the
    /// files of the places may be numbered in another order (a state's bytes, never a
    /// record, show it).
    pub fn push_round(
        &mut self,
        m: &Monitor<'_>,
        scratch: &mut Scratch,
        round: &mut Round,
        out: &mut Vec<Decision>,
    ) {
        let n = round.len();
        if n == 0 {
            return;
        }
        let opts = self.opts();
        // Every event of a monitor that is not incremental, or with reorder windows, goes to
        // `push` (whose checks share the scratch's term store: kept in order). A new run is
        // added without closing another while fewer than the cap are held.
        let grouped = m.incremental()
            && opts.reorder == Reorder::Events(0)
            && self.runs.len() + round.runs() <= opts.max_live_runs.max(1)
            && round.group(opts.end_letter);
        if grouped {
            let base = self.arrivals;
            let mut k = 0;
            for r in 0..round.runs() {
                let (id, end) = (round.run(r), round.run_end(r));
                while k < end {
                    // One lookup for as many of the run's events as the deferred path takes.
                    if let (Some(live), mut feed) = self.unchecked(id) {
                        while k < end {
                            let (i, ev) = round.grouped(k);
                            // (Each event is one arrival: its number in the round's order.)
                            *feed.arrivals = base + u64::from(i);
                            // (A grouped round's events are all plain: see `grouped`.)
                            debug_assert!(plain(m, &opts, &ev));
                            if !defer(&mut feed, m, scratch, live, &ev, &opts, out) {
                                break;
                            }
                            k += 1;
                        }
                    }
                    if k < end {
                        // A new run, or an event the deferred path does not take.
                        let (i, ev) = round.grouped(k);
                        self.arrivals = base + u64::from(i);
                        self.push_deferred(m, scratch, ev, out);
                        k += 1;
                    }
                }
            }
            self.arrivals = base + n as u64;
        } else {
            for i in 0..n {
                self.push_deferred(m, scratch, round.event(i), out);
            }
        }
        round.clear();
    }

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

    fn settle_run(
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

    fn evict(&mut self, m: &Monitor<'_>, scratch: &mut Scratch, out: &mut Vec<Decision>) {
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

/// Whether `ev` may take the deferred path ([`defer`]): no reorder window, not an end, an
/// incremental monitor.
fn plain(m: &Monitor<'_>, opts: &SessionOptions, ev: &LiveEvent<'_>) -> bool {
    opts.reorder == Reorder::Events(0)
        && !ev.end
        && opts.end_letter != Some(ev.letter)
        && m.incremental()
}

/// What an event fed unchecked changes in its session beside its run.
struct Unchecked<'s> {
    arrivals: &'s mut u64,
    clock: &'s mut Option<i128>,
    pending: &'s mut Pending,
    places: &'s mut Places,
    dirty: &'s mut Ids,
}

/// Feeds a [`plain`] event `ev` to its run `live` as [`Session::push_deferred`] does; `false`
/// (and nothing changed) when the event needs [`Session::push`] (the run holds events, or
/// its keys change kind, or the event is later than one fed).
fn defer(
    s: &mut Unchecked<'_>,
    m: &Monitor<'_>,
    scratch: &mut Scratch,
    live: &mut Live,
    ev: &LiveEvent<'_>,
    opts: &SessionOptions,
    out: &mut Vec<Decision>,
) -> bool {
    if live.done {
        if live.pending_n != 0 {
            return false;
        }
        // A run whose record is written (a Fail decided early): the event is counted only,
        // as [`Session::push`] counts it (one lookup, not four: on 100,000 MQTT runs a sixth
        // of the events are such).
        arrived(s.arrivals, s.clock, live, ev);
        m.push(scratch, &mut live.run, ev.letter);
        return true;
    }
    let j = m.engine().model().alphabet.location(ev.letter).index();
    let is_time = matches!(ev.key, OrderKey::Time(_));
    if !live.nothing_held(j)
        || live.timestamps != Some(is_time)
        || live.fed(j).is_some_and(|f| later(&ev.key, &f))
    {
        return false;
    }
    arrived(s.arrivals, s.clock, live, ev);
    live.fed[j] = Key::new(ev.key);
    let number = live.run.events() + 1;
    let head = (live.pending_n > 0).then_some(live.pending_head);
    let index = s
        .pending
        .add(s.places, ev.at, ev.key, number, *s.arrivals, head);
    if head.is_none() {
        s.dirty.push(ev.run);
        live.pending_head = index;
    }
    // Its place is in the pending list: the run's latest place is taken from there when it
    // is settled (once per run and round, not per event).
    live.pending_n += 1;
    if let Some(decided) = m.push_unchecked(scratch, &mut live.run, ev.letter) {
        decide_pending(ev.run, live, s.places, s.pending, decided, out);
    } else if live.run.unchecked() >= opts.max_unchecked {
        // Checked now rather than at the end of the round: a run that breaks is replayed
        // from its last check, and its events pushed again, so a bound on the events since
        // bounds that work (the decisions do not depend on where the checks fall, and the
        // records are written in the order of their deciding events).
        settle_live(m, scratch, s.places, s.pending, ev.run, live, out);
    }
    true
}

/// An event of run `live` arrived (the deferred path): the session's arrivals and clock, the
/// run's last arrival and times, as [`Session::push`] keeps them.
fn arrived(arrivals: &mut u64, clock: &mut Option<i128>, live: &mut Live, ev: &LiveEvent<'_>) {
    *arrivals += 1;
    if let OrderKey::Time(t) = ev.key {
        *clock = Some(clock.map_or(t, |c| c.max(t)));
        live.last_time = Key::new(ev.key);
    }
    live.touched = *arrivals;
    live.last_wall = ev.wall;
}

/// Checks a run's events fed unchecked (its record when one decides it), and keeps the
/// place of the last of them as the run's latest.
fn settle_live(
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
        decide_pending(id, live, places, pending, decided, out);
    }
    live.pending_n = 0;
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

/// Whether the JSON event `text` has field `field` set to `true` (`--end-field`).
pub fn end_flag(text: &str, field: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .and_then(|v| v.get(field).cloned())
        .is_some_and(|v| v == serde_json::Value::Bool(true))
}

#[cfg(test)]
#[path = "session_tests.rs"]
mod tests;
