//! Every output path is checked writable before any work (issue 22 point 4, issue 23 point
//! 9): a path in a missing directory, an existing directory, or a place where nothing can be
//! created gives exit 2 and a message naming the path and the option, before the model or a
//! trace is read (here both are missing, so reading either would give another message).

use super::*;

#[test]
fn unwritable_outputs_are_refused_before_the_model_or_traces_are_read() {
    let d = scratch("outputs");
    let missing_dir = d.join("no/such/dir/out.x");
    let slash = format!("{}/", d.join("new").display());
    let dir = d.to_str().unwrap().to_string();
    let mut outputs = vec![
        (missing_dir.display().to_string(), "does not exist"),
        (dir.clone(), "is a directory"),
        (slash, "is a directory"),
    ];
    if cfg!(target_os = "linux") {
        // Nothing can be created in /proc, not even by root.
        outputs.push((
            "/proc/multitrace-out.x".into(),
            "no file can be created in /proc",
        ));
    }
    let model = d.join("absent-model.hif").display().to_string();
    let trace = d.join("absent-trace.htf").display().to_string();
    for (out, why) in &outputs {
        let commands: [(Vec<&str>, &str); 5] = [
            (vec!["check", &model, &trace, "--report", out], "--report"),
            (vec!["compile", &model, "-o", out], "-o"),
            (vec!["draw", &model, "--nfa", "-o", out], "-o"),
            (vec!["draw", &model, "--diagram", "-o", out], "-o"),
            (
                vec!["local", &model, "--location", "l", &trace, "-o", out],
                "-o",
            ),
        ];
        for (args, option) in commands {
            let o = run(&args);
            let e = stderr(&o);
            assert_eq!(o.status.code(), Some(2), "{args:?}: {e}");
            assert!(
                e.starts_with(&format!(
                    "multitrace: {out}: cannot write the output of {option}: "
                )),
                "{args:?}: {e}"
            );
            assert!(e.contains(why), "{args:?}: {e}");
            assert!(!e.contains("absent-"), "read an input first: {args:?}: {e}");
            assert!(o.stdout.is_empty(), "{args:?}");
        }
    }
    // Nothing was created: no probe file, no directory.
    let left: Vec<_> = std::fs::read_dir(&*d).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn a_writable_output_is_left_as_it_was_by_the_check() {
    // An existing output stays untouched when the command then fails on its input.
    let d = scratch("outputs-ok");
    let out = d.join("m.mtm");
    std::fs::write(&out, "previous").unwrap();
    let o = run(&[
        "compile",
        d.join("absent.hif").to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("absent.hif"), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "previous");
    assert_eq!(std::fs::read_dir(&*d).unwrap().count(), 1);
}

/// `monitor`: `--output` checked first and never one of its sources (records appended to a
/// followed source would be read again as events), `--state` a directory it can write.
#[test]
fn monitor_outputs_are_checked_before_the_model_is_read() {
    let d = scratch("monitor-outputs");
    let model = d.join("absent-model.hif").display().to_string();
    let events = d.join("events.jsonl");
    std::fs::write(&events, "").unwrap();
    let ev = events.display().to_string();
    let missing = d.join("no/such/out.jsonl").display().to_string();
    let file = d.join("a-file");
    std::fs::write(&file, "x").unwrap();
    let file_text = file.display().to_string();
    let out = d.join("out.jsonl").display().to_string();
    let cases: [(Vec<&str>, &str); 3] = [
        (vec!["-o", &missing], "does not exist"),
        (vec!["-o", &ev], "refusing to write over an input"),
        (vec!["-o", &out, "--state", &file_text], "this is a file"),
    ];
    for (extra, why) in cases {
        let mut args = vec!["monitor", &model, &ev, "--no-follow"];
        args.extend(extra.iter().copied());
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        let e = stderr(&o);
        assert!(e.contains(why), "{args:?}: {e}");
        assert!(!e.contains("absent-model"), "the model is not read: {e}");
    }
    assert_eq!(std::fs::read_to_string(&events).unwrap(), "");
}
