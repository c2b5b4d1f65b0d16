//! Text views of a compiled model: the description `multitrace inspect` prints, and Graphviz
//! drawings of the NFA and of one location's local verifier (`multitrace draw`).

use multitrace_runtime::model::{CompiledModel, ModelKind};
use multitrace_runtime::nfa::{LocationId, StateId};
use multitrace_runtime::project::NO_STATE;
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

/// Why a model cannot be drawn as asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DrawError {
    /// A term-only model has no automata.
    TermOnly,
    /// No location of that name.
    UnknownLocation {
        /// The name asked for.
        name: String,
        /// The model's locations.
        locations: Vec<String>,
    },
}

impl std::fmt::Display for DrawError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DrawError::TermOnly => {
                f.write_str("this model is term-only: it has no automata to draw (draw --diagram draws its interaction)")
            }
            DrawError::UnknownLocation { name, locations } => write!(
                f,
                "unknown location `{name}`; locations are {}",
                locations.join(" ")
            ),
        }
    }
}

impl std::error::Error for DrawError {}

/// Graphviz of the NFA (`dfa: None`) or of the local verifier of the location named `dfa`:
/// states show their names (DFA states their subsets), transitions their letters (and area
/// ids).
pub fn dot(m: &CompiledModel, dfa: Option<&str>) -> Result<String, DrawError> {
    let Some(a) = m.automata() else {
        return Err(DrawError::TermOnly);
    };
    let mut dot = String::new();
    if dfa.is_none() {
        let _ = writeln!(dot, "digraph nfa {{\n  rankdir=LR;\n  node [shape=circle];");
        for s in 0..a.nfa.states() {
            let st = StateId(s as u32);
            let shape = if a.nfa.is_accepting(st) {
                "doublecircle"
            } else {
                "circle"
            };
            let _ = writeln!(
                dot,
                "  q{s} [label=\"{}\", shape={shape}];",
                esc(&a.nfa.state_name(st))
            );
        }
        for (i, s) in a.nfa.initial().iter().enumerate() {
            let _ = writeln!(dot, "  init{i} [shape=point];\n  init{i} -> q{};", s.0);
        }
        for t in a.nfa.transitions() {
            let _ = writeln!(
                dot,
                "  q{} -> q{} [label=\"{}\"];",
                t.from.0,
                t.to.0,
                esc(m.alphabet.name(t.letter))
            );
        }
    } else {
        let name = dfa.unwrap_or_default();
        let Some(k) = m.alphabet.location_names().iter().position(|n| n == name) else {
            return Err(DrawError::UnknownLocation {
                name: name.to_string(),
                locations: m.alphabet.location_names().to_vec(),
            });
        };
        let p = &a.projections[k];
        let letters = m.alphabet.letters_of(LocationId(k as u32));
        let _ = writeln!(
            dot,
            "digraph dfa {{\n  rankdir=LR;\n  init [shape=point];\n  init -> d0;"
        );
        for s in 0..p.states as usize {
            let subset: Vec<String> = p.subsets[s].iter().map(|&q| a.nfa.state_name(q)).collect();
            let shape = if p.accepting[s] {
                "doublecircle"
            } else {
                "circle"
            };
            let _ = writeln!(
                dot,
                "  d{s} [label=\"{{{}}}\", shape={shape}];",
                esc(&subset.join(","))
            );
            for (x, &letter) in letters.iter().enumerate() {
                if let Some((t, area)) = p.step(s as u32, x as u32) {
                    let _ = writeln!(
                        dot,
                        "  d{s} -> d{t} [label=\"{} / area {}\"];",
                        esc(m.alphabet.name(letter)),
                        area.0
                    );
                }
            }
        }
    }
    dot.push_str("}\n");
    Ok(dot)
}

fn esc(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}
