//! `gen` and `compare`: exit statuses, and categories that cannot be generated.

use super::*;

#[test]
fn compare_exits_1_on_a_verdict_that_contradicts_the_manifest() {
    let dir = scratch("gen-mismatch");
    let _ = std::fs::remove_dir_all(&dir);
    let model = "fixtures/seed004-fig3/model.timbuk";
    let d = dir.to_str().unwrap();
    let gen_args = [
        "gen", model, "--kind", "pass", "--count", "12", "--length", "6..30",
    ];
    let o = run(&[&gen_args[..], &["--seed", "3", "-o", d]].concat());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let args = ["compare", model, d, "--runs", "2", "--format", "json"];
    let o = run(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let manifest = dir.join("manifest.tsv");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, text.replacen("\tPass\t", "\tFail\t", 1)).unwrap();
    assert_eq!(run(&args).status.code(), Some(1));
    // Without a manifest the directory is one set named after it, checked in complete mode.
    std::fs::remove_file(&manifest).unwrap();
    assert_eq!(run(&args).status.code(), Some(0));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn impossible_categories_are_errors_naming_them() {
    let dir = scratch("gen-impossible");
    let _ = std::fs::remove_dir_all(&dir);
    let model = "fixtures/seed004-fig3/model.timbuk";
    let d = dir.to_str().unwrap();
    let o = run(&[
        "gen", model, "--kind", "pass", "--count", "3", "--length", "3", "-o", d,
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("cannot generate `pass`"),
        "{}",
        stderr(&o)
    );
    assert!(!dir.exists());
    // .htf needs an interaction: refused before generating.
    let o = run(&["gen", model, "--kind", "pass", "--format", "htf", "-o", d]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("--format htf needs an interaction model"),
        "{err}"
    );
    assert!(!dir.exists());
    // Kinds are the library's: a wrong one is a usage error listing them.
    let o = run(&["gen", model, "--kind", "nope", "-o", d]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("central-error-mixed"), "{}", stderr(&o));
}

/// Issues 22 and 23 point 12: on a terminal `gen` shows a spinner with the time elapsed
/// while it works (a large automaton can take minutes before its first multitrace), erased
/// before it prints; off a terminal nothing of it is written. The terminal is a pseudo-terminal
/// from `script` (util-linux); the test says it is skipped where `script` is missing.
#[test]
fn gen_shows_progress_on_a_terminal_only() {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: no `script` command for a pseudo-terminal");
        return;
    }
    let dir = scratch("gen-progress");
    let out = dir.join("set");
    let bin = env!("CARGO_BIN_EXE_multitrace");
    let cmd = format!(
        "{bin} gen fixtures/seed004-mqtt/model.hif --kind pass --count 3000 --length 4..40 -o {}",
        out.display()
    );
    let o = Command::new("script")
        .current_dir(root())
        .args(["-qec", &cmd, "/dev/null"])
        .output()
        .unwrap();
    let shown = stdout(&o);
    assert!(o.status.success(), "{shown}");
    assert!(
        shown.contains("generating 3000 `pass` multitraces"),
        "{shown}"
    );
    assert!(shown.contains("wrote 3000 `pass` multitraces"), "{shown}");
    // Off a terminal: no spinner.
    let o = run(&[
        "gen",
        "fixtures/seed004-mqtt/model.hif",
        "--kind",
        "pass",
        "--count",
        "3",
        "-o",
        dir.join("set2").to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stderr(&o).contains("generating"), "{}", stderr(&o));
}
