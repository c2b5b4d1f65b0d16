//! Integration tests of the compiler crate: the data-driven fixture suite and the HIBOU
//! benchmark sample, run through every check procedure.

use multitrace_compiler::compile::{compile_interaction, CompileOptions};
use multitrace_compiler::syntax::{read_interaction, read_text, InteractionModel};
use multitrace_runtime::check::explore::{explore, Budget, ExploreOptions};
use multitrace_runtime::check::{CheckOptions, Choice, Engine, Procedure};
use multitrace_runtime::multitrace::Multitrace;
use multitrace_runtime::syntax::parse_htf;
use multitrace_runtime::verdict::{Mode, Reason, VerdictKind};
use std::path::{Path, PathBuf};

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures")
}

fn verdict_named(s: &str) -> VerdictKind {
    match s {
        "Pass" => VerdictKind::Pass,
        "WeakPass" => VerdictKind::WeakPass,
        "Fail" => VerdictKind::Fail,
        "Inconclusive" => VerdictKind::Inconclusive,
        other => panic!("unknown verdict {other}"),
    }
}

fn read_mt(model: &InteractionModel, path: &Path) -> Multitrace {
    let text = read_text(path).unwrap();
    parse_htf(&path.display().to_string(), &text, &model.signature)
        .unwrap_or_else(|e| panic!("{e}"))
        .0
}

/// Every combination of POR, LOC and memoization.
fn variants(mode: Mode) -> Vec<ExploreOptions> {
    let mut v = Vec::new();
    for bits in 0..8 {
        v.push(ExploreOptions {
            mode,
            por: bits & 1 != 0,
            loc: bits & 2 != 0,
            memo: bits & 4 != 0,
            budget: Budget {
                max_vertices: Some(5_000_000),
                timeout: None,
            },
            witness: false,
        });
    }
    v
}

/// One fixture: (model, [(trace path, complete verdict, prefix verdict)]).
fn load_fixture(dir: &Path) -> (InteractionModel, Vec<(PathBuf, VerdictKind, VerdictKind)>) {
    let model = read_interaction(&dir.join("model.hif"), None).unwrap_or_else(|e| panic!("{e}"));
    (model, expected_verdicts(dir))
}

fn fixture_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(fixtures_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("expected.txt").is_file() && p.join("model.hif").is_file())
        .collect();
    dirs.sort();
    dirs
}

fn expected_verdicts(dir: &Path) -> Vec<(PathBuf, VerdictKind, VerdictKind)> {
    let expected = std::fs::read_to_string(dir.join("expected.txt")).unwrap();
    let mut cases = Vec::new();
    for line in expected.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let f: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(f.len(), 3, "{}: bad line {line}", dir.display());
        cases.push((
            dir.join("traces").join(f[0]),
            verdict_named(f[1]),
            verdict_named(f[2]),
        ));
    }
    cases
}

/// Raw-automaton fixtures (`model.timbuk` with `.mtf` traces): AC and AS.
#[test]
fn automaton_fixtures_give_expected_verdicts_with_ac_and_as() {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(fixtures_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("model.timbuk").is_file())
        .collect();
    dirs.sort();
    assert!(!dirs.is_empty());
    for dir in dirs {
        let model = multitrace_compiler::source::load_model(
            &dir.join("model.timbuk"),
            None,
            &CompileOptions::default(),
        )
        .unwrap();
        let engine = Engine::new(model);
        let mut scratch = engine.scratch();
        for (path, complete, prefix) in expected_verdicts(&dir) {
            let text = read_text(&path).unwrap();
            let traces = multitrace_runtime::syntax::parse_mtf(
                &path.display().to_string(),
                &text,
                &engine.model().alphabet,
            )
            .unwrap();
            for (mode, expected) in [(Mode::Complete, complete), (Mode::Prefix, prefix)] {
                for p in [Procedure::Ac, Procedure::As] {
                    let opts = CheckOptions {
                        mode,
                        choice: Choice::Force(p),
                        ..CheckOptions::default()
                    };
                    let (v, _) = engine.check_letters(&mut scratch, &traces, &opts).unwrap();
                    assert_eq!(v.kind, expected, "{} {mode:?} {p:?}", path.display());
                }
            }
        }
    }
}

/// Every fixture multitrace (interactions and raw automata), both modes: the record of every
/// procedure and option set carries the same explanation, reason and diagnosis, a Fail is
/// always explained (never by "nothing"), and what a LocalError reports found is the action
/// at that position.
#[test]
fn fixture_failures_are_explained_the_same_by_every_procedure() {
    use multitrace_runtime::record::{Names, Record};
    use multitrace_runtime::verdict::Sym;
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(fixtures_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("expected.txt").is_file())
        .collect();
    dirs.sort();
    let mut fails = 0;
    for dir in dirs {
        let timbuk = dir.join("model.timbuk");
        let path = if timbuk.is_file() {
            timbuk
        } else {
            dir.join("model.hif")
        };
        let model =
            multitrace_compiler::source::load_model(&path, None, &CompileOptions::default())
                .unwrap();
        let engine = Engine::new(model);
        let model = engine.model();
        let mut scratch = engine.scratch();
        let render = |s: Sym| match s {
            Sym::Action(a) => model.signature().unwrap().action_to_string(a),
            Sym::Letter(l) => model.alphabet.name(l).to_string(),
        };
        let procedures: &[Procedure] =
            match (model.automata().is_some(), model.signature().is_some()) {
                (true, true) => &[Procedure::Ac, Procedure::As, Procedure::Term],
                (true, false) => &[Procedure::Ac, Procedure::As],
                _ => &[Procedure::Term],
            };
        for (trace, _, _) in expected_verdicts(&dir) {
            let text = read_text(&trace).unwrap();
            let file = trace.display().to_string();
            for mode in [Mode::Complete, Mode::Prefix] {
                let mut seen: Option<(String, String)> = None;
                for &p in procedures {
                    for explore in variants(mode) {
                        let opts = CheckOptions {
                            mode,
                            choice: Choice::Force(p),
                            explore,
                            ..CheckOptions::default()
                        };
                        let (v, names) = if let Some(sig) = model.signature() {
                            let (mt, htf_names) = parse_htf(&file, &text, sig).unwrap();
                            let names = if engine.matches_locations(&mt) {
                                model.alphabet.location_names().to_vec()
                            } else {
                                htf_names
                            };
                            match engine.check_multitrace(&mut scratch, &mt, &opts) {
                                Ok((v, _)) => (v, names),
                                // Co-localized traces on singleton locations: term only.
                                Err(_) => continue,
                            }
                        } else {
                            let traces = multitrace_runtime::syntax::parse_mtf(
                                &file,
                                &text,
                                &model.alphabet,
                            )
                            .unwrap();
                            let (v, _) =
                                engine.check_letters(&mut scratch, &traces, &opts).unwrap();
                            (v, model.alphabet.location_names().to_vec())
                        };
                        let names = Names {
                            render: &render,
                            locations: &names,
                        };
                        let r = Record::checked(
                            file.clone(),
                            None,
                            &v,
                            p,
                            &names,
                            std::time::Duration::ZERO,
                        );
                        if v.kind != VerdictKind::Fail {
                            continue;
                        }
                        let e = r.explanation.clone().unwrap();
                        assert!(
                            !e.contains("nothing") || e.contains("can do nothing more"),
                            "{file} {mode:?} {p:?}: {e}"
                        );
                        assert!(r.diagnosis.is_some(), "{file}");
                        if let Some(l) = &r.local_error {
                            let k = names
                                .locations
                                .iter()
                                .position(|n| *n == l.location)
                                .unwrap();
                            assert!(l.position >= 1);
                            let _ = k;
                        }
                        let canonical = format!(
                            "{:?} {:?} {:?} {:?}",
                            r.reason, r.explanation, r.local_error, r.diagnosis
                        );
                        match &seen {
                            None => seen = Some((format!("{p:?}"), canonical)),
                            Some((first, c)) => assert_eq!(
                                &canonical, c,
                                "{file} {mode:?}: {p:?} {explore:?} vs {first}"
                            ),
                        }
                        fails += 1;
                    }
                }
            }
        }
    }
    assert!(fails > 100, "{fails}");
}

/// A letter in the trace of another location is refused, not checked: the procedures read
/// each trace on its own location's tables.
#[test]
fn letters_of_another_location_are_refused() {
    let model = multitrace_compiler::source::load_model(
        &fixtures_dir().join("seed004-fig3/model.timbuk"),
        None,
        &CompileOptions::default(),
    )
    .unwrap();
    let engine = Engine::new(model);
    let mut scratch = engine.scratch();
    let alphabet = &engine.model().alphabet;
    let c = alphabet.letter("c").unwrap();
    let e = alphabet.letter("e").unwrap();
    // `c` belongs to l2; here it is in l1's trace.
    let traces = vec![vec![e, c], vec![], vec![]];
    for p in [Procedure::Ac, Procedure::As] {
        let opts = CheckOptions {
            choice: Choice::Force(p),
            ..CheckOptions::default()
        };
        let err = engine
            .check_letters(&mut scratch, &traces, &opts)
            .unwrap_err();
        assert!(err.to_string().contains("location l1"), "{err}");
    }
    // A letter id beyond the alphabet is refused too.
    let traces = vec![vec![multitrace_runtime::nfa::LetterId(99)], vec![], vec![]];
    assert!(engine
        .check_letters(&mut scratch, &traces, &CheckOptions::default())
        .is_err());
}

#[test]
fn fixtures_give_expected_verdicts_with_term_exploration() {
    let dirs = fixture_dirs();
    assert!(dirs.len() >= 6, "fixtures missing");
    let mut checked = 0;
    let mut automata_checked = 0;
    for dir in dirs {
        let (model, cases) = load_fixture(&dir);
        assert!(!cases.is_empty());
        // Every trace file of the fixture has an expected verdict.
        let listed = std::fs::read_dir(dir.join("traces")).unwrap().count();
        assert_eq!(
            listed,
            cases.len(),
            "{}: traces without expected verdicts",
            dir.display()
        );
        let engine = Engine::new(compile_interaction(&model, &CompileOptions::default()).unwrap());
        let mut scratch = engine.scratch();
        for (path, complete, prefix) in &cases {
            let mt = read_mt(&model, path);
            for (mode, expected) in [(Mode::Complete, complete), (Mode::Prefix, prefix)] {
                for opts in variants(mode) {
                    let mut store = model.store.clone();
                    let v = explore(&mut store, model.root, &mt, &opts);
                    assert_eq!(v.kind, *expected, "{} {mode:?} {opts:?}", path.display());
                    checked += 1;
                }
                // AC and AS on the compiled model (when it has automata and the multitrace's
                // components are its locations).
                if engine.model().automata().is_some() && engine.model().letter_traces(&mt).is_ok()
                {
                    for p in [Procedure::Ac, Procedure::As] {
                        let opts = CheckOptions {
                            mode,
                            choice: Choice::Force(p),
                            ..CheckOptions::default()
                        };
                        let (v, _) = engine.check_multitrace(&mut scratch, &mt, &opts).unwrap();
                        assert_eq!(v.kind, *expected, "{} {mode:?} {p:?}", path.display());
                        automata_checked += 1;
                    }
                }
            }
        }
    }
    assert!(checked > 0);
    assert!(automata_checked > 50, "{automata_checked}");
}

/// The HIBOU benchmark sample (seed 001 Sec. 6), when `../shared/data` is present.
fn lfrem() -> Option<PathBuf> {
    multitrace_runtime::testdata::data("hibou-lfrem-sample/gen_ints", "the HIBOU sample")
}

fn htf_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "htf"))
        .collect();
    v.sort();
    v
}

#[test]
fn lfrem_sample_verdicts_are_exact_and_stable() {
    let Some(root) = lfrem() else {
        eprintln!("skipped: ../shared/data/hibou-lfrem-sample is absent");
        return;
    };
    let mut checked = 0;
    let (mut local_errors, mut inter_errors) = (0, 0);
    for i in 0..10 {
        let model = read_interaction(&root.join(format!("i{i}.hif")), None).unwrap();
        let engine = Engine::new(compile_interaction(&model, &CompileOptions::default()).unwrap());
        let mut scratch = engine.scratch();
        for kind in ["accepted", "slices", "noise", "swap_act", "swap_comp"] {
            let dir = root.join(format!("i{i}_{kind}"));
            for path in htf_files(&dir) {
                let mt = read_mt(&model, &path);
                for mode in [Mode::Prefix, Mode::Complete] {
                    let mut store = model.store.clone();
                    let base = ExploreOptions {
                        mode,
                        ..ExploreOptions::default()
                    };
                    let v = explore(&mut store, model.root, &mt, &base).kind;
                    assert_ne!(v, VerdictKind::Inconclusive, "{}", path.display());
                    if mode == Mode::Prefix && (kind == "accepted" || kind == "slices") {
                        assert!(
                            matches!(v, VerdictKind::Pass | VerdictKind::WeakPass),
                            "{}: {v:?}",
                            path.display()
                        );
                    }
                    // POR, LOC and memoization each switched off: same verdict (or out of a
                    // smaller budget: without memoization a few searches blow up).
                    let small = Budget {
                        max_vertices: Some(200_000),
                        timeout: None,
                    };
                    let base = ExploreOptions {
                        budget: small,
                        ..base
                    };
                    for off in [
                        ExploreOptions { por: false, ..base },
                        ExploreOptions { loc: false, ..base },
                        ExploreOptions {
                            memo: false,
                            ..base
                        },
                    ] {
                        let w = explore(&mut store, model.root, &mt, &off).kind;
                        if w != VerdictKind::Inconclusive {
                            assert_eq!(w, v, "{} {off:?}", path.display());
                        }
                    }
                    // AC and AS on the compiled model agree with term exploration, and AS
                    // reasons are consistent.
                    if engine.model().automata().is_some() {
                        for p in [Procedure::Ac, Procedure::As] {
                            let opts = CheckOptions {
                                mode,
                                choice: Choice::Force(p),
                                ..CheckOptions::default()
                            };
                            let (w, _) = engine.check_multitrace(&mut scratch, &mt, &opts).unwrap();
                            assert_eq!(w.kind, v, "{} {mode:?} {p:?}", path.display());
                            if let Some(Reason::LocalError { location, .. }) = &w.reason {
                                assert_local_trace_rejected(
                                    &model,
                                    &mt,
                                    engine.model(),
                                    location.index(),
                                    mode,
                                );
                                local_errors += 1;
                            }
                            if w.reason == Some(Reason::InterError) {
                                inter_errors += 1;
                            }
                        }
                    }
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 10_000);
    assert!(
        local_errors > 100 && inter_errors > 0,
        "{local_errors} {inter_errors}"
    );
}

/// A LocalError(i) is real: the trace of location i alone is rejected by the interaction
/// restricted to i's lifelines (seed 001 Th. 1), checked by term exploration.
fn assert_local_trace_rejected(
    model: &InteractionModel,
    mt: &Multitrace,
    compiled: &multitrace_runtime::model::CompiledModel,
    k: usize,
    mode: Mode,
) {
    let letters = compiled.letter_traces(mt).unwrap();
    let lifelines = match &compiled.origin {
        multitrace_runtime::model::Origin::Interaction {
            location_lifelines, ..
        } => location_lifelines[k],
        _ => unreachable!(),
    };
    let comp = mt
        .components
        .iter()
        .find(|c| c.lifelines == lifelines)
        .cloned()
        .unwrap_or(multitrace_runtime::multitrace::Component {
            lifelines,
            trace: Vec::new(),
        });
    assert_eq!(comp.trace.len(), letters[k].len());
    let mut store = model.store.clone();
    let others = model.signature.all_lifelines().minus(lifelines);
    let local = store.remove(model.root, others);
    let alone = Multitrace {
        components: vec![comp],
    };
    let opts = ExploreOptions {
        mode,
        ..ExploreOptions::default()
    };
    let v = explore(&mut store, local, &alone, &opts).kind;
    assert_eq!(
        v,
        VerdictKind::Fail,
        "LocalError({k}) but the local trace is accepted"
    );
}

// ------------------------------------------------------------ seed 004's running example

mod running_example {
    use multitrace_compiler::compile::{compile_automaton, CompileOptions};
    use multitrace_compiler::syntax::TimbukAutomaton;
    use multitrace_runtime::check::ac::{check_ac, AcTables};
    use multitrace_runtime::check::explore::Budget;
    use multitrace_runtime::check::semi::{
        check_as, has_accepting_path, local_check, LocalOutcome,
    };
    use multitrace_runtime::model::{Automata, CompiledModel};
    use multitrace_runtime::nfa::{LetterId, LocationId, StateId};
    use multitrace_runtime::project::bits;
    use multitrace_runtime::verdict::{Mode, Reason, VerdictKind};

    /// Fig. 3a: letters a, e (l1), c, d (l2), b (l3); transitions 0-b->1, 0-a->3, 0-c->2,
    /// 2-e->3, 1-d->4, 4-b->1, 4-c->2; final state 3 (reconstructed from Figs. 3-6).
    fn model() -> CompiledModel {
        let letters = ["a", "e", "c", "d", "b"];
        let l = |n: &str| letters.iter().position(|x| *x == n).unwrap();
        let aut = TimbukAutomaton {
            letters: letters.iter().map(|s| s.to_string()).collect(),
            states: (0..5).map(|i| i.to_string()).collect(),
            initial: vec![0],
            accepting: vec![3],
            transitions: vec![
                (0, l("b"), 1),
                (0, l("a"), 3),
                (0, l("c"), 2),
                (2, l("e"), 3),
                (1, l("d"), 4),
                (4, l("b"), 1),
                (4, l("c"), 2),
            ],
            systems: Some(vec![
                ("l1".into(), vec![l("a"), l("e")]),
                ("l2".into(), vec![l("c"), l("d")]),
                ("l3".into(), vec![l("b")]),
            ]),
        };
        compile_automaton(&aut, "fig3a", "fig3a", &CompileOptions::default()).unwrap()
    }

    fn automata(m: &CompiledModel) -> &Automata {
        m.automata().unwrap()
    }

    /// The transitions of an area as (from, letter name, to), sorted.
    fn named(m: &CompiledModel, area: &[u64]) -> Vec<(u32, String, u32)> {
        let nfa = &automata(m).nfa;
        let mut v: Vec<_> = bits::iter(area)
            .map(|i| {
                let t = nfa.transitions()[i];
                (t.from.0, m.alphabet.name(t.letter).to_string(), t.to.0)
            })
            .collect();
        v.sort();
        v
    }

    fn tr(list: &[(u32, &str, u32)]) -> Vec<(u32, String, u32)> {
        let mut v: Vec<_> = list
            .iter()
            .map(|&(a, l, b)| (a, l.to_string(), b))
            .collect();
        v.sort();
        v
    }

    fn word(m: &CompiledModel, w: &str) -> Vec<LetterId> {
        w.chars()
            .map(|c| m.alphabet.letter(&c.to_string()).unwrap())
            .collect()
    }

    fn area_of(m: &CompiledModel, k: u32, w: &str) -> Vec<u64> {
        let a = automata(m);
        let mut area = vec![0u64; a.areas.words()];
        let mut seen = Vec::new();
        let out = local_check(
            a,
            &a.projections[k as usize],
            &m.alphabet,
            &word(m, w),
            Mode::Complete,
            &mut area,
            &mut seen,
        );
        assert!(matches!(out, LocalOutcome::Pass { .. }), "{w}: {out:?}");
        area
    }

    #[test]
    fn projection_on_l2_is_fig_3b() {
        let m = model();
        let p = &automata(&m).projections[1];
        let subsets: Vec<Vec<u32>> = p
            .subsets
            .iter()
            .map(|s| s.iter().map(|x| x.0).collect())
            .collect();
        assert_eq!(subsets, vec![vec![0, 1, 3], vec![2, 3], vec![1, 4]]);
        let c = m.alphabet.local_index(m.alphabet.letter("c").unwrap());
        let d = m.alphabet.local_index(m.alphabet.letter("d").unwrap());
        // {0,1,3} -c-> {2,3}, {0,1,3} -d-> {1,4}, {1,4} -c-> {2,3}, {1,4} -d-> {1,4}
        assert_eq!(p.step(0, c).map(|x| x.0), Some(1));
        assert_eq!(p.step(0, d).map(|x| x.0), Some(2));
        assert_eq!(p.step(2, c).map(|x| x.0), Some(1));
        assert_eq!(p.step(2, d).map(|x| x.0), Some(2));
        assert_eq!(p.step(1, c), None);
        assert_eq!(p.step(1, d), None);
        assert_eq!(p.accepting, vec![true, true, false]);
        assert_eq!(p.transition_count(), 4);
        let _ = StateId(0);
        // Fig. 4a: the areas.
        let areas = &automata(&m).areas;
        let area = |s: u32, x: u32| named(&m, areas.get(p.step(s, x).unwrap().1));
        assert_eq!(area(0, c), tr(&[(0, "c", 2), (2, "e", 3)]));
        assert_eq!(area(0, d), tr(&[(1, "d", 4), (4, "b", 1)]));
        assert_eq!(area(2, c), tr(&[(4, "c", 2), (2, "e", 3)]));
        assert_eq!(area(2, d), area(0, d));
        // Fig. 4b: init.
        assert_eq!(
            named(&m, areas.get(p.init_area)),
            tr(&[(0, "b", 1), (0, "a", 3)])
        );
    }

    #[test]
    fn areas_and_inter_are_figs_5_and_6() {
        let m = model();
        // Fig. 5a: Area(c).
        assert_eq!(
            named(&m, &area_of(&m, 1, "c")),
            tr(&[(0, "b", 1), (0, "a", 3), (0, "c", 2), (2, "e", 3)])
        );
        // Fig. 5b: Area(dddc): everything but 0 -c-> 2.
        assert_eq!(
            named(&m, &area_of(&m, 1, "dddc")),
            tr(&[
                (0, "b", 1),
                (0, "a", 3),
                (2, "e", 3),
                (1, "d", 4),
                (4, "b", 1),
                (4, "c", 2)
            ])
        );
        // Fig. 6: Inter(e, dddc, bb).
        let mut inter = area_of(&m, 0, "e");
        bits::intersect_with(&mut inter, &area_of(&m, 1, "dddc"));
        bits::intersect_with(&mut inter, &area_of(&m, 2, "bb"));
        assert_eq!(
            named(&m, &inter),
            tr(&[
                (0, "b", 1),
                (1, "d", 4),
                (4, "b", 1),
                (4, "c", 2),
                (2, "e", 3)
            ])
        );
        assert!(has_accepting_path(automata(&m), &inter));
    }

    #[test]
    fn verdicts_of_the_running_example() {
        let m = model();
        let a = automata(&m);
        let tables = AcTables::new(&a.nfa, &m.alphabet);
        let budget = Budget::default();
        let mt = |e: &str, cd: &str, b: &str| vec![word(&m, e), word(&m, cd), word(&m, b)];
        let run_as = |t: &[Vec<LetterId>]| {
            check_as(a, &tables, &m.alphabet, t, Mode::Complete, &budget, false)
        };
        let run_ac = |t: &[Vec<LetterId>]| {
            check_ac(
                a,
                &tables,
                &m.alphabet,
                t,
                None,
                Mode::Complete,
                &budget,
                false,
            )
            .verdict
            .kind
        };
        // LocalError(l2) for (e, cd, bbbb).
        let v = run_as(&mt("e", "cd", "bbbb"));
        assert!(
            matches!(
                v.reason,
                Some(Reason::LocalError {
                    location: LocationId(1),
                    position: 1,
                    ..
                })
            ),
            "{v:?}"
        );
        // CentralError for (e, dddc, bb).
        let v = run_as(&mt("e", "dddc", "bb"));
        assert_eq!(
            (v.kind, v.reason),
            (VerdictKind::Fail, Some(Reason::CentralError))
        );
        // InterError for (e, dddc, ε).
        let v = run_as(&mt("e", "dddc", ""));
        assert_eq!(
            (v.kind, v.reason),
            (VerdictKind::Fail, Some(Reason::InterError))
        );
        // Pass for (e, ddc, bb).
        assert_eq!(run_as(&mt("e", "ddc", "bb")).kind, VerdictKind::Pass);
        for (e, cd, b, want) in [
            ("e", "cd", "bbbb", VerdictKind::Fail),
            ("e", "dddc", "bb", VerdictKind::Fail),
            ("e", "dddc", "", VerdictKind::Fail),
            ("e", "ddc", "bb", VerdictKind::Pass),
        ] {
            assert_eq!(run_ac(&mt(e, cd, b)), want, "{e} {cd} {b}");
        }
    }
}

// ------------------------------------------------------------ synthesis and projection vs oracle

#[path = "../../runtime/tests/oracle/mod.rs"]
mod oracle;

mod differential {
    use super::oracle::*;
    use multitrace_compiler::compile::{compile_interaction, CompileOptions, LocationChoice};
    use multitrace_compiler::syntax::InteractionModel;
    use multitrace_runtime::check::ac::{check_ac, check_ac_in, AcScratch, AcTables};
    use multitrace_runtime::check::explore::{explore, Budget, ExploreOptions};
    use multitrace_runtime::check::semi::{
        check_as, check_as_in, local_check, AsScratch, LocalOutcome, LocalTables,
    };
    use multitrace_runtime::check::{CheckOptions, Choice, Engine, Procedure};
    use multitrace_runtime::model::{CompiledModel, ModelKind};
    use multitrace_runtime::nfa::{LetterId, LocationId, StateId};
    use multitrace_runtime::project::bits;
    use multitrace_runtime::signature::{Action, LifelineSet, Signature};
    use multitrace_runtime::term::TermStore;
    use multitrace_runtime::verdict::{Diagnosis, Mode, VerdictKind};
    use proptest::prelude::*;
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
            digest: 0,
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
            multitrace_runtime::model::Origin::Interaction { letter_actions, .. } => {
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
            multitrace_runtime::model::Origin::Interaction {
                location_lifelines, ..
            } => location_lifelines.clone(),
            _ => unreachable!(),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 200, .. ProptestConfig::default() })]

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
            let budget = Budget { max_vertices: Some(2_000_000), timeout: None };
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
                            prop_assert!(v.diagnosis.is_none());
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
            let budget = Budget { max_vertices: Some(2_000_000), timeout: None };
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
}

// ------------------------------------------------------------ artifacts

mod artifacts {
    use super::fixtures_dir;
    use multitrace_compiler::compile::{compile_interaction, CompileOptions};
    use multitrace_compiler::syntax::read_interaction;
    use multitrace_runtime::artifact::{decode, encode, LoadError, FORMAT_VERSION};
    use multitrace_runtime::model::CompiledModel;

    /// A fixture compiled with its variable facts (compile time) zeroed, for byte comparisons.
    fn compiled(name: &str) -> CompiledModel {
        // A relative path (tests run in the crate's directory): notices quote the model's path,
        // and the bytes must not depend on where the repository is checked out.
        let dir = std::path::Path::new("../fixtures").join(name);
        let model = read_interaction(&dir.join("model.hif"), None).unwrap();
        let mut m = compile_interaction(&model, &CompileOptions::default()).unwrap();
        m.stats.compile_time_us = 0;
        m.stats.source = format!("fixtures/{name}/model.hif");
        m
    }

    #[test]
    fn round_trip_preserves_the_model() {
        for name in ["seed004-mqtt", "loopP", "seed001-fig1"] {
            let m = compiled(name);
            let back = decode(&encode(&m)).unwrap();
            assert_eq!(back, m, "{name}");
        }
    }

    /// Golden artifacts catch format drift: the bytes of today's compiler must be those
    /// committed in `fixtures/golden`. After an intended format change, bump FORMAT_VERSION and
    /// regenerate them with `MULTITRACE_BLESS=1 cargo test -p multitrace-compiler golden`.
    #[test]
    fn golden_artifacts_are_stable() {
        let golden = fixtures_dir().join("golden");
        for (name, kind) in [("seed004-mqtt", "automata"), ("loopP", "term-only")] {
            let m = compiled(name);
            assert_eq!(m.kind_name(), kind);
            let bytes = encode(&m);
            let path = golden.join(format!("{name}.v{FORMAT_VERSION}.mtm"));
            if std::env::var_os("MULTITRACE_BLESS").is_some() {
                std::fs::create_dir_all(&golden).unwrap();
                std::fs::write(&path, &bytes).unwrap();
            }
            let stored = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert!(
                stored == bytes,
                "{} differs from what the compiler writes now",
                path.display()
            );
            assert_eq!(decode(&stored).unwrap(), m);
        }
    }

    #[test]
    fn every_truncation_and_bit_flip_is_an_error() {
        let bytes = encode(&compiled("seed004-mqtt"));
        for len in 0..bytes.len() {
            let err = decode(&bytes[..len]).unwrap_err();
            assert!(
                matches!(err, LoadError::Truncated { .. } | LoadError::BadMagic),
                "{len}: {err:?}"
            );
        }
        for i in 0..bytes.len() {
            for bit in [0, 3, 7] {
                let mut b = bytes.clone();
                b[i] ^= 1 << bit;
                assert!(decode(&b).is_err(), "flip at byte {i} bit {bit} accepted");
            }
        }
        let mut wrong_version = bytes.clone();
        wrong_version[8] = 99;
        assert_eq!(
            decode(&wrong_version).unwrap_err(),
            LoadError::Version { found: 99 }
        );
        assert_eq!(
            decode(b"not a model at all, definitely").unwrap_err(),
            LoadError::BadMagic
        );
    }

    #[test]
    fn a_payload_with_a_valid_checksum_but_bad_ids_is_rejected() {
        // Re-frame a payload whose NFA names a state out of range: the checksum is right, the
        // validation after decoding must catch it.
        let mut m = compiled("seed004-mqtt");
        if let multitrace_runtime::model::ModelKind::Automata(a) = &mut m.kind {
            a.projections[0].init_area = multitrace_runtime::project::AreaId(9_999);
        }
        let bytes = encode(&m);
        match decode(&bytes) {
            Err(LoadError::Invalid(e)) => assert_eq!(
                e,
                multitrace_runtime::model::InvalidModel::Verifier {
                    location: 0,
                    error: multitrace_runtime::project::TableError::Area
                }
            ),
            other => panic!("{other:?}"),
        }
    }
}

// ------------------------------------------------------------ many locations

/// AS with the fast local checks (lanes of four locations) against the reference reading and
/// against AC, on random automata split into up to nine locations (more than one lane).
mod many_locations {
    use multitrace_compiler::compile::{compile_automaton, CompileOptions, LocationChoice};
    use multitrace_compiler::syntax::parse_timbuk;
    use multitrace_runtime::check::ac::{check_ac, AcTables};
    use multitrace_runtime::check::explore::Budget;
    use multitrace_runtime::check::semi::{check_as, check_as_in, AsScratch, LocalTables};
    use multitrace_runtime::nfa::{LetterId, LocationId};
    use multitrace_runtime::rng::Rng;
    use multitrace_runtime::verdict::{Mode, Reason};
    use std::collections::BTreeMap;

    #[test]
    fn fast_local_checks_match_the_reference_with_many_locations() {
        let mut rng = Rng::new(5);
        let mut reasons = BTreeMap::new();
        for case in 0..150 {
            let (states, letters) = (3 + rng.below(5), 9 + rng.below(4));
            let mut text = String::from("Ops x:0");
            for l in 0..letters {
                text += &format!(" a{l}:1");
            }
            text += "\nAutomaton R\nStates";
            for s in 0..states {
                text += &format!(" q{s}");
            }
            text += "\nFinal States q0";
            if rng.below(2) == 0 {
                text += &format!(" q{}", rng.below(states));
            }
            text += "\nTransitions\nx -> q0\n";
            for _ in 0..states * letters / 2 + 4 {
                text += &format!(
                    "a{}(q{}) -> q{}\n",
                    rng.below(letters),
                    rng.below(states),
                    rng.below(states)
                );
            }
            let aut = parse_timbuk("r.timbuk", &text).unwrap();
            let count = 5 + rng.below(5);
            let opts = CompileOptions {
                locations: LocationChoice::Random {
                    count,
                    seed: case as u64,
                },
                ..CompileOptions::default()
            };
            let c = compile_automaton(&aut, "r.timbuk", &text, &opts).unwrap();
            let a = c.automata().expect("an automaton");
            let tables = AcTables::new(&a.nfa, &c.alphabet);
            let local = LocalTables::new(a, &c.alphabet).expect("small tables");
            let mut scratch = AsScratch::default();
            let budget = Budget::default();
            let n = c.alphabet.locations();
            for _ in 0..20 {
                // A random run of the automaton (often accepted), projected, sometimes mutated.
                let mut traces = vec![Vec::new(); n];
                let mut s = a.nfa.initial()[0];
                for _ in 0..rng.below(12) {
                    let out: Vec<_> = a.nfa.out(s).collect();
                    if out.is_empty() {
                        break;
                    }
                    let (_, t) = out[rng.below(out.len())];
                    traces[c.alphabet.location(t.letter).index()].push(t.letter);
                    s = t.to;
                }
                if rng.below(2) == 0 {
                    let k = rng.below(n);
                    let own = c.alphabet.letters_of(c.alphabet.location(LetterId(0)));
                    let mine = c.alphabet.letters_of(LocationId(k as u32));
                    let pool = if mine.is_empty() { own } else { mine };
                    let p = rng.below(traces[k].len() + 1);
                    traces[k].insert(p, pool[rng.below(pool.len())]);
                }
                for mode in [Mode::Complete, Mode::Prefix] {
                    let reference =
                        check_as(a, &tables, &c.alphabet, &traces, mode, &budget, false);
                    let fast = check_as_in(
                        &mut scratch,
                        a,
                        &tables,
                        Some(&local),
                        &c.alphabet,
                        &traces,
                        mode,
                        &budget,
                        false,
                    );
                    assert_eq!(fast.kind, reference.kind, "case {case}: {traces:?}");
                    assert_eq!(
                        format!("{:?}", fast.reason),
                        format!("{:?}", reference.reason),
                        "case {case}: {traces:?}"
                    );
                    let ac = check_ac(a, &tables, &c.alphabet, &traces, None, mode, &budget, false);
                    assert_eq!(ac.verdict.kind, fast.kind, "AC, case {case}: {traces:?}");
                    let reason = match &fast.reason {
                        Some(Reason::LocalError { location, .. }) if location.index() >= 4 => {
                            "LocalError beyond the first lane".to_string()
                        }
                        Some(r) => format!("{r:?}")
                            .split([' ', '{', '('])
                            .next()
                            .unwrap_or_default()
                            .to_string(),
                        None => format!("{:?}", fast.kind),
                    };
                    *reasons.entry(reason).or_insert(0) += 1;
                }
            }
        }
        // The outcomes occur, including LocalErrors beyond the first lane (InterError needs
        // larger automata; the running-example tests cover it).
        for r in [
            "Pass",
            "WeakPass",
            "LocalError",
            "LocalError beyond the first lane",
            "CentralError",
        ] {
            assert!(reasons.get(r).copied().unwrap_or(0) > 10, "{reasons:?}");
        }
    }
}

// ------------------------------------------------------------ partition (seed 002, issue 13)

/// Which participants must be monitored together: (a) and (b) on seed 002's examples, and
/// against brute-force enumeration on random interactions and automata.
mod partition_analysis {
    use multitrace_compiler::compile::{CompileOptions, LocationChoice};
    use multitrace_compiler::partition::central::{self, Central, CentralLimits, FoundBy};
    use multitrace_compiler::partition::inclusion::{
        self, Inclusion, InclusionLimits, Shortest, Undecided,
    };
    use multitrace_compiler::partition::recheck::recheck;
    use multitrace_compiler::partition::search::{self, SearchLimits, Status};
    use multitrace_compiler::partition::statics::for_each_partition;
    use multitrace_compiler::partition::{Analyzer, Partition, PartitionError, Problem};
    use multitrace_compiler::source::read_source;
    use multitrace_runtime::check::{CheckOptions, Choice, Engine, Procedure};
    use multitrace_runtime::model::{CompiledModel, Origin};
    use multitrace_runtime::nfa::{LetterId, LocationId, StateId};
    use multitrace_runtime::rng::Rng;
    use multitrace_runtime::signature::{Action, ActionKind};
    use multitrace_runtime::verdict::{Mode, VerdictKind};
    use std::collections::{BTreeMap, BTreeSet};
    use std::path::{Path, PathBuf};

    const MODES: [Mode; 2] = [Mode::Complete, Mode::Prefix];

    fn fixture(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../fixtures")
            .join(name)
            .join("model.hif")
    }

    fn problem_of(path: &Path, given: LocationChoice) -> Result<Problem, PartitionError> {
        let src = read_source(path, None)?;
        Problem::new(src, given, &CompileOptions::default(), None)
    }

    /// A partition named by its blocks of atom numbers.
    fn part(n: usize, blocks: &[&[usize]]) -> Partition {
        Partition::from_blocks(
            n,
            blocks
                .iter()
                .map(|b| b.iter().fold(0u64, |m, &a| m | 1 << a))
                .collect(),
        )
        .unwrap()
    }

    fn finest_names(problem: &Problem, mode: Mode) -> Vec<String> {
        let mut an = Analyzer::new(problem);
        let out = search::finest_faithful(
            &mut an,
            mode,
            &SearchLimits::default(),
            &InclusionLimits::default(),
            None,
            &[],
        );
        assert!(out.complete());
        out.minimal()
            .into_iter()
            .map(|(i, certain)| {
                assert!(certain);
                problem.partition_name(&out.records[i].partition)
            })
            .collect()
    }

    /// Seed 002's ping/pong: only B with C detects C sending pong before B received ping.
    #[test]
    fn seed002_ping_pong_needs_b_and_c_together() {
        let problem = problem_of(&fixture("seed002-pingpong"), LocationChoice::Default).unwrap();
        assert_eq!(problem.atoms(), 4);
        let mut an = Analyzer::new(&problem);
        let finest = Partition::finest(4);
        let model = problem.compile(&finest).unwrap();
        // Complete mode: the shortest counterexample sends pong before ping is received; its
        // multitrace is accepted (by another interleaving): only the global order shows it.
        let (a, _) = inclusion::check(
            &mut an,
            &finest,
            Mode::Complete,
            &InclusionLimits::default(),
        );
        let Inclusion::Counterexample(c) = &a else {
            panic!("{a:?}")
        };
        assert_eq!(problem.word(&c.word), "A!ping.C!pong.B?ping.D?pong");
        assert_eq!(c.shortest, Shortest::Overall);
        let r = recheck(&problem, &model, &finest, &c.word, Mode::Complete).unwrap();
        assert!(r.confirms_inclusion(), "{r:?}");
        assert_eq!(r.multitrace.kind, VerdictKind::Pass);
        // ... so the central step is not needed (the local languages are finite).
        let engine = Engine::new(model.clone());
        let b = central::check(
            &mut an,
            &finest,
            Mode::Complete,
            &a,
            &engine,
            &CentralLimits::default(),
        )
        .unwrap();
        assert!(matches!(b, Central::ProvenExhaustive(s) if s.all), "{b:?}");
        // Prefix mode: C sending pong first is already a violation.
        let (a, _) = inclusion::check(&mut an, &finest, Mode::Prefix, &InclusionLimits::default());
        let Inclusion::Counterexample(c) = &a else {
            panic!("{a:?}")
        };
        assert_eq!(problem.word(&c.word), "C!pong");
        for mode in MODES {
            assert_eq!(finest_names(&problem, mode), vec!["[A] [B,C] [D]"]);
            // Seed 002's derivation: any of A, B with any of C, D.
            let st = problem.statics().unwrap();
            let atom = |l: multitrace_runtime::signature::LifelineId| l.index();
            let seed = st.minimal_partitions(true, mode, 4, &atom, 1000).unwrap();
            let names: BTreeSet<String> = seed.iter().map(|p| problem.partition_name(p)).collect();
            assert_eq!(
                names,
                [
                    "[A,C] [B] [D]",
                    "[A,D] [B] [C]",
                    "[A] [B,C] [D]",
                    "[A] [B,D] [C]"
                ]
                .map(String::from)
                .into()
            );
            // Ours predicts exactly the finest faithful partition.
            let ours = st.minimal_partitions(false, mode, 4, &atom, 1000).unwrap();
            assert_eq!(ours, vec![part(4, &[&[0], &[1, 2], &[3]])]);
        }
    }

    /// Seed 002's Example 3: a choice between msg1 (A to B) and msg2 (C to D).
    #[test]
    fn seed002_example3_groupings() {
        let problem = problem_of(&fixture("seed002-example3"), LocationChoice::Default).unwrap();
        // Complete mode: the paper's [A,C] [B,D]; its other grouping [A,D] [B,C] lets A send
        // msg1 and C send msg2 unseen.
        assert_eq!(finest_names(&problem, Mode::Complete), vec!["[A,C] [B,D]"]);
        let mut an = Analyzer::new(&problem);
        let other = part(4, &[&[0, 3], &[1, 2]]);
        let (a, _) = inclusion::check(&mut an, &other, Mode::Complete, &InclusionLimits::default());
        let Inclusion::Counterexample(c) = &a else {
            panic!("{a:?}")
        };
        assert_eq!(problem.word(&c.word), "A!msg1.C!msg2");
        let model = problem.compile(&other).unwrap();
        assert!(recheck(&problem, &model, &other, &c.word, Mode::Complete)
            .unwrap()
            .confirms_inclusion());
        // One location per lifeline: even the empty run passes every local verifier.
        let finest = Partition::finest(4);
        let (a, _) = inclusion::check(
            &mut an,
            &finest,
            Mode::Complete,
            &InclusionLimits::default(),
        );
        assert!(
            matches!(&a, Inclusion::Counterexample(c) if c.word.is_empty()),
            "{a:?}"
        );
        // Prefix mode: a location that has not acted yet is fine, so B and D may stay alone.
        assert_eq!(finest_names(&problem, Mode::Prefix), vec!["[A,C] [B] [D]"]);
        let (a, _) = inclusion::check(&mut an, &finest, Mode::Prefix, &InclusionLimits::default());
        let Inclusion::Counterexample(c) = &a else {
            panic!("{a:?}")
        };
        assert_eq!(problem.word(&c.word), "A!msg1.C!msg2");
        // Here the central step sees it: (b) has the same counterexample.
        let model = problem.compile(&finest).unwrap();
        let engine = Engine::new(model.clone());
        let b = central::check(
            &mut an,
            &finest,
            Mode::Prefix,
            &a,
            &engine,
            &CentralLimits::default(),
        )
        .unwrap();
        let Central::Counterexample(cb, _) = &b else {
            panic!("{b:?}")
        };
        assert_eq!(cb.found, FoundBy::Exhaustive);
        assert_eq!(cb.interleaving.len(), 2);
        assert!(
            recheck(&problem, &model, &finest, &cb.interleaving, Mode::Prefix)
                .unwrap()
                .confirms_central()
        );
    }

    // ---------------------------------------------------------------- random interactions

    const LL: u32 = 4;

    /// A random interaction over lifelines l0..l3 and messages m0, m1, as `.hif` text, with its
    /// channels: (receiver, message) -> senders, `None` for the environment.
    fn random_interaction(
        rng: &mut Rng,
        depth: usize,
        channels: &mut BTreeMap<(u32, u32), BTreeSet<Option<u32>>>,
    ) -> String {
        let l = |rng: &mut Rng| rng.below(LL as usize) as u32;
        let m = |rng: &mut Rng| rng.below(2) as u32;
        if depth == 0 || rng.below(3) == 0 {
            let (a, mm) = (l(rng), m(rng));
            return match rng.below(8) {
                0 => "o".into(),
                1 => format!("l{a} -- m{mm} ->|"),
                2 => {
                    channels.entry((a, mm)).or_default().insert(None);
                    format!("m{mm} -> l{a}")
                }
                3 => {
                    let (b, c) = (l(rng), l(rng));
                    if b == c {
                        channels.entry((b, mm)).or_default().insert(Some(a));
                        return format!("l{a} -- m{mm} -> l{b}");
                    }
                    channels.entry((b, mm)).or_default().insert(Some(a));
                    channels.entry((c, mm)).or_default().insert(Some(a));
                    format!("l{a} -- m{mm} -> (l{b}, l{c})")
                }
                _ => {
                    let b = l(rng);
                    channels.entry((b, mm)).or_default().insert(Some(a));
                    format!("l{a} -- m{mm} -> l{b}")
                }
            };
        }
        let op = rng.below(12);
        let x = random_interaction(rng, depth - 1, channels);
        if op >= 10 {
            return match (op, rng.below(3)) {
                (10, _) => format!("loopS({x})"),
                (_, 0) => format!("loopW({x})"),
                (_, 1) => format!("loopH({x})"),
                _ => format!("loopP({x})"),
            };
        }
        let y = random_interaction(rng, depth - 1, channels);
        match op {
            0..=2 => format!("strict({x}, {y})"),
            3..=4 => format!("seq({x}, {y})"),
            5 => format!("par({x}, {y})"),
            6..=8 => format!("alt({x}, {y})"),
            _ => format!("coreg(l{})({x}, {y})", l(rng)),
        }
    }

    const SIGNATURE: &str = "@lifeline{l0;l1;l2;l3}\n@message{m0;m1}\n";

    fn scratch_dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!(
            "multitrace-partition-{}-{name}",
            std::process::id()
        ));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    /// The brute-force side: causality from the generator's channels, local acceptance by the
    /// compiled partition's `ProjDfa`s, global acceptance by a subset simulation of `A`.
    struct Brute<'a> {
        global: &'a CompiledModel,
        model: &'a CompiledModel,
        /// Location of each letter of `model`.
        actions: Vec<Action>,
        channels: &'a BTreeMap<(u32, u32), BTreeSet<Option<u32>>>,
        mode: Mode,
    }

    impl Brute<'_> {
        /// Whether the word (actions) respects the causal restriction, and its most messages in
        /// flight on one channel.
        fn causal(&self, w: &[Action]) -> (bool, u32) {
            let mut count: BTreeMap<(u32, u32), u32> = BTreeMap::new();
            let mut most = 0;
            for a in w {
                let (l, m) = (a.lifeline.0, a.message.0);
                match a.kind {
                    ActionKind::Reception => {
                        let free = self.channels.get(&(l, m)).is_none_or(|s| s.contains(&None));
                        if !free {
                            let c = count.entry((l, m)).or_default();
                            if *c == 0 {
                                return (false, most);
                            }
                            *c -= 1;
                        }
                    }
                    ActionKind::Emission => {
                        for (&(b, mm), s) in self.channels {
                            if mm == m && s.contains(&Some(l)) && !s.contains(&None) {
                                let c = count.entry((b, mm)).or_default();
                                *c += 1;
                                most = most.max(*c);
                            }
                        }
                    }
                }
            }
            (true, most)
        }

        /// Per location: the DFA state after the projection of `w`, `None` when dead.
        fn local_states(&self, w: &[Action]) -> Option<Vec<u32>> {
            let a = self.model.automata().unwrap();
            let mut states = vec![0u32; a.projections.len()];
            for act in w {
                let x = self.model.letter_of(*act).unwrap();
                let k = self.model.alphabet.location(x).index();
                let dfa = &a.projections[k];
                let (t, _) = dfa.step(states[k], self.model.alphabet.local_index(x))?;
                if !dfa.live[t as usize] {
                    return None;
                }
                states[k] = t;
            }
            Some(states)
        }

        fn locally_accepted(&self, w: &[Action]) -> bool {
            let a = self.model.automata().unwrap();
            match self.local_states(w) {
                None => false,
                Some(s) => s.iter().enumerate().all(|(k, &q)| match self.mode {
                    Mode::Complete => a.projections[k].accepting[q as usize],
                    Mode::Prefix => a.projections[k].live[q as usize],
                }),
            }
        }

        fn globally_accepted(&self, w: &[Action]) -> bool {
            let Some(a) = self.global.automata() else {
                // Not regular: term exploration on the model with one location.
                let engine = Engine::new(self.global.clone());
                let letters: Vec<LetterId> = w
                    .iter()
                    .map(|&x| self.global.letter_of(x).unwrap())
                    .collect();
                let opts = CheckOptions {
                    mode: self.mode,
                    choice: Choice::Force(Procedure::Term),
                    diagnosis: None,
                    ..CheckOptions::default()
                };
                let (v, _) = engine
                    .check_letters(&mut engine.scratch(), &[letters], &opts)
                    .unwrap();
                assert_ne!(v.kind, VerdictKind::Inconclusive);
                return v.kind != VerdictKind::Fail;
            };
            let live = a.nfa.co_reachable();
            let mut set: BTreeSet<StateId> = a.nfa.initial().iter().copied().collect();
            for act in w {
                let x = self.global.letter_of(*act).unwrap();
                set = set
                    .iter()
                    .flat_map(|&s| a.nfa.out(s).map(|(_, t)| t))
                    .filter(|t| t.letter == x)
                    .map(|t| t.to)
                    .collect();
            }
            set.iter().any(|&s| match self.mode {
                Mode::Complete => a.nfa.is_accepting(s),
                Mode::Prefix => live[s.index()],
            })
        }

        /// The length of the shortest counterexample to (a) of at most `max` actions, with at
        /// most `k` messages in flight per channel.
        fn shortest_a(&self, max: usize, k: u32) -> Option<usize> {
            let mut best: Option<usize> = None;
            let mut stack: Vec<Vec<Action>> = vec![Vec::new()];
            while let Some(w) = stack.pop() {
                if best.is_some_and(|b| w.len() >= b) {
                    continue;
                }
                if self.locally_accepted(&w) && !self.globally_accepted(&w) {
                    best = Some(w.len());
                    continue;
                }
                if w.len() == max {
                    continue;
                }
                for &a in &self.actions {
                    let mut w2 = w.clone();
                    w2.push(a);
                    let (causal, in_flight) = self.causal(&w2);
                    if causal && in_flight <= k && self.local_states(&w2).is_some() {
                        stack.push(w2);
                    }
                }
            }
            best
        }

        /// Words of location `k`'s DFA of at most `max` letters passing in the mode.
        fn local_words(&self, k: usize, max: usize) -> Vec<Vec<LetterId>> {
            let a = self.model.automata().unwrap();
            let dfa = &a.projections[k];
            let letters = self.model.alphabet.letters_of(LocationId(k as u32));
            let mut out = Vec::new();
            let mut stack = vec![(0u32, Vec::new())];
            while let Some((s, w)) = stack.pop() {
                let ok = match self.mode {
                    Mode::Complete => dfa.accepting[s as usize],
                    Mode::Prefix => dfa.live[s as usize],
                };
                if ok {
                    out.push(w.clone());
                }
                if w.len() == max {
                    continue;
                }
                for (x, &l) in letters.iter().enumerate() {
                    if let Some((t, _)) = dfa.step(s, x as u32) {
                        if dfa.live[t as usize] {
                            let mut w2 = w.clone();
                            w2.push(l);
                            stack.push((t, w2));
                        }
                    }
                }
            }
            out
        }

        /// Whether some interleaving of the traces is causal (exhaustive search).
        fn realizable(&self, traces: &[Vec<LetterId>]) -> bool {
            let acts: Vec<Vec<Action>> = traces
                .iter()
                .map(|t| {
                    t.iter()
                        .map(|&l| match &self.model.origin {
                            Origin::Interaction { letter_actions, .. } => letter_actions[l.index()],
                            Origin::Automaton => unreachable!(),
                        })
                        .collect()
                })
                .collect();
            let mut stack = vec![(vec![0usize; acts.len()], Vec::<Action>::new())];
            let mut seen = BTreeSet::new();
            while let Some((pos, w)) = stack.pop() {
                if pos.iter().zip(&acts).all(|(&p, t)| p == t.len()) {
                    return true;
                }
                if !seen.insert(pos.clone()) {
                    continue; // the counters only depend on the positions
                }
                for k in 0..acts.len() {
                    if let Some(&a) = acts[k].get(pos[k]) {
                        let mut w2 = w.clone();
                        w2.push(a);
                        if self.causal(&w2).0 {
                            let mut p2 = pos.clone();
                            p2[k] += 1;
                            stack.push((p2, w2));
                        }
                    }
                }
            }
            false
        }

        /// The number of actions of the shortest counterexample to (b) of at most `max`
        /// actions, deciding membership by term exploration.
        fn shortest_b(&self, max: usize) -> Option<usize> {
            let n = self.model.alphabet.locations();
            let words: Vec<Vec<Vec<LetterId>>> = (0..n).map(|k| self.local_words(k, max)).collect();
            let engine = Engine::new(self.model.clone());
            let mut scratch = engine.scratch();
            let opts = CheckOptions {
                mode: self.mode,
                choice: Choice::Force(Procedure::Term),
                diagnosis: None,
                ..CheckOptions::default()
            };
            let mut best: Option<usize> = None;
            if words.iter().any(Vec::is_empty) {
                return None;
            }
            let mut idx = vec![0usize; n];
            loop {
                let traces: Vec<Vec<LetterId>> = (0..n).map(|k| words[k][idx[k]].clone()).collect();
                let total: usize = traces.iter().map(Vec::len).sum();
                if total <= max && best.is_none_or(|b| total < b) && self.realizable(&traces) {
                    let (v, _) = engine.check_letters(&mut scratch, &traces, &opts).unwrap();
                    assert_ne!(v.kind, VerdictKind::Inconclusive);
                    if v.kind == VerdictKind::Fail {
                        best = Some(total);
                    }
                }
                let mut k = n;
                loop {
                    if k == 0 {
                        return best;
                    }
                    k -= 1;
                    idx[k] += 1;
                    if idx[k] < words[k].len() {
                        break;
                    }
                    idx[k] = 0;
                }
            }
        }
    }

    /// On random interactions, random partitions and both modes: (a) and (b) against
    /// brute-force enumeration up to `MAX` actions, every counterexample re-checked by the
    /// runtime, and the link (a) faithful ⇒ (b) holds.
    #[test]
    fn random_interactions_agree_with_brute_force() {
        const MAX: usize = 6;
        let dir = scratch_dir("random");
        std::fs::write(dir.join("signature.hsf"), SIGNATURE).unwrap();
        let mut rng = Rng::new(13);
        let (mut models, mut a_cex, mut b_cex, mut faithful) = (0, 0, 0, 0);
        let mut not_regular = 0;
        let mut attempts = 0;
        while models < 150 {
            attempts += 1;
            assert!(attempts < 2000, "too few random models compile");
            let mut channels = BTreeMap::new();
            let text = random_interaction(&mut rng, 3, &mut channels);
            let path = dir.join("model.hif");
            std::fs::write(&path, &text).unwrap();
            let problem = match problem_of(&path, LocationChoice::Default) {
                Ok(p) => p,
                Err(PartitionError::NotAutomata { .. }) => continue,
                Err(e) => panic!("{text}: {e}"),
            };
            models += 1;
            let labels: Vec<usize> = (0..4).map(|_| rng.below(3)).collect();
            let mut partitions = vec![Partition::finest(4), Partition::from_labels(&labels)];
            if !problem.exact() {
                // Not regular: only the given partition, (a) searched by enumeration.
                not_regular += 1;
                partitions.truncate(1);
            }
            for p in partitions {
                let model = match problem.compile(&p) {
                    Ok(m) => m,
                    Err(PartitionError::NotAutomata { .. }) => continue,
                    Err(e) => panic!("{e}"),
                };
                let actions = match &model.origin {
                    Origin::Interaction { letter_actions, .. } => letter_actions.clone(),
                    Origin::Automaton => unreachable!(),
                };
                for mode in MODES {
                    let ctx = format!("{text} {} {mode:?}", problem.partition_name(&p));
                    let brute = Brute {
                        global: problem.global(),
                        model: &model,
                        actions: actions.clone(),
                        channels: &channels,
                        mode,
                    };
                    let mut an = Analyzer::new(&problem);
                    let limits = InclusionLimits {
                        max_states: 200_000,
                        max_in_flight: MAX as u32,
                        max_length: MAX,
                        ..InclusionLimits::default()
                    };
                    let (a, _) = inclusion::check(&mut an, &p, mode, &limits);
                    let want = brute.shortest_a(MAX, u32::MAX);
                    if !problem.exact() {
                        let (a, _) = inclusion::check(&mut an, &p, mode, &limits);
                        match &a {
                            Inclusion::Counterexample(c) => {
                                a_cex += 1;
                                assert_eq!(want, Some(c.word.len()), "{ctx}");
                                let r = recheck(&problem, &model, &p, &c.word, mode).unwrap();
                                assert!(r.confirms_inclusion(), "{ctx}: {r:?}");
                            }
                            Inclusion::Undecided(Undecided::Bounded { complete_up_to, .. }) => {
                                assert_eq!(*complete_up_to, Some(MAX), "{ctx}");
                                assert_eq!(want, None, "{ctx}");
                            }
                            Inclusion::Faithful { .. } => assert_eq!(want, None, "{ctx}"),
                            u => panic!("{ctx}: {u:?}"),
                        }
                        continue;
                    }
                    // With one message in flight counted exactly: the same proofs, and
                    // counterexamples that are real and shortest as claimed.
                    let (a1, _) = inclusion::check(
                        &mut an,
                        &p,
                        mode,
                        &InclusionLimits {
                            max_states: 200_000,
                            max_in_flight: 1,
                            ..InclusionLimits::default()
                        },
                    );
                    match &a1 {
                        Inclusion::Faithful { .. } => assert_eq!(want, None, "{ctx}"),
                        Inclusion::Counterexample(c) => {
                            let r = recheck(&problem, &model, &p, &c.word, mode).unwrap();
                            assert!(r.confirms_inclusion(), "{ctx}: {r:?}");
                            let len = c.word.len();
                            let within = match c.shortest {
                                Shortest::Overall => want,
                                Shortest::AmongInFlight(k) => {
                                    assert_eq!(k, 1);
                                    brute.shortest_a(MAX, 1)
                                }
                                Shortest::NoneUpTo(_) => unreachable!("only from (b)"),
                            };
                            assert_eq!(within, (len <= MAX).then_some(len), "{ctx}");
                        }
                        Inclusion::Undecided(Undecided::InFlight { bound, .. }) => {
                            assert_eq!(*bound, 1);
                            assert_eq!(brute.shortest_a(MAX, 1), None, "{ctx}");
                        }
                        Inclusion::Undecided(u) => panic!("{ctx}: {u:?}"),
                    }
                    match &a {
                        Inclusion::Faithful { .. } => {
                            faithful += 1;
                            assert_eq!(want, None, "{ctx}");
                        }
                        Inclusion::Counterexample(c) => {
                            a_cex += 1;
                            let w: Vec<Action> =
                                c.word.iter().map(|&x| actions_of(&problem, x)).collect();
                            assert!(brute.causal(&w).0, "{ctx}");
                            assert!(brute.locally_accepted(&w), "{ctx}");
                            assert!(!brute.globally_accepted(&w), "{ctx}");
                            let r = recheck(&problem, &model, &p, &c.word, mode).unwrap();
                            assert!(r.confirms_inclusion(), "{ctx}: {r:?}");
                            // Exact up to MAX in flight, so shortest whenever within MAX.
                            if c.word.len() <= MAX {
                                assert_eq!(want, Some(c.word.len()), "{ctx}");
                            } else {
                                assert_eq!(want, None, "{ctx}");
                            }
                        }
                        Inclusion::Undecided(Undecided::InFlight { .. }) => {
                            assert_eq!(want, None, "{ctx}")
                        }
                        Inclusion::Undecided(u) => panic!("{ctx}: {u:?}"),
                    }
                    // The bounded search used when the global language is not regular (each
                    // trace decided by term exploration) agrees with the product search.
                    if models <= 40 {
                        let (bd, _) = inclusion::bounded(
                            &mut an,
                            &p,
                            mode,
                            &InclusionLimits {
                                max_length: 5,
                                ..InclusionLimits::default()
                            },
                        );
                        match (&a, &bd) {
                            (_, Inclusion::Counterexample(c)) => {
                                assert_eq!(c.shortest, Shortest::Overall);
                                assert_eq!(want.filter(|&d| d <= 5), Some(c.word.len()), "{ctx}");
                            }
                            (Inclusion::Faithful { .. }, Inclusion::Faithful { .. }) => {}
                            (_, Inclusion::Faithful { .. }) => panic!("{ctx}: {a:?}"),
                            (_, Inclusion::Undecided(Undecided::Bounded { .. })) => {
                                assert_eq!(want.filter(|&d| d <= 5), None, "{ctx}")
                            }
                            (_, u) => panic!("{ctx}: {u:?}"),
                        }
                    }
                    // (b), exhaustive up to MAX (no sampling), against term exploration.
                    let engine = Engine::new(model.clone());
                    let b = central::check(
                        &mut an,
                        &p,
                        mode,
                        &a,
                        &engine,
                        &CentralLimits {
                            max_length: MAX,
                            max_multitraces: 1_000_000,
                            samples: 0,
                            seed: 1,
                        },
                    )
                    .unwrap();
                    let want_b = brute.shortest_b(MAX);
                    // A counterexample to (b) interleaves into one to (a).
                    if let Some(d) = want_b {
                        assert!(want.is_some_and(|x| x <= d), "{ctx}");
                    }
                    match &b {
                        Central::ProvenByInclusion | Central::ProvenExhaustive(_) => {
                            assert_eq!(want_b, None, "{ctx}")
                        }
                        Central::Counterexample(c, s) => {
                            b_cex += 1;
                            let r = recheck(&problem, &model, &p, &c.interleaving, mode).unwrap();
                            assert!(
                                r.confirms_central() && r.confirms_inclusion(),
                                "{ctx}: {r:?}"
                            );
                            if c.found == FoundBy::Exhaustive {
                                // Shortest; beyond MAX when every local language is finite.
                                let len = c.interleaving.len();
                                assert_eq!(want_b, (len <= MAX).then_some(len), "{ctx}");
                            } else {
                                assert!(s.complete_up_to >= Some(MAX), "{ctx}");
                                assert_eq!(want_b, None, "{ctx}");
                            }
                        }
                        Central::NoneFound(s) => {
                            assert!(s.complete_up_to >= Some(MAX), "{ctx}");
                            assert_eq!(want_b, None, "{ctx}");
                        }
                    }
                }
            }
        }
        // The cases are not all of one kind.
        assert!(
            a_cex > 20 && b_cex > 10 && faithful > 10 && not_regular > 5,
            "{a_cex} {b_cex} {faithful} {not_regular}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    fn actions_of(problem: &Problem, x: LetterId) -> Action {
        match &problem.global().origin {
            Origin::Interaction { letter_actions, .. } => letter_actions[x.index()],
            Origin::Automaton => unreachable!(),
        }
    }

    /// The search's answers are consistent with (a) decided on every partition: a partition is
    /// faithful exactly when it is coarser than one of the finest faithful partitions, and every
    /// partition refuted by a counterexample of another one is refuted by it (re-checked).
    #[test]
    fn finest_faithful_partitions_are_exactly_the_minimal_ones() {
        let dir = scratch_dir("search");
        std::fs::write(dir.join("signature.hsf"), SIGNATURE).unwrap();
        let mut rng = Rng::new(2002);
        let mut models = 0;
        while models < 25 {
            let mut channels = BTreeMap::new();
            let text = random_interaction(&mut rng, 3, &mut channels);
            let path = dir.join("model.hif");
            std::fs::write(&path, &text).unwrap();
            let Ok(problem) = problem_of(&path, LocationChoice::Default) else {
                continue;
            };
            if !problem.exact() {
                continue;
            }
            models += 1;
            for mode in MODES {
                let mut an = Analyzer::new(&problem);
                let out = search::finest_faithful(
                    &mut an,
                    mode,
                    &SearchLimits::default(),
                    &InclusionLimits::default(),
                    None,
                    &[],
                );
                assert!(out.complete(), "{text}");
                let minimal: Vec<Partition> = out
                    .minimal()
                    .iter()
                    .map(|&(i, _)| out.records[i].partition.clone())
                    .collect();
                assert!(!minimal.is_empty());
                // Guided by hints (the static predictions and random partitions): the same
                // answer.
                let st = problem.statics().unwrap();
                let atom = |l: multitrace_runtime::signature::LifelineId| l.index();
                let mut hints: Vec<Partition> = [true, false]
                    .iter()
                    .flat_map(|&seed| st.minimal_partitions(seed, mode, 4, &atom, 1000).unwrap())
                    .collect();
                for _ in 0..3 {
                    let labels: Vec<usize> = (0..4).map(|_| rng.below(4)).collect();
                    hints.push(Partition::from_labels(&labels));
                }
                let guided = search::finest_faithful(
                    &mut an,
                    mode,
                    &SearchLimits::default(),
                    &InclusionLimits::default(),
                    None,
                    &hints,
                );
                let mut with_hints: Vec<Partition> = guided
                    .minimal()
                    .iter()
                    .map(|&(i, _)| guided.records[i].partition.clone())
                    .collect();
                with_hints.sort();
                let mut sorted = minimal.clone();
                sorted.sort();
                assert_eq!(with_hints, sorted, "{text} {hints:?}");
                for h in &guided.hinted_faithful {
                    assert!(minimal.iter().any(|m| m.refines(h)), "{text} {h:?}");
                }
                let mut all = Vec::new();
                for_each_partition(4, &mut |p| {
                    all.push(p.clone());
                    true
                });
                for p in &all {
                    let (a, _) = inclusion::check(&mut an, p, mode, &InclusionLimits::default());
                    let coarser = minimal.iter().any(|m| m.refines(p));
                    match a {
                        Inclusion::Faithful { .. } => assert!(coarser, "{text} {p:?}"),
                        Inclusion::Counterexample(_) => assert!(!coarser, "{text} {p:?}"),
                        Inclusion::Undecided(u) => panic!("{text}: {u:?}"),
                    }
                }
                for r in &out.records {
                    if let Status::Refuted { index, .. } = r.status {
                        let w = &out.counterexamples[index];
                        let model = problem.compile(&r.partition).unwrap();
                        let rc = recheck(&problem, &model, &r.partition, w, mode).unwrap();
                        assert!(rc.confirms_inclusion(), "{text} {:?}", r.partition);
                    }
                }
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    // ---------------------------------------------------------------- random automata

    /// A random Timbuk automaton over letters a0..a4 in three systems.
    fn random_timbuk(rng: &mut Rng) -> String {
        let states = 2 + rng.below(4);
        let mut t = String::from("Ops a0:1 a1:1 a2:1 a3:1 a4:1 x:0\nAutomaton A\nStates");
        for s in 0..states {
            t.push_str(&format!(" q{s}"));
        }
        t.push_str("\nFinal States");
        for s in 0..states {
            // q0 accepting half of the time, the others a third of the time.
            if (s == 0 && rng.below(2) == 0) || (s != 0 && rng.below(3) == 0) {
                t.push_str(&format!(" q{s}"));
            }
        }
        t.push_str("\nTransitions\nx -> q0\n");
        for _ in 0..states + rng.below(2 * states + 1) {
            t.push_str(&format!(
                "a{}(q{}) -> q{}\n",
                rng.below(5),
                rng.below(states),
                rng.below(states)
            ));
        }
        t.push_str("Systems\n  [s1] a0 a1\n  [s2] a2 a3\n  [s3] a4\n");
        t
    }

    /// Raw automata (no causality): (a) is a plain inclusion, decided exactly; against the
    /// enumeration of every word up to `MAX` letters.
    #[test]
    fn random_automata_agree_with_brute_force() {
        const MAX: usize = 6;
        let dir = scratch_dir("timbuk");
        let mut rng = Rng::new(4);
        let mut kinds = [0usize; 2];
        for _ in 0..100 {
            let text = random_timbuk(&mut rng);
            let path = dir.join("a.timbuk");
            std::fs::write(&path, &text).unwrap();
            let problem = problem_of(&path, LocationChoice::Default).unwrap();
            assert_eq!(problem.causality().counters(), 0);
            let labels: Vec<usize> = (0..3).map(|_| rng.below(2)).collect();
            for p in [Partition::finest(3), Partition::from_labels(&labels)] {
                let model = problem.compile(&p).unwrap();
                for mode in MODES {
                    let mut an = Analyzer::new(&problem);
                    let (a, _) = inclusion::check(&mut an, &p, mode, &InclusionLimits::default());
                    // Brute force: every word of at most MAX letters whose projections are
                    // prefixes of the local languages (the others cannot become accepted).
                    let global = Engine::new(problem.global().clone());
                    let mut gs = global.scratch();
                    let opts = CheckOptions {
                        mode,
                        choice: Choice::Force(Procedure::Ac),
                        diagnosis: None,
                        ..CheckOptions::default()
                    };
                    let dfas = &model.automata().unwrap().projections;
                    let mut shortest = None;
                    let mut frontier: Vec<(Vec<LetterId>, Vec<u32>)> =
                        vec![(Vec::new(), vec![0; dfas.len()])];
                    'len: for len in 0..=MAX {
                        let mut next = Vec::new();
                        for (w, states) in &frontier {
                            let local_ok = states.iter().zip(dfas).all(|(&q, d)| match mode {
                                Mode::Complete => d.accepting[q as usize],
                                Mode::Prefix => d.live[q as usize],
                            });
                            if local_ok {
                                let (g, _) = global
                                    .check_letters(&mut gs, std::slice::from_ref(w), &opts)
                                    .unwrap();
                                if g.kind == VerdictKind::Fail {
                                    shortest = Some(len);
                                    break 'len;
                                }
                            }
                            for x in 0..problem.letters() {
                                let lx =
                                    problem.translate(&model, &[LetterId(x as u32)]).unwrap()[0];
                                let k = model.alphabet.location(lx).index();
                                let Some((t, _)) =
                                    dfas[k].step(states[k], model.alphabet.local_index(lx))
                                else {
                                    continue;
                                };
                                if !dfas[k].live[t as usize] {
                                    continue;
                                }
                                let mut w2 = w.clone();
                                w2.push(LetterId(x as u32));
                                let mut s2 = states.clone();
                                s2[k] = t;
                                next.push((w2, s2));
                            }
                        }
                        frontier = next;
                    }
                    match &a {
                        Inclusion::Faithful { in_flight } => {
                            kinds[0] += 1;
                            assert_eq!(*in_flight, None);
                            assert_eq!(shortest, None, "{text} {mode:?}");
                        }
                        Inclusion::Counterexample(c) => {
                            kinds[1] += 1;
                            assert_eq!(c.shortest, Shortest::Overall);
                            assert!(recheck(&problem, &model, &p, &c.word, mode)
                                .unwrap()
                                .confirms_inclusion());
                            if c.word.len() <= MAX {
                                assert_eq!(shortest, Some(c.word.len()), "{text} {mode:?}");
                            } else {
                                assert_eq!(shortest, None, "{text} {mode:?}");
                            }
                        }
                        Inclusion::Undecided(u) => panic!("{text}: {u:?}"),
                    }
                }
            }
        }
        assert!(kinds[0] > 30 && kinds[1] > 30, "{kinds:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
