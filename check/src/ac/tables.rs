//! AC's per-model tables (successor rows, live states, viability rows) and the per-check
//! successor rows of a restricted automaton.

#![allow(clippy::needless_range_loop)]

use multitrace_model::bits;
use multitrace_model::nfa::{Alphabet, LetterId, Nfa, StateId};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// Per-model tables for AC, computed once and shared by all threads.
#[derive(Clone, Debug)]
pub struct AcTables {
    /// Unique per construction (clones share it: same content), never 0.
    pub(super) id: u64,
    pub(super) states: usize,
    pub(super) words: usize,
    pub(super) letters: usize,
    pub(super) locations: usize,
    /// States that can reach an accepting state.
    pub(super) live: Vec<u64>,
    /// Accepting states.
    pub(super) accepting: Vec<u64>,
    /// Initial states.
    pub(super) initial: Vec<u64>,
    /// `ranges[s * letters + a]`: the transitions of `s` on `a` (contiguous: transitions are
    /// sorted by source and letter).
    pub(super) ranges: Vec<(u32, u32)>,
    /// `succ[(a * states + s) * words..]`: the successors of `s` on `a` as a bitset, when the
    /// table is small (at most [`TABLE_MAX_WORDS`]); an unrestricted step is then an OR of
    /// rows instead of a walk over transitions.
    pub(super) succ: Option<Vec<u64>>,
    /// Tables of viability pruning, when small enough.
    pub(super) viability: Option<Viability>,
    /// `closure[m]`: per state, the states it reaches by letters of the locations of the
    /// bitmask `m` (itself included), `words` words per state, built the first time a search
    /// closes a set under the silent moves of exactly those locations; `None` for automata
    /// too large or with too many locations (then [`super::search::close`] walks the
    /// transitions). All the subsets' rows together stay within [`TABLE_MAX_WORDS`].
    pub(super) closure: Option<Vec<OnceLock<Box<[u64]>>>>,
}

/// Most locations for which [`AcTables::closure`] is kept (one slot per subset).
pub(super) const CLOSURE_MAX_LOCATIONS: usize = 8;

/// `others[(j * states + s) * words..]`: the states that reach `s` reading only letters of
/// locations other than `j` (`s` included); `back[(a * states + s) * words..]`: the states
/// that reach, reading only letters of other locations than `a`'s, a state with an
/// `a`-transition into `s` (so one backward step of `Q_j` is an OR of rows).
#[derive(Clone, Debug)]
pub(super) struct Viability {
    pub(super) back: Vec<u64>,
    pub(super) others: Vec<u64>,
}

/// Largest per-model table built (words, each table).
pub(super) const TABLE_MAX_WORDS: usize = 1 << 22;
/// Largest work spent on the `others` table at model load (state x transition visits).
pub(super) const OTHERS_MAX_WORK: usize = 1 << 28;

impl AcTables {
    /// Unique per construction (clones share it): what caches of answers on these tables
    /// are keyed by.
    pub fn id(&self) -> u64 {
        self.id
    }

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
        let closure = (small
            && locations <= CLOSURE_MAX_LOCATIONS
            && (n * words) << locations <= TABLE_MAX_WORDS
            && n * (n + nfa.transitions().len()) <= OTHERS_MAX_WORK)
            .then(|| (0..1usize << locations).map(|_| OnceLock::new()).collect());
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
            closure,
        }
    }

    /// The rows of [`AcTables::closure`] for the silent locations `silent` (a bitmask), built
    /// on first use; `None` when the model keeps no such table.
    #[inline]
    pub(super) fn closure_rows(
        &self,
        nfa: &Nfa,
        alphabet: &Alphabet,
        silent: usize,
    ) -> Option<&[u64]> {
        let slot = self.closure.as_ref()?.get(silent)?;
        Some(slot.get_or_init(|| self.build_closure(nfa, alphabet, silent)))
    }

    /// Per state, a walk of the transitions whose letter's location is in `silent`.
    #[cold]
    fn build_closure(&self, nfa: &Nfa, alphabet: &Alphabet, silent: usize) -> Box<[u64]> {
        let (n, w) = (self.states, self.words);
        let mut rows = vec![0u64; n * w];
        let mut stack: Vec<usize> = Vec::new();
        for s in 0..n {
            let row = &mut rows[s * w..(s + 1) * w];
            bits::set(row, s);
            stack.clear();
            stack.push(s);
            while let Some(x) = stack.pop() {
                for t in nfa
                    .out_range(StateId(x as u32))
                    .map(|i| nfa.transitions()[i])
                {
                    if silent >> alphabet.location(t.letter).index() & 1 == 1
                        && !bits::get(row, t.to.index())
                    {
                        bits::set(row, t.to.index());
                        stack.push(t.to.index());
                    }
                }
            }
        }
        rows.into_boxed_slice()
    }

    /// Words per state set.
    pub fn words(&self) -> usize {
        self.words
    }

    /// States that can reach an accepting state.
    pub fn live(&self) -> &[u64] {
        &self.live
    }

    /// Initial states (a set of [`AcTables::words`] words).
    pub fn initial_states(&self) -> &[u64] {
        &self.initial
    }

    /// Accepting states (a set of [`AcTables::words`] words).
    pub fn accepting_states(&self) -> &[u64] {
        &self.accepting
    }

    /// The successor rows of letter `a` (`δ(s, a)` at `[s * words..]`, [`AcTables::words`]
    /// words per state) when the tables keep them: for front ends that step small sets one at
    /// a time and inline the OR of rows (the live monitor's product).
    #[inline]
    pub fn rows(&self, a: LetterId) -> Option<&[u64]> {
        let len = self.states * self.words;
        self.succ
            .as_deref()
            .map(|succ| &succ[a.index() * len..(a.index() + 1) * len])
    }

    /// Whether state `s` can reach an accepting state.
    pub(crate) fn is_live(&self, s: usize) -> bool {
        multitrace_model::bits::get(&self.live, s)
    }

    /// `out |= δ(from, a)` on the whole automaton (no mask): one step of AC, for front ends
    /// that keep their own product (the live monitor). `from` and `out` have
    /// [`AcTables::words`] words.
    pub fn step_into(&self, nfa: &Nfa, from: &[u64], a: LetterId, out: &mut [u64]) {
        step(
            self,
            nfa,
            &MaskedRows::default(),
            None,
            from,
            a,
            out,
            self.words,
        );
    }
}

impl AcTables {
    /// A consistent cut of `traces` found without a search: the positions reached by reading
    /// one interleaving of them greedily (the locations in turn, each as far as it goes),
    /// keeping only the states that can still reach an accepting state, until no location's
    /// next letter can be read. A function of the letters alone.
    ///
    /// Sound: the word read leaves a live state, so it is a prefix of an accepted word, and
    /// each location's part of the cut is a prefix of that word's projection (the cut is a
    /// multi-prefix). Not the largest cut: a letter read early may stop another location
    /// that another interleaving would let go on (a search extends it).
    pub fn read_greedily(&self, nfa: &Nfa, traces: &[Vec<LetterId>]) -> Vec<usize> {
        let mut at = vec![0usize; traces.len()];
        let mut now: Vec<u64> = self
            .initial
            .iter()
            .zip(&self.live)
            .map(|(a, b)| a & b)
            .collect();
        let mut next = vec![0u64; self.words];
        let (mut i, mut idle) = (0, 0);
        while idle < traces.len() && now.iter().any(|&w| w != 0) {
            let read = match traces[i].get(at[i]) {
                Some(&a) => {
                    next.fill(0);
                    self.step_into(nfa, &now, a, &mut next);
                    for (s, l) in next.iter_mut().zip(&self.live) {
                        *s &= l;
                    }
                    next.iter().any(|&w| w != 0)
                }
                None => false,
            };
            if read {
                std::mem::swap(&mut now, &mut next);
                at[i] += 1;
                idle = 0;
            } else {
                idle += 1;
                i = (i + 1) % traces.len();
            }
        }
        at
    }
}

/// Calls `f` on each set bit of the first `w` words of `set`.
#[inline(always)]
pub(super) fn for_each_bit(set: &[u64], w: usize, mut f: impl FnMut(usize)) {
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
pub(super) fn step(
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

/// The successor table of a restricted automaton (AS's `Inter`), rebuilt for each check from
/// the transitions of the mask (only the rows the previous check wrote are cleared).
#[derive(Default)]
pub(super) struct MaskedRows {
    pub(super) rows: Vec<u64>,
    pub(super) dirty: Vec<usize>,
}

impl MaskedRows {
    /// Fills the rows of the transitions in `mask`.
    pub(super) fn build(&mut self, tables: &AcTables, nfa: &Nfa, mask: &[u64]) {
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
