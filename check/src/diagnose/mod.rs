//! Diagnosis of a failed multitrace: where it stops making sense, and what the model allowed
//! there, computed from the model and the multitrace alone.
//!
//! A verdict comes from one of three procedures (AC, AS, term exploration), each with options
//! (viability pruning, POR, local analyses, memoization) that change how far a search went
//! before it gave up. An explanation read off one search would therefore depend on the
//! procedure; the diagnosis does not. It is defined on the semantics only:
//!
//! - A vector `v` of consumed positions is **consistent** when the multitrace cut at `v` (each
//!   local trace `i` keeps its first `v[i]` actions) is a multi-prefix of an accepted
//!   multitrace. Consistent vectors are downward closed (a prefix of a multi-prefix is one).
//! - **The furthest consistent point** is the maximal consistent vector reached by the
//!   *canonical rule*: start from `0` and advance the locations in turn, in location order, one
//!   action at a time, as long as the cut stays consistent; a location that cannot advance is
//!   done (by downward closure it can never advance again). The result is maximal: a
//!   consistent `v' > v` would make `v + e_i ≤ v'` consistent for some done location `i`. The
//!   rule lets every location progress at the same pace, so no location is blamed merely for
//!   coming first. (When the model accepts nothing at all, the point is `0`.)
//! - For each location with actions left there, its next action is **blocked**: the
//!   diagnosis gives its 1-based position, the action, and the actions of that location the
//!   model **allows** there (the `a` such that the cut extended by `a` on that location is
//!   consistent). In complete mode, when every action is consumed but the multitrace is not
//!   accepted, each location that can still act is listed with what it can do (`found` is the
//!   end of its trace). When no location can do anything more, the interaction has **ended**.
//! - The reason keeps AS's classification (LocalError / InterError / CentralError) whenever the
//!   model has automata, whichever procedure ran ([`classify`]); a LocalError also reports what
//!   the location's local verifier allowed where it rejected the trace.
//!
//! Every question is a prefix-membership query answered exactly: by AC's first search on
//! automata ([`ac::is_multi_prefix_in`]), by term exploration otherwise
//! ([`explore::is_multi_prefix`]). Both are exact, so the diagnosis of an interaction compiled
//! to automata is the same with either oracle (tested). The diagnosis has its own budget,
//! shared by all its queries; when it runs out the verdict stands and the diagnosis is marked
//! partial (its point is consistent, but maybe not maximal).
//!
//! The stages, one module each: `oracle` (the question a diagnosis asks, and [`EndQueries`],
//! the answers a caller may already hold), `automata` (the oracle of a compiled model, and its
//! diagnosis), `term` (the oracle of an interaction, and its diagnosis), `queries` (the
//! questions under one shared budget), `furthest` (the canonical rule: the furthest consistent
//! point, what is blocked there and what is allowed, and the LocalError found by queries), and
//! `reason` ([`classify`]: AS's reason of a Fail).
//!
//! [`ac::is_multi_prefix_in`]: crate::ac::is_multi_prefix_in
//! [`explore::is_multi_prefix`]: crate::explore::is_multi_prefix

mod automata;
mod furthest;
mod oracle;
mod queries;
mod reason;
mod term;

pub(crate) use automata::diagnose_letters;
pub(crate) use furthest::known_whole;
pub use oracle::EndQueries;
pub use reason::classify;
pub(crate) use reason::local_entry;
pub(crate) use term::{diagnose_term, TermOracle};
