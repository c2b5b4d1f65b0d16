//! The start-up path of `check` (issue 24, scope 4): the plain form `check MODEL.mtm
//! TRACE...` is parsed without clap and runs on the main thread. It must print exactly what
//! the same check parsed by clap prints, and a deep term must still get the checking stack.

use super::{root, run, scratch, stderr, stdout};
use std::process::Output;

/// Standard output, standard error and the exit status, with the summary's times cut.
fn shown(o: &Output) -> (String, String, Option<i32>) {
    let cut = |text: String| {
        text.lines()
            .map(|l| l.split("; wall time").next().unwrap_or(l).to_string())
            .collect::<Vec<_>>()
            .join("\n")
    };
    (cut(stdout(o)), cut(stderr(o)), o.status.code())
}

#[test]
fn the_plain_form_prints_what_clap_s_form_prints() {
    let dir = scratch("plain");
    let mtm = dir.join("mqtt.mtm");
    let mtm = mtm.to_str().unwrap();
    let o = run(&["compile", "fixtures/seed004-mqtt/model.hif", "-o", mtm]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let traces = "fixtures/seed004-mqtt/traces";
    let example = format!("{traces}/example1.htf");
    let missing = dir.join("missing.htf");
    let missing = missing.to_str().unwrap();
    for inputs in [
        vec![example.as_str()],
        vec![traces],
        vec![example.as_str(), missing],
        vec![missing],
    ] {
        let plain: Vec<&str> = ["check", mtm].into_iter().chain(inputs.clone()).collect();
        // An option at its default value: clap and the checking-stack thread.
        let parsed: Vec<&str> = ["check", "--color", "auto", mtm]
            .into_iter()
            .chain(inputs.clone())
            .collect();
        let (a, b) = (run(&plain), run(&parsed));
        assert_eq!(shown(&a), shown(&b), "{inputs:?}");
        assert!(!stdout(&a).is_empty() || !stderr(&a).is_empty());
    }
}

/// A term nested `2 * n` deep: `strict(alt(... clt1 -- begin -> brok ..., o), clt1 -- pub ->
/// brok)`, which term exploration recurses through to reach the first action.
fn deep_interaction(n: usize) -> String {
    "strict(alt(".repeat(n) + "clt1 -- begin -> brok" + &", o), clt1 -- pub -> brok)".repeat(n)
}

/// `check MODEL TRACE` (the plain form) with the main thread's stack limited to `kib` KiB:
/// below 1 MiB the check runs on the checking-stack thread, from 1 MiB on the main thread,
/// where term exploration (hundreds of levels here) moves to a thread of the checking stack.
#[cfg(target_os = "linux")]
fn check_on_a_main_stack_of(kib: u32, model: &str, trace: &str) -> Output {
    let script = format!(r#"ulimit -s {kib} && exec "$0" check "$1" "$2""#);
    std::process::Command::new("sh")
        .current_dir(root())
        .args(["-c", &script])
        .arg(env!("CARGO_BIN_EXE_multitrace"))
        .args([model, trace])
        .output()
        .unwrap()
}

#[cfg(target_os = "linux")]
#[test]
fn a_deep_term_is_explored_on_the_checking_stack() {
    let dir = scratch("deep-term");
    let signature = root().join("fixtures/seed004-mqtt/signature.hsf");
    let trace = dir.join("t.htf");
    // Each location's trace by lifeline: not the locations of the automata model below, so
    // that model is checked by term exploration too.
    std::fs::write(
        &trace,
        "{ [clt1] clt1!begin.clt1!pub; [brok] brok?begin.brok?pub; [clt2] }\n",
    )
    .unwrap();
    let trace = trace.to_str().unwrap();
    for (n, compile) in [
        (400, &["--term-only"][..]),
        (300, &["--locations", "clt1,brok;clt2"]),
    ] {
        let hif = dir.join(format!("deep{n}.hif"));
        std::fs::write(&hif, deep_interaction(n)).unwrap();
        let mtm = dir.join(format!("deep{n}.mtm"));
        let mut args = vec![
            "compile",
            hif.to_str().unwrap(),
            "-o",
            mtm.to_str().unwrap(),
        ];
        args.extend(["--signature", signature.to_str().unwrap()]);
        args.extend(compile);
        let o = run(&args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        for kib in [64, 1024] {
            let o = check_on_a_main_stack_of(kib, mtm.to_str().unwrap(), trace);
            let out = stdout(&o);
            assert_eq!(o.status.code(), Some(0), "{n}, {kib}: {out}{}", stderr(&o));
            assert!(out.contains("t.htf: WeakPass"), "{n}, {kib}: {out}");
        }
    }
}
