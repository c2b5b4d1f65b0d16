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
//! buffers have grown.

// Index loops over locations keep positions, traces and strides visibly in step.
#![allow(clippy::needless_range_loop)]

mod reached;
mod search;
mod tables;
#[cfg(test)]
mod tests;
mod vectors;
mod viability;

use reached::Reached;
use search::*;
pub use tables::AcTables;
use tables::*;
use vectors::*;
use viability::*;

use crate::bits;
use crate::budget::{Budget, Limit, Meter};
use crate::model::Automata;
use crate::nfa::{Alphabet, LetterId, Nfa, StateId};
use crate::verdict::{Mode, Reason, Sym, Verdict, VerdictKind};
use rustc_hash::FxHashMap;
use std::sync::atomic::{AtomicU64, Ordering};

/// The result of AC with its explanation.
pub struct AcOutcome {
    /// The verdict.
    pub verdict: Verdict,
    /// Product states (position vectors) built.
    pub vertices: u64,
}

/// Reusable buffers of AC (one per thread): a batch allocates them once.
#[derive(Default)]
pub struct AcScratch {
    radix: Radix,
    reached: Reached,
    keys: Vec<(u64, u32)>,
    sets: Vec<u64>,
    fresh: Vec<u64>,
    silent: Vec<bool>,
    stack: Vec<usize>,
    masked: MaskedRows,
    /// `Q_j(p)` of viability pruning, `w` words each, location `j` from `q_at[j]`.
    q: Vec<u64>,
    q_at: Vec<usize>,
    memo: StepMemo,
    /// Vertices after which pruning starts (tests force it); default `2 × actions + 64`.
    prune_after: Option<u64>,
}

impl AcScratch {
    /// Starts viability pruning after `vertices` expanded vertices of a search instead of the
    /// default `2 × actions + 64` (`Some(0)`: from the first vertex; `None`: the default). The
    /// verdicts do not depend on it, only the work; tests use it to exercise both paths.
    pub fn set_prune_after(&mut self, vertices: Option<u64>) {
        self.prune_after = vertices;
    }
}

/// Runs AC on `traces` (one local trace per location), optionally restricted to the
/// transitions of `mask` (AS runs it on `Inter`); with `witness`, a Pass comes with one accepted
/// interleaving.
///
/// The search is depth first over position vectors, each carrying the states reached there;
/// a vector seen again only propagates the states that are new to it, so each (vector, state)
/// pair is expanded at most once and an accepted multitrace is usually found after a few
/// hundred steps. Prefix mode searches with silent moves first (a failure there is a Fail),
/// then, if needed, without them to tell Pass from WeakPass.
#[allow(clippy::too_many_arguments)]
pub fn check_ac(
    automata: &Automata,
    tables: &AcTables,
    alphabet: &Alphabet,
    traces: &[Vec<LetterId>],
    mask: Option<&[u64]>,
    mode: Mode,
    budget: &Budget,
    witness: bool,
) -> AcOutcome {
    let mut scratch = AcScratch::default();
    check_ac_in(
        &mut scratch,
        automata,
        tables,
        alphabet,
        traces,
        mask,
        mode,
        budget,
        witness,
    )
}

/// [`check_ac`] with reusable buffers.
#[allow(clippy::too_many_arguments)]
pub fn check_ac_in(
    scratch: &mut AcScratch,
    automata: &Automata,
    tables: &AcTables,
    alphabet: &Alphabet,
    traces: &[Vec<LetterId>],
    mask: Option<&[u64]>,
    mode: Mode,
    budget: &Budget,
    witness: bool,
) -> AcOutcome {
    let mut radix = std::mem::take(&mut scratch.radix);
    let out = if radix.fill(traces) {
        run_ac(
            scratch, &radix, automata, tables, alphabet, traces, mask, mode, budget, witness,
        )
    } else {
        inconclusive("size", 0)
    };
    scratch.radix = radix;
    out
}

/// Is `traces` a multi-prefix of an accepted multitrace? Prefix mode's first search only
/// (no Pass/WeakPass distinction, no witness): `Ok(answer)`, or `Err(limit)` when the budget
/// ran out; with the vertices spent. The diagnosis asks this of many cuts of one multitrace.
pub fn is_multi_prefix_in(
    scratch: &mut AcScratch,
    automata: &Automata,
    tables: &AcTables,
    alphabet: &Alphabet,
    traces: &[Vec<LetterId>],
    budget: &Budget,
) -> (Result<bool, &'static str>, u64) {
    let mut radix = std::mem::take(&mut scratch.radix);
    let out = if radix.fill(traces) {
        with_run(
            scratch,
            &radix,
            automata,
            tables,
            alphabet,
            traces,
            None,
            budget,
            |run| match run.search(true) {
                Search::Found => (Ok(true), run.vertices),
                Search::NotFound => (Ok(false), run.vertices),
                Search::Exhausted(limit) => (Err(limit), run.vertices),
            },
        )
    } else {
        (Err("size"), 0)
    };
    scratch.radix = radix;
    out
}

/// Sets up one search of `Central(A, μ)` (restricted to `mask`) and hands it to `f`.
#[allow(clippy::too_many_arguments)]
fn with_run<R>(
    scratch: &mut AcScratch,
    radix: &Radix,
    automata: &Automata,
    tables: &AcTables,
    alphabet: &Alphabet,
    traces: &[Vec<LetterId>],
    mask: Option<&[u64]>,
    budget: &Budget,
    f: impl FnOnce(&mut Run<'_, '_>) -> R,
) -> R {
    if let (Some(m), Some(_)) = (mask, &tables.succ) {
        scratch.masked.build(tables, &automata.nfa, m);
    }
    let mut run = Run {
        nfa: &automata.nfa,
        tables,
        alphabet,
        traces,
        mask,
        radix,
        budget,
        meter: Meter::start(budget),
        vertices: 0,
        s: scratch,
    };
    f(&mut run)
}

/// [`check_ac_in`] once the vectors' layout is known.
#[allow(clippy::too_many_arguments)]
fn run_ac(
    scratch: &mut AcScratch,
    radix: &Radix,
    automata: &Automata,
    tables: &AcTables,
    alphabet: &Alphabet,
    traces: &[Vec<LetterId>],
    mask: Option<&[u64]>,
    mode: Mode,
    budget: &Budget,
    witness: bool,
) -> AcOutcome {
    with_run(
        scratch,
        radix,
        automata,
        tables,
        alphabet,
        traces,
        mask,
        budget,
        |run| decide(run, mode, witness),
    )
}

/// Runs the searches of one AC check: prefix mode searches with silent moves first, then
/// without them to tell Pass from WeakPass.
fn decide(run: &mut Run<'_, '_>, mode: Mode, witness: bool) -> AcOutcome {
    let prefix = mode == Mode::Prefix;
    let first = run.search(prefix);
    let kind = match first {
        Search::Exhausted(limit) => return inconclusive(limit, run.vertices),
        Search::NotFound => return run.fail(),
        Search::Found if !prefix => VerdictKind::Pass,
        Search::Found => {
            // A multi-prefix: is it also accepted?
            match run.search(false) {
                Search::Found => VerdictKind::Pass,
                Search::NotFound => {
                    // (`run.vertices` already counts both searches.)
                    VerdictKind::WeakPass
                }
                Search::Exhausted(limit) => {
                    let mut out = inconclusive(limit, run.vertices);
                    if let Some(Reason::Budget { established, .. }) = &mut out.verdict.reason {
                        *established = Some("accepted as a multi-prefix".into());
                    }
                    return out;
                }
            }
        }
    };
    let mut v = Verdict::new(kind);
    v.vertices = run.vertices;
    if witness && kind == VerdictKind::Pass {
        v.witness = Some(
            run.rebuild()
                .into_iter()
                .map(|(j, a)| (j, Sym::Letter(a)))
                .collect(),
        );
    }
    AcOutcome {
        verdict: v,
        vertices: run.vertices,
    }
}

fn inconclusive(limit: &str, vertices: u64) -> AcOutcome {
    let mut v = Verdict::new(VerdictKind::Inconclusive);
    v.reason = Some(Reason::Budget {
        limit: limit.into(),
        established: None,
    });
    v.vertices = vertices;
    AcOutcome {
        verdict: v,
        vertices,
    }
}
