//! `monitor --otlp-http`: spans exported over OTLP/HTTP (protobuf, JSON, gzip) straight to
//! the monitor get the records `check --otel` gives the same spans in a file; a body that
//! does not decode is a 400 and no record; SIGTERM drains what was acknowledged.

use super::monitor::{by_run, OTEL_MODEL, OTEL_SPANS};
use super::*;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use prost::Message as _;
use std::io::{BufRead, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Stdio};

/// One HTTP/1.1 `POST /v1/traces` on a fresh connection: the status code and the body.
fn post(addr: SocketAddr, kind: &str, gzip: bool, body: &[u8]) -> (u16, Vec<u8>) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(20)))
        .unwrap();
    let encoding = if gzip {
        "Content-Encoding: gzip\r\n"
    } else {
        ""
    };
    let head = format!(
        "POST /v1/traces HTTP/1.1\r\nHost: {addr}\r\nContent-Type: {kind}\r\n{encoding}Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).unwrap();
    s.write_all(body).unwrap();
    let mut all = Vec::new();
    s.read_to_end(&mut all).unwrap();
    let split = all.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let code = String::from_utf8_lossy(&all[9..12]).parse().unwrap();
    (code, all[split + 4..].to_vec())
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(bytes).unwrap();
    z.finish().unwrap()
}

/// Starts `monitor MODEL --otlp-http 127.0.0.1:0 ARGS` (records on its stdout): the child and
/// the address it says it listens on.
fn start(args: &[&str]) -> (Child, SocketAddr) {
    let mut child = bin()
        .current_dir(root())
        .args(["monitor", OTEL_MODEL, "--otlp-http", "127.0.0.1:0"])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
    // Notes about the model may come first.
    let mut seen = String::new();
    let addr = loop {
        let mut line = String::new();
        let n = err.read_line(&mut line).unwrap();
        assert!(n > 0, "no address in {seen:?}");
        let at = line
            .trim()
            .strip_prefix("multitrace monitor: receiving OTLP/HTTP on http://")
            .and_then(|a| a.strip_suffix("/v1/traces"));
        if let Some(at) = at {
            break at.parse().unwrap();
        }
        seen.push_str(&line);
    };
    // The rest of its standard error, read so that it never blocks on it.
    std::thread::spawn(move || std::io::copy(&mut err, &mut std::io::sink()));
    (child, addr)
}

/// Stops the monitor by SIGTERM: its exit code and its records.
fn stop(mut child: Child) -> (Option<i32>, String) {
    let o = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .output()
        .unwrap();
    assert!(o.status.success());
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    (child.wait().unwrap().code(), out)
}

/// The checkout example's three exports, sent as an SDK sends them (the first as protobuf,
/// the second as JSON, the third as gzip protobuf), with a body that is not a request among
/// them: every trace gets the record `check --otel` gives the file of the same exports, the
/// places named `otlp-http:N` for the N-th request accepted where check says `FILE:N`.
#[test]
fn otlp_http_exports_get_the_verdicts_of_check() {
    let text = std::fs::read_to_string(root().join(OTEL_SPANS)).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3);
    let (child, addr) = start(&["--format", "jsonl"]);
    let first: ExportTraceServiceRequest = serde_json::from_str(lines[0]).unwrap();
    let (code, body) = post(
        addr,
        "application/x-protobuf",
        false,
        &first.encode_to_vec(),
    );
    assert_eq!(
        (code, body.len()),
        (200, 0),
        "{}",
        String::from_utf8_lossy(&body)
    );
    // Not a request: refused, so no record (a file's garbage line is an Error record).
    let (code, body) = post(addr, "application/json", false, b"{\"resourceSpans\": 1}");
    assert_eq!(code, 400, "{}", String::from_utf8_lossy(&body));
    let (code, body) = post(addr, "application/json", false, lines[1].as_bytes());
    assert_eq!((code, &body[..]), (200, &b"{}"[..]));
    let third: ExportTraceServiceRequest = serde_json::from_str(lines[2]).unwrap();
    let zipped = gzip(&third.encode_to_vec());
    let (code, _) = post(addr, "application/x-protobuf", true, &zipped);
    assert_eq!(code, 200);
    // Stopped at once: the requests acknowledged are checked all the same.
    let (code, out) = stop(child);
    let c = run(&[
        "check",
        OTEL_MODEL,
        "--otel",
        OTEL_SPANS,
        "--format",
        "jsonl",
        "--no-progress",
    ]);
    assert_eq!(code, c.status.code(), "{out}");
    let (checked, monitored) = (by_run(&stdout(&c)), by_run(&out));
    assert_eq!(
        monitored.keys().collect::<Vec<_>>(),
        checked.keys().collect::<Vec<_>>(),
        "{out}"
    );
    assert!(!monitored.contains_key(""), "a record of no run: {out}");
    let mut verdicts = Vec::new();
    for (id, recs) in &monitored {
        assert_eq!(recs.len(), 1, "run {id}: {recs:?}");
        let (mr, cr) = (&recs[0], &checked[id][0]);
        for field in ["verdict", "reason", "procedure"] {
            assert_eq!(mr[field], cr[field], "run {id}, {field}: {mr}\n{cr}");
        }
        if mr["verdict"] == "Error" {
            let (me, ce) = (
                mr["error"]["message"].as_str().unwrap(),
                cr["error"]["message"].as_str().unwrap(),
            );
            let me = me.replacen("otlp-http:", &format!("{OTEL_SPANS}:"), 1);
            assert!(ce.starts_with(&me), "run {id}: {me}\n{ce}");
            assert_eq!(mr["error"]["file"], "otlp-http");
            assert_eq!(mr["error"]["line"], cr["error"]["line"]);
        } else {
            assert_eq!(mr["explanation"], cr["explanation"], "run {id}");
        }
        verdicts.push(mr["verdict"].as_str().unwrap().to_string());
    }
    verdicts.sort();
    verdicts.dedup();
    assert!(verdicts.len() >= 2, "one verdict only: {verdicts:?}");
}

/// Received and followed together: the exports of one file followed and of requests are
/// checked by one session (a trace whose spans come half from each gets one record), and
/// `/health` answers while it runs.
#[test]
fn otlp_http_and_a_followed_file_feed_one_session() {
    let dir = scratch("monitor-otlp-file");
    let text = std::fs::read_to_string(root().join(OTEL_SPANS)).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let file = dir.join("spans.jsonl");
    std::fs::write(&file, format!("{}\n", lines[0])).unwrap();
    let (child, addr) = start(&[file.to_str().unwrap(), "--format", "jsonl"]);
    let mut s = TcpStream::connect(addr).unwrap();
    s.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut reply = String::new();
    s.read_to_string(&mut reply).unwrap();
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    // The file's export is read before the others are sent: the file polls within 1 ms.
    std::thread::sleep(std::time::Duration::from_millis(300));
    for line in &lines[1..] {
        let (code, _) = post(addr, "application/json", false, line.as_bytes());
        assert_eq!(code, 200);
    }
    let (code, out) = stop(child);
    let c = run(&[
        "check",
        OTEL_MODEL,
        "--otel",
        OTEL_SPANS,
        "--format",
        "jsonl",
        "--no-progress",
    ]);
    assert_eq!(code, c.status.code(), "{out}");
    let (checked, monitored) = (by_run(&stdout(&c)), by_run(&out));
    assert_eq!(
        monitored.keys().collect::<Vec<_>>(),
        checked.keys().collect::<Vec<_>>()
    );
    for (id, recs) in &monitored {
        assert_eq!(recs.len(), 1, "run {id}: {recs:?}");
        assert_eq!(recs[0]["verdict"], checked[id][0]["verdict"], "run {id}");
    }
}
