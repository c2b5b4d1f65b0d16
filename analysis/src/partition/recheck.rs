//! Re-checking counterexamples with the runtime's own procedures, independently of the search
//! that found them: the local verifiers `Proj(A, Σi)` of the model compiled with the partition
//! (read by the runtime's local check, seed 004 Algorithm 2), AC on the model compiled with one
//! location (the global trace), and AS, AC and term exploration on the multitrace.

use crate::partition::{Partition, PartitionError, Problem};
use multitrace_check::semi::{local_check, LocalOutcome};
use multitrace_check::{CheckOptions, Choice, Engine};
use multitrace_model::model::CompiledModel;
use multitrace_model::nfa::LetterId;
use multitrace_model::verdict::Procedure;
use multitrace_model::verdict::{Mode, Reason, Verdict, VerdictKind};

/// What the runtime says of a counterexample.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recheck {
    /// Per block: whether its local verifier accepts its trace.
    pub local: Vec<bool>,
    /// AC on the global trace, with the model compiled with one location (term exploration
    /// when that model is term-only).
    pub global: VerdictKind,
    /// AS on the multitrace (with its reason), with the model compiled with the partition.
    pub multitrace: Verdict,
    /// AC on the multitrace.
    pub multitrace_ac: VerdictKind,
    /// Term exploration on the multitrace (interactions).
    pub multitrace_term: Option<VerdictKind>,
}

impl Recheck {
    /// Every local verifier accepts its trace.
    pub fn locals_accept(&self) -> bool {
        self.local.iter().all(|&b| b)
    }

    /// Confirms a counterexample to (a): every local verifier accepts, AC rejects the global
    /// trace.
    pub fn confirms_inclusion(&self) -> bool {
        self.locals_accept() && self.global == VerdictKind::Fail
    }

    /// Confirms a counterexample to (b): every local verifier accepts, and AS (not by a
    /// LocalError), AC and term exploration reject the multitrace.
    pub fn confirms_central(&self) -> bool {
        self.locals_accept()
            && self.multitrace.kind == VerdictKind::Fail
            && !matches!(self.multitrace.reason, Some(Reason::LocalError { .. }))
            && self.multitrace_ac == VerdictKind::Fail
            && !matches!(self.multitrace_term, Some(v) if v != VerdictKind::Fail)
    }
}

/// Re-checks the global trace `word` and its multitrace on partition `p`, whose compiled model
/// is `model` (from [`Problem::compile`]).
pub fn recheck(
    problem: &Problem,
    model: &CompiledModel,
    p: &Partition,
    word: &[LetterId],
    mode: Mode,
) -> Result<Recheck, PartitionError> {
    // The global trace on the model with one location: by AC, or by term exploration when
    // that model is term-only (its global language is not regular).
    let global = Engine::new(problem.global().clone());
    let mut scratch = global.scratch();
    let opts = |p: Procedure| CheckOptions {
        mode,
        choice: Choice::Force(p),
        ..CheckOptions::default()
    };
    let procedure = if problem.global().automata().is_some() {
        Procedure::Ac
    } else {
        Procedure::Term
    };
    let (gv, _) = global
        .check_letters(
            &mut scratch,
            &[problem.translate(problem.global(), word)?],
            &opts(procedure),
        )
        .map_err(PartitionError::Check)?;
    // The multitrace on the model with the partition.
    let traces: Vec<Vec<LetterId>> = problem
        .project(p, word)
        .iter()
        .map(|t| problem.translate(model, t))
        .collect::<Result<_, _>>()?;
    let automata = model.automata().ok_or(PartitionError::Inconsistent(
        "the partition's model is term-only",
    ))?;
    let mut area = vec![0u64; automata.areas.words()];
    let mut seen = Vec::new();
    let local = traces
        .iter()
        .zip(&automata.projections)
        .map(|(t, dfa)| {
            matches!(
                local_check(
                    automata,
                    dfa,
                    &model.alphabet,
                    t,
                    mode,
                    &mut area,
                    &mut seen
                ),
                LocalOutcome::Pass { .. }
            )
        })
        .collect();
    let engine = Engine::new(model.clone());
    let mut scratch = engine.scratch();
    let (multitrace, _) = engine
        .check_letters(&mut scratch, &traces, &opts(Procedure::As))
        .map_err(PartitionError::Check)?;
    let (ac, _) = engine
        .check_letters(&mut scratch, &traces, &opts(Procedure::Ac))
        .map_err(PartitionError::Check)?;
    let multitrace_term = if problem.is_interaction() {
        let (t, _) = engine
            .check_letters(&mut scratch, &traces, &opts(Procedure::Term))
            .map_err(PartitionError::Check)?;
        Some(t.kind)
    } else {
        None
    };
    Ok(Recheck {
        local,
        global: gv.kind,
        multitrace,
        multitrace_ac: ac.kind,
        multitrace_term,
    })
}
