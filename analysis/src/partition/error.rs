//! Why the partition analysis cannot run on a model ([`PartitionError`]).

use super::blocks::MAX_ATOMS;
use multitrace_check::CheckError;
use multitrace_compiler::source::SourceError;
use multitrace_compiler::syntax::ModelError;
use std::fmt;

/// Why the analysis cannot run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PartitionError {
    /// The model could not be read or compiled.
    Source(SourceError),
    /// The model has no automata for the global language or for a partition (term-only), so
    /// the analysis cannot run on automata; the string says why.
    NotAutomata {
        /// Which model: "the global language" or a partition.
        what: String,
        /// The compiler's reason.
        reason: String,
    },
    /// More atoms than [`MAX_ATOMS`].
    TooManyLocations(usize),
    /// The interaction text could not be read again for the static analysis.
    Statics(ModelError),
    /// A check of the runtime refused to run (a bug: the analysis asks only what the models
    /// support).
    Check(CheckError),
    /// A letter missing from a model compiled from the same source (a bug).
    LetterMissing {
        /// The letter's name.
        letter: String,
    },
    /// A model without the automata its origin implies (a bug): what was missing.
    Inconsistent(&'static str),
}

impl fmt::Display for PartitionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PartitionError::Source(e) => e.fmt(f),
            PartitionError::NotAutomata { what, reason } => write!(
                f,
                "{what} is not compiled to automata ({reason}); the partition analysis needs automata"
            ),
            PartitionError::TooManyLocations(n) => write!(
                f,
                "{n} locations to partition; the analysis handles at most {MAX_ATOMS}"
            ),
            PartitionError::Statics(m) => write!(f, "static analysis: {m}"),
            PartitionError::Check(e) => write!(f, "internal error: {e}"),
            PartitionError::LetterMissing { letter } => {
                write!(f, "internal error: letter {letter} missing")
            }
            PartitionError::Inconsistent(what) => write!(f, "internal error: {what}"),
        }
    }
}

impl std::error::Error for PartitionError {}

impl From<SourceError> for PartitionError {
    fn from(e: SourceError) -> Self {
        PartitionError::Source(e)
    }
}
