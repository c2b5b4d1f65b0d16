//! NFA synthesis from an interaction: states are normalized terms, transitions are execution
//! steps (term derivatives), a state accepts when its term terminates (seed 004 Th. 2.1).
//!
//! The store's normalizing constructors make paths that reach the same behaviour share a term,
//! hence a state. States that cannot reach an accepting state are dropped (the initial state
//! is kept, so the automaton is never empty). Synthesis stops at a state cap: it is the caller
//! who decides what a capped model becomes (term-only, never a truncated automaton).

use multitrace_model::nfa::{LetterId, Nfa, StateId, Transition};
use multitrace_model::signature::Action;
use multitrace_model::term::{TermId, TermStore};
use rustc_hash::FxHashMap;

/// An automaton synthesized from a term, with the term of each state.
#[derive(Clone, Debug)]
pub struct Synthesis {
    /// The NFA, one initial state.
    pub nfa: Nfa,
    /// The term of each state.
    pub terms: Vec<TermId>,
}

/// The state cap was reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StateCapReached {
    /// The cap.
    pub cap: usize,
}

/// Builds the NFA of `root`; `letter` maps each action to its letter (every action the term
/// can execute must have one).
pub fn synthesize(
    store: &mut TermStore,
    root: TermId,
    letter: &dyn Fn(Action) -> LetterId,
    letters: usize,
    cap: usize,
) -> Result<Synthesis, StateCapReached> {
    let mut index: FxHashMap<TermId, u32> = FxHashMap::default();
    let mut terms = vec![root];
    index.insert(root, 0);
    let mut transitions = Vec::new();
    let mut i = 0;
    while i < terms.len() {
        let t = terms[i];
        for a in store.frontier(t) {
            let nexts = store.exec(t, a).to_vec();
            for n in nexts {
                let to = match index.get(&n) {
                    Some(&s) => s,
                    None => {
                        if terms.len() >= cap {
                            return Err(StateCapReached { cap });
                        }
                        let s = terms.len() as u32;
                        index.insert(n, s);
                        terms.push(n);
                        s
                    }
                };
                transitions.push(Transition {
                    from: StateId(i as u32),
                    letter: letter(a),
                    to: StateId(to),
                });
            }
        }
        i += 1;
    }
    let accepting: Vec<bool> = terms.iter().map(|&t| store.terminates(t)).collect();
    Ok(trim(terms, accepting, transitions, letters))
}

/// Drops the states that cannot reach an accepting state (but keeps state 0, the initial one).
fn trim(
    terms: Vec<TermId>,
    accepting: Vec<bool>,
    transitions: Vec<Transition>,
    letters: usize,
) -> Synthesis {
    let full = Nfa::new(
        terms.len() as u32,
        vec![StateId(0)],
        accepting,
        transitions,
        letters,
    )
    .expect("synthesized automata are well formed");
    let (nfa, renum) = full.trim();
    let terms = terms
        .into_iter()
        .zip(&renum)
        .filter(|&(_, &r)| r != u32::MAX)
        .map(|(t, _)| t)
        .collect();
    Synthesis { nfa, terms }
}
