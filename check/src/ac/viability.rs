//! Viability pruning: `Q_j(p)`, the states from which the rest of trace `j` can still be read
//! towards a goal state (see the module docs of [`super`]).

#![allow(clippy::needless_range_loop)]

use super::tables::{for_each_bit, AcTables, Viability};
use super::vectors::Radix;
use multitrace_model::nfa::LetterId;
use rustc_hash::FxHashMap;

/// Backward steps of `Q_j` already computed, for sets of at most four words: `(letter, set)`
/// to the set one position earlier. Traces of one model revisit few distinct sets, so after
/// a few checks a step is one lookup. Keyed by the tables' `id`, so a scratch
/// used with another model starts afresh.
#[derive(Default)]
pub(super) struct StepMemo {
    pub(super) model: u64,
    pub(super) map: FxHashMap<(u32, [u64; 4]), [u64; 4]>,
}

/// Largest `Q` table of viability pruning (words; 128 MiB).
pub(super) const Q_MAX_WORDS: usize = 1 << 24;

/// Most entries of [`StepMemo`]; beyond, steps are computed without being remembered (small
/// in unit tests, to exercise that path).
pub(super) const MEMO_MAX: usize = if cfg!(test) { 64 } else { 1 << 16 };

/// Fills `q` with `Q_j(p)` for every location `j` and position `p` (see the module docs):
/// `Q_j(len_j)` = the states that reach `goal` by letters of other locations, and
/// `Q_j(p)` = the states that reach, by letters of other locations, a state with a
/// `trace_j[p]`-transition into `Q_j(p + 1)`.
#[allow(clippy::too_many_arguments)]
pub(super) fn viability<const W: usize>(
    tables: &AcTables,
    v: &Viability,
    traces: &[Vec<LetterId>],
    goal: &[u64],
    w: usize,
    q: &mut Vec<u64>,
    q_at: &mut Vec<usize>,
    memo: &mut StepMemo,
) {
    let w = if W == 0 { w } else { W };
    let n = tables.states;
    q.clear();
    q_at.clear();
    let mut total = 0;
    for t in traces {
        q_at.push(total);
        total += (t.len() + 1) * w;
    }
    q.resize(total, 0);
    if memo.model != tables.id || memo.map.len() > MEMO_MAX {
        memo.map.clear();
        memo.model = tables.id;
    }
    for (j, trace) in traces.iter().enumerate() {
        let others = &v.others[j * n * w..(j + 1) * n * w];
        let base = q_at[j];
        let len = trace.len();
        let (lo, hi) = q[base..base + (len + 1) * w].split_at_mut(len * w);
        for_each_bit(goal, w, |s| {
            for k in 0..w {
                hi[k] |= others[s * w + k];
            }
        });
        for p in (0..len).rev() {
            let (here, next) = lo[p * w..].split_at_mut(w);
            let next: &[u64] = if p + 1 == len { hi } else { &next[..w] };
            let a = trace[p].index();
            let rows = &v.back[a * n * w..(a + 1) * n * w];
            if W == 0 {
                for_each_bit(next, w, |s| {
                    for k in 0..w {
                        here[k] |= rows[s * w + k];
                    }
                });
            } else {
                let mut key = [0u64; 4];
                key[..w].copy_from_slice(&next[..w]);
                let step = |out: &mut [u64]| {
                    for_each_bit(next, w, |s| {
                        for k in 0..w {
                            out[k] |= rows[s * w + k];
                        }
                    })
                };
                if let Some(out) = memo.map.get(&(a as u32, key)) {
                    here[..w].copy_from_slice(&out[..w]);
                } else if memo.map.len() < MEMO_MAX {
                    let mut out = [0u64; 4];
                    step(&mut out);
                    here[..w].copy_from_slice(&out[..w]);
                    memo.map.insert((a as u32, key), out);
                } else {
                    // Full: compute without remembering (memory stays bounded).
                    step(here);
                }
            }
            if here.iter().all(|&x| x == 0) {
                // Q_j(p) and every earlier one stay empty.
                break;
            }
        }
    }
}

/// `set &= ⋂_j Q_j(pos_j(key))`.
#[inline(always)]
pub(super) fn filter(
    q: &[u64],
    q_at: &[usize],
    radix: &Radix,
    key: u64,
    set: &mut [u64],
    w: usize,
) {
    for j in 0..q_at.len() {
        let at = q_at[j] + radix.pos(key, j) as usize * w;
        for k in 0..w {
            set[k] &= q[at + k];
        }
    }
}
