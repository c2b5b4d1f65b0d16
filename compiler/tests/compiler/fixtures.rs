//! The data-driven fixture suite and the HIBOU benchmark sample, run through every check
//! procedure.

use crate::fixtures_dir;
use multitrace_check::explore::{explore, Budget, ExploreOptions};
use multitrace_check::{CheckOptions, Choice, Engine};
use multitrace_compiler::compile::{compile_interaction, CompileOptions};
use multitrace_compiler::syntax::{read_interaction, read_text, InteractionModel};
use multitrace_formats::parse_htf;
use multitrace_model::multitrace::Multitrace;
use multitrace_model::verdict::Procedure;
use multitrace_model::verdict::{Mode, Reason, VerdictKind};
use std::path::{Path, PathBuf};

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
                ..Budget::UNLIMITED
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
            let traces = multitrace_formats::parse_mtf(
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
    use multitrace_model::record::{Names, Record};
    use multitrace_model::verdict::Sym;
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
        let render = |s: Sym| model.sym_name(s);
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
                            let traces =
                                multitrace_formats::parse_mtf(&file, &text, &model.alphabet)
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
    let traces = vec![vec![multitrace_model::nfa::LetterId(99)], vec![], vec![]];
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
    multitrace_model::testdata::data("hibou-lfrem-sample/gen_ints", "the HIBOU sample")
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
                        ..Budget::UNLIMITED
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
    compiled: &multitrace_model::model::CompiledModel,
    k: usize,
    mode: Mode,
) {
    let letters = compiled.letter_traces(mt).unwrap();
    let lifelines = match &compiled.origin {
        multitrace_model::model::Origin::Interaction {
            location_lifelines, ..
        } => location_lifelines[k],
        _ => unreachable!(),
    };
    let comp = mt
        .components
        .iter()
        .find(|c| c.lifelines == lifelines)
        .cloned()
        .unwrap_or(multitrace_model::multitrace::Component {
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
