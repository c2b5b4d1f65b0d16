//! What a batch hands out: one record per input, its progress, why it stopped.

use multitrace_model::record::Record;
use std::fmt;

/// The record of one input, and whether it was checked by term exploration because its
/// components are not the model's compiled locations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The record.
    pub record: Record,
    /// Whether `auto` fell back to term exploration (the command line notes it).
    pub fallback: bool,
}

/// How far a batch is, given to the progress callback after each record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Records handed to the sink so far.
    pub done: usize,
    /// Number of inputs when known in advance (files only, or an iterator of known length).
    pub total: Option<usize>,
}

/// Why a batch stopped (an input that cannot be read is a record, not this).
#[derive(Debug)]
pub enum RunError<E> {
    /// A worker thread could not be started.
    Spawn(std::io::Error),
    /// The sink returned an error.
    Sink(E),
}

impl<E: fmt::Display> fmt::Display for RunError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Spawn(e) => write!(f, "cannot start a worker thread: {e}"),
            RunError::Sink(e) => e.fmt(f),
        }
    }
}

impl<E: fmt::Debug + fmt::Display> std::error::Error for RunError<E> {}
