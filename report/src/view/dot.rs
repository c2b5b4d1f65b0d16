//! Graphviz text of an automaton ([`super::graph`]), for an external `dot` program.

use super::error::DrawError;
use super::graph::{automaton, Graph, GraphKind};
use multitrace_model::model::CompiledModel;
use std::fmt::Write as _;

/// Graphviz of the NFA (`dfa: None`) or of the local verifier of the location named `dfa`:
/// states show their names (DFA states their subsets), transitions their letters (and area
/// ids).
pub fn dot(m: &CompiledModel, dfa: Option<&str>) -> Result<String, DrawError> {
    Ok(graph_dot(&automaton(m, dfa)?))
}

/// The Graphviz text of `g`.
pub fn graph_dot(g: &Graph) -> String {
    let shape = |accepting: bool| {
        if accepting {
            "doublecircle"
        } else {
            "circle"
        }
    };
    let mut dot = String::new();
    match g.kind {
        GraphKind::Nfa => {
            let _ = writeln!(dot, "digraph nfa {{\n  rankdir=LR;\n  node [shape=circle];");
            for (s, n) in g.nodes.iter().enumerate() {
                let (label, shape) = (esc(&n.label), shape(n.accepting));
                let _ = writeln!(dot, "  q{s} [label=\"{label}\", shape={shape}];");
            }
            for (i, s) in g.initial.iter().enumerate() {
                let _ = writeln!(dot, "  init{i} [shape=point];\n  init{i} -> q{s};");
            }
            for e in &g.edges {
                let _ = writeln!(
                    dot,
                    "  q{} -> q{} [label=\"{}\"];",
                    e.from,
                    e.to,
                    esc(&e.label)
                );
            }
        }
        GraphKind::Dfa => {
            let _ = writeln!(
                dot,
                "digraph dfa {{\n  rankdir=LR;\n  init [shape=point];\n  init -> d0;"
            );
            let mut edges = g.edges.iter().peekable();
            for (s, n) in g.nodes.iter().enumerate() {
                let (label, shape) = (esc(&n.label), shape(n.accepting));
                let _ = writeln!(dot, "  d{s} [label=\"{label}\", shape={shape}];");
                while let Some(e) = edges.next_if(|e| e.from == s) {
                    let _ = writeln!(dot, "  d{s} -> d{} [label=\"{}\"];", e.to, esc(&e.label));
                }
            }
        }
    }
    dot.push_str("}\n");
    dot
}

fn esc(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}
