//! Why sets could not be read or compared ([`CompareError`]).

use multitrace_check::CheckError;
use multitrace_model::model::TraceMismatch;
use multitrace_model::record::ErrorRecord;
use multitrace_model::syntax::ModelError;
use std::fmt;
use std::path::PathBuf;

/// Why sets could not be read or compared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CompareError {
    /// The model is term-only: AC and AS need automata.
    TermOnly,
    /// A directory could not be listed.
    Directory {
        /// The directory.
        path: PathBuf,
        /// The system's explanation.
        message: String,
    },
    /// A file (a multitrace or a manifest) could not be read or is not valid.
    Read(ModelError),
    /// A multitrace file that cannot be read or is not valid (the batch reader's record, with
    /// the position).
    Input(ErrorRecord),
    /// A manifest names a JSON Lines multitrace that its file does not hold.
    NoSuchId {
        /// The JSON Lines file.
        path: PathBuf,
        /// The id.
        id: String,
    },
    /// A `.htf` multitrace for a raw automaton.
    HtfForAutomaton {
        /// The file.
        file: String,
    },
    /// A multitrace whose components are not the model's locations.
    Letters {
        /// The file.
        file: String,
        /// What does not fit.
        mismatch: TraceMismatch,
    },
    /// A file that is not a multitrace (by its extension).
    Extension {
        /// The file.
        file: String,
    },
    /// A check could not run.
    Check {
        /// The multitrace.
        item: String,
        /// Why.
        error: CheckError,
    },
}

impl fmt::Display for CompareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CompareError::TermOnly => {
                f.write_str("compare runs AC and AS, which need automata; this model is term-only")
            }
            CompareError::Directory { path, message } => {
                write!(f, "{}: cannot read directory: {message}", path.display())
            }
            CompareError::Read(e) => e.fmt(f),
            CompareError::Input(e) => f.write_str(&e.message),
            CompareError::NoSuchId { path, id } => {
                write!(f, "{}: no multitrace with id `{id}`", path.display())
            }
            CompareError::HtfForAutomaton { file } => write!(
                f,
                "{file}: this model is a raw automaton; give .mtf or .jsonl multitraces"
            ),
            CompareError::Letters { file, mismatch } => write!(f, "{file}: {mismatch}"),
            CompareError::Extension { file } => {
                write!(f, "{file}: expected a .htf, .mtf or .jsonl file")
            }
            CompareError::Check { item, error } => write!(f, "{item}: {error}"),
        }
    }
}

impl std::error::Error for CompareError {}

impl From<ModelError> for CompareError {
    fn from(e: ModelError) -> Self {
        CompareError::Read(e)
    }
}
