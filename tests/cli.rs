//! End-to-end tests of the `multitrace` binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_multitrace"))
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn run(args: &[&str]) -> Output {
    bin().current_dir(root()).args(args).output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("multitrace-cli-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn check_directory_prints_one_line_per_trace_and_a_summary() {
    let o = run(&[
        "check",
        "fixtures/loopP/model.hif",
        "fixtures/loopP/traces",
        "--jobs",
        "2",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 11);
    // Input order is the sorted file order, whatever the thread that checked it.
    let names: Vec<&str> = lines[..10]
        .iter()
        .map(|l| l.split(':').next().unwrap())
        .collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
    assert!(out.contains("k20.htf: Pass"));
    assert!(out.contains("emit2_recv1.htf: WeakPass"));
    assert!(out.contains("coloc_recv_overtakes.htf: Fail (LocalError"));
    assert!(
        lines[10].starts_with("10 multitraces: 6 Pass, 3 WeakPass, 1 Fail"),
        "{}",
        lines[10]
    );
}

#[test]
fn exit_status_is_zero_when_all_pass_and_complete_mode_is_stricter() {
    let ok = run(&[
        "check",
        "fixtures/loopP/model.hif",
        "fixtures/loopP/traces/k5.htf",
        "fixtures/loopP/traces/emit2_recv1.htf",
    ]);
    assert_eq!(ok.status.code(), Some(0), "{}", stdout(&ok));
    let complete = run(&[
        "check",
        "fixtures/loopP/model.hif",
        "fixtures/loopP/traces/emit2_recv1.htf",
        "--mode",
        "complete",
    ]);
    assert_eq!(complete.status.code(), Some(1));
    assert!(stdout(&complete).contains("emit2_recv1.htf: Fail"));
}

#[test]
fn jsonl_output_has_one_object_per_trace() {
    let o = run(&[
        "check",
        "fixtures/loopP/model.hif",
        "fixtures/loopP/traces",
        "--format",
        "jsonl",
        "--no-por",
        "--no-loc",
    ]);
    let out = stdout(&o);
    let objs: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(objs.len(), 10);
    for v in &objs {
        assert_eq!(v["procedure"], "term");
        assert!(v["time_us"].is_u64());
        assert!(["Pass", "WeakPass", "Fail"].contains(&v["verdict"].as_str().unwrap()));
    }
    let fail = objs.iter().find(|v| v["verdict"] == "Fail").unwrap();
    assert_eq!(fail["reason"], "CentralError");
}

#[test]
fn exhausted_budget_is_inconclusive_with_status_3() {
    let o = run(&[
        "check",
        "fixtures/loopP/model.hif",
        "fixtures/loopP/traces/k20.htf",
        "--max-vertices",
        "3",
        "--no-por",
    ]);
    assert_eq!(o.status.code(), Some(3), "{}", stdout(&o));
    assert!(stdout(&o).contains("Inconclusive (vertices budget exhausted"));
}

#[test]
fn bad_trace_gives_status_2_and_a_positioned_message() {
    let d = scratch("bad-trace");
    let f = d.join("bad.htf");
    std::fs::write(&f, "{\n[l1] l1!m;\n[l2] l2?zz\n}").unwrap();
    let o = run(&["check", "fixtures/loopP/model.hif", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("bad.htf:3:"), "{err}");
    assert!(!err.contains("panicked"));
}

#[test]
fn bad_model_gives_status_2_and_a_positioned_message() {
    let d = scratch("bad-model");
    let f = d.join("m.hif");
    std::fs::write(&f, "seq(\n  l1 -- m ->|,\n  sync(l1 -- m ->|)\n)").unwrap();
    let t = d.join("t.htf");
    std::fs::write(&t, "{ [l1] }").unwrap();
    let o = run(&["check", f.to_str().unwrap(), t.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("m.hif:3:3"), "{err}");
    assert!(err.contains("unsupported construct"), "{err}");
    let missing = run(&["check", "fixtures/loopP/model.hif", "no/such/file.htf"]);
    assert_eq!(missing.status.code(), Some(2));
    let usage = run(&["check"]);
    assert_eq!(usage.status.code(), Some(2));
}
