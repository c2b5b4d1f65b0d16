//! The live engine on random interactions: after every event of random candidates fed in
//! random orders, its verdict is the batch check's in prefix mode, for AC, AS and term
//! exploration; a Fail is reported at the first event where the batch prefix check fails, as
//! the batch record; at the end, the batch verdict of the whole run in either mode.

use super::oracle::*;
use multitrace_check::explore::Budget;
use multitrace_check::{CheckOptions, Choice, Engine};
use multitrace_compiler::compile::{compile_interaction, CompileOptions, LocationChoice};
use multitrace_compiler::syntax::InteractionModel;
use multitrace_model::nfa::LetterId;
use multitrace_model::rng::Rng;
use multitrace_model::signature::Signature;
use multitrace_model::term::TermStore;
use multitrace_model::verdict::Procedure;
use multitrace_model::verdict::{Mode, Verdict, VerdictKind};
use multitrace_monitor::{Monitor, MonitorOptions};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;

fn model_of(a: &Ast) -> InteractionModel {
    let mut sig = Signature::new();
    for l in 0..LIFELINES {
        sig.add_lifeline(&format!("l{l}")).unwrap();
    }
    sig.add_message("m0");
    sig.add_message("m1");
    let mut store = TermStore::new();
    let root = build(&mut store, a);
    InteractionModel {
        signature: sig,
        store,
        root,
        signature_file: None,
        loops: Vec::new(),
        file: "random.hif".into(),
        digest: Default::default(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 120,
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("proptest-regressions"))),
        .. ProptestConfig::default()
    })]

    #[test]
    fn live_verdicts_are_the_batch_verdicts_of_every_prefix(a in arb_ast(), grouping in 0..2usize, seed in 1..u64::MAX) {
        let locations = match grouping {
            0 => LocationChoice::Default,
            _ => LocationChoice::Groups(vec![vec!["l0".into(), "l1".into()], vec!["l2".into()]]),
        };
        let m = model_of(&a);
        let c = compile_interaction(&m, &CompileOptions { locations, ..CompileOptions::default() }).unwrap();
        let groups = match &c.origin {
            multitrace_model::model::Origin::Interaction { location_lifelines, .. } => location_lifelines.clone(),
            _ => unreachable!(),
        };
        let engine = Engine::new(c);
        let mut scratch = engine.scratch();
        let mut rng = Rng::new(seed);
        let budget = Budget { max_vertices: Some(2_000_000), timeout: None, ..Budget::UNLIMITED };
        let procedures: &[Procedure] = if engine.model().automata().is_some() {
            &[Procedure::Ac, Procedure::As, Procedure::Term]
        } else {
            &[Procedure::Term]
        };
        for mu in candidates(&a, &groups, seed) {
            let mt = multitrace(&groups, &mu);
            let Ok(letters) = engine.model().letter_traces(&mt) else { continue };
            // A random order of the events that keeps each location's order.
            let mut pos = vec![0; letters.len()];
            let mut events: Vec<LetterId> = Vec::new();
            loop {
                let left: Vec<usize> = (0..letters.len()).filter(|&k| pos[k] < letters[k].len()).collect();
                if left.is_empty() { break; }
                let k = left[rng.below(left.len())];
                events.push(letters[k][pos[k]]);
                pos[k] += 1;
            }
            for &p in procedures {
                for mode in [Mode::Prefix, Mode::Complete] {
                    let check = |m: Mode| CheckOptions { mode: m, choice: Choice::Force(p), budget, diagnosis: Some(budget), ..CheckOptions::default() };
                    let mon = Monitor::new(&engine, MonitorOptions { check: check(mode), ..MonitorOptions::default() }).unwrap();
                    let mut run = mon.start();
                    let mut traces = vec![Vec::new(); letters.len()];
                    let mut failed = false;
                    for &e in &events {
                        traces[engine.model().alphabet.location(e).index()].push(e);
                        let got = mon.push(&mut scratch, &mut run, e);
                        let want = engine.check_letters(&mut scratch, &traces, &check(Mode::Prefix)).unwrap().0;
                        if want.kind == VerdictKind::Inconclusive || failed {
                            prop_assert!(failed || want.kind != VerdictKind::Fail);
                            if want.kind == VerdictKind::Inconclusive { failed = true; }
                            continue;
                        }
                        prop_assert_eq!(mon.verdict_now(&mut scratch, &run), want.kind, "{:?} {:?} {:?}", p, a, traces);
                        if want.kind == VerdictKind::Fail {
                            // As its record has it: without the procedure's and the
                            // diagnosis's search work, which the monitor spares (its product
                            // decided the verdict: `Engine::check_letters_ending`).
                            let recorded = |v: &Verdict| {
                                let mut v = v.clone();
                                v.vertices = 0;
                                if let Some(d) = &mut v.diagnosis { d.vertices = 0; }
                                v
                            };
                            prop_assert_eq!(got.as_ref().map(recorded), Some(recorded(&want)));
                            failed = true;
                        } else {
                            prop_assert!(got.is_none());
                        }
                    }
                    if !failed {
                        let want = engine.check_letters(&mut scratch, &traces, &check(mode)).unwrap().0;
                        if want.kind != VerdictKind::Inconclusive {
                            prop_assert_eq!(mon.finish(&mut scratch, &run).kind, want.kind, "{:?} {:?} {:?} {:?}", p, mode, a, traces);
                        }
                    }
                }
            }
        }
    }
}
