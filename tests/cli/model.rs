//! Models on the command line: `compile`, `inspect`, `draw`, compiled models (corrupted,
//! compared with their source, stale), model options that cannot apply.

use super::*;

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
    let mtm = "fixtures/golden/seed004-mqtt.v2.mtm";
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

/// Issue 22 point 6: the header's SHA-256 is the sources' and the locations', compilation is
/// deterministic, and a model forged under a matching header (and a valid checksum) passes the
/// header check but not `verify`.
#[test]
fn a_forged_model_with_a_matching_header_hash_is_caught_by_verify() {
    use multitrace_model::artifact::{decode, encode, source_hash};
    use multitrace_model::model::ModelKind;
    use multitrace_model::nfa::Nfa;
    let d = scratch("forged");
    let hif = d.join("m.hif");
    std::fs::copy(root().join("fixtures/seed004-mqtt/model.hif"), &hif).unwrap();
    std::fs::copy(
        root().join("fixtures/seed004-mqtt/signature.hsf"),
        d.join("signature.hsf"),
    )
    .unwrap();
    let (a, b) = (d.join("a.mtm"), d.join("b.mtm"));
    for out in [&a, &b] {
        let o = run(&[
            "compile",
            hif.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    // Two compilations give the same bytes but for the compile time they record.
    let zeroed = |p: &Path| {
        let mut m = decode(&std::fs::read(p).unwrap()).unwrap();
        m.stats.compile_time_us = 0;
        encode(&m)
    };
    assert!(zeroed(&a) == zeroed(&b), "two compilations differ");
    let bytes = std::fs::read(&a).unwrap();
    assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()), 2);
    // The header holds SHA-256(len-prefixed: SHA-256(interaction text, signature text), the
    // locations), recomputed here from the files.
    let text = std::fs::read(&hif).unwrap();
    let sig = std::fs::read(d.join("signature.hsf")).unwrap();
    let inner = source_hash(&[&text, &sig]);
    let expected = source_hash(&[&inner.0, b"clt1;brok;clt2"]);
    assert_eq!(&bytes[16..48], &expected.0, "header hash");
    // Forge: every NFA state accepting, under the same header hash and a valid checksum.
    let mut m = decode(&bytes).unwrap();
    let ModelKind::Automata(aut) = &mut m.kind else {
        panic!("the MQTT fixture compiles to automata")
    };
    let nfa = &aut.nfa;
    aut.nfa = Nfa::new(
        nfa.states() as u32,
        nfa.initial().to_vec(),
        vec![true; nfa.states()],
        nfa.transitions().to_vec(),
        m.alphabet.len(),
    )
    .unwrap();
    let forged = encode(&m);
    assert_eq!(&forged[16..48], &bytes[16..48]);
    std::fs::write(&a, &forged).unwrap();
    // The header check lets it through (it guards against accidents, not forgery) ...
    let trace = root().join("fixtures/seed004-mqtt/traces/example1.htf");
    let o = run(&["check", a.to_str().unwrap(), trace.to_str().unwrap()]);
    assert!(!stderr(&o).contains("stale"), "{}", stderr(&o));
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
    // ... and `verify`, which compiles the source again, catches it.
    let o = run(&["verify", a.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("differs from what"), "{}", stdout(&o));
    let o = run(&["verify", b.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
}
