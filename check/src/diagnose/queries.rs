//! The questions of one diagnosis under one shared budget.
//!
//! Invariants: once the budget has run out every later question is refused (`None`), and the
//! limit that ran out is kept; the answers the caller already holds (a cut below a known
//! consistent one, the whole multitrace) are given without spending any budget.

use super::oracle::Oracle;
use multitrace_model::budget::Budget;
use multitrace_model::verdict::Sym;
use std::time::Instant;

/// Queries under one shared budget.
pub(super) struct Queries<'o, O: Oracle + ?Sized> {
    pub(super) oracle: &'o mut O,
    pub(super) budget: Budget,
    pub(super) started: Instant,
    pub(super) vertices: u64,
    pub(super) exhausted: bool,
    /// The budget that ran out, once one has.
    pub(super) ran_out: Option<&'static str>,
    /// The whole multitrace's lengths, and whether it is consistent when that is known.
    pub(super) whole: (Vec<usize>, Option<bool>),
}

impl<O: Oracle + ?Sized> Queries<'_, O> {
    /// `None` once the budget has run out (then every later query is refused too).
    pub(super) fn ask(&mut self, v: &[usize], extra: Option<(usize, Sym)>) -> Option<bool> {
        if self.exhausted {
            return None;
        }
        if extra.is_none() && self.oracle.known_below(v) {
            // The oracle's own answer, without the budget's bookkeeping (a Fail's canonical
            // advance asks every cut below the run's last checked one, one event at a time).
            return Some(true);
        }
        if let (None, Some(b)) = (extra, self.whole.1) {
            if v == self.whole.0 {
                // The whole multitrace, known already (in prefix mode, a Fail's is not
                // consistent): no search.
                return Some(b);
            }
        }
        let left = Budget {
            max_vertices: self
                .budget
                .max_vertices
                .map(|m| m.saturating_sub(self.vertices)),
            timeout: self
                .budget
                .timeout
                .map(|t| t.saturating_sub(self.started.elapsed())),
            max_memory: self.budget.max_memory,
        };
        if left.max_vertices == Some(0) || left.timeout.is_some_and(|t| t.is_zero()) {
            self.exhausted = true;
            self.ran_out = Some(if left.max_vertices == Some(0) {
                "vertices"
            } else {
                "time"
            });
            return None;
        }
        let (answer, spent) = self.oracle.consistent(v, extra, &left);
        self.vertices += spent;
        match answer {
            Ok(b) => Some(b),
            Err(limit) => {
                self.exhausted = true;
                self.ran_out = Some(limit);
                None
            }
        }
    }

    /// The actions of location `i` the model allows after the cut `v`, except `skip` (known
    /// not to be allowed); `None` when the budget ran out.
    pub(super) fn allowed(&mut self, v: &[usize], i: usize, skip: Option<Sym>) -> Option<Vec<Sym>> {
        let mut out = Vec::new();
        for a in self.oracle.possible(v, i) {
            if Some(a) == skip {
                continue;
            }
            if self.oracle.surely(v, i, a) || self.ask(v, Some((i, a)))? {
                out.push(a);
            }
        }
        Some(out)
    }
}
