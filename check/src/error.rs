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
    /// A table the check needs before any run would take more memory than its budget.
    TooLarge {
        /// What the table is, and what its size comes from.
        what: String,
        /// The bytes it needs.
        bytes: u128,
        /// The memory budget, in bytes.
        limit: u64,
        /// What to do instead.
        instead: String,
    },
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
            CheckError::TooLarge {
                what,
                bytes,
                limit,
                instead,
            } => write!(
                f,
                "{what} needs {:.1} GiB, over the memory budget of {:.1} GiB: {instead}",
                *bytes as f64 / (1u64 << 30) as f64,
                *limit as f64 / (1u64 << 30) as f64
            ),
        }
    }
}

impl std::error::Error for CheckError {}
