//! A memo of the multi-prefix searches on small products, shared by the runs of one thread.
//!
//! What a search answers depends only on the product's *configuration*: its stored vertices
//! in storage order, their positions taken from the least position of each location (`lo`),
//! their state sets, and the letters each location logged from `lo` on (no edge the search
//! follows starts below a stored vertex). The runs of a protocol pass through the same
//! configurations again and again, so each search's answer is kept, keyed by the
//! configuration, and a later run in the same configuration takes it instead of searching.
//!
//! Invariants:
//!
//! - The answer kept is exactly the search's (`true`, `false`, or the budget's `TooWide`,
//!   which names a location and counts vertices of the configuration), so a hit changes no
//!   result: the monitor's records are byte-identical with and without it (tested on random
//!   runs against the search itself).
//! - The key is the whole configuration, compared word for word: never a hash alone.
//! - The memo belongs to one model and one vertex budget (the tables' id and the budget tag
//!   it; another clears it) and is bounded ([`MAX_BYTES`]; past it, it is cleared: only
//!   speed depends on what it holds).
//!
//! The questions a run's record asks of its product (which letters extend the cut it is
//! at: [`Product::extends_memo`]) depend on the configuration and the letter alone too, and
//! the runs that end (or break) at the same point of a protocol ask the same ones: their
//! answers are kept under the configuration's key tagged with the location and the letter
//! (a tag no configuration's key starts with). Only answers are kept, never "cannot tell".
//!
//! Only searches are memoized: a push's configuration is most often new (its last letter
//! is), and building and comparing its key cost more than the push itself (tried: the
//! monitor took about 20 % more time on the MQTT set with pushes memoized). The searches'
//! memo saves 2 % of the monitor's instructions on the MQTT set (callgrind), as much as
//! the searches it can keep allow (a third are too wide).

// Index loops over locations keep positions, lengths and traces visibly in step.
#![allow(clippy::needless_range_loop)]

use super::faces::GONE;
use super::kernel::Kernel;
use super::store::{Product, TooWide};
use multitrace_model::nfa::LetterId;
use rustc_hash::FxHashMap;
use std::cell::RefCell;

/// Most stored vertices of a product whose searches are memoized (wider products, such as
/// those of a location lagging far behind, rarely meet the same configuration twice).
const MAX_VERTICES: usize = 16;

/// Most words of a configuration's key.
const MAX_KEY: usize = 512;

/// Questions missed before the memo of questions is judged: past it, one thread stops asking
/// it while fewer than one question in five is answered from it, and judges it again after
/// four times as many questions (on AutomatArk NFA12's runs, which follow no protocol, none
/// of 2,201 was; on the MQTT set 975 of 2,075 were).
const QUESTIONS_TRIED: u64 = 256;

/// Most bytes the memo holds (keys, answers and the table's own), per thread.
const MAX_BYTES: usize = 16 << 20;

/// The searches' answers by configuration.
#[derive(Default)]
struct Memo {
    /// The tables' id and the vertex budget the answers are for.
    owner: (u64, usize),
    map: FxHashMap<Box<[u32]>, Result<bool, TooWide>>,
    bytes: usize,
    /// Searches answered from the memo (for the tests).
    hits: u64,
    /// Questions ([`Product::extends_memo`]) answered from the memo, missed, and not asked
    /// of it since it was last judged.
    questions: (u64, u64, u64),
    /// The key being asked (scratch).
    key: Vec<u32>,
    /// The `lo` of the product asked about (scratch).
    lo: Vec<u32>,
}

thread_local! {
    static MEMO: RefCell<Memo> = RefCell::new(Memo::default());
}

impl Memo {
    /// Makes the key of `p`'s configuration in `self.key`, after `tag`; `false` when `p`
    /// is not memoized (too wide, or too long a key).
    fn make_key(&mut self, p: &Product, traces: &[Vec<LetterId>], tag: &[u32]) -> bool {
        let (k, w) = (p.k as usize, p.w as usize);
        if p.vertices() > MAX_VERTICES {
            return false;
        }
        let f = &p.faces;
        let stored = || (0..f.len()).filter(|&v| f.keys[v] != GONE);
        self.lo.clear();
        self.lo.extend_from_slice(&p.lens);
        for v in stored() {
            for i in 0..k {
                self.lo[i] = self.lo[i].min(f.pos[v * k + i]);
            }
        }
        // Its length first: a key too long is not built.
        let suffixes: usize = (0..k).map(|i| (p.lens[i] - self.lo[i]) as usize).sum();
        if tag.len() + 1 + k + p.vertices() * (k + 2 * w) + suffixes > MAX_KEY {
            return false;
        }
        let key = &mut self.key;
        key.clear();
        key.extend_from_slice(tag);
        key.push(p.vertices() as u32);
        for i in 0..k {
            key.push(p.lens[i] - self.lo[i]);
        }
        for v in stored() {
            for i in 0..k {
                key.push(f.pos[v * k + i] - self.lo[i]);
            }
            for &s in &f.sets[v * w..(v + 1) * w] {
                key.extend([s as u32, (s >> 32) as u32]);
            }
        }
        for i in 0..k {
            let suffix = &traces[i][self.lo[i] as usize..p.lens[i] as usize];
            key.extend(suffix.iter().map(|a| a.0));
        }
        true
    }
}

impl Product {
    /// `search()`, the search of [`Product::is_multi_prefix`] on this product, through the
    /// memo.
    pub(super) fn search_memo(
        &self,
        kernel: &Kernel<'_>,
        traces: &[Vec<LetterId>],
        max_vertices: usize,
        search: impl FnOnce() -> Result<bool, TooWide>,
    ) -> Result<bool, TooWide> {
        MEMO.with(|memo| {
            let memo = &mut *memo.borrow_mut();
            memo.own(kernel, max_vertices);
            if !memo.make_key(self, traces, &[]) {
                return search();
            }
            if let Some(&r) = memo.map.get(&memo.key[..]) {
                memo.hits += 1;
                return r;
            }
            let r = search();
            memo.keep(memo.key.clone().into_boxed_slice(), r);
            r
        })
    }

    /// Whether the multitrace this product was fed (`traces`), with letter `a` appended to
    /// location `i`'s trace, is a multi-prefix, through the memo: `ask` answers what it does
    /// not hold (`None`: it cannot tell, not kept).
    pub fn extends_memo(
        &self,
        kernel: &Kernel<'_>,
        traces: &[Vec<LetterId>],
        i: usize,
        a: LetterId,
        max_vertices: usize,
        ask: impl FnOnce() -> Option<bool>,
    ) -> Option<bool> {
        // The key of a question the memo does not hold (`ask` searches through the memo
        // too: it is not borrowed meanwhile).
        let key = MEMO.with(|memo| {
            let memo = &mut *memo.borrow_mut();
            memo.own(kernel, max_vertices);
            let (hits, misses, skipped) = memo.questions;
            if misses >= QUESTIONS_TRIED && hits * 5 < misses {
                // The runs rarely meet a configuration again: keys cost more than they save.
                // (Judged again after a while: the runs of a stream may change.)
                memo.questions.2 += 1;
                if skipped >= 4 * QUESTIONS_TRIED {
                    memo.questions = (0, 0, 0);
                }
                return Err(None);
            }
            // A configuration's key starts with its vertex count (at most `MAX_VERTICES`).
            if !memo.make_key(self, traces, &[u32::MAX, i as u32, a.0]) {
                return Err(None);
            }
            match memo.map.get(&memo.key[..]) {
                Some(&r) => {
                    memo.questions.0 += 1;
                    Ok(r.ok())
                }
                None => {
                    memo.questions.1 += 1;
                    Err(Some(memo.key.clone().into_boxed_slice()))
                }
            }
        });
        let key = match key {
            Ok(held) => return held,
            Err(key) => key,
        };
        let r = ask();
        if let (Some(b), Some(key)) = (r, key) {
            MEMO.with(|memo| memo.borrow_mut().keep(key, Ok(b)));
        }
        r
    }
}

impl Memo {
    /// Clears the memo when its answers are for another model or budget.
    fn own(&mut self, kernel: &Kernel<'_>, max_vertices: usize) {
        let owner = (kernel.tables.id(), max_vertices);
        if self.owner != owner {
            self.map.clear();
            self.bytes = 0;
            self.owner = owner;
            self.questions = (0, 0, 0);
        }
    }

    /// Keeps `r` under `key`.
    fn keep(&mut self, key: Box<[u32]>, r: Result<bool, TooWide>) {
        let bytes = 4 * key.len() + 64;
        if self.bytes + bytes > MAX_BYTES {
            self.map.clear();
            self.bytes = 0;
        }
        self.bytes += bytes;
        self.map.insert(key, r);
    }
}

#[cfg(test)]
mod tests {
    use super::super::work::WORK;
    use super::super::Product;
    use super::MEMO;
    use crate::tests::{feed_each, held_back, on_mqtt_kernel};
    use multitrace_model::nfa::LetterId;
    use multitrace_model::rng::Rng;

    /// The memo's answers are the search's own, after every event of random MQTT runs (some
    /// with a location held back, so that searches are needed and some run out of small
    /// budgets), and a run read again takes its answers from it.
    #[test]
    fn the_memo_answers_as_the_search_does() {
        on_mqtt_kernel(|engine, kernel| {
            let tables = kernel.tables;
            let mut rng = Rng::new(11);
            let hits = || MEMO.with(|m| m.borrow().hits);
            let before = hits();
            let (mut asked, mut wide, mut not) = (0, 0, 0);
            for run in 0..300 {
                let budget = [usize::MAX, 3, 6, 12][run % 4];
                let steps = rng.between(0, 60);
                let events = held_back(engine, &mut rng, steps, 3);
                let mut check = |p: &Product, traces: &[Vec<LetterId>]| {
                    if p.end_meets(tables.live()) {
                        return;
                    }
                    let want =
                        WORK.with(|wk| p.search(&mut wk.borrow_mut(), kernel, traces, budget));
                    let got = p.is_multi_prefix(kernel, traces, budget);
                    assert_eq!(got, want, "{traces:?} budget {budget}");
                    asked += 1;
                    wide += usize::from(want.is_err());
                    not += usize::from(want == Ok(false));
                };
                // Twice: the second time every configuration was met before.
                feed_each(kernel, &events, &mut check);
                feed_each(kernel, &events, &mut check);
            }
            let hits = hits() - before;
            assert!(asked > 1000, "{asked}");
            // At least the second reading of each run (not all: a configuration too wide or with
            // too long a key is not kept).
            assert!(2 * hits > asked, "{hits} of {asked}");
            assert!(wide > 20 && not > 20, "{wide} {not}");
        });
    }

    /// The memo's answers to a record's questions ([`Product::extends_memo`]) are those of
    /// a push and a search on a copy, for every letter of every location after every event
    /// of random MQTT runs (some with a location held back, some under small budgets, where
    /// the search cannot tell and nothing is kept), and a run read again takes its answers
    /// from the memo.
    #[test]
    fn the_memo_answers_questions_as_a_push_and_a_search_do() {
        on_mqtt_kernel(|engine, kernel| {
            let alphabet = &engine.model().alphabet;
            let mut rng = Rng::new(29);
            let questions = || MEMO.with(|m| m.borrow().questions);
            let hits_before = questions().0;
            MEMO.with(|m| m.borrow_mut().questions.1 = 0);
            let (mut asked, mut yes, mut no, mut untold) = (0, 0, 0, 0);
            for run in 0..60 {
                let budget = [usize::MAX, 4, 64][run % 3];
                let steps = rng.between(0, 40);
                let events = held_back(engine, &mut rng, steps, 3);
                let mut check = |p: &Product, traces: &[Vec<LetterId>]| {
                    for i in 0..traces.len() {
                        for &a in alphabet.letters_of(multitrace_model::nfa::LocationId(i as u32)) {
                            let want = p.extended(kernel, traces, i, a, budget).ok();
                            let got = p.extends_memo(kernel, traces, i, a, budget, || want);
                            assert_eq!(got, want, "{traces:?} + {a:?} on {i}, budget {budget}");
                            asked += 1;
                            match want {
                                Some(true) => yes += 1,
                                Some(false) => no += 1,
                                None => untold += 1,
                            }
                        }
                    }
                };
                feed_each(kernel, &events, &mut check);
                feed_each(kernel, &events, &mut check);
            }
            let (hits, misses, _) = questions();
            let hits = hits - hits_before;
            assert!(yes > 500 && no > 500 && untold > 20, "{yes} {no} {untold}");
            // Every question the memo keeps (a small product's) is asked again in the second
            // reading of its run.
            assert!(
                hits > 100 && hits >= misses,
                "{hits} hits, {misses} misses of {asked}"
            );
        });
    }
}
