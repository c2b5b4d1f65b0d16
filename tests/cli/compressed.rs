//! Compressed inputs: `.gz` and `.zst` trace files and JSON Lines, read as the plain ones.

use super::*;
use std::io::Write;

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

fn zstd(bytes: &[u8]) -> Vec<u8> {
    zstd::stream::encode_all(bytes, 3).unwrap()
}

#[test]
fn compressed_traces_and_json_lines_give_the_plain_verdicts() {
    let d = scratch("compressed");
    let set = d.join("set");
    let o = run(&[
        "gen",
        "fixtures/seed004-mqtt/model.hif",
        "--kind",
        "pass",
        "--count",
        "5",
        "--length",
        "4..8",
        "--format",
        "jsonl",
        "-o",
        set.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let jsonl = std::fs::read(set.join("pass.jsonl")).unwrap();
    let traces = root().join("fixtures/seed004-mqtt/traces");
    let dir = d.join("in");
    std::fs::create_dir_all(&dir).unwrap();
    for (name, pack) in [("gz", gzip as fn(&[u8]) -> Vec<u8>), ("zst", zstd)] {
        for f in ["example1.htf", "example2.htf"] {
            let bytes = std::fs::read(traces.join(f)).unwrap();
            std::fs::write(dir.join(format!("{f}.{name}")), pack(&bytes)).unwrap();
        }
        std::fs::write(dir.join(format!("runs.jsonl.{name}")), pack(&jsonl)).unwrap();
    }
    let o = run(&[
        "check",
        "fixtures/seed004-mqtt/model.hif",
        dir.to_str().unwrap(),
        "--mode",
        "complete",
    ]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{}", stderr(&o));
    assert!(!out.contains(": Error"), "{out}");
    for name in ["gz", "zst"] {
        assert!(out.contains(&format!("example1.htf.{name}: Pass")), "{out}");
        assert!(
            out.contains(&format!("example2.htf.{name}: Fail (CentralError)")),
            "{out}"
        );
    }
    // JSON Lines records are named by their ids: each of the five, once per compression.
    for n in 1..=5 {
        assert_eq!(
            out.matches(&format!("pass-000{n}: Pass")).count(),
            2,
            "{out}"
        );
    }
    assert!(
        out.lines()
            .last()
            .unwrap()
            .starts_with("14 multitraces: 12 Pass, 2 Fail"),
        "{out}"
    );
    // A file named .gz that is not gzip: one error record saying it cannot be decompressed.
    let bad = d.join("bad.htf.gz");
    std::fs::copy(traces.join("example1.htf"), &bad).unwrap();
    let o = run(&[
        "check",
        "fixtures/seed004-mqtt/model.hif",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stdout(&o).contains("cannot decompress"), "{}", stdout(&o));
}

/// Issue 23, point 5 beyond `check`'s trace files: event logs (`--events`, JSON Lines and CSV)
/// and `local`'s trace are decompressed too, and a CSV log keeps its format under `.zst`;
/// positions in messages are lines of the decompressed text.
#[test]
fn compressed_event_logs_and_local_traces_are_read_as_plain_ones() {
    let d = scratch("compressed-events");
    let jsonl = "{\"run\":\"r1\",\"action\":\"clt1!begin\",\"order\":1}\n\
                 {\"run\":\"r1\",\"action\":\"brok?begin\",\"order\":2}\n";
    let csv = "run,action,order\nr1,clt1!begin,1\nr1,brok?begn,2\n";
    let (plain_jsonl, plain_csv) = (d.join("ev.jsonl"), d.join("ev.csv"));
    std::fs::write(&plain_jsonl, jsonl).unwrap();
    std::fs::write(&plain_csv, csv).unwrap();
    let (gz, zst) = (d.join("ev.jsonl.gz"), d.join("ev.csv.zst"));
    std::fs::write(&gz, gzip(jsonl.as_bytes())).unwrap();
    std::fs::write(&zst, zstd(csv.as_bytes())).unwrap();
    let model = "fixtures/seed004-mqtt/model.hif";
    let check = |f: &Path| {
        let o = run(&["check", model, "--events", f.to_str().unwrap()]);
        (o.status.code(), stdout(&o))
    };
    let (code, out) = check(&gz);
    let (plain_code, plain_out) = check(&plain_jsonl);
    assert_eq!((code, plain_code), (Some(0), Some(0)), "{out}");
    assert!(out.starts_with("r1: WeakPass"), "{out}");
    assert_eq!(out.lines().next(), plain_out.lines().next());
    let (code, out) = check(&zst);
    assert_eq!(code, Some(2), "{out}");
    let at = format!("{}:3: ", zst.display());
    assert!(out.contains(&at), "line 3 of the decompressed CSV: {out}");
    assert!(out.contains("did you mean `brok?begin`?"), "{out}");
    // The same record as the plain file's (the summary line holds times).
    let plain = check(&plain_csv).1;
    assert_eq!(
        out.lines()
            .next()
            .map(|l| l.replace(&zst.display().to_string(), "F")),
        plain
            .lines()
            .next()
            .map(|l| l.replace(&plain_csv.display().to_string(), "F"))
    );
    // `local` on a compressed trace file.
    let traces = root().join("fixtures/seed004-mqtt/traces");
    let bytes = std::fs::read(traces.join("example1.htf")).unwrap();
    let trace = d.join("example1.htf.gz");
    std::fs::write(&trace, gzip(&bytes)).unwrap();
    let summary = d.join("clt1.json");
    let o = run(&[
        "local",
        model,
        "--location",
        "clt1",
        trace.to_str().unwrap(),
        "-o",
        summary.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("local verdict Pass"), "{}", stderr(&o));
}
