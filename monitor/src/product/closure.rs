//! Closures of state sets under the letters of the silent locations (those whose trace a
//! vertex has read to its end), by rows computed once per model.
//!
//! The rows ([`closure_rows`]) come in two parts:
//!
//! - per location `i` and state `s`, the states `s` reaches by letters of `i` alone (`k · n`
//!   rows);
//! - when the model is small enough ([`MAX_JOINT_WORDS`]), per subset `m` of the locations
//!   (a bitmask) and state `s`, the states `s` reaches by letters of the locations in `m`
//!   (`2^k · n` rows, built from the first part).
//!
//! Reachability distributes over union, so the closure of a set under `m` is the union of
//! its states' rows for `m`: one pass, where the per-location rows need a fixpoint
//! alternating between the locations of `m` (before the subset rows, that fixpoint was 8 %
//! of the MQTT monitor's time). Models past the bound keep the per-location rows only.

use multitrace_check::ac::AcTables;
use multitrace_model::bits;
use multitrace_model::nfa::{Alphabet, LocationId, Nfa};

/// Most words of the per-subset rows (2 MB per model); past it only the per-location rows
/// are kept.
const MAX_JOINT_WORDS: usize = 1 << 18;

/// Words of the per-subset rows of a model with `k` locations, `n` states and `w` words per
/// set, when they are kept.
fn joint_words(k: usize, n: usize, w: usize) -> Option<usize> {
    if k >= 16 {
        return None;
    }
    (1usize << k)
        .checked_mul(n * w)
        .filter(|&x| x <= MAX_JOINT_WORDS)
}

/// Whether [`closure_rows`]'s table fits `budget`: refused before it is allocated (an
/// allocation that fails aborts the process, and par11's would be 86 GB), saying its size.
pub fn closure_fits(
    tables: &AcTables,
    nfa: &Nfa,
    alphabet: &Alphabet,
    budget: &multitrace_model::budget::Budget,
) -> Result<(), multitrace_check::CheckError> {
    let (n, w, k) = (nfa.states(), tables.words(), alphabet.locations());
    let bytes = (k as u128) * (n as u128) * (w as u128) * 8;
    if budget.memory_allows(u64::try_from(bytes).unwrap_or(u64::MAX)) {
        return Ok(());
    }
    Err(multitrace_check::CheckError::TooLarge {
        what: format!(
            "the monitor's closure table for this model ({k} locations x {n} automaton states \
             x {n} states as bits)"
        ),
        bytes,
        limit: budget.memory_limit().unwrap_or(u64::MAX),
        instead: "check its runs with `multitrace check` (whose procedures need no such \
                  table), or compile a smaller model"
            .into(),
    })
}

/// The rows of [`super::Kernel::closure`], computed once per model (see the module's
/// documentation for their layout).
pub fn closure_rows(tables: &AcTables, nfa: &Nfa, alphabet: &Alphabet) -> Vec<u64> {
    let (n, w, k) = (nfa.states(), tables.words(), alphabet.locations());
    let mut rows = vec![0u64; k * n * w];
    let mut t = vec![0u64; w];
    for i in 0..k {
        for s in 0..n {
            let row = &mut rows[(i * n + s) * w..(i * n + s + 1) * w];
            row[s / 64] |= 1 << (s % 64);
            loop {
                t.copy_from_slice(row);
                for &a in alphabet.letters_of(LocationId(i as u32)) {
                    tables.step_into(nfa, row, a, &mut t);
                }
                if t == row {
                    break;
                }
                row.copy_from_slice(&t);
            }
        }
    }
    if let Some(words) = joint_words(k, n, w) {
        let per = rows.len();
        rows.resize(per + words, 0);
        let (locs, joint) = rows.split_at_mut(per);
        let locs = Closure::<0> {
            rows: locs,
            k,
            n,
            w,
        };
        let mut silent = vec![false; k];
        for m in 0..1usize << k {
            for (i, x) in silent.iter_mut().enumerate() {
                *x = m >> i & 1 == 1;
            }
            for s in 0..n {
                let row = &mut joint[(m * n + s) * w..(m * n + s + 1) * w];
                row[s / 64] |= 1 << (s % 64);
                locs.close_by_locations(&silent, row, &mut t);
            }
        }
    }
    rows
}

/// A model's closure rows, read; sets of `W` words (0: of the runtime `w`), as the product's
/// loops compiled per shape ([`super::faces::fixed_len`]).
#[derive(Clone, Copy)]
pub(super) struct Closure<'a, const W: usize> {
    rows: &'a [u64],
    /// Locations, states, words per set.
    k: usize,
    n: usize,
    w: usize,
}

impl<'a, const W: usize> Closure<'a, W> {
    /// The rows [`closure_rows`] built for a model of `k` locations, `n` states and `w` words
    /// per set.
    pub(super) fn new(rows: &'a [u64], k: usize, n: usize, w: usize) -> Self {
        Closure { rows, k, n, w }
    }

    /// The rows of the subset `m` of the locations, when the model keeps them.
    #[inline(always)]
    fn joint(&self, silent: &[bool]) -> Option<&'a [u64]> {
        let per = self.k * self.n * self.w;
        if self.rows.len() == per {
            return None;
        }
        let m = silent
            .iter()
            .enumerate()
            .fold(0usize, |m, (i, &s)| m | (usize::from(s) << i));
        let size = self.n * self.w;
        Some(&self.rows[per + m * size..per + (m + 1) * size])
    }

    /// Whether `set` is closed under the letters of the locations marked in `silent`: every
    /// state's row is inside it (one pass, no fixpoint).
    #[inline]
    pub(super) fn is_closed(&self, silent: &[bool], set: &[u64]) -> bool {
        let w = super::faces::fixed_len::<W>(self.w);
        let set = &set[..w];
        let inside = |row: &[u64]| row.iter().zip(set).all(|(r, s)| r & !s == 0);
        match self.joint(silent) {
            Some(rows) => bits::iter(set).all(|st| inside(&rows[st * w..(st + 1) * w])),
            None => self.location_rows(silent, set).all(inside),
        }
    }

    /// Closes `set` under the letters of the locations marked in `silent` (`t`: scratch of
    /// `w` words).
    #[inline]
    pub(super) fn close(&self, silent: &[bool], set: &mut [u64], t: &mut [u64]) {
        if !silent.iter().any(|&s| s) {
            return;
        }
        let Some(rows) = self.joint(silent) else {
            return self.close_by_locations(silent, set, t);
        };
        let w = super::faces::fixed_len::<W>(self.w);
        let (set, t) = (&mut set[..w], &mut t[..w]);
        super::words::zero(t);
        for st in bits::iter(set) {
            for (t, r) in t.iter_mut().zip(&rows[st * w..(st + 1) * w]) {
                *t |= r;
            }
        }
        // Each state's row holds the state: `t` contains `set`.
        super::words::copy(set, t);
    }

    /// The per-location rows of the states of `set` for each location marked in `silent`.
    fn location_rows<'b>(
        &self,
        silent: &'b [bool],
        set: &'b [u64],
    ) -> impl Iterator<Item = &'b [u64]> + 'b
    where
        'a: 'b,
    {
        let (n, w, rows) = (self.n, super::faces::fixed_len::<W>(self.w), self.rows);
        silent
            .iter()
            .enumerate()
            .filter(|(_, &s)| s)
            .flat_map(move |(i, _)| {
                bits::iter(set).map(move |st| &rows[(i * n + st) * w..(i * n + st + 1) * w])
            })
    }

    /// [`Closure::close`] by the per-location rows, alternating between locations until
    /// nothing is added.
    fn close_by_locations(&self, silent: &[bool], set: &mut [u64], t: &mut [u64]) {
        loop {
            super::words::copy(t, set);
            for row in self.location_rows(silent, set) {
                for (t, r) in t.iter_mut().zip(row) {
                    *t |= r;
                }
            }
            if t.iter().zip(&*set).all(|(a, b)| a == b) {
                return;
            }
            super::words::copy(set, t);
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use multitrace_model::nfa::{LetterId, StateId, Transition};
    use multitrace_model::rng::Rng;
    use std::collections::{HashSet, VecDeque};

    /// A model's tables and closure rows, which a product's kernel borrows.
    pub(crate) struct Parts {
        pub(crate) tables: AcTables,
        closure: Vec<u64>,
    }

    impl Parts {
        pub(crate) fn new(nfa: &Nfa, alphabet: &Alphabet) -> Parts {
            let tables = AcTables::new(nfa, alphabet);
            let closure = closure_rows(&tables, nfa, alphabet);
            Parts { tables, closure }
        }

        /// The kernel of the model.
        pub(crate) fn kernel<'a>(
            &'a self,
            nfa: &'a Nfa,
            alphabet: &'a Alphabet,
        ) -> super::super::Kernel<'a> {
            super::super::Kernel {
                tables: &self.tables,
                nfa,
                alphabet,
                closure: &self.closure,
            }
        }
    }

    /// A random case of any shape the product is compiled for: `k` locations of two letters
    /// each, an automaton of 1 to 150 states (one to three words per set), and the events of
    /// a path of up to `steps` letters (one changed at random in a quarter of the cases), in
    /// an order that holds back half the letters of one location to the end.
    pub(crate) fn shaped_case(
        rng: &mut Rng,
        k: usize,
        steps: usize,
    ) -> (Alphabet, Nfa, Vec<LetterId>) {
        let letters = 2 * k;
        let alphabet = Alphabet::new(
            (0..letters).map(|i| format!("a{i}")).collect(),
            (0..letters).map(|i| LocationId((i / 2) as u32)).collect(),
            (0..k).map(|i| format!("l{i}")).collect(),
        )
        .unwrap();
        let states = [1, 6, 30, 64, 65, 100, 129, 150][rng.below(8)];
        let transitions: Vec<Transition> = (0..rng.between(states, 4 * states))
            .map(|_| Transition {
                from: StateId(rng.below(states) as u32),
                letter: LetterId(rng.below(letters) as u32),
                to: StateId(rng.below(states) as u32),
            })
            .collect();
        let accepting = (0..states).map(|_| rng.below(3) == 0).collect();
        let nfa = Nfa::new(
            states as u32,
            vec![StateId(0)],
            accepting,
            transitions,
            letters,
        )
        .unwrap();
        // A path of the automaton, its letters dealt to their locations.
        let mut word = Vec::new();
        let mut q = 0;
        for _ in 0..rng.between(0, steps) {
            let out: Vec<&Transition> = nfa
                .transitions()
                .iter()
                .filter(|t| t.from.index() == q)
                .collect();
            if out.is_empty() {
                break;
            }
            let t = out[rng.below(out.len())];
            word.push(t.letter);
            q = t.to.index();
        }
        if !word.is_empty() && rng.below(4) == 0 {
            let at = rng.below(word.len());
            word[at] = LetterId(rng.below(letters) as u32);
        }
        let slow = rng.below(k);
        let (mut early, mut late): (Vec<LetterId>, Vec<LetterId>) = (Vec::new(), Vec::new());
        for a in word {
            if alphabet.location(a).index() == slow && rng.below(2) == 0 {
                late.push(a);
            } else {
                early.push(a);
            }
        }
        early.extend(late);
        (alphabet, nfa, early)
    }

    /// Letters `a0..a5`, two per location, three locations (the product's tests' models).
    pub(crate) fn three_locations() -> Alphabet {
        Alphabet::new(
            (0..6).map(|i| format!("a{i}")).collect(),
            (0..6).map(|i| LocationId(i / 2)).collect(),
            (0..3).map(|k| format!("l{k}")).collect(),
        )
        .unwrap()
    }

    /// A random automaton over [`three_locations`]'s letters: `transitions` random ones,
    /// random accepting states, state 0 initial.
    pub(crate) fn random_nfa(rng: &mut Rng, states: usize, transitions: usize) -> Nfa {
        let transitions: Vec<Transition> = (0..transitions)
            .map(|_| Transition {
                from: StateId(rng.below(states) as u32),
                letter: LetterId(rng.below(6) as u32),
                to: StateId(rng.below(states) as u32),
            })
            .collect();
        let accepting = (0..states).map(|_| rng.below(2) == 0).collect();
        Nfa::new(states as u32, vec![StateId(0)], accepting, transitions, 6).unwrap()
    }

    /// Whether the multitrace is a multi-prefix (`prefix`) or accepted, by a walk of the
    /// automaton's transitions over (position, state): a location's own next letter, or, in
    /// prefix mode, any letter of a location whose trace is read to its end (a silent move);
    /// at the end, a state from which some path reaches an accepting one (prefix mode), or an
    /// accepting state.
    pub(crate) fn multi_prefix_walked(
        nfa: &Nfa,
        alphabet: &Alphabet,
        traces: &[Vec<LetterId>],
        prefix: bool,
    ) -> bool {
        let n: Vec<u32> = traces.iter().map(|t| t.len() as u32).collect();
        let mut seen = HashSet::new();
        let mut queue = VecDeque::new();
        for &q in nfa.initial() {
            queue.push_back((vec![0u32; n.len()], q.index()));
        }
        let mut ends = HashSet::new();
        while let Some((v, q)) = queue.pop_front() {
            if !seen.insert((v.clone(), q)) {
                continue;
            }
            if v == n {
                ends.insert(q);
            }
            for t in nfa.transitions().iter().filter(|t| t.from.index() == q) {
                let i = alphabet.location(t.letter).index();
                let mut u = v.clone();
                if v[i] < n[i] {
                    if traces[i][v[i] as usize] != t.letter {
                        continue;
                    }
                    u[i] += 1;
                } else if !prefix {
                    continue;
                }
                queue.push_back((u, t.to.index()));
            }
        }
        if !prefix {
            return ends.iter().any(|&q| nfa.is_accepting(StateId(q as u32)));
        }
        // Some end state reaches an accepting state.
        let mut stack: Vec<usize> = ends.iter().copied().collect();
        let mut reach: HashSet<usize> = ends;
        while let Some(q) = stack.pop() {
            if nfa.is_accepting(StateId(q as u32)) {
                return true;
            }
            for t in nfa.transitions().iter().filter(|t| t.from.index() == q) {
                if reach.insert(t.to.index()) {
                    stack.push(t.to.index());
                }
            }
        }
        false
    }

    /// The closure by walking the automaton's transitions (the oracle).
    fn walked(nfa: &Nfa, alphabet: &Alphabet, silent: &[bool], set: &[u64]) -> Vec<u64> {
        let mut out = set.to_vec();
        let mut stack: Vec<usize> = bits::iter(set).collect();
        while let Some(x) = stack.pop() {
            for t in nfa.transitions().iter().filter(|t| t.from.index() == x) {
                if silent[alphabet.location(t.letter).index()] && !bits::get(&out, t.to.index()) {
                    bits::set(&mut out, t.to.index());
                    stack.push(t.to.index());
                }
            }
        }
        out
    }

    /// On random automata (three locations, up to 150 states, so one to three words) and
    /// random sets: the subset rows and the per-location rows close a set as the walk of the
    /// transitions does, for every subset of silent locations, and say it is closed exactly
    /// when the walk adds nothing; a model past the bound keeps the per-location rows only.
    #[test]
    fn subset_rows_and_location_rows_close_as_the_walk_does() {
        let alphabet = three_locations();
        let mut rng = Rng::new(23);
        let (mut closed, mut open) = (0, 0);
        for _ in 0..60 {
            let states = 1 + rng.below(150);
            let transitions = rng.below(4 * states + 1);
            let nfa = random_nfa(&mut rng, states, transitions);
            let tables = AcTables::new(&nfa, &alphabet);
            let (n, w) = (nfa.states(), tables.words());
            let rows = closure_rows(&tables, &nfa, &alphabet);
            assert_eq!(
                rows.len(),
                3 * n * w + 8 * n * w,
                "a small model keeps the subsets"
            );
            let with_subsets = Closure::<0>::new(&rows, 3, n, w);
            let by_locations = Closure::<0>::new(&rows[..3 * n * w], 3, n, w);
            assert!(with_subsets.joint(&[true; 3]).is_some());
            assert!(by_locations.joint(&[true; 3]).is_none());
            for _ in 0..40 {
                let silent: Vec<bool> = (0..3).map(|_| rng.below(2) == 0).collect();
                let mut set = vec![0u64; w];
                for _ in 0..rng.below(5) {
                    bits::set(&mut set, rng.below(n));
                }
                let want = walked(&nfa, &alphabet, &silent, &set);
                for c in [with_subsets, by_locations] {
                    let mut got = set.clone();
                    c.close(&silent, &mut got, &mut vec![0u64; w]);
                    assert_eq!(got, want, "silent {silent:?}");
                    assert_eq!(c.is_closed(&silent, &set), want == set);
                    assert!(c.is_closed(&silent, &want));
                }
                if want == set {
                    closed += 1;
                } else {
                    open += 1;
                }
            }
        }
        assert!(closed > 100 && open > 100, "{closed} closed, {open} open");
    }

    /// The subset rows are kept up to their bound and not past it.
    #[test]
    fn subset_rows_are_bounded() {
        assert_eq!(joint_words(3, 12, 1), Some(96));
        assert_eq!(joint_words(10, 256, 1), Some(MAX_JOINT_WORDS));
        assert_eq!(joint_words(10, 257, 1), None);
        assert_eq!(joint_words(16, 1, 1), None);
    }
}
