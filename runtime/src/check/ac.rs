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
//! **Viability pruning.** A search that has not succeeded after a few times as many vertices as
//! there are actions is probably going to fail, and a failing search must exhaust every
//! interleaving. It then computes, for each location `j` and position `p`, the states from
//! which the rest of trace `j` can still be read on the way to a goal state, letting every
//! other location's letters pass freely (`Q_j(p)`, backwards over the trace, from per-model
//! tables), and from then on drops every state outside `⋂_j Q_j(v_j)`. This is exact: a state
//! outside some `Q_j(v_j)` has no accepting continuation, whatever the interleaving; only
//! dead work is removed. It is computed on `A` itself even when the search is restricted to a
//! sub-automaton (AS's `Inter`): a path of the sub-automaton is a path of `A`, so the filter is
//! still sound there.
//!
//! Partial observation (prefix mode): a location whose trace is fully consumed may still take
//! its own transitions silently (they happened after its observation stopped), and the end
//! condition becomes "a state that can still reach an accepting state". A search with silent
//! moves decides multi-prefix membership; a search without them then tells Pass from WeakPass.
//!
//! Hot-loop layout: state sets of up to four words are handled by code specialized on the word
//! count (copies and unions of a known size are inlined), position vectors index an
//! open-addressing table cleared through its list of used slots, and restricted steps read
//! a successor table rebuilt per check from the mask's transitions, so a check allocates nothing once its scratch
//! buffers have grown.

// Index loops over locations keep positions, traces and strides visibly in step.
#![allow(clippy::needless_range_loop)]

use crate::bits;
use crate::budget::Budget;
use crate::model::Automata;
use crate::nfa::{Alphabet, LetterId, Nfa, StateId};
use crate::verdict::{Mode, Reason, Sym, Verdict, VerdictKind};
use rustc_hash::FxHashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// Per-model tables for AC, computed once and shared by all threads.
#[derive(Clone, Debug)]
pub struct AcTables {
    /// Unique per construction (clones share it: same content), never 0.
    id: u64,
    states: usize,
    words: usize,
    letters: usize,
    locations: usize,
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
    /// table is small (at most [`TABLE_MAX_WORDS`]); an unrestricted step is then an OR of
    /// rows instead of a walk over transitions.
    succ: Option<Vec<u64>>,
    /// Tables of viability pruning, when small enough.
    viability: Option<Viability>,
}

/// `others[(j * states + s) * words..]`: the states that reach `s` reading only letters of
/// locations other than `j` (`s` included); `back[(a * states + s) * words..]`: the states
/// that reach, reading only letters of other locations than `a`'s, a state with an
/// `a`-transition into `s` (so one backward step of `Q_j` is an OR of rows).
#[derive(Clone, Debug)]
struct Viability {
    back: Vec<u64>,
    others: Vec<u64>,
}

/// Largest per-model table built (words, each table).
const TABLE_MAX_WORDS: usize = 1 << 22;
/// Largest work spent on the `others` table at model load (state x transition visits).
const OTHERS_MAX_WORK: usize = 1 << 28;

impl AcTables {
    /// Computes the tables of an automaton over `alphabet`.
    pub fn new(nfa: &Nfa, alphabet: &Alphabet) -> Self {
        let n = nfa.states();
        let letters = alphabet.len();
        let locations = alphabet.locations();
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
        let letter_location: Vec<u32> = (0..letters)
            .map(|a| alphabet.location(LetterId(a as u32)).0)
            .collect();
        let mut live = vec![0u64; accepting.len()];
        for (s, l) in nfa.co_reachable().into_iter().enumerate() {
            if l {
                bits::set(&mut live, s);
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
        let small = n * letters * words <= TABLE_MAX_WORDS;
        let succ = small.then(|| {
            let mut succ = vec![0u64; n * letters * words];
            for t in nfa.transitions() {
                let row = (t.letter.index() * n + t.from.index()) * words;
                bits::set(&mut succ[row..row + words], t.to.index());
            }
            succ
        });
        let viability = (small
            && locations * n * words <= TABLE_MAX_WORDS
            && locations * n * (n + nfa.transitions().len()) <= OTHERS_MAX_WORK)
            .then(|| {
                // Backward closures by the letters of other locations: a filtered walk of the
                // reversed transitions per (location, state).
                let mut preds: Vec<Vec<(u32, u32)>> = vec![Vec::new(); n];
                for t in nfa.transitions() {
                    preds[t.to.index()].push((t.from.0, t.letter.0));
                }
                let mut stack: Vec<usize> = Vec::new();
                let mut others = vec![0u64; locations * n * words];
                for j in 0..locations {
                    for s in 0..n {
                        let row = &mut others[(j * n + s) * words..(j * n + s + 1) * words];
                        bits::set(row, s);
                        stack.clear();
                        stack.push(s);
                        while let Some(x) = stack.pop() {
                            for &(p, a) in &preds[x] {
                                if letter_location[a as usize] as usize != j
                                    && !bits::get(row, p as usize)
                                {
                                    bits::set(row, p as usize);
                                    stack.push(p as usize);
                                }
                            }
                        }
                    }
                }
                let mut back = vec![0u64; n * letters * words];
                for t in nfa.transitions() {
                    let j = letter_location[t.letter.index()] as usize;
                    let row = (t.letter.index() * n + t.to.index()) * words;
                    let from = (j * n + t.from.index()) * words;
                    for k in 0..words {
                        back[row + k] |= others[from + k];
                    }
                }
                Viability { back, others }
            });
        static NEXT_ID: AtomicU64 = AtomicU64::new(1);
        AcTables {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            states: n,
            words,
            letters,
            locations,
            live,
            accepting,
            initial,
            ranges,
            succ,
            viability,
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

/// Closes `set` under transitions whose letter belongs to a location in `silent`, restricted
/// to `mask`.
fn close(
    nfa: &Nfa,
    alphabet: &Alphabet,
    set: &mut [u64],
    silent: &[bool],
    mask: Option<&[u64]>,
    stack: &mut Vec<usize>,
) {
    stack.clear();
    stack.extend(bits::iter(set));
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
/// and reading a position a shift and a mask (no division in the hot loop). The fields use at
/// most 63 bits, so `u64::MAX` is never a vector (it marks empty slots of [`Reached`]).
#[derive(Default)]
struct Radix {
    strides: Vec<u64>,
    shifts: Vec<u32>,
    masks: Vec<u64>,
    lens: Vec<u64>,
}

impl Radix {
    /// Lays out the fields for `traces` (reusing the buffers); `false` when they do not fit in
    /// 63 bits.
    fn fill(&mut self, traces: &[Vec<LetterId>]) -> bool {
        self.strides.clear();
        self.shifts.clear();
        self.masks.clear();
        self.lens.clear();
        let mut shift = 0u32;
        for t in traces {
            let width = 64 - (t.len() as u64).leading_zeros();
            if shift + width > 63 {
                return false;
            }
            self.strides
                .push(if width == 0 { 0 } else { 1u64 << shift });
            self.shifts.push(shift);
            self.masks
                .push(if width == 0 { 0 } else { (1u64 << width) - 1 });
            self.lens.push(t.len() as u64);
            shift += width;
        }
        true
    }
    #[inline]
    fn pos(&self, key: u64, j: usize) -> u64 {
        (key >> self.shifts[j]) & self.masks[j]
    }
}

/// Marks an empty slot of [`Reached`] (never a position vector, see [`Radix`]).
const EMPTY: u64 = u64::MAX;

/// Every position vector reached, with the set of `A`'s states expanded there: an
/// open-addressing table (linear probing, multiplicative hashing, at most half full) whose
/// used slots are listed, so that clearing it costs what the last search used.
#[derive(Default)]
struct Reached {
    keys: Vec<u64>,
    /// `w` words per slot.
    sets: Vec<u64>,
    used: Vec<usize>,
    shift: u32,
    w: usize,
}

impl Reached {
    const FIRST_BITS: u32 = 10;

    fn reset(&mut self, w: usize) {
        if self.w != w || self.keys.is_empty() {
            let cap = 1usize << Self::FIRST_BITS;
            self.keys = vec![EMPTY; cap];
            self.sets = vec![0; cap * w];
            self.used.clear();
            self.shift = 64 - Self::FIRST_BITS;
            self.w = w;
            return;
        }
        for &i in &self.used {
            self.keys[i] = EMPTY;
            self.sets[i * w..(i + 1) * w].fill(0);
        }
        self.used.clear();
    }

    #[inline]
    fn home(&self, key: u64) -> usize {
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    fn find(&self, key: u64) -> Option<usize> {
        let mask = self.keys.len() - 1;
        let mut i = self.home(key);
        loop {
            match self.keys[i] {
                k if k == key => return Some(i),
                EMPTY => return None,
                _ => i = (i + 1) & mask,
            }
        }
    }

    /// The slot of `key`, created with an empty set if new.
    #[inline]
    fn slot(&mut self, key: u64, w: usize) -> usize {
        if (self.used.len() + 1) * 2 > self.keys.len() {
            self.grow(w);
        }
        let mask = self.keys.len() - 1;
        let mut i = self.home(key);
        loop {
            match self.keys[i] {
                k if k == key => return i,
                EMPTY => {
                    self.keys[i] = key;
                    self.used.push(i);
                    return i;
                }
                _ => i = (i + 1) & mask,
            }
        }
    }

    #[cold]
    fn grow(&mut self, w: usize) {
        let cap = self.keys.len() * 2;
        let keys = std::mem::replace(&mut self.keys, vec![EMPTY; cap]);
        let sets = std::mem::replace(&mut self.sets, vec![0; cap * w]);
        let used = std::mem::take(&mut self.used);
        self.shift -= 1;
        for old in used {
            let i = self.slot(keys[old], w);
            self.sets[i * w..(i + 1) * w].copy_from_slice(&sets[old * w..(old + 1) * w]);
        }
    }

    fn set(&self, slot: usize, w: usize) -> &[u64] {
        &self.sets[slot * w..(slot + 1) * w]
    }
}

/// The successor table of a restricted automaton (AS's `Inter`), rebuilt for each check from
/// the transitions of the mask (only the rows the previous check wrote are cleared).
#[derive(Default)]
struct MaskedRows {
    rows: Vec<u64>,
    dirty: Vec<usize>,
}

impl MaskedRows {
    /// Fills the rows of the transitions in `mask`.
    fn build(&mut self, tables: &AcTables, nfa: &Nfa, mask: &[u64]) {
        let (n, w) = (tables.states, tables.words);
        let size = n * tables.letters * w;
        if self.rows.len() != size {
            self.rows.clear();
            self.rows.resize(size, 0);
            self.dirty.clear();
        }
        for &r in &self.dirty {
            self.rows[r * w..(r + 1) * w].fill(0);
        }
        self.dirty.clear();
        let tr = nfa.transitions();
        for i in bits::iter(mask).take_while(|&i| i < tr.len()) {
            let t = tr[i];
            let r = t.letter.index() * n + t.from.index();
            let row = &mut self.rows[r * w..(r + 1) * w];
            if row.iter().all(|&x| x == 0) {
                self.dirty.push(r);
            }
            bits::set(row, t.to.index());
        }
    }
}

/// Reusable buffers of AC (one per thread): a batch allocates them once.
#[derive(Default)]
pub struct AcScratch {
    radix: Radix,
    reached: Reached,
    keys: Vec<(u64, u32)>,
    sets: Vec<u64>,
    fresh: Vec<u64>,
    silent: Vec<bool>,
    stack: Vec<usize>,
    masked: MaskedRows,
    /// `Q_j(p)` of viability pruning, `w` words each, location `j` from `q_at[j]`.
    q: Vec<u64>,
    q_at: Vec<usize>,
    memo: StepMemo,
    /// Vertices after which pruning starts (tests force it); default `2 × actions + 64`.
    prune_after: Option<u64>,
}

impl AcScratch {
    /// Starts viability pruning after `vertices` expanded vertices of a search instead of the
    /// default `2 × actions + 64` (`Some(0)`: from the first vertex; `None`: the default). The
    /// verdicts do not depend on it, only the work; tests use it to exercise both paths.
    pub fn set_prune_after(&mut self, vertices: Option<u64>) {
        self.prune_after = vertices;
    }
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
    let mut radix = std::mem::take(&mut scratch.radix);
    let out = if radix.fill(traces) {
        run_ac(
            scratch, &radix, automata, tables, alphabet, traces, mask, mode, budget, witness,
        )
    } else {
        inconclusive("size", 0)
    };
    scratch.radix = radix;
    out
}

/// Is `traces` a multi-prefix of an accepted multitrace? Prefix mode's first search only
/// (no Pass/WeakPass distinction, no witness): `Ok(answer)`, or `Err(limit)` when the budget
/// ran out; with the vertices spent. The diagnosis asks this of many cuts of one multitrace.
pub fn is_multi_prefix_in(
    scratch: &mut AcScratch,
    automata: &Automata,
    tables: &AcTables,
    alphabet: &Alphabet,
    traces: &[Vec<LetterId>],
    budget: &Budget,
) -> (Result<bool, &'static str>, u64) {
    let mut radix = std::mem::take(&mut scratch.radix);
    let out = if radix.fill(traces) {
        with_run(
            scratch,
            &radix,
            automata,
            tables,
            alphabet,
            traces,
            None,
            budget,
            |run| match run.search(true) {
                Search::Found => (Ok(true), run.vertices),
                Search::NotFound => (Ok(false), run.vertices),
                Search::Exhausted(limit) => (Err(limit), run.vertices),
            },
        )
    } else {
        (Err("size"), 0)
    };
    scratch.radix = radix;
    out
}

/// Sets up one search of `Central(A, μ)` (restricted to `mask`) and hands it to `f`.
#[allow(clippy::too_many_arguments)]
fn with_run<R>(
    scratch: &mut AcScratch,
    radix: &Radix,
    automata: &Automata,
    tables: &AcTables,
    alphabet: &Alphabet,
    traces: &[Vec<LetterId>],
    mask: Option<&[u64]>,
    budget: &Budget,
    f: impl FnOnce(&mut Run<'_, '_>) -> R,
) -> R {
    if let (Some(m), Some(_)) = (mask, &tables.succ) {
        scratch.masked.build(tables, &automata.nfa, m);
    }
    let mut run = Run {
        nfa: &automata.nfa,
        tables,
        alphabet,
        traces,
        mask,
        radix,
        budget,
        started: budget.timeout.map(|_| Instant::now()),
        vertices: 0,
        s: scratch,
    };
    f(&mut run)
}

/// [`check_ac_in`] once the vectors' layout is known.
#[allow(clippy::too_many_arguments)]
fn run_ac(
    scratch: &mut AcScratch,
    radix: &Radix,
    automata: &Automata,
    tables: &AcTables,
    alphabet: &Alphabet,
    traces: &[Vec<LetterId>],
    mask: Option<&[u64]>,
    mode: Mode,
    budget: &Budget,
    witness: bool,
) -> AcOutcome {
    with_run(
        scratch,
        radix,
        automata,
        tables,
        alphabet,
        traces,
        mask,
        budget,
        |run| decide(run, mode, witness),
    )
}

/// Runs the searches of one AC check: prefix mode searches with silent moves first, then
/// without them to tell Pass from WeakPass.
fn decide(run: &mut Run<'_, '_>, mode: Mode, witness: bool) -> AcOutcome {
    let prefix = mode == Mode::Prefix;
    let first = run.search(prefix);
    let kind = match first {
        Search::Exhausted(limit) => return inconclusive(limit, run.vertices),
        Search::NotFound => return run.fail(),
        Search::Found if !prefix => VerdictKind::Pass,
        Search::Found => {
            // A multi-prefix: is it also accepted?
            match run.search(false) {
                Search::Found => VerdictKind::Pass,
                Search::NotFound => {
                    // (`run.vertices` already counts both searches.)
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
    nfa: &'a Nfa,
    tables: &'a AcTables,
    alphabet: &'a Alphabet,
    traces: &'a [Vec<LetterId>],
    mask: Option<&'a [u64]>,
    radix: &'a Radix,
    budget: &'a Budget,
    /// When the search started, if it has a time budget (reading the clock costs).
    started: Option<Instant>,
    vertices: u64,
    s: &'s mut AcScratch,
}

/// Calls `f` on each set bit of the first `w` words of `set`.
#[inline(always)]
fn for_each_bit(set: &[u64], w: usize, mut f: impl FnMut(usize)) {
    for (k, &word) in set[..w].iter().enumerate() {
        let mut b = word;
        while b != 0 {
            f(k * 64 + b.trailing_zeros() as usize);
            b &= b - 1;
        }
    }
}

/// `out |= δ(from, a)` restricted to the transitions of `mask`; `out` and `from` have `w`
/// words.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn step(
    tables: &AcTables,
    nfa: &Nfa,
    masked: &MaskedRows,
    mask: Option<&[u64]>,
    from: &[u64],
    a: LetterId,
    out: &mut [u64],
    w: usize,
) {
    let n = tables.states;
    let table = match (mask, &tables.succ) {
        (None, Some(succ)) => Some(&succ[..]),
        (Some(_), Some(_)) => Some(&masked.rows[..]),
        (_, None) => None,
    };
    match table {
        Some(table) => {
            let base = a.index() * n;
            for_each_bit(from, w, |s| {
                let row = &table[(base + s) * w..(base + s + 1) * w];
                for k in 0..w {
                    out[k] |= row[k];
                }
            });
        }
        None => {
            let tr = nfa.transitions();
            for_each_bit(from, w, |s| {
                let (lo, hi) = tables.ranges[s * tables.letters + a.index()];
                for i in lo as usize..hi as usize {
                    if mask.is_none_or(|m| bits::get(m, i)) {
                        bits::set(out, tr[i].to.index());
                    }
                }
            });
        }
    }
}

/// Backward steps of `Q_j` already computed, for sets of at most four words: `(letter, set)`
/// to the set one position earlier. Traces of one model revisit few distinct sets, so after
/// a few checks a step is one lookup. Keyed by the tables' `id`, so a scratch
/// used with another model starts afresh.
#[derive(Default)]
struct StepMemo {
    model: u64,
    map: FxHashMap<(u32, [u64; 4]), [u64; 4]>,
}

/// Largest `Q` table of viability pruning (words; 128 MiB).
const Q_MAX_WORDS: usize = 1 << 24;

/// Most entries of [`StepMemo`]; beyond, steps are computed without being remembered (small
/// in unit tests, to exercise that path).
const MEMO_MAX: usize = if cfg!(test) { 64 } else { 1 << 16 };

/// Fills `q` with `Q_j(p)` for every location `j` and position `p` (see the module docs):
/// `Q_j(len_j)` = the states that reach `goal` by letters of other locations, and
/// `Q_j(p)` = the states that reach, by letters of other locations, a state with a
/// `trace_j[p]`-transition into `Q_j(p + 1)`.
#[allow(clippy::too_many_arguments)]
fn viability<const W: usize>(
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
fn filter(q: &[u64], q_at: &[usize], radix: &Radix, key: u64, set: &mut [u64], w: usize) {
    for j in 0..q_at.len() {
        let at = q_at[j] + radix.pos(key, j) as usize * w;
        for k in 0..w {
            set[k] &= q[at + k];
        }
    }
}

impl Run<'_, '_> {
    /// Depth-first propagation of state sets, specialized on the words per set.
    fn search(&mut self, silent_moves: bool) -> Search {
        match self.tables.words {
            1 => self.search_w::<1>(silent_moves),
            2 => self.search_w::<2>(silent_moves),
            3 => self.search_w::<3>(silent_moves),
            4 => self.search_w::<4>(silent_moves),
            _ => self.search_w::<0>(silent_moves),
        }
    }

    /// The search with `W` words per set (`0`: read from the tables); `silent_moves` enables
    /// the silent moves of consumed locations (prefix mode).
    fn search_w<const W: usize>(&mut self, silent_moves: bool) -> Search {
        let tables = self.tables;
        let w = if W == 0 { tables.words } else { W };
        let n = self.traces.len();
        let radix = self.radix;
        let end: u64 = (0..n).map(|j| radix.lens[j] * radix.strides[j]).sum();
        let goal = if silent_moves {
            &tables.live
        } else {
            &tables.accepting
        };
        let actions: u64 = radix.lens.iter().sum();
        let s = &mut *self.s;
        let prune_after = s.prune_after.unwrap_or(2 * actions + 64);
        // `Q` holds `(actions + locations) × w` words: bounded, so that a huge trace cannot make
        // pruning allocate without limit (the search then runs unpruned, within its budget).
        let viable = tables
            .viability
            .as_ref()
            .filter(|_| n == tables.locations && (actions as usize + n) * w <= Q_MAX_WORDS);
        let mut pruning = false;
        let mut expanded = 0u64;
        s.reached.reset(w);
        s.keys.clear();
        s.sets.clear();
        s.fresh.clear();
        s.fresh.resize(w, 0);
        s.silent.clear();
        s.silent.resize(n, false);
        // Stack of (key, actions consumed) with the states to propagate, flat.
        s.keys.push((0, 0));
        s.sets.extend_from_slice(&tables.initial[..w]);
        while let Some((key, consumed)) = s.keys.pop() {
            let at = s.sets.len() - w;
            s.fresh[..w].copy_from_slice(&s.sets[at..at + w]);
            s.sets.truncate(at);
            if silent_moves {
                let mut any = false;
                for (k, x) in s.silent.iter_mut().enumerate() {
                    *x = radix.pos(key, k) == radix.lens[k];
                    any |= *x;
                }
                if any {
                    close(
                        self.nfa,
                        self.alphabet,
                        &mut s.fresh,
                        &s.silent,
                        self.mask,
                        &mut s.stack,
                    );
                }
            }
            if pruning {
                filter(&s.q, &s.q_at, radix, key, &mut s.fresh, w);
            }
            // Keep only the states new at this vector.
            let slot = s.reached.slot(key, w);
            let known = &mut s.reached.sets[slot * w..(slot + 1) * w];
            let mut any = 0u64;
            for k in 0..w {
                let f = s.fresh[k] & !known[k];
                known[k] |= f;
                s.fresh[k] = f;
                any |= f;
            }
            if any == 0 {
                continue;
            }
            self.vertices += 1;
            expanded += 1;
            if self.budget.max_vertices.is_some_and(|m| self.vertices > m) {
                return Search::Exhausted("vertices");
            }
            if self.vertices.is_multiple_of(1024)
                && self
                    .budget
                    .timeout
                    .zip(self.started)
                    .is_some_and(|(t, started)| started.elapsed() > t)
            {
                return Search::Exhausted("time");
            }
            if key == end {
                if (0..w).any(|k| s.fresh[k] & goal[k] != 0) {
                    return Search::Found;
                }
                continue;
            }
            if !pruning && expanded > prune_after {
                if let Some(v) = viable {
                    viability::<W>(
                        tables,
                        v,
                        self.traces,
                        goal,
                        w,
                        &mut s.q,
                        &mut s.q_at,
                        &mut s.memo,
                    );
                    pruning = true;
                    filter(&s.q, &s.q_at, radix, key, &mut s.fresh, w);
                }
            }
            // Successors, the last location first so that location 0 is explored first.
            for j in (0..n).rev() {
                let p = radix.pos(key, j) as usize;
                if p == self.traces[j].len() {
                    continue;
                }
                let at = s.sets.len();
                s.sets.resize(at + w, 0);
                let out = &mut s.sets[at..at + w];
                step(
                    tables,
                    self.nfa,
                    &s.masked,
                    self.mask,
                    &s.fresh,
                    self.traces[j][p],
                    out,
                    w,
                );
                let next = key + radix.strides[j];
                if pruning {
                    filter(&s.q, &s.q_at, radix, next, out, w);
                }
                if out.iter().all(|&x| x == 0) {
                    s.sets.truncate(at);
                    continue;
                }
                s.keys.push((next, consumed + 1));
            }
        }
        Search::NotFound
    }

    /// Walks back from an accepting state at the end (complete-mode sets).
    fn rebuild(&self) -> Vec<(usize, LetterId)> {
        let nfa = self.nfa;
        let w = self.tables.words;
        let radix = self.radix;
        let n = self.traces.len();
        let end: u64 = (0..n).map(|j| radix.lens[j] * radix.strides[j]).sum();
        let reached = &self.s.reached;
        let mut key = end;
        let slot = reached.find(key).expect("the end was reached");
        let mut state = bits::iter(reached.set(slot, w))
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
                let Some(pslot) = reached.find(pkey) else {
                    continue;
                };
                let a = self.traces[j][p - 1];
                for s in bits::iter(reached.set(pslot, w)) {
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

    /// A CentralError (explained afterwards by [`super::diagnose`], whatever the procedure).
    fn fail(&self) -> AcOutcome {
        let mut v = Verdict::new(VerdictKind::Fail);
        v.reason = Some(Reason::CentralError);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nfa::{LocationId, Transition};
    use crate::project::AreaTable;

    /// splitmix64: a small deterministic generator for the random cases.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    /// Letters `a0..a5`, two per location, three locations.
    fn alphabet() -> Alphabet {
        Alphabet::new(
            (0..6).map(|i| format!("a{i}")).collect(),
            (0..6).map(|i| LocationId(i / 2)).collect(),
            (0..3).map(|k| format!("l{k}")).collect(),
        )
        .unwrap()
    }

    fn random_nfa(rng: &mut Rng, states: u32, transitions: usize) -> Nfa {
        let tr: Vec<Transition> = (0..transitions)
            .map(|_| Transition {
                from: StateId(rng.below(states as usize) as u32),
                letter: LetterId(rng.below(6) as u32),
                to: StateId(rng.below(states as usize) as u32),
            })
            .collect();
        let accepting = (0..states).map(|_| rng.below(2) == 0).collect();
        let initial = vec![StateId(rng.below(states as usize) as u32)];
        Nfa::new(states, initial, accepting, tr, 6).unwrap()
    }

    fn automata(nfa: Nfa) -> Automata {
        let areas = AreaTable::new(nfa.transitions().len());
        Automata {
            nfa,
            projections: Vec::new(),
            areas,
        }
    }

    /// Independent oracle: some interleaving of the traces, enumerated one by one, is accepted
    /// by a plain subset simulation of the automaton (restricted to `mask`).
    fn brute_force(nfa: &Nfa, traces: &[Vec<LetterId>], mask: Option<&[u64]>) -> bool {
        fn go(
            nfa: &Nfa,
            traces: &[Vec<LetterId>],
            pos: &mut Vec<usize>,
            states: Vec<bool>,
            mask: Option<&[u64]>,
        ) -> bool {
            if pos.iter().zip(traces).all(|(&p, t)| p == t.len()) {
                return (0..nfa.states()).any(|s| states[s] && nfa.is_accepting(StateId(s as u32)));
            }
            for j in 0..traces.len() {
                if pos[j] == traces[j].len() {
                    continue;
                }
                let a = traces[j][pos[j]];
                let mut next = vec![false; nfa.states()];
                for (i, t) in nfa.transitions().iter().enumerate() {
                    if states[t.from.index()]
                        && t.letter == a
                        && mask.is_none_or(|m| bits::get(m, i))
                    {
                        next[t.to.index()] = true;
                    }
                }
                pos[j] += 1;
                let found = go(nfa, traces, pos, next, mask);
                pos[j] -= 1;
                if found {
                    return true;
                }
            }
            false
        }
        let mut start = vec![false; nfa.states()];
        for s in nfa.initial() {
            start[s.index()] = true;
        }
        go(nfa, traces, &mut vec![0; traces.len()], start, mask)
    }

    fn random_traces(rng: &mut Rng, max: usize) -> Vec<Vec<LetterId>> {
        (0..3)
            .map(|k| {
                (0..rng.below(max + 1))
                    .map(|_| LetterId((2 * k + rng.below(2)) as u32))
                    .collect()
            })
            .collect()
    }

    fn run(
        scratch: &mut AcScratch,
        a: &Automata,
        t: &AcTables,
        traces: &[Vec<LetterId>],
        mask: Option<&[u64]>,
        mode: Mode,
        prune_after: Option<u64>,
    ) -> VerdictKind {
        scratch.prune_after = prune_after;
        let budget = Budget::default();
        check_ac_in(
            scratch,
            a,
            t,
            &alphabet(),
            traces,
            mask,
            mode,
            &budget,
            true,
        )
        .verdict
        .kind
    }

    #[test]
    fn ac_agrees_with_brute_force_with_and_without_pruning() {
        let alphabet = alphabet();
        let mut rng = Rng(7);
        let mut scratch = AcScratch::default();
        let (mut pass, mut fail) = (0, 0);
        for case in 0..600 {
            // Up to 130 states: sets of one to three words.
            let states = [2, 4, 7, 70, 130][case % 5];
            let a = automata(random_nfa(&mut rng, states, states as usize * 8));
            let t = AcTables::new(&a.nfa, &alphabet);
            let traces = random_traces(&mut rng, 2);
            let mask: Option<Vec<u64>> = (case % 3 == 0).then(|| {
                let m = a.nfa.transitions().len();
                let mut bits = vec![0u64; m.div_ceil(64).max(1)];
                for i in 0..m {
                    if rng.below(4) != 0 {
                        bits::set(&mut bits, i);
                    }
                }
                bits
            });
            let expected = brute_force(&a.nfa, &traces, mask.as_deref());
            for prune in [None, Some(0), Some(3), Some(u64::MAX)] {
                let got = run(
                    &mut scratch,
                    &a,
                    &t,
                    &traces,
                    mask.as_deref(),
                    Mode::Complete,
                    prune,
                );
                let want = if expected {
                    VerdictKind::Pass
                } else {
                    VerdictKind::Fail
                };
                assert_eq!(
                    got, want,
                    "case {case}, pruning after {prune:?}: {traces:?}"
                );
            }
            if expected {
                pass += 1;
            } else {
                fail += 1;
            }
        }
        // The generator must exercise both outcomes.
        assert!(pass > 50 && fail > 50, "{pass} passes, {fail} failures");
    }

    #[test]
    fn pruning_preserves_prefix_mode_verdicts() {
        let alphabet = alphabet();
        let mut rng = Rng(11);
        let mut scratch = AcScratch::default();
        let mut kinds = std::collections::BTreeSet::new();
        for case in 0..400 {
            let states = [3, 6, 70][case % 3];
            let a = automata(random_nfa(&mut rng, states, states as usize * 2));
            let t = AcTables::new(&a.nfa, &alphabet);
            let traces = random_traces(&mut rng, 4);
            let plain = run(
                &mut scratch,
                &a,
                &t,
                &traces,
                None,
                Mode::Prefix,
                Some(u64::MAX),
            );
            let pruned = run(&mut scratch, &a, &t, &traces, None, Mode::Prefix, Some(0));
            assert_eq!(plain, pruned, "case {case}: {traces:?}");
            kinds.insert(format!("{plain:?}"));
        }
        assert_eq!(
            kinds.len(),
            3,
            "Pass, WeakPass and Fail all occur: {kinds:?}"
        );
    }

    #[test]
    fn witness_is_an_accepted_interleaving_under_pruning() {
        let alphabet = alphabet();
        let mut rng = Rng(3);
        let mut scratch = AcScratch::default();
        let mut checked = 0;
        for _ in 0..300 {
            let a = automata(random_nfa(&mut rng, 5, 20));
            let t = AcTables::new(&a.nfa, &alphabet);
            let traces = random_traces(&mut rng, 3);
            scratch.prune_after = Some(0);
            let v = check_ac_in(
                &mut scratch,
                &a,
                &t,
                &alphabet,
                &traces,
                None,
                Mode::Complete,
                &Budget::default(),
                true,
            )
            .verdict;
            let Some(w) = v.witness else { continue };
            // The witness interleaves exactly the traces ...
            for (j, trace) in traces.iter().enumerate() {
                let own: Vec<LetterId> = w
                    .iter()
                    .filter(|(k, _)| *k == j)
                    .map(|(_, s)| match s {
                        Sym::Letter(l) => *l,
                        other => panic!("unexpected symbol {other:?}"),
                    })
                    .collect();
                assert_eq!(&own, trace);
            }
            // ... and is accepted: it is the only interleaving left to the oracle.
            let word: Vec<LetterId> = w
                .iter()
                .map(|(_, s)| match s {
                    Sym::Letter(l) => *l,
                    other => panic!("unexpected symbol {other:?}"),
                })
                .collect();
            assert!(brute_force(&a.nfa, &[word], None));
            checked += 1;
        }
        assert!(checked > 20, "{checked} witnesses");
    }

    #[test]
    fn reached_table_finds_every_key_across_growth_and_reset() {
        let mut r = Reached::default();
        for round in 0..3 {
            r.reset(2);
            let keys: Vec<u64> = (0..5000u64).map(|i| i * 7919 + round).collect();
            for &k in &keys {
                let slot = r.slot(k, 2);
                r.sets[slot * 2] |= k;
            }
            for &k in &keys {
                let slot = r.find(k).expect("inserted");
                assert_eq!(r.set(slot, 2)[0], k);
                assert_eq!(r.slot(k, 2), slot);
            }
            assert_eq!(r.find(3), None);
        }
        r.reset(2);
        assert_eq!(r.find(7919), None);
        assert!(r.used.is_empty());
        assert!(r.sets.iter().all(|&x| x == 0));
    }

    #[test]
    fn memo_is_not_shared_between_models() {
        // Two automata whose backward steps differ on the same (letter, set): a scratch used
        // with both must not reuse the first one's steps for the second.
        let alphabet = alphabet();
        let tr = |from, letter, to| Transition {
            from: StateId(from),
            letter: LetterId(letter),
            to: StateId(to),
        };
        let accepting = vec![false, true];
        let one = automata(
            Nfa::new(2, vec![StateId(0)], accepting.clone(), vec![tr(0, 0, 1)], 6).unwrap(),
        );
        let other =
            automata(Nfa::new(2, vec![StateId(0)], accepting, vec![tr(0, 1, 1)], 6).unwrap());
        let (t1, t2) = (
            AcTables::new(&one.nfa, &alphabet),
            AcTables::new(&other.nfa, &alphabet),
        );
        let mut scratch = AcScratch::default();
        let a0 = vec![vec![LetterId(0)], vec![], vec![]];
        assert_eq!(
            run(&mut scratch, &one, &t1, &a0, None, Mode::Complete, Some(0)),
            VerdictKind::Pass
        );
        assert_eq!(
            run(
                &mut scratch,
                &other,
                &t2,
                &a0,
                None,
                Mode::Complete,
                Some(0)
            ),
            VerdictKind::Fail
        );
        let a1 = vec![vec![LetterId(1)], vec![], vec![]];
        assert_eq!(
            run(
                &mut scratch,
                &other,
                &t2,
                &a1,
                None,
                Mode::Complete,
                Some(0)
            ),
            VerdictKind::Pass
        );
    }
    #[test]
    fn memo_stays_bounded_and_exact_when_full() {
        // Letter a0 rotates 64 states, a1 swaps states 0 and 1 (and fixes the others): a long trace of them visits many
        // distinct sets backwards; a2 (location 1) is a self-loop on every state.
        let alphabet = alphabet();
        let n = 64u32;
        let mut tr = Vec::new();
        for s in 0..n {
            tr.push(Transition {
                from: StateId(s),
                letter: LetterId(0),
                to: StateId((s + 1) % n),
            });
            tr.push(Transition {
                from: StateId(s),
                letter: LetterId(2),
                to: StateId(s),
            });
            if s >= 2 {
                tr.push(Transition {
                    from: StateId(s),
                    letter: LetterId(1),
                    to: StateId(s),
                });
            }
        }
        tr.push(Transition {
            from: StateId(0),
            letter: LetterId(1),
            to: StateId(1),
        });
        tr.push(Transition {
            from: StateId(1),
            letter: LetterId(1),
            to: StateId(0),
        });
        let mut rng = Rng(9);
        // An irregular accepting set: its rotations are all distinct.
        let accepting = (0..n).map(|_| rng.below(2) == 0).collect();
        let a = automata(Nfa::new(n, vec![StateId(0)], accepting, tr, 6).unwrap());
        let t = AcTables::new(&a.nfa, &alphabet);
        let mut scratch = AcScratch::default();
        for _ in 0..3 {
            let first: Vec<LetterId> = (0..600).map(|_| LetterId(rng.below(2) as u32)).collect();
            let traces = vec![first, vec![LetterId(2); 3], vec![]];
            let want = brute_force_sequential(&a.nfa, &traces);
            for prune in [Some(0), None, Some(u64::MAX)] {
                let got = run(&mut scratch, &a, &t, &traces, None, Mode::Complete, prune);
                assert_eq!(got == VerdictKind::Pass, want, "pruning after {prune:?}");
                assert!(scratch.memo.map.len() <= MEMO_MAX);
            }
        }
        assert_eq!(scratch.memo.map.len(), MEMO_MAX, "the memo filled up");
    }

    /// The oracle for long traces when the other locations only read self-loops present on
    /// every state: where they are interleaved does not change the states reached, so one
    /// interleaving (the concatenation) decides.
    fn brute_force_sequential(nfa: &Nfa, traces: &[Vec<LetterId>]) -> bool {
        let word: Vec<LetterId> = traces.iter().flatten().copied().collect();
        brute_force(nfa, &[word], None)
    }
}
