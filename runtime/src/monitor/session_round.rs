//! A round of events read together ([`Round`]), fed to a session grouped by run
//! ([`Session::push_round`](super::session::Session::push_round)).
//!
//! On a stream of many interleaved runs nearly every event finds its run cold: its slot in the
//! table of runs, its bookkeeping, its traces and its guess are each a cache miss (on 100,000
//! MQTT runs, a third of the time waited for memory; the same events sorted by run took 30 %
//! less). A round's events, grouped by run, touch each run's state once per round.
//!
//! Invariant: grouping changes no record and no state. A run's events keep their order;
//! each event keeps its arrival number (the order of records and of idle runs); runs are met
//! in the order of their first event of the round (the order of the runs to settle). What
//! could depend on the order of other runs' events (a run closed to make room for a new one,
//! an end event's record, which sorts after the events' records in the order it was
//! written) is never grouped: such a round is fed in its order.

use super::session::{At, LiveEvent};
use crate::events::OrderKey;
use crate::nfa::LetterId;
use rustc_hash::FxHashMap;

/// Where a round's event was read.
#[derive(Clone, Copy, Debug)]
enum Where {
    /// Line `line` of the round's file `file` (an index into [`Round::files`]).
    Line { file: u32, line: u32 },
    /// A place of another form: `text[from..to]`.
    Text { from: u32, to: u32 },
}

/// One event of a round, its strings in the round's buffers.
#[derive(Clone, Copy, Debug)]
struct RoundEvent {
    /// Its number in the round (in the order added).
    number: u32,
    /// The run's id: `text[id_from..id_to]`.
    id_from: u32,
    id_to: u32,
    letter: LetterId,
    /// (Kept whole: rebuilt from halves, its copy into the event fed waited for the halves'
    /// stores, a tenth of a round's feeding.)
    key: OrderKey,
    at: Where,
    wall: u64,
    end: bool,
}

/// Events read together, in their order, to feed a session at once
/// ([`Session::push_round`](super::session::Session::push_round)). Reused from round to
/// round (its buffers keep their room).
#[derive(Debug, Default)]
pub struct Round {
    events: Vec<RoundEvent>,
    /// The runs' ids and the places of another form, one after another.
    text: String,
    /// The files of the places (a round reads from few).
    files: Vec<String>,
    /// The events grouped by run ([`Round::group`]).
    grouped: Vec<RoundEvent>,
    /// Where each run's events end in `grouped`.
    ends: Vec<u32>,
}

impl Round {
    /// An empty round.
    pub fn new() -> Round {
        Round::default()
    }

    /// Adds an event (after those added before).
    pub fn push(&mut self, ev: LiveEvent<'_>) {
        let id_from = self.text.len() as u32;
        self.text.push_str(ev.run);
        let id_to = self.text.len() as u32;
        let at = match ev.at {
            At::Line { file, line } => {
                let file = match self.files.iter().rposition(|f| f == file) {
                    Some(i) => i,
                    None => {
                        self.files.push(file.to_string());
                        self.files.len() - 1
                    }
                };
                Where::Line {
                    file: file as u32,
                    line,
                }
            }
            At::Text(t) => {
                self.text.push_str(t);
                Where::Text {
                    from: id_to,
                    to: self.text.len() as u32,
                }
            }
        };
        self.events.push(RoundEvent {
            number: self.events.len() as u32,
            id_from,
            id_to,
            letter: ev.letter,
            key: ev.key,
            at,
            wall: ev.wall,
            end: ev.end,
        });
    }

    /// Events held.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// Whether it holds no event.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// Forgets every event (the buffers keep their room).
    pub fn clear(&mut self) {
        self.events.clear();
        self.text.clear();
        self.files.clear();
        self.grouped.clear();
        self.ends.clear();
    }

    /// Event `i` (in the order added).
    pub(super) fn event(&self, i: usize) -> LiveEvent<'_> {
        self.live_event(&self.events[i])
    }

    /// Event `k` of the order [`Round::group`] gave, and its number in the round.
    pub(super) fn grouped(&self, k: usize) -> (u32, LiveEvent<'_>) {
        let e = &self.grouped[k];
        (e.number, self.live_event(e))
    }

    /// The run of event `k` of the order [`Round::group`] gave.
    pub(super) fn grouped_run(&self, k: usize) -> &str {
        let e = &self.grouped[k];
        &self.text[e.id_from as usize..e.id_to as usize]
    }

    /// Where each run's events end in the order [`Round::group`] gave.
    pub(super) fn group_ends(&self) -> &[u32] {
        &self.ends
    }

    fn live_event<'r>(&'r self, e: &RoundEvent) -> LiveEvent<'r> {
        let at = match e.at {
            Where::Line { file, line } => At::Line {
                file: &self.files[file as usize],
                line,
            },
            Where::Text { from, to } => At::Text(&self.text[from as usize..to as usize]),
        };
        LiveEvent {
            run: &self.text[e.id_from as usize..e.id_to as usize],
            letter: e.letter,
            key: e.key,
            at,
            wall: e.wall,
            end: e.end,
        }
    }

    /// Groups the events by run ([`Round::grouped`], [`Round::group_ends`]): the runs in the
    /// order of their first event, each run's events in their order; returns the number of
    /// runs, or `None` (and groups nothing) when an event ends its run (flagged, or the end
    /// action `end_letter`).
    pub(super) fn group(&mut self, end_letter: Option<LetterId>) -> Option<usize> {
        let n = self.events.len();
        let mut runs: FxHashMap<&str, u32> = FxHashMap::default();
        // Per event its run's number; per run its count, then where its events go.
        let mut group = Vec::with_capacity(n);
        let starts = &mut self.ends;
        starts.clear();
        for e in &self.events {
            if e.end || end_letter == Some(e.letter) {
                return None;
            }
            let id = &self.text[e.id_from as usize..e.id_to as usize];
            let next = starts.len() as u32;
            let g = *runs.entry(id).or_insert(next);
            if g == next {
                starts.push(0);
            }
            starts[g as usize] += 1;
            group.push(g);
        }
        let mut at = 0;
        for s in starts.iter_mut() {
            at += *s;
            *s = at - *s;
        }
        // (Copied in their new order: the feeding reads them one after another.)
        self.grouped.clear();
        self.grouped
            .resize(n, self.events.first().copied().unwrap_or(EMPTY));
        for (e, &g) in self.events.iter().zip(&group) {
            let s = &mut starts[g as usize];
            self.grouped[*s as usize] = *e;
            *s += 1;
        }
        // Each start moved past its run's events: the ends.
        Some(starts.len())
    }
}

/// A placeholder event.
const EMPTY: RoundEvent = RoundEvent {
    number: 0,
    id_from: 0,
    id_to: 0,
    letter: LetterId(0),
    key: OrderKey::Int(0),
    at: Where::Text { from: 0, to: 0 },
    wall: 0,
    end: false,
};

#[cfg(test)]
mod tests {
    use super::*;

    fn ev<'a>(run: &'a str, letter: u32, key: i128, line: u32) -> LiveEvent<'a> {
        LiveEvent {
            run,
            letter: LetterId(letter),
            key: OrderKey::Int(key),
            at: At::Line {
                file: if line.is_multiple_of(2) {
                    "a.jsonl"
                } else {
                    "b.jsonl"
                },
                line,
            },
            wall: u64::from(line),
            end: false,
        }
    }

    #[test]
    fn events_come_back_as_added_and_grouped_by_first_appearance() {
        let mut r = Round::new();
        let ids = ["x", "y", "x", "a-long-run-id-of-many-bytes", "y", "x"];
        for (i, id) in ids.iter().enumerate() {
            r.push(ev(id, i as u32, -(i as i128) << 70, i as u32 + 1));
        }
        r.push(LiveEvent {
            at: At::Text("elsewhere"),
            ..ev("y", 9, 3, 0)
        });
        for (i, id) in ids.iter().enumerate() {
            let e = r.event(i);
            assert_eq!(e.run, *id);
            assert_eq!(e.letter, LetterId(i as u32));
            assert_eq!(e.key, OrderKey::Int(-(i as i128) << 70));
            assert_eq!(e.at.to_string(), ev(id, 0, 0, i as u32 + 1).at.to_string());
        }
        assert_eq!(r.event(6).at.to_string(), "elsewhere");
        assert_eq!(r.group(Some(LetterId(4))), None);
        assert_eq!(r.group(None), Some(3));
        let order: Vec<u32> = (0..r.len()).map(|k| r.grouped(k).0).collect();
        assert_eq!(order, [0, 2, 5, 1, 4, 6, 3]);
        assert_eq!(r.group_ends(), &[3, 6, 7]);
        for k in 0..r.len() {
            let (i, e) = r.grouped(k);
            let f = r.event(i as usize);
            assert_eq!(
                (e.run, e.letter, e.key, e.wall),
                (f.run, f.letter, f.key, f.wall)
            );
            assert_eq!(e.at.to_string(), f.at.to_string());
            assert_eq!(r.grouped_run(k), e.run);
        }
        r.clear();
        assert!(r.is_empty());
        assert_eq!(r.group(None), Some(0));
    }
}
