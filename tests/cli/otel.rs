//! `check --otel` (and `monitor --otel`) on span files with a line that cannot be read
//! (issue 50): every other line is read, every run the line touched gets an `Error` naming
//! it, and no run gets a verdict from data known to be incomplete.

use super::{root, run, scratch, stderr, stdout};
use std::collections::BTreeMap;
use std::path::Path;

const MODEL: &str = "examples/checkout/README.md";
const SPANS: &str = "tests/cli/otel-checkout/spans.jsonl";
/// The trace whose spans are on line 7 of [`thirteen_lines`] (and on other lines).
const ON_LINE_7: &str = "252cee2522fdc06c78a06eba8f887ced";

/// The checkout spans as 13 requests (the Collector writes one per export): each service's
/// spans in requests of 2 (checkout, payment) or 1 (queue).
fn thirteen_lines() -> Vec<String> {
    let text = std::fs::read_to_string(root().join(SPANS)).unwrap();
    let mut lines = Vec::new();
    for (n, l) in text.lines().enumerate() {
        let req: serde_json::Value = serde_json::from_str(l).unwrap();
        let rs = &req["resourceSpans"][0];
        let spans = rs["scopeSpans"][0]["spans"].as_array().unwrap();
        for chunk in spans.chunks(if n == 2 { 1 } else { 2 }) {
            let mut one = rs.clone();
            one["scopeSpans"][0]["spans"] = serde_json::Value::Array(chunk.to_vec());
            lines.push(serde_json::json!({ "resourceSpans": [one] }).to_string());
        }
    }
    assert_eq!(lines.len(), 13);
    lines
}

/// The records of `check --otel FILE` (JSON Lines) by run id (`""`: records without one),
/// and the exit status.
fn check(cmd: &str, file: &Path) -> (BTreeMap<String, Vec<serde_json::Value>>, Option<i32>) {
    let f = file.to_str().unwrap();
    let o = match cmd {
        "check" => run(&[
            "check",
            MODEL,
            "--otel",
            f,
            "--format",
            "jsonl",
            "--no-progress",
        ]),
        _ => run(&[
            "monitor",
            MODEL,
            "--otel",
            f,
            "--no-follow",
            "--format",
            "jsonl",
        ]),
    };
    let mut out: BTreeMap<String, Vec<serde_json::Value>> = BTreeMap::new();
    for l in stdout(&o).lines() {
        let r: serde_json::Value = serde_json::from_str(l).unwrap();
        out.entry(r["id"].as_str().unwrap_or("").to_string())
            .or_default()
            .push(r);
    }
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
    (out, o.status.code())
}

fn write(dir: &Path, name: &str, lines: &[String]) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, lines.join("\n") + "\n").unwrap();
    p
}

/// Every run of `good` has exactly one record in `got`, and there is one record without a
/// run (the line's), naming `file:7`.
fn one_record_per_run(
    good: &BTreeMap<String, Vec<serde_json::Value>>,
    got: &BTreeMap<String, Vec<serde_json::Value>>,
    file: &Path,
) {
    for id in good.keys() {
        assert_eq!(got.get(id).map(Vec::len), Some(1), "run {id}: {got:?}");
    }
    let line = &got[""];
    assert_eq!(line.len(), 1, "{line:?}");
    assert_eq!(line[0]["verdict"], "Error");
    assert_eq!(line[0]["error"]["file"], file.to_str().unwrap());
    assert_eq!(line[0]["error"]["line"], 7);
    let msg = line[0]["error"]["message"].as_str().unwrap();
    assert!(msg.starts_with(&format!("{}:7:", file.display())), "{msg}");
}

/// The file: 13 lines, line 7 cut short. Today: one Error for the file, the runs of
/// lines 8-13 without a record, and the others judged on part of their spans. Now: every
/// line but the 7th is read; the run it names gets an Error naming it; and since the part cut
/// off may hold spans of any trace, no run gets a verdict.
#[test]
fn a_cut_line_leaves_no_verdict_on_incomplete_spans() {
    let dir = scratch("otel-cut");
    let mut lines = thirteen_lines();
    let good = write(&dir, "spans.jsonl", &lines);
    // Cut after the first span's trace id, within the second's.
    let l7 = &lines[6];
    let second = l7.match_indices("\"traceId\"").nth(1).unwrap().0;
    lines[6] = l7[..second + 20].to_string();
    let cut = write(&dir, "spans-cut.jsonl", &lines);
    let (good, _) = check("check", &good);
    assert_eq!(good.len(), 6, "{good:?}");
    for cmd in ["check", "monitor"] {
        let (got, status) = check(cmd, &cut);
        assert_eq!(status, Some(2), "{cmd}");
        one_record_per_run(&good, &got, &cut);
        for (id, recs) in &got {
            let r = &recs[0];
            // The monitor writes a Fail as soon as the lines before show it: decided on input
            // read whole up to there, it stands.
            let before = r["monitor"]["at"]
                .as_str()
                .and_then(|at| at.split(':').nth(1))
                .and_then(|l| l.parse::<u32>().ok())
                .is_some_and(|l| l < 7);
            if cmd == "monitor" && r["verdict"] == "Fail" && before {
                continue;
            }
            assert_eq!(r["verdict"], "Error", "{cmd}: run {id}: {r}");
            // The refund trace keeps the Error of its span the model lacks (on line 3).
            let msg = r["error"]["message"].as_str().unwrap();
            assert!(
                msg.starts_with(&format!("{}:7", cut.display())) || msg.contains("unknown action"),
                "{cmd}: run {id}: {msg}"
            );
        }
        let named = got[ON_LINE_7][0]["error"]["message"].as_str().unwrap();
        assert!(named.contains("its line cannot be read"), "{cmd}: {named}");
    }
}

/// A line that is JSON but not a request (a span kind written as text) names every trace it
/// holds: those get an Error naming it, and every other run gets the verdict it gets from the
/// file without that line.
#[test]
fn a_json_line_that_is_not_a_request_fails_only_its_runs() {
    let dir = scratch("otel-json");
    let mut lines = thirteen_lines();
    let mut without = lines.clone();
    without.remove(6);
    let without = write(&dir, "spans-without.jsonl", &without);
    lines[6] = lines[6].replacen("\"kind\":", "\"kind\":\"oops\",\"was\":", 1);
    let bad = write(&dir, "spans-bad.jsonl", &lines);
    let (reference, _) = check("check", &without);
    let (all, _) = check("check", &write(&dir, "spans.jsonl", &thirteen_lines()));
    for cmd in ["check", "monitor"] {
        let (got, status) = check(cmd, &bad);
        assert_eq!(status, Some(2), "{cmd}");
        one_record_per_run(&all, &got, &bad);
        let named = &got[ON_LINE_7][0];
        assert_eq!(named["verdict"], "Error", "{cmd}: {named}");
        assert_eq!(named["error"]["line"], 7, "{cmd}: {named}");
        for (id, recs) in got
            .iter()
            .filter(|(id, _)| !id.is_empty() && *id != ON_LINE_7)
        {
            let (r, e) = (&recs[0], &reference[id][0]);
            for field in ["verdict", "reason"] {
                assert_eq!(r[field], e[field], "{cmd}: run {id}, {field}: {r}\n{e}");
            }
        }
    }
}
