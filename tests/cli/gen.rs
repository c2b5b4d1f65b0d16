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
        // A terminal that draws (a bar is not drawn where TERM is unset or dumb).
        .env("TERM", "xterm")
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
    // The library's progress reports: a bar with the count of the total.
    assert!(shown.contains("/3000 multitraces"), "{shown}");
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
    // Nothing of a bar at all: notes and one line, no carriage return, no escape sequence.
    let e = stderr(&o);
    let said: Vec<&str> = e
        .lines()
        .filter(|l| !l.starts_with("multitrace: note:"))
        .collect();
    assert_eq!(said.len(), 1, "{e}");
    assert!(
        said[0].starts_with("multitrace: wrote 3 `pass` multitraces"),
        "{e}"
    );
    assert!(!e.contains('\r') && !e.contains('\x1b'), "{e:?}");
}

/// A Timbuk automaton of `n` states over six letters on three locations: from each state one
/// transition to the next state and one further on, so every state lies on many cycles.
fn large_timbuk(n: usize) -> String {
    let letters = ["a", "b", "c", "d", "e", "f"];
    let mut t = String::from("Ops a:1 b:1 c:1 d:1 e:1 f:1 x:0\n\nAutomaton Large\nStates");
    for i in 0..n {
        t.push_str(&format!(" q{i}"));
    }
    t.push_str("\nFinal States q0\nTransitions\nx -> q0\n");
    for i in 0..n {
        let (j, k) = ((i + 1) % n, (i * 7 + 3) % n);
        t.push_str(&format!("{}(q{i}) -> q{j}\n", letters[i % 6]));
        t.push_str(&format!("{}(q{i}) -> q{k}\n", letters[(i + 3) % 6]));
    }
    t.push_str("Systems\n    [l1] a b\n    [l2] c d\n    [l3] e f\n");
    t
}

/// Issue 22 point 5: `gen` is bounded in time. On a 20,000-state automaton asked for more
/// multitraces than it can make in a second, `--timeout 1` stops it with status 3 and a
/// message naming the option, long before an unbounded run would end (it writes nothing
/// without --allow-fewer, and with it what was produced).
#[test]
fn gen_stops_at_its_time_limit_naming_the_option() {
    let dir = scratch("gen-timeout");
    let model = dir.join("large.timbuk");
    std::fs::write(&model, large_timbuk(20_000)).unwrap();
    let out = dir.join("set");
    let args = |extra: &[&str]| {
        let mut a = vec![
            "gen",
            model.to_str().unwrap(),
            "--kind",
            "central-error",
            "--count",
            "1000000",
            "-o",
            out.to_str().unwrap(),
            "--timeout",
            "1",
        ];
        a.extend_from_slice(extra);
        a.into_iter().map(String::from).collect::<Vec<_>>()
    };
    let start = std::time::Instant::now();
    let o = bin().current_dir(root()).args(args(&[])).output().unwrap();
    let took = start.elapsed();
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("time limit of 1 s reached"), "{e}");
    assert!(e.contains("raise --timeout"), "{e}");
    assert!(!out.exists(), "nothing is written without --allow-fewer");
    // Generous: loading the model and stopping are not free on a loaded machine, but an
    // unbounded run asks for a million multitraces.
    assert!(took.as_secs() < 60, "{took:?}");
    // With --allow-fewer, what was produced within the time is written (when anything was).
    let o = bin()
        .current_dir(root())
        .args(args(&["--allow-fewer"]))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    if !stderr(&o).contains(": 0 of 1000000") {
        assert!(out.join("manifest.tsv").is_file(), "{}", stderr(&o));
    }
}

/// Issue 23 point 9: the output directory is checked before any work: a file, or a directory
/// that cannot be created, is refused at once (status 2), naming the path and the option.
#[test]
fn gen_refuses_an_unwritable_output_before_any_work() {
    let dir = scratch("gen-unwritable");
    let file = dir.join("a-file");
    std::fs::write(&file, "x").unwrap();
    for (out, says) in [
        (
            file.clone(),
            "--output names an output directory, but this is a file",
        ),
        (file.join("sub"), "is not a directory"),
    ] {
        let o = run(&[
            "gen",
            "fixtures/seed004-mqtt/model.hif",
            "--kind",
            "pass",
            "--count",
            "3",
            "-o",
            out.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        let e = stderr(&o);
        assert!(e.contains(&out.display().to_string()), "{e}");
        assert!(e.contains(says), "{e}");
        assert!(e.contains("--output"), "{e}");
    }
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "x");
}

/// Issue 23 point 6: `compare` on a directory without a manifest reads what `check` reads
/// (its directory walk): subdirectories, and a note naming the files of other extensions,
/// which are not read, and a compressed file (`.gz`, `.zst`), read as the plain one.
#[test]
fn compare_reads_a_directory_as_check_does() {
    let dir = scratch("compare-walk");
    let set = dir.join("set");
    let model = "fixtures/seed004-fig3/model.timbuk";
    let o = run(&[
        "gen",
        model,
        "--kind",
        "pass",
        "--count",
        "6",
        "--length",
        "6..30",
        "-o",
        set.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    std::fs::remove_file(set.join("manifest.tsv")).unwrap();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&set)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert_eq!(files.len(), 6);
    // Two in nested subdirectories, and a file of another extension.
    std::fs::create_dir_all(set.join("sub/deeper")).unwrap();
    std::fs::rename(
        &files[0],
        set.join("sub").join(files[0].file_name().unwrap()),
    )
    .unwrap();
    std::fs::rename(
        &files[1],
        set.join("sub/deeper").join(files[1].file_name().unwrap()),
    )
    .unwrap();
    std::fs::write(set.join("README.txt"), "not a multitrace").unwrap();
    for (i, ext) in [(2, "gz"), (3, "zst")] {
        let plain = std::fs::read(&files[i]).unwrap();
        let packed = if ext == "gz" {
            use std::io::Write;
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            e.write_all(&plain).unwrap();
            e.finish().unwrap()
        } else {
            zstd::stream::encode_all(&plain[..], 3).unwrap()
        };
        let mut name = files[i].clone().into_os_string();
        name.push(format!(".{ext}"));
        std::fs::write(&name, packed).unwrap();
        std::fs::remove_file(&files[i]).unwrap();
    }
    let o = run(&[
        "compare",
        model,
        set.to_str().unwrap(),
        "--runs",
        "1",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let rows: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let counted: u64 = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["count"].as_u64().unwrap())
        .sum();
    assert_eq!(counted, 6, "{rows}");
    let e = stderr(&o);
    assert!(e.contains("1 file skipped (README.txt)"), "{e}");
    // `check` reads the same six.
    let o = run(&["check", model, set.to_str().unwrap()]);
    assert!(stdout(&o).contains("6 multitraces"), "{}", stdout(&o));
}
