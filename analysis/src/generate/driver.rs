//! The driver of a generation: checks the options, builds the table of run lengths, decides
//! feasibility, then draws candidates and keeps those whose verdict the kind asks for.
//!
//! Invariants: the attempts are bounded by [`GenOptions::max_attempts`]; the clock (with
//! [`GenOptions::timeout`]) is read between the stages and around every candidate, and a
//! candidate whose check may have been cut short is neither kept nor counted; the order of the
//! draws is fixed (the same seed gives the same set).

use super::generator::Generator;
use super::spec::{GenError, GenOptions, Generation, Labelled};
use super::table::RunTable;
use crate::progress::{ProgressFn, Reporter};
use multitrace_check::Engine;
use multitrace_model::model::ModelKind;
use multitrace_model::rng::Rng;
use multitrace_model::verdict::{Verdict, VerdictKind};
use std::time::Instant;

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
