//! `check --expect`: the rows of the check's mode in a `gen` directory of both modes, the exit
//! status that answers "did the expectations hold", mismatches named by file and line.

use super::*;

/// `gen` writes kinds of both modes into one directory (one manifest): each mode checks its
/// own rows and says how many of the other it skipped.
#[test]
fn a_gen_directory_of_both_modes_is_checked_in_either_mode() {
    let d = scratch("expect-modes");
    let set = d.join("set");
    let model = "fixtures/seed004-mqtt/model.hif";
    for kind in ["pass", "prefix"] {
        let o = run(&[
            "gen",
            model,
            "--kind",
            kind,
            "--count",
            "3",
            "--length",
            "4..8",
            "-o",
            set.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let manifest = set.join("manifest.tsv");
    for (mode, other) in [("complete", "prefix"), ("prefix", "complete")] {
        let o = run(&[
            "check",
            model,
            set.to_str().unwrap(),
            "--mode",
            mode,
            "--expect",
            manifest.to_str().unwrap(),
        ]);
        let err = stderr(&o);
        assert!(!err.contains("add --mode"), "{mode}: {err}");
        assert!(
            err.contains(&format!(
                "3 rows of {other} mode skipped (check again with --mode {other} for them)"
            )),
            "{mode}: {err}"
        );
        assert!(err.contains("0 mismatches"), "{mode}: {err}");
    }
}

/// Every expectation met, some of them Fails: exit 0; one not met: exit 1 with the row named
/// by its file and line.
#[test]
fn the_exit_status_says_whether_the_expectations_held() {
    let d = scratch("expect-status");
    let tsv = d.join("expected.tsv");
    let traces = root().join("fixtures/seed004-mqtt/traces");
    let rows = |first: &str| {
        format!(
            "{t}/example1.htf\t{first}\n{t}/example2.htf\tFail\tCentralError\n",
            t = traces.display()
        )
    };
    std::fs::write(&tsv, rows("Pass")).unwrap();
    let args = [
        "check",
        "fixtures/seed004-mqtt/model.hif",
        "fixtures/seed004-mqtt/traces/example1.htf",
        "fixtures/seed004-mqtt/traces/example2.htf",
        "--mode",
        "complete",
        "--expect",
        tsv.to_str().unwrap(),
    ];
    let o = run(&args);
    assert!(stdout(&o).contains("example2.htf: Fail"), "{}", stdout(&o));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    std::fs::write(&tsv, rows("WeakPass")).unwrap();
    let o = run(&args);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!(
            "MISMATCH fixtures/seed004-mqtt/traces/example1.htf: expected WeakPass ({}:1), got Pass",
            tsv.display()
        )),
        "{}",
        stderr(&o)
    );
}
