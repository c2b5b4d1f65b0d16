//! AS, the semi-centralized procedure (seed 004 Algorithms 2 and 3).
//!
//! 1. Local check: each local trace is read on its location's DFA `Proj(A, Σi)`; a failure is
//!    `LocalError(i)` with the position and the letters that were possible there. Otherwise
//!    `Area(μi)` is `init` ∪ the areas of the path (each interned area taken once).
//! 2. `Inter` is the intersection of the `Area(μi)`; without an accepting path it is
//!    `InterError`.
//! 3. AC restricted to `Inter`'s transitions gives `CentralError` or Pass.
//!
//! Partial observation (prefix mode): a local trace passes when its DFA state is live, and its
//! area also covers what is reachable after its end (the state's `tail`).

use crate::check::ac::{check_ac, AcTables};
use crate::check::explore::Budget;
use crate::model::Automata;
use crate::nfa::{Alphabet, LetterId, LocationId, StateId};
use crate::project::{bits, AreaId, ProjDfa};
use crate::verdict::{Mode, Reason, Sym, Verdict, VerdictKind};

/// The result of a local check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LocalOutcome {
    /// The trace passes; its area was written to the output bitset.
    Pass {
        /// DFA state reached.
        state: u32,
    },
    /// The trace is rejected (LocalError).
    Error {
        /// First position that cannot be read, or the trace length when the trace ends in a
        /// state that is not accepting (complete mode) or not live (prefix mode).
        position: usize,
        /// Letters readable there.
        expected: Vec<LetterId>,
    },
}

/// Reads `trace` on `dfa`; on success writes `Area(trace)` into `area` (cleared first).
/// `seen` is scratch space of at least `areas` bits (one per interned area).
pub fn local_check(
    automata: &Automata,
    dfa: &ProjDfa,
    alphabet: &Alphabet,
    trace: &[LetterId],
    mode: Mode,
    area: &mut [u64],
    seen: &mut Vec<u64>,
) -> LocalOutcome {
    let table = &automata.areas;
    seen.clear();
    seen.resize(table.len().div_ceil(64).max(1), 0);
    area.fill(0);
    let take = |id: AreaId, area: &mut [u64], seen: &mut Vec<u64>| {
        if !bits::get(seen, id.index()) {
            bits::set(seen, id.index());
            bits::union_with(area, table.get(id));
        }
    };
    take(dfa.init_area, area, seen);
    let mut s = 0u32;
    for (p, &letter) in trace.iter().enumerate() {
        let x = alphabet.local_index(letter);
        match dfa.step(s, x) {
            Some((t, id)) => {
                take(id, area, seen);
                s = t;
            }
            None => {
                return LocalOutcome::Error {
                    position: p,
                    expected: readable(dfa, alphabet, s),
                }
            }
        }
    }
    let ok = match mode {
        Mode::Complete => dfa.accepting[s as usize],
        Mode::Prefix => dfa.live[s as usize],
    };
    if !ok {
        return LocalOutcome::Error {
            position: trace.len(),
            expected: readable(dfa, alphabet, s),
        };
    }
    if mode == Mode::Prefix {
        take(dfa.tail[s as usize], area, seen);
    }
    LocalOutcome::Pass { state: s }
}

/// Letters with a transition from DFA state `s`.
fn readable(dfa: &ProjDfa, alphabet: &Alphabet, s: u32) -> Vec<LetterId> {
    let letters = alphabet.letters_of(dfa.location);
    (0..dfa.letters)
        .filter(|&x| dfa.step(s, x).is_some())
        .map(|x| letters[x as usize])
        .collect()
}

/// Whether the sub-automaton of `mask` has an accepting path from an initial state.
pub fn has_accepting_path(automata: &Automata, mask: &[u64]) -> bool {
    let nfa = &automata.nfa;
    let mut seen = vec![false; nfa.states()];
    let mut stack: Vec<StateId> = nfa.initial().to_vec();
    for s in &stack {
        seen[s.index()] = true;
    }
    while let Some(s) = stack.pop() {
        if nfa.is_accepting(s) {
            return true;
        }
        for i in nfa.out_range(s) {
            let to = nfa.transitions()[i].to;
            if bits::get(mask, i) && !seen[to.index()] {
                seen[to.index()] = true;
                stack.push(to);
            }
        }
    }
    false
}

/// Runs AS on one multitrace (one local trace per location).
pub fn check_as(
    automata: &Automata,
    tables: &AcTables,
    alphabet: &Alphabet,
    traces: &[Vec<LetterId>],
    mode: Mode,
    budget: &Budget,
    witness: bool,
) -> Verdict {
    let words = automata.areas.words();
    let mut inter = vec![!0u64; words];
    let mut area = vec![0u64; words];
    let mut seen = Vec::new();
    for (k, trace) in traces.iter().enumerate() {
        let dfa = &automata.projections[k];
        match local_check(automata, dfa, alphabet, trace, mode, &mut area, &mut seen) {
            LocalOutcome::Error { position, expected } => {
                let mut v = Verdict::new(VerdictKind::Fail);
                v.reason = Some(Reason::LocalError {
                    location: LocationId(k as u32),
                    position,
                    expected: expected.into_iter().map(Sym::Letter).collect(),
                });
                return v;
            }
            LocalOutcome::Pass { .. } => bits::intersect_with(&mut inter, &area),
        }
    }
    if !has_accepting_path(automata, &inter) {
        let mut v = Verdict::new(VerdictKind::Fail);
        v.reason = Some(Reason::InterError);
        return v;
    }
    check_ac(
        automata,
        tables,
        alphabet,
        traces,
        Some(&inter),
        mode,
        budget,
        witness,
    )
    .verdict
}
