//! What a generation is asked ([`GenOptions`]) and what it gives ([`Generation`], one
//! [`Labelled`] multitrace per item, or a [`GenError`]).

use super::kinds::Kind;
use multitrace_check::explore::Budget;
use multitrace_model::nfa::LetterId;
use multitrace_model::verdict::{Mode, Verdict};
use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

/// What to generate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenOptions {
    /// The category.
    pub kind: Kind,
    /// How many multitraces.
    pub count: usize,
    /// Shortest total length (actions over all locations).
    pub min_len: usize,
    /// Longest total length (inclusive).
    pub max_len: usize,
    /// Seed of the generator.
    pub seed: u64,
    /// Most candidates checked; `None`: `100 * count + 1000`.
    pub max_attempts: Option<usize>,
    /// Budget of each check (vertices only, so that generation stays deterministic).
    pub max_vertices: Option<u64>,
    /// Most wall-clock time for the whole generation (`None`: none). Reaching it is
    /// [`GenError::Timeout`], never a different set: what is produced within the time is the
    /// start of what an unbounded run produces.
    pub timeout: Option<Duration>,
}

impl GenOptions {
    /// `count` multitraces of `kind` with lengths in `min_len..=max_len`.
    pub fn new(kind: Kind, count: usize, min_len: usize, max_len: usize, seed: u64) -> Self {
        GenOptions {
            kind,
            count,
            min_len,
            max_len,
            seed,
            max_attempts: None,
            max_vertices: Budget::default().max_vertices,
            timeout: None,
        }
    }
}

/// One generated multitrace and the verdict it was checked to have.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Labelled {
    /// One local trace per location of the model.
    pub traces: Vec<Vec<LetterId>>,
    /// Its verdict by AS in `mode`.
    pub verdict: Verdict,
    /// The mode it was checked in.
    pub mode: Mode,
}

impl Labelled {
    /// Total number of actions.
    pub fn len(&self) -> usize {
        self.traces.iter().map(Vec::len).sum()
    }

    /// Whether every local trace is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The result of a generation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Generation {
    /// The multitraces, in generation order.
    pub items: Vec<Labelled>,
    /// Candidates built (kept or not).
    pub attempts: usize,
    /// Why candidates were not kept, with counts (`Pass`, `Fail/InterError`, `length out of
    /// range`, ...).
    pub rejected: BTreeMap<String, usize>,
}

impl Generation {
    /// "12 Pass, 3 Fail/InterError" (or "none").
    pub fn rejected_summary(&self) -> String {
        if self.rejected.is_empty() {
            return "none".into();
        }
        let mut v: Vec<(&String, &usize)> = self.rejected.iter().collect();
        v.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        v.iter()
            .map(|(k, n)| format!("{n} {k}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Why a category cannot be generated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GenError {
    /// The model has no automata (term-only), or the options are wrong.
    Unsupported(String),
    /// The model cannot produce the category at all, and why.
    Impossible {
        /// The category.
        kind: Kind,
        /// Why.
        why: String,
    },
    /// Fewer multitraces than asked within the attempt bound; what was produced.
    Shortfall {
        /// The category.
        kind: Kind,
        /// How many were asked for.
        wanted: usize,
        /// What was produced, with the rejection counts.
        partial: Box<Generation>,
    },
    /// [`GenOptions::timeout`] ran out; what was produced before.
    Timeout {
        /// The category.
        kind: Kind,
        /// How many were asked for.
        wanted: usize,
        /// The time limit.
        limit: Duration,
        /// Where the time went: `"building the table of run lengths"`, `"checking candidates"`, ...
        during: &'static str,
        /// What was produced, with the rejection counts.
        partial: Box<Generation>,
    },
}

impl fmt::Display for GenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GenError::Unsupported(why) => f.write_str(why),
            GenError::Timeout {
                kind,
                wanted,
                limit,
                during,
                partial,
            } => write!(
                f,
                "time limit of {} s reached while {during}: {} of {wanted} `{kind}` multitraces after {}; raise --timeout (0: none), or ask for fewer or shorter multitraces",
                limit.as_secs_f64(),
                partial.items.len(),
                multitrace_model::tally::plural(partial.attempts, "candidate", "candidates"),
            ),
            GenError::Impossible { kind, why } => {
                write!(f, "cannot generate `{kind}` multitraces for this model: {why}")
            }
            GenError::Shortfall {
                kind,
                wanted,
                partial,
            } => write!(
                f,
                "only {} of {wanted} `{kind}` multitraces after {} ({}); candidates rejected: {}",
                partial.items.len(),
                multitrace_model::tally::plural(partial.attempts, "candidate", "candidates"),
                match kind {
                    Kind::Pass => "no accepted multitrace was found",
                    Kind::LocalError => "mutations rarely leave the local languages here",
                    Kind::InterError =>
                        "mixed local traces can still be interleaved into a run the model accepts here",
                    Kind::CentralError =>
                        "iterating cycles differently per location is still accepted or caught earlier here; `central-error-mixed` builds central errors by mixing local traces",
                    Kind::CentralErrorMixed =>
                        "mixed local traces are accepted here, or already caught by a local check or by the check that some interleaving of them is accepted",
                    Kind::Prefix => "cut multitraces are mostly still accepted here",
                    _ => "most candidates were inconclusive or out of the length range",
                },
                partial.rejected_summary()
            ),
        }
    }
}

impl std::error::Error for GenError {}
