//! The entry points of AC: lay out the position vectors, set up a search and decide the
//! verdict from its searches (see the module docs of [`super`]).

use super::outcome::{inconclusive, AcOutcome};
use super::scratch::AcScratch;
use super::search::{Run, Search};
use super::tables::AcTables;
use super::vectors::Radix;
use multitrace_model::budget::{Budget, Meter};
use multitrace_model::model::Automata;
use multitrace_model::nfa::{Alphabet, LetterId};
use multitrace_model::verdict::{Mode, Reason, Sym, Verdict, VerdictKind};

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
    if mask.is_some() {
        scratch.masked_closure.reset();
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
