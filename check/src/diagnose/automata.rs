//! The oracle of a compiled model, AC's first search on the cut letters, and the diagnosis of
//! a failed multitrace given as letters.
//!
//! Invariants: every answer is AC's exact prefix-membership answer; the short search behind
//! [`Oracle::surely`] (at most [`SURE_VERTICES`] vertices) and the local DFAs behind
//! [`Oracle::possible`] only spare queries; a single location is read off its DFA, with the
//! answer the queries would give.

use super::furthest::diagnose_with;
use super::oracle::{EndQueries, Oracle};
use crate::ac::{self, AcScratch, AcTables};
use multitrace_model::budget::Budget;
use multitrace_model::model::Automata;
use multitrace_model::nfa::{Alphabet, LetterId, LocationId};
use multitrace_model::verdict::{Blocked, Diagnosis, Sym};
use rustc_hash::FxHashSet;

/// The oracle of a compiled model: AC's first search on the cut letters.
pub(crate) struct AutomataOracle<'a> {
    pub(crate) automata: &'a Automata,
    pub(crate) tables: &'a AcTables,
    pub(crate) alphabet: &'a Alphabet,
    pub(crate) traces: &'a [Vec<LetterId>],
    pub(crate) scratch: &'a mut AcScratch,
    pub(crate) cut: Vec<Vec<LetterId>>,
    /// A cut known to be consistent (empty: none): the cuts below it are, without a search.
    pub(crate) known: &'a [usize],
    /// The letters known to extend the cut `.0` (see [`Oracle::surely`]).
    pub(crate) sure: Option<(Vec<usize>, Vec<LetterId>)>,
    /// The buffers of the search behind [`Oracle::surely`].
    pub(crate) dfs: SureSearch,
    /// Answers about cuts extended by a letter, when the caller has them.
    pub(crate) end: Option<&'a mut dyn EndQueries>,
}

impl AutomataOracle<'_> {
    /// The letters of the transitions into live states from the states that runs consuming
    /// exactly the cut `v` reach (those the first [`SURE_VERTICES`] vertices of a depth-first
    /// search find), sorted.
    ///
    /// Positions are packed in one `u64` (mixed radix over the cut's lengths; none found
    /// when the cut has too many positions for that), and the search's buffers are the
    /// oracle's, so a call allocates nothing once they have grown.
    fn next_after(&mut self, v: &[usize]) -> Vec<LetterId> {
        let nfa = &self.automata.nfa;
        let mut out = Vec::new();
        // A path to the cut pops each of its `Σ v + 1` vertices: past the bound, the search
        // cannot reach the cut (it would find nothing; most cuts of long runs).
        if v.iter().sum::<usize>() >= SURE_VERTICES {
            return out;
        }
        let strides = &mut self.dfs.strides;
        strides.clear();
        let mut size = 1u64;
        for &n in v {
            strides.push(size);
            match size.checked_mul(n as u64 + 1) {
                Some(x) => size = x,
                None => return out,
            }
        }
        let end: u64 = v
            .iter()
            .zip(strides.iter())
            .map(|(&n, &s)| n as u64 * s)
            .sum();
        let (seen, stack) = (&mut self.dfs.seen, &mut self.dfs.stack);
        seen.clear();
        stack.clear();
        for s in nfa.initial() {
            if self.tables.is_live(s.index()) && seen.insert((s.0, 0)) {
                stack.push((s.0, 0));
            }
        }
        let mut left = SURE_VERTICES;
        while let Some((s, key)) = stack.pop() {
            if left == 0 {
                break;
            }
            left -= 1;
            let at_cut = key == end;
            for (_, t) in nfa.out(multitrace_model::nfa::StateId(s)) {
                if !self.tables.is_live(t.to.index()) {
                    continue;
                }
                if at_cut {
                    out.push(t.letter);
                    continue;
                }
                let k = self.alphabet.location(t.letter).index();
                let p = (key / strides[k]) as usize % (v[k] + 1);
                if p < v[k] && self.traces[k][p] == t.letter {
                    let next = key + strides[k];
                    if seen.insert((t.to.0, next)) {
                        stack.push((t.to.0, next));
                    }
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// The buffers of [`AutomataOracle::next_after`]'s search: the visited (state, packed
/// positions) pairs, the stack, and the strides of the packing.
#[derive(Default)]
pub(crate) struct SureSearch {
    seen: FxHashSet<(u32, u64)>,
    stack: Vec<(u32, u64)>,
    strides: Vec<u64>,
}

/// Vertices of the search behind [`AutomataOracle::surely`]: it only saves queries, so it
/// stays small (what it misses is asked).
const SURE_VERTICES: usize = 48;

impl Oracle for AutomataOracle<'_> {
    fn lens(&self) -> Vec<usize> {
        self.traces.iter().map(Vec::len).collect()
    }
    fn action(&self, i: usize, p: usize) -> Sym {
        Sym::Letter(self.traces[i][p])
    }
    fn candidates(&self, i: usize) -> Vec<Sym> {
        self.alphabet
            .letters_of(LocationId(i as u32))
            .iter()
            .map(|&l| Sym::Letter(l))
            .collect()
    }
    /// A run of the automaton consuming exactly the cut that can then read `a` into a live
    /// state (a state that can still reach acceptance) shows the extended cut consistent.
    fn surely(&mut self, v: &[usize], i: usize, a: Sym) -> bool {
        let _ = i;
        let Sym::Letter(a) = a else { return false };
        if self.sure.as_ref().is_none_or(|(at, _)| at != v) {
            let next = self.next_after(v);
            self.sure = Some((v.to_vec(), next));
        }
        self.sure
            .as_ref()
            .is_some_and(|(_, sure)| sure.binary_search(&a).is_ok())
    }
    /// The letters location `i`'s DFA `Proj(A, Σi)` reads after the cut into a live state:
    /// the DFA recognises the prefixes of the projections of `A`'s words (AS's local
    /// verifier), so the others cannot extend a multi-prefix.
    fn possible(&mut self, v: &[usize], i: usize) -> Vec<Sym> {
        self.automata.projections[i]
            .live_letters_after(self.alphabet, LocationId(i as u32), &self.traces[i][..v[i]])
            .map(Sym::Letter)
            .collect()
    }
    fn known_below(&self, v: &[usize]) -> bool {
        self.known.len() == v.len() && v.iter().zip(self.known).all(|(a, b)| a <= b)
    }
    fn consistent(
        &mut self,
        v: &[usize],
        extra: Option<(usize, Sym)>,
        budget: &Budget,
    ) -> (Result<bool, &'static str>, u64) {
        if extra.is_none() && self.known_below(v) {
            // Downward closure: a cut below a consistent one is consistent.
            return (Ok(true), 0);
        }
        if let (Some(end), Some((i, Sym::Letter(a)))) = (&mut self.end, extra) {
            if let Some(b) = end.extends(v, i, a) {
                // Exact (no budget spent here: the caller's own budget bounded it).
                return (Ok(b), 0);
            }
        }
        self.cut.resize(self.traces.len(), Vec::new());
        for (i, c) in self.cut.iter_mut().enumerate() {
            c.clear();
            c.extend_from_slice(&self.traces[i][..v[i]]);
        }
        if let Some((i, Sym::Letter(l))) = extra {
            self.cut[i].push(l);
        }
        ac::is_multi_prefix_in(
            self.scratch,
            self.automata,
            self.tables,
            self.alphabet,
            &self.cut,
            budget,
        )
    }
}

/// The diagnosis of a failed multitrace of a compiled model, given as letters; `whole` as for
/// [`diagnose_term`].
///
/// [`diagnose_term`]: super::term::diagnose_term
#[allow(clippy::too_many_arguments)]
pub(crate) fn diagnose_letters<'a>(
    automata: &'a Automata,
    tables: &'a AcTables,
    alphabet: &'a Alphabet,
    traces: &'a [Vec<LetterId>],
    scratch: &'a mut AcScratch,
    whole: Option<bool>,
    budget: &Budget,
    known: &'a [usize],
    end: Option<&'a mut dyn EndQueries>,
) -> Diagnosis {
    if traces.len() == 1 && automata.projections.len() == 1 {
        return single_location(automata, alphabet, &traces[0]);
    }
    let mut oracle = AutomataOracle {
        automata,
        tables,
        alphabet,
        traces,
        scratch,
        cut: Vec::new(),
        known,
        sure: None,
        dfs: SureSearch::default(),
        end,
    };
    diagnose_with(&mut oracle, whole, budget, false)
}

/// One location: its DFA is `A` determinized and every DFA state is live (the NFA is trimmed),
/// so a cut is consistent exactly when the DFA reads it; the furthest point is where the DFA
/// stops (or the end, in complete mode), and what is allowed there is what the DFA can read.
/// The same answer as the queries give, without a search per action.
fn single_location(automata: &Automata, alphabet: &Alphabet, trace: &[LetterId]) -> Diagnosis {
    let dfa = &automata.projections[0];
    let (s, v) = dfa.read_live(trace.iter().map(|&l| alphabet.local_index(l)));
    let letters = alphabet.letters_of(LocationId(0));
    let allowed: Vec<Sym> = (0..dfa.letters)
        .filter(|&x| dfa.live_step(s, x).is_some())
        .map(|x| Sym::Letter(letters[x as usize]))
        .collect();
    let ended = allowed.is_empty();
    let blocked = if v < trace.len() || !ended {
        vec![Blocked {
            location: LocationId(0),
            position: v,
            found: trace.get(v).map(|&l| Sym::Letter(l)),
            allowed,
        }]
    } else {
        Vec::new()
    };
    Diagnosis {
        consumed: vec![v],
        blocked,
        ended,
        local: None,
        partial: false,
        ran_out: None,
        vertices: 0,
    }
}
