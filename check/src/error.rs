//! Why a check cannot run (a Fail is a verdict, not this).

use multitrace_model::verdict::Procedure;
use std::fmt;

/// A check that cannot run (not a Fail: the question cannot be asked this way).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CheckError {
    /// AC or AS was asked for on a term-only model.
    NeedsAutomata {
        /// The procedure asked for.
        procedure: Procedure,
        /// Why the model is term-only.
        why: String,
    },
    /// Term exploration was asked for on a raw automaton.
    NeedsInteraction,
    /// Not one local trace per location.
    TraceCount {
        /// The model's locations.
        expected: usize,
        /// The traces given.
        found: usize,
    },
    /// A letter that is not one of its trace's location's letters.
    ForeignLetter {
        /// The letter's id.
        letter: u32,
        /// The location of the trace that holds it.
        location: String,
    },
    /// The multitrace does not fit the compiled model's locations or alphabet.
    Mismatch(multitrace_model::model::TraceMismatch),
}

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CheckError::NeedsAutomata { procedure, why } => write!(
                f,
                "--procedure {} needs automata, but this model is term-only ({why}); use --procedure term or auto",
                procedure.name()
            ),
            CheckError::NeedsInteraction => f.write_str(
                "--procedure term needs an interaction; this model is a raw automaton",
            ),
            CheckError::TraceCount { expected, found } => write!(
                f,
                "one local trace per location expected ({expected} locations), found {found}"
            ),
            CheckError::ForeignLetter { letter, location } => write!(
                f,
                "letter {letter} in the trace of location {location}: every letter must be one of that location's letters"
            ),
            CheckError::Mismatch(m) => m.fmt(f),
        }
    }
}

impl std::error::Error for CheckError {}
