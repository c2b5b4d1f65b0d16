//! Tests of the driver, and the helpers the stages' tests share.

use super::*;
use multitrace_check::{CheckOptions, Choice, Engine};
use multitrace_compiler::compile::{CompileOptions, LocationChoice};
use multitrace_compiler::source::load_model;
use multitrace_model::verdict::Procedure;
use std::path::{Path, PathBuf};

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("fixtures")
        .join(rel)
}

/// The engine of a fixture model (`seed004-fig3/model.timbuk`, ...).
pub(super) fn engine(rel: &str) -> Engine {
    let path = fixture(rel);
    Engine::new(load_model(&path, None, &CompileOptions::default()).expect("fixture model"))
}

/// A fresh scratch directory for one test (absent on return).
pub(super) fn scratch_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("mt-generate-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// Re-checks every item with AC, AS and (interaction models) term exploration.
pub(super) fn recheck(engine: &Engine, kind: Kind, gen: &Generation, min: usize, max: usize) {
    let mut scratch = engine.scratch();
    let has_term = engine.model().term().is_some();
    for item in &gen.items {
        assert!((min..=max).contains(&item.len()), "{kind}: length");
        assert_eq!(item.mode, kind.mode());
        assert!(kind.accepts(&item.verdict), "{kind}: {:?}", item.verdict);
        let mut procs = vec![Procedure::Ac, Procedure::As];
        if has_term {
            procs.push(Procedure::Term);
        }
        for p in procs {
            let opts = CheckOptions {
                mode: item.mode,
                choice: Choice::Force(p),
                ..CheckOptions::default()
            };
            let (v, _) = engine
                .check_letters(&mut scratch, &item.traces, &opts)
                .unwrap();
            assert_eq!(
                v.kind,
                item.verdict.kind,
                "{kind} with {}: {:?}",
                p.name(),
                item.traces
            );
            if p == Procedure::As {
                assert_eq!(v.reason, item.verdict.reason, "{kind}: AS reason");
            }
        }
    }
}

#[test]
fn same_seed_same_multitraces_other_seed_others() {
    let e = engine("seed004-fig3/model.timbuk");
    for kind in [Kind::Pass, Kind::CentralError, Kind::Noise] {
        let o = GenOptions::new(kind, 20, 8, 30, 42);
        let a = generate(&e, &o).unwrap();
        let b = generate(&e, &o).unwrap();
        assert_eq!(a, b, "{kind}");
        let c = generate(&e, &GenOptions { seed: 43, ..o }).unwrap();
        assert_ne!(a.items, c.items, "{kind}");
    }
}

#[test]
fn every_category_on_the_running_example() {
    let e = engine("seed004-fig3/model.timbuk");
    for kind in Kind::ALL {
        match generate(&e, &GenOptions::new(kind, 15, 10, 40, 5)) {
            Ok(g) => {
                assert_ne!(kind, Kind::InterError);
                assert_eq!(g.items.len(), 15);
                recheck(&e, kind, &g, 10, 40);
            }
            // Local traces of runs b (d b)^k d c e mixed together always keep an
            // accepting path in Inter: the error says so, nothing is mislabelled.
            Err(err @ GenError::Shortfall { .. }) if kind == Kind::InterError => {
                let GenError::Shortfall { partial, .. } = &err else {
                    unreachable!()
                };
                assert!(partial.items.is_empty());
                assert!(err.to_string().contains("`inter-error`"), "{err}");
            }
            Err(err) => panic!("{kind}: {err}"),
        }
    }
}

#[test]
fn every_category_on_the_mqtt_interaction() {
    let e = engine("seed004-mqtt/model.hif");
    for kind in Kind::ALL {
        let g = generate(&e, &GenOptions::new(kind, 10, 6, 24, 9))
            .unwrap_or_else(|err| panic!("{kind}: {err}"));
        assert_eq!(g.items.len(), 10);
        recheck(&e, kind, &g, 6, 24);
        // The .htf rendering reads back to the same local traces.
        for item in &g.items {
            let text = render_htf(e.model(), &item.traces).unwrap();
            let (mt, _) =
                multitrace_formats::parse_htf("x.htf", &text, e.model().signature().unwrap())
                    .unwrap();
            assert_eq!(e.model().letter_traces(&mt).unwrap(), item.traces);
        }
    }
}

#[test]
fn options_a_model_cannot_serve_are_errors() {
    let e = engine("seed004-fig3/model.timbuk");
    let err = generate(&e, &GenOptions::new(Kind::Pass, 1, 9, 3, 0)).unwrap_err();
    assert_eq!(err, GenError::Unsupported("empty length range 9..3".into()));
    // A bounded number of candidates: a shortfall says what was produced and rejected.
    let o = GenOptions {
        max_attempts: Some(40),
        ..GenOptions::new(Kind::InterError, 5, 10, 40, 1)
    };
    let Err(GenError::Shortfall {
        partial, wanted, ..
    }) = generate(&e, &o)
    else {
        panic!("fig3 has no inter-error")
    };
    assert_eq!((wanted, partial.attempts), (5, 40));
    assert_eq!(partial.rejected.values().sum::<usize>(), 40);
}

/// The AutomatArk NFAs of seed 004 with its three locations (skipped without the data).
#[test]
fn automatark_categories_at_200_to_250_actions() {
    let Some(data) = multitrace_model::testdata::data("automatark/NFA", "AutomatArk NFAs") else {
        return;
    };
    let groups: Vec<Vec<String>> = [
        "a0 a1 a2 a3 a4 a5 a16",
        "a6 a7 a8 a9 a10 a17 a18",
        "a11 a12 a13 a14 a15",
    ]
    .iter()
    .map(|g| g.split(' ').map(String::from).collect())
    .collect();
    for nfa in [
        "Bakery-4P-BinEnc-BwBad/armcNFA_inclTest_11",
        "Bakery-4P-BinEnc-BwBad/armcNFA_inclTest_6",
        "IBakery4pBinEnc-FbtOneOne-Nondet/armcNFA_inclTest_10",
    ] {
        let path = data.join(format!("{nfa}.timbuk"));
        let opts = CompileOptions {
            locations: LocationChoice::Groups(groups.clone()),
            ..CompileOptions::default()
        };
        let e = Engine::new(load_model(&path, None, &opts).unwrap());
        for kind in [
            Kind::Pass,
            Kind::LocalError,
            Kind::InterError,
            Kind::CentralErrorMixed,
        ] {
            let g = generate(&e, &GenOptions::new(kind, 4, 200, 250, 3))
                .unwrap_or_else(|err| panic!("{nfa} {kind}: {err}"));
            recheck(&e, kind, &g, 200, 250);
        }
        let err = generate(&e, &GenOptions::new(Kind::CentralError, 4, 200, 250, 3)).unwrap_err();
        assert!(matches!(err, GenError::Impossible { .. }), "{nfa}: {err}");
    }
}

/// The progress reports of a generation: monotone, of the count asked, the last one the
/// count; and the same multitraces as without reports (reporting changes nothing).
#[test]
fn progress_is_monotone_and_reaches_the_count() {
    let e = engine("seed004-mqtt/model.hif");
    let opts = GenOptions::new(Kind::Pass, 40, 4, 20, 7);
    let seen = std::cell::RefCell::new(Vec::new());
    let sink = |p: crate::progress::Progress| seen.borrow_mut().push(p);
    let g = generate_with(&e, &opts, Some(&sink)).unwrap();
    let seen = seen.into_inner();
    assert!(seen.len() >= 2, "{seen:?}");
    assert!(seen.windows(2).all(|w| w[0].done <= w[1].done), "{seen:?}");
    assert!(seen
        .iter()
        .all(|p| p.total == Some(40) && p.unit == "multitraces"));
    assert_eq!(seen[0].done, 0);
    assert_eq!(seen.last().unwrap().done, 40);
    assert_eq!(g, generate(&e, &opts).unwrap());
}

/// A time limit that has passed stops the generation with what was kept (nothing here), and
/// the error names the option that raises it; a generous one changes nothing.
#[test]
fn a_time_limit_stops_the_generation() {
    let e = engine("seed004-mqtt/model.hif");
    let opts = GenOptions {
        timeout: Some(std::time::Duration::ZERO),
        ..GenOptions::new(Kind::Pass, 40, 4, 20, 7)
    };
    let err = generate(&e, &opts).unwrap_err();
    let GenError::Timeout {
        partial, wanted, ..
    } = &err
    else {
        panic!("{err}")
    };
    assert_eq!(*wanted, 40);
    assert!(partial.items.is_empty());
    assert!(err.to_string().contains("raise --timeout"), "{err}");
    let long = GenOptions {
        timeout: Some(std::time::Duration::from_secs(3600)),
        ..opts.clone()
    };
    let plain = GenOptions {
        timeout: None,
        ..opts
    };
    assert_eq!(generate(&e, &long).unwrap(), generate(&e, &plain).unwrap());
}
