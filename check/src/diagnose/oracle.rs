//! The question a diagnosis asks of a model: is this cut of the multitrace (perhaps extended
//! by one action) a multi-prefix of an accepted multitrace?
//!
//! Invariants: [`Oracle::consistent`] is exact (or says that its budget ran out); the shortcuts
//! ([`Oracle::possible`], [`Oracle::surely`], [`Oracle::known_below`], [`EndQueries`]) only
//! save searches, each a necessary or a sufficient condition, never a guess.

use multitrace_model::budget::Budget;
use multitrace_model::nfa::LetterId;
use multitrace_model::verdict::Sym;

/// Answers "is this cut of the multitrace a multi-prefix of an accepted one?".
pub(super) trait Oracle {
    /// Length of each local trace.
    fn lens(&self) -> Vec<usize>;
    /// The `p`-th action of trace `i`.
    fn action(&self, i: usize, p: usize) -> Sym;
    /// Every action location `i` could do.
    fn candidates(&self, i: usize) -> Vec<Sym>;
    /// The candidates of location `i` after the cut `v` that its own model does not rule out:
    /// those `a` such that `i`'s cut trace followed by `a` is a prefix of a behaviour of the
    /// model restricted to `i`. A necessary condition for the cut extended by `a` to be
    /// consistent (a multi-prefix's component is a prefix of the projection of an accepted
    /// multitrace), decided without a search, so that [`Queries::allowed`] asks the oracle only
    /// about these. A subset of `candidates(i)`, in its order; by default all of them.
    ///
    /// [`Queries::allowed`]: super::queries::Queries::allowed
    fn possible(&mut self, v: &[usize], i: usize) -> Vec<Sym> {
        let _ = v;
        self.candidates(i)
    }
    /// Whether the cut `v` extended by `a` on location `i` is known to be consistent without
    /// a search (a sufficient condition; `v` itself is consistent). By default nothing is.
    fn surely(&mut self, v: &[usize], i: usize, a: Sym) -> bool {
        let _ = (v, i, a);
        false
    }
    /// Whether the cut `v` is known to be consistent without a search (below a cut the
    /// caller found consistent: downward closure). By default none is.
    fn known_below(&self, v: &[usize]) -> bool {
        let _ = v;
        false
    }
    /// Whether the cut at `v`, with `extra` appended to one trace, is consistent; `Err` when
    /// `budget` ran out; with the vertices spent.
    fn consistent(
        &mut self,
        v: &[usize],
        extra: Option<(usize, Sym)>,
        budget: &Budget,
    ) -> (Result<bool, &'static str>, u64);
}

/// Answers to the questions about a cut of the multitrace extended by one letter, from a
/// caller that holds more than the letters: the live monitor's product is at the cut (the
/// end of the run, or its events but the last), so a step and a search over its faces answer
/// what AC's search would find from scratch, and its guess shows most extending letters
/// without a search.
pub trait EndQueries {
    /// Whether the cut `v` with letter `a` appended to location `i`'s trace is a
    /// multi-prefix; `None` when it cannot tell (a cut it holds nothing for, or a budget that
    /// ran out: then the search answers).
    fn extends(&mut self, v: &[usize], i: usize, a: LetterId) -> Option<bool>;
}
