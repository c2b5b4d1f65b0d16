use super::*;
use multitrace_model::artifact::decode;
use multitrace_model::model::CompiledModel;

fn model() -> CompiledModel {
    decode(include_bytes!(
        "../../../fixtures/golden/seed004-mqtt.v2.mtm"
    ))
    .unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("multitrace-otel-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A span in OTLP JSON: kind 2 SERVER, 3 CLIENT, 4 PRODUCER, 5 CONSUMER.
fn span(trace: &str, id: &str, name: &str, kind: u8, start: u64, end: u64) -> String {
    format!(
        r#"{{"traceId":"{trace}","spanId":"{id}","name":"{name}","kind":{kind},"startTimeUnixNano":"{start}","endTimeUnixNano":"{end}","attributes":[],"status":{{}}}}"#
    )
}

/// One ExportTraceServiceRequest line: `(service, spans)` per resource.
fn request(resources: &[(&str, Vec<String>)]) -> String {
    let rs: Vec<String> = resources
        .iter()
        .map(|(service, spans)| {
            format!(
                r#"{{"resource":{{"attributes":[{{"key":"service.name","value":{{"stringValue":"{service}"}}}}]}},"scopeSpans":[{{"scope":{{"name":"t"}},"spans":[{}]}}]}}"#,
                spans.join(",")
            )
        })
        .collect();
    format!(r#"{{"resourceSpans":[{}]}}"#, rs.join(","))
}

const T1: &str = "5b8efff798038103d269b633813fc60c";
const T2: &str = "0af7651916cd43dd8448eb211c80319c";

/// Trace T1: begin, then end, sent by clt1 and received by brok; clt1's clock is an hour
/// ahead (only each service's own order counts). Trace T2: a CLIENT span the model lacks.
fn lines() -> String {
    let h = 3_600_000_000_000u64;
    let l1 = request(&[
        (
            "clt1",
            vec![
                span(T1, "a1", "begin", 4, h + 100, h + 110),
                span(T1, "a2", "end", 4, h + 300, h + 310),
            ],
        ),
        ("brok", vec![span(T1, "b1", "begin", 5, 200, 210)]),
    ]);
    let l2 = request(&[
        ("brok", vec![span(T1, "b2", "end", 5, 400, 410)]),
        (
            "clt1",
            vec![
                span(T2, "c1", "POST /charge", 3, 100, 200),
                span(T2, "c2", "internal", 1, 120, 130),
            ],
        ),
    ]);
    format!("{l1}\n\n{l2}\n")
}

/// A run's id and its (location, actions) pairs.
type Run = (Option<String>, Vec<(String, Vec<String>)>);

fn items(runs: &[RunOut]) -> Vec<Run> {
    runs.iter()
        .filter_map(|r| match r {
            RunOut::Item(i) => Some((i.id.clone(), i.traces.clone())),
            RunOut::Error(_) => None,
        })
        .collect()
}

fn errors(runs: &[RunOut]) -> Vec<String> {
    runs.iter()
        .filter_map(|r| match r {
            RunOut::Error(e) => Some(
                e.error
                    .as_ref()
                    .map(|e| e.message.clone())
                    .unwrap_or_default(),
            ),
            RunOut::Item(_) => None,
        })
        .collect()
}

#[test]
fn spans_become_the_actions_of_their_rules() {
    let m = model();
    let dir = scratch("json");
    let p = dir.join("spans.jsonl");
    std::fs::write(&p, lines()).unwrap();
    let runs = read_otel_runs(&m.alphabet, std::slice::from_ref(&p), &OtelMap::default());
    assert_eq!(runs.len(), 2);
    let got = items(&runs);
    let loc = |name: &str| got[0].1.iter().find(|(l, _)| l == name).unwrap().1.clone();
    assert_eq!(got[0].0.as_deref(), Some(T1));
    assert_eq!(loc("clt1"), ["clt1!begin", "clt1!end"]);
    assert_eq!(loc("brok"), ["brok?begin", "brok?end"]);
    // The CLIENT span of T2 names a message the model lacks: its run is an Error naming the
    // span, its service, its name and the rule; the INTERNAL span is no action.
    let e = &errors(&runs)[0];
    for part in [
        "spans.jsonl:3: span c1 of trace 0af7651916cd43dd8448eb211c80319c",
        "service \"clt1\"",
        "span name \"POST /charge\"",
        "rule: CLIENT span, its start is the emission of the request",
        "unknown action \"clt1!POST_charge\"",
    ] {
        assert!(e.contains(part), "{part}: {e}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn protobuf_gives_what_json_gives() {
    use prost::Message as _;
    let m = model();
    let dir = scratch("proto");
    let json = dir.join("spans.jsonl");
    std::fs::write(&json, lines()).unwrap();
    let reqs: Vec<ExportTraceServiceRequest> = lines()
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // One message per file, and the length-prefixed sequence of the Collector's file exporter.
    let one = dir.join("one.pb");
    std::fs::write(&one, reqs[0].encode_to_vec()).unwrap();
    let framed = dir.join("framed.pb");
    let mut bytes = Vec::new();
    for r in &reqs {
        let b = r.encode_to_vec();
        bytes.extend((b.len() as u32).to_be_bytes());
        bytes.extend(b);
    }
    std::fs::write(&framed, bytes).unwrap();
    let map = OtelMap::default();
    let from_json = items(&read_otel_runs(&m.alphabet, &[json], &map));
    assert_eq!(
        items(&read_otel_runs(&m.alphabet, &[framed], &map)),
        from_json
    );
    let first = items(&read_otel_runs(&m.alphabet, &[one], &map));
    assert_eq!(first[0].0.as_deref(), Some(T1));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn unreadable_files_are_located_errors() {
    let m = model();
    let dir = scratch("bad");
    let p = dir.join("bad.jsonl");
    std::fs::write(&p, format!("{}\n{{\"resourceSpans\": 7}}\n", request(&[]))).unwrap();
    let e = errors(&read_otel_runs(&m.alphabet, &[p], &OtelMap::default()));
    assert!(
        e[0].contains("bad.jsonl:2:")
            && e[0].contains("not an OTLP JSON ExportTraceServiceRequest"),
        "{e:?}"
    );
    let p = dir.join("garbage.pb");
    std::fs::write(&p, [0xff_u8, 0xff, 0xff]).unwrap();
    let e = errors(&read_otel_runs(&m.alphabet, &[p], &OtelMap::default()));
    assert!(e[0].contains("neither OTLP JSON"), "{e:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 50: a line cut short does not stop the file. The trace it names (T1) gets an Error
/// naming it, the lines after it are read (T2's spans), and since the part cut off may hold spans of
/// any trace, no run gets a verdict; the line's own record says where it was cut.
#[test]
fn a_cut_line_leaves_the_rest_read_and_no_run_a_verdict() {
    let m = model();
    let dir = scratch("cut");
    let p = dir.join("cut.jsonl");
    let good = lines();
    let mut ls: Vec<&str> = good.lines().filter(|l| !l.is_empty()).collect();
    let cut = &ls[0][..ls[0].find(T1).unwrap() + T1.len() + 10];
    ls.insert(1, cut);
    std::fs::write(&p, ls.join("\n") + "\n").unwrap();
    let runs = read_otel_runs(&m.alphabet, &[p], &OtelMap::default());
    assert!(items(&runs).is_empty(), "{runs:?}");
    let recs: Vec<&multitrace_model::record::Record> = runs
        .iter()
        .map(|r| match r {
            RunOut::Error(e) => &**e,
            RunOut::Item(_) => unreachable!(),
        })
        .collect();
    let ids: Vec<Option<&str>> = recs.iter().map(|r| r.id.as_deref()).collect();
    assert_eq!(ids, vec![Some(T1), Some(T2), None], "{recs:?}");
    let line = recs[2].error.as_ref().unwrap();
    assert_eq!(line.line, Some(2));
    assert!(
        line.column.is_some_and(|c| c as usize > cut.len() - 2),
        "{line:?}"
    );
    assert!(
        line.message.contains("EOF while parsing"),
        "{}",
        line.message
    );
    // T2's spans after the cut were read: its own bad span (line 3) is its record.
    let t2 = recs[1].error.as_ref().unwrap();
    assert_eq!(t2.line, Some(3), "{t2:?}");
    assert_eq!(recs[0].error.as_ref().unwrap().line, Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}

/// One JSON document (pretty-printed, as OpenTelemetry's own examples are), an array of
/// requests, and a gzip-compressed file give what JSON Lines give; a JSON file that is not
/// OTLP is refused with its line and column, never as bad protobuf.
#[test]
fn json_documents_and_compressed_files_give_what_json_lines_give() {
    use std::io::Write as _;
    let m = model();
    let dir = scratch("document");
    let json = dir.join("spans.jsonl");
    std::fs::write(&json, lines()).unwrap();
    let reqs: Vec<serde_json::Value> = lines()
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let map = OtelMap::default();
    let from_json = items(&read_otel_runs(&m.alphabet, &[json], &map));
    // Each request pretty-printed in a file of its own, all of them in one array.
    let mut one_by_one = Vec::new();
    for (i, r) in reqs.iter().enumerate() {
        let p = dir.join(format!("r{i}.json"));
        std::fs::write(&p, serde_json::to_string_pretty(r).unwrap()).unwrap();
        one_by_one.push(p);
    }
    let array = dir.join("all.json");
    std::fs::write(&array, serde_json::to_string_pretty(&reqs).unwrap()).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(lines().as_bytes()).unwrap();
    let gzipped = dir.join("spans.jsonl.gz");
    std::fs::write(&gzipped, gz.finish().unwrap()).unwrap();
    fn ids<T: Ord>(mut v: Vec<T>) -> Vec<T> {
        v.sort();
        v
    }
    let want = ids(from_json.clone());
    assert!(!want.is_empty());
    assert_eq!(
        ids(items(&read_otel_runs(&m.alphabet, &one_by_one, &map))),
        want
    );
    assert_eq!(
        ids(items(&read_otel_runs(&m.alphabet, &[array], &map))),
        want
    );
    assert_eq!(
        items(&read_otel_runs(&m.alphabet, &[gzipped], &map)),
        from_json
    );
    // Not OTLP: located, and said to be JSON.
    let bad = dir.join("bad.json");
    std::fs::write(&bad, "{\n  \"resourceSpans\": [\n    ,\n  ]\n}\n").unwrap();
    let e = errors(&read_otel_runs(&m.alphabet, &[bad], &map));
    assert!(
        e[0].contains("bad.json:3: column 5: not a JSON document"),
        "{e:?}"
    );
    assert!(!e[0].contains("protobuf"), "{e:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A trace whose spans are all INTERNAL or of no kind gets an `Error` record saying so (it
/// used to get none, and a file of such traces was "no multitraces found"); INTERNAL spans
/// beside others give no action and no record of their own.
#[test]
fn a_trace_of_internal_spans_gets_a_record_saying_why() {
    let m = model();
    let dir = scratch("internal");
    let p = dir.join("spans.jsonl");
    const T3: &str = "00000000000000000000000000000abc";
    let extra = request(&[(
        "clt1",
        vec![
            span(T3, "c1", "work", 1, 5, 6),
            span(T3, "c2", "more", 0, 7, 8),
            span(T1, "c3", "x", 1, 1, 2),
        ],
    )]);
    std::fs::write(&p, format!("{}{extra}\n", lines())).unwrap();
    let runs = read_otel_runs(&m.alphabet, std::slice::from_ref(&p), &OtelMap::default());
    let e = errors(&runs);
    let internal: Vec<&String> = e.iter().filter(|e| e.contains(T3)).collect();
    assert_eq!(internal.len(), 1, "{e:?}");
    assert!(
        internal[0].contains("its 2 spans are INTERNAL or of no kind"),
        "{e:?}"
    );
    // T1 keeps its record: its INTERNAL span is only skipped.
    assert!(items(&runs).iter().any(|(id, _)| id.as_deref() == Some(T1)));
    assert!(
        !e.iter()
            .any(|e| e.contains(T1) && e.contains("none of its spans")),
        "{e:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_span_link_names_its_kind_and_the_kind_says_where_its_parent_is() {
    let line = request(&[(
        "payment",
        vec![
            span(
                "0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a",
                "0000000000000001",
                "pay",
                2,
                1,
                4,
            ),
            span(
                "0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a",
                "0000000000000002",
                "orders",
                4,
                2,
                3,
            ),
            span(
                "0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a",
                "0000000000000003",
                "work",
                1,
                2,
                3,
            ),
        ],
    )]);
    let (mut out, mut links) = (Vec::new(), Vec::new());
    otel_json_spans(&line, &OtelMap::default(), "f", 1, &mut out, &mut links).unwrap();
    let kinds: Vec<(&str, bool)> = links.iter().map(|l| (l.kind, l.local_parent)).collect();
    assert_eq!(
        kinds,
        [("SERVER", false), ("PRODUCER", true), ("INTERNAL", true)]
    );
    // The names the links give (and OTLP's own) say the same of the parent.
    for l in &links {
        assert_eq!(kind_parent_is_local(Some(l.kind)), l.local_parent);
        let otlp = format!("span_kind_{}", l.kind.to_lowercase());
        assert_eq!(kind_parent_is_local(Some(&otlp)), l.local_parent);
    }
    assert!(!kind_parent_is_local(Some("consumer")));
    // Not given, or not a kind: unspecified (the parent taken as its own service's).
    assert!(kind_parent_is_local(None) && kind_parent_is_local(Some("server?")));
}
