//! The generator's state ([`Generator`]), shared by the stages: each stage (`walk`, `mutate`,
//! `feasible`) adds its methods in its own module; and the projection of a word of `A` on the
//! locations ([`project_word`]).

use super::spec::GenOptions;
use super::table::RunTable;
use multitrace_check::explore::Budget;
use multitrace_check::{CheckOptions, Choice, Engine, Scratch};
use multitrace_model::model::CompiledModel;
use multitrace_model::nfa::{LetterId, Nfa};
use multitrace_model::rng::Rng;
use multitrace_model::verdict::Procedure;
use multitrace_model::verdict::{Mode, Verdict};
use std::time::Instant;

/// Projects a word of `A` on the locations.
pub fn project_word(model: &CompiledModel, word: &[LetterId]) -> Vec<Vec<LetterId>> {
    let mut traces = vec![Vec::new(); model.alphabet.locations()];
    for &l in word {
        traces[model.alphabet.location(l).index()].push(l);
    }
    traces
}

/// The generator's state, shared by the stages (each stage adds its methods in its module).
pub(super) struct Generator<'a> {
    pub(super) engine: &'a Engine,
    pub(super) model: &'a CompiledModel,
    pub(super) nfa: &'a Nfa,
    pub(super) table: RunTable,
    pub(super) rng: Rng,
    pub(super) scratch: Scratch,
    pub(super) opts: &'a GenOptions,
    /// When [`GenOptions::timeout`] runs out.
    pub(super) deadline: Option<Instant>,
}

impl Generator<'_> {
    pub(super) fn in_range(&self, traces: &[Vec<LetterId>]) -> bool {
        let n: usize = traces.iter().map(Vec::len).sum();
        (self.opts.min_len..=self.opts.max_len).contains(&n)
    }

    /// The verdict of AS in `mode`, within the vertex budget.
    pub(super) fn check(&mut self, traces: &[Vec<LetterId>], mode: Mode) -> Verdict {
        let opts = CheckOptions {
            mode,
            choice: Choice::Force(Procedure::As),
            budget: Budget {
                max_vertices: self.opts.max_vertices,
                // The time left: a check cut short is not judged (the driver stops).
                timeout: self
                    .deadline
                    .map(|d| d.saturating_duration_since(Instant::now())),
                ..Budget::default()
            },
            ..CheckOptions::default()
        };
        self.engine
            .check_letters(&mut self.scratch, traces, &opts)
            .map(|(v, _)| v)
            .expect("AS runs on a model with automata")
    }
}
