//! `check --events` on event logs with a line that cannot be read (issue 50): every other
//! line is read; the run the line names gets an `Error` naming it and the others keep the
//! verdicts they get without it; a line whose run cannot be read leaves no run a verdict it
//! could change. (OpenTelemetry spans: `otel.rs`.)

use super::{root, run, scratch, stderr, stdout};
use std::collections::BTreeMap;
use std::path::Path;

const PASS: [&str; 10] = [
    "clt1!begin",
    "brok?begin",
    "clt2!sub",
    "brok?sub",
    "clt1!pub",
    "brok?pub",
    "brok!pub",
    "clt2?pub",
    "clt1!end",
    "brok?end",
];

/// Three runs interleaved, one event a line: r1 and r3 whole, r2 a prefix.
fn lines() -> Vec<String> {
    let mut out = Vec::new();
    for (i, a) in PASS.iter().enumerate() {
        for run in ["r1", "r2", "r3"] {
            if run != "r2" || i < 6 {
                out.push(format!(
                    "{{\"run\": \"{run}\", \"action\": \"{a}\", \"order\": {i}}}"
                ));
            }
        }
    }
    out
}

/// Records by run id (`""`: those without one) and the exit status.
fn check(file: &Path, extra: &[&str]) -> (BTreeMap<String, Vec<serde_json::Value>>, Option<i32>) {
    let model = root().join("fixtures/seed004-mqtt/model.hif");
    let mut args = vec![
        "check",
        model.to_str().unwrap(),
        "--events",
        file.to_str().unwrap(),
        "--format",
        "jsonl",
    ];
    args.extend(extra);
    let o = run(&args);
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
    let mut out: BTreeMap<String, Vec<serde_json::Value>> = BTreeMap::new();
    for l in stdout(&o).lines() {
        let r: serde_json::Value = serde_json::from_str(l).unwrap();
        let id = r["id"].as_str().unwrap_or("").to_string();
        out.entry(id).or_default().push(r);
    }
    (out, o.status.code())
}

fn write(dir: &Path, name: &str, lines: &[String]) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, lines.join("\n") + "\n").unwrap();
    p
}

/// A line of r2 cut short (and so not JSON) names its run: r2 gets an Error naming the line,
/// r1 and r3 the verdicts of the file without it.
#[test]
fn a_cut_event_line_fails_the_run_it_names() {
    let dir = scratch("bad-line-named");
    let mut all = lines();
    let at = all.iter().position(|l| l.contains("\"r2\"")).unwrap() + 3;
    assert!(all[at].contains("\"r2\""));
    let mut without = all.clone();
    without.remove(at);
    let cut = all[at].len() - 12;
    all[at].truncate(cut);
    let bad = write(&dir, "events.jsonl", &all);
    let (reference, _) = check(&write(&dir, "without.jsonl", &without), &[]);
    let (got, status) = check(&bad, &[]);
    assert_eq!(status, Some(2));
    assert_eq!(got.len(), 3, "one record per run and none other: {got:?}");
    let r2 = &got["r2"];
    assert_eq!(r2.len(), 1);
    assert_eq!(r2[0]["verdict"], "Error");
    assert_eq!(r2[0]["error"]["line"], at + 1);
    let msg = r2[0]["error"]["message"].as_str().unwrap();
    assert!(
        msg.starts_with(&format!("{}:{}:", bad.display(), at + 1)),
        "{msg}"
    );
    for id in ["r1", "r3"] {
        assert_eq!(got[id].len(), 1);
        assert_eq!(got[id][0]["verdict"], reference[id][0]["verdict"], "{id}");
        assert_eq!(got[id][0]["verdict"], "Pass", "{id}");
    }
}

/// A line whose run cannot be read may be an event of any run: no run gets a verdict (each an
/// Error naming the line), and the line has its own record. Sorted by run, the runs before
/// the one it follows are complete and keep their verdicts.
#[test]
fn an_event_line_without_a_known_run_leaves_no_verdict_it_could_change() {
    let dir = scratch("bad-line-unknown");
    let mut all = lines();
    all.insert(7, "{\"action\": \"clt1!pub\", \"ord".into());
    let bad = write(&dir, "events.jsonl", &all);
    let (got, status) = check(&bad, &[]);
    assert_eq!(status, Some(2));
    for id in ["r1", "r2", "r3", ""] {
        let r = &got[id];
        assert_eq!(r.len(), 1, "{id}: {r:?}");
        assert_eq!(r[0]["verdict"], "Error", "{id}");
        assert_eq!(r[0]["error"]["line"], 8, "{id}: {}", r[0]);
    }
    // Sorted: r1's events, the bad line, r2's and r3's.
    let mut sorted: Vec<String> = lines();
    sorted.sort_by_key(|l| l.contains("\"r2\"") as u8 + 2 * l.contains("\"r3\"") as u8);
    let first_r2 = sorted.iter().position(|l| l.contains("\"r2\"")).unwrap();
    sorted.insert(first_r2, "not an event".into());
    let bad = write(&dir, "sorted.jsonl", &sorted);
    let (got, status) = check(&bad, &["--events-sorted"]);
    assert_eq!(status, Some(2));
    assert_eq!(
        got["r1"][0]["verdict"], "Error",
        "the line may be r1's last event"
    );
    // The line after r2's first event instead: r1 is complete.
    sorted.remove(first_r2);
    sorted.insert(first_r2 + 1, "not an event".into());
    let bad = write(&dir, "sorted2.jsonl", &sorted);
    let (got, _) = check(&bad, &["--events-sorted"]);
    assert_eq!(got["r1"][0]["verdict"], "Pass", "{got:?}");
    for id in ["r2", "r3"] {
        assert_eq!(got[id][0]["verdict"], "Error", "{id}");
        assert_eq!(got[id][0]["error"]["line"], first_r2 + 2, "{id}");
    }
}

/// The monitor on the same lines: a line whose run cannot be read gives every run open then,
/// and every run that begins after it, an Error naming it (as `check --events` does), and
/// the line its own record; a run decided before it keeps its record.
#[test]
fn the_monitor_leaves_no_verdict_a_line_without_a_run_could_change() {
    let dir = scratch("bad-line-monitor");
    let mut all = vec!["{\"run\": \"r0\", \"action\": \"clt1!end\", \"order\": 0}".to_string()];
    all.extend(lines());
    all.insert(8, "{\"action\": \"clt1!pub\", \"ord".into());
    all.push("{\"run\": \"r4\", \"action\": \"clt1!begin\", \"order\": 0}".into());
    let bad = write(&dir, "events.jsonl", &all);
    let model = root().join("fixtures/seed004-mqtt/model.hif");
    let o = run(&[
        "monitor",
        model.to_str().unwrap(),
        bad.to_str().unwrap(),
        "--no-follow",
        "--format",
        "jsonl",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let mut got: BTreeMap<String, Vec<serde_json::Value>> = BTreeMap::new();
    for l in stdout(&o).lines() {
        let r: serde_json::Value = serde_json::from_str(l).unwrap();
        got.entry(r["id"].as_str().unwrap_or("").to_string())
            .or_default()
            .push(r);
    }
    // r0's Fail came before the line: it stands.
    assert_eq!(got["r0"].len(), 1);
    assert_eq!(got["r0"][0]["verdict"], "Fail");
    for id in ["r1", "r2", "r3", "r4", ""] {
        let r = &got[id];
        assert_eq!(r.len(), 1, "{id}: {r:?}");
        assert_eq!(r[0]["verdict"], "Error", "{id}");
        assert_eq!(r[0]["error"]["line"], 9, "{id}: {}", r[0]);
    }
    let msg = got["r4"][0]["error"]["message"].as_str().unwrap();
    assert!(msg.contains("an event whose run is not known"), "{msg}");
}

/// A run closed early (evicted past `--max-live-runs`, or ended by its end action) whose
/// events keep coming: one `Error` record saying its event is late, never a new run with the
/// same id and a verdict on part of it (issue 51).
#[test]
fn a_late_event_of_a_closed_run_is_said_late_not_a_new_run() {
    let dir = scratch("late-closed");
    let ev = |run: &str, i: usize| {
        format!(
            "{{\"run\": \"{run}\", \"action\": \"{}\", \"order\": {i}}}",
            PASS[i]
        )
    };
    // a's first three events, then b's (a is evicted: at most one live run), then a's rest.
    let mut all: Vec<String> = (0..3).map(|i| ev("a", i)).collect();
    all.extend((0..PASS.len()).map(|i| ev("b", i)));
    all.extend((3..PASS.len()).map(|i| ev("a", i)));
    let file = write(&dir, "events.jsonl", &all);
    let model = root().join("fixtures/seed004-mqtt/model.hif");
    let monitor = |extra: &[&str]| {
        let mut args = vec![
            "monitor",
            model.to_str().unwrap(),
            file.to_str().unwrap(),
            "--no-follow",
            "--format",
            "jsonl",
            // (The order keys count the events of the run, not of a location.)
            "--arrival",
            "in-order",
        ];
        args.extend(extra);
        let o = run(&args);
        let mut got: BTreeMap<String, Vec<serde_json::Value>> = BTreeMap::new();
        for l in stdout(&o).lines() {
            let r: serde_json::Value = serde_json::from_str(l).unwrap();
            got.entry(r["id"].as_str().unwrap().to_string())
                .or_default()
                .push(r);
        }
        (got, o.status.code())
    };
    let (got, status) = monitor(&["--max-live-runs", "1"]);
    assert_eq!(status, Some(2));
    let a = &got["a"];
    assert_eq!(a.len(), 2, "{a:?}");
    assert_eq!(a[0]["monitor"]["closed"], "evicted");
    assert_eq!(a[0]["verdict"], "WeakPass");
    assert_eq!(a[1]["verdict"], "Error");
    let msg = a[1]["error"]["message"].as_str().unwrap();
    assert!(msg.contains("late event of run \"a\""), "{msg}");
    assert!(msg.contains("--max-live-runs"), "{msg}");
    assert_eq!(a[1]["error"]["line"], 14);
    assert_eq!(got["b"].len(), 1);
    assert_eq!(got["b"][0]["verdict"], "Pass");
    // Ended by its end action too early: the same.
    let (got, _) = monitor(&["--end-action", "clt2!sub"]);
    let a = &got["a"];
    assert_eq!(a.len(), 2, "{a:?}");
    assert_eq!(a[0]["monitor"]["closed"], "end-event");
    assert_eq!(a[1]["verdict"], "Error");
}
