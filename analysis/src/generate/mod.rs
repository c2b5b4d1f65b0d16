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

use generator::Generator;
use multitrace_runtime::check::Engine;
use multitrace_runtime::model::ModelKind;
use multitrace_runtime::verdict::{Verdict, VerdictKind};
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
    let mut g = Generator {
        engine,
        model,
        nfa: &automata.nfa,
        table,
        rng: Rng::new(opts.seed ^ opts.kind.salt()),
        scratch: engine.scratch(),
        opts,
    };
    g.feasibility()?;
    let max_attempts = opts
        .max_attempts
        .unwrap_or_else(|| opts.count.saturating_mul(100).saturating_add(1000));
    let mode = opts.kind.mode();
    let mut out = Generation::default();
    while out.items.len() < opts.count && out.attempts < max_attempts {
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
    if out.items.len() < opts.count {
        return Err(GenError::Shortfall {
            kind: opts.kind,
            wanted: opts.count,
            partial: Box::new(out),
        });
    }
    Ok(out)
}
