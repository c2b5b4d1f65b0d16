//! Events fed unchecked: one at a time ([`Session::push_deferred`]), or a round's events
//! grouped by run ([`Session::push_round`]); their runs are checked by the next
//! [`Session::settle`].
//!
//! Invariant: an event takes the deferred path only when nothing else can depend on it being
//! checked at once (no reorder window, not an end, an incremental monitor, in order in its
//! run); every other event goes to [`Session::push`]. The decisions are the same, at the same
//! events and with the same arrival numbers.

use super::event::LiveEvent;
use super::live::{decide_pending, Key, Live};
use super::options::SessionOptions;
use super::pending::{Ids, Pending, Places};
use super::round::Round;
use super::settle::settle_live;
use super::state::Session;
use crate::decision::Decision;
use crate::Monitor;
use multitrace_check::Scratch;
use multitrace_formats::events::OrderKey;

impl Session {
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
        self.close_idle_before(m, scratch, &ev.key, out);
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
            idle_due: &mut self.idle_due,
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
        // (With an idle timeout, runs close as the clock passes them: in the events' order.)
        let grouped = m.incremental()
            && opts.reorder.in_order()
            && opts.idle_timeout.is_none()
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
}

/// Whether `ev` may take the deferred path ([`defer`]): no reorder window (or positions),
/// not an end, an incremental monitor.
fn plain(m: &Monitor<'_>, opts: &SessionOptions, ev: &LiveEvent<'_>) -> bool {
    opts.reorder.in_order() && !ev.end && opts.end_letter != Some(ev.letter) && m.incremental()
}

/// What an event fed unchecked changes in its session beside its run.
struct Unchecked<'s> {
    arrivals: &'s mut u64,
    clock: &'s mut Option<i128>,
    idle_due: &'s mut i128,
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
    let j = m.engine().model().alphabet.location(ev.letter).index();
    if live.done {
        if live.pending_n != 0 || super::push::correction_due(live, j, &ev.key, opts.reorder) {
            return false;
        }
        // A run whose record is written (a Fail decided early): the event is counted only,
        // as [`Session::push`] counts it (one lookup, not four: on 100,000 MQTT runs a sixth
        // of the events are such).
        arrived(s, live, ev);
        m.push(scratch, &mut live.run, ev.letter);
        return true;
    }
    let is_time = matches!(ev.key, OrderKey::Time(_));
    if !live.nothing_held(j)
        || live.waits(j)
        || live.timestamps != Some(is_time)
        || !opts.reorder.next(live.fed(j), &ev.key)
    {
        return false;
    }
    arrived(s, live, ev);
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
        decide_pending(m, ev.run, live, s.places, s.pending, decided, out);
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
fn arrived(s: &mut Unchecked<'_>, live: &mut Live, ev: &LiveEvent<'_>) {
    *s.arrivals += 1;
    if let OrderKey::Time(t) = ev.key {
        *s.clock = Some(s.clock.map_or(t, |c| c.max(t)));
        live.last_time = Key::new(ev.key);
        *s.idle_due = (*s.idle_due).min(t);
    }
    live.touched = *s.arrivals;
    live.last_wall = ev.wall;
}
