//! What each location's local verifier may still read after a state, whatever it reads in
//! between: the letters of the location on the transitions of the state's *tail* (every NFA
//! transition reachable from its NFA states, seed 004's partial observation).
//!
//! Why: an event held in a reorder window (or waiting for its span's parent) is not fed, and
//! the events that may still come before it are unknown. When its letter is not among those
//! its location may ever read after the events fed there, no event that comes between can
//! make it readable: the run's Fail is certain at once, and the session feeds the event
//! rather than holding a certain verdict (issue 50: a held event must not stop a certain
//! Fail from being written). Sound, not complete: a letter on a reachable transition whose
//! target is dead still counts as readable, so such a Fail waits for its event's release.

use multitrace_model::model::Automata;
use multitrace_model::nfa::Alphabet;
use multitrace_model::project::AreaId;
use rustc_hash::FxHashMap;

/// Per location, per DFA state: a bitset of the location's letters (by local index) that
/// its local verifier may read after the state, after any letters of its own.
#[derive(Debug, Default)]
pub(crate) struct Eventually {
    /// `rows[j][s * words[j] + w]`.
    rows: Vec<Vec<u64>>,
    words: Vec<usize>,
}

impl Eventually {
    /// The table of a compiled model's local verifiers (one pass over their distinct tails).
    pub(crate) fn new(automata: &Automata, alphabet: &Alphabet) -> Eventually {
        let transitions = automata.nfa.transitions();
        let mut rows = Vec::with_capacity(automata.projections.len());
        let mut words = Vec::with_capacity(automata.projections.len());
        for dfa in &automata.projections {
            let w = (dfa.letters as usize).div_ceil(64).max(1);
            let mut row = vec![0u64; dfa.states as usize * w];
            // Tails are interned: DFA states often share one.
            let mut seen: FxHashMap<AreaId, usize> = FxHashMap::default();
            for (s, &tail) in dfa.tail.iter().enumerate() {
                let at = s * w;
                if let Some(&from) = seen.get(&tail) {
                    row.copy_within(from..from + w, at);
                    continue;
                }
                seen.insert(tail, at);
                for t in automata.areas.get(tail).iter() {
                    let letter = transitions[t].letter;
                    if alphabet.location(letter) == dfa.location {
                        let x = alphabet.local_index(letter) as usize;
                        row[at + x / 64] |= 1 << (x % 64);
                    }
                }
            }
            rows.push(row);
            words.push(w);
        }
        Eventually { rows, words }
    }

    /// Whether location `j`'s verifier, in state `s`, may read local letter `x` after some
    /// letters of its own (`true` when the table has no such state: nothing is claimed).
    pub(crate) fn may_read(&self, j: usize, s: u32, x: u32) -> bool {
        let (Some(row), Some(&w)) = (self.rows.get(j), self.words.get(j)) else {
            return true;
        };
        let x = x as usize;
        row.get(s as usize * w + x / 64)
            .is_none_or(|bits| bits & (1 << (x % 64)) != 0)
    }
}
