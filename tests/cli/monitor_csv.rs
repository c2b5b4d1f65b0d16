//! `monitor` on CSV events (a header row, then one event per line): the same records as on
//! the same events in JSON Lines, from a file and from standard input; a header without a
//! needed column is one located Error.

use super::monitor::{events, runs};
use super::*;
use std::io::Write;

const MODEL: &str = "fixtures/seed004-mqtt/model.hif";

/// The records by run id, with what must not depend on the format (the verdict, its reason
/// and diagnosis, the event count, the deciding event's line and order key); `shift`: lines
/// before the first event (a header row).
fn by_run(text: &str, shift: i64) -> Vec<(String, serde_json::Value)> {
    let mut out: Vec<(String, serde_json::Value)> = text
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let line = v["monitor"]["at"]
                .as_str()
                .and_then(|a| a.rsplit_once(':'))
                .map(|(_, n)| n.parse::<i64>().unwrap() - shift);
            let kept = serde_json::json!({
                "verdict": v["verdict"],
                "reason": v["reason"],
                "diagnosis": v["diagnosis"],
                "events": v["monitor"]["events"],
                "order": v["monitor"]["order"],
                "closed": v["monitor"]["closed"],
                "line": line,
            });
            (v["id"].as_str().unwrap().to_string(), kept)
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

#[test]
fn csv_events_get_the_records_of_the_same_json_events() {
    let dir = scratch("monitor-csv");
    let runs = runs(&dir, 20);
    let evs = events(&runs, 5);
    let (mut jsonl, mut csv) = (String::new(), String::new());
    // Columns in another order than JSON's fields, an extra one, quoting where CSV needs it.
    csv.push_str("order,note,run,action\n");
    for (i, (run, action, order)) in evs.iter().enumerate() {
        jsonl.push_str(&format!(
            "{{\"run\":\"{run}\",\"action\":\"{action}\",\"order\":{order}}}\n"
        ));
        let note = if i % 7 == 0 {
            "\"a, \"\"quoted\"\" note\""
        } else {
            ""
        };
        csv.push_str(&format!("{order},{note},{run},\"{action}\"\n"));
    }
    std::fs::write(dir.join("ev.jsonl"), &jsonl).unwrap();
    std::fs::write(dir.join("ev.csv"), &csv).unwrap();
    let monitor = |source: &str, extra: &[&str]| {
        let mut args = vec!["monitor", MODEL, source, "--no-follow", "--format", "jsonl"];
        args.extend_from_slice(extra);
        run(&args)
    };
    let j = monitor(dir.join("ev.jsonl").to_str().unwrap(), &[]);
    let c = monitor(dir.join("ev.csv").to_str().unwrap(), &[]);
    assert_eq!(j.status.code(), c.status.code(), "{}", stderr(&c));
    let want = by_run(&stdout(&j), 0);
    assert_eq!(want.len(), runs.len(), "one record per run");
    assert!(
        want.iter().any(|(_, v)| v["verdict"] == "Fail"),
        "some runs fail"
    );
    assert_eq!(by_run(&stdout(&c), 1), want);

    // Standard input, said to be CSV.
    let mut child = bin()
        .current_dir(root())
        .args([
            "monitor",
            MODEL,
            "-",
            "--events-format",
            "csv",
            "--format",
            "jsonl",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(csv.as_bytes())
        .unwrap();
    let s = child.wait_with_output().unwrap();
    assert_eq!(s.status.code(), j.status.code(), "{}", stderr(&s));
    assert_eq!(by_run(&stdout(&s), 1), want);
}

#[test]
fn a_csv_header_without_the_run_column_is_one_located_error() {
    let dir = scratch("monitor-csv-header");
    let path = dir.join("ev.csv");
    std::fs::write(
        &path,
        "session,action,order\ns1,clt1!begin,0\ns1,clt1!pub,1\n",
    )
    .unwrap();
    let o = run(&[
        "monitor",
        MODEL,
        path.to_str().unwrap(),
        "--no-follow",
        "--format",
        "jsonl",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 1, "{out}");
    let v: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(v["verdict"], "Error");
    let msg = v["error"]["message"].as_str().unwrap();
    assert!(msg.contains("run") && msg.contains("session"), "{msg}");
    assert_eq!(v["error"]["line"], 1);
}
