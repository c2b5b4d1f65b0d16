//! The incremental product of AC for one live run: `Central(A, μ)` kept on its upper faces
//! while `μ` grows one event at a time.
//!
//! Let `n` be the lengths of the local traces seen so far and `R(v)` the states of `A` reached
//! by reading some interleaving of the cut of `μ` at `v` (no silent moves). A vertex `v ≤ n` is
//! *interior* when `v_j < n_j` for every `j`: every successor of an interior vertex is `≤ n`, so
//! `R` is already final on all of them and no later event can add a path through an interior
//! vertex that does not also pass through a vertex of an *upper face* (`v_j = n_j` for some
//! `j`). Invariants:
//!
//! - the product stores exactly the vertices of the upper faces with `R(v) ≠ ∅`, each with
//!   its exact `R(v)` (every predecessor of a stored vertex is `≤ n`, so its set is complete);
//! - an event of location `j` with letter `a` extends the paths of face `j`'s vertices by `a`
//!   (the only new edges), then closes the new face `v_j = n_j + 1` by the letters the other
//!   locations already logged, and forgets the vertices that no longer lie on a face.
//!
//! When the locations keep pace, the faces hold a bounded number of vertices (as many as the
//! lags the model allows between locations), so the work per event does not grow with the
//! run. When one location lags, its face grows with the lag: the number of stored vertices is
//! bounded by [`Product::push`]'s `max_vertices`, past which the run is undecided (the caller
//! turns that into an `Inconclusive` record naming the location).
//!
//! Verdicts (those of AC, [`multitrace_check::ac`]): complete membership is `R(n) ∩ F ≠ ∅`.
//! Multi-prefix membership (prefix mode) lets a location whose trace is consumed move
//! silently; silent paths differ from plain ones only at vertices of an upper face (a silent
//! move of `j` needs `v_j = n_j`, and a face vertex has only face successors), so it is a search
//! over the faces seeded with the stored sets ([`Product::is_multi_prefix`]); when `R(n)` meets
//! the live states already, no search is needed, which is the common case of events that
//! arrive in causal order.
//!
//! Its stages, one module each; a stage imports only stages listed before it, and this module
//! only declares them and re-exports their public items: `words` (copies and tests of the
//! few words of a position or a set), `faces` (the flat store of vertices and the index by
//! position), `kernel` (the automaton a product steps on, [`Kernel`]), `closure` (the
//! closure rows, [`closure_rows`]), `work` (one thread's buffers), `store` (the product,
//! [`Product`], made and pushed), `step`, `sweep`, `search` and `memo` (the steps, sweeps,
//! searches and memos of a push and a check), `extension` (a cut extended by a letter,
//! [`Frontier`]).

// Index loops over locations keep positions, lengths and traces visibly in step.
#![allow(clippy::needless_range_loop)]

/// Calls `$p.$f::<K, W>($args)` with the shape its hot loops are compiled for: positions of
/// `K` locations and sets of `W` words for the common shapes (three locations, sets of one
/// or two words), lengths known at compile time (no loop over a runtime length, no bounds
/// check); `0` for a length read at run time ([`fixed_len`](faces::fixed_len)).
macro_rules! by_shape {
    ($p:expr, $f:ident($($arg:expr),* $(,)?)) => {
        match ($p.k, $p.w) {
            (3, 1) => $p.$f::<3, 1>($($arg),*),
            (3, 2) => $p.$f::<3, 2>($($arg),*),
            (_, 1) => $p.$f::<0, 1>($($arg),*),
            (_, 2) => $p.$f::<0, 2>($($arg),*),
            _ => $p.$f::<0, 0>($($arg),*),
        }
    };
}

mod closure;
mod extension;
mod faces;
mod kernel;
mod memo;
mod search;
mod step;
mod store;
mod sweep;
mod words;
mod work;

/// Random automata and the walks the product's tests compare it with.
#[cfg(test)]
pub(super) use closure::tests as test_models;
pub use closure::{closure_fits, closure_rows};
pub use extension::{Frontier, FrontierSearch};
pub use kernel::Kernel;
pub use store::{Product, TooWide};
