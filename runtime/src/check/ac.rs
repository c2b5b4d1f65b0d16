//! AC, the centralized procedure (seed 004 Algorithm 1): search `Central(A, μ)`, the product of
//! `A` with the positions reached in each local trace, for an accepting state.
//!
//! Every step consumes one action, so the search goes layer by layer (layer `k`: position
//! vectors with `k` consumed actions), each vector carrying the set of `A`'s states reachable
//! there as a bitset; only two layers are in memory, and an empty layer ends the search early.
//!
//! Partial observation (prefix mode): a location whose trace is fully consumed may still take
//! its own transitions silently (they happened after its observation stopped), and the end
//! condition becomes "a state that can still reach an accepting state". A vector then carries
//! two sets: `strict` (no silent move: decides Pass) and `loose` (with silent moves: decides
//! WeakPass).

use crate::check::explore::Budget;
use crate::model::Automata;
use crate::nfa::{Alphabet, LetterId, Nfa, StateId};
use crate::project::bits;
use crate::verdict::{Furthest, Mode, Reason, Sym, Verdict, VerdictKind};
use rustc_hash::FxHashMap;
use std::time::Instant;

/// Per-model tables for AC, computed once and shared by all threads.
#[derive(Clone, Debug)]
pub struct AcTables {
    words: usize,
    /// States that can reach an accepting state.
    live: Vec<u64>,
    /// Accepting states.
    accepting: Vec<u64>,
    /// Initial states.
    initial: Vec<u64>,
}

impl AcTables {
    /// Computes the tables of an automaton.
    pub fn new(nfa: &Nfa) -> Self {
        let n = nfa.states();
        let words = n.div_ceil(64).max(1);
        let mut accepting = vec![0u64; words];
        let mut initial = vec![0u64; words];
        for s in 0..n {
            if nfa.is_accepting(StateId(s as u32)) {
                bits::set(&mut accepting, s);
            }
        }
        for s in nfa.initial() {
            bits::set(&mut initial, s.index());
        }
        // Backward reachability from the accepting states.
        let mut preds: Vec<Vec<u32>> = vec![Vec::new(); n];
        for t in nfa.transitions() {
            preds[t.to.index()].push(t.from.0);
        }
        let mut live = accepting.clone();
        let mut stack: Vec<usize> = bits::iter(&accepting).collect();
        while let Some(s) = stack.pop() {
            for &p in &preds[s] {
                if !bits::get(&live, p as usize) {
                    bits::set(&mut live, p as usize);
                    stack.push(p as usize);
                }
            }
        }
        AcTables {
            words,
            live,
            accepting,
            initial,
        }
    }

    /// Words per state set.
    pub fn words(&self) -> usize {
        self.words
    }

    /// States that can reach an accepting state.
    pub fn live(&self) -> &[u64] {
        &self.live
    }
}

/// The result of AC with its explanation.
pub struct AcOutcome {
    /// The verdict.
    pub verdict: Verdict,
    /// Product states (position vectors) built.
    pub vertices: u64,
}

/// `S := δ(S, a)` restricted to the transitions of `mask`.
fn step(nfa: &Nfa, from: &[u64], a: LetterId, mask: Option<&[u64]>, out: &mut [u64]) {
    out.fill(0);
    for s in bits::iter(from) {
        for i in nfa.out_range(StateId(s as u32)) {
            let t = nfa.transitions()[i];
            if t.letter == a && mask.is_none_or(|m| bits::get(m, i)) {
                bits::set(out, t.to.index());
            }
        }
    }
}

/// Closes `set` under transitions whose letter belongs to a location in `silent` (bit mask of
/// locations), restricted to `mask`.
fn close(nfa: &Nfa, alphabet: &Alphabet, set: &mut [u64], silent: &[bool], mask: Option<&[u64]>) {
    if !silent.iter().any(|&s| s) {
        return;
    }
    let mut stack: Vec<usize> = bits::iter(set).collect();
    while let Some(s) = stack.pop() {
        for i in nfa.out_range(StateId(s as u32)) {
            let t = nfa.transitions()[i];
            if silent[alphabet.location(t.letter).index()]
                && mask.is_none_or(|m| bits::get(m, i))
                && !bits::get(set, t.to.index())
            {
                bits::set(set, t.to.index());
                stack.push(t.to.index());
            }
        }
    }
}

/// Runs AC on `traces` (one local trace per location), optionally restricted to the
/// transitions of `mask` (AS runs it on `Inter`), with initial states `start` (default: the
/// NFA's).
pub fn check_ac(
    automata: &Automata,
    tables: &AcTables,
    alphabet: &Alphabet,
    traces: &[Vec<LetterId>],
    mask: Option<&[u64]>,
    mode: Mode,
    budget: &Budget,
) -> AcOutcome {
    let nfa = &automata.nfa;
    let w = tables.words;
    let n = traces.len();
    let prefix = mode == Mode::Prefix;
    let started = Instant::now();
    let total: usize = traces.iter().map(Vec::len).sum();
    // A layer: position vectors -> index into a flat arena of state sets (strict, loose).
    let mut layer: FxHashMap<Box<[u32]>, usize> = FxHashMap::default();
    let mut sets: Vec<u64> = Vec::new();
    let mut next_layer: FxHashMap<Box<[u32]>, usize> = FxHashMap::default();
    let mut next_sets: Vec<u64> = Vec::new();
    let mut scratch = vec![0u64; w];
    let mut vertices: u64 = 1;

    let zero: Box<[u32]> = vec![0u32; n].into_boxed_slice();
    let mut strict0 = tables.initial.clone();
    let mut loose0 = tables.initial.clone();
    if prefix {
        let silent: Vec<bool> = traces.iter().map(Vec::is_empty).collect();
        close(nfa, alphabet, &mut loose0, &silent, mask);
    }
    sets.extend_from_slice(&strict0);
    sets.extend_from_slice(&loose0);
    strict0.clear();
    layer.insert(zero, 0);

    let fail = |layer: &FxHashMap<Box<[u32]>, usize>, sets: &[u64], vertices| {
        // Explain with one vector of the last non-empty layer.
        let (pos, &at) = layer
            .iter()
            .min_by_key(|(p, _)| p.to_vec())
            .expect("non-empty layer");
        // Both parts (strict and loose) of the vector's state set.
        let mut set = sets[at * 2 * w..at * 2 * w + w].to_vec();
        bits::union_with(&mut set, &sets[at * 2 * w + w..at * 2 * w + 2 * w]);
        let mut letters: Vec<LetterId> = Vec::new();
        for s in bits::iter(&set) {
            for (_, t) in nfa.out(StateId(s as u32)) {
                letters.push(t.letter);
            }
        }
        letters.sort();
        letters.dedup();
        let mut v = Verdict::new(VerdictKind::Fail);
        v.reason = Some(Reason::CentralError);
        v.furthest = Some(Furthest {
            consumed: pos.iter().map(|&p| p as usize).collect(),
            expected: letters.into_iter().map(Sym::Letter).collect(),
        });
        v.vertices = vertices;
        AcOutcome {
            verdict: v,
            vertices,
        }
    };

    for _k in 0..total {
        next_layer.clear();
        next_sets.clear();
        for (pos, &at) in &layer {
            for j in 0..n {
                let p = pos[j] as usize;
                if p == traces[j].len() {
                    continue;
                }
                let a = traces[j][p];
                let base = at * 2 * w;
                let mut npos = pos.clone();
                npos[j] += 1;
                // strict part
                step(nfa, &sets[base..base + w], a, mask, &mut scratch);
                let strict_new = scratch.clone();
                let mut loose_new = vec![0u64; w];
                if prefix {
                    step(nfa, &sets[base + w..base + 2 * w], a, mask, &mut loose_new);
                    let silent: Vec<bool> = (0..n)
                        .map(|k| npos[k] as usize == traces[k].len())
                        .collect();
                    close(nfa, alphabet, &mut loose_new, &silent, mask);
                }
                if bits::is_empty(&strict_new) && bits::is_empty(&loose_new) {
                    continue;
                }
                let slot = match next_layer.get(&npos) {
                    Some(&i) => i,
                    None => {
                        let i = next_sets.len() / (2 * w);
                        next_sets.resize(next_sets.len() + 2 * w, 0);
                        next_layer.insert(npos, i);
                        vertices += 1;
                        i
                    }
                };
                let b = slot * 2 * w;
                bits::union_with(&mut next_sets[b..b + w], &strict_new);
                bits::union_with(&mut next_sets[b + w..b + 2 * w], &loose_new);
            }
        }
        if next_layer.is_empty() {
            return fail(&layer, &sets, vertices);
        }
        if budget.max_vertices.is_some_and(|m| vertices > m)
            || budget.timeout.is_some_and(|t| started.elapsed() > t)
        {
            let mut v = Verdict::new(VerdictKind::Inconclusive);
            v.reason = Some(Reason::Budget {
                limit: if budget.max_vertices.is_some_and(|m| vertices > m) {
                    "vertices".into()
                } else {
                    "time".into()
                },
                established: None,
            });
            v.vertices = vertices;
            return AcOutcome {
                verdict: v,
                vertices,
            };
        }
        std::mem::swap(&mut layer, &mut next_layer);
        std::mem::swap(&mut sets, &mut next_sets);
    }
    // One vector left: everything consumed.
    let at = *layer.values().next().expect("final layer");
    let strict = &sets[at * 2 * w..at * 2 * w + w];
    let loose = &sets[at * 2 * w + w..at * 2 * w + 2 * w];
    let hits = |s: &[u64], t: &[u64]| s.iter().zip(t).any(|(a, b)| a & b != 0);
    let kind = if hits(strict, &tables.accepting) {
        VerdictKind::Pass
    } else if prefix && hits(loose, &tables.live) {
        VerdictKind::WeakPass
    } else {
        VerdictKind::Fail
    };
    if kind == VerdictKind::Fail {
        return fail(&layer, &sets, vertices);
    }
    let mut v = Verdict::new(kind);
    v.vertices = vertices;
    AcOutcome {
        verdict: v,
        vertices,
    }
}
