//! Which participants must be monitored together (seed 002), for a partition of the
//! lifelines (or, for a raw automaton, of its letters) into locations.
//!
//! Two questions are asked of a partition `P` (module [`inclusion`] and module [`central`]):
//!
//! - **(a) Does `P` lose guarantees on global traces?** A *counterexample* is a global trace `w`
//!   that the network can produce ([`Causality`]), whose projection on every location is
//!   accepted by that location's local verifier `Proj(A, Σi)`, and that `A` rejects. This is
//!   seed 002's comparison of independent local monitors with one monitor of the whole system.
//!   It is decided by a breadth-first search of the product of the local verifiers, the
//!   determinized `A` and the in-flight message counters, which gives the shortest
//!   counterexample; the counters are exact up to a bound and abstracted beyond it (see
//!   [`inclusion`] for what is then proven).
//! - **(b) Is the central step needed?** A *counterexample* is a multitrace that the network can
//!   produce, that every local verifier accepts, and that is not accepted (AS's InterError or
//!   CentralError). When (a) holds, (b) holds (proven in [`central`]); otherwise (b) is searched
//!   exhaustively up to a number of actions, then by random sampling.
//!
//! Faithfulness for (a) is preserved by coarsening (the local verifiers of a coarser partition
//! accept fewer global traces), so the faithful partitions are those coarser than the *finest
//! faithful partitions*, which [`search`] looks for, guided by a static analysis of the
//! interaction ([`statics`]: seed 002's Def. 1 and our adaptation to asynchronous messages).
//!
//! The global language `L(A)` is the one of the model compiled with a single location, so that
//! no weak-to-strict rewriting applies (rewriting keeps multitraces, not global traces).
//! Every counterexample can be re-checked with the runtime's own procedures ([`recheck`]).
//!
//! [`run`] is the whole analysis as the `partition` command runs it (the given partition, the
//! finest faithful partitions, the counterexample files of [`files`], the local checks of
//! [`local`]), giving a [`report::Report`] printed by [`text`] or [`json`].

mod blocks;
mod causality;
pub mod central;
pub mod deadline;
mod error;
pub mod files;
pub mod inclusion;
pub mod json;
mod lazy;
pub mod local;
pub mod options;
mod problem;
pub mod recheck;
pub mod report;
pub mod request;
pub mod run;
pub mod search;
pub mod statics;
pub mod text;

pub use blocks::{Partition, MAX_ATOMS};
pub use causality::Causality;
pub use error::PartitionError;
pub use lazy::Analyzer;
pub use problem::Problem;
