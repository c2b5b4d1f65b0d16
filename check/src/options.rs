//! What a check is asked: the procedure, the mode, the budgets, the witness and the diagnosis.

use super::explore::ExploreOptions;
use multitrace_model::budget::Budget;
use multitrace_model::verdict::{Mode, Procedure};

/// Which procedure to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Choice {
    /// AS on automata models, term exploration on term-only ones (and on multitraces whose
    /// components do not match the compiled locations).
    #[default]
    Auto,
    /// This one, or an error.
    Force(Procedure),
}

/// Options of a check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CheckOptions {
    /// Complete or prefix membership.
    pub mode: Mode,
    /// Procedure.
    pub choice: Choice,
    /// Term exploration options (its `mode` and `budget` are overridden by these).
    pub explore: ExploreOptions,
    /// Limits for every procedure.
    pub budget: Budget,
    /// Rebuild one accepted interleaving for a Pass.
    pub witness: bool,
    /// Diagnose every Fail ([`diagnose`](super::diagnose)) within this budget (all its queries
    /// together); `None`: no diagnosis (the reason is then the procedure's own).
    pub diagnosis: Option<Budget>,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            mode: Mode::default(),
            choice: Choice::default(),
            explore: ExploreOptions::default(),
            budget: Budget::default(),
            witness: false,
            diagnosis: Some(Budget::default()),
        }
    }
}
