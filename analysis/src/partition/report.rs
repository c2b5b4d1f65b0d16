//! What the analysis of a model found ([`Report`]): for the given partition (a) and (b) with
//! their re-checks ([`Analysis`]), the finest faithful partitions, the partitions derived from
//! the static conditions and how they were judged, the files written and the local checks; and
//! the [`Outcome`] that decides the exit status.

use super::central::Central;
use super::inclusion::Inclusion;
use super::options::{Question, RunOptions};
use super::recheck::Recheck;
use super::search::{SearchOutcome, Status};
use super::{Partition, PartitionError, Problem};
use multitrace_model::model::CompiledModel;
use multitrace_model::nfa::LetterId;
use multitrace_model::verdict::VerdictKind;
use std::path::PathBuf;

/// The answer that decides the exit status: 0, 1 and 3 as `check`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The question holds: faithful ((a)), the central step proven unnecessary ((b)), or every
    /// local check a Pass or WeakPass.
    Holds,
    /// A counterexample, or a local check that fails.
    Refuted,
    /// Undecided within the bounds (or no automaton), or a local check Inconclusive.
    Undecided,
}

impl Outcome {
    /// The exit status: 0, 1 or 3.
    pub fn exit_code(self) -> u8 {
        match self {
            Outcome::Holds => 0,
            Outcome::Refuted => 1,
            Outcome::Undecided => 3,
        }
    }
}

/// Everything computed for one partition and mode: (a), its re-check, (b) and its re-check.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// The partition.
    pub partition: Partition,
    /// The model compiled with it.
    pub model: CompiledModel,
    /// (a); an undecided (a) is settled by a counterexample to (b).
    pub inclusion: Inclusion,
    /// The runtime's re-check of (a)'s counterexample.
    pub inclusion_check: Option<Recheck>,
    /// (b).
    pub central: Central,
    /// The runtime's re-check of (b)'s counterexample.
    pub central_check: Option<Recheck>,
}

impl Analysis {
    /// Whether (b) is proven: no multitrace passing every local check is rejected.
    pub fn central_proven(&self) -> bool {
        matches!(
            self.central,
            Central::ProvenByInclusion | Central::ProvenExhaustive(_)
        )
    }

    /// The outcome of `question`.
    pub fn outcome(&self, question: Question) -> Outcome {
        match question {
            Question::A => match self.inclusion {
                Inclusion::Faithful { .. } => Outcome::Holds,
                Inclusion::Counterexample(_) => Outcome::Refuted,
                Inclusion::Undecided(_) => Outcome::Undecided,
            },
            Question::B => match self.central {
                Central::ProvenByInclusion | Central::ProvenExhaustive(_) => Outcome::Holds,
                Central::Counterexample(..) => Outcome::Refuted,
                Central::NoneFound(_) => Outcome::Undecided,
            },
        }
    }
}

/// What the search says of a partition derived by seed 002 or predicted by our static
/// conditions, with a re-checked counterexample when it is refuted.
#[derive(Clone, Debug)]
pub struct Judged {
    /// The partition.
    pub partition: Partition,
    /// Its status for (a) (`None`: unknown).
    pub status: Option<Status>,
    /// Its counterexample to (a), re-checked, when refuted.
    pub counterexample: Option<Vec<LetterId>>,
}

/// The finest partitions satisfying each family of static conditions (interactions), `None`
/// when more than the cap of partitions would have to be enumerated.
#[derive(Clone, Debug)]
pub struct Derived {
    /// Seed 002's conditions (Def. 1).
    pub seed002: Option<Vec<Partition>>,
    /// Ours.
    pub ours: Option<Vec<Partition>>,
}

/// The analysis of a model whose partitions have automata.
pub struct Analysed {
    /// What was asked.
    pub options: RunOptions,
    /// The model, its global language, letters and atoms.
    pub problem: Problem,
    /// The given partition in the given mode.
    pub main: Analysis,
    /// The search of the finest faithful partitions (`None`: not searched).
    pub search: Option<SearchOutcome>,
    /// The finest faithful partitions found, each with whether it is certain (no finer
    /// partition was left undecided).
    pub finest: Vec<(Partition, bool)>,
    /// The partitions derived from the static conditions (interactions).
    pub derived: Option<Derived>,
    /// Seed 002's derived partitions judged (at most [`super::options::MAX_SHOWN`], with a search).
    pub seed002_judged: Vec<Judged>,
    /// Our predicted partitions judged (at most [`super::options::MAX_SHOWN`], with a search).
    pub ours_judged: Vec<Judged>,
    /// The counterexample files written.
    pub written: Vec<Written>,
    /// The local checks of [`RunOptions::check_local`], if asked.
    pub local: Option<Vec<LocalVerdict>>,
    /// The outcome (of the local checks when asked, else of the question).
    pub outcome: Outcome,
}

impl Analysed {
    /// The finest faithful partitions, without their certainty.
    pub fn finest_partitions(&self) -> Vec<Partition> {
        self.finest.iter().map(|(p, _)| p.clone()).collect()
    }
}

/// A model for which no automaton can be built (with one location, and with the given
/// locations): the questions are undecided, which is an answer, not an input error.
pub struct NoAutomata {
    /// What was asked.
    pub options: RunOptions,
    /// Why ([`PartitionError::NotAutomata`]).
    pub reason: PartitionError,
}

/// What [`super::run::run`] found.
pub enum Report {
    /// No automaton can be built: undecided.
    NoAutomata(Box<NoAutomata>),
    /// The analysis ran.
    Analysed(Box<Analysed>),
}

impl Report {
    /// The outcome: what the exit status says.
    pub fn outcome(&self) -> Outcome {
        match self {
            Report::NoAutomata(_) => Outcome::Undecided,
            Report::Analysed(a) => a.outcome,
        }
    }
}

/// A file written for a counterexample, with the command that re-checks it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Written {
    /// The file.
    pub path: PathBuf,
    /// The `multitrace check` command that re-checks it.
    pub command: String,
    /// The verdict that command gives, in words.
    pub expect: String,
}

/// One multitrace checked by the local verifiers only.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocalVerdict {
    /// The file, as given or found.
    pub file: String,
    /// Pass, WeakPass, Fail or Inconclusive.
    pub verdict: VerdictKind,
    /// Why, in words.
    pub why: String,
}
