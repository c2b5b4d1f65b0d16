//! Interaction terms and their operational semantics.
//!
//! Terms live in a [`TermStore`] that interns them (hash-consing): equal terms share one
//! [`TermId`], which the explorer memoizes on. The store also memoizes pruning, execution and
//! lifeline removal, so a store is per-thread scratch state: clone the model's store for each
//! worker. Every constructor normalizes with rules that preserve the global-trace semantics
//! (∅ neutral in sequencing, right-associated sequencing, `alt(x, x) = x`, `loop(∅) = ∅`,
//! Kleene idempotence of a loop with its own sequencing), so any id may stand for the term it
//! was built from.

mod display;
mod semantics;
mod store;

pub use display::TermDisplay;
pub use store::{children, LoopKind, Term, TermId, TermStore};
