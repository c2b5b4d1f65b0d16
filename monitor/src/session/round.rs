//! A round of events read together ([`Round`]), fed to a session grouped by run
//! ([`Session::push_round`](super::state::Session::push_round)).
//!
//! On a stream of many interleaved runs nearly every event finds its run cold: its slot in the
//! table of runs, its bookkeeping, its traces and its guess are each a cache miss (on 100,000
//! MQTT runs, a third of the time waited for memory; the same events sorted by run took 30 %
//! less). A round's events, grouped by run, touch each run's state once per round.
//!
//! Invariant: grouping changes no record. A run's events keep their order;
//! each event keeps its arrival number (the order of records and of idle runs); runs are met
//! in the order of their first event of the round (the order of the runs to settle). What
//! could depend on the order of other runs' events (a run closed to make room for a new one,
//! an end event's record, which sorts after the events' records in the order it was
//! written, the checks of a monitor that is not incremental, which share a term store) is
//! never grouped: such a round is fed in its order.

use super::event::{At, LiveEvent};
use super::pending::Places;
use multitrace_formats::events::intern::ByteIds;
use multitrace_formats::events::OrderKey;
use multitrace_model::nfa::LetterId;

/// One event of a round, its strings in the round's buffers: 64 bytes, a cache line.
#[derive(Clone, Copy, Debug)]
struct RoundEvent {
    /// (Kept whole: rebuilt from halves, its copy into the event fed waited for the halves'
    /// stores, a tenth of a round's feeding.)
    key: OrderKey,
    wall: u64,
    /// Its number in the round (in the order added).
    number: u32,
    letter: LetterId,
    /// Its run: an index into [`Round::runs`].
    run: u32,
    /// Where it was read: line `b` of the round's file `a` (an index into [`Round::files`]),
    /// or with [`TEXT`], `Round::text[a..b]`.
    a: u32,
    b: u32,
    /// [`TEXT`] and [`END`].
    flags: u8,
}

/// [`RoundEvent::flags`]: a place of another form than a file's line.
const TEXT: u8 = 1;
/// [`RoundEvent::flags`]: an event flagged as its run's end.
const END: u8 = 2;

/// Events read together, in their order, to feed a session at once
/// ([`Session::push_round`](super::state::Session::push_round)). Reused from round to
/// round (its buffers keep their room).
#[derive(Debug, Default)]
pub struct Round {
    events: Vec<RoundEvent>,
    /// The runs' ids, one after another, in the order of their first event.
    ids: String,
    /// Where each run's id ends in `ids`.
    id_ends: Vec<u32>,
    /// Each run's number, by id (most ids compared as two words, not as bytes).
    runs: ByteIds,
    /// Events per run; then, while grouping, where the run's next event goes.
    counts: Vec<u32>,
    /// The places of another form, one after another.
    text: String,
    /// The files of the places (a round reads from few; most events are of the file of the
    /// event before).
    files: Places,
    /// The events grouped by run ([`Round::group`]).
    grouped: Vec<RoundEvent>,
    /// Whether an event is flagged as its run's end.
    ends: bool,
}

impl Round {
    /// An empty round.
    pub fn new() -> Round {
        Round::default()
    }

    /// Adds an event (after those added before).
    pub fn push(&mut self, ev: LiveEvent<'_>) {
        let run = match self.runs.get(ev.run.as_bytes()) {
            Some(r) => r,
            None => {
                let r = self.id_ends.len() as u32;
                self.ids.push_str(ev.run);
                self.id_ends.push(self.ids.len() as u32);
                self.counts.push(0);
                self.runs.insert(ev.run.as_bytes(), r);
                r
            }
        };
        self.counts[run as usize] += 1;
        let (a, b, text) = match ev.at {
            At::Line { file, line } => {
                let file = self.files.file(file);
                (file, line, 0)
            }
            At::Text(t) => {
                let from = self.text.len() as u32;
                self.text.push_str(t);
                (from, self.text.len() as u32, TEXT)
            }
        };
        self.ends |= ev.end;
        self.events.push(RoundEvent {
            key: ev.key,
            wall: ev.wall,
            number: self.events.len() as u32,
            letter: ev.letter,
            run,
            a,
            b,
            flags: text | if ev.end { END } else { 0 },
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
        if self.events.is_empty() {
            // (Nothing to forget: the table of ids is not rewritten.)
            return;
        }
        self.events.clear();
        self.ids.clear();
        self.id_ends.clear();
        self.runs.clear();
        self.counts.clear();
        self.text.clear();
        self.files.clear();
        self.grouped.clear();
        self.ends = false;
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

    /// Runs in the round.
    pub(super) fn runs(&self) -> usize {
        self.id_ends.len()
    }

    /// Run `r`'s id (runs are numbered in the order of their first event).
    pub(super) fn run(&self, r: usize) -> &str {
        let from = if r == 0 { 0 } else { self.id_ends[r - 1] };
        &self.ids[from as usize..self.id_ends[r] as usize]
    }

    /// Where run `r`'s events end in the order [`Round::group`] gave (once it returned
    /// `true`).
    pub(super) fn run_end(&self, r: usize) -> usize {
        self.counts[r] as usize
    }

    fn live_event<'r>(&'r self, e: &RoundEvent) -> LiveEvent<'r> {
        let at = if e.flags & TEXT == 0 {
            At::Line {
                file: self.files.file_name(e.a),
                line: e.b,
            }
        } else {
            At::Text(&self.text[e.a as usize..e.b as usize])
        };
        LiveEvent {
            run: self.run(e.run as usize),
            letter: e.letter,
            key: e.key,
            at,
            wall: e.wall,
            end: e.flags & END != 0,
        }
    }

    /// Groups the events by run ([`Round::grouped`], [`Round::run_end`]): the runs in the
    /// order of their first event, each run's events in their order. `false` (and nothing
    /// grouped) when an event ends its run (flagged, or the end action `end_letter`).
    pub(super) fn group(&mut self, end_letter: Option<LetterId>) -> bool {
        if self.ends || end_letter.is_some_and(|l| self.events.iter().any(|e| e.letter == l)) {
            return false;
        }
        // Each run's count becomes where its events start.
        let mut at = 0;
        for c in self.counts.iter_mut() {
            at += *c;
            *c = at - *c;
        }
        // (Copied in their new order: the feeding reads them one after another.)
        self.grouped.clear();
        if let Some(&first) = self.events.first() {
            self.grouped.resize(self.events.len(), first);
        }
        for e in &self.events {
            let c = &mut self.counts[e.run as usize];
            self.grouped[*c as usize] = *e;
            *c += 1;
        }
        // Each start moved past its run's events: their end.
        true
    }
}

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
        assert!(!r.group(Some(LetterId(4))));
        assert!(r.group(None));
        let order: Vec<u32> = (0..r.len()).map(|k| r.grouped(k).0).collect();
        assert_eq!(order, [0, 2, 5, 1, 4, 6, 3]);
        assert_eq!(r.runs(), 3);
        let ends: Vec<usize> = (0..3).map(|g| r.run_end(g)).collect();
        assert_eq!(ends, [3, 6, 7]);
        for k in 0..r.len() {
            let (i, e) = r.grouped(k);
            let f = r.event(i as usize);
            assert_eq!(
                (e.run, e.letter, e.key, e.wall),
                (f.run, f.letter, f.key, f.wall)
            );
            assert_eq!(e.at.to_string(), f.at.to_string());
            assert_eq!(e.run, r.run(usize::from(k >= 3) + usize::from(k >= 6)));
        }
        r.push(LiveEvent {
            end: true,
            ..ev("x", 0, 0, 9)
        });
        assert!(!r.group(None));
        r.clear();
        assert!(r.is_empty());
        assert!(r.group(None));
        assert_eq!(r.runs(), 0);
    }
}
