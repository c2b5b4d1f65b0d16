//! Check procedures.
//!
//! - [`ac`]: the centralized procedure on a compiled model (seed 004 Algorithm 1).
//! - [`semi`]: AS, the semi-centralized procedure: local checks, `Inter`, then AC on it.
//! - [`mod@explore`]: term exploration of the operational semantics with lifeline removal, partial
//!   order reduction and local analyses (seed 001); the reference oracle for everything else.
//!
//! [`Engine`] ties them to a loaded model: it is immutable and `Send + Sync`, so one engine
//! serves every thread of a batch; each thread keeps its own [`Scratch`].

pub mod ac;
pub mod explore;
pub mod semi;

use crate::model::{CompiledModel, ModelKind};
use crate::multitrace::Multitrace;
use crate::nfa::LetterId;
use crate::term::{TermId, TermStore};
use crate::verdict::{Mode, Verdict};
use ac::AcTables;
use explore::{explore, Budget, ExploreOptions};
use std::fmt;

/// A check procedure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Procedure {
    /// Centralized search of `Central(A, μ)`.
    Ac,
    /// Local checks, `Inter`, then AC on `Inter`.
    As,
    /// Term exploration.
    Term,
}

impl Procedure {
    /// `"ac"`, `"as"` or `"term"`.
    pub fn name(self) -> &'static str {
        match self {
            Procedure::Ac => "ac",
            Procedure::As => "as",
            Procedure::Term => "term",
        }
    }
}

/// Which procedure to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Choice {
    /// AS on automata models, term exploration on term-only ones (and on multitraces whose
    /// components do not match the compiled locations).
    #[default]
    Auto,
    /// This one, or an error.
    Force(Procedure),
}

/// A check that cannot run (not a Fail: the question cannot be asked this way).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckError(pub String);

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CheckError {}

/// Options of a check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct CheckOptions {
    /// Complete or prefix membership.
    pub mode: Mode,
    /// Procedure.
    pub choice: Choice,
    /// Term exploration options (its `mode` and `budget` are overridden by these).
    pub explore: ExploreOptions,
    /// Limits for every procedure.
    pub budget: Budget,
    /// Rebuild one accepted interleaving for a Pass.
    pub witness: bool,
}

/// A loaded model ready to check multitraces.
pub struct Engine {
    model: CompiledModel,
    tables: Option<AcTables>,
    local: Option<semi::LocalTables>,
    term: Option<(TermStore, TermId)>,
}

/// Per-thread scratch state: the term store (it grows with the terms explored) and the
/// buffers of AC and AS, allocated once per thread.
pub struct Scratch {
    store: Option<TermStore>,
    automata: semi::AsScratch,
}

impl Engine {
    /// Prepares a model.
    pub fn new(model: CompiledModel) -> Self {
        let tables = model
            .automata()
            .map(|a| AcTables::new(&a.nfa, &model.alphabet));
        let local = model
            .automata()
            .and_then(|a| semi::LocalTables::new(a, &model.alphabet));
        let term = model.term();
        Engine {
            model,
            tables,
            local,
            term,
        }
    }

    /// The model.
    pub fn model(&self) -> &CompiledModel {
        &self.model
    }

    /// AC's tables (automata models).
    pub fn tables(&self) -> Option<&AcTables> {
        self.tables.as_ref()
    }

    /// Fresh scratch state for one thread.
    pub fn scratch(&self) -> Scratch {
        Scratch {
            store: self.term.as_ref().map(|(s, _)| s.clone()),
            automata: semi::AsScratch::default(),
        }
    }

    fn resolve(&self, choice: Choice) -> Result<Procedure, CheckError> {
        match (choice, &self.model.kind) {
            (Choice::Auto, ModelKind::Automata(_)) => Ok(Procedure::As),
            (Choice::Auto, ModelKind::TermOnly(_)) => Ok(Procedure::Term),
            (Choice::Force(p @ (Procedure::Ac | Procedure::As)), ModelKind::TermOnly(why)) => Err(
                CheckError(format!(
                    "--procedure {} needs automata, but this model is term-only ({why}); use --procedure term or auto",
                    p.name()
                )),
            ),
            (Choice::Force(Procedure::Term), _) if self.term.is_none() => Err(CheckError(
                "--procedure term needs an interaction; this model is a raw automaton".into(),
            )),
            (Choice::Force(p), _) => Ok(p),
        }
    }

    /// Checks one multitrace given as letters, one local trace per location.
    pub fn check_letters(
        &self,
        scratch: &mut Scratch,
        traces: &[Vec<LetterId>],
        opts: &CheckOptions,
    ) -> Result<(Verdict, Procedure), CheckError> {
        let alphabet = &self.model.alphabet;
        if traces.len() != alphabet.locations() {
            return Err(CheckError("one local trace per location expected".into()));
        }
        // The procedures rely on it (each location's DFA, AC's viability tables).
        for (k, trace) in traces.iter().enumerate() {
            if let Some(&l) = trace
                .iter()
                .find(|l| l.index() >= alphabet.len() || alphabet.location(**l).index() != k)
            {
                return Err(CheckError(format!(
                    "letter {} in the trace of location {}: every letter must be one of that location's letters",
                    l.0,
                    alphabet.location_name(crate::nfa::LocationId(k as u32)),
                )));
            }
        }
        let p = self.resolve(opts.choice)?;
        if p == Procedure::Term {
            let mt = self.letters_to_multitrace(traces)?;
            return Ok((self.explore(scratch, &mt, opts), Procedure::Term));
        }
        let (a, t) = (
            self.model.automata().expect("resolved to automata"),
            self.tables.as_ref().expect("tables of automata"),
        );
        let v = if p == Procedure::Ac {
            ac::check_ac_in(
                scratch.automata.ac(),
                a,
                t,
                alphabet,
                traces,
                None,
                opts.mode,
                &opts.budget,
                opts.witness,
            )
            .verdict
        } else {
            semi::check_as_in(
                &mut scratch.automata,
                a,
                t,
                self.local.as_ref(),
                alphabet,
                traces,
                opts.mode,
                &opts.budget,
                opts.witness,
            )
        };
        Ok((v, p))
    }

    /// Checks one multitrace of an interaction model.
    pub fn check_multitrace(
        &self,
        scratch: &mut Scratch,
        mt: &Multitrace,
        opts: &CheckOptions,
    ) -> Result<(Verdict, Procedure), CheckError> {
        let p = self.resolve(opts.choice)?;
        if p == Procedure::Term {
            return Ok((self.explore(scratch, mt, opts), p));
        }
        match self.model.letter_traces(mt) {
            Ok(letters) => self.check_letters(scratch, &letters, opts),
            // Another grouping of lifelines than the compiled one: only term exploration can
            // answer, and `auto` lets it.
            Err(e) if opts.choice == Choice::Auto && self.term.is_some() => {
                let _ = e;
                Ok((self.explore(scratch, mt, opts), Procedure::Term))
            }
            Err(e) => Err(CheckError(e)),
        }
    }

    fn explore(&self, scratch: &mut Scratch, mt: &Multitrace, opts: &CheckOptions) -> Verdict {
        let (_, root) = self.term.as_ref().expect("term of an interaction");
        let store = scratch
            .store
            .get_or_insert_with(|| self.term.as_ref().expect("term").0.clone());
        let eo = ExploreOptions {
            mode: opts.mode,
            budget: opts.budget,
            witness: opts.witness,
            ..opts.explore
        };
        explore(store, *root, mt, &eo)
    }

    fn letters_to_multitrace(&self, traces: &[Vec<LetterId>]) -> Result<Multitrace, CheckError> {
        use crate::model::Origin;
        use crate::multitrace::Component;
        let Origin::Interaction {
            letter_actions,
            location_lifelines,
            ..
        } = &self.model.origin
        else {
            return Err(CheckError("term exploration needs an interaction".into()));
        };
        Ok(Multitrace {
            components: traces
                .iter()
                .zip(location_lifelines)
                .map(|(t, &g)| Component {
                    lifelines: g,
                    trace: t.iter().map(|l| letter_actions[l.index()]).collect(),
                })
                .collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    fn send_sync<T: Send + Sync>() {}

    /// One engine serves every thread of a batch.
    #[test]
    fn engine_and_model_are_send_and_sync() {
        send_sync::<super::Engine>();
        send_sync::<crate::model::CompiledModel>();
    }
}
