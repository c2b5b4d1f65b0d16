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

/// Which membership question is asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
pub enum Mode {
    /// Is the multitrace accepted (complete observation)?
    Complete,
    /// Is it a multi-prefix of an accepted multitrace (partial observation)?
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

/// How far the search went, for explaining a failure.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Furthest {
    /// Number of actions consumed on each component at the furthest point reached.
    pub consumed: Vec<usize>,
    /// Actions the model could execute there.
    pub expected: Vec<Sym>,
}

/// The full result for one multitrace.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    /// Pass, WeakPass, Fail or Inconclusive.
    pub kind: VerdictKind,
    /// Why, for Fail and Inconclusive.
    pub reason: Option<Reason>,
    /// Furthest point reached, for a Fail of a search.
    pub furthest: Option<Furthest>,
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
            furthest: None,
            vertices: 0,
            witness: None,
        }
    }

    /// A one-line explanation for humans (empty for Pass and WeakPass); `render` names what
    /// was expected.
    pub fn explain(&self, render: &dyn Fn(Sym) -> String, component_names: &[String]) -> String {
        let acts = |v: &[Sym]| {
            if v.is_empty() {
                "nothing".to_string()
            } else {
                v.iter().map(|&a| render(a)).collect::<Vec<_>>().join(", ")
            }
        };
        let mut parts = Vec::new();
        match &self.reason {
            Some(Reason::LocalError {
                location,
                position,
                expected,
            }) => parts.push(format!(
                "LocalError at {} position {}, expected {}",
                component_names
                    .get(location.index())
                    .map(String::as_str)
                    .unwrap_or("?"),
                position,
                acts(expected)
            )),
            Some(Reason::Budget { limit, established }) => {
                let mut s = format!("{limit} budget exhausted");
                if let Some(e) = established {
                    s.push_str(&format!(" ({e})"));
                }
                parts.push(s);
            }
            Some(r) => parts.push(r.name().to_string()),
            None => {}
        }
        if let Some(f) = &self.furthest {
            let consumed: Vec<String> = f
                .consumed
                .iter()
                .enumerate()
                .map(|(k, n)| {
                    format!(
                        "{}:{}",
                        component_names.get(k).map(String::as_str).unwrap_or("?"),
                        n
                    )
                })
                .collect();
            parts.push(format!(
                "furthest consumed [{}], expected next {}",
                consumed.join(" "),
                acts(&f.expected)
            ));
        }
        parts.join("; ")
    }
}
