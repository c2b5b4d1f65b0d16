//! The offline event path (`check --events`): whole runs, held as letters, checked with the
//! cut the monitor's engine knows.
//!
//! `check --events` writes the batch record of each whole run (in its mode, the run's events
//! sorted by order key within each location). The monitor decides a run at the first event
//! after which it is no longer a multi-prefix, and so knows a consistent cut: the events
//! before the deciding one. That cut is what makes a Fail's canonical diagnosis cheap
//! ([`Engine::check_letters_known`] asks no question below it, by downward closure), and the
//! batch path lacked it. A run here is:
//!
//! 1. checked whole without a diagnosis (one search): a Pass or an Inconclusive is its record
//!    as it is; a WeakPass gets what each location could still do, as `check` explains it;
//! 2. for a Fail, its cut is established: the longest run of first arrivals that is a
//!    multi-prefix (the monitor's "events before the deciding one", found by bisection with
//!    prefix checks, which downward closure makes monotone), then each location's trace
//!    extended as far as the cut stays a multi-prefix (galloping, then bisection); in
//!    complete mode a run that is a multi-prefix whole is its own cut. Each location's
//!    *local bound* (the longest prefix of its trace its local verifier reads into live
//!    states, found without a search) caps the cut there, and the cuts at the bounds are
//!    asked first (see `searched_cut`): one or two prefix checks (AC's first search,
//!    [`Engine::is_multi_prefix`]) find most cuts;
//! 3. diagnosed knowing that cut ([`Engine::explain_letters_known`]: the verdict of step 1
//!    is kept, the run is not checked again).
//!
//! Why prefix checks rather than the monitor's product fed event by event: on the MQTT set the
//! product's step and multi-prefix checks cost more than they spared (1.79 s against 0.92 s
//! of CPU for the same records), since a whole run is known here and a few searches find the
//! cut; the extension per location spares most of the diagnosis's remaining questions (the
//! canonical walk advances every location one action at a time past the cut). Tried again
//! with the fourth round's product (`multitrace_monitor::product::Product::push`, taking each arrival
//! that keeps the cut a multi-prefix, a location that cannot go on dropped): the greedy cut
//! made the diagnosis nearly free, but 84 % of the pushes left `R(n)` outside the live
//! states (a location's next action waits for another's), each then a search over the
//! faces: 1.44-1.49 s of CPU against 0.42 s.
//!
//! Invariant: the record is the one [`Engine::check_letters`] gives (the diagnosis is defined
//! by the semantics alone; a known cut only spares searches), so `check --events` writes the
//! same records as before. Only cuts a check established are given as known. Term-only models,
//! `--procedure term` and `--no-diagnosis` are checked as the batch checks them. A time budget
//! (`--timeout-ms`, 10 s by default) bounds the diagnosis by what the check left of it, the
//! search of the cut included (so a diagnosis cut short by time may stop elsewhere than the
//! batch's, which is timing-dependent anyway).

use multitrace_check::{CheckError, CheckOptions, Engine, Scratch};
use multitrace_model::nfa::LetterId;
use multitrace_model::verdict::Procedure;
use multitrace_model::verdict::{Verdict, VerdictKind};
use std::time::Instant;

pub use multitrace_formats::entry::{OfflineOut, OfflineRun};

/// Checks one whole run: the record [`Engine::check_letters`] gives for `run.letters` with
/// `opts`, a Fail diagnosed knowing a consistent cut (see the module documentation).
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
            let started = Instant::now();
            let cut = searched_cut(engine, scratch, run, opts);
            // A time budget counts the search of the cut, as the diagnosis's own time.
            let spent = started.elapsed();
            let mut known = *opts;
            known.budget.timeout = opts.budget.timeout.map(|t| t.saturating_sub(spent));
            // The verdict is the one just found: only its diagnosis is added (the check is
            // not run again).
            engine.explain_letters_known(scratch, traces, &known, &mut v, &cut)?;
            Ok((v, p))
        }
        _ => Ok((v, p)),
    }
}

/// The cut of the first `n` arrivals.
fn cut_of(run: &OfflineRun, n: usize) -> Vec<usize> {
    let mut at = vec![0usize; run.letters.len()];
    for &j in &run.arrivals[..n] {
        at[j as usize] += 1;
    }
    at
}

/// Each location's longest prefix its local verifier (the DFA `Proj(A, Σi)`) reads into
/// live states: no consistent cut goes further on that location (a multi-prefix's component
/// is a prefix of the projection of an accepted multitrace), found without a search.
fn local_bounds(engine: &Engine, run: &OfflineRun) -> Option<Vec<usize>> {
    let model = engine.model();
    let automata = model.automata()?;
    let alphabet = &model.alphabet;
    Some(
        run.letters
            .iter()
            .zip(&automata.projections)
            .map(|(trace, dfa)| {
                dfa.read_live(trace.iter().map(|&l| alphabet.local_index(l)))
                    .1
            })
            .collect(),
    )
}

/// A consistent cut (empty when none is established): the longest run of first arrivals
/// that is a multi-prefix (bisection with prefix checks: downward closure makes them
/// monotone), each location's trace then extended as far as the cut stays a multi-prefix,
/// the others fixed (galloping, then bisection).
///
/// Each location's local bound ([`local_bounds`]) caps both, and is tried first: on the MQTT
/// set the cut of the bounds is consistent for half the Fails (then it is the answer, one
/// check), the arrivals up to the first one past a bound are the longest consistent run for
/// 59 % of them, and an extension reaches the bound in 57 % of the cases and is empty in
/// 37 %: a check of the bound, then of one more letter, answers most of them.
fn searched_cut(
    engine: &Engine,
    scratch: &mut Scratch,
    run: &OfflineRun,
    opts: &CheckOptions,
) -> Vec<usize> {
    // AC's prefix search: every cut asked is within the local bounds, so AS's local
    // verifiers would reject none of them (AS, the procedure of the first version, took 6 %
    // more of the whole time on the MQTT set).
    let mut cut: Vec<Vec<LetterId>> = Vec::new();
    let mut consistent = |at: &[usize], scratch: &mut Scratch| {
        cut.resize(run.letters.len(), Vec::new());
        for ((c, t), &m) in cut.iter_mut().zip(&run.letters).zip(at) {
            c.clear();
            c.extend_from_slice(&t[..m]);
        }
        engine.is_multi_prefix(scratch, &cut, &opts.budget) == Some(true)
    };
    let n = run.arrivals.len();
    let whole: Vec<usize> = run.letters.iter().map(Vec::len).collect();
    let bound = local_bounds(engine, run).unwrap_or_else(|| whole.clone());
    // A Fail in prefix mode is not a multi-prefix whole (no need to ask); in complete mode
    // the whole may be one, and is its own cut then.
    let whole_known_bad = opts.mode == multitrace_model::verdict::Mode::Prefix && bound == whole;
    if bound.iter().any(|&m| m > 0) && !whole_known_bad && consistent(&bound, scratch) {
        // No location can go past its bound: the largest cut there is.
        return bound;
    }
    // The first arrival past its location's bound: no consistent run of arrivals reaches it.
    let mut taken = vec![0usize; bound.len()];
    let mut first_out = n;
    for (t, &j) in run.arrivals.iter().enumerate() {
        let j = j as usize;
        if taken[j] == bound[j] {
            first_out = t;
            break;
        }
        taken[j] += 1;
    }
    // (When every arrival is within the bounds, the cut of all of them is the bounds' cut,
    // known not to be consistent; so is `taken` when it reaches every bound.)
    let probe = first_out < n && first_out > 0 && taken != bound;
    let (mut lo, mut hi) = if probe && consistent(&taken, scratch) {
        (first_out, first_out + 1)
    } else {
        (0, first_out)
    };
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if consistent(&cut_of(run, mid), scratch) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let mut at = cut_of(run, lo);
    let mut proven = lo > 0;
    // Each location's trace extended as far as the cut stays a multi-prefix, the others fixed.
    for i in 0..at.len() {
        if bound[i] <= at[i] {
            continue;
        }
        // Up to the bound, the usual answer; else galloping from the cut (the extension is
        // then usually short), then bisection.
        let keep = std::mem::replace(&mut at[i], bound[i]);
        let ok = consistent(&at, scratch);
        at[i] = keep;
        if ok {
            at[i] = bound[i];
            proven = true;
            continue;
        }
        let (mut lo, mut hi) = (at[i], bound[i]);
        let mut step = 1;
        while lo + step < hi {
            let keep = std::mem::replace(&mut at[i], lo + step);
            let ok = consistent(&at, scratch);
            at[i] = keep;
            if ok {
                lo += step;
                proven = true;
                step *= 2;
            } else {
                hi = lo + step;
                break;
            }
        }
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            let keep = std::mem::replace(&mut at[i], mid);
            if consistent(&at, scratch) {
                lo = mid;
                proven = true;
            } else {
                hi = mid;
            }
            at[i] = keep;
        }
        at[i] = lo;
    }
    if !proven {
        return Vec::new();
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::engine as mqtt;
    use multitrace_check::Choice;
    use multitrace_model::rng::Rng;
    use multitrace_model::testdata::random_events;
    use multitrace_model::verdict::Mode;

    /// The verdict as its record has it: without the diagnosis's own search count.
    fn recorded(v: &Verdict) -> Verdict {
        let mut v = v.clone();
        if let Some(d) = &mut v.diagnosis {
            d.vertices = 0;
        }
        v
    }

    fn run_of(engine: &Engine, events: &[LetterId]) -> OfflineRun {
        let alphabet = &engine.model().alphabet;
        let mut letters = vec![Vec::new(); alphabet.locations()];
        let mut arrivals = Vec::new();
        for &a in events {
            let j = alphabet.location(a).index();
            letters[j].push(a);
            arrivals.push(j as u32);
        }
        OfflineRun {
            trace: "ev:1".into(),
            id: Some("r".into()),
            letters,
            arrivals,
        }
    }

    #[test]
    fn the_offline_record_is_the_batch_record_for_every_procedure_and_mode() {
        let engine = mqtt();
        let mut scratch = engine.scratch();
        let mut rng = Rng::new(20);
        let mut cuts = 0;
        for round in 0..160 {
            let steps = 1 + rng.below(40);
            let run = run_of(&engine, &random_events(engine.model(), &mut rng, steps));
            for mode in [Mode::Prefix, Mode::Complete] {
                for choice in [
                    Choice::Auto,
                    Choice::Force(Procedure::Ac),
                    Choice::Force(Procedure::As),
                    Choice::Force(Procedure::Term),
                ] {
                    let opts = CheckOptions {
                        mode,
                        choice,
                        ..CheckOptions::default()
                    };
                    let want = engine
                        .check_letters(&mut scratch, &run.letters, &opts)
                        .unwrap();
                    let got = check_run(&engine, &mut scratch, &run, &opts).unwrap();
                    assert_eq!(
                        (recorded(&got.0), got.1),
                        (recorded(&want.0), want.1),
                        "round {round}, {mode:?}, {choice:?}: {:?}",
                        run.letters
                    );
                    if want.0.kind == VerdictKind::Fail && choice == Choice::Auto {
                        let cut = searched_cut(&engine, &mut scratch, &run, &opts);
                        cuts += usize::from(!cut.is_empty());
                        if !cut.is_empty() {
                            // An established cut: below the run, and a multi-prefix.
                            let prefix: Vec<Vec<LetterId>> = run
                                .letters
                                .iter()
                                .zip(&cut)
                                .map(|(t, &n)| t[..n].to_vec())
                                .collect();
                            let p = CheckOptions {
                                mode: Mode::Prefix,
                                ..CheckOptions::default()
                            };
                            let v = engine.check_letters(&mut scratch, &prefix, &p).unwrap().0;
                            assert_ne!(v.kind, VerdictKind::Fail, "round {round}: cut {cut:?}");
                        }
                    }
                }
            }
        }
        assert!(
            cuts > 20,
            "the known cut was used on {cuts} failed runs only"
        );
    }

    /// Whether the cut of `run` at `at` is a multi-prefix, by the batch check (AC, prefix
    /// mode): the reference the searches below are compared with.
    fn batch_consistent(
        engine: &Engine,
        scratch: &mut Scratch,
        run: &OfflineRun,
        at: &[usize],
    ) -> bool {
        let cut: Vec<Vec<LetterId>> = run
            .letters
            .iter()
            .zip(at)
            .map(|(t, &n)| t[..n].to_vec())
            .collect();
        let opts = CheckOptions {
            mode: Mode::Prefix,
            choice: Choice::Force(Procedure::Ac),
            diagnosis: None,
            ..CheckOptions::default()
        };
        let v = engine.check_letters(scratch, &cut, &opts).unwrap().0;
        matches!(v.kind, VerdictKind::Pass | VerdictKind::WeakPass)
    }

    /// The cut of a Fail is the one of the first version's plain search (the longest run of
    /// first arrivals that is a multi-prefix, then each location extended in turn as far as
    /// the cut stays one), here by linear scans with the batch check: the local bounds and the
    /// probes of them only spare checks. And no consistent cut goes past the local bounds.
    #[test]
    fn the_cut_is_the_plain_searchs_and_the_local_bounds_bound_every_consistent_cut() {
        let engine = mqtt();
        let mut scratch = engine.scratch();
        let mut rng = Rng::new(22);
        let (mut fails, mut bounded) = (0, 0);
        for round in 0..200 {
            let steps = 1 + rng.below(30);
            let mut run = run_of(&engine, &random_events(engine.model(), &mut rng, steps));
            if rng.below(2) == 0 {
                rng.shuffle(&mut run.arrivals);
            }
            let bound = local_bounds(&engine, &run).unwrap();
            let lens: Vec<usize> = run.letters.iter().map(Vec::len).collect();
            for _ in 0..4 {
                let at: Vec<usize> = lens.iter().map(|&n| rng.below(n + 1)).collect();
                if batch_consistent(&engine, &mut scratch, &run, &at) {
                    bounded += 1;
                    assert!(
                        at.iter().zip(&bound).all(|(a, b)| a <= b),
                        "round {round}: consistent cut {at:?} past the bounds {bound:?}"
                    );
                }
            }
            for mode in [Mode::Prefix, Mode::Complete] {
                let opts = CheckOptions {
                    mode,
                    diagnosis: None,
                    ..CheckOptions::default()
                };
                let v = engine
                    .check_letters(&mut scratch, &run.letters, &opts)
                    .unwrap()
                    .0;
                if v.kind != VerdictKind::Fail {
                    continue;
                }
                fails += 1;
                let got = searched_cut(&engine, &mut scratch, &run, &opts);
                let want = if mode == Mode::Complete
                    && batch_consistent(&engine, &mut scratch, &run, &lens)
                {
                    lens.clone()
                } else {
                    let mut lo = 0;
                    while lo < run.arrivals.len()
                        && batch_consistent(&engine, &mut scratch, &run, &cut_of(&run, lo + 1))
                    {
                        lo += 1;
                    }
                    let mut at = cut_of(&run, lo);
                    let mut proven = lo > 0;
                    for i in 0..at.len() {
                        while at[i] < lens[i] && {
                            at[i] += 1;
                            let ok = batch_consistent(&engine, &mut scratch, &run, &at);
                            at[i] -= 1;
                            ok
                        } {
                            at[i] += 1;
                            proven = true;
                        }
                    }
                    if proven {
                        at
                    } else {
                        Vec::new()
                    }
                };
                assert_eq!(got, want, "round {round}, {mode:?}: {:?}", run.letters);
            }
        }
        assert!(
            fails > 40 && bounded > 100,
            "{fails} Fails, {bounded} consistent cuts"
        );
    }

    /// Issue 50, item 5: under a diagnosis budget that runs out, the known cut spares
    /// queries, so the event path's diagnosis stops elsewhere than the file path's (same
    /// verdict and reason, another `diagnosis` and explanation). Ignored until fixed: the
    /// cut must then be the same in both paths (a function of the letters), or absent.
    #[test]
    #[ignore = "known divergence under a small diagnosis budget (issue 50, item 5)"]
    fn a_diagnosis_budget_that_runs_out_gives_the_same_record_on_both_paths() {
        let engine = mqtt();
        let mut scratch = engine.scratch();
        let mut rng = Rng::new(23);
        let mut differ = 0;
        for _ in 0..200 {
            let steps = 1 + rng.below(40);
            let run = run_of(&engine, &random_events(engine.model(), &mut rng, steps));
            for budget in [5, 20, 100] {
                let opts = CheckOptions {
                    mode: Mode::Complete,
                    diagnosis: Some(multitrace_model::budget::Budget {
                        max_vertices: Some(budget),
                        ..Default::default()
                    }),
                    ..CheckOptions::default()
                };
                let want = engine.check_letters(&mut scratch, &run.letters, &opts);
                let got = check_run(&engine, &mut scratch, &run, &opts);
                let (want, got) = (want.unwrap(), got.unwrap());
                differ += usize::from(recorded(&got.0) != recorded(&want.0));
            }
        }
        assert_eq!(differ, 0, "{differ} records differ");
    }

    #[test]
    fn arrivals_in_any_order_give_the_same_record() {
        let engine = mqtt();
        let mut scratch = engine.scratch();
        let mut rng = Rng::new(21);
        for _ in 0..60 {
            let steps = 1 + rng.below(30);
            let mut run = run_of(&engine, &random_events(engine.model(), &mut rng, steps));
            let opts = CheckOptions::default();
            let want = check_run(&engine, &mut scratch, &run, &opts).unwrap();
            rng.shuffle(&mut run.arrivals);
            let got = check_run(&engine, &mut scratch, &run, &opts).unwrap();
            assert_eq!(recorded(&got.0), recorded(&want.0));
        }
    }
}
