//! `check --events`: event logs instead of multitraces.

use super::*;

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

/// Issue 22: an over-long line cuts an event log. Runs touched by the cut input must not get a
/// verdict the rest of the file could change: `s1` looks complete (a Pass) before the cut,
/// but its last event is on the line cut off and would make it a Fail; `s2` starts after the
/// cut and must still get a record.
#[test]
fn an_over_long_event_line_leaves_no_verdict_it_could_change() {
    let dir = scratch("events-long-line");
    let model = root().join("fixtures/seed004-mqtt/model.hif");
    let pass = [
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
    let mut text = String::new();
    for (i, a) in pass.iter().enumerate() {
        text.push_str(&format!(
            "{{\"run\": \"s1\", \"action\": \"{a}\", \"order\": {}}}\n",
            i + 1
        ));
    }
    // A second `clt1!end` for s1 (a Fail), padded beyond the line limit.
    let pad = "x".repeat(4096);
    text.push_str(&format!(
        "{{\"run\": \"s1\", \"action\": \"clt1!end\", \"order\": 99, \"pad\": \"{pad}\"}}\n"
    ));
    text.push_str("{\"run\": \"s2\", \"action\": \"clt1!begin\", \"order\": 1}\n");
    let log = dir.join("events.jsonl");
    std::fs::write(&log, text).unwrap();
    let o = run(&[
        "check",
        model.to_str().unwrap(),
        "--events",
        log.to_str().unwrap(),
        "--max-line-bytes",
        "1024",
        "--format",
        "jsonl",
    ]);
    let records: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let of = |id: &str| records.iter().find(|r| r["id"] == id);
    let s1 = of("s1").expect("a record for s1");
    assert_eq!(s1["verdict"], "Error", "{s1}");
    assert!(of("s2").is_some(), "a record for s2: {}", stdout(&o));
}

/// Issue 23 point 4: a run-field name that no event has gives one Error naming the fields the
/// events have (and the closest one), not one error per event.
#[test]
fn a_wrong_field_name_is_one_error_listing_the_fields_present() {
    let dir = scratch("events-field");
    let model = root().join("fixtures/seed004-mqtt/model.hif");
    let mut text = String::new();
    for i in 0..200 {
        text.push_str(&format!(
            "{{\"session\":\"s{}\",\"action\":\"clt1!begin\",\"order\":{i}}}\n",
            i % 20
        ));
    }
    let log = dir.join("events.jsonl");
    std::fs::write(&log, text).unwrap();
    for (field, hint) in [("run", None), ("sesion", Some("did you mean `session`?"))] {
        let o = run(&[
            "check",
            model.to_str().unwrap(),
            "--events",
            log.to_str().unwrap(),
            "--run-field",
            field,
            "--format",
            "jsonl",
        ]);
        assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
        let records: Vec<serde_json::Value> = stdout(&o)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(records.len(), 1, "{}", stdout(&o));
        let message = records[0]["error"]["message"].as_str().unwrap().to_string();
        for name in [
            format!("{field:?}"),
            "\"action\"".into(),
            "\"order\"".into(),
            "\"session\"".into(),
            "--run-field".into(),
        ] {
            assert!(message.contains(&name), "{name} in {message}");
        }
        if let Some(h) = hint {
            assert!(message.contains(h), "{message}");
        }
    }
    // A CSV header without the column: the same single error.
    let csv = dir.join("events.csv");
    std::fs::write(
        &csv,
        "session,action,order\ns1,clt1!begin,1\ns2,clt1!begin,1\n",
    )
    .unwrap();
    let o = run(&[
        "check",
        model.to_str().unwrap(),
        "--events",
        csv.to_str().unwrap(),
        "--format",
        "jsonl",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stdout(&o).lines().count(), 1, "{}", stdout(&o));
    assert!(
        stdout(&o).contains("the header has the fields"),
        "{}",
        stdout(&o)
    );
}

/// Issue 23 point 7: `--events-sorted` with one file per host, each sorted by run id, merges
/// them (k-way by run id, natural order): one record per run, with the verdicts of the
/// unsorted check of the same files, and the summary counts runs.
#[test]
fn sorted_files_of_several_hosts_are_merged_by_run() {
    let dir = scratch("events-merge");
    let model = root().join("fixtures/seed004-mqtt/model.hif");
    let model = model.to_str().unwrap();
    let mut runs = Vec::new();
    for kind in ["pass", "local-error", "prefix"] {
        let out = dir.join(format!("gen-{kind}"));
        let o = run(&[
            "gen",
            model,
            "--kind",
            kind,
            "--count",
            "8",
            "--length",
            "4..16",
            "--seed",
            "3",
            "--format",
            "jsonl",
            "-o",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let text = std::fs::read_to_string(out.join(format!("{kind}.jsonl"))).unwrap();
        for line in text.lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            runs.push(v["traces"].as_object().unwrap().clone());
        }
    }
    // One file per location (a host); runs `r1`..`rN` in natural order (r2 before r10).
    let mut hosts: std::collections::BTreeMap<String, String> = Default::default();
    for (n, traces) in runs.iter().enumerate() {
        for (loc, t) in traces {
            let f = hosts.entry(loc.clone()).or_default();
            for (i, a) in t.as_array().unwrap().iter().enumerate() {
                f.push_str(&format!(
                    "{{\"run\":\"r{}\",\"action\":{a},\"order\":{i}}}\n",
                    n + 1
                ));
            }
        }
    }
    let mut files = Vec::new();
    for (loc, text) in &hosts {
        let f = dir.join(format!("{loc}.jsonl"));
        std::fs::write(&f, text).unwrap();
        files.push(f.to_str().unwrap().to_string());
    }
    let check = |sorted: bool| {
        let mut args = vec!["check", model, "--format", "jsonl"];
        for f in &files {
            args.extend(["--events", f.as_str()]);
        }
        if sorted {
            args.push("--events-sorted");
        }
        let o = run(&args);
        let records: std::collections::BTreeMap<String, String> = stdout(&o)
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                (
                    v["id"].as_str().unwrap().to_string(),
                    v["verdict"].to_string(),
                )
            })
            .collect();
        (o, records)
    };
    let (o, merged) = check(true);
    let (_, unsorted) = check(false);
    assert_eq!(stdout(&o).lines().count(), runs.len(), "{}", stdout(&o));
    assert_eq!(merged.len(), runs.len());
    assert_eq!(merged, unsorted);
    assert!(merged.values().all(|v| v != "\"Error\""), "{}", stdout(&o));
    // The text summary counts runs.
    let mut args = vec!["check", model, "--events-sorted"];
    for f in &files {
        args.extend(["--events", f.as_str()]);
    }
    let o = run(&args);
    assert!(
        stdout(&o).contains(&format!("{} multitraces:", runs.len())),
        "the summary counts runs: {}",
        stdout(&o)
    );
}

/// Issue 22: a cut line whose run id lies beyond the cut could belong to any run of its
/// file: none of the runs read from that file gets a verdict.
#[test]
fn an_over_long_line_of_unknown_run_leaves_no_verdict_in_its_file() {
    let dir = scratch("events-long-line-unknown");
    let model = root().join("fixtures/seed004-mqtt/model.hif");
    let mut text = String::new();
    for (i, a) in ["clt1!begin", "brok?begin"].iter().enumerate() {
        text.push_str(&format!(
            "{{\"run\": \"s1\", \"action\": \"{a}\", \"order\": {}}}\n",
            i + 1
        ));
    }
    let pad = "x".repeat(4096);
    text.push_str(&format!(
        "{{\"pad\": \"{pad}\", \"run\": \"s1\", \"action\": \"clt1!end\", \"order\": 9}}\n"
    ));
    let log = dir.join("events.jsonl");
    std::fs::write(&log, text).unwrap();
    let o = run(&[
        "check",
        model.to_str().unwrap(),
        "--events",
        log.to_str().unwrap(),
        "--max-line-bytes",
        "1024",
        "--format",
        "jsonl",
    ]);
    let records: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(!records.is_empty(), "{}", stdout(&o));
    for r in &records {
        assert_eq!(r["verdict"], "Error", "{r}");
    }
    assert!(records.iter().any(|r| r["id"] == "s1"), "{}", stdout(&o));
}

/// The offline path (`check --events`: a Fail diagnosed knowing the cut the monitor's engine
/// establishes) writes the whole record the batch check writes for the same multitrace: same
/// verdict, reason, explanation, local error, diagnosis and search vertices, in both modes and
/// with AC and AS, for long runs whose events arrive interleaved across locations and runs.
#[test]
fn check_events_writes_the_batch_records_of_the_same_multitraces() {
    let dir = scratch("events-records");
    let model = root().join("fixtures/seed004-mqtt/model.hif");
    let model = model.to_str().unwrap();
    let mut multitraces = Vec::new();
    for kind in [
        "pass",
        "local-error",
        "inter-error",
        "prefix",
        "swap-actions",
    ] {
        let out = dir.join(format!("gen-{kind}"));
        let o = run(&[
            "gen",
            model,
            "--kind",
            kind,
            "--count",
            "25",
            "--length",
            "10..60",
            "--seed",
            "11",
            "--format",
            "jsonl",
            "-o",
            out.to_str().unwrap(),
            "--allow-fewer",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let text = std::fs::read_to_string(out.join(format!("{kind}.jsonl"))).unwrap();
        for line in text.lines() {
            let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
            let events: usize = v["traces"]
                .as_object()
                .unwrap()
                .values()
                .map(|t| t.as_array().unwrap().len())
                .sum();
            if events > 0 {
                v["id"] = format!("{kind}-{}", multitraces.len()).into();
                multitraces.push(v);
            }
        }
    }
    let mts: String = multitraces.iter().map(|v| format!("{v}\n")).collect();
    std::fs::write(dir.join("all.jsonl"), mts).unwrap();
    // Each run's locations interleaved (a fixed pseudo-random choice of the next location),
    // runs interleaved by turns: arrival orders unlike the locations' order.
    let mut queues: Vec<(String, Vec<Vec<String>>, Vec<usize>)> = multitraces
        .iter()
        .map(|v| {
            let traces: Vec<Vec<String>> = v["traces"]
                .as_object()
                .unwrap()
                .values()
                .map(|t| {
                    t.as_array()
                        .unwrap()
                        .iter()
                        .map(|a| a.as_str().unwrap().to_string())
                        .collect()
                })
                .collect();
            let at = vec![0; traces.len()];
            (v["id"].as_str().unwrap().to_string(), traces, at)
        })
        .collect();
    let (mut events, mut seed) = (String::new(), 12345u64);
    loop {
        let mut any = false;
        for (id, traces, at) in queues.iter_mut() {
            let open: Vec<usize> = (0..traces.len())
                .filter(|&k| at[k] < traces[k].len())
                .collect();
            if open.is_empty() {
                continue;
            }
            any = true;
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let k = open[(seed >> 33) as usize % open.len()];
            let line = serde_json::json!({"run": id, "action": traces[k][at[k]], "order": at[k]});
            events.push_str(&format!("{line}\n"));
            at[k] += 1;
        }
        if !any {
            break;
        }
    }
    std::fs::write(dir.join("ev.jsonl"), events).unwrap();
    let records = |o: &Output| -> std::collections::BTreeMap<String, serde_json::Value> {
        stdout(o)
            .lines()
            .map(|l| {
                let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
                let id = v["id"].as_str().unwrap().to_string();
                let m = v.as_object_mut().unwrap();
                m.remove("trace");
                m.remove("time_us");
                (id, v)
            })
            .collect()
    };
    let (all, ev) = (dir.join("all.jsonl"), dir.join("ev.jsonl"));
    let (all, ev) = (all.to_str().unwrap(), ev.to_str().unwrap());
    let mut fails = 0;
    for extra in [&[][..], &["--mode", "complete"], &["--procedure", "as"]] {
        let mut a = vec!["check", model, "--format", "jsonl"];
        a.extend(extra);
        let mut e = a.clone();
        e.push(all);
        let mut g = a.clone();
        g.extend(["--events", ev, "--jobs", "2"]);
        let (expected, got) = (run(&e), run(&g));
        assert_eq!(
            got.status.code(),
            expected.status.code(),
            "{}",
            stderr(&got)
        );
        let (e, g) = (records(&expected), records(&got));
        assert_eq!(e.len(), multitraces.len());
        for (id, want) in &e {
            assert_eq!(g.get(id), Some(want), "{id} with {extra:?}");
        }
        fails += e.values().filter(|v| v["verdict"] == "Fail").count();
    }
    assert!(
        fails > 50,
        "only {fails} failed runs: the diagnoses are hardly tested"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Run ids that differ in bytes that are not UTF-8 (`r\xff`, `r\xfe`) are never one run:
/// `check --events` and `monitor` refuse both lines, naming the byte and its column, and give
/// no run `r\u{FFFD}` a verdict (and the run open then gets an Error: the lines may have held
/// its events).
#[test]
fn ids_that_are_not_utf8_are_refused_by_check_and_monitor_alike() {
    let dir = scratch("events-utf8");
    let file = dir.join("bad.jsonl");
    let mut bytes = b"{\"run\":\"ok\",\"action\":\"clt1!begin\",\"order\":0}\n".to_vec();
    bytes.extend_from_slice(b"{\"run\":\"r\xff\",\"action\":\"clt1!begin\",\"order\":0}\n");
    bytes.extend_from_slice(b"{\"run\":\"r\xfe\",\"action\":\"clt1!end\",\"order\":1}\n");
    std::fs::write(&file, bytes).unwrap();
    let model = "fixtures/seed004-mqtt/model.hif";
    let path = file.to_str().unwrap();
    let checked = run(&["check", model, "--events", path, "--format", "jsonl"]);
    let monitored = run(&["monitor", model, path, "--no-follow", "--format", "jsonl"]);
    for o in [&checked, &monitored] {
        assert_eq!(o.status.code(), Some(2), "{}", stderr(o));
        let out = stdout(o);
        for byte in ["0xff", "0xfe"] {
            let says = format!("invalid UTF-8 (byte {byte}) at column 10");
            assert!(out.contains(&says), "{out}");
        }
        assert!(!out.contains('\u{FFFD}'), "{out}");
        assert!(!out.contains("\"Fail\""), "{out}");
    }
}
