//! Integration tests of the compiler crate: the data-driven fixture suite and the HIBOU
//! benchmark sample, run through every check procedure.

use multitrace_compiler::syntax::{read_interaction, read_text, InteractionModel};
use multitrace_runtime::check::explore::{explore, Budget, ExploreOptions};
use multitrace_runtime::multitrace::Multitrace;
use multitrace_runtime::syntax::parse_htf;
use multitrace_runtime::verdict::{Mode, VerdictKind};
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
        });
    }
    v
}

/// One fixture: (model, [(trace path, complete verdict, prefix verdict)]).
fn load_fixture(dir: &Path) -> (InteractionModel, Vec<(PathBuf, VerdictKind, VerdictKind)>) {
    let model = read_interaction(&dir.join("model.hif"), None).unwrap_or_else(|e| panic!("{e}"));
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
    (model, cases)
}

fn fixture_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(fixtures_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("expected.txt").is_file())
        .collect();
    dirs.sort();
    dirs
}

#[test]
fn fixtures_give_expected_verdicts_with_term_exploration() {
    let dirs = fixture_dirs();
    assert!(dirs.len() >= 6, "fixtures missing");
    let mut checked = 0;
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
        for (path, complete, prefix) in &cases {
            let mt = read_mt(&model, path);
            for (mode, expected) in [(Mode::Complete, complete), (Mode::Prefix, prefix)] {
                for opts in variants(mode) {
                    let mut store = model.store.clone();
                    let v = explore(&mut store, model.root, &mt, &opts);
                    assert_eq!(v.kind, *expected, "{} {mode:?} {opts:?}", path.display());
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 0);
}

/// The HIBOU benchmark sample (seed 001 Sec. 6), when `../shared/data` is present.
fn lfrem() -> Option<PathBuf> {
    let p =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/hibou-lfrem-sample/gen_ints");
    p.is_dir().then_some(p)
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
    for i in 0..10 {
        let model = read_interaction(&root.join(format!("i{i}.hif")), None).unwrap();
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
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 10_000);
}
