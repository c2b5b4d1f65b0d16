//! AC, the centralized procedure (seed 004 Algorithm 1): search `Central(A, μ)`, the product of
//! `A` with the positions reached in each local trace, for an accepting state.
//!
//! Every step consumes one action, so the search goes layer by layer (layer `k`: position
//! vectors with `k` consumed actions), each vector carrying the set of `A`'s states reachable
//! there as a bitset; only two layers are in memory (all of them when a witness is asked
//! for), and an empty layer ends the search early.
//!
//! Partial observation (prefix mode): a location whose trace is fully consumed may still take
//! its own transitions silently (they happened after its observation stopped), and the end
//! condition becomes "a state that can still reach an accepting state". A vector then carries
//! two sets: `strict` (no silent move: decides Pass) and `loose` (with silent moves: decides
//! WeakPass).

// Index loops over locations keep positions, traces and strides visibly in step.
#![allow(clippy::needless_range_loop)]

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
    letters: usize,
    /// States that can reach an accepting state.
    live: Vec<u64>,
    /// Accepting states.
    accepting: Vec<u64>,
    /// Initial states.
    initial: Vec<u64>,
    /// `ranges[s * letters + a]`: the transitions of `s` on `a` (contiguous: transitions are
    /// sorted by source and letter).
    ranges: Vec<(u32, u32)>,
}

impl AcTables {
    /// Computes the tables of an automaton over `letters` letters.
    pub fn new(nfa: &Nfa, letters: usize) -> Self {
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
        let mut ranges = vec![(0u32, 0u32); n * letters];
        for (i, t) in nfa.transitions().iter().enumerate() {
            let r = &mut ranges[t.from.index() * letters + t.letter.index()];
            if r.0 == r.1 {
                *r = (i as u32, i as u32 + 1);
            } else {
                r.1 = i as u32 + 1;
            }
        }
        AcTables {
            words,
            letters,
            live,
            accepting,
            initial,
            ranges,
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

    /// `out |= δ(from, a)` restricted to the transitions of `mask`.
    #[inline]
    fn step(&self, nfa: &Nfa, from: &[u64], a: LetterId, mask: Option<&[u64]>, out: &mut [u64]) {
        let tr = nfa.transitions();
        for s in bits::iter(from) {
            let (lo, hi) = self.ranges[s * self.letters + a.index()];
            for i in lo as usize..hi as usize {
                if mask.is_none_or(|m| bits::get(m, i)) {
                    bits::set(out, tr[i].to.index());
                }
            }
        }
    }
}

/// The result of AC with its explanation.
pub struct AcOutcome {
    /// The verdict.
    pub verdict: Verdict,
    /// Product states (position vectors) built.
    pub vertices: u64,
}

/// Closes `set` under transitions whose letter belongs to a location in `silent`, restricted
/// to `mask`.
fn close(nfa: &Nfa, alphabet: &Alphabet, set: &mut [u64], silent: &[bool], mask: Option<&[u64]>) {
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

/// Position vectors as one `u64` in mixed radix (`pos[j]` weighs `Π_{i<j} (len_i + 1)`).
struct Radix {
    strides: Vec<u64>,
    lens: Vec<u64>,
}

impl Radix {
    /// `None` when the vectors do not fit in 64 bits.
    fn new(traces: &[Vec<LetterId>]) -> Option<Self> {
        let mut strides = Vec::with_capacity(traces.len());
        let mut acc: u64 = 1;
        for t in traces {
            strides.push(acc);
            acc = acc.checked_mul(t.len() as u64 + 1)?;
        }
        Some(Radix {
            strides,
            lens: traces.iter().map(|t| t.len() as u64).collect(),
        })
    }
    #[inline]
    fn pos(&self, key: u64, j: usize) -> u64 {
        (key / self.strides[j]) % (self.lens[j] + 1)
    }
    fn unpack(&self, key: u64) -> Vec<usize> {
        (0..self.strides.len())
            .map(|j| self.pos(key, j) as usize)
            .collect()
    }
}

/// One layer: position vectors (keys) and their state sets (strict, then loose), flat.
#[derive(Default, Clone)]
struct Layer {
    index: FxHashMap<u64, u32>,
    keys: Vec<u64>,
    sets: Vec<u64>,
}

impl Layer {
    fn clear(&mut self) {
        self.index.clear();
        self.keys.clear();
        self.sets.clear();
    }
    fn slot(&mut self, key: u64, w: usize) -> usize {
        match self.index.get(&key) {
            Some(&i) => i as usize,
            None => {
                let i = self.keys.len();
                self.index.insert(key, i as u32);
                self.keys.push(key);
                self.sets.resize(self.sets.len() + 2 * w, 0);
                i
            }
        }
    }
}

/// Runs AC on `traces` (one local trace per location), optionally restricted to the
/// transitions of `mask` (AS runs it on `Inter`); `witness` keeps every layer to rebuild an
/// accepted interleaving.
#[allow(clippy::too_many_arguments)]
pub fn check_ac(
    automata: &Automata,
    tables: &AcTables,
    alphabet: &Alphabet,
    traces: &[Vec<LetterId>],
    mask: Option<&[u64]>,
    mode: Mode,
    budget: &Budget,
    witness: bool,
) -> AcOutcome {
    let Some(radix) = Radix::new(traces) else {
        return inconclusive("size", 0);
    };
    let nfa = &automata.nfa;
    let w = tables.words;
    let n = traces.len();
    let prefix = mode == Mode::Prefix;
    let started = Instant::now();
    let total: usize = traces.iter().map(Vec::len).sum();
    let mut history: Vec<Layer> = Vec::new();
    let mut layer = Layer::default();
    let mut next = Layer::default();
    let mut vertices: u64 = 1;
    let mut silent = vec![false; n];
    let mut loose = vec![0u64; w];

    layer.slot(0, w);
    layer.sets[..w].copy_from_slice(&tables.initial);
    layer.sets[w..2 * w].copy_from_slice(&tables.initial);
    if prefix {
        for (j, t) in traces.iter().enumerate() {
            silent[j] = t.is_empty();
        }
        if silent.iter().any(|&s| s) {
            close(nfa, alphabet, &mut layer.sets[w..2 * w], &silent, mask);
        }
    }

    for _ in 0..total {
        next.clear();
        for (slot, &key) in layer.keys.iter().enumerate() {
            let base = slot * 2 * w;
            for j in 0..n {
                let p = radix.pos(key, j) as usize;
                if p == traces[j].len() {
                    continue;
                }
                let a = traces[j][p];
                let nkey = key + radix.strides[j];
                let (strict_src, loose_src) = (
                    &layer.sets[base..base + w],
                    &layer.sets[base + w..base + 2 * w],
                );
                let strict_empty = bits::is_empty(strict_src);
                loose.fill(0);
                if prefix {
                    tables.step(nfa, loose_src, a, mask, &mut loose);
                    if !bits::is_empty(&loose) {
                        // Locations whose trace is consumed move silently.
                        for (k, s) in silent.iter_mut().enumerate() {
                            *s = radix.pos(nkey, k) == radix.lens[k];
                        }
                        if silent.iter().any(|&s| s) {
                            close(nfa, alphabet, &mut loose, &silent, mask);
                        }
                    }
                }
                // Write into the next layer only what is reachable.
                if !strict_empty {
                    let mut tmp = [0u64; 8];
                    let mut heap;
                    let buf: &mut [u64] = if w <= 8 {
                        &mut tmp[..w]
                    } else {
                        heap = vec![0u64; w];
                        &mut heap
                    };
                    tables.step(nfa, strict_src, a, mask, buf);
                    if !bits::is_empty(buf) {
                        let s = next.slot(nkey, w);
                        bits::union_with(&mut next.sets[s * 2 * w..s * 2 * w + w], buf);
                    }
                }
                if prefix && !bits::is_empty(&loose) {
                    let s = next.slot(nkey, w);
                    bits::union_with(&mut next.sets[s * 2 * w + w..s * 2 * w + 2 * w], &loose);
                }
            }
        }
        vertices += next.keys.len() as u64;
        if next.keys.is_empty() {
            return fail(nfa, &radix, &layer, w, vertices);
        }
        if budget.max_vertices.is_some_and(|m| vertices > m) {
            return inconclusive("vertices", vertices);
        }
        if budget.timeout.is_some_and(|t| started.elapsed() > t) {
            return inconclusive("time", vertices);
        }
        if witness {
            history.push(layer.clone());
        }
        std::mem::swap(&mut layer, &mut next);
    }
    // One vector left: everything consumed.
    let strict = &layer.sets[..w];
    let loose_end = &layer.sets[w..2 * w];
    let hits = |s: &[u64], t: &[u64]| s.iter().zip(t).any(|(a, b)| a & b != 0);
    let kind = if hits(strict, &tables.accepting) {
        VerdictKind::Pass
    } else if prefix && hits(loose_end, &tables.live) {
        VerdictKind::WeakPass
    } else {
        return fail(nfa, &radix, &layer, w, vertices);
    };
    let mut v = Verdict::new(kind);
    v.vertices = vertices;
    if witness && kind == VerdictKind::Pass {
        history.push(layer.clone());
        let path = rebuild(tables, nfa, &radix, traces, &history, mask, w);
        v.witness = Some(path.into_iter().map(|(j, a)| (j, Sym::Letter(a))).collect());
    }
    AcOutcome {
        verdict: v,
        vertices,
    }
}

/// Walks the layers back from an accepting state of the last one (strict sets: Pass).
fn rebuild(
    tables: &AcTables,
    nfa: &Nfa,
    radix: &Radix,
    traces: &[Vec<LetterId>],
    history: &[Layer],
    mask: Option<&[u64]>,
    w: usize,
) -> Vec<(usize, LetterId)> {
    let last = history.last().expect("final layer");
    let mut key = last.keys[0];
    let mut state = bits::iter(&last.sets[..w])
        .find(|&s| bits::get(&tables.accepting, s))
        .expect("accepting state");
    let mut out = Vec::new();
    for k in (0..history.len() - 1).rev() {
        let prev = &history[k];
        let mut found = None;
        'search: for j in 0..traces.len() {
            let p = radix.pos(key, j) as usize;
            if p == 0 {
                continue;
            }
            let pkey = key - radix.strides[j];
            let Some(&slot) = prev.index.get(&pkey) else {
                continue;
            };
            let a = traces[j][p - 1];
            let set = &prev.sets[slot as usize * 2 * w..slot as usize * 2 * w + w];
            for s in bits::iter(set) {
                let (lo, hi) = tables.ranges[s * tables.letters + a.index()];
                for i in lo as usize..hi as usize {
                    if nfa.transitions()[i].to.index() == state
                        && mask.is_none_or(|m| bits::get(m, i))
                    {
                        found = Some((j, a, pkey, s));
                        break 'search;
                    }
                }
            }
        }
        let (j, a, pkey, s) = found.expect("a predecessor exists for every reached vector");
        out.push((j, a));
        key = pkey;
        state = s;
    }
    out.reverse();
    out
}

fn inconclusive(limit: &str, vertices: u64) -> AcOutcome {
    let mut v = Verdict::new(VerdictKind::Inconclusive);
    v.reason = Some(Reason::Budget {
        limit: limit.into(),
        established: None,
    });
    v.vertices = vertices;
    AcOutcome {
        verdict: v,
        vertices,
    }
}

/// A CentralError explained by one vector of the last non-empty layer: how far each trace was
/// consumed and the letters the automaton could read there.
fn fail(nfa: &Nfa, radix: &Radix, layer: &Layer, w: usize, vertices: u64) -> AcOutcome {
    let (slot, key) = layer
        .keys
        .iter()
        .enumerate()
        .min_by_key(|(_, &k)| radix.unpack(k))
        .map(|(i, &k)| (i, k))
        .expect("non-empty layer");
    let mut set = layer.sets[slot * 2 * w..slot * 2 * w + w].to_vec();
    bits::union_with(
        &mut set,
        &layer.sets[slot * 2 * w + w..slot * 2 * w + 2 * w],
    );
    let mut letters: Vec<LetterId> = bits::iter(&set)
        .flat_map(|s| nfa.out(StateId(s as u32)).map(|(_, t)| t.letter))
        .collect();
    letters.sort();
    letters.dedup();
    let mut v = Verdict::new(VerdictKind::Fail);
    v.reason = Some(Reason::CentralError);
    v.furthest = Some(Furthest {
        consumed: radix.unpack(key),
        expected: letters.into_iter().map(Sym::Letter).collect(),
    });
    v.vertices = vertices;
    AcOutcome {
        verdict: v,
        vertices,
    }
}
