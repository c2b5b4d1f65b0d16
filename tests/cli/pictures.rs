//! The pictures on the command line: `draw --diagram` (sequence diagrams in SVG) and
//! `check --report FILE.html` (the HTML report of a batch).

use super::*;
use std::process::Stdio;

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn draw_diagram_writes_the_golden_svg_to_a_file_or_to_standard_output() {
    let d = scratch("draw-diagram");
    let out = d.join("mqtt.svg");
    let o = run(&[
        "draw",
        "fixtures/seed004-mqtt/model.hif",
        "--diagram",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let golden =
        std::fs::read_to_string(root().join("fixtures/golden/diagrams/seed004-mqtt.svg")).unwrap();
    assert_eq!(std::fs::read_to_string(&out).unwrap(), golden);
    assert!(text(&o.stderr).contains("wrote"));
    // `-o -`: the SVG alone on standard output.
    let o = run(&[
        "draw",
        "fixtures/seed004-mqtt/model.hif",
        "--diagram",
        "-o",
        "-",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), golden);
    // Graphviz to standard output is unchanged.
    let o = run(&[
        "draw",
        "fixtures/seed004-mqtt/model.hif",
        "--nfa",
        "-o",
        "-",
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert!(text(&o.stdout).starts_with("digraph nfa {"));
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn compiled_models_draw_the_interaction_they_keep_term_only_ones_too() {
    let d = scratch("mtm");
    for (flag, name) in [("--term-only", "t.mtm"), ("--automata", "a.mtm")] {
        let mtm = d.join(name);
        let o = run(&[
            "compile",
            "fixtures/seed004-mqtt/model.hif",
            flag,
            "-o",
            mtm.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        let o = run(&["draw", mtm.to_str().unwrap(), "--diagram", "-o", "-"]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        let golden =
            std::fs::read_to_string(root().join("fixtures/golden/diagrams/seed004-mqtt.svg"))
                .unwrap();
        // The same picture; only the title names the compiled model.
        let strip = |s: &str| {
            s.lines()
                .filter(|l| !l.starts_with("<title>"))
                .collect::<Vec<_>>()
                .join("\n")
        };
        assert_eq!(strip(&text(&o.stdout)), strip(&golden), "{flag}");
    }
    // A term-only model has no automata to draw with --nfa, and says so.
    let o = run(&[
        "draw",
        d.join("t.mtm").to_str().unwrap(),
        "--nfa",
        "-o",
        "-",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("term-only"));
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn draw_diagram_refuses_raw_automata_and_other_kinds_of_drawing() {
    let o = run(&[
        "draw",
        "fixtures/seed004-fig3/model.timbuk",
        "--diagram",
        "-o",
        "-",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("raw automaton, not an interaction"),
        "{}",
        text(&o.stderr)
    );
    assert!(o.stdout.is_empty());
    for other in [&["--nfa"][..], &["--dfa", "brok"][..]] {
        let mut args = vec![
            "draw",
            "fixtures/seed004-mqtt/model.hif",
            "--diagram",
            "-o",
            "-",
        ];
        args.extend_from_slice(other);
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{other:?}");
        assert!(
            text(&o.stderr).contains("cannot be used with"),
            "{}",
            text(&o.stderr)
        );
    }
    // One of the three is needed.
    let o = run(&["draw", "fixtures/seed004-mqtt/model.hif", "-o", "-"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn check_report_writes_a_page_and_leaves_the_output_as_it_was() {
    let d = scratch("report");
    let page = d.join("mqtt.html");
    let args = [
        "check",
        "fixtures/seed004-mqtt/model.hif",
        "fixtures/seed004-mqtt/traces/",
        "--format",
        "jsonl",
        "--jobs",
        "2",
    ];
    let plain = run(&args);
    let mut with = args.to_vec();
    with.extend(["--report", page.to_str().unwrap()]);
    let o = run(&with);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    // The same records (times aside).
    let verdicts = |o: &Output| -> Vec<(String, String)> {
        text(&o.stdout)
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                (
                    v["trace"].as_str().unwrap().to_string(),
                    v["explanation"].to_string(),
                )
            })
            .collect()
    };
    assert_eq!(verdicts(&o), verdicts(&plain));
    assert!(text(&o.stderr).contains(&format!(
        "wrote the report {} (10 multitraces, 4 of 4 failures in full",
        page.display()
    )));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.contains("<span id=\"mt-total\" data-count=\"10\">10 multitraces</span>"));
    assert!(html.contains("data-verdict=\"Fail\"><td><span class=\"badge v-Fail\">Fail</span></td><td class=\"n\">4</td>"));
    // The options used, and example2's blocked action.
    assert!(
        html.contains("<dt>mode</dt><dd>prefix</dd>") && html.contains("<dt>jobs</dt><dd>2</dd>")
    );
    let at = html
        .find("data-trace=\"fixtures/seed004-mqtt/traces/example2.htf\"")
        .unwrap();
    let article = &html[at..at + html[at..].find("</article>").unwrap()];
    assert!(
        article.contains("<span class=\"act blocked\" data-position=\"2\""),
        "{article}"
    );
    // No temporary file is left beside it.
    let left: Vec<_> = std::fs::read_dir(&d)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left.len(), 1, "{left:?}");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_report_of_standard_input_draws_the_failures_from_their_diagnosis() {
    let d = scratch("stdin");
    let page = d.join("stdin.html");
    let mut child = Command::new(env!("CARGO_BIN_EXE_multitrace"))
        .current_dir(root())
        .args([
            "check",
            "fixtures/seed004-mqtt/model.hif",
            "-",
            "--report",
            page.to_str().unwrap(),
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"{\"id\": \"bad\", \"traces\": {\"clt1\": [\"clt1!begin\"], \"brok\": [\"brok?pub\"]}}\n")
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("could not be read again"));
    assert!(html.contains("class=\"act blocked\" data-position=\"1\""));
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn an_unwritable_report_is_refused_before_anything_is_checked() {
    let o = run(&[
        "check",
        "fixtures/seed004-mqtt/model.hif",
        "fixtures/seed004-mqtt/traces/",
        "--report",
        "/nonexistent-dir/r.html",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("/nonexistent-dir/r.html: cannot write the output of --report"),
        "{}",
        text(&o.stderr)
    );
    assert!(o.stdout.is_empty());
}

/// Issue 23 point 9: `--report DIR/` or an existing directory used to fail only after the
/// whole check; it is refused before any multitrace is checked.
#[test]
fn a_report_path_naming_a_directory_is_refused_before_the_check() {
    let d = scratch("report-dir");
    let slash = format!("{}/", d.join("new").display());
    for path in [d.to_str().unwrap(), slash.as_str()] {
        let o = run(&[
            "check",
            "fixtures/seed004-mqtt/model.hif",
            "fixtures/seed004-mqtt/traces/",
            "--report",
            path,
        ]);
        assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
        assert!(
            text(&o.stderr).contains("is a directory; --report names the HTML file"),
            "{}",
            text(&o.stderr)
        );
        assert!(
            o.stdout.is_empty(),
            "checked before refusing: {}",
            text(&o.stdout)
        );
    }
    assert_eq!(
        std::fs::read_dir(&*d).unwrap().count(),
        0,
        "nothing left behind"
    );
}

/// Issue 22: a batch interrupted by SIGINT while its report is written leaves no temporary
/// file (nor a report), its standard output holds whole records only, and it exits 130.
#[test]
fn an_interrupted_report_leaves_no_temporary_file() {
    let d = scratch("report-sigint");
    let page = d.join("r.html");
    let mut child = bin()
        .current_dir(root())
        .args([
            "check",
            "fixtures/seed004-mqtt/model.hif",
            "-",
            "--format",
            "jsonl",
        ])
        .args(["--report", page.to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    let mut stdin = child.stdin.take().unwrap();
    let line = b"{\"traces\": {\"clt1\": [\"clt1!begin\"], \"brok\": [\"brok?begin\"]}}\n";
    for _ in 0..50 {
        stdin.write_all(line).unwrap();
    }
    stdin.flush().unwrap();
    // The temporary file is there while the batch runs (unpredictable name, same directory).
    let temps = || -> Vec<String> {
        std::fs::read_dir(&*d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect()
    };
    let start = std::time::Instant::now();
    while temps().is_empty() && start.elapsed().as_secs() < 60 {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let names = temps();
    assert_eq!(names.len(), 1, "{names:?}");
    let mine = format!(".r.html.multitrace-tmp-{}-", child.id());
    assert!(names[0].starts_with(&mine), "{names:?}");
    assert_eq!(
        names[0].len(),
        mine.len() + 6,
        "an unpredictable part: {names:?}"
    );
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    // More input after the signal is handled (its handler sets the flag; a busy machine may
    // run it a while after `kill` returns, and the batch could read all the input first):
    // the batch stops at its next record.
    std::thread::sleep(std::time::Duration::from_millis(500));
    for _ in 0..50 {
        let _ = stdin.write_all(line);
    }
    drop(stdin);
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130), "{}", text(&o.stderr));
    assert_eq!(temps(), Vec::<String>::new(), "left behind");
    for l in text(&o.stdout).lines() {
        let v: serde_json::Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"));
        assert!(v["verdict"].is_string(), "{l}");
    }
}

/// Issue 22: the temporary file of a report whose run was killed with SIGKILL (no handler
/// runs) is removed by the next run for the same report, and only it: not a file of another
/// report, of a running process, or one that does not hold a report page.
#[test]
fn a_report_temporary_file_left_by_kill_9_is_removed_by_the_next_run() {
    let d = scratch("report-kill9");
    let page = d.join("r.html");
    let names = || -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(&*d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    let mut child = bin()
        .current_dir(root())
        .args(["check", "fixtures/seed004-mqtt/model.hif", "-"])
        .args(["--report", page.to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while names().is_empty() && start.elapsed().as_secs() < 60 {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let pid = child.id();
    child.kill().unwrap(); // SIGKILL
    let _ = child.wait();
    let left = names();
    assert_eq!(left.len(), 1, "{left:?}");
    assert!(
        left[0].starts_with(&format!(".r.html.multitrace-tmp-{pid}-")),
        "{left:?}"
    );
    // Files that are not this report's leftovers, all kept.
    let keep = [
        (
            format!(".r.html.multitrace-tmp-{pid}-zzzzzz"),
            "notes of a user",
        ),
        (format!(".other.html.multitrace-tmp-{pid}-abcdef"), ""),
        (
            format!(".r.html.multitrace-tmp-{}-abcdef", std::process::id()),
            "",
        ),
        (format!("r.html.multitrace-tmp-{pid}-abcdef"), ""),
    ];
    for (name, text) in &keep {
        std::fs::write(d.join(name), text).unwrap();
    }
    let o = run(&[
        "check",
        "fixtures/seed004-mqtt/model.hif",
        "fixtures/seed004-mqtt/traces/example1.htf",
        "--report",
        page.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains(&format!("removed {}", d.join(&left[0]).display())),
        "{}",
        text(&o.stderr)
    );
    let mut want: Vec<String> = keep.iter().map(|(n, _)| n.clone()).collect();
    want.push("r.html".into());
    want.sort();
    assert_eq!(names(), want);
}

/// The labels of a Graphviz text: every `label="..."`, unescaped.
fn dot_labels(dot: &str) -> Vec<String> {
    let mut out = Vec::new();
    for part in dot.split("label=\"").skip(1) {
        let mut label = String::new();
        let mut chars = part.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => label.extend(chars.next()),
                '"' => break,
                c => label.push(c),
            }
        }
        out.push(label);
    }
    out
}

/// The text of every `<text>` element of an SVG document, which must be well-formed XML
/// with an `<svg>` root.
fn svg_texts(svg: &str) -> Vec<String> {
    let doc = roxmltree::Document::parse(svg).expect("well-formed SVG");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| n.text().unwrap_or_default().to_string())
        .collect()
}

/// Issue 23, point 8: `draw` writes the format its output names, or refuses before writing.
/// Run with a PATH without Graphviz, as on a machine that has none.
#[test]
fn draw_writes_the_format_its_output_names_or_refuses_before_writing() {
    let d = scratch("draw-formats");
    let no_programs = d.join("empty-path");
    std::fs::create_dir(&no_programs).unwrap();
    let draw = |args: &[&str]| {
        bin()
            .current_dir(root())
            .env("PATH", &no_programs)
            .arg("draw")
            .arg("fixtures/seed004-mqtt/model.hif")
            .args(args)
            .output()
            .unwrap()
    };
    for which in [&["--nfa"][..], &["--dfa", "brok"][..]] {
        // The Graphviz text names every state and transition: the SVG must show each.
        let o = draw(&[which, &["-o", "-"]].concat());
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        let mut labels = dot_labels(&text(&o.stdout));
        assert!(labels.len() > 3, "{which:?}: {labels:?}");
        let svg = d.join("automaton.svg");
        let _ = std::fs::remove_file(&svg);
        let o = draw(&[which, &["-o", svg.to_str().unwrap()]].concat());
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        let written = std::fs::read_to_string(&svg).unwrap();
        assert!(
            written.starts_with("<svg"),
            "SVG, not Graphviz text: {written:.60}"
        );
        let mut texts = svg_texts(&written);
        labels.sort();
        texts.sort();
        assert_eq!(
            texts, labels,
            "{which:?}: one <text> per state and transition"
        );
        assert!(text(&o.stderr).contains("wrote"));
    }
    // Formats only an external program writes are refused up front, and nothing is written.
    let cases: [(&[&str], &str, &str); 4] = [
        (&["--nfa"], "nfa.png", "Graphviz"),
        (&["--diagram"], "diagram.png", "--diagram draws SVG"),
        (&["--pnml"], "net.svg", "--pnml writes a PNML Petri net"),
        (&["--nfa"], "nfa.txt", "cannot draw automata as .txt"),
    ];
    for (flags, name, says) in cases {
        let out = d.join(name);
        let o = draw(&[flags, &["-o", out.to_str().unwrap()]].concat());
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{name}: {err}");
        assert!(err.contains(says), "{name}: {err}");
        assert!(
            err.contains(".svg") || err.contains(".pnml"),
            "{name}: {err}"
        );
        assert!(err.contains("nothing was written"), "{name}: {err}");
        assert!(!out.exists(), "{name} must not be written");
    }
    // .dot stays Graphviz text (no .svg beside it without Graphviz).
    let dot = d.join("nfa.dot");
    let o = draw(&["--nfa", "-o", dot.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(std::fs::read_to_string(&dot)
        .unwrap()
        .starts_with("digraph nfa {"));
    assert!(!d.join("nfa.svg").exists());
}
