//! The automaton to draw: the NFA, or one location's local verifier, as labelled states and
//! transitions. Every drawing (Graphviz text, our own SVG) is made from this, so that they
//! show the same labels.

use super::error::DrawError;
use multitrace_model::model::CompiledModel;
use multitrace_model::nfa::{LocationId, StateId};

/// Which automaton a [`Graph`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GraphKind {
    /// The model's NFA.
    Nfa,
    /// A location's local verifier (a DFA; its only initial state is state 0).
    Dfa,
}

/// A state to draw.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// Its label: the NFA state's name, or a DFA state's subset of NFA states (`{q0,q2}`).
    pub label: String,
    /// Whether it is accepting (drawn with a double circle).
    pub accepting: bool,
}

/// A transition to draw.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edge {
    /// Index of its source in [`Graph::nodes`].
    pub from: usize,
    /// Index of its target in [`Graph::nodes`].
    pub to: usize,
    /// Its label: the letter (and, in a local verifier, ` / area N`).
    pub label: String,
}

/// An automaton as states and transitions, in the model's order (deterministic).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Graph {
    /// NFA or local verifier.
    pub kind: GraphKind,
    /// The states, by id.
    pub nodes: Vec<Node>,
    /// The initial states (indices into `nodes`).
    pub initial: Vec<usize>,
    /// The transitions: for a local verifier, grouped by source state in state order.
    pub edges: Vec<Edge>,
}

/// The NFA (`dfa: None`) or the local verifier of the location named `dfa`.
pub fn automaton(m: &CompiledModel, dfa: Option<&str>) -> Result<Graph, DrawError> {
    let Some(a) = m.automata() else {
        return Err(DrawError::TermOnly);
    };
    let Some(name) = dfa else {
        let nodes = (0..a.nfa.states())
            .map(|s| {
                let st = StateId(s as u32);
                Node {
                    label: a.nfa.state_name(st),
                    accepting: a.nfa.is_accepting(st),
                }
            })
            .collect();
        let edges = a
            .nfa
            .transitions()
            .iter()
            .map(|t| Edge {
                from: t.from.0 as usize,
                to: t.to.0 as usize,
                label: m.alphabet.name(t.letter).to_string(),
            })
            .collect();
        let initial = a.nfa.initial().iter().map(|s| s.0 as usize).collect();
        return Ok(Graph {
            kind: GraphKind::Nfa,
            nodes,
            initial,
            edges,
        });
    };
    let Some(k) = m.alphabet.location_names().iter().position(|n| n == name) else {
        return Err(DrawError::UnknownLocation {
            name: name.to_string(),
            locations: m.alphabet.location_names().to_vec(),
        });
    };
    let p = &a.projections[k];
    let letters = m.alphabet.letters_of(LocationId(k as u32));
    let mut nodes = Vec::with_capacity(p.states as usize);
    let mut edges = Vec::new();
    for s in 0..p.states as usize {
        let subset: Vec<String> = p.subsets[s].iter().map(|&q| a.nfa.state_name(q)).collect();
        nodes.push(Node {
            label: format!("{{{}}}", subset.join(",")),
            accepting: p.accepting[s],
        });
        for (x, &letter) in letters.iter().enumerate() {
            if let Some((t, area)) = p.step(s as u32, x as u32) {
                edges.push(Edge {
                    from: s,
                    to: t as usize,
                    label: format!("{} / area {}", m.alphabet.name(letter), area.0),
                });
            }
        }
    }
    Ok(Graph {
        kind: GraphKind::Dfa,
        nodes,
        initial: vec![0],
        edges,
    })
}
