//! Synthesis and projection against the denotational oracle (proptest on random interactions).

use super::oracle::*;
use multitrace_check::ac::{check_ac, check_ac_in, AcScratch, AcTables};
use multitrace_check::explore::{explore, Budget, ExploreOptions};
use multitrace_check::semi::{
    check_as, check_as_in, local_check, AsScratch, LocalOutcome, LocalTables,
};
use multitrace_check::{CheckOptions, Choice, Engine};
use multitrace_compiler::compile::{compile_interaction, CompileOptions, LocationChoice};
use multitrace_compiler::syntax::InteractionModel;
use multitrace_model::model::{CompiledModel, ModelKind};
use multitrace_model::nfa::{LetterId, LocationId, StateId};
use multitrace_model::project::bits;
use multitrace_model::signature::{Action, LifelineSet, Signature};
use multitrace_model::term::TermStore;
use multitrace_model::verdict::Procedure;
use multitrace_model::verdict::{Diagnosis, Mode, VerdictKind};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use std::collections::BTreeSet;

fn signature() -> Signature {
    let mut sig = Signature::new();
    for l in 0..LIFELINES {
        sig.add_lifeline(&format!("l{l}")).unwrap();
    }
    sig.add_message("m0");
    sig.add_message("m1");
    sig
}

fn model_of(a: &Ast) -> InteractionModel {
    let mut store = TermStore::new();
    let root = build(&mut store, a);
    InteractionModel {
        signature: signature(),
        store,
        root,
        signature_file: None,
        loops: Vec::new(),
        file: "random.hif".into(),
        digest: Default::default(),
    }
}

fn compile(a: &Ast, colocated: bool) -> (InteractionModel, CompiledModel) {
    let m = model_of(a);
    let opts = CompileOptions {
        locations: if colocated {
            LocationChoice::Groups(vec![vec!["l0".into(), "l1".into()], vec!["l2".into()]])
        } else {
            LocationChoice::Default
        },
        ..CompileOptions::default()
    };
    let c = compile_interaction(&m, &opts).unwrap();
    (m, c)
}

/// Words of length <= n accepted by the NFA, as actions.
fn nfa_words(c: &CompiledModel, n: usize) -> Lang {
    let a = c.automata().unwrap();
    let actions = match &c.origin {
        multitrace_model::model::Origin::Interaction { letter_actions, .. } => {
            letter_actions.clone()
        }
        _ => unreachable!(),
    };
    let mut out = Lang::new();
    let mut frontier: Vec<(StateId, Vec<Action>)> =
        a.nfa.initial().iter().map(|&s| (s, Vec::new())).collect();
    for _ in 0..=n {
        let mut next = Vec::new();
        for (s, w) in &frontier {
            if a.nfa.is_accepting(*s) {
                out.insert(w.clone());
            }
            if w.len() == n {
                continue;
            }
            for (_, t) in a.nfa.out(*s) {
                let mut w2 = w.clone();
                w2.push(actions[t.letter.index()]);
                next.push((t.to, w2));
            }
        }
        next.sort();
        next.dedup();
        frontier = next;
    }
    out
}

fn groups_of(c: &CompiledModel) -> Vec<LifelineSet> {
    match &c.origin {
        multitrace_model::model::Origin::Interaction {
            location_lifelines, ..
        } => location_lifelines.clone(),
        _ => unreachable!(),
    }
}

proptest! {
    // Regressions are read from `differential.proptest-regressions` beside this file: the
    // default (`SourceParallel`) would look under `tests/proptest-regressions/`, since this
    // directory holds the binary's `main.rs`.
    #![proptest_config(ProptestConfig {
        cases: 200,
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("proptest-regressions"))),
        .. ProptestConfig::default()
    })]

    /// L(A) = σ(I): exactly on global traces when no rewriting applies (co-localized
    /// lifelines), and on multitraces after the weak-to-strict rewriting.
    #[test]
    fn nfa_language_is_the_interaction_semantics(a in arb_ast(), colocated in any::<bool>()) {
        let (_, c) = compile(&a, colocated);
        if let ModelKind::TermOnly(reason) = &c.kind {
            // Only non-regular suspects go term-only on these small terms.
            prop_assert!(reason.contains("loop"), "{}", reason);
            return Ok(());
        }
        let n = 5;
        let words = nfa_words(&c, n);
        let expected = sem(&a, n);
        if colocated {
            prop_assert_eq!(&words, &expected, "{:?}", a);
        } else {
            let groups = groups_of(&c);
            let pw: BTreeSet<Vec<Trace>> = words.iter().map(|w| project(w, &groups)).collect();
            let pe: BTreeSet<Vec<Trace>> = expected.iter().map(|w| project(w, &groups)).collect();
            prop_assert_eq!(pw, pe, "{:?}", a);
        }
    }

    /// L(Proj(A, Σi)) = L(A)|Σi (words up to length 4 over Σi, against a direct simulation
    /// of A with the other letters as ε), and Th. 4.2: an accepted word projecting on μi
    /// is accepted inside Area(μi).
    #[test]
    fn projections_recognize_the_projected_language(a in arb_ast(), colocated in any::<bool>()) {
        let (_, c) = compile(&a, colocated);
        let Some(aut) = c.automata() else { return Ok(()) };
        let nfa = &aut.nfa;
        for k in 0..c.alphabet.locations() {
            let loc = LocationId(k as u32);
            let dfa = &aut.projections[k];
            let local = c.alphabet.letters_of(loc).to_vec();
            // ε-closure simulation.
            let close = |set: &mut BTreeSet<StateId>| {
                let mut stack: Vec<StateId> = set.iter().copied().collect();
                while let Some(s) = stack.pop() {
                    for (_, t) in nfa.out(s) {
                        if c.alphabet.location(t.letter) != loc && set.insert(t.to) {
                            stack.push(t.to);
                        }
                    }
                }
            };
            let mut words: Vec<Vec<LetterId>> = vec![Vec::new()];
            for len in 0..=4usize {
                for w in words.iter().filter(|w| w.len() == len) {
                    let mut set: BTreeSet<StateId> = nfa.initial().iter().copied().collect();
                    close(&mut set);
                    for &x in w {
                        let mut next = BTreeSet::new();
                        for &s in &set {
                            for (_, t) in nfa.out(s) {
                                if t.letter == x { next.insert(t.to); }
                            }
                        }
                        close(&mut next);
                        set = next;
                    }
                    let sim = set.iter().any(|&s| nfa.is_accepting(s));
                    let mut area = vec![0u64; aut.areas.words()];
                    let mut seen = Vec::new();
                    let out = local_check(aut, dfa, &c.alphabet, w, Mode::Complete, &mut area, &mut seen);
                    prop_assert_eq!(sim, matches!(out, LocalOutcome::Pass { .. }), "{:?} {:?}", a, w);
                }
                let longer: Vec<Vec<LetterId>> = words
                    .iter()
                    .filter(|w| w.len() == len)
                    .flat_map(|w| local.iter().map(move |&x| { let mut v = w.clone(); v.push(x); v }))
                    .collect();
                words.extend(longer);
            }
        }
        // Th. 4.2 on the accepted words up to length 5.
        let letter_of = |x: Action| c.letter_of(x).unwrap();
        for w in nfa_words(&c, 5) {
            let w: Vec<LetterId> = w.into_iter().map(letter_of).collect();
            for k in 0..c.alphabet.locations() {
                let mu: Vec<LetterId> = w.iter().copied().filter(|&x| c.alphabet.location(x).index() == k).collect();
                let mut area = vec![0u64; aut.areas.words()];
                let mut seen = Vec::new();
                let out = local_check(aut, &aut.projections[k], &c.alphabet, &mu, Mode::Complete, &mut area, &mut seen);
                prop_assert!(matches!(out, LocalOutcome::Pass { .. }), "{:?}", out);
                // w is read inside the area.
                let mut set: BTreeSet<StateId> = nfa.initial().iter().copied().collect();
                for &x in &w {
                    let mut next = BTreeSet::new();
                    for &s in &set {
                        for i in nfa.out_range(s) {
                            let t = nfa.transitions()[i];
                            if t.letter == x && bits::get(&area, i) { next.insert(t.to); }
                        }
                    }
                    set = next;
                }
                prop_assert!(set.iter().any(|&s| nfa.is_accepting(s)), "{:?} {:?}", a, w);
            }
        }
    }

    /// The diagnosis of a Fail is the same whatever the procedure (AC, AS, term
    /// exploration, with viability pruning, POR, LOC and memoization on or off), and
    /// whichever oracle computes it: the automata, or term exploration on the same
    /// interaction compiled term-only.
    #[test]
    fn diagnoses_are_the_same_for_every_procedure(a in arb_ast(), grouping in 0..3usize, seed in 1..u64::MAX) {
        // One location per lifeline, two locations, or one location for all (decided by
        // its DFA alone, diagnosed without queries).
        let locations = || match grouping {
            0 => LocationChoice::Default,
            1 => LocationChoice::Groups(vec![vec!["l0".into(), "l1".into()], vec!["l2".into()]]),
            _ => LocationChoice::Groups(vec![vec!["l0".into(), "l1".into(), "l2".into()]]),
        };
        let m = model_of(&a);
        let c = compile_interaction(&m, &CompileOptions { locations: locations(), ..CompileOptions::default() }).unwrap();
        if c.automata().is_none() {
            return Ok(());
        }
        let groups = groups_of(&c);
        let term_only = {
            let opts = CompileOptions {
                locations: locations(),
                policy: multitrace_compiler::compile::AutomataPolicy::Never,
                ..CompileOptions::default()
            };
            Engine::new(compile_interaction(&m, &opts).unwrap())
        };
        let engine = Engine::new(c);
        let (mut s1, mut s2) = (engine.scratch(), term_only.scratch());
        let budget = Budget { max_vertices: Some(2_000_000), timeout: None, ..Budget::UNLIMITED };
        for mu in candidates(&a, &groups, seed) {
            let mt = multitrace(&groups, &mu);
            for mode in [Mode::Complete, Mode::Prefix] {
                let mut seen: Option<(String, Diagnosis)> = None;
                let mut runs = Vec::new();
                for p in [Procedure::Ac, Procedure::As, Procedure::Term] {
                    for (por, loc, memo) in [(true, true, true), (false, false, true), (true, false, false)] {
                        let opts = CheckOptions {
                            mode,
                            choice: Choice::Force(p),
                            explore: ExploreOptions { por, loc, memo, ..ExploreOptions::default() },
                            budget,
                            diagnosis: Some(budget),
                            ..CheckOptions::default()
                        };
                        runs.push((format!("{p:?} {por} {loc} {memo}"), engine.check_multitrace(&mut s1, &mt, &opts).unwrap().0));
                        if p == Procedure::Term {
                            runs.push((format!("term-only {por} {loc} {memo}"), term_only.check_multitrace(&mut s2, &mt, &opts).unwrap().0));
                        }
                    }
                }
                // Every procedure gives the same verdict (AS on one location decides by
                // its DFA alone; term exploration may give up under loopH).
                let kinds: BTreeSet<String> = runs
                    .iter()
                    .filter(|(_, v)| v.kind != VerdictKind::Inconclusive)
                    .map(|(_, v)| format!("{:?}", v.kind))
                    .collect();
                prop_assert!(kinds.len() <= 1, "{:?} {:?} {:?} {:?}", kinds, a, mu, mode);
                for (name, v) in runs {
                    if v.kind != VerdictKind::Fail {
                        // A WeakPass carries the complete-mode diagnosis (what is left to do).
                        if v.kind != VerdictKind::WeakPass {
                            prop_assert!(v.diagnosis.is_none());
                        }
                        continue;
                    }
                    let mut d = v.diagnosis.clone().expect("a Fail is diagnosed");
                    if d.partial {
                        // Only term exploration may give up (bounded silent moves under
                        // loopH); the automata never do on these small cases.
                        prop_assert!(name.starts_with("term-only"), "{} {:?}", name, a);
                        continue;
                    }
                    d.vertices = 0;
                    if name.starts_with("term-only") {
                        // Its reason is term exploration's own; the rest is canonical.
                        d.local = None;
                    }
                    match &seen {
                        None => seen = Some((format!("{name} {:?}", v.reason), d)),
                        Some((first, e)) => {
                            let mut e = e.clone();
                            if name.starts_with("term-only") {
                                e.local = None;
                            }
                            prop_assert_eq!(&d, &e, "{} vs {}: {:?} {:?} {:?}", name, first, a, mu, mode);
                        }
                    }
                }
            }
        }
    }

    /// AC, AS and term exploration agree with each other (and with the oracle where it is
    /// exact) in both modes.
    #[test]
    fn ac_as_and_term_exploration_agree(a in arb_ast(), colocated in any::<bool>(), seed in 1..u64::MAX) {
        let (m, c) = compile(&a, colocated);
        let groups = groups_of(&c);
        let budget = Budget { max_vertices: Some(2_000_000), timeout: None, ..Budget::UNLIMITED };
        let tables = c.automata().map(|aut| AcTables::new(&aut.nfa, &c.alphabet));
        let local = c.automata().and_then(|aut| LocalTables::new(aut, &c.alphabet));
        let mut scratch = AsScratch::default();
        for mu in candidates(&a, &groups, seed) {
            let mt = multitrace(&groups, &mu);
            let letters = c.letter_traces(&mt).unwrap();
            for mode in [Mode::Complete, Mode::Prefix] {
                let mut store = m.store.clone();
                let opts = ExploreOptions { mode, budget, ..ExploreOptions::default() };
                let term = explore(&mut store, m.root, &mt, &opts).kind;
                let (expected, exact) = oracle(&a, &groups, &mu, mode);
                // loopH in prefix mode: bounded silent moves may honestly give up.
                let gave_up = term == VerdictKind::Inconclusive
                    && mode == Mode::Prefix
                    && store.has_head_loop(m.root);
                if exact && !gave_up {
                    prop_assert_eq!(term, expected, "{:?} {:?} {:?}", a, mu, mode);
                }
                if let (Some(aut), Some(tables)) = (c.automata(), &tables) {
                    let ac = check_ac(aut, tables, &c.alphabet, &letters, None, mode, &budget, false).verdict.kind;
                    // Viability pruning from the first vertex (small cases rarely reach
                    // the default threshold) never changes the verdict.
                    let mut pruned = AcScratch::default();
                    pruned.set_prune_after(Some(0));
                    let ac_pruned = check_ac_in(&mut pruned, aut, tables, &c.alphabet, &letters, None, mode, &budget, false).verdict.kind;
                    prop_assert_eq!(ac_pruned, ac, "AC pruned {:?} {:?} {:?}", a, mu, mode);
                    let reference = check_as(aut, tables, &c.alphabet, &letters, mode, &budget, false);
                    let as_ = reference.kind;
                    prop_assert_eq!(ac, as_, "AC/AS {:?} {:?} {:?}", a, mu, mode);
                    // The fast local checks (lockstep, re-indexed DFAs) give the same
                    // verdict and reason as the reference reading.
                    let fast = check_as_in(&mut scratch, aut, tables, local.as_ref(), &c.alphabet, &letters, mode, &budget, false);
                    prop_assert_eq!(fast.kind, as_);
                    prop_assert_eq!(format!("{:?}", fast.reason), format!("{:?}", reference.reason));
                    if exact {
                        prop_assert_eq!(ac, expected, "AC {:?} {:?} {:?}", a, mu, mode);
                    }
                    if !gave_up {
                        prop_assert_eq!(ac, term, "AC {:?} {:?} {:?}", a, mu, mode);
                        prop_assert_ne!(term, VerdictKind::Inconclusive);
                    }
                }
            }
        }
    }
}
