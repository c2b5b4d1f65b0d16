//! AC, the centralized procedure (seed 004 Algorithm 1): search `Central(A, μ)`, the product of
//! `A` with the positions reached in each local trace, for an accepting state.
//!
//! The product is searched depth first over position vectors (packed in one `u64`, mixed
//! radix), each carrying a bitset of `A`'s states; a vector reached again only propagates the
//! states new to it, so each (vector, state) pair is expanded at most once (the layered
//! breadth-first order of the paper builds every layer completely, which costs milliseconds
//! per accepted multitrace of 250 actions on the automatark models; depth first stops at the
//! first accepting path).
//!
//! **Viability pruning.** A search that has not succeeded after a few times as many vertices as
//! there are actions is probably going to fail, and a failing search must exhaust every
//! interleaving. It then computes, for each location `j` and position `p`, the states from
//! which the rest of trace `j` can still be read on the way to a goal state, letting every
//! other location's letters pass freely (`Q_j(p)`, backwards over the trace, from per-model
//! tables), and from then on drops every state outside `⋂_j Q_j(v_j)`. This is exact: a state
//! outside some `Q_j(v_j)` has no accepting continuation, whatever the interleaving; only
//! dead work is removed. It is computed on `A` itself even when the search is restricted to a
//! sub-automaton (AS's `Inter`): a path of the sub-automaton is a path of `A`, so the filter is
//! still sound there.
//!
//! Partial observation (prefix mode): a location whose trace is fully consumed may still take
//! its own transitions silently (they happened after its observation stopped), and the end
//! condition becomes "a state that can still reach an accepting state". A search with silent
//! moves decides multi-prefix membership; a search without them then tells Pass from WeakPass.
//!
//! Hot-loop layout: state sets of up to four words are handled by code specialized on the word
//! count (copies and unions of a known size are inlined), position vectors index an
//! open-addressing table cleared through its list of used slots, and restricted steps read
//! a successor table rebuilt per check from the mask's transitions, so a check allocates nothing once its scratch
//! buffers have grown. Silent moves close a set by OR-ing one row per state: the model's rows
//! per subset of silent locations (built on first use, shared by every thread) when the
//! search is unrestricted, rows built per check one state at a time when a mask restricts it
//! (`closure`); the closure is the one a walk of the transitions gives.

// Index loops over locations keep positions, traces and strides visibly in step.
#![allow(clippy::needless_range_loop)]

mod closure;
mod outcome;
mod reached;
mod run;
mod scratch;
mod search;
mod tables;
#[cfg(test)]
mod tests;
mod vectors;
mod viability;

pub use outcome::AcOutcome;
pub use run::{check_ac, check_ac_in, is_multi_prefix_in};
pub use scratch::AcScratch;
pub use tables::AcTables;
