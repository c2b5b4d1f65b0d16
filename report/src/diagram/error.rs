//! Why an interaction cannot be drawn ([`DiagramError`]).

use std::fmt;

/// Why an interaction cannot be drawn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DiagramError {
    /// Boxes are nested deeper than the limit ([`super::tree::MAX_DIAGRAM_NESTING`]).
    TooDeep {
        /// The limit.
        limit: usize,
    },
    /// The model is a raw automaton: it has no interaction to draw.
    NotAnInteraction,
}

impl fmt::Display for DiagramError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DiagramError::TooDeep { limit } => write!(
                f,
                "the interaction nests combined fragments deeper than {limit} levels, too deep to draw"
            ),
            DiagramError::NotAnInteraction => write!(
                f,
                "this model is a raw automaton, not an interaction: it has no sequence diagram (draw its automata with --nfa or --dfa)"
            ),
        }
    }
}

impl std::error::Error for DiagramError {}
