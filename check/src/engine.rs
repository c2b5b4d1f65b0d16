//! The engine: a loaded model with its tables, and the one path from a multitrace to its
//! verdict through the procedures and the diagnosis.

use super::ac::{self, AcTables};
use super::diagnose;
use super::error::CheckError;
use super::explore::{explore, ExploreOptions};
use super::options::{CheckOptions, Choice};
use super::semi;
use multitrace_model::budget::Budget;
use multitrace_model::model::{CompiledModel, ModelKind};
use multitrace_model::multitrace::Multitrace;
use multitrace_model::nfa::LetterId;
use multitrace_model::term::{TermId, TermStore};
use multitrace_model::verdict::Procedure;
use multitrace_model::verdict::{Diagnosis, Reason, Sym, Verdict, VerdictKind};
use std::time::Instant;

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

    /// The procedure `choice` runs on this model, or why it cannot run.
    pub fn procedure(&self, choice: Choice) -> Result<Procedure, CheckError> {
        self.resolve(choice)
    }

    fn resolve(&self, choice: Choice) -> Result<Procedure, CheckError> {
        match (choice, &self.model.kind) {
            (Choice::Auto, ModelKind::Automata(_)) => Ok(Procedure::As),
            (Choice::Auto, ModelKind::TermOnly(_)) => Ok(Procedure::Term),
            (Choice::Force(p @ (Procedure::Ac | Procedure::As)), ModelKind::TermOnly(why)) => {
                Err(CheckError::NeedsAutomata {
                    procedure: p,
                    why: why.clone(),
                })
            }
            (Choice::Force(Procedure::Term), _) if self.term.is_none() => {
                Err(CheckError::NeedsInteraction)
            }
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
        self.check_letters_known(scratch, traces, opts, &[])
    }

    /// [`Engine::check_letters`], knowing that the cut at `known` (trace `i` cut to its first
    /// `known[i]` letters; empty: nothing known) is a multi-prefix, as the live monitor knows
    /// of the events before the one that decides a run. The record is the same (the diagnosis
    /// is defined by the semantics alone): only the diagnosis of a model with automata asks
    /// no question about the cuts below `known`, which are consistent (downward closure).
    /// A wrong `known` gives a wrong diagnosis: it must come from a check.
    pub fn check_letters_known(
        &self,
        scratch: &mut Scratch,
        traces: &[Vec<LetterId>],
        opts: &CheckOptions,
        known: &[usize],
    ) -> Result<(Verdict, Procedure), CheckError> {
        self.check_letters_ending(scratch, traces, opts, known, None, None)
    }

    /// [`Engine::check_letters_known`], with `end` answering the diagnosis's questions about
    /// the whole multitrace extended by one letter (what each location could still do, asked
    /// of a WeakPass and of a complete-mode Fail whose letters are all consistent): the same
    /// answers as the search's, so the same record (only the diagnosis's own vertex count,
    /// which no record shows, is smaller; a small diagnosis budget may then finish where the
    /// search alone would run out).
    ///
    /// `established`: the verdict the caller's own check gave (a Fail or a WeakPass the live
    /// monitor's product decided; it must come from a check). The procedure is then not run
    /// again when the record needs nothing else from it (a WeakPass; a Fail whose diagnosis
    /// gives the canonical reason): the record is the same but for `vertices`, the
    /// procedure's search work, which is spared (0).
    pub fn check_letters_ending(
        &self,
        scratch: &mut Scratch,
        traces: &[Vec<LetterId>],
        opts: &CheckOptions,
        known: &[usize],
        established: Option<VerdictKind>,
        end: Option<&mut dyn diagnose::EndQueries>,
    ) -> Result<(Verdict, Procedure), CheckError> {
        let alphabet = &self.model.alphabet;
        if traces.len() != alphabet.locations() {
            return Err(CheckError::TraceCount {
                expected: alphabet.locations(),
                found: traces.len(),
            });
        }
        // The procedures rely on it (each location's DFA, AC's viability tables).
        for (k, trace) in traces.iter().enumerate() {
            if let Some(&l) = trace
                .iter()
                .find(|l| l.index() >= alphabet.len() || alphabet.location(**l).index() != k)
            {
                return Err(CheckError::ForeignLetter {
                    letter: l.0,
                    location: alphabet
                        .location_name(multitrace_model::nfa::LocationId(k as u32))
                        .to_string(),
                });
            }
        }
        let p = self.resolve(opts.choice)?;
        let started = Instant::now();
        let mut v = match (established, opts.diagnosis) {
            (Some(VerdictKind::WeakPass), _) if p != Procedure::Term => {
                Verdict::new(VerdictKind::WeakPass)
            }
            (Some(VerdictKind::Fail), Some(_)) if p != Procedure::Term => {
                Verdict::new(VerdictKind::Fail)
            }
            _ => self.run_letters(scratch, traces, opts, p)?,
        };
        match (v.kind, opts.diagnosis) {
            (VerdictKind::Fail, Some(budget)) => {
                let known = &self.cut_of_fail(scratch, traces, opts, known);
                let budget = time_left(&budget, opts, started);
                let whole = diagnose::known_whole(opts.mode);
                self.diagnose_letters(scratch, traces, opts, whole, &budget, &mut v, known, end)?;
            }
            (VerdictKind::WeakPass, Some(budget)) => {
                self.explain_weak_pass(scratch, traces, opts, &budget, &mut v, known, end)?;
            }
            _ => {}
        }
        Ok((v, p))
    }

    /// Whether `traces` (one local trace per location, each of its location's letters) is a
    /// multi-prefix of an accepted multitrace: AC's first search in prefix mode, the question
    /// the diagnosis asks of each cut. `None` when the model has no automata or `budget` ran
    /// out.
    pub fn is_multi_prefix(
        &self,
        scratch: &mut Scratch,
        traces: &[Vec<LetterId>],
        budget: &Budget,
    ) -> Option<bool> {
        let (a, t) = (self.model.automata()?, self.tables.as_ref()?);
        let alphabet = &self.model.alphabet;
        if traces.len() != alphabet.locations() {
            return None;
        }
        ac::is_multi_prefix_in(scratch.automata.ac(), a, t, alphabet, traces, budget)
            .0
            .ok()
    }

    /// The verdict of procedure `p` on `traces`, without a diagnosis.
    fn run_letters(
        &self,
        scratch: &mut Scratch,
        traces: &[Vec<LetterId>],
        opts: &CheckOptions,
        p: Procedure,
    ) -> Result<Verdict, CheckError> {
        let alphabet = &self.model.alphabet;
        if p == Procedure::Term {
            let mt = self.letters_to_multitrace(traces)?;
            return Ok(self.explore(scratch, &mt, opts));
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
        Ok(v)
    }

    /// Explains a Fail of `traces` that another front end decided (distributed AS's central
    /// step): the canonical reason and diagnosis, as [`Engine::check_letters`] gives them.
    /// A WeakPass gets what each location could still do. Does nothing to other verdicts, or
    /// when `opts.diagnosis` is `None`.
    pub fn explain_letters(
        &self,
        scratch: &mut Scratch,
        traces: &[Vec<LetterId>],
        opts: &CheckOptions,
        v: &mut Verdict,
    ) -> Result<(), CheckError> {
        match (v.kind, opts.diagnosis) {
            (VerdictKind::Fail, Some(budget)) => {
                let whole = diagnose::known_whole(opts.mode);
                let known = &self.cut_of_fail(scratch, traces, opts, &[]);
                self.diagnose_letters(scratch, traces, opts, whole, &budget, v, known, None)
            }
            (VerdictKind::WeakPass, Some(budget)) => {
                self.explain_weak_pass(scratch, traces, opts, &budget, v, &[], None)
            }
            _ => Ok(()),
        }
    }

    /// [`Engine::explain_letters`] of a verdict `v` that [`Engine::check_letters`] gave for
    /// `traces` without a diagnosis, knowing that the cut at `known` is a multi-prefix (as
    /// [`Engine::check_letters_known`]): the record [`Engine::check_letters_known`] gives,
    /// without checking `traces` again. A time budget (`opts.budget.timeout`) bounds the
    /// diagnosis from now.
    pub fn explain_letters_known(
        &self,
        scratch: &mut Scratch,
        traces: &[Vec<LetterId>],
        opts: &CheckOptions,
        v: &mut Verdict,
        known: &[usize],
    ) -> Result<(), CheckError> {
        let started = Instant::now();
        match (v.kind, opts.diagnosis) {
            (VerdictKind::Fail, Some(budget)) => {
                let known = &self.cut_of_fail(scratch, traces, opts, known);
                let budget = time_left(&budget, opts, started);
                let whole = diagnose::known_whole(opts.mode);
                self.diagnose_letters(scratch, traces, opts, whole, &budget, v, known, None)
            }
            (VerdictKind::WeakPass, Some(budget)) => {
                self.explain_weak_pass(scratch, traces, opts, &budget, v, known, None)
            }
            _ => Ok(()),
        }
    }

    /// The consistent cut a Fail's diagnosis starts from: `known` when the caller knows one,
    /// else the one the letters give ([`crate::cut`]: the same on every input path, so a
    /// diagnosis budget that runs out stops each at the same place); empty without automata.
    fn cut_of_fail(
        &self,
        scratch: &mut Scratch,
        traces: &[Vec<LetterId>],
        opts: &CheckOptions,
        known: &[usize],
    ) -> Vec<usize> {
        let (Some(a), Some(t), []) = (self.model.automata(), &self.tables, known) else {
            return known.to_vec();
        };
        let alphabet = &self.model.alphabet;
        let bad = opts.mode == multitrace_model::verdict::Mode::Prefix;
        let ac = scratch.automata.ac();
        let mut ask = |c: &[Vec<LetterId>]| {
            ac::is_multi_prefix_in(ac, a, t, alphabet, c, &opts.budget).0 == Ok(true)
        };
        crate::cut::consistent_cut(a, t, alphabet, traces, bad, &mut ask)
    }

    /// What each location of a WeakPass could still do: the diagnosis of the same multitrace
    /// in complete mode, where it fails with every action consumed.
    #[allow(clippy::too_many_arguments)]
    fn explain_weak_pass(
        &self,
        scratch: &mut Scratch,
        traces: &[Vec<LetterId>],
        opts: &CheckOptions,
        budget: &Budget,
        v: &mut Verdict,
        known: &[usize],
        end: Option<&mut dyn diagnose::EndQueries>,
    ) -> Result<(), CheckError> {
        let complete = CheckOptions {
            mode: multitrace_model::verdict::Mode::Complete,
            ..*opts
        };
        let mut whole = Verdict::new(VerdictKind::Fail);
        // A WeakPass is a multi-prefix: the whole multitrace is consistent, no need to ask,
        // nor of any cut below it (the same on every path, whatever the caller knew).
        let all: Vec<usize> = traces.iter().map(Vec::len).collect();
        let known = if all.iter().any(|&n| n > 0) {
            &all[..]
        } else {
            known
        };
        self.diagnose_letters(
            scratch,
            traces,
            &complete,
            Some(true),
            budget,
            &mut whole,
            known,
            end,
        )?;
        v.diagnosis = whole.diagnosis;
        Ok(())
    }

    /// Replaces the reason of a Fail of `traces` by the canonical one and adds the diagnosis
    /// (see [`diagnose`]): with the automata when the model has them, else by term
    /// exploration; actions of an interaction are reported as actions, not letters.
    // What is known of the multitrace comes in two parts (the whole, from the mode or a
    // WeakPass; a consistent cut, from the monitor), each from another caller.
    #[allow(clippy::too_many_arguments)]
    fn diagnose_letters(
        &self,
        scratch: &mut Scratch,
        traces: &[Vec<LetterId>],
        opts: &CheckOptions,
        whole: Option<bool>,
        budget: &Budget,
        v: &mut Verdict,
        known: &[usize],
        end: Option<&mut dyn diagnose::EndQueries>,
    ) -> Result<(), CheckError> {
        let alphabet = &self.model.alphabet;
        let mut d = if let (Some(a), Some(t)) = (self.model.automata(), self.tables.as_ref()) {
            v.reason = Some(diagnose::classify(a, alphabet, traces, opts.mode));
            diagnose::diagnose_letters(
                a,
                t,
                alphabet,
                traces,
                scratch.automata.ac(),
                whole,
                budget,
                known,
                // (A shorter lifetime for the object: not a coercion inside an `Option`.)
                end.map(|e| e as &mut dyn diagnose::EndQueries),
            )
        } else {
            let mt = self.letters_to_multitrace(traces)?;
            return self.diagnose_term(scratch, &mt, opts, whole, budget, v);
        };
        d.local = v.reason.as_ref().and_then(|r| {
            diagnose::local_entry(r, |i, p| traces[i].get(p).map(|&l| Sym::Letter(l)))
        });
        self.to_actions(&mut d, v);
        v.diagnosis = Some(d);
        Ok(())
    }

    /// The diagnosis of a Fail of `mt` by term exploration (its reason stays the procedure's).
    fn diagnose_term(
        &self,
        scratch: &mut Scratch,
        mt: &Multitrace,
        opts: &CheckOptions,
        whole: Option<bool>,
        budget: &Budget,
        v: &mut Verdict,
    ) -> Result<(), CheckError> {
        let (_, root) = self.term.as_ref().ok_or(CheckError::NeedsInteraction)?;
        let store = scratch
            .store
            .get_or_insert_with(|| self.term.as_ref().expect("term").0.clone());
        let actions = match &self.model.origin {
            multitrace_model::model::Origin::Interaction { letter_actions, .. } => {
                letter_actions.clone()
            }
            _ => Vec::new(),
        };
        let mut oracle = diagnose::TermOracle {
            store,
            root: *root,
            mt,
            actions,
            explore: opts.explore,
            shared: Default::default(),
        };
        let mut d =
            super::stack::with_check_stack(|| diagnose::diagnose_term(&mut oracle, whole, budget));
        // No local verifiers: the LocalError is the one the queries established (whatever the
        // exploration options), else a CentralError.
        if !d.partial {
            v.reason = Some(match &d.local {
                Some(b) => Reason::LocalError {
                    location: b.location,
                    position: b.position,
                    expected: b.allowed.clone(),
                },
                None => Reason::CentralError,
            });
        }
        self.to_actions(&mut d, v);
        v.diagnosis = Some(d);
        Ok(())
    }

    /// Reports letters of an interaction model as its actions, and sorts what is allowed, so
    /// that a diagnosis reads the same whichever oracle computed it.
    fn to_actions(&self, d: &mut Diagnosis, v: &mut Verdict) {
        let map = |s: Sym| match (s, &self.model.origin) {
            (
                Sym::Letter(l),
                multitrace_model::model::Origin::Interaction { letter_actions, .. },
            ) => letter_actions.get(l.index()).map_or(s, |&a| Sym::Action(a)),
            _ => s,
        };
        for b in d.blocked.iter_mut().chain(d.local.iter_mut()) {
            b.found = b.found.map(map);
            for a in b.allowed.iter_mut() {
                *a = map(*a);
            }
            b.allowed.sort();
        }
        if let Some(Reason::LocalError { expected, .. }) = &mut v.reason {
            for a in expected.iter_mut() {
                *a = map(*a);
            }
            expected.sort();
        }
    }

    /// Checks one multitrace of an interaction model.
    ///
    /// A multitrace whose components are the compiled locations is checked (and its verdict
    /// indexed) by location, in the model's order; otherwise, under `auto`, term exploration
    /// checks it component by component, in the multitrace's order.
    pub fn check_multitrace(
        &self,
        scratch: &mut Scratch,
        mt: &Multitrace,
        opts: &CheckOptions,
    ) -> Result<(Verdict, Procedure), CheckError> {
        let p = self.resolve(opts.choice)?;
        match self.model.letter_traces(mt) {
            Ok(letters) => self.check_letters(scratch, &letters, opts),
            // Another grouping of lifelines than the compiled one: only term exploration can
            // answer, and `auto` or `term` lets it.
            Err(_)
                if (opts.choice == Choice::Auto || p == Procedure::Term) && self.term.is_some() =>
            {
                let started = Instant::now();
                let mut v = self.explore(scratch, mt, opts);
                match (v.kind, opts.diagnosis) {
                    (VerdictKind::Fail, Some(budget)) => {
                        let budget = time_left(&budget, opts, started);
                        let whole = diagnose::known_whole(opts.mode);
                        self.diagnose_term(scratch, mt, opts, whole, &budget, &mut v)?;
                    }
                    (VerdictKind::WeakPass, Some(budget)) => {
                        let budget = time_left(&budget, opts, started);
                        // As in check_letters: the complete-mode diagnosis says what is left.
                        let complete = CheckOptions {
                            mode: multitrace_model::verdict::Mode::Complete,
                            ..*opts
                        };
                        let mut whole = Verdict::new(VerdictKind::Fail);
                        // A WeakPass is a multi-prefix: no need to ask about the whole.
                        self.diagnose_term(
                            scratch,
                            mt,
                            &complete,
                            Some(true),
                            &budget,
                            &mut whole,
                        )?;
                        v.diagnosis = whole.diagnosis;
                    }
                    _ => {}
                }
                Ok((v, Procedure::Term))
            }
            Err(e) => Err(CheckError::Mismatch(e)),
        }
    }

    /// Whether `mt`'s components are the compiled locations (then verdicts are indexed by
    /// location in the model's order; otherwise by component of `mt`).
    pub fn matches_locations(&self, mt: &Multitrace) -> bool {
        self.model.letter_traces(mt).is_ok()
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
        // Recursive: on the checking stack (see `stack`).
        super::stack::with_check_stack(|| explore(store, *root, mt, &eo))
    }

    fn letters_to_multitrace(&self, traces: &[Vec<LetterId>]) -> Result<Multitrace, CheckError> {
        use multitrace_model::model::Origin;
        use multitrace_model::multitrace::Component;
        let Origin::Interaction {
            letter_actions,
            location_lifelines,
            ..
        } = &self.model.origin
        else {
            return Err(CheckError::NeedsInteraction);
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

/// The diagnosis budget `budget` within what is left of the check's time limit: the check and
/// its diagnosis together stay within `--timeout-ms` (the diagnosis of a Fail found late is
/// then partial).
fn time_left(budget: &Budget, opts: &CheckOptions, started: Instant) -> Budget {
    let left = opts
        .budget
        .timeout
        .map(|t| t.saturating_sub(started.elapsed()));
    Budget {
        timeout: match (budget.timeout, left) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        },
        ..*budget
    }
}

#[cfg(test)]
mod tests {
    fn send_sync<T: Send + Sync>() {}

    /// One engine serves every thread of a batch.
    #[test]
    fn engine_and_model_are_send_and_sync() {
        send_sync::<super::Engine>();
        send_sync::<multitrace_model::model::CompiledModel>();
    }
}
