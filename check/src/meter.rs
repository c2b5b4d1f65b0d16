//! The meter of term exploration: the vertices of a search (global and local analyses
//! together), its time and the depth of its terms, against the budget.

use multitrace_model::budget::Budget;
use multitrace_model::term::{TermId, TermStore};
use std::time::Instant;

/// Terms deeper than this stop the search (Inconclusive), so that the recursive semantic
/// functions stay within the stack of a checking thread (see
/// [`CHECK_STACK_SIZE`](super::explore::CHECK_STACK_SIZE)).
pub const MAX_TERM_DEPTH: u32 = 20_000;

/// Counts the vertices of a search (global and local together) against the budget.
pub(super) struct Meter {
    pub(super) vertices: u64,
    start: Instant,
    budget: Budget,
}

impl Meter {
    /// A meter of no vertex yet, started now.
    pub(super) fn new(budget: Budget) -> Self {
        Meter {
            vertices: 0,
            start: Instant::now(),
            budget,
        }
    }

    /// Counts a vertex with term `t`; `Err` names the budget that ran out.
    pub(super) fn tick(&mut self, store: &TermStore, t: TermId) -> Result<(), &'static str> {
        self.vertices += 1;
        if let Some(max) = self.budget.max_vertices {
            if self.vertices > max {
                return Err("vertices");
            }
        }
        if let Some(limit) = self.budget.timeout {
            if self.vertices.is_multiple_of(16) && self.start.elapsed() > limit {
                return Err("time");
            }
        }
        if store.depth(t) > MAX_TERM_DEPTH {
            return Err("term depth");
        }
        Ok(())
    }
}
