//! The offline event path (`check --events`) on the live engine: whole runs, as letters, checked
//! with what the monitor knows of them.
//!
//! `check --events` writes the batch record of each whole run (in its mode, the run's events
//! sorted by order key within each location). The monitor decides a run at the first event
//! after which it is no longer a multi-prefix, and then knows a consistent cut for free: the
//! events before the deciding one. That cut is what makes a Fail's canonical diagnosis cheap
//! ([`Engine::check_letters_known`] asks no question below it, by downward closure), and the
//! batch path lacks it. So a run here is:
//!
//! 1. checked whole without a diagnosis (one search: a Pass or an Inconclusive is its record
//!    as it is; a WeakPass gets what each location could still do, as `check` explains it);
//! 2. for a Fail, fed to a [`Monitor`] (without diagnoses) in the order its events arrived,
//!    which gives the deciding event; a run that is still open at its end is a multi-prefix
//!    whole (a complete-mode Fail whose run is unfinished);
//! 3. checked whole again with the diagnosis, knowing that cut.
//!
//! Invariant: the record is the one [`Engine::check_letters`] gives (the diagnosis is defined
//! by the semantics alone; a known cut only spares searches), so `check --events` writes the
//! same records as before. Only cuts the engine established are given as known. Term-only
//! models (and `--procedure term`) have no cut to use: their runs are checked as the batch
//! checks them.

use super::{Monitor, MonitorOptions, Standing};
use crate::check::{CheckError, CheckOptions, Choice, Engine, Procedure, Scratch};
use crate::nfa::LetterId;
use crate::record::Record;
use crate::verdict::{Verdict, VerdictKind};

/// A whole run of an event log, ready to check: its local traces as letters (each sorted by
/// order key, equal keys in input order) and the order its events arrived in.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OfflineRun {
    /// `FILE:LINE` of its first event (the record's `trace`).
    pub trace: String,
    /// The run id (the record's `id`).
    pub id: Option<String>,
    /// One local trace per location of the model, in location order.
    pub letters: Vec<Vec<LetterId>>,
    /// The location of each event, in the order the events arrived (the order the monitor is
    /// fed in; its `n` first entries name the cut of the first `n` events).
    pub arrivals: Vec<u32>,
}

/// What the offline path hands a batch, in order: a run to check, or a record already
/// decided (a run with a bad event, an event without a run, a file that cannot be read).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OfflineOut {
    /// A run to check.
    Run(OfflineRun),
    /// A record written as it is.
    Record(Box<Record>),
}

/// Checks one whole run: the record [`Engine::check_letters`] gives for `run.letters` with
/// `opts`, its Fail diagnosed with the cut the monitor finds (see the module documentation).
pub fn check_run(
    engine: &Engine,
    scratch: &mut Scratch,
    run: &OfflineRun,
    opts: &CheckOptions,
) -> Result<(Verdict, Procedure), CheckError> {
    let traces = &run.letters;
    let procedure = engine.procedure(opts.choice)?;
    let automata = procedure != Procedure::Term && engine.tables().is_some();
    let Some(_) = opts.diagnosis.filter(|_| automata) else {
        return engine.check_letters(scratch, traces, opts);
    };
    let quick = CheckOptions {
        diagnosis: None,
        ..*opts
    };
    let (mut v, p) = engine.check_letters(scratch, traces, &quick)?;
    match v.kind {
        VerdictKind::WeakPass => {
            // What each location could still do: the whole run is a multi-prefix already.
            engine.explain_letters(scratch, traces, opts, &mut v)?;
            Ok((v, p))
        }
        VerdictKind::Fail => {
            let cut = known_cut(engine, scratch, run, opts, p);
            engine.check_letters_known(scratch, traces, opts, &cut)
        }
        _ => Ok((v, p)),
    }
}

/// The cut the monitor establishes for a failed run: the events before the one that decides
/// it, in arrival order, or the whole run when none does (empty: nothing established).
fn known_cut(
    engine: &Engine,
    scratch: &mut Scratch,
    run: &OfflineRun,
    opts: &CheckOptions,
    procedure: Procedure,
) -> Vec<usize> {
    let options = MonitorOptions {
        check: CheckOptions {
            diagnosis: None,
            witness: false,
            choice: Choice::Force(procedure),
            ..*opts
        },
        ..MonitorOptions::default()
    };
    let Ok(m) = Monitor::new(engine, options) else {
        return Vec::new();
    };
    if !m.incremental() {
        return Vec::new();
    }
    let k = run.letters.len();
    let mut at = vec![0usize; k];
    let mut live = m.start();
    let mut fed = 0usize;
    for &j in &run.arrivals {
        let j = j as usize;
        let Some(&letter) = run.letters.get(j).and_then(|t| t.get(at[j])) else {
            return Vec::new();
        };
        at[j] += 1;
        fed += 1;
        if m.push(scratch, &mut live, letter).is_some() {
            break;
        }
    }
    match live.standing() {
        Standing::Open if fed == run.arrivals.len() => {}
        Standing::Decided(n, _) if n as usize == fed => {
            // The events before the deciding one were each checked: a multi-prefix.
            let last = run.arrivals[fed - 1] as usize;
            at[last] -= 1;
        }
        _ => return Vec::new(),
    }
    if at.iter().all(|&n| n == 0) {
        // The empty cut was never checked (a model may accept nothing at all).
        at.clear();
    }
    at
}
