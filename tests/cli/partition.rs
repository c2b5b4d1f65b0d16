//! `multitrace partition`: seed 002's examples, exit statuses, JSON, the counterexample files
//! re-checked by `check` with the command printed, and `--check-local`.

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

/// Issue 23, point 24: where (b) is proven, `check` may still report a CentralError (and a
/// WeakPass where `--check-local` says Inconclusive) on a multitrace with a reception whose
/// emission is missing; `partition` says why in one sentence.
#[test]
fn partition_says_why_check_differs_on_causally_impossible_multitraces() {
    let d = scratch("causality");
    // [A,C] [B] [D] is faithful for example 3 in prefix mode; both receptions, no emission.
    let recv = d.join("receptions_only.htf");
    std::fs::write(&recv, "{ [A,C] ; [B] B?msg1 ; [D] D?msg2 }\n").unwrap();
    let recv = recv.to_str().unwrap();
    let locations = ["--locations", "A,C;B;D"];
    let o = run(&[&["check", EXAMPLE3, recv][..], &locations].concat());
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stdout(&o).contains("Fail (CentralError)"), "{}", stdout(&o));
    let o = run(&[
        &["partition", EXAMPLE3, "--no-search", "--check-local", recv][..],
        &locations,
    ]
    .concat());
    let out = stdout(&o);
    assert!(out.contains("(b) central step: not needed"), "{out}");
    let sentence = out
        .lines()
        .find(|l| l.contains("why `check` may differ"))
        .unwrap_or_else(|| panic!("no sentence in\n{out}"));
    for part in [
        "assume causality",
        "CentralError",
        "WeakPass",
        "Inconclusive",
    ] {
        assert!(sentence.contains(part), "{part}: {sentence}");
    }
    assert!(out.contains(&format!("{recv}: Inconclusive")), "{out}");
    // Ping-pong, one location per lifeline, prefix mode: B received a ping nobody sent.
    let ping = d.join("reception_only.htf");
    std::fs::write(&ping, "{ [A] ; [B] B?ping ; [C] ; [D] }\n").unwrap();
    let ping = ping.to_str().unwrap();
    let o = run(&["check", PINGPONG, ping]);
    assert!(stdout(&o).contains("WeakPass"), "{}", stdout(&o));
    let o = run(&["partition", PINGPONG, "--no-search", "--check-local", ping]);
    let out = stdout(&o);
    assert!(out.contains(&format!("{ping}: Inconclusive")), "{out}");
    // Where (b) is not proven nothing is claimed, and no sentence is needed.
    let o = run(&["partition", EXAMPLE3, "--no-search"]);
    let out = stdout(&o);
    assert!(out.contains("(b) central step: needed"), "{out}");
    assert!(!out.contains("why `check` may differ"), "{out}");
}

/// Issue 23, points 5 and 6 for `--check-local`: `check`'s walk, so compressed multitraces are
/// read and the files that are not are named.
#[test]
fn check_local_reads_compressed_files_and_names_skipped_ones() {
    let d = scratch("check-local-walk");
    let traces = root().join("fixtures/seed002-example3/traces");
    std::fs::copy(traces.join("msg1.htf"), d.join("msg1.htf")).unwrap();
    let both = std::fs::read(traces.join("both_sent.htf")).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut gz, &both).unwrap();
    std::fs::write(d.join("both_sent.htf.gz"), gz.finish().unwrap()).unwrap();
    std::fs::write(d.join("README.txt"), "not a multitrace\n").unwrap();
    std::fs::write(d.join("runs.jsonl"), "{}\n").unwrap();
    let dir = d.to_str().unwrap();
    let o = run(&["partition", EXAMPLE3, "--no-search", "--check-local", dir]);
    let (out, err) = (stdout(&o), stderr(&o));
    assert!(out.contains("both_sent.htf.gz: "), "{out}{err}");
    assert!(out.contains("2 multitraces: "), "{out}");
    assert!(err.contains("1 file skipped (README.txt)"), "{err}");
    assert!(err.contains("1 JSON Lines file(s) skipped"), "{err}");
}

/// `par(a0 -- m -> b0, ..., a{n-1} -- m -> b{n-1})`: `n` independent messages over `2n`
/// lifelines (issue 22's reproduction has `n = 11`); the global automaton has `3^n` states.
fn par_messages(n: usize) -> String {
    let parts: Vec<String> = (0..n).map(|i| format!("  a{i} -- m -> b{i}")).collect();
    format!("par(\n{}\n)\n", parts.join(",\n"))
}

/// Runs `multitrace` in the repository under an address-space limit of `mb` MiB (`prlimit`,
/// util-linux), so that an allocation past the limit fails instead of succeeding; `None`
/// when `prlimit` is missing (the caller says the test is skipped).
fn run_limited(mb: u64, args: &[&str]) -> Option<Output> {
    if Command::new("prlimit").arg("--version").output().is_err() {
        return None;
    }
    Some(
        Command::new("prlimit")
            .arg(format!("--as={}", mb << 20))
            .arg("--")
            .arg(env!("CARGO_BIN_EXE_multitrace"))
            .args(args)
            .current_dir(root())
            .output()
            .unwrap(),
    )
}

/// Issue 22 point 1: `partition` accounts the memory of its searches (the product's states,
/// the determinized global automaton, kept sparse) and stops with an undecided answer naming
/// `--max-memory` and the limit, instead of growing until the process aborts. The same
/// question without the limit is decided (faithful), so the limit is what left it undecided.
#[test]
fn partition_stops_at_its_memory_limit_naming_the_option() {
    let dir = scratch("partition-memory");
    let model = dir.join("par8.hif");
    std::fs::write(&model, par_messages(8)).unwrap();
    let m = model.to_str().unwrap();
    let common = [
        "partition",
        m,
        "--no-search",
        "--max-multitraces",
        "0",
        "--samples",
        "0",
    ];
    let Some(o) = run_limited(2048, &[&common[..], &["--max-memory", "1"]].concat()) else {
        eprintln!("skipped: no `prlimit` (util-linux)");
        return;
    };
    assert_eq!(o.status.code(), Some(3), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains(
            "(a) global traces: undecided: the search reached its memory limit of 1 MiB (--max-memory 1; 0: none)"
        ),
        "{out}"
    );
    let json = run_limited(
        2048,
        &[&common[..], &["--max-memory", "1", "--format", "json"]].concat(),
    )
    .unwrap();
    assert_eq!(json.status.code(), Some(3), "{}", stderr(&json));
    assert!(
        stdout(&json).contains("--max-memory 1"),
        "{}",
        stdout(&json)
    );
    let o = run_limited(2048, &common).unwrap();
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).contains("(a) global traces: faithful"),
        "{}",
        stdout(&o)
    );
}

/// Issue 23 point 9: `-o DIR` is checked before the analysis: a file is refused at once
/// (status 2), naming the path and the option, and left as it was.
#[test]
fn partition_refuses_an_unwritable_output_before_any_work() {
    let dir = scratch("partition-unwritable");
    let file = dir.join("a-file");
    std::fs::write(&file, "x").unwrap();
    for out in [file.clone(), file.join("sub")] {
        let o = run(&["partition", PINGPONG, "-o", out.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        let e = stderr(&o);
        assert!(e.contains(&out.display().to_string()), "{e}");
        assert!(e.contains("--output"), "{e}");
        assert!(
            stdout(&o).is_empty(),
            "no analysis is printed: {}",
            stdout(&o)
        );
    }
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "x");
}

/// Issue 23 point 12: off a terminal, `partition` writes no progress bar on standard error:
/// only its notes.
#[test]
fn partition_shows_no_progress_off_a_terminal() {
    let o = run(&["partition", PINGPONG, "--mode", "complete"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.lines().all(|l| l.starts_with("multitrace: note:")),
        "{e:?}"
    );
    assert!(!e.contains('\r') && !e.contains('\x1b'), "{e:?}");
}

/// Issue 22 point 1: `partition --timeout` bounds the whole command. On par10 (22 s to 90 s
/// without a limit on the 2-core machine: the one-location model exceeds the area cap, so (a)
/// enumerates global traces and (b) checks multitraces by AC) a limit of 2 s gives an undecided
/// answer (exit 3) naming the option, well before the unbounded run would end, within the
/// memory limit; a small model still gets its definite answer under the same limit.
#[test]
fn partition_stops_at_its_time_limit_naming_the_option() {
    let dir = scratch("partition-timeout");
    let model = dir.join("par10.hif");
    std::fs::write(&model, par_messages(10)).unwrap();
    let m = model.to_str().unwrap();
    let start = std::time::Instant::now();
    let Some(o) = run_limited(2048, &["partition", m, "--timeout", "2"]) else {
        eprintln!("skipped: no `prlimit` (util-linux)");
        return;
    };
    let took = start.elapsed();
    assert_eq!(o.status.code(), Some(3), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("time limit of 2 s reached while searching (b) (--timeout 2; 0: none)"),
        "{out}"
    );
    assert!(!out.contains("faithful:"), "{out}");
    // Compiling the model is not interrupted (about 3 s here): a generous guard, far below
    // the unbounded run.
    assert!(took.as_secs() < 40, "took {took:?}");

    let small = dir.join("par2.hif");
    std::fs::write(&small, par_messages(2)).unwrap();
    let o = run_limited(
        2048,
        &["partition", small.to_str().unwrap(), "--timeout", "2"],
    )
    .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).contains("(a) global traces: faithful"),
        "{}",
        stdout(&o)
    );
    let bad = run_limited(
        2048,
        &["partition", small.to_str().unwrap(), "--timeout=-1"],
    )
    .unwrap();
    assert_eq!(bad.status.code(), Some(2), "{}", stderr(&bad));
    assert!(
        stderr(&bad).contains("--timeout -1: give a number of seconds"),
        "{}",
        stderr(&bad)
    );
}
