//! NFA synthesis from an interaction: states are normalized terms, transitions are execution
//! steps (term derivatives), a state accepts when its term terminates (seed 004 Th. 2.1).
//!
//! The store's normalizing constructors make paths that reach the same behaviour share a term,
//! hence a state. States that cannot reach an accepting state are dropped (the initial state
//! is kept, so the automaton is never empty). Synthesis stops at a state cap: it is the caller
//! who decides what a capped model becomes (term-only, never a truncated automaton).

use multitrace_runtime::nfa::{LetterId, Nfa, StateId, Transition};
use multitrace_runtime::signature::Action;
use multitrace_runtime::term::{TermId, TermStore};
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
    let n = terms.len();
    let mut preds: Vec<Vec<u32>> = vec![Vec::new(); n];
    for t in &transitions {
        preds[t.to.index()].push(t.from.0);
    }
    let mut live = accepting.clone();
    let mut stack: Vec<u32> = (0..n as u32).filter(|&s| accepting[s as usize]).collect();
    while let Some(s) = stack.pop() {
        for &p in &preds[s as usize] {
            if !live[p as usize] {
                live[p as usize] = true;
                stack.push(p);
            }
        }
    }
    live[0] = true;
    let mut renum = vec![u32::MAX; n];
    let mut kept_terms = Vec::new();
    let mut kept_accepting = Vec::new();
    for s in 0..n {
        if live[s] {
            renum[s] = kept_terms.len() as u32;
            kept_terms.push(terms[s]);
            kept_accepting.push(accepting[s]);
        }
    }
    let kept: Vec<Transition> = transitions
        .into_iter()
        .filter(|t| live[t.from.index()] && live[t.to.index()])
        .map(|t| Transition {
            from: StateId(renum[t.from.index()]),
            letter: t.letter,
            to: StateId(renum[t.to.index()]),
        })
        .collect();
    let nfa = Nfa::new(
        kept_terms.len() as u32,
        vec![StateId(0)],
        kept_accepting,
        kept,
        letters,
    )
    .expect("synthesized automata are well formed");
    Synthesis {
        nfa,
        terms: kept_terms,
    }
}
