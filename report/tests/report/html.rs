//! The HTML report of a batch: counts, rows, failures in full with the blocked action
//! highlighted, self-contained, escaping, JSON Lines and standard input, 100,000 multitraces.

use multitrace_batch::{Batch, BatchOptions};
use multitrace_check::{CheckOptions, Engine};
use multitrace_compiler::compile::CompileOptions;
use multitrace_compiler::source::{compile_source, read_source};
use multitrace_formats::{entry::Item, input::collect_traces};
use multitrace_model::record::Record;
use multitrace_report::html::{ReRead, ReportOptions, ReportSetup, ReportWriter};
use std::path::{Path, PathBuf};
use std::time::Instant;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A path named `name` in a scratch directory, removed when the returned guard is dropped
/// (also when the test fails).
fn temp(name: &str) -> (tempfile::TempDir, PathBuf) {
    let d = tempfile::Builder::new()
        .prefix("multitrace-report-")
        .tempdir()
        .unwrap();
    let path = d.path().join(name);
    (d, path)
}

fn mqtt_engine() -> Engine {
    let src = read_source(&root().join("fixtures/seed004-mqtt/model.hif"), None).unwrap();
    Engine::new(compile_source(&src, &CompileOptions::default()).unwrap())
}

/// The records of a batch over `files`, in input order.
fn run(batch: &Batch<'_>, files: Vec<PathBuf>) -> Vec<Record> {
    let mut records = Vec::new();
    batch
        .run(files, |o| {
            records.push(o.record);
            Ok::<(), std::convert::Infallible>(())
        })
        .unwrap();
    records
}

fn write_report(
    path: &Path,
    engine: &Engine,
    batch: &Batch<'_>,
    records: &[Record],
    full: usize,
) -> String {
    let setup = ReportSetup::new(engine.model(), "fixtures/seed004-mqtt/model.hif");
    let mut w = ReportWriter::create(
        path,
        setup,
        ReportOptions {
            full_failures: full,
        },
    )
    .unwrap();
    for r in records {
        w.add(r).unwrap();
    }
    w.finish(&mut ReRead::new(batch)).unwrap();
    std::fs::read_to_string(path).unwrap()
}

/// The rows the page's script reads: (name, verdict code, reason code, time, explanation,
/// failure index), names decoded as the script decodes them.
fn rows(page: &str) -> Vec<(String, u64, i64, u64, String, i64)> {
    let start = page
        .find(r#"<script type="application/json" id="mt-rows">"#)
        .unwrap();
    let body = &page[start..];
    let body = &body[body.find('>').unwrap() + 1..body.find("</script>").unwrap()];
    let raw: Vec<serde_json::Value> = serde_json::from_str(body).unwrap();
    let mut prev = String::new();
    raw.iter()
        .map(|x| {
            // As `prev.slice(0, shared) + rest` in JavaScript: UTF-16 units.
            let shared = x[0].as_u64().unwrap() as usize;
            let units: Vec<u16> = prev
                .encode_utf16()
                .take(shared)
                .chain(x[1].as_str().unwrap().encode_utf16())
                .collect();
            let name = String::from_utf16(&units).expect("a prefix cut inside a character");
            prev = name.clone();
            (
                name,
                x[2].as_u64().unwrap(),
                x[3].as_i64().unwrap(),
                x[4].as_u64().unwrap(),
                x[5].as_str().unwrap_or("").to_string(),
                x[6].as_i64().unwrap(),
            )
        })
        .collect()
}

/// The article of the failure of `trace`.
fn article<'a>(page: &'a str, trace: &str) -> &'a str {
    let at = page
        .find(&format!("data-trace=\"{trace}\""))
        .unwrap_or_else(|| panic!("no failure in full for {trace}"));
    let start = page[..at].rfind("<article").unwrap();
    &page[start..start + page[start..].find("</article>").unwrap()]
}

fn assert_self_contained(page: &str) {
    for bad in [
        "src=\"http",
        "href=\"http",
        "src='http",
        "@import",
        "url(http",
        "<link",
        "<iframe",
        "src=\"//",
    ] {
        assert!(
            !page.contains(bad),
            "the page refers to an external resource: {bad}"
        );
    }
    // One style sheet of our own and the diagram's, and one script, all inline.
    assert_eq!(
        page.matches("<style>").count(),
        1 + page.matches("<svg").count()
    );
    assert!(page.contains("<script>// multitrace report"));
}

#[test]
fn the_mqtt_report_counts_and_shows_where_example2_fails() {
    let engine = mqtt_engine();
    let batch = Batch::new(&engine, CheckOptions::default(), BatchOptions::default());
    let files =
        collect_traces(&[root().join("fixtures/seed004-mqtt/traces")], &mut |_| {}).unwrap();
    let records = run(&batch, files);
    assert_eq!(records.len(), 10);
    let (_path_dir, path) = temp("mqtt.html");
    let page = write_report(&path, &engine, &batch, &records, 100);
    assert_self_contained(&page);
    // Counts per verdict and reason, as the summary line of `check` gives them.
    for (verdict, n) in [("Pass", 4), ("WeakPass", 2), ("Fail", 4)] {
        let row = format!(
            "<tr class=\"verdict\" data-verdict=\"{verdict}\"><td><span class=\"badge v-{verdict}\">{verdict}</span></td><td class=\"n\">{n}</td></tr>"
        );
        assert!(page.contains(&row), "{row}");
    }
    assert!(
        page.contains("data-reason=\"CentralError\"><td>CentralError</td><td class=\"n\">1</td>")
    );
    assert!(page.contains("data-reason=\"LocalError\"><td>LocalError</td><td class=\"n\">3</td>"));
    assert!(page.contains("<span id=\"mt-total\" data-count=\"10\">10 multitraces</span>"));
    // The rows are the records, in input order.
    let rows = rows(&page);
    assert_eq!(rows.len(), 10);
    for (row, rec) in rows.iter().zip(&records) {
        assert_eq!(row.0, rec.name());
        assert_eq!(
            ["Pass", "WeakPass", "Fail", "Inconclusive", "Error"][row.1 as usize],
            rec.verdict
        );
        assert_eq!(row.3, rec.time_us);
        assert_eq!(row.4, rec.explanation.clone().unwrap_or_default());
        assert_eq!(row.5 >= 0, rec.verdict == "Fail");
    }
    // example2: brok consumed brok?begin, then brok?pub (its action 2) is blocked: the model
    // allows brok?sub there.
    let name = records
        .iter()
        .find(|r| r.trace.ends_with("example2.htf"))
        .unwrap()
        .name()
        .to_string();
    let a = article(&page, &name);
    let brok = &a[a.find("data-location=\"brok\"").unwrap()..];
    let brok = &brok[..brok.find("</div>").unwrap()];
    assert!(
        brok.contains(
            "<span class=\"act done\" data-position=\"1\" title=\"action 1\">brok?begin</span>"
        ),
        "{brok}"
    );
    assert!(brok.contains("<span class=\"cut\""), "{brok}");
    assert!(
        brok.contains("<span class=\"act blocked\" data-position=\"2\" title=\"action 2: not allowed here; the model allows brok?sub\">brok?pub</span>"),
        "{brok}"
    );
    // Exactly one blocked action in that failure, and clt1's three actions are consumed.
    assert_eq!(a.matches("act blocked").count(), 1);
    let clt1 = &a[a.find("data-location=\"clt1\"").unwrap()..];
    let clt1 = &clt1[..clt1.find("</div>").unwrap()];
    assert_eq!(clt1.matches("act done").count(), 3, "{clt1}");
    assert!(a.contains(
        "<td>brok</td><td>2</td><td><code>brok?pub</code></td><td><code>brok?sub</code></td><td>the model, at the furthest consistent point</td>"
    ));
    // A LocalError: the action its local verifier rejects is highlighted.
    let name = records
        .iter()
        .find(|r| r.trace.ends_with("forward_without_sub.htf"))
        .unwrap()
        .name()
        .to_string();
    let a = article(&page, &name);
    assert!(
        a.contains("class=\"act blocked\" data-position=\"3\""),
        "{a}"
    );
    // Co-localized components are lanes of their own.
    let name = records
        .iter()
        .find(|r| r.trace.ends_with("coloc_begin_received_before_sent.htf"))
        .unwrap()
        .name()
        .to_string();
    assert!(article(&page, &name).contains("data-location=\"clt1,brok\""));
    // The model's diagram is in the page.
    assert!(page.contains("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"mt-diagram\""));
    assert!(page.contains(">begin</text>"));
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn only_the_first_failures_are_shown_in_full() {
    let engine = mqtt_engine();
    let batch = Batch::new(&engine, CheckOptions::default(), BatchOptions::default());
    let files =
        collect_traces(&[root().join("fixtures/seed004-mqtt/traces")], &mut |_| {}).unwrap();
    let records = run(&batch, files);
    let (_path_dir, path) = temp("two.html");
    let page = write_report(&path, &engine, &batch, &records, 2);
    assert_eq!(page.matches("<article class=\"failure\"").count(), 2);
    assert!(page.contains("The first 2 of 4 failures in full"));
    let rows = rows(&page);
    let full: Vec<i64> = rows.iter().filter(|r| r.1 == 2).map(|r| r.5).collect();
    assert_eq!(full, [0, 1, -1, -1]);
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn json_lines_are_read_again_and_standard_input_is_drawn_from_the_diagnosis() {
    let engine = mqtt_engine();
    let batch = Batch::new(&engine, CheckOptions::default(), BatchOptions::default());
    let (_jsonl_dir, jsonl) = temp("in.jsonl");
    std::fs::write(
        &jsonl,
        concat!(
            "{\"id\": \"ok\", \"traces\": {\"clt1\": [\"clt1!begin\"]}}\n",
            "\n",
            "{\"id\": \"</script><b>x\", \"traces\": {\"clt1\": [\"clt1!begin\", \"clt1!pub\"], \"brok\": [\"brok?begin\", \"brok?pub\"], \"clt2\": [\"clt2!sub\"]}}\n",
            "{\"traces\": {\"brok\": [\"brok?pub\"]}}\n",
        ),
    )
    .unwrap();
    let records = run(&batch, vec![jsonl.clone()]);
    assert_eq!(
        records
            .iter()
            .map(|r| r.verdict.as_str())
            .collect::<Vec<_>>(),
        ["WeakPass", "Fail", "Fail"]
    );
    let (_path_dir, path) = temp("jsonl.html");
    let page = write_report(&path, &engine, &batch, &records, 100);
    // The id cannot close the script element, and shows as text.
    assert!(!page.contains("</script><b>x"));
    assert!(page.contains("&lt;/script&gt;&lt;b&gt;x"));
    let rows = rows(&page);
    assert_eq!(rows[1].0, "</script><b>x");
    // Line 3 and line 4 were read again: their lanes hold their actions.
    let a = article(&page, "&lt;/script&gt;&lt;b&gt;x");
    assert!(
        a.contains(">brok?begin</span>") && a.contains(">clt2!sub</span>"),
        "{a}"
    );
    assert!(
        a.contains("class=\"act blocked\" data-position=\"2\""),
        "{a}"
    );
    let name = format!("{}:4", jsonl.display());
    assert!(article(&page, &escape(&name)).contains("class=\"act blocked\" data-position=\"1\" title=\"action 1: not allowed here; the model allows brok?begin\">brok?pub</span>"));
    // The same records as if from standard input: no traces, the diagnosis only.
    let stdin: Vec<Record> = records
        .iter()
        .map(|r| Record {
            trace: r.trace.replace(&jsonl.display().to_string(), "<stdin>"),
            ..r.clone()
        })
        .collect();
    let page = write_report(&path, &engine, &batch, &stdin, 100);
    let a = article(&page, "&lt;stdin&gt;:4");
    assert!(a.contains("could not be read again"));
    assert!(
        a.contains("class=\"act blocked\" data-position=\"1\""),
        "{a}"
    );
    assert!(a.contains(">brok?pub</span>"), "{a}");
    std::fs::remove_file(&path).unwrap();
    std::fs::remove_file(&jsonl).unwrap();
}

/// Issue 22: names sharing a prefix of characters outside the BMP (two UTF-16 units each,
/// which the page's `slice` counts) come out whole: `😀😀beta` after `😀😀alpha`, not `😀beta`.
#[test]
fn names_outside_the_bmp_keep_their_prefix() {
    let engine = mqtt_engine();
    let batch = Batch::new(&engine, CheckOptions::default(), BatchOptions::default());
    let names = ["😀😀alpha", "😀😀beta", "😀é😀", "😀é😀x", "z"];
    let items = names.iter().map(|n| Item {
        trace: n.to_string(),
        id: None,
        traces: vec![("clt1".into(), vec!["clt1!begin".into()])],
    });
    let mut records = Vec::new();
    batch
        .run_items(items, |o| {
            records.push(o.record);
            Ok::<(), std::convert::Infallible>(())
        })
        .unwrap();
    let (_path_dir, path) = temp("non-bmp.html");
    let page = write_report(&path, &engine, &batch, &records, 0);
    let got: Vec<String> = rows(&page).into_iter().map(|r| r.0).collect();
    assert_eq!(got, names);
    std::fs::remove_file(&path).unwrap();
}

fn escape(s: &str) -> String {
    multitrace_report::html::escape(s)
}

#[test]
fn an_unfinished_report_leaves_no_file() {
    let engine = mqtt_engine();
    // A directory of its own: the other tests of this binary write beside `temp` at once.
    let (_dir_dir, dir) = temp("unfinished");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("unfinished.html");
    let before = std::fs::read_dir(&dir).unwrap().count();
    {
        let setup = ReportSetup::new(engine.model(), "m");
        let w = ReportWriter::create(&path, setup, ReportOptions::default()).unwrap();
        assert!(w.is_empty());
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), before + 1);
    }
    assert!(!path.exists());
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), before);
    // An unwritable place is an error naming the file, not a panic.
    let bad = dir.join("no/such/dir/r.html");
    let e = ReportWriter::create(
        &bad,
        ReportSetup::new(engine.model(), "m"),
        ReportOptions::default(),
    )
    .err()
    .unwrap();
    assert!(e.to_string().contains("no/such/dir/r.html"), "{e}");
}

#[test]
fn a_hundred_thousand_multitraces_give_a_compact_page() {
    let engine = mqtt_engine();
    let batch = Batch::new(&engine, CheckOptions::default(), BatchOptions::default());
    let n = 100_000;
    let items = (0..n).map(|i| Item {
        trace: format!("runs/day-{:02}/run-{i:06}", i / 5000),
        id: None,
        traces: vec![
            ("clt1".into(), vec!["clt1!begin".into(), "clt1!pub".into()]),
            (
                "brok".into(),
                if i % 10 == 0 {
                    vec!["brok?pub".into()]
                } else {
                    vec!["brok?begin".into()]
                },
            ),
        ],
    });
    let (_path_dir, path) = temp("big.html");
    let setup = ReportSetup::new(engine.model(), "mqtt");
    let mut w = ReportWriter::create(&path, setup, ReportOptions::default()).unwrap();
    let start = Instant::now();
    let mut failures = Vec::new();
    batch
        .run_items(items, |o| {
            if o.record.verdict == "Fail" && failures.len() < 100 {
                failures.push(o.record.trace.clone());
            }
            w.add(&o.record)
        })
        .unwrap();
    let stats = w
        .finish(&mut |recs: &[&Record]| {
            recs.iter()
                .map(|r| {
                    assert!(failures.contains(&r.trace));
                    Some(vec![
                        (
                            "clt1".to_string(),
                            vec!["clt1!begin".to_string(), "clt1!pub".to_string()],
                        ),
                        ("brok".to_string(), vec!["brok?pub".to_string()]),
                    ])
                })
                .collect()
        })
        .unwrap();
    let elapsed = start.elapsed();
    assert_eq!(stats.multitraces, n);
    assert_eq!(stats.failures, n / 10);
    assert_eq!(stats.full_failures, 100);
    let page = std::fs::read_to_string(&path).unwrap();
    assert_eq!(page.len() as u64, stats.bytes);
    assert_eq!(page.matches("<article class=\"failure\"").count(), 100);
    assert_eq!(rows(&page).len(), n);
    assert!(page.contains("data-count=\"100000\">100,000 multitraces</span>"));
    // Compact: under 200 bytes per multitrace on average here (names share prefixes; since
    // WeakPass records explain what is left, about 150: a follow-up should share those texts).
    assert!(stats.bytes < 200 * n as u64, "{} bytes", stats.bytes);
    eprintln!(
        "100,000 multitraces: report of {} bytes, checked and written in {elapsed:?}",
        stats.bytes
    );
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn counts_have_thousands_separators() {
    use multitrace_report::html::thousands;
    let cases = [
        (0, "0"),
        (999, "999"),
        (1000, "1,000"),
        (100_000, "100,000"),
        (1_234_567, "1,234,567"),
    ];
    for (n, s) in cases {
        assert_eq!(thousands(n), s);
    }
}
