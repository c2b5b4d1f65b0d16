//! AC, the centralized procedure (seed 004 Algorithm 1): search `Central(A, μ)`, the product of
//! `A` with the positions reached in each local trace, for an accepting state.
//!
//! The product is searched depth first over position vectors (packed in one `u64`, mixed
//! radix), each carrying a bitset of `A`'s states; a vector reached again only propagates the
//! states new to it, so each (vector, state) pair is expanded at most once (the layered
//! breadth-first order of the paper builds every layer completely, which costs milliseconds
//! per accepted multitrace of 250 actions on the automatark models; depth first stops at the
//! first accepting path).
//!
//! Partial observation (prefix mode): a location whose trace is fully consumed may still take
//! its own transitions silently (they happened after its observation stopped), and the end
//! condition becomes "a state that can still reach an accepting state". A search with silent
//! moves decides multi-prefix membership; a search without them then tells Pass from WeakPass.

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
    /// `succ[(a * states + s) * words..]`: the successors of `s` on `a` as a bitset, when the
    /// table is small (at most [`SUCC_TABLE_MAX_WORDS`]); an unrestricted step is then an OR of
    /// rows instead of a walk over transitions.
    succ: Option<Vec<u64>>,
}

/// Largest successor table built (words).
const SUCC_TABLE_MAX_WORDS: usize = 1 << 22;

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
        let succ = (n * letters * words <= SUCC_TABLE_MAX_WORDS).then(|| {
            let mut succ = vec![0u64; n * letters * words];
            for t in nfa.transitions() {
                let row = (t.letter.index() * n + t.from.index()) * words;
                bits::set(&mut succ[row..row + words], t.to.index());
            }
            succ
        });
        AcTables {
            words,
            letters,
            live,
            accepting,
            initial,
            ranges,
            succ,
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
        if let (None, Some(succ)) = (mask, &self.succ) {
            let w = self.words;
            let base = a.index() * nfa.states();
            for s in bits::iter(from) {
                let row = (base + s) * w;
                bits::union_with(out, &succ[row..row + w]);
            }
            return;
        }
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

/// Position vectors as one `u64`: location `j`'s position in a bit field of its own
/// (`pos_j << shift_j`), wide enough for its trace length, so that moving on is an addition
/// and reading a position a shift and a mask (no division in the hot loop).
struct Radix {
    strides: Vec<u64>,
    shifts: Vec<u32>,
    masks: Vec<u64>,
    lens: Vec<u64>,
}

impl Radix {
    /// `None` when the fields do not fit in 64 bits.
    fn new(traces: &[Vec<LetterId>]) -> Option<Self> {
        let mut shift = 0u32;
        let (mut strides, mut shifts, mut masks) = (Vec::new(), Vec::new(), Vec::new());
        for t in traces {
            let width = 64 - (t.len() as u64).leading_zeros();
            if shift + width > 64 {
                return None;
            }
            strides.push(if width == 0 { 0 } else { 1u64 << shift });
            shifts.push(shift);
            masks.push(if width == 0 { 0 } else { (1u64 << width) - 1 });
            shift += width;
        }
        Some(Radix {
            strides,
            shifts,
            masks,
            lens: traces.iter().map(|t| t.len() as u64).collect(),
        })
    }
    #[inline]
    fn pos(&self, key: u64, j: usize) -> u64 {
        (key >> self.shifts[j]) & self.masks[j]
    }
    fn unpack(&self, key: u64) -> Vec<usize> {
        (0..self.strides.len())
            .map(|j| self.pos(key, j) as usize)
            .collect()
    }
}

/// Every position vector reached, with the set of `A`'s states reached there.
#[derive(Default)]
struct Reached {
    index: FxHashMap<u64, u32>,
    keys: Vec<u64>,
    sets: Vec<u64>,
}

impl Reached {
    fn clear(&mut self) {
        self.index.clear();
        self.keys.clear();
        self.sets.clear();
    }
    /// The slot of `key`, created empty if new.
    fn slot(&mut self, key: u64, w: usize) -> usize {
        match self.index.get(&key) {
            Some(&i) => i as usize,
            None => {
                let i = self.keys.len();
                self.index.insert(key, i as u32);
                self.keys.push(key);
                self.sets.resize(self.sets.len() + w, 0);
                i
            }
        }
    }
    fn set(&self, slot: usize, w: usize) -> &[u64] {
        &self.sets[slot * w..(slot + 1) * w]
    }
}

/// Reusable buffers of AC (one per thread): a batch allocates them once.
#[derive(Default)]
pub struct AcScratch {
    reached: Reached,
    keys: Vec<(u64, u32)>,
    sets: Vec<u64>,
    fresh: Vec<u64>,
    step: Vec<u64>,
    silent: Vec<bool>,
}

/// How one search ended.
enum Search {
    /// Reached the end in a goal state.
    Found,
    NotFound,
    Exhausted(&'static str),
}

/// Runs AC on `traces` (one local trace per location), optionally restricted to the
/// transitions of `mask` (AS runs it on `Inter`); with `witness`, a Pass comes with one accepted
/// interleaving.
///
/// The search is depth first over position vectors, each carrying the states reached there;
/// a vector seen again only propagates the states that are new to it, so each (vector, state)
/// pair is expanded at most once and an accepted multitrace is usually found after a few
/// hundred steps. Prefix mode searches with silent moves first (a failure there is a Fail),
/// then, if needed, without them to tell Pass from WeakPass.
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
    let mut scratch = AcScratch::default();
    check_ac_in(
        &mut scratch,
        automata,
        tables,
        alphabet,
        traces,
        mask,
        mode,
        budget,
        witness,
    )
}

/// [`check_ac`] with reusable buffers.
#[allow(clippy::too_many_arguments)]
pub fn check_ac_in(
    scratch: &mut AcScratch,
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
    let mut run = Run {
        automata,
        tables,
        alphabet,
        traces,
        mask,
        radix: &radix,
        budget,
        started: Instant::now(),
        vertices: 0,
        best: (0, 0),
        s: scratch,
    };
    let prefix = mode == Mode::Prefix;
    let first = run.search(prefix);
    let kind = match first {
        Search::Exhausted(limit) => return inconclusive(limit, run.vertices),
        Search::NotFound => return run.fail(),
        Search::Found if !prefix => VerdictKind::Pass,
        Search::Found => {
            // A multi-prefix: is it also accepted?
            let best = run.best;
            let vertices = run.vertices;
            match run.search(false) {
                Search::Found => VerdictKind::Pass,
                Search::NotFound => {
                    run.best = best;
                    run.vertices += vertices;
                    VerdictKind::WeakPass
                }
                Search::Exhausted(limit) => {
                    let mut out = inconclusive(limit, run.vertices);
                    if let Some(Reason::Budget { established, .. }) = &mut out.verdict.reason {
                        *established = Some("accepted as a multi-prefix".into());
                    }
                    return out;
                }
            }
        }
    };
    let mut v = Verdict::new(kind);
    v.vertices = run.vertices;
    if witness && kind == VerdictKind::Pass {
        v.witness = Some(
            run.rebuild()
                .into_iter()
                .map(|(j, a)| (j, Sym::Letter(a)))
                .collect(),
        );
    }
    AcOutcome {
        verdict: v,
        vertices: run.vertices,
    }
}

struct Run<'a, 's> {
    automata: &'a Automata,
    tables: &'a AcTables,
    alphabet: &'a Alphabet,
    traces: &'a [Vec<LetterId>],
    mask: Option<&'a [u64]>,
    radix: &'a Radix,
    budget: &'a Budget,
    started: Instant,
    vertices: u64,
    /// Furthest vector reached: (actions consumed, key).
    best: (usize, u64),
    s: &'s mut AcScratch,
}

impl Run<'_, '_> {
    /// Depth-first propagation of state sets; `silent` enables the silent moves of consumed
    /// locations (prefix mode).
    fn search(&mut self, silent_moves: bool) -> Search {
        let nfa = &self.automata.nfa;
        let w = self.tables.words;
        let n = self.traces.len();
        let radix = self.radix;
        let end: u64 = (0..n).map(|j| radix.lens[j] * radix.strides[j]).sum();
        let s = &mut *self.s;
        s.reached.clear();
        s.keys.clear();
        s.sets.clear();
        s.fresh.clear();
        s.fresh.resize(w, 0);
        s.step.clear();
        s.step.resize(w, 0);
        s.silent.clear();
        s.silent.resize(n, false);
        // Stack of (key, actions consumed) with the states to propagate, flat.
        s.keys.push((0, 0));
        s.sets.extend_from_slice(&self.tables.initial);
        while let Some((key, consumed)) = s.keys.pop() {
            let at = s.sets.len() - w;
            s.fresh.copy_from_slice(&s.sets[at..]);
            s.sets.truncate(at);
            if silent_moves {
                let mut any = false;
                for (k, x) in s.silent.iter_mut().enumerate() {
                    *x = radix.pos(key, k) == radix.lens[k];
                    any |= *x;
                }
                if any {
                    close(nfa, self.alphabet, &mut s.fresh, &s.silent, self.mask);
                }
            }
            // Keep only the states new at this vector.
            let slot = s.reached.slot(key, w);
            let known = &mut s.reached.sets[slot * w..(slot + 1) * w];
            let mut any = false;
            for (f, k) in s.fresh.iter_mut().zip(known.iter_mut()) {
                *f &= !*k;
                *k |= *f;
                any |= *f != 0;
            }
            if !any {
                continue;
            }
            self.vertices += 1;
            if self.budget.max_vertices.is_some_and(|m| self.vertices > m) {
                return Search::Exhausted("vertices");
            }
            if self.vertices.is_multiple_of(1024)
                && self
                    .budget
                    .timeout
                    .is_some_and(|t| self.started.elapsed() > t)
            {
                return Search::Exhausted("time");
            }
            if consumed as usize > self.best.0 || self.vertices == 1 {
                self.best = (consumed as usize, key);
            }
            if key == end {
                let goal = if silent_moves {
                    &self.tables.live
                } else {
                    &self.tables.accepting
                };
                if s.fresh.iter().zip(goal).any(|(a, b)| a & b != 0) {
                    return Search::Found;
                }
                continue;
            }
            // Successors, the last location first so that location 0 is explored first.
            for j in (0..n).rev() {
                let p = radix.pos(key, j) as usize;
                if p == self.traces[j].len() {
                    continue;
                }
                s.step.fill(0);
                self.tables
                    .step(nfa, &s.fresh, self.traces[j][p], self.mask, &mut s.step);
                if bits::is_empty(&s.step) {
                    continue;
                }
                s.keys.push((key + radix.strides[j], consumed + 1));
                s.sets.extend_from_slice(&s.step);
            }
        }
        Search::NotFound
    }

    /// Walks back from an accepting state at the end (complete-mode sets).
    fn rebuild(&self) -> Vec<(usize, LetterId)> {
        let nfa = &self.automata.nfa;
        let w = self.tables.words;
        let radix = self.radix;
        let n = self.traces.len();
        let end: u64 = (0..n).map(|j| radix.lens[j] * radix.strides[j]).sum();
        let mut key = end;
        let slot = self.s.reached.index[&key] as usize;
        let mut state = bits::iter(self.s.reached.set(slot, w))
            .find(|&s| bits::get(&self.tables.accepting, s))
            .expect("an accepting state at the end");
        let mut out = Vec::new();
        while key != 0 || !bits::get(&self.tables.initial, state) {
            let mut found = None;
            'search: for j in 0..n {
                let p = radix.pos(key, j) as usize;
                if p == 0 {
                    continue;
                }
                let pkey = key - radix.strides[j];
                let Some(&pslot) = self.s.reached.index.get(&pkey) else {
                    continue;
                };
                let a = self.traces[j][p - 1];
                for s in bits::iter(self.s.reached.set(pslot as usize, w)) {
                    let (lo, hi) = self.tables.ranges[s * self.tables.letters + a.index()];
                    for i in lo as usize..hi as usize {
                        if nfa.transitions()[i].to.index() == state
                            && self.mask.is_none_or(|m| bits::get(m, i))
                        {
                            found = Some((j, a, pkey, s));
                            break 'search;
                        }
                    }
                }
            }
            let Some((j, a, pkey, s)) = found else { break };
            out.push((j, a));
            key = pkey;
            state = s;
        }
        out.reverse();
        out
    }

    /// A CentralError explained by the furthest vector reached: how far each trace was consumed
    /// and the letters the automaton could read there.
    fn fail(&self) -> AcOutcome {
        let nfa = &self.automata.nfa;
        let w = self.tables.words;
        let key = self.best.1;
        let letters: Vec<LetterId> = match self.s.reached.index.get(&key) {
            Some(&slot) => {
                let mut v: Vec<LetterId> = bits::iter(self.s.reached.set(slot as usize, w))
                    .flat_map(|s| nfa.out(StateId(s as u32)).map(|(_, t)| t.letter))
                    .collect();
                v.sort();
                v.dedup();
                v
            }
            None => Vec::new(),
        };
        let mut v = Verdict::new(VerdictKind::Fail);
        v.reason = Some(Reason::CentralError);
        v.furthest = Some(Furthest {
            consumed: self.radix.unpack(key),
            expected: letters.into_iter().map(Sym::Letter).collect(),
        });
        v.vertices = self.vertices;
        AcOutcome {
            verdict: v,
            vertices: self.vertices,
        }
    }
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
