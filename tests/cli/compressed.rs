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
