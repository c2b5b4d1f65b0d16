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
//! Only searches are memoized: a push's configuration is most often new (its last letter
//! is), and building and comparing its key cost more than the push itself (tried: the
//! monitor took about 20 % more time on the MQTT set with pushes memoized). The searches'
//! memo saves 2 % of the monitor's instructions on the MQTT set (callgrind), as much as
//! the searches it can keep allow (a third are too wide).

// Index loops over locations keep positions, lengths and traces visibly in step.
#![allow(clippy::needless_range_loop)]

use super::{Kernel, Product, TooWide, GONE};
use crate::nfa::LetterId;
use rustc_hash::FxHashMap;
use std::cell::RefCell;

/// Most stored vertices of a product whose searches are memoized (wider products, such as
/// those of a location lagging far behind, rarely meet the same configuration twice).
const MAX_VERTICES: usize = 16;

/// Most words of a configuration's key.
const MAX_KEY: usize = 512;

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
    /// The key being asked (scratch).
    key: Vec<u32>,
    /// The `lo` of the product asked about (scratch).
    lo: Vec<u32>,
}

thread_local! {
    static MEMO: RefCell<Memo> = RefCell::new(Memo::default());
}

impl Memo {
    /// Makes the key of `p`'s configuration in `self.key`; `false` when `p` is not
    /// memoized (too wide, or too long a key).
    fn make_key(&mut self, p: &Product, traces: &[Vec<LetterId>]) -> bool {
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
        let key = &mut self.key;
        key.clear();
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
            if key.len() + suffix.len() > MAX_KEY {
                return false;
            }
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
            let owner = (kernel.tables.id(), max_vertices);
            if memo.owner != owner {
                memo.map.clear();
                memo.bytes = 0;
                memo.owner = owner;
            }
            if !memo.make_key(self, traces) {
                return search();
            }
            if let Some(&r) = memo.map.get(&memo.key[..]) {
                memo.hits += 1;
                return r;
            }
            let r = search();
            let bytes = 4 * memo.key.len() + 64;
            if memo.bytes + bytes > MAX_BYTES {
                memo.map.clear();
                memo.bytes = 0;
            }
            memo.bytes += bytes;
            memo.map.insert(memo.key.clone().into_boxed_slice(), r);
            r
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Product, WORK};
    use super::MEMO;
    use crate::monitor::tests::{feed_each, held_back, on_mqtt_kernel};
    use crate::nfa::LetterId;
    use crate::rng::Rng;

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
}
