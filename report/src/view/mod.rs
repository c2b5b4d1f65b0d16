//! Views of a compiled model: the description `multitrace inspect` prints, and drawings of
//! the NFA and of one location's local verifier (`multitrace draw`), by stage:
//!
//! - [`graph`]: the automaton to draw as labelled states and transitions (the one place that
//!   names states and transitions, so every drawing shows the same labels);
//! - [`dot`](mod@dot): its Graphviz text, for an external `dot` program;
//! - [`layered`]: our own layered layout (ranks by distance from the initial states, left to
//!   right), so that SVG needs no external program, as sequence diagrams need none;
//! - [`svg`](mod@svg): the layout as a self-contained SVG document;
//! - [`picture`]: what an output's name asks for (checked before any work), and the runs of
//!   Graphviz for the formats only it renders.

pub mod dot;
mod error;
pub mod graph;
pub mod layered;
pub mod picture;
pub mod svg;

pub use dot::dot;
pub use error::DrawError;
pub use graph::{automaton, Graph};
pub use svg::svg;

use multitrace_model::model::{CompiledModel, ModelKind};
use multitrace_model::nfa::LocationId;
use multitrace_model::project::NO_STATE;
use std::fmt::Write as _;

/// The text of `inspect`: kind, source, digest, compile time, alphabet, locations with their
/// letters and local verifiers, the NFA, the areas and the notices.
pub fn describe(m: &CompiledModel) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "kind: {}", m.kind_name());
    let _ = writeln!(s, "source: {}", m.stats.source);
    let _ = writeln!(s, "digest: {:016x}", m.digest);
    let _ = writeln!(
        s,
        "compile time: {:.3} ms",
        m.stats.compile_time_us as f64 / 1e3
    );
    let _ = writeln!(s, "alphabet: {} letters", m.alphabet.len());
    let _ = writeln!(s, "locations: {}", m.alphabet.locations());
    for k in 0..m.alphabet.locations() {
        let loc = LocationId(k as u32);
        let letters = m.alphabet.letters_of(loc);
        let mut line = format!(
            "  {}: {} letters",
            m.alphabet.location_name(loc),
            letters.len()
        );
        if m.signature().is_none() {
            let names: Vec<&str> = letters.iter().map(|&l| m.alphabet.name(l)).collect();
            let _ = write!(line, " ({})", names.join(" "));
        }
        if let Some(a) = m.automata() {
            let p = &a.projections[k];
            let mut distinct: Vec<u32> = p
                .next
                .iter()
                .zip(&p.area)
                .filter(|(t, _)| **t != NO_STATE)
                .map(|(_, a)| a.0)
                .collect();
            distinct.sort();
            distinct.dedup();
            let _ = write!(
                line,
                "; DFA {} states, {} transitions, {} distinct areas",
                p.states,
                p.transition_count(),
                distinct.len()
            );
        }
        let _ = writeln!(s, "{line}");
    }
    match &m.kind {
        ModelKind::Automata(a) => {
            let _ = writeln!(
                s,
                "NFA: {} states, {} transitions, {} initial, {} accepting",
                a.nfa.states(),
                a.nfa.transitions().len(),
                a.nfa.initial().len(),
                a.nfa.accepting_count()
            );
            let _ = writeln!(s, "areas: {} interned", a.areas.len());
        }
        ModelKind::TermOnly(why) => {
            let _ = writeln!(s, "term-only: {why}");
        }
    }
    for n in &m.stats.notices {
        let _ = writeln!(s, "note: {n}");
    }
    s
}
