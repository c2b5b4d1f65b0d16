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
