//! Generation of labelled multitraces for benchmarks and comparisons.
//!
//! For a model compiled to automata, [`generate`] produces multitraces of one [`Kind`]:
//!
//! - the categories of seed 004 (Sec. 5, Table 1), checked in complete mode:
//!   - [`Kind::Pass`]: random accepting runs of the NFA `A`, projected on the locations;
//!   - [`Kind::LocalError`]: such a multitrace with one or two local mutations (a letter of a
//!     location replaced, inserted, deleted, or two adjacent letters transposed);
//!   - [`Kind::InterError`]: local traces mixed from two or three correct multitraces;
//!   - [`Kind::CentralError`]: an accepting run `u c v` where `c` reads from a state back to
//!     itself, projected on each location `i` as the projection of `u c^ki v`, with different
//!     `ki` on the locations that `c` reads (every local trace stays locally correct);
//! - the categories of seed 001 (Sec. 6), checked in prefix mode:
//!   - [`Kind::Prefix`]: an accepting run's projection with actions cut from the ends of local
//!     traces (a multi-prefix);
//!   - [`Kind::Noise`]: a multi-prefix with one random letter inserted;
//!   - [`Kind::SwapActions`]: a multi-prefix with two different letters of one local trace
//!     swapped;
//!   - [`Kind::SwapComponents`]: a multi-prefix whose local trace at one location is taken from
//!     another multi-prefix.
//!
//! The stages, one module each: `kinds` ([`Kind`]: the categories and the verdicts they keep),
//! `walk` (the table of exact run lengths and the random walk), `mutate` (the candidates of
//! each kind), `feasible` (whether a kind can be produced at all), `driver` ([`generate`]: the
//! options, the table and the attempts), and `output` ([`write_set`]: the files and the
//! manifest rows of a set). The comparison harness that reads such sets back is
//! [`crate::compare`].
//!
//! Invariants:
//!
//! - **Nothing is labelled by construction**: every candidate is checked by AS (which gives
//!   the reason of a Fail) and kept only when its verdict is the one its kind asks for
//!   ([`Kind::accepts`]); the mutants of seed 001 keep whatever verdict they get. A candidate
//!   whose check runs out of budget (Inconclusive) is never kept.
//! - **Bounded**: at most [`GenOptions::max_attempts`] candidates; fewer multitraces than
//!   asked is [`GenError::Shortfall`], with what was produced and why candidates were
//!   rejected.
//! - **Impossible is said first**: a kind the model cannot produce is [`GenError::Impossible`]
//!   with the reason, before any attempt; the reasons are proofs, not heuristics.
//! - **Exact lengths**: a table `can[r]` of the states with an accepting run of exactly `r`
//!   steps (computed once, up to a little beyond the longest length asked) lets the walk pick,
//!   at each step, uniformly among the transitions that can still end in an accepting state at
//!   the target length, without retries.
//! - **Bounded in time when asked**: with [`GenOptions::timeout`], the clock is read between
//!   the stages and around every candidate, and each check gets the time left; reaching the
//!   limit is [`GenError::Timeout`] (with what was kept), so a set is never the product of a
//!   check cut short.
//! - **Progress**: [`generate_with`] reports the multitraces kept, of the count asked, to a
//!   [`ProgressFn`](crate::progress::ProgressFn) at a bounded rate.
//! - **Deterministic**: the same model, options and seed give the same multitraces. The one
//!   generator is [`multitrace_model::rng::Rng`] (splitmix64), seeded with the seed mixed
//!   with the kind (one stream per kind); budgets count vertices, never time. The order of the
//!   draws in every stage is part of this contract: reordering them changes every set.

mod driver;
mod feasible;
mod generator;
mod job;
mod kinds;
mod mutate;
mod output;
pub mod sat;
mod spec;
mod table;
#[cfg(test)]
mod tests;
mod walk;

pub use driver::{generate, generate_with};
pub use generator::project_word;
pub use job::{GenEnd, GenJob, GenJobError, GenRequest, Ready};
pub use kinds::{parse_length_range, Kind, RangeError, UnknownKind};
pub use multitrace_model::rng::Rng;
pub use output::{
    is_generated_file, item_name, reason_label, render_htf, render_mtf, to_multitrace, write_set,
    SetError, SetFormat,
};
pub use spec::{GenError, GenOptions, Generation, Labelled};
