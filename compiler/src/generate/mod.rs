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
mod kinds;
mod mutate;
mod output;
pub mod sat;
#[cfg(test)]
mod tests;
mod walk;

pub use kinds::{parse_length_range, Kind, RangeError, UnknownKind};
pub use multitrace_runtime::rng::Rng;
pub use output::{
    is_generated_file, item_name, reason_label, render_htf, render_mtf, to_multitrace, write_set,
    SetError, SetFormat,
};

use multitrace_runtime::check::explore::Budget;
use multitrace_runtime::check::{CheckOptions, Choice, Engine, Procedure, Scratch};
use multitrace_runtime::model::{CompiledModel, ModelKind};
use multitrace_runtime::nfa::{LetterId, Nfa};
use multitrace_runtime::verdict::{Mode, Verdict, VerdictKind};
use std::collections::BTreeMap;
use std::fmt;
use walk::RunTable;

/// What to generate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenOptions {
    /// The category.
    pub kind: Kind,
    /// How many multitraces.
    pub count: usize,
    /// Shortest total length (actions over all locations).
    pub min_len: usize,
    /// Longest total length (inclusive).
    pub max_len: usize,
    /// Seed of the generator.
    pub seed: u64,
    /// Most candidates checked; `None`: `100 * count + 1000`.
    pub max_attempts: Option<usize>,
    /// Budget of each check (vertices only, so that generation stays deterministic).
    pub max_vertices: Option<u64>,
}

impl GenOptions {
    /// `count` multitraces of `kind` with lengths in `min_len..=max_len`.
    pub fn new(kind: Kind, count: usize, min_len: usize, max_len: usize, seed: u64) -> Self {
        GenOptions {
            kind,
            count,
            min_len,
            max_len,
            seed,
            max_attempts: None,
            max_vertices: Budget::default().max_vertices,
        }
    }
}

/// One generated multitrace and the verdict it was checked to have.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Labelled {
    /// One local trace per location of the model.
    pub traces: Vec<Vec<LetterId>>,
    /// Its verdict by AS in `mode`.
    pub verdict: Verdict,
    /// The mode it was checked in.
    pub mode: Mode,
}

impl Labelled {
    /// Total number of actions.
    pub fn len(&self) -> usize {
        self.traces.iter().map(Vec::len).sum()
    }

    /// Whether every local trace is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The result of a generation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Generation {
    /// The multitraces, in generation order.
    pub items: Vec<Labelled>,
    /// Candidates built (kept or not).
    pub attempts: usize,
    /// Why candidates were not kept, with counts (`Pass`, `Fail/InterError`, `length out of
    /// range`, ...).
    pub rejected: BTreeMap<String, usize>,
}

impl Generation {
    /// "12 Pass, 3 Fail/InterError" (or "none").
    pub fn rejected_summary(&self) -> String {
        if self.rejected.is_empty() {
            return "none".into();
        }
        let mut v: Vec<(&String, &usize)> = self.rejected.iter().collect();
        v.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        v.iter()
            .map(|(k, n)| format!("{n} {k}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Why a category cannot be generated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GenError {
    /// The model has no automata (term-only), or the options are wrong.
    Unsupported(String),
    /// The model cannot produce the category at all, and why.
    Impossible {
        /// The category.
        kind: Kind,
        /// Why.
        why: String,
    },
    /// Fewer multitraces than asked within the attempt bound; what was produced.
    Shortfall {
        /// The category.
        kind: Kind,
        /// How many were asked for.
        wanted: usize,
        /// What was produced, with the rejection counts.
        partial: Box<Generation>,
    },
}

impl fmt::Display for GenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GenError::Unsupported(why) => f.write_str(why),
            GenError::Impossible { kind, why } => {
                write!(f, "cannot generate `{kind}` multitraces for this model: {why}")
            }
            GenError::Shortfall {
                kind,
                wanted,
                partial,
            } => write!(
                f,
                "only {} of {wanted} `{kind}` multitraces after {} candidates ({}); candidates rejected: {}",
                partial.items.len(),
                partial.attempts,
                match kind {
                    Kind::Pass => "no accepted multitrace was found",
                    Kind::LocalError => "mutations rarely leave the local languages here",
                    Kind::InterError =>
                        "mixed local traces keep an accepting path in Inter(A, μ) here",
                    Kind::CentralError =>
                        "iterating cycles differently per location is still accepted or caught earlier here; `central-error-mixed` builds central errors by mixing local traces",
                    Kind::CentralErrorMixed =>
                        "mixed local traces are accepted or caught by the local or Inter checks here",
                    Kind::Prefix => "cut multitraces are mostly still accepted here",
                    _ => "most candidates were inconclusive or out of the length range",
                },
                partial.rejected_summary()
            ),
        }
    }
}

impl std::error::Error for GenError {}

/// How a rejected candidate's verdict is counted: `Pass`, `Fail/InterError`, ...
fn verdict_label(v: &Verdict) -> String {
    match &v.reason {
        Some(r) if v.kind == VerdictKind::Fail => format!("Fail/{}", r.name()),
        _ => v.kind.name().into(),
    }
}

/// Projects a word of `A` on the locations.
pub fn project_word(model: &CompiledModel, word: &[LetterId]) -> Vec<Vec<LetterId>> {
    let mut traces = vec![Vec::new(); model.alphabet.locations()];
    for &l in word {
        traces[model.alphabet.location(l).index()].push(l);
    }
    traces
}

/// The generator's state, shared by the stages (each stage adds its methods in its module).
struct Generator<'a> {
    engine: &'a Engine,
    model: &'a CompiledModel,
    nfa: &'a Nfa,
    table: RunTable,
    rng: Rng,
    scratch: Scratch,
    opts: &'a GenOptions,
}

impl Generator<'_> {
    fn in_range(&self, traces: &[Vec<LetterId>]) -> bool {
        let n: usize = traces.iter().map(Vec::len).sum();
        (self.opts.min_len..=self.opts.max_len).contains(&n)
    }

    /// The verdict of AS in `mode`, within the vertex budget.
    fn check(&mut self, traces: &[Vec<LetterId>], mode: Mode) -> Verdict {
        let opts = CheckOptions {
            mode,
            choice: Choice::Force(Procedure::As),
            budget: Budget {
                max_vertices: self.opts.max_vertices,
                timeout: None,
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
