//! Verdicts: the normal result of a check (a Fail is a result, not an error).

use crate::nfa::LetterId;
use crate::signature::{Action, LocationId, Signature};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Something a model expected: an action (term exploration) or a letter (automata).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Sym {
    /// An interaction action.
    Action(Action),
    /// A letter of a compiled model's alphabet.
    Letter(LetterId),
}

/// Which membership question is asked: complete observation, or partial observation (the
/// logs may stop early, a location may not be observed). With the `clap` feature, the values
/// of `--mode`, whose help is these variants' docs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Mode {
    /// Is the multitrace accepted? (Pass or Fail)
    Complete,
    /// Is it a multi-prefix of an accepted multitrace? (Pass, WeakPass or Fail)
    #[default]
    Prefix,
}

/// The answer for one multitrace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum VerdictKind {
    /// The multitrace is accepted.
    Pass,
    /// Prefix mode: not accepted, but a multi-prefix of an accepted multitrace.
    WeakPass,
    /// Neither.
    Fail,
    /// A budget ran out before the answer was known.
    Inconclusive,
}

impl VerdictKind {
    /// The name used in outputs.
    pub fn name(self) -> &'static str {
        match self {
            VerdictKind::Pass => "Pass",
            VerdictKind::WeakPass => "WeakPass",
            VerdictKind::Fail => "Fail",
            VerdictKind::Inconclusive => "Inconclusive",
        }
    }
}

impl fmt::Display for VerdictKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a multitrace failed (or could not be decided).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Reason {
    /// A local trace is rejected on its own (AS step 1).
    LocalError {
        /// The location whose trace is rejected.
        location: LocationId,
        /// Index of the first action that cannot be read (the trace length when the trace is
        /// a proper prefix in complete mode).
        position: usize,
        /// Actions that were possible there.
        expected: Vec<Sym>,
    },
    /// The intersection of the local areas has no accepting path (AS step 2).
    InterError,
    /// No interleaving is accepted (centralized search failed).
    CentralError,
    /// The budget ran out.
    Budget {
        /// Which budget ("vertices", "time", "depth").
        limit: String,
        /// What was already established, if anything (e.g. "accepted as a multi-prefix").
        established: Option<String>,
    },
}

impl Reason {
    /// The short name used in outputs.
    pub fn name(&self) -> &'static str {
        match self {
            Reason::LocalError { .. } => "LocalError",
            Reason::InterError => "InterError",
            Reason::CentralError => "CentralError",
            Reason::Budget { .. } => "Budget",
        }
    }
}

/// One location's next action at the furthest consistent point of a failed multitrace.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Blocked {
    /// The location (component index of the diagnosed multitrace).
    pub location: LocationId,
    /// How many actions of this location were consumed before it: the action found is the
    /// `position + 1`-th (outputs count from 1).
    pub position: usize,
    /// The action found there, or `None` at the end of the trace (complete mode: the run
    /// cannot end, this location must go on).
    pub found: Option<Sym>,
    /// What the model allows this location to do there.
    pub allowed: Vec<Sym>,
}

/// Why a multitrace fails, computed from the model and the multitrace alone: the same
/// whatever procedure gave the verdict (see `multitrace_check::diagnose`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnosis {
    /// The furthest consistent point: actions consumed per location (a maximal vector whose
    /// cut is a multi-prefix of an accepted multitrace, chosen by the canonical rule).
    pub consumed: Vec<usize>,
    /// For each location that cannot go on there with its next action (or, in complete mode
    /// once every action is consumed, each location that can still act): what it found and what
    /// the model allows.
    pub blocked: Vec<Blocked>,
    /// The model allows no action at all after the furthest point: the interaction has ended.
    pub ended: bool,
    /// A LocalError, as the location's local verifier sees it: the position where its trace
    /// alone is rejected, the action found there, and what the verifier allowed.
    pub local: Option<Blocked>,
    /// The diagnosis budget ran out: `consumed` is consistent but maybe not maximal, and
    /// `blocked` lists only what was established.
    pub partial: bool,
    /// When partial: the budget that ran out (`vertices`, `time`, `memory`), if known.
    #[serde(default)]
    pub ran_out: Option<String>,
    /// Search vertices spent on the diagnosis.
    pub vertices: u64,
}

/// The full result for one multitrace.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    /// Pass, WeakPass, Fail or Inconclusive.
    pub kind: VerdictKind,
    /// Why, for Fail and Inconclusive.
    pub reason: Option<Reason>,
    /// For a Fail (when asked for): where and why, the same for every procedure.
    pub diagnosis: Option<Diagnosis>,
    /// Search vertices visited.
    pub vertices: u64,
    /// When asked for, for a Pass: one accepted global interleaving of the local traces, as
    /// (component, action or letter) in global order.
    pub witness: Option<Vec<(usize, Sym)>>,
}

/// Renders a [`Sym`] of an interaction model whose letters are not known (term exploration).
pub fn render_with_signature(sig: &Signature) -> impl Fn(Sym) -> String + '_ {
    move |s| match s {
        Sym::Action(a) => sig.action_to_string(a),
        Sym::Letter(l) => format!("#{}", l.0),
    }
}

impl Verdict {
    /// A verdict with no explanation.
    pub fn new(kind: VerdictKind) -> Self {
        Verdict {
            kind,
            reason: None,
            diagnosis: None,
            vertices: 0,
            witness: None,
        }
    }
}

/// A check procedure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Procedure {
    /// Centralized search of `Central(A, μ)`.
    Ac,
    /// Local checks, `Inter`, then AC on `Inter`.
    As,
    /// Term exploration.
    Term,
}

impl Procedure {
    /// `"ac"`, `"as"` or `"term"`.
    pub fn name(self) -> &'static str {
        match self {
            Procedure::Ac => "ac",
            Procedure::As => "as",
            Procedure::Term => "term",
        }
    }
}
