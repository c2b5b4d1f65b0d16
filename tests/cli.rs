//! End-to-end tests of the `multitrace` binary, and the data-driven suite of bad inputs
//! (`bad_inputs/`).

mod bad_inputs;

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
    // Natural order: k5 before k20.
    let k = |n: &str| names.iter().position(|x| x.ends_with(n)).unwrap();
    assert!(k("k5.htf") < k("k20.htf") && k("k2.htf") < k("k5.htf"));
    assert!(k("coloc_ok.htf") < k("emit1_recv2.htf") && k("k20.htf") < k("recv_only.htf"));
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
    // The reason is canonical: without local analyses (--no-loc) the co-localized trace that
    // is wrong on its own is still a LocalError, with where and what was allowed.
    let fail = objs.iter().find(|v| v["verdict"] == "Fail").unwrap();
    assert_eq!(fail["reason"], "LocalError");
    assert_eq!(fail["local_error"]["location"], "l1,l2");
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
    assert!(
        stdout(&o).contains("Inconclusive (Budget): the vertices budget ran out"),
        "{}",
        stdout(&o)
    );
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

#[test]
fn compile_inspect_and_check_a_compiled_model() {
    let d = scratch("compile");
    let mtm = d.join("mqtt.mtm");
    let o = run(&[
        "compile",
        "fixtures/seed004-mqtt/model.hif",
        "-o",
        mtm.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let i = run(&["inspect", mtm.to_str().unwrap()]);
    let text = stdout(&i);
    assert!(text.contains("kind: automata"), "{text}");
    assert!(text.contains("NFA: 12 states, 15 transitions"), "{text}");
    assert!(text.contains("clt1: 8 letters; DFA"), "{text}");
    // The same verdicts from the .mtm with AC, AS and term exploration, and from the .hif
    // (multitraces whose components are the compiled locations; the co-localized ones need
    // term exploration, see below).
    let traces: Vec<String> = std::fs::read_dir(root().join("fixtures/seed004-mqtt/traces"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            !p.file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("coloc")
        })
        .map(|p| p.display().to_string())
        .collect();
    let mut outputs = Vec::new();
    for (model, p) in [
        (mtm.to_str().unwrap(), "ac"),
        (mtm.to_str().unwrap(), "as"),
        (mtm.to_str().unwrap(), "term"),
        ("fixtures/seed004-mqtt/model.hif", "auto"),
    ] {
        let mut args = vec!["check", model, "--procedure", p, "--format", "jsonl"];
        args.extend(traces.iter().map(String::as_str));
        let o = run(&args);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        let verdicts: Vec<String> = stdout(&o)
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                let proc_ = v["procedure"].as_str().unwrap().to_string();
                assert!(
                    p == "auto" || proc_ == p || proc_ == "term",
                    "{p} ran {proc_}"
                );
                v["verdict"].as_str().unwrap().to_string()
            })
            .collect();
        assert_eq!(verdicts.len(), 8);
        outputs.push(verdicts);
    }
    assert!(outputs.windows(2).all(|w| w[0] == w[1]), "{outputs:?}");
    // A co-localized multitrace: AS cannot read it on singleton locations (exit 2, saying
    // why); auto falls back to term exploration.
    let coloc = "fixtures/seed004-mqtt/traces/coloc_example1_interleaving.htf";
    let o = run(&["check", mtm.to_str().unwrap(), coloc, "--procedure", "as"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("compile with matching --locations"),
        "{}",
        stderr(&o)
    );
    let o = run(&["check", mtm.to_str().unwrap(), coloc, "--format", "jsonl"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("\"procedure\":\"term\""));
    // Compiled with the matching location, AS reads it.
    let grouped = d.join("grouped.mtm");
    let o = run(&[
        "compile",
        "fixtures/seed004-mqtt/model.hif",
        "--locations",
        "clt1,brok;clt2",
        "-o",
        grouped.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run(&[
        "check",
        grouped.to_str().unwrap(),
        coloc,
        "--procedure",
        "as",
        "--format",
        "jsonl",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("\"procedure\":\"as\""));
}

#[test]
fn as_reports_local_inter_and_central_errors_on_the_running_example() {
    let o = run(&[
        "check",
        "fixtures/seed004-fig3/model.timbuk",
        "fixtures/seed004-fig3/traces",
        "--mode",
        "complete",
        "--format",
        "jsonl",
        "--procedure",
        "as",
    ]);
    let out = stdout(&o);
    let by_name = |n: &str| -> serde_json::Value {
        let line = out.lines().find(|l| l.contains(n)).unwrap();
        serde_json::from_str(line).unwrap()
    };
    let local = by_name("local_error_l2.mtf");
    assert_eq!(
        (
            local["reason"].as_str(),
            local["local_error"]["location"].as_str()
        ),
        (Some("LocalError"), Some("l2"))
    );
    assert_eq!(by_name("inter_error.mtf")["reason"], "InterError");
    assert_eq!(by_name("central_error.mtf")["reason"], "CentralError");
    assert_eq!(by_name("pass.mtf")["verdict"], "Pass");
}

#[test]
fn a_term_only_model_refuses_automata_procedures() {
    let d = scratch("termonly");
    let mtm = d.join("loop.mtm");
    let o = run(&[
        "compile",
        "fixtures/loopP/model.hif",
        "-o",
        mtm.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stderr(&o).contains("term-only"), "{}", stderr(&o));
    let forced = run(&[
        "compile",
        "fixtures/loopP/model.hif",
        "--automata",
        "-o",
        mtm.to_str().unwrap(),
    ]);
    assert_eq!(forced.status.code(), Some(2));
    assert!(stderr(&forced).contains("loopP"), "{}", stderr(&forced));
    let o = run(&[
        "check",
        mtm.to_str().unwrap(),
        "fixtures/loopP/traces",
        "--procedure",
        "as",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("term-only"), "{}", stderr(&o));
    let o = run(&[
        "check",
        mtm.to_str().unwrap(),
        "fixtures/loopP/traces/k20.htf",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn corrupted_and_truncated_artifacts_give_status_2() {
    let d = scratch("corrupt");
    let mtm = d.join("m.mtm");
    assert_eq!(
        run(&[
            "compile",
            "fixtures/seed004-mqtt/model.hif",
            "-o",
            mtm.to_str().unwrap()
        ])
        .status
        .code(),
        Some(0)
    );
    let bytes = std::fs::read(&mtm).unwrap();
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (bytes[..bytes.len() / 2].to_vec(), "truncated"),
        (
            {
                let mut b = bytes.clone();
                b[40] ^= 4;
                b
            },
            "corrupted",
        ),
        (
            {
                let mut b = bytes.clone();
                b[0] = b'X';
                b
            },
            "wrong magic",
        ),
        (
            {
                let mut b = bytes.clone();
                b[8] = 7;
                b
            },
            "version 7",
        ),
    ];
    for (b, fragment) in cases {
        let f = d.join("bad.mtm");
        std::fs::write(&f, b).unwrap();
        let o = run(&["check", f.to_str().unwrap(), "fixtures/seed004-mqtt/traces"]);
        assert_eq!(o.status.code(), Some(2));
        assert!(stderr(&o).contains(fragment), "{}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"));
    }
}

#[test]
fn draw_writes_graphviz() {
    let d = scratch("draw");
    let nfa = d.join("nfa.dot");
    let o = run(&[
        "draw",
        "fixtures/seed004-fig3/model.timbuk",
        "--nfa",
        "-o",
        nfa.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(&nfa).unwrap();
    assert!(
        text.starts_with("digraph nfa") && text.contains("[label=\"b\"]"),
        "{text}"
    );
    let dfa = d.join("dfa.dot");
    let o = run(&[
        "draw",
        "fixtures/seed004-fig3/model.timbuk",
        "--dfa",
        "l2",
        "-o",
        dfa.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(&dfa).unwrap();
    assert!(
        text.contains("{q0,q1,q3}") && text.contains("{q1,q4}"),
        "{text}"
    );
    let o = run(&[
        "draw",
        "fixtures/seed004-fig3/model.timbuk",
        "--dfa",
        "nowhere",
        "-o",
        dfa.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn local_and_central_reproduce_check_as() {
    let d = scratch("distributed");
    let model = "fixtures/seed004-fig3/model.timbuk";
    // The same record as `check` writes, but where the multitrace was read and the time.
    let verdict = |o: &Output| -> Vec<String> {
        let v: serde_json::Value = serde_json::from_str(stdout(o).lines().next().unwrap()).unwrap();
        [
            "schema",
            "verdict",
            "procedure",
            "reason",
            "explanation",
            "local_error",
            "diagnosis",
            "budget",
            "error",
        ]
        .iter()
        .map(|k| v[k].to_string())
        .collect()
    };
    let mut compared = 0;
    for mode in ["complete", "prefix"] {
        for entry in std::fs::read_dir(root().join("fixtures/seed004-fig3/traces")).unwrap() {
            let trace = entry.unwrap().path();
            let t = trace.to_str().unwrap();
            let mut summaries = Vec::new();
            for l in ["l1", "l2", "l3"] {
                let out = d.join(format!("{l}.json"));
                let o = run(&[
                    "local",
                    model,
                    "--location",
                    l,
                    t,
                    "--mode",
                    mode,
                    "-o",
                    out.to_str().unwrap(),
                ]);
                // 0 when the local trace passes, 1 on a LocalError.
                assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
                summaries.push(out.to_str().unwrap().to_string());
            }
            let mut args = vec!["central", model, "--format", "jsonl"];
            args.extend(summaries.iter().map(String::as_str));
            let central = run(&args);
            let check = run(&[
                "check",
                model,
                t,
                "--procedure",
                "as",
                "--mode",
                mode,
                "--format",
                "jsonl",
            ]);
            assert_eq!(central.status.code(), check.status.code());
            assert_eq!(verdict(&central), verdict(&check), "{t} {mode}");
            compared += 1;
        }
    }
    assert_eq!(compared, 16);
    // A missing location is an error, not a verdict.
    let o = run(&["central", model, d.join("l1.json").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("no summary for location(s) l2, l3"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn json_lines_on_standard_input_and_witnesses() {
    use std::io::Write as _;
    let mut child = bin()
        .current_dir(root())
        .args([
            "check",
            "fixtures/seed004-fig3/model.timbuk",
            "-",
            "--format",
            "jsonl",
            "--witness",
            "--mode",
            "complete",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let input = "{\"id\": \"ok\", \"traces\": {\"l1\": [\"e\"], \"l2\": [\"d\", \"d\", \"c\"], \"l3\": [\"b\", \"b\"]}}\n\n{\"id\": \"bad\", \"traces\": {\"l2\": [\"c\", \"d\"]}}\n";
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let lines: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["id"], "ok");
    assert_eq!(lines[0]["trace"], "<stdin>:1");
    assert_eq!(lines[0]["verdict"], "Pass");
    assert_eq!(
        lines[0]["witness"],
        serde_json::json!(["b", "d", "b", "d", "c", "e"])
    );
    assert_eq!(lines[1]["reason"], "LocalError");
    // Term exploration gives a witness too.
    let o = run(&[
        "check",
        "fixtures/seed004-mqtt/model.hif",
        "fixtures/seed004-mqtt/traces/example1.htf",
        "--witness",
        "--procedure",
        "term",
    ]);
    assert!(stdout(&o).contains("witness: clt1!begin"), "{}", stdout(&o));
}

#[test]
fn source_option_accepts_the_model_compiled_with_any_options_and_refuses_an_edited_one() {
    let d = scratch("source");
    let mtm = d.join("mqtt.mtm");
    let mtm = mtm.to_str().unwrap();
    let hif = "fixtures/seed004-mqtt/model.hif";
    let trace = "fixtures/seed004-mqtt/traces/example1.htf";
    // Compile options (locations, term-only) do not make the source another one.
    for extra in [&["--locations", "clt1,brok;clt2"][..], &["--term-only"][..]] {
        let mut args = vec!["compile", hif, "-o", mtm];
        args.extend_from_slice(extra);
        let o = run(&args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let o = run(&["check", mtm, trace, "--source", hif]);
        assert_eq!(o.status.code(), Some(0), "{extra:?}: {}", stderr(&o));
        assert!(stdout(&o).contains("example1.htf: Pass"), "{}", stdout(&o));
    }
    // A copy of the source with one comment added: refused, with how to recompile (keeping
    // the locations of the compiled model).
    let o = run(&["compile", hif, "-o", mtm, "--locations", "clt1,brok;clt2"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(root().join(hif)).unwrap();
    let copy = d.join("model.hif");
    std::fs::write(&copy, format!("{text}\n/* edited */\n")).unwrap();
    std::fs::copy(
        root().join("fixtures/seed004-mqtt/signature.hsf"),
        d.join("signature.hsf"),
    )
    .unwrap();
    let copy = copy.to_str().unwrap();
    for command in [
        vec!["check", mtm, trace, "--source", copy],
        vec!["inspect", mtm, "--source", copy],
    ] {
        let o = run(&command);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        let e = stderr(&o);
        assert!(
            e.contains(&format!("{mtm}: compiled from another model than {copy}")),
            "{e}"
        );
        assert!(
            e.contains(&format!(
                "multitrace compile {copy} --locations 'clt1,brok;clt2' -o {mtm}"
            )),
            "{e}"
        );
        assert!(o.stdout.is_empty(), "{}", stdout(&o));
    }
    // The same text again: accepted.
    std::fs::write(copy, &text).unwrap();
    let o = run(&["central", mtm, "--source", copy, "nothing.json"]);
    // (past the source check: the missing summary is what is reported)
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("nothing.json"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&d);
}

// ---------------------------------------------------------------------------------------------
// Stale compiled models (issue 10): every command that loads a `.mtm` compares it with the
// source it records.

/// Every command that reads a MODEL, with a compiled model `mtm` (and scratch outputs in `d`).
fn commands_reading_a_model<'a>(mtm: &'a str, d: &'a Path) -> Vec<Vec<String>> {
    let trace = root()
        .join("fixtures/seed004-mqtt/traces/example1.htf")
        .display()
        .to_string();
    let out = |name: &str| d.join(name).display().to_string();
    let v = |args: &[&str]| args.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let mut commands = vec![
        v(&["check", mtm, &trace]),
        v(&["inspect", mtm]),
        v(&["draw", mtm, "--nfa", "-o", &out("nfa.dot")]),
    ];
    for l in ["clt1", "brok", "clt2"] {
        commands.push(v(&[
            "local",
            mtm,
            "--location",
            l,
            &trace,
            "-o",
            &out(&format!("{l}.json")),
        ]));
    }
    commands.push(v(&[
        "central",
        mtm,
        &out("clt1.json"),
        &out("brok.json"),
        &out("clt2.json"),
    ]));
    commands.push(v(&[
        "gen",
        mtm,
        "--kind",
        "pass",
        "--count",
        "1",
        "--length",
        "2..8",
        "--seed",
        "1",
        "-o",
        &out("gen"),
    ]));
    commands.push(v(&["compare", mtm, &out("gen")]));
    commands
}

#[test]
fn every_command_refuses_a_compiled_model_whose_source_changed() {
    let d = scratch("recorded-source");
    // Compiled from a relative path in another directory than the one it is used from: the
    // recorded source is absolute.
    let src = d.join("src");
    std::fs::create_dir_all(&src).unwrap();
    let text = std::fs::read_to_string(root().join("fixtures/seed004-mqtt/model.hif")).unwrap();
    std::fs::write(src.join("model.hif"), &text).unwrap();
    std::fs::copy(
        root().join("fixtures/seed004-mqtt/signature.hsf"),
        src.join("signature.hsf"),
    )
    .unwrap();
    let o = bin()
        .current_dir(&d)
        .args(["compile", "src/model.hif", "-o", "m.mtm"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let mtm = d.join("m.mtm").display().to_string();
    let hif = src.join("model.hif").display().to_string();
    let i = run(&["inspect", &mtm]);
    assert!(
        stdout(&i).contains(&format!("source: {hif}\n")),
        "{}",
        stdout(&i)
    );
    // Unchanged: every command runs, from any directory, without a note about the source.
    let commands = commands_reading_a_model(&mtm, &d);
    for args in &commands {
        let o = run(&args.iter().map(String::as_str).collect::<Vec<_>>());
        let e = stderr(&o);
        assert!(
            !e.contains("stale compiled model") && !e.contains("not compared"),
            "{args:?}: {e}"
        );
        assert_ne!(o.status.code(), Some(2), "{args:?}: {e}");
    }
    // One comment added to the source: each command refuses the model, naming both files and
    // the command that rebuilds it, and writes nothing.
    std::fs::write(src.join("model.hif"), format!("{text}/* edited */\n")).unwrap();
    std::fs::remove_file(d.join("nfa.dot")).unwrap();
    for l in ["clt1", "brok", "clt2"] {
        std::fs::remove_file(d.join(format!("{l}.json"))).unwrap();
    }
    for args in &commands {
        let o = run(&args.iter().map(String::as_str).collect::<Vec<_>>());
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {e}");
        assert!(
            e.contains(&format!(
                "{mtm}: stale compiled model: its source {hif} with signature "
            )),
            "{args:?}: {e}"
        );
        assert!(
            e.contains(&format!("`multitrace compile {hif} -o {mtm}`")),
            "{args:?}: {e}"
        );
        assert!(e.contains("--allow-stale"), "{args:?}: {e}");
        assert!(o.stdout.is_empty(), "{args:?}: {}", stdout(&o));
    }
    assert!(!d.join("nfa.dot").exists() && !d.join("clt1.json").exists());
    // --allow-stale: the model's own verdicts, with a note; --source still compares exactly.
    let trace = "fixtures/seed004-mqtt/traces/example1.htf";
    let o = run(&["check", &mtm, trace, "--allow-stale"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("example1.htf: Pass"), "{}", stdout(&o));
    assert!(
        stderr(&o).contains(&format!("note: {mtm}: used as it is (--allow-stale)")),
        "{}",
        stderr(&o)
    );
    let o = run(&["check", &mtm, trace, "--allow-stale", "--source", &hif]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    // Rebuilt with the printed command: accepted again.
    let o = run(&["compile", &hif, "-o", &mtm]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run(&["check", &mtm, trace]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn model_options_with_a_compiled_model_are_usage_errors_and_defaults_stay_documented() {
    let mtm = "fixtures/golden/seed004-mqtt.v1.mtm";
    let trace = "fixtures/seed004-mqtt/traces/example1.htf";
    for (option, value) in [
        ("--locations", "clt1,brok"),
        ("--random-locations", "2"),
        ("--signature", "fixtures/seed004-mqtt/signature.hsf"),
        ("--state-cap", "1"),
        ("--dfa-cap", "1"),
        ("--area-cap-mb", "1"),
    ] {
        let o = run(&["check", mtm, trace, option, value]);
        assert_eq!(o.status.code(), Some(2), "{option}: {}", stderr(&o));
        let e = stderr(&o);
        assert!(
            e.starts_with(&format!(
                "multitrace: {option}: does not apply to the compiled model {mtm} (its locations"
            )),
            "{e}"
        );
        assert!(e.contains("multitrace compile SOURCE"), "{e}");
        assert!(o.stdout.is_empty());
    }
    // The caps still apply to a source model, and --help still says their defaults.
    let o = run(&[
        "check",
        "fixtures/seed004-mqtt/model.hif",
        trace,
        "--state-cap",
        "2",
        "--format",
        "jsonl",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("exceeds the state cap of 2 states"),
        "{}",
        stderr(&o)
    );
    assert!(
        stdout(&o).contains("\"procedure\":\"term\""),
        "{}",
        stdout(&o)
    );
    let help = stdout(&run(&["check", "--help"]));
    for default in ["[default: 200000]", "[default: 256]", "--allow-stale"] {
        assert!(help.contains(default), "{default}: {help}");
    }
}

#[test]
fn draw_to_standard_output_writes_only_graphviz() {
    let d = scratch("draw-stdout");
    let o = bin()
        .current_dir(&d)
        .args([
            "draw",
            root()
                .join("fixtures/seed004-mqtt/model.hif")
                .to_str()
                .unwrap(),
            "--dfa",
            "brok",
            "-o",
            "-",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let dot = stdout(&o);
    assert!(
        dot.starts_with("digraph dfa {\n") && dot.ends_with("}\n"),
        "{dot}"
    );
    assert!(dot.contains("brok?begin / area"), "{dot}");
    assert!(!stderr(&o).contains("wrote"), "{}", stderr(&o));
    let left: Vec<_> = std::fs::read_dir(&d).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
    let _ = std::fs::remove_dir_all(&d);
}

/// Masks the timings of a summary line (`total 194 µs, median 13.0 µs`).
fn mask_times(line: &str) -> String {
    match (line.find("; total "), line.find(", median ")) {
        (Some(a), Some(b)) if b > a => {
            let rest = &line[b + ", median ".len()..];
            let end = rest.find(';').unwrap_or(rest.len());
            format!("{}; total T, median T{}", &line[..a], &rest[end..])
        }
        _ => line.to_string(),
    }
}

#[test]
fn readme_example_is_what_the_command_prints() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let start = readme.find("Example output (exit status 1").unwrap();
    let block: Vec<String> = readme[start..]
        .lines()
        .skip_while(|l| !l.starts_with("    "))
        .take_while(|l| l.starts_with("    "))
        .map(|l| mask_times(&l[4..]))
        .collect();
    let o = run(&[
        "check",
        "fixtures/seed004-mqtt/model.hif",
        "fixtures/seed004-mqtt/traces/",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let printed: Vec<String> = stdout(&o).lines().map(mask_times).collect();
    assert_eq!(printed, block);
}

/// Issue 10's acceptance: example2 in complete mode is explained the same by every
/// procedure, naming the blocked action; no output says "expected nothing".
#[test]
fn every_procedure_explains_a_failure_the_same_way() {
    let mut lines = Vec::new();
    for p in ["ac", "as", "term"] {
        let o = run(&[
            "check",
            "fixtures/seed004-mqtt/model.hif",
            "fixtures/seed004-mqtt/traces/example2.htf",
            "--mode",
            "complete",
            "--procedure",
            p,
        ]);
        assert_eq!(o.status.code(), Some(1));
        lines.push(stdout(&o).lines().next().unwrap().to_string());
    }
    assert!(lines.windows(2).all(|w| w[0] == w[1]), "{lines:#?}");
    assert!(
        lines[0].contains("brok action 2 'brok?pub' is not allowed there (brok could do brok?sub)"),
        "{}",
        lines[0]
    );
    for dir in ["seed004-mqtt", "loopP", "seed001-fig1", "seed003-fig2"] {
        for p in ["auto", "term"] {
            for mode in ["complete", "prefix"] {
                let o = run(&[
                    "check",
                    &format!("fixtures/{dir}/model.hif"),
                    &format!("fixtures/{dir}/traces"),
                    "--procedure",
                    p,
                    "--mode",
                    mode,
                ]);
                let out = stdout(&o);
                assert!(!out.contains("expected nothing"), "{out}");
                assert!(!out.contains("next nothing"), "{out}");
            }
        }
    }
}

/// One record per input, in order, also for an unreadable one; the JSON record has a schema
/// version and its keys in a fixed order.
#[test]
fn an_unreadable_input_gets_an_error_record_in_order() {
    let d = scratch("error-record");
    for f in ["example1.htf", "example2.htf"] {
        std::fs::copy(
            root().join("fixtures/seed004-mqtt/traces").join(f),
            d.join(f),
        )
        .unwrap();
    }
    std::fs::write(d.join("example10.htf"), "{ [clt1] clt1!begin.clt1!nope }").unwrap();
    let o = run(&[
        "check",
        "fixtures/seed004-mqtt/model.hif",
        d.to_str().unwrap(),
        "--format",
        "jsonl",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let out = stdout(&o);
    let recs: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let names: Vec<&str> = recs
        .iter()
        .map(|r| r["trace"].as_str().unwrap().rsplit('/').next().unwrap())
        .collect();
    // Natural order: example10 after example2.
    assert_eq!(names, ["example1.htf", "example2.htf", "example10.htf"]);
    assert_eq!(recs[2]["verdict"], "Error");
    assert_eq!(recs[2]["error"]["line"], 1);
    assert!(recs[2]["error"]["column"].as_u64().unwrap() > 1);
    assert!(stderr(&o).contains("example10.htf:1:"), "{}", stderr(&o));
    let keys: Vec<&str> = out
        .lines()
        .next()
        .unwrap()
        .split("\":")
        .map(|k| k.rsplit('"').next().unwrap())
        .collect();
    assert_eq!(
        keys[..14],
        [
            "schema",
            "trace",
            "id",
            "verdict",
            "procedure",
            "reason",
            "explanation",
            "local_error",
            "diagnosis",
            "budget",
            "error",
            "witness",
            "vertices",
            "time_us"
        ]
    );
    assert_eq!(
        recs[1]["diagnosis"]["consumed"],
        serde_json::json!({"clt1": 3, "brok": 1, "clt2": 1})
    );
    assert_eq!(recs[1]["diagnosis"]["blocked"][0]["found"], "brok?pub");
    // The summary counts it.
    let o = run(&[
        "check",
        "fixtures/seed004-mqtt/model.hif",
        d.to_str().unwrap(),
    ]);
    assert!(
        stdout(&o).contains("3 multitraces: 1 Pass, 1 Fail (1 CentralError), 1 Error;"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn quiet_expect_and_color() {
    let d = scratch("expect");
    let tsv = d.join("expected.tsv");
    std::fs::write(
        &tsv,
        format!(
            "{r}/fixtures/seed004-mqtt/traces/example1.htf\tPass\n{r}/fixtures/seed004-mqtt/traces/example2.htf\tFail\tCentralError\n",
            r = root().display()
        ),
    )
    .unwrap();
    let args = |extra: &[&str]| {
        let mut a = vec![
            "check".to_string(),
            "fixtures/seed004-mqtt/model.hif".into(),
            "fixtures/seed004-mqtt/traces/example1.htf".into(),
            "fixtures/seed004-mqtt/traces/example2.htf".into(),
        ];
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    let run_s = |a: Vec<String>| bin().current_dir(root()).args(a).output().unwrap();
    // Every row matches: the exit status is the verdicts' (1: a Fail).
    let o = run_s(args(&[
        "--expect",
        tsv.to_str().unwrap(),
        "--mode",
        "complete",
    ]));
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(!stderr(&o).contains("MISMATCH"), "{}", stderr(&o));
    assert!(stderr(&o).contains("0 mismatches"), "{}", stderr(&o));
    // A wrong expectation is reported.
    std::fs::write(
        &tsv,
        format!(
            "{}/fixtures/seed004-mqtt/traces/example1.htf\tFail\n",
            root().display()
        ),
    )
    .unwrap();
    let o = run_s(args(&[
        "--expect",
        tsv.to_str().unwrap(),
        "--quiet",
        "--color",
        "always",
    ]));
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("MISMATCH"), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(!out.contains("example1.htf"), "--quiet hides passes: {out}");
    assert!(out.contains("\x1b[31mFail\x1b[0m"), "{out}");
    // NO_COLOR and pipes: no escapes.
    let o = bin()
        .current_dir(root())
        .args(args(&[]))
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(!stdout(&o).contains('\x1b'));
    // --jobs 0 is a usage error.
    let o = run_s(args(&["--jobs", "0"]));
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--jobs 0"), "{}", stderr(&o));
}

/// A summary is trusted only as far as its trace: an altered area is refused, not used.
#[test]
fn central_refuses_a_summary_whose_area_does_not_match_its_trace() {
    let d = scratch("tampered");
    let model = "fixtures/seed004-fig3/model.timbuk";
    let trace = "fixtures/seed004-fig3/traces/pass.mtf";
    let mut files = Vec::new();
    for l in ["l1", "l2", "l3"] {
        let out = d.join(format!("{l}.json"));
        let o = run(&[
            "local",
            model,
            "--location",
            l,
            trace,
            "-o",
            out.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        files.push(out);
    }
    let args = |files: &[PathBuf]| {
        let mut a = vec!["central".to_string(), model.to_string()];
        a.extend(files.iter().map(|f| f.display().to_string()));
        a
    };
    let o = bin()
        .current_dir(root())
        .args(args(&files))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // Clear every bit of l2's area but keep the summary well formed.
    let text = std::fs::read_to_string(&files[1]).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let area = v["area"].as_str().unwrap();
    let zero: String = area
        .chars()
        .map(|c| if c.is_ascii_hexdigit() { '0' } else { c })
        .collect();
    std::fs::write(&files[1], text.replace(area, &zero)).unwrap();
    let o = bin()
        .current_dir(root())
        .args(args(&files))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(
        stderr(&o).contains("l2.json") && stderr(&o).contains("altered"),
        "{}",
        stderr(&o)
    );
}

// ------------------------------------------------------------ partition (seed 002, issue 13)

/// `multitrace partition`: seed 002's examples, exit statuses, JSON, the counterexample files
/// re-checked by `check` with the command printed, and `--check-local`.
mod partition_cli {
    use super::*;

    const PINGPONG: &str = "fixtures/seed002-pingpong/model.hif";
    const EXAMPLE3: &str = "fixtures/seed002-example3/model.hif";

    fn json(o: &Output) -> serde_json::Value {
        serde_json::from_str(&stdout(o)).unwrap_or_else(|e| panic!("{e}: {}", stdout(o)))
    }

    fn names(v: &serde_json::Value) -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap().to_string())
            .collect()
    }

    #[test]
    fn ping_pong_reports_b_with_c_and_refutes_seed002_other_groupings() {
        let o = run(&["partition", PINGPONG, "--mode", "complete"]);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        let out = stdout(&o);
        for want in [
            "partition [A] [B] [C] [D] (default: one location per lifeline)",
            "counterexample (4 actions, shortest): A!ping.C!pong.B?ping.D?pong",
            "as a multitrace: [A] A!ping; [B] B?ping; [C] C!pong; [D] D?pong",
            "the multitrace itself is Pass (another interleaving is accepted): only the global order shows the violation",
            "(b) central step: not needed (proven: every local language is finite",
            "fixtures/seed002-pingpong/model.hif:7:2: strict, connectedness for sequence: `ping` (A->B) then `pong` (C->D) involve no common agent: one of A,B with one of C,D",
            "fixtures/seed002-pingpong/model.hif:7:2: strict, sequence: B?ping",
            "finest faithful partitions (question (a), complete mode):\n    [A] [B,C] [D]\n",
            "searched all 15 partitions of 4 locations",
            "seed 002 derives (finest partitions satisfying its conditions): [A,C] [B] [D] | [A] [B,C] [D] | [A,D] [B] [C] | [A] [B,D] [C]",
            "    [A,C] [B] [D]: not faithful: A!ping.C!pong.B?ping.D?pong (as a multitrace: [A,C] A!ping.C!pong; [B] B?ping; [D] D?pong) passes every local verifier and A rejects it (re-checked)",
            "    [A] [B,C] [D]: faithful (one of the finest)",
            "our static conditions predict: [A] [B,C] [D] (confirmed)",
        ] {
            assert!(out.contains(want), "missing {want:?} in\n{out}");
        }
        // The grouping found is faithful in both modes, for both questions.
        for mode in ["complete", "prefix"] {
            for q in ["a", "b"] {
                let o = run(&[
                    "partition",
                    PINGPONG,
                    "--locations",
                    "A;B,C;D",
                    "--mode",
                    mode,
                    "--question",
                    q,
                    "--no-search",
                ]);
                assert_eq!(o.status.code(), Some(0), "{mode} {q}: {}", stdout(&o));
                assert!(stdout(&o).contains("(a) global traces: faithful"));
            }
        }
        // (b) holds for one location per lifeline: --question b exits 0.
        let o = run(&["partition", PINGPONG, "--question", "b", "--no-search"]);
        assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    }

    /// Every counterexample file is re-checked by the command printed with it.
    #[test]
    fn example3_counterexample_files_are_rechecked_by_check() {
        let dir = scratch("partition-files");
        for mode in ["complete", "prefix"] {
            let out = dir.join(mode);
            let o = run(&[
                "partition",
                EXAMPLE3,
                "--mode",
                mode,
                "--format",
                "json",
                "-o",
                out.to_str().unwrap(),
            ]);
            assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
            let v = json(&o);
            assert_eq!(v["exit"], 1);
            assert_eq!(v["a"]["status"], "counterexample");
            assert_eq!(v["b"]["status"], "counterexample");
            assert_eq!(v["a"]["counterexample"]["recheck"]["locals_accept"], true);
            assert_eq!(v["a"]["counterexample"]["recheck"]["global_ac"], "Fail");
            // Seed 002's groupings: [A,C] [B,D] is faithful, [A,D] [B,C] is refuted.
            let derived = v["seed002"]["derived"].as_array().unwrap();
            assert_eq!(derived.len(), 2);
            assert_eq!(names(&derived[0]["partition"]), ["A,C", "B,D"]);
            assert_eq!(derived[0]["status"], "faithful");
            assert_eq!(names(&derived[1]["partition"]), ["A,D", "B,C"]);
            assert_eq!(derived[1]["status"], "counterexample");
            assert_eq!(names(&derived[1]["counterexample"]), ["A!msg1", "C!msg2"]);
            let finest: Vec<Vec<String>> = v["search"]["finest_faithful"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| names(&f["partition"]))
                .collect();
            let want: Vec<&[&str]> = if mode == "complete" {
                vec![&["A,C", "B,D"]]
            } else {
                vec![&["A,C", "B", "D"]]
            };
            assert_eq!(finest, want);
            // Run every command printed, as a user would, and compare with its expectation.
            let files = v["files"].as_array().unwrap();
            assert_eq!(files.len(), 3);
            for f in files {
                let cmd = f["command"].as_str().unwrap();
                let cmd = cmd.strip_prefix("multitrace ").unwrap();
                let o = Command::new("sh")
                    .current_dir(root())
                    .arg("-c")
                    .arg(format!(
                        "'{}' {cmd} --format jsonl",
                        env!("CARGO_BIN_EXE_multitrace")
                    ))
                    .output()
                    .unwrap();
                let r: serde_json::Value = serde_json::from_str(stdout(&o).trim())
                    .unwrap_or_else(|e| panic!("{cmd}: {e}: {}{}", stdout(&o), stderr(&o)));
                let path = f["path"].as_str().unwrap();
                assert_eq!(r["verdict"], "Fail", "{cmd}");
                if path.ends_with("a-global.htf") {
                    assert_eq!(r["procedure"], "ac", "{cmd}");
                } else {
                    assert_eq!(r["procedure"], "as", "{cmd}");
                    assert_ne!(r["reason"], "LocalError", "{cmd}");
                }
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn timbuk_models_and_exit_statuses() {
        // A raw automaton with a Systems block: no causality, a plain inclusion.
        let o = run(&[
            "partition",
            "fixtures/seed004-fig3/model.timbuk",
            "--mode",
            "complete",
            "--format",
            "json",
        ]);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        let v = json(&o);
        assert_eq!(v["causality"].as_array().unwrap().len(), 0);
        assert_eq!(v["a"]["counterexample"]["shortest"], "overall");
        assert_eq!(
            v["a"]["counterexample"]["recheck"]["multitrace_term"],
            serde_json::Value::Null
        );
        // ... or with --locations (groups of letters).
        let o = run(&[
            "partition",
            "fixtures/seed004-fig3/model.timbuk",
            "--locations",
            "a,e,c,d;b",
            "--no-search",
            "--format",
            "json",
        ]);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        let v = json(&o);
        assert_eq!(names(&v["partition"]), ["a,e,c,d", "b"]);
        assert_eq!(names(&v["a"]["counterexample"]["global_trace"]), ["d"]);
        assert_eq!(
            v["a"]["counterexample"]["recheck"]["multitrace_as"],
            "WeakPass"
        );
        // Undecided within the bounds: exit 3 ((b) is proven here, which does not settle (a)).
        let o = run(&[
            "partition",
            PINGPONG,
            "--mode",
            "complete",
            "--max-states",
            "3",
            "--no-search",
        ]);
        assert_eq!(o.status.code(), Some(3), "{}", stdout(&o));
        assert!(
            stdout(&o).contains(
                "(a) global traces: undecided: the search reached its 3 states (--max-states)"
            ),
            "{}",
            stdout(&o)
        );
        // A global language that is not regular: (a) searched up to --max-length, each global
        // trace decided by term exploration; none found: undecided, with the reason.
        let dir = scratch("partition-weak");
        let hif = dir.join("w.hif");
        std::fs::write(&hif, "loopW(a -- m -> b)").unwrap();
        let o = run(&["partition", hif.to_str().unwrap(), "--max-length", "6"]);
        assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
        let out = stdout(&o);
        assert!(
            out.contains("global traces: not regular (loopW over 2 lifelines"),
            "{out}"
        );
        assert!(out.contains("(a) global traces: undecided: no counterexample among every causal global trace of at most 6 actions passing the local verifiers"), "{out}");
        assert!(
            out.contains("finest faithful partitions: not searched"),
            "{out}"
        );
        // ... and found: the counterexample and its files, re-checked by term exploration.
        std::fs::write(&hif, "alt(loopW(a -- m -> b), c -- n -> d)").unwrap();
        let files = dir.join("files");
        let o = run(&[
            "partition",
            hif.to_str().unwrap(),
            "--format",
            "json",
            "-o",
            files.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        let v = json(&o);
        assert_eq!(v["global_automaton"]["regular"], false);
        assert_eq!(
            names(&v["a"]["counterexample"]["global_trace"]),
            ["a!m", "c!n"]
        );
        assert_eq!(v["a"]["counterexample"]["recheck"]["global_ac"], "Fail");
        let cmd = v["files"][0]["command"].as_str().unwrap();
        assert!(cmd.contains("--procedure term"), "{cmd}");
        let o = Command::new("sh")
            .current_dir(root())
            .arg("-c")
            .arg(format!(
                "'{}' {}",
                env!("CARGO_BIN_EXE_multitrace"),
                cmd.strip_prefix("multitrace ").unwrap()
            ))
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1), "{cmd}: {}", stdout(&o));
        assert!(stdout(&o).contains("a-global.htf: Fail"), "{}", stdout(&o));
        // Usage errors: a compiled model, an unknown lifeline.
        let mtm = dir.join("m.mtm");
        let o = run(&["compile", PINGPONG, "-o", mtm.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let o = run(&["partition", mtm.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2));
        assert!(
            stderr(&o).contains("needs the source model"),
            "{}",
            stderr(&o)
        );
        let o = run(&["partition", PINGPONG, "--locations", "A;E"]);
        assert_eq!(o.status.code(), Some(2));
        assert!(
            stderr(&o).contains("unknown lifeline `E`"),
            "{}",
            stderr(&o)
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Only the local verifiers: a verdict only where it is never a guess.
    #[test]
    fn check_local_gives_verdicts_only_where_proven() {
        let traces = "fixtures/seed002-pingpong/traces";
        // One location per lifeline, complete mode: (b) is proven (finite local languages).
        let o = run(&[
            "partition",
            PINGPONG,
            "--mode",
            "complete",
            "--no-search",
            "--check-local",
            "fixtures/seed002-pingpong/traces/accepted.htf",
            "fixtures/seed002-pingpong/traces/pong_only.htf",
        ]);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        let out = stdout(&o);
        assert!(out.contains("accepted.htf: Pass (every local check passes, and the central step is proven unnecessary for [A] [B] [C] [D] in complete mode)"), "{out}");
        assert!(out.contains("pong_only.htf: Fail (LocalError: A's trace cannot end after action 0: A's local verifier allows A!ping there)"), "{out}");
        // Prefix mode: WeakPass where (b) is proven in prefix mode.
        let o = run(&[
            "partition",
            PINGPONG,
            "--no-search",
            "--check-local",
            "fixtures/seed002-pingpong/traces/pong_only.htf",
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert!(
            stdout(&o).contains("pong_only.htf: WeakPass"),
            "{}",
            stdout(&o)
        );
        // Multitraces given with other locations than the partition's: an input error.
        let o = run(&[
            "partition",
            PINGPONG,
            "--no-search",
            "--check-local",
            traces,
        ]);
        assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
        assert!(
            stderr(&o).contains("give the multitrace with the locations [A] [B] [C] [D]"),
            "{}",
            stderr(&o)
        );
        // Example 3, prefix mode, one location per lifeline: (b) has a counterexample, so a
        // multitrace passing every local check is undecided (exit 3), and a LocalError fails.
        let dir = scratch("partition-local");
        std::fs::write(dir.join("ok.htf"), "{ [A] A!msg1; [B] B?msg1; [C]; [D] }").unwrap();
        let o = run(&[
            "partition",
            EXAMPLE3,
            "--no-search",
            "--check-local",
            dir.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
        assert!(stdout(&o).contains("ok.htf: Inconclusive (every local check passes, but the central step is not proven unnecessary"), "{}", stdout(&o));
        // With A and C together (the finest faithful partition in prefix mode): a multi-prefix,
        // proven, but whether it is accepted is not (B and D apart are not faithful in complete
        // mode).
        std::fs::write(dir.join("ok.htf"), "{ [A,C] A!msg1; [B] B?msg1; [D] }").unwrap();
        let o = run(&[
            "partition",
            EXAMPLE3,
            "--locations",
            "A,C",
            "--no-search",
            "--check-local",
            dir.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(3), "{}{}", stdout(&o), stderr(&o));
        assert!(stdout(&o).contains("ok.htf: Inconclusive (a multi-prefix of an accepted multitrace (proven for [A,C] [B] [D] in prefix mode); whether it is accepted needs the central step)"), "{}", stdout(&o));
        // With [A,C] [B,D], faithful in both modes: Pass, and WeakPass for a multi-prefix.
        std::fs::write(dir.join("ok.htf"), "{ [A,C] A!msg1; [B,D] B?msg1 }").unwrap();
        std::fs::write(dir.join("sent.htf"), "{ [A,C] A!msg1; [B,D] }").unwrap();
        let o = run(&[
            "partition",
            EXAMPLE3,
            "--locations",
            "A,C;B,D",
            "--no-search",
            "--check-local",
            dir.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
        assert!(stdout(&o).contains("ok.htf: Pass"), "{}", stdout(&o));
        assert!(stdout(&o).contains("sent.htf: WeakPass"), "{}", stdout(&o));
        assert!(
            stdout(&o).contains("2 multitraces: 1 Pass, 1 WeakPass, 0 Fail, 0 Inconclusive"),
            "{}",
            stdout(&o)
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// `check --events`: event logs (JSON Lines and CSV, runs split across files, events in
/// shuffled order) give the verdicts of the same runs written as multitraces; bad events give
/// their run an Error record naming FILE:LINE.
#[test]
fn check_events_gives_the_verdicts_of_the_same_multitraces() {
    let dir = scratch("events");
    for (model, kinds) in [
        (
            "fixtures/seed004-mqtt/model.hif",
            &[
                "pass",
                "local-error",
                "inter-error",
                "prefix",
                "noise",
                "swap-actions",
            ][..],
        ),
        (
            "fixtures/seed004-fig3/model.timbuk",
            &["pass", "noise", "swap-components"][..],
        ),
    ] {
        let model = root().join(model);
        let model = model.to_str().unwrap();
        let mut multitraces = Vec::new();
        for (i, kind) in kinds.iter().enumerate() {
            let out = dir.join(format!("gen-{i}"));
            let _ = std::fs::remove_dir_all(&out);
            let o = run(&[
                "gen",
                model,
                "--kind",
                kind,
                "--count",
                "40",
                "--length",
                "0..12",
                "--seed",
                "7",
                "--format",
                "jsonl",
                "-o",
                out.to_str().unwrap(),
            ]);
            assert!(o.status.success(), "{}", stderr(&o));
            let text = std::fs::read_to_string(out.join(format!("{kind}.jsonl"))).unwrap();
            for line in text.lines() {
                let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
                let total: usize = v["traces"]
                    .as_object()
                    .unwrap()
                    .values()
                    .map(|t| t.as_array().unwrap().len())
                    .sum();
                if total > 0 {
                    v["id"] = format!("{kind}-{}", multitraces.len()).into();
                    multitraces.push(v);
                }
            }
        }
        let mts: String = multitraces.iter().map(|v| format!("{v}\n")).collect();
        std::fs::write(dir.join("all.jsonl"), mts).unwrap();
        // Events: JSON Lines for even runs, CSV (other field names) for odd ones; each run's
        // events split between two files, in reverse order, runs interleaved.
        let mut events: Vec<(String, String, usize, bool)> = Vec::new();
        for (n, v) in multitraces.iter().enumerate() {
            let id = v["id"].as_str().unwrap().to_string();
            for t in v["traces"].as_object().unwrap().values() {
                for (i, a) in t.as_array().unwrap().iter().enumerate() {
                    events.push((
                        id.clone(),
                        a.as_str().unwrap().to_string(),
                        i * 10,
                        n % 2 == 0,
                    ));
                }
            }
        }
        events.reverse();
        let (mut j1, mut j2, mut c) = (
            String::new(),
            String::new(),
            String::from("ts,act,session\n"),
        );
        for (k, (id, a, o, json)) in events.iter().enumerate() {
            if *json {
                let line = format!(
                    "{}\n",
                    serde_json::json!({"session": id, "act": a, "ts": o})
                );
                if k % 2 == 0 {
                    j1.push_str(&line)
                } else {
                    j2.push_str(&line)
                }
            } else {
                c.push_str(&format!("{o},\"{a}\",{id}\n"));
            }
        }
        for (name, text) in [("e1.jsonl", &j1), ("e2.jsonl", &j2), ("e.csv", &c)] {
            std::fs::write(dir.join(name), text).unwrap();
        }
        let by_id = |o: &Output| -> std::collections::BTreeMap<String, (String, String)> {
            stdout(o)
                .lines()
                .map(|l| {
                    let v: serde_json::Value = serde_json::from_str(l).unwrap();
                    (
                        v["id"].as_str().unwrap().to_string(),
                        (v["verdict"].to_string(), v["reason"].to_string()),
                    )
                })
                .collect()
        };
        let expected = run(&[
            "check",
            model,
            dir.join("all.jsonl").to_str().unwrap(),
            "--format",
            "jsonl",
        ]);
        let got = run(&[
            "check",
            model,
            "--format",
            "jsonl",
            "--run-field",
            "session",
            "--action-field",
            "act",
            "--order-field",
            "ts",
            "--events",
            dir.join("e1.jsonl").to_str().unwrap(),
            dir.join("e.csv").to_str().unwrap(),
            dir.join("e2.jsonl").to_str().unwrap(),
        ]);
        assert_eq!(
            got.status.code(),
            expected.status.code(),
            "{}",
            stderr(&got)
        );
        let (e, g) = (by_id(&expected), by_id(&got));
        assert_eq!(e.len(), multitraces.len());
        assert_eq!(e, g, "{model}");
    }
    // Bad events: unknown action, missing field, unparsable order key; each names FILE:LINE
    // and its run gets an Error record (exit 2); the good run is still checked.
    let bad = dir.join("bad.jsonl");
    std::fs::write(
        &bad,
        "{\"run\":\"ok\",\"action\":\"clt1!begin\",\"order\":1}\n\
         {\"run\":\"a\",\"action\":\"clt1!nope\",\"order\":1}\n\
         {\"run\":\"b\",\"order\":1}\n\
         {\"run\":\"c\",\"action\":\"clt1!begin\",\"order\":\"later\"}\n",
    )
    .unwrap();
    let model = root().join("fixtures/seed004-mqtt/model.hif");
    let o = run(&[
        "check",
        model.to_str().unwrap(),
        "--events",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    let out = stdout(&o);
    assert!(out.contains("ok: WeakPass"), "{out}");
    for (run_id, line, what) in [
        ("a", 2, "unknown action"),
        ("b", 3, "missing field \"action\""),
        ("c", 4, "order key"),
    ] {
        assert!(out.contains(&format!("{run_id}: Error")), "{out}");
        assert!(
            stderr(&o).contains(&format!("bad.jsonl:{line}: bad event of run \"{run_id}\"")),
            "{}",
            stderr(&o)
        );
        assert!(stderr(&o).contains(what), "{}", stderr(&o));
    }
    let _ = std::fs::remove_dir_all(&dir);
}
