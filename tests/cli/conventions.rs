//! Command-line conventions: a closed pipe, short flags, one `--format` vocabulary, help
//! grouped under headings without paper references.

use super::*;
use std::process::Stdio;

/// `check ... | head`: the reader goes away; the command stops quietly, with the status of a
/// process killed by SIGPIPE, as grep does.
#[test]
fn a_closed_pipe_stops_quietly() {
    let mut child = bin()
        .current_dir(root())
        .args([
            "check",
            "fixtures/seed004-mqtt/model.hif",
            "fixtures/seed004-mqtt/traces",
            "fixtures/loopP/traces",
            "--procedure",
            "term",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Closed before the command could write anything (it is still loading the model).
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    let err = stderr(&o);
    assert!(!err.contains("Broken pipe"), "{err}");
    assert!(!err.contains("internal error"), "{err}");
    assert_eq!(o.status.code(), Some(141), "{err}");
    // Standard error into the same closed pipe (`2>&1 | head -1`): notes and error lines
    // written after the reader left must not make the command panic (status 101).
    let d = scratch("closed-stderr");
    for i in 0..300 {
        std::fs::write(d.join(format!("bad{i}.htf")), "{ [clt1] clt1!nothing }\n").unwrap();
    }
    let shell = format!(
        "'{}' check fixtures/seed004-mqtt/model.hif '{}' 2>&1 | head -1 >/dev/null; echo \"${{PIPESTATUS[0]}}\"",
        env!("CARGO_BIN_EXE_multitrace"),
        d.display()
    );
    for _ in 0..3 {
        let o = Command::new("bash")
            .current_dir(root())
            .args(["-c", &shell])
            .output()
            .unwrap();
        let status = stdout(&o).trim().to_string();
        assert!(["2", "141"].contains(&status.as_str()), "status {status}");
    }
}

#[test]
fn short_flags_are_the_long_ones() {
    let long = run(&[
        "check",
        "fixtures/seed004-mqtt/model.hif",
        "fixtures/seed004-mqtt/traces/example2.htf",
        "--mode",
        "complete",
        "--format",
        "jsonl",
        "--procedure",
        "term",
        "--jobs",
        "1",
    ]);
    let short = run(&[
        "check",
        "fixtures/seed004-mqtt/model.hif",
        "fixtures/seed004-mqtt/traces/example2.htf",
        "-m",
        "complete",
        "-f",
        "jsonl",
        "-p",
        "term",
        "-j",
        "1",
    ]);
    assert_eq!(short.status.code(), Some(1), "{}", stderr(&short));
    let verdict = |o: &Output| -> serde_json::Value {
        let mut v: serde_json::Value = serde_json::from_str(stdout(o).trim()).unwrap();
        v["time_us"] = 0.into();
        v
    };
    assert_eq!(verdict(&short), verdict(&long));
    assert_eq!(verdict(&short)["procedure"], "term");
}

/// `--format` is `text` or `json` everywhere, and `jsonl` means the same.
#[test]
fn format_takes_one_vocabulary() {
    let check = |f: &str| {
        let o = run(&[
            "check",
            "fixtures/seed004-mqtt/model.hif",
            "fixtures/seed004-mqtt/traces/example1.htf",
            "--format",
            f,
        ]);
        assert_eq!(o.status.code(), Some(0), "{f}: {}", stderr(&o));
        let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
        v["verdict"].as_str().unwrap().to_string()
    };
    assert_eq!(check("json"), "Pass");
    assert_eq!(check("jsonl"), "Pass");
    let partition = |f: &str| {
        let o = run(&[
            "partition",
            "fixtures/seed002-pingpong/model.hif",
            "--no-search",
            "--format",
            f,
        ]);
        assert_ne!(o.status.code(), Some(2), "{f}: {}", stderr(&o));
        stdout(&o)
    };
    let json = partition("json");
    serde_json::from_str::<serde_json::Value>(&json).unwrap();
    assert_eq!(partition("jsonl"), json);
    let help = stdout(&run(&["check", "-h"]));
    assert!(help.contains("[possible values: text, json]"), "{help}");
}

/// `check --help`: options under headings, the ones a user needs first; no paper jargon;
/// `-h` is the short form.
#[test]
fn help_is_grouped_and_plain() {
    let long = stdout(&run(&["check", "--help"]));
    let short = stdout(&run(&["check", "-h"]));
    let at = |text: &str, heading: &str| {
        text.find(&format!("\n{heading}:\n"))
            .unwrap_or_else(|| panic!("no heading {heading} in\n{text}"))
    };
    for text in [&long, &short] {
        let order: Vec<usize> = ["Input", "Checking", "Output", "Model", "Limits"]
            .iter()
            .map(|h| at(text, h))
            .collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}");
        assert!(text.find("--mode").unwrap() < text.find("--signature").unwrap());
        assert!(!text.to_lowercase().contains("seed 00"), "{text}");
        assert!(!text.contains("Algorithm"), "{text}");
    }
    assert!(short.lines().count() * 2 < long.lines().count());
    let top = stdout(&run(&["--help"]));
    assert!(!top.contains("seed 00"), "{top}");
}

/// On a terminal an input error is shown once (its record); with standard output elsewhere,
/// also on standard error, where scripts look. `script` gives the command a terminal.
#[test]
fn an_input_error_is_printed_once_on_a_terminal() {
    let d = scratch("tty");
    let bad = d.join("bad.htf");
    std::fs::write(&bad, "{ [clt1] clt1!nope }\n").unwrap();
    let command = format!(
        "{} check fixtures/seed004-mqtt/model.hif {} --color never",
        env!("CARGO_BIN_EXE_multitrace"),
        bad.display()
    );
    let o = Command::new("script")
        // A terminal that draws (a bar is not drawn where TERM is unset or dumb).
        .env("TERM", "xterm")
        .args(["-qec", &command, "/dev/null"])
        .current_dir(root())
        .output()
        .expect("`script` (util-linux) gives the test a terminal");
    let shown = stdout(&o);
    assert_eq!(shown.matches("nope").count(), 1, "{shown}");
    // Not on a terminal: the record, and the message on standard error.
    let o = run(&[
        "check",
        "fixtures/seed004-mqtt/model.hif",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(stdout(&o).matches("nope").count(), 1, "{}", stdout(&o));
    assert_eq!(stderr(&o).matches("nope").count(), 1, "{}", stderr(&o));
}

/// The summary gives the wall time and the CPU time (the sum over workers), labelled; the
/// central step uses the same time format.
#[test]
fn times_are_labelled_and_in_one_format() {
    let o = run(&[
        "check",
        "fixtures/seed004-mqtt/model.hif",
        "fixtures/seed004-mqtt/traces",
        "-j",
        "2",
    ]);
    let last = stdout(&o).lines().last().unwrap().to_string();
    let at = |s: &str| last.find(s).unwrap_or_else(|| panic!("no `{s}` in {last}"));
    assert!(at("; wall time ") < at(", CPU time ") && at(", CPU time ") < at(" per multitrace)"));
    assert!(!last.contains("total"), "{last}");
    let d = scratch("times");
    let t = "fixtures/seed004-fig3";
    let mut summaries = Vec::new();
    for l in ["l1", "l2", "l3"] {
        let out = d.join(format!("{l}.json"));
        let o = run(&[
            "local",
            &format!("{t}/model.timbuk"),
            "--location",
            l,
            &format!("{t}/traces/pass.mtf"),
            "-o",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        summaries.push(out.display().to_string());
    }
    let mut args = vec!["central".to_string(), format!("{t}/model.timbuk")];
    args.extend(summaries);
    let o = bin().current_dir(root()).args(&args).output().unwrap();
    let last = stdout(&o).lines().last().unwrap().to_string();
    assert!(!last.contains("0.000 s"), "{last}");
    let unit = last.rsplit(' ').next().unwrap();
    assert!(["ns", "µs", "ms", "s"].contains(&unit), "{last}");
    // `compare`'s table: the same format (a number and its unit), never bare seconds.
    let set = d.join("set");
    let o = run(&[
        "gen",
        &format!("{t}/model.timbuk"),
        "--kind",
        "pass",
        "--count",
        "3",
        "--length",
        "3..6",
        "-o",
        set.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let model = format!("{t}/model.timbuk");
    let o = run(&["compare", &model, set.to_str().unwrap(), "--runs", "1"]);
    let table = stdout(&o);
    let row = table.lines().nth(2).unwrap_or_default();
    let cells: Vec<&str> = row.split('|').map(str::trim).collect();
    assert!(table.starts_with("| model"), "{table}");
    assert!(!table.lines().next().unwrap().contains("(s)"), "{table}");
    for time in &cells[5..8] {
        let (number, unit) = time.split_once(' ').unwrap_or_else(|| panic!("{row}"));
        assert!(number.parse::<f64>().is_ok(), "{row}");
        assert!(["ns", "µs", "ms", "s"].contains(&unit), "{row}");
    }
}

/// On a terminal, the progress bar shows the count of the total, and no record lands on the
/// bar's line (each record line, once the bar's redraws are removed, starts with its name).
#[test]
fn the_progress_bar_never_collides_with_records() {
    let d = scratch("progress");
    let set = d.join("set");
    let o = run(&[
        "gen",
        "fixtures/seed004-mqtt/model.hif",
        "--kind",
        "pass",
        "--count",
        "300",
        "--length",
        "20..40",
        "-o",
        set.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let command = format!(
        "{} check fixtures/seed004-mqtt/model.hif {} -j 1 --color never -p term --no-por",
        env!("CARGO_BIN_EXE_multitrace"),
        set.display()
    );
    let o = Command::new("script")
        // A terminal that draws (a bar is not drawn where TERM is unset or dumb).
        .env("TERM", "xterm")
        .args(["-qec", &command, "/dev/null"])
        .current_dir(root())
        .output()
        .expect("`script` (util-linux) gives the test a terminal");
    let shown = stdout(&o);
    // What the terminal ends up showing on each line: the text after the last carriage
    // return, without escape sequences.
    let visible = |line: &str| {
        let last = line.rsplit('\r').find(|s| !s.is_empty()).unwrap_or("");
        let mut out = String::new();
        let mut chars = last.chars();
        while let Some(c) = chars.next() {
            if c == '\x1b' {
                for c in chars.by_ref() {
                    if c.is_ascii_alphabetic() {
                        break;
                    }
                }
            } else {
                out.push(c);
            }
        }
        out
    };
    let records: Vec<String> = shown
        .lines()
        .map(visible)
        .filter(|l| l.contains(".htf: "))
        .collect();
    assert_eq!(records.len(), 300, "{shown}");
    let prefix = set.display().to_string();
    for r in &records {
        assert!(r.starts_with(&prefix), "a record glued to the bar: {r:?}");
    }
    assert!(
        shown.contains("/300 multitraces"),
        "no bar with the total:\n{shown}"
    );
}

/// Every command's help groups its options under headings (`Options:` keeps only `--help`),
/// the command's own options before the model's (but for `partition`, whose subject is the
/// partition given with the model), with short help under `-h`; no paper
/// references (issue 23, point 19, for the commands other than `check`).
#[test]
fn every_command_groups_its_options_under_headings() {
    let commands: [(&str, &[&str]); 11] = [
        ("check", &["Input", "Checking", "Output", "Model", "Limits"]),
        ("compile", &["Compiling", "Output", "Model"]),
        ("inspect", &["Model"]),
        ("verify", &["Model"]),
        ("draw", &["Drawing", "Output", "Model"]),
        ("local", &["Input", "Checking", "Output", "Model"]),
        ("central", &["Output", "Limits", "Model"]),
        ("gen", &["Generation", "Output", "Limits", "Model"]),
        ("compare", &["Checking", "Output", "Limits", "Model"]),
        // The partition analysed (--locations) is partition's subject: its group comes first.
        ("partition", &["Model", "Analysis", "Limits", "Output"]),
        (
            "monitor",
            &["Input", "Checking", "Output", "Limits", "Model"],
        ),
    ];
    for (command, headings) in commands {
        let long = stdout(&run(&[command, "--help"]));
        let short = stdout(&run(&[command, "-h"]));
        for text in [&long, &short] {
            let at: Vec<usize> = headings
                .iter()
                .map(|h| {
                    text.find(&format!("\n{h}:\n"))
                        .unwrap_or_else(|| panic!("{command}: no heading {h} in\n{text}"))
                })
                .collect();
            assert!(
                at.windows(2).all(|w| w[0] < w[1]),
                "{command}: {headings:?}"
            );
            // Each heading once: an option whose heading is repeated splits its group.
            for h in headings {
                let n = text.matches(&format!("\n{h}:\n")).count();
                assert_eq!(n, 1, "{command}: heading {h} {n} times in\n{text}");
            }
            // The `Options:` section holds only the help flag: every option has its group.
            let options = text.split("\nOptions:\n").nth(1).unwrap_or("");
            let options = options.split("\n\n").next().unwrap_or("");
            let flags: Vec<&str> = options
                .lines()
                .filter(|l| l.trim_start().starts_with('-'))
                .collect();
            assert!(
                flags.iter().all(|l| l.contains("--help")),
                "{command}: ungrouped options {flags:?}"
            );
            // Point 17: wherever these options exist, so do their short forms.
            for (short, long) in [("-m", "--mode"), ("-f", "--format"), ("-p", "--procedure")]
                .into_iter()
                .chain([("-j", "--jobs")])
            {
                if text.contains(&format!("{long} <")) {
                    assert!(
                        text.contains(&format!("{short}, {long} <")),
                        "{command}: {long} without {short}"
                    );
                }
            }
            let lower = text.to_lowercase();
            for jargon in ["seed 0", "algorithm", "proj(", "def. "] {
                assert!(!lower.contains(jargon), "{command}: `{jargon}` in\n{text}");
            }
        }
        assert!(
            short.lines().count() <= long.lines().count(),
            "{command}: -h is the short form"
        );
    }
}

/// Subcommands are built only when used (clap's `defer`, for start-up time): each one's help
/// still starts with the line the top-level help lists for it, not with the doc comment of
/// an `Args` struct it flattens (which a deferred build would put there).
#[test]
fn every_command_help_starts_with_its_own_summary() {
    let top = stdout(&run(&["--help"]));
    let listed: Vec<(&str, &str)> = top
        .split("\nCommands:\n")
        .nth(1)
        .unwrap_or("")
        .split("\n\n")
        .next()
        .unwrap_or("")
        .lines()
        .filter_map(|l| l.trim_start().split_once(' '))
        .map(|(name, about)| (name, about.trim()))
        .filter(|(name, _)| *name != "help")
        .collect();
    assert!(listed.len() >= 11, "{top}");
    for (command, about) in listed {
        for flag in ["-h", "--help"] {
            let help = stdout(&run(&[command, flag]));
            let first = help.lines().next().unwrap_or("");
            assert_eq!(
                first.trim_end_matches('.'),
                about.trim_end_matches('.'),
                "{command} {flag}"
            );
        }
    }
}
