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
//! each kind), `feasible` (whether a kind can be produced at all), this driver, and `output`
//! ([`write_set`]: the files and the manifest rows of a set). The comparison harness that reads
//! such sets back is [`crate::compare`].
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
//!   [`ProgressFn`] at a bounded rate.
//! - **Deterministic**: the same model, options and seed give the same multitraces. The one
//!   generator is [`multitrace_runtime::rng::Rng`] (splitmix64), seeded with the seed mixed
//!   with the kind (one stream per kind); budgets count vertices, never time. The order of the
//!   draws in every stage is part of this contract: reordering them changes every set.

mod feasible;
mod generator;
mod kinds;
mod mutate;
mod output;
pub mod sat;
mod spec;
mod table;
#[cfg(test)]
mod tests;
mod walk;

pub use generator::project_word;
pub use kinds::{parse_length_range, Kind, RangeError, UnknownKind};
pub use multitrace_runtime::rng::Rng;
pub use output::{
    is_generated_file, item_name, reason_label, render_htf, render_mtf, to_multitrace, write_set,
    SetError, SetFormat,
};
pub use spec::{GenError, GenOptions, Generation, Labelled};

use crate::progress::{ProgressFn, Reporter};
use generator::Generator;
use multitrace_runtime::check::Engine;
use multitrace_runtime::model::ModelKind;
use multitrace_runtime::verdict::{Verdict, VerdictKind};
use std::time::Instant;
use table::RunTable;

/// How a rejected candidate's verdict is counted: `Pass`, `Fail/InterError`, ...
fn verdict_label(v: &Verdict) -> String {
    match &v.reason {
        Some(r) if v.kind == VerdictKind::Fail => format!("Fail/{}", r.name()),
        _ => v.kind.name().into(),
    }
}

/// Generates `opts.count` multitraces of `opts.kind` for `engine`'s model.
///
/// Errors: a term-only model or an empty length range ([`GenError::Unsupported`]), a kind the
/// model cannot produce ([`GenError::Impossible`], e.g. `central-error` when `A` has no cycle
/// reading two locations), or fewer multitraces than asked within the attempt bound
/// ([`GenError::Shortfall`], with what was produced).
pub fn generate(engine: &Engine, opts: &GenOptions) -> Result<Generation, GenError> {
    generate_with(engine, opts, None)
}

/// [`generate`], reporting the multitraces kept so far (of [`GenOptions::count`]) to
/// `progress`. Also [`GenError::Timeout`] when [`GenOptions::timeout`] runs out.
pub fn generate_with(
    engine: &Engine,
    opts: &GenOptions,
    progress: Option<ProgressFn>,
) -> Result<Generation, GenError> {
    let deadline = opts.timeout.map(|t| Instant::now() + t);
    let mut reporter = Reporter::new(progress, "multitraces", Some(opts.count as u64));
    reporter.tick(0);
    let model = engine.model();
    let automata = match &model.kind {
        ModelKind::Automata(a) => a,
        ModelKind::TermOnly(why) => {
            return Err(GenError::Unsupported(format!(
                "generation walks the model's NFA, but this model is term-only ({why})"
            )))
        }
    };
    if opts.min_len > opts.max_len {
        return Err(GenError::Unsupported(format!(
            "empty length range {}..{}",
            opts.min_len, opts.max_len
        )));
    }
    let cap = opts.max_len + (opts.max_len / 4).max(8) + 1;
    let table = RunTable::new(&automata.nfa, cap)?;
    let timeout = |during, out: Generation| GenError::Timeout {
        kind: opts.kind,
        wanted: opts.count,
        limit: opts.timeout.unwrap_or_default(),
        during,
        partial: Box::new(out),
    };
    let expired = || deadline.is_some_and(|d| Instant::now() >= d);
    if expired() {
        return Err(timeout(
            "building the table of run lengths",
            Generation::default(),
        ));
    }
    let mut g = Generator {
        engine,
        model,
        nfa: &automata.nfa,
        table,
        rng: Rng::new(opts.seed ^ opts.kind.salt()),
        scratch: engine.scratch(),
        opts,
        deadline,
    };
    g.feasibility()?;
    if expired() {
        return Err(timeout(
            "deciding whether the kind can be produced",
            Generation::default(),
        ));
    }
    let max_attempts = opts
        .max_attempts
        .unwrap_or_else(|| opts.count.saturating_mul(100).saturating_add(1000));
    let mode = opts.kind.mode();
    let mut out = Generation::default();
    while out.items.len() < opts.count && out.attempts < max_attempts {
        reporter.tick(out.items.len() as u64);
        if expired() {
            return Err(timeout("checking candidates", out));
        }
        out.attempts += 1;
        let traces = match g.candidate() {
            Ok(t) => t,
            Err(why) => {
                *out.rejected.entry(why.to_string()).or_default() += 1;
                continue;
            }
        };
        if !g.in_range(&traces) {
            *out.rejected
                .entry("length out of range".to_string())
                .or_default() += 1;
            continue;
        }
        let verdict = g.check(&traces, mode);
        if expired() {
            // The check may have been cut short by the time limit: the candidate is not judged.
            out.attempts -= 1;
            return Err(timeout("checking candidates", out));
        }
        if opts.kind.accepts(&verdict) {
            out.items.push(Labelled {
                traces,
                verdict,
                mode,
            });
        } else {
            *out.rejected.entry(verdict_label(&verdict)).or_default() += 1;
        }
    }
    reporter.finish(out.items.len() as u64);
    if out.items.len() < opts.count {
        return Err(GenError::Shortfall {
            kind: opts.kind,
            wanted: opts.count,
            partial: Box::new(out),
        });
    }
    Ok(out)
}
