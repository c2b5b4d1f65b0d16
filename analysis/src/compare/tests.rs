//! Tests of the harness on generated sets, and the helpers the modules' tests share.

use super::*;
use crate::generate::Kind;
use crate::generate::{generate, write_set, GenOptions, SetFormat};
use crate::manifest::MANIFEST_FILE;
use multitrace_compiler::compile::CompileOptions;
use multitrace_compiler::source::load_model;
use std::path::Path;

/// The engine of a fixture model.
pub(super) fn engine(rel: &str) -> Engine {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures")
        .join(rel);
    Engine::new(load_model(&path, None, &CompileOptions::default()).unwrap())
}

/// A fresh scratch directory for one test (absent on return).
pub(super) fn scratch_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("mt-compare-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn gen_into(e: &Engine, dir: &Path, kind: Kind, format: SetFormat) {
    let g = generate(e, &GenOptions::new(kind, 8, 6, 30, 3)).unwrap();
    write_set(e.model(), &g, kind, format, dir).unwrap();
}

#[test]
fn generated_sets_compare_clean_and_in_kind_order() {
    for (model, format) in [
        ("seed004-fig3/model.timbuk", SetFormat::Mtf),
        ("seed004-mqtt/model.hif", SetFormat::Jsonl),
    ] {
        let e = engine(model);
        let dir = scratch_dir(&format!("clean-{format:?}"));
        for kind in [Kind::Noise, Kind::Pass, Kind::CentralError] {
            gen_into(&e, &dir, kind, format);
        }
        let opts = CompareOptions {
            runs: 2,
            with_term: true,
            ..CompareOptions::default()
        };
        let c = compare(&e, std::slice::from_ref(&dir), &opts).unwrap();
        let categories: Vec<&str> = c.rows.iter().map(|r| r.category.as_str()).collect();
        assert_eq!(categories, ["pass", "central-error", "noise"]);
        assert_eq!(c.problems(), 0, "{:?}", c.rows);
        assert!(!c.inconclusive());
        assert_eq!(
            c.with_term(),
            e.model().term().is_some() && model.ends_with(".hif")
        );
        for r in &c.rows {
            assert_eq!(r.count, 8);
            assert_eq!(r.verdicts.values().sum::<usize>(), 8);
            assert!(r.total(Procedure::Ac).is_some() && r.as_over_ac().is_some());
            assert!((6..=30).contains(&r.len_min) && r.len_min <= r.len_max);
        }
        assert_eq!(
            c.rows[0].verdicts,
            BTreeMap::from([("Pass".to_string(), 8)])
        );
        let table = c.markdown("m (1, 2)");
        assert_eq!(
            table
                .lines()
                .filter(|l| l.starts_with("| m (1, 2) |"))
                .count(),
            3
        );
        assert!(table.contains("pass: AS verdicts 8 Pass; AC and AS agree on all"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn a_verdict_that_contradicts_the_manifest_is_a_mismatch() {
    let e = engine("seed004-fig3/model.timbuk");
    let dir = scratch_dir("mismatch");
    gen_into(&e, &dir, Kind::Pass, SetFormat::Mtf);
    let manifest = dir.join(MANIFEST_FILE);
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, text.replacen("\tPass\t", "\tFail\t", 1)).unwrap();
    let opts = CompareOptions {
        runs: 1,
        ..CompareOptions::default()
    };
    let c = compare(&e, std::slice::from_ref(&dir), &opts).unwrap();
    assert_eq!((c.problems(), c.rows[0].mismatches), (1, 1));
    let [Finding::Mismatch { expected, got, .. }] = &c.rows[0].findings[..] else {
        panic!("{:?}", c.rows[0].findings)
    };
    assert_eq!((*expected, *got), (VerdictKind::Fail, VerdictKind::Pass));
    let shown = c.rows[0].findings[0].to_string();
    assert!(
        shown.starts_with("MISMATCH with the manifest on "),
        "{shown}"
    );
    assert!(
        shown.ends_with(": manifest Fail (-), AS Pass (-)"),
        "{shown}"
    );
    // Another mode: the manifest's verdicts do not hold there, so they are not compared.
    let prefix = CompareOptions {
        mode: Some(Mode::Prefix),
        ..opts
    };
    let c = compare(&e, std::slice::from_ref(&dir), &prefix).unwrap();
    assert_eq!((c.problems(), c.rows[0].mismatches), (0, 0));
    let sets = read_sets(&e, std::slice::from_ref(&dir), Some(Mode::Prefix)).unwrap();
    assert!(sets[0]
        .items
        .iter()
        .all(|i| i.mode == Mode::Prefix && i.expected.is_none()));
    let sets = read_sets(&e, std::slice::from_ref(&dir), Some(Mode::Complete)).unwrap();
    assert!(sets[0].items.iter().all(|i| i.expected.is_some()));
    // Without a manifest the directory is one set named after it, in complete mode.
    std::fs::remove_file(&manifest).unwrap();
    let sets = read_sets(&e, std::slice::from_ref(&dir), None).unwrap();
    assert_eq!(sets.len(), 1);
    assert_eq!(sets[0].category, dir.file_name().unwrap().to_string_lossy());
    assert!(sets[0]
        .items
        .iter()
        .all(|i| i.mode == Mode::Complete && i.expected.is_none()));
    let c = compare_sets(&e, &sets, &opts).unwrap();
    assert_eq!(c.problems(), 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn medians() {
    assert_eq!(median(&mut []), 0.0);
    assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
    assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), 2.5);
    assert_eq!(ratio(Some(1.0), Some(0.0)), None);
    assert_eq!(ratio(Some(1.0), Some(4.0)), Some(0.25));
}

/// The progress of a comparison: one unit per check (multitraces × procedures × runs),
/// monotone, the last report the total.
#[test]
fn progress_counts_every_check() {
    let e = engine("seed004-fig3/model.timbuk");
    let dir = scratch_dir("progress");
    gen_into(&e, &dir, Kind::Pass, SetFormat::Mtf);
    let opts = CompareOptions {
        runs: 2,
        ..CompareOptions::default()
    };
    let seen = std::cell::RefCell::new(Vec::new());
    let sink = |p: crate::progress::Progress| seen.borrow_mut().push(p);
    let c = compare_with(&e, std::slice::from_ref(&dir), &opts, Some(&sink)).unwrap();
    let seen = seen.into_inner();
    let total = 8 * 2 * 2;
    assert_eq!(c.rows.iter().map(|r| r.count).sum::<usize>(), 8);
    assert!(seen
        .iter()
        .all(|p| p.total == Some(total) && p.unit == "checks"));
    assert!(seen.windows(2).all(|w| w[0].done <= w[1].done), "{seen:?}");
    assert_eq!(seen.last().unwrap().done, total);
    let _ = std::fs::remove_dir_all(&dir);
}
