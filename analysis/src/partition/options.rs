//! What the `partition` command asks of [`super::run::run`]: the question that decides the
//! outcome, the bounds of each search, the files and the local checks ([`RunOptions`]).

use super::central::CentralLimits;
use super::inclusion::InclusionLimits;
use super::search::SearchLimits;
use multitrace_model::verdict::Mode;
use std::path::PathBuf;

/// Most partitions derived from the static conditions that are judged and shown, per family
/// (each refuted one costs a compilation to re-check its counterexample).
pub const MAX_SHOWN: usize = 24;

/// Which question decides the [`Outcome`](super::report::Outcome) (without local checks);
/// with the `clap` feature, the values of `--question`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Question {
    /// (a) global traces: can a violation escape every local verifier?
    A,
    /// (b) multitraces: is the central step needed?
    B,
}

impl Question {
    /// `a` or `b`.
    pub fn name(self) -> &'static str {
        match self {
            Question::A => "a",
            Question::B => "b",
        }
    }
}

/// What [`run`](super::run::run) is asked, besides the model and the compile options.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// The model's file as given: the output names it, and the commands of the counterexample
    /// files check it.
    pub model: PathBuf,
    /// The signature file given, if any (passed on in the commands of the files).
    pub signature: Option<PathBuf>,
    /// Whether the partition was given (rather than the default one); the text says which.
    pub locations_given: bool,
    /// Complete observation or multi-prefixes.
    pub mode: Mode,
    /// The question that decides the outcome (without local checks).
    pub question: Question,
    /// Bounds of (a).
    pub inclusion: InclusionLimits,
    /// Bounds of (b).
    pub central: CentralLimits,
    /// Bounds of the search of the finest faithful partitions (`max_partitions` also bounds
    /// the enumeration of the partitions derived statically).
    pub search: SearchLimits,
    /// Analyze the given partition only (no search of the finest faithful partitions).
    pub no_search: bool,
    /// Where the counterexample files are written, if anywhere.
    pub output: Option<PathBuf>,
    /// Multitrace files or directories checked by the local verifiers only (none: no such
    /// check).
    pub check_local: Vec<PathBuf>,
}
