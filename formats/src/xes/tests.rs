use super::write::epoch_millis;
use super::*;
use crate::events::RunOut;
use crate::events::{read_runs, EventOptions};
use multitrace_model::artifact::decode;
use multitrace_model::model::CompiledModel;
use proptest::prelude::*;
use std::path::{Path, PathBuf};

fn model() -> CompiledModel {
    decode(include_bytes!(
        "../../../fixtures/golden/seed004-mqtt.v2.mtm"
    ))
    .unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("multitrace-xes-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn runs(path: &Path, opts: &XesOptions) -> Vec<RunOut> {
    let m = model();
    let files = [path.to_path_buf()];
    read_xes_runs(&m.alphabet, &files, opts).collect()
}

/// The local traces of an item, without the file positions.
fn traces(r: &RunOut) -> (Option<String>, Vec<(String, Vec<String>)>) {
    match r {
        RunOut::Item(i) => (i.id.clone(), i.traces.clone()),
        RunOut::Error(e) => panic!("an error record: {e:?}"),
    }
}

fn error(r: &RunOut) -> String {
    match r {
        RunOut::Error(rec) => format!("{rec:?}"),
        RunOut::Item(i) => panic!("an item: {i:?}"),
    }
}

/// A run id and its (location, actions) pairs, as written.
type Written = (String, Vec<(String, Vec<String>)>);

const LOG: &str = r#"<?xml version="1.0" encoding="UTF-8" ?>
<log xes.version="1.0" xmlns="http://www.xes-standard.org/">
  <extension name="Concept" prefix="concept" uri="http://www.xes-standard.org/concept.xesext"/>
  <global scope="event"><string key="concept:name" value="__INVALID__"/></global>
  <string key="concept:name" value="a log"/>
  <trace>
    <string key="concept:name" value="r1"/>
    <event>
      <string key="concept:name" value="?begin"/>
      <string key="org:resource" value="brok"/>
      <date key="time:timestamp" value="2024-05-01T12:00:01.000+02:00"/>
      <list key="extra"><string key="concept:name" value="nested, ignored"/></list>
    </event>
    <event>
      <string key="concept:name" value="clt1!begin"/>
      <date key="time:timestamp" value="2024-05-01T12:00:00.500+02:00"/>
    </event>
    <event>
      <string key="concept:name" value="clt1!end"/>
      <date key="time:timestamp" value="2024-05-01T10:00:02Z"/>
    </event>
    <event>
      <string key="concept:name" value="?end"/>
      <string key="org:resource" value="brok"/>
      <date key="time:timestamp" value="2024-05-01T10:00:03Z"/>
    </event>
  </trace>
  <trace>
    <event>
      <string key="concept:name" value="clt1!begin"/>
    </event>
  </trace>
</log>
"#;

#[test]
fn traces_are_runs_as_the_events_path_groups_them() {
    let dir = scratch("oracle");
    let xes = dir.join("log.xes");
    std::fs::write(&xes, LOG).unwrap();
    let opts = XesOptions {
        lifeline_key: Some("org:resource".into()),
        ..XesOptions::default()
    };
    let got = runs(&xes, &opts);
    assert_eq!(got.len(), 2);
    // The oracle: the same events as JSON Lines through `check --events`' reader.
    let jsonl = dir.join("log.jsonl");
    std::fs::write(
        &jsonl,
        r#"{"run":"r1","action":"brok?begin","order":"2024-05-01T12:00:01+02:00"}
{"run":"r1","action":"clt1!begin","order":"2024-05-01T12:00:00.5+02:00"}
{"run":"r1","action":"clt1!end","order":"2024-05-01T10:00:02Z"}
{"run":"r1","action":"brok?end","order":"2024-05-01T10:00:03Z"}
"#,
    )
    .unwrap();
    let m = model();
    let expected: Vec<RunOut> = read_runs(&m.alphabet, &[jsonl], &EventOptions::default())
        .unwrap()
        .collect();
    assert_eq!(traces(&got[0]), traces(&expected[0]));
    // The second trace has no name and no timestamp: located error naming the attribute.
    let e = error(&got[1]);
    assert!(
        e.contains(
            "log.xes:29: bad event of run \\\"trace 2\\\": missing field \\\"time:timestamp\\\""
        ),
        "{e}"
    );
    // In document order it is a run.
    let got = runs(
        &xes,
        &XesOptions {
            order: XesOrder::Document,
            ..opts.clone()
        },
    );
    assert_eq!(
        traces(&got[1])
            .1
            .iter()
            .map(|(_, a)| a.len())
            .sum::<usize>(),
        1
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn broken_files_give_located_error_records() {
    let dir = scratch("bad");
    let cases = [
        (
            "notxml.xes",
            "<log>\n<trace>\n<event></trace>\n",
            // The `</trace>` that closes nothing open: line 3, column 8.
            "notxml.xes:3:8: not well-formed XML",
        ),
        (
            "root.xes",
            "<?xml version=\"1.0\"?>\n<html/>\n",
            "root.xes:2:1: not an XES log: the root element is <html>",
        ),
        (
            "open.xes",
            "<log>\n<trace>\n<event>\n",
            "open.xes:4:1: the file ends inside the <trace> opened at line 2",
        ),
        (
            "attr.xes",
            "<log><trace><string value=\"x\"/></trace></log>",
            "attr.xes:1:13: <string> needs `key` and `value`",
        ),
    ];
    for (name, text, needle) in cases {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        let got = runs(&p, &XesOptions::default());
        assert_eq!(got.len(), 1, "{name}: {got:?}");
        // A trace open at the error: the record is its run's.
        if name != "root.xes" {
            let RunOut::Error(t) = &got[0] else {
                panic!("{name}")
            };
            assert_eq!(t.id.as_deref(), Some("trace 1"), "{name}");
            let m = &t.error.as_ref().unwrap().message;
            assert!(m.contains("gets no verdict"), "{m}");
        }
        let e = error(&got[0]);
        assert!(e.contains(needle), "{name}: {e}");
        // The record carries the position as fields too.
        let (line, column) = match &got[0] {
            RunOut::Error(r) => {
                let er = r.error.as_ref().expect("an error");
                (er.line, er.column)
            }
            RunOut::Item(i) => panic!("{i:?}"),
        };
        let at: Vec<&str> = needle.split(':').collect();
        assert_eq!(
            line.map(|l| l.to_string()).as_deref(),
            Some(at[1]),
            "{name}"
        );
        assert_eq!(
            column.map(|c| c.to_string()).as_deref(),
            Some(at[2]),
            "{name}"
        );
    }
    // A position past a multi-byte character counts characters, and a byte order mark is not
    // a column.
    let p = dir.join("utf8.xes");
    std::fs::write(
        &p,
        "\u{feff}<log><trace><string key=\"\u{e9}\u{e9}\" value=\"x\"/><x></trace></log>",
    )
    .unwrap();
    let e = error(&runs(&p, &XesOptions::default())[0]);
    assert!(
        e.contains("utf8.xes:1:41: <x> needs `key` and `value`"),
        "{e}"
    );
    let got = runs(&dir.join("missing.xes"), &XesOptions::default());
    assert!(error(&got[0]).contains("cannot read"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 50: XML that stops parsing inside a trace. The traces closed before it are complete
/// and keep their runs; the open one gets an Error with its name, never a verdict on the
/// events read of it, and its record says the rest of the file is not read.
#[test]
fn a_trace_open_at_an_xml_error_gets_an_error_and_those_before_keep_their_runs() {
    let dir = scratch("open-trace");
    let ev = |a: &str| format!("<event><string key=\"concept:name\" value=\"{a}\"/></event>");
    let trace = |n: &str, body: &str| {
        format!("<trace><string key=\"concept:name\" value=\"{n}\"/>{body}</trace>\n")
    };
    let a = trace("A", &(ev("clt1!begin") + &ev("brok?begin")));
    let whole = format!("<log>\n{a}{}</log>\n", trace("C", &ev("clt1!begin")));
    // B is cut by a stray `</log>` inside an event (not well-formed), C follows.
    let broken = format!(
        "<log>\n{a}<trace><string key=\"concept:name\" value=\"B\"/>\n{}<event></log>\n{}</log>\n",
        ev("clt1!begin"),
        trace("C", &ev("clt1!begin"))
    );
    let opts = XesOptions {
        order: XesOrder::Document,
        ..XesOptions::default()
    };
    let (pw, pb) = (dir.join("whole.xes"), dir.join("broken.xes"));
    std::fs::write(&pw, whole).unwrap();
    std::fs::write(&pb, broken).unwrap();
    for block in [None, Some(16)] {
        let m = model();
        let read = |p: &Path| -> Vec<RunOut> {
            XesRuns::open_with(&m.alphabet, p, &opts, block)
                .unwrap()
                .collect()
        };
        let (w, b) = (read(&pw), read(&pb));
        assert_eq!(b.len(), 2, "{b:?}");
        assert_eq!(traces(&b[0]), traces(&w[0]), "A keeps its run");
        let RunOut::Error(t) = &b[1] else {
            panic!("{b:?}")
        };
        assert_eq!(t.id.as_deref(), Some("B"));
        let e = t.error.as_ref().unwrap();
        assert_eq!((e.file.as_deref(), e.line), (pb.to_str(), Some(4)));
        assert!(
            e.message.contains("opened at line 3") && e.message.contains("rest of the file"),
            "{}",
            e.message
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn gzip_is_read_on_the_fly() {
    use std::io::Write as _;
    let dir = scratch("gz");
    let p = dir.join("log.xes.gz");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(LOG.as_bytes()).unwrap();
    std::fs::write(&p, gz.finish().unwrap()).unwrap();
    let opts = XesOptions {
        lifeline_key: Some("org:resource".into()),
        order: XesOrder::Document,
        ..XesOptions::default()
    };
    let got = runs(&p, &opts);
    assert_eq!(got.len(), 2);
    assert_eq!(traces(&got[0]).0.as_deref(), Some("r1"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn dates_are_written_as_rfc_3339() {
    assert_eq!(epoch_millis(0), "1970-01-01T00:00:00.000+00:00");
    assert_eq!(
        epoch_millis(86_400_000 + 1),
        "1970-01-02T00:00:00.001+00:00"
    );
    for ms in [0i64, 1, 999, 59_999, 951_868_800_123, 4_102_444_800_000] {
        let t = crate::events::parse_timestamp(&epoch_millis(ms)).unwrap();
        assert_eq!(t, i128::from(ms) * 1_000_000);
    }
}

proptest! {
    /// Written multitraces read back to the same local traces (in document order and by the
    /// written timestamps alike).
    #[test]
    fn written_logs_read_back(picks in prop::collection::vec(prop::collection::vec(0usize..64, 0..6), 1..4)) {
        let m = model();
        let names = m.alphabet.location_names().to_vec();
        let letters: Vec<String> = m.alphabet.names().to_vec();
        let runs_in: Vec<Written> = picks.iter().enumerate().map(|(k, p)| {
            let mut per: Vec<(String, Vec<String>)> = names.iter().map(|n| (n.clone(), Vec::new())).collect();
            for &i in p {
                let l = multitrace_model::nfa::LetterId((i % letters.len()) as u32);
                per[m.alphabet.location(l).index()].1.push(letters[l.index()].clone());
            }
            (format!("run & <{k}>"), per)
        }).collect();
        let mut out = Vec::new();
        write_xes(&mut out, runs_in.iter().map(|(id, t)| (id.clone(), t.as_slice()))).unwrap();
        let dir = scratch("prop");
        let p = dir.join("w.xes");
        std::fs::write(&p, &out).unwrap();
        for order in [XesOrder::Document, XesOrder::Key("time:timestamp".into())] {
            let got = runs(&p, &XesOptions { order, ..XesOptions::default() });
            prop_assert_eq!(got.len(), runs_in.len());
            for (g, (id, t)) in got.iter().zip(&runs_in) {
                let (gid, gt) = traces(g);
                prop_assert_eq!(gid.as_deref(), Some(id.as_str()));
                if t.iter().any(|(_, a)| !a.is_empty()) {
                    prop_assert_eq!(&gt, t);
                }
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// The records of `path` read by the full parser alone, and by the scanner first (blocks of
/// `block` bytes) with whether it gave up.
fn both(path: &Path, opts: &XesOptions, block: usize) -> (Vec<RunOut>, Vec<RunOut>, bool) {
    let m = model();
    let read = |b: Option<usize>| -> (Vec<RunOut>, bool) {
        match XesRuns::open_with(&m.alphabet, path, opts, b) {
            Ok(mut r) => {
                let v: Vec<RunOut> = r.by_ref().collect();
                (v, r.bailed)
            }
            Err(e) => (vec![e], false),
        }
    };
    let (full, _) = read(None);
    let (fast, bailed) = read(Some(block));
    (full, fast, bailed)
}

/// Pieces of a log: what XES writers write (`usual`), and what they rarely do (each of which
/// the scanner must either read as the full parser does, or hand back to it).
fn event_text(pick: &[usize]) -> String {
    const ACTIONS: [&str; 8] = [
        "clt1!begin",
        "brok?begin",
        "?pub",
        "!begin",
        "clt1!pub",
        "brok?pub",
        "nope!x",
        "clt2?pub",
    ];
    const TIMES: [&str; 10] = [
        "2024-05-01T12:00:01.000+02:00",
        "2024-05-01T10:00:02Z",
        "1970-01-01T00:00:00.5+00:00",
        "2024-05-01 10:00:03",
        " 2024-05-01T10:00:03Z ",
        "12",
        "3.5",
        "2024-13-01T10:00:03Z",
        "2024-05-01T10:00:03.1234567891Z",
        "yesterday",
    ];
    let action = ACTIONS[pick[0] % ACTIONS.len()];
    let time = TIMES[pick[1] % TIMES.len()];
    let nl = if pick[2].is_multiple_of(2) {
        "\n      "
    } else {
        ""
    };
    let mut e = format!("<event>{nl}<string key=\"concept:name\" value=\"{action}\"/>");
    if !pick[3].is_multiple_of(3) {
        e += &format!("{nl}<string key=\"org:resource\" value=\"brok\"/>");
    }
    if !pick[4].is_multiple_of(5) {
        e += &format!("{nl}<date key='time:timestamp' value=\"{time}\" />");
    }
    if pick[5].is_multiple_of(4) {
        e += "<list key=\"extra\"><string key=\"concept:name\" value=\"nested\"/></list>";
    }
    e + nl + "</event>"
}

const ODD: [&str; 16] = [
    "<!-- a comment -->",
    "<![CDATA[x]]>",
    "text",
    "<trace/>",
    "<string value=\"no key\"/>",
    "<string key=\"a\" key=\"b\" value=\"c\"/>",
    "<string key = \"a\" value=\"c\"/>",
    "<string key=\"a\" value=\"&unknown;\"/>",
    "<string key=\"concept:name\" value=\"&amp;&#x41;\tb\"/>",
    "</event>",
    "<event>",
    "\u{e9}",
    "<?pi x?>",
    "</trace><trace>",
    "<string key=\"concept:name\" value=\"a<b\"/>",
    "<string key=\"concept:name\" value='\"quoted\"'/>",
];

/// A log of `traces` (event picks per trace), with odd pieces inserted at `odd` (position,
/// piece) and cut at `cut` bytes when given.
fn log_text(traces: &[Vec<Vec<usize>>], odd: &[(usize, usize)], bom: bool) -> Vec<String> {
    let mut t: Vec<String> = Vec::new();
    if bom {
        t.push("\u{feff}".into());
    }
    t.push("<?xml version=\"1.0\" encoding=\"UTF-8\" ?>\n".into());
    t.push("<!-- OpenXES -- like -->\n".into());
    t.push("<log xes.version=\"1.0\" xmlns=\"http://www.xes-standard.org/\">\n".into());
    t.push("  <extension name=\"Concept\" prefix=\"concept\" uri=\"x\"/>\n".into());
    t.push("  <global scope=\"event\">\n<string key=\"concept:name\" value=\"__INVALID__\"/>\n</global>\n".into());
    for (k, events) in traces.iter().enumerate() {
        t.push("  <trace>\n".into());
        if k % 3 != 2 {
            t.push(format!(
                "    <string key=\"concept:name\" value=\"r{k} &amp; &lt;{k}&gt;\"/>\n"
            ));
        }
        for e in events {
            t.push(format!("    {}\n", event_text(e)));
        }
        t.push("  </trace>\n".into());
    }
    t.push("</log>\n".into());
    for &(at, piece) in odd {
        let at = at % (t.len() + 1);
        t.insert(at, ODD[piece % ODD.len()].to_string());
    }
    t
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// The scanner never disagrees with the full parser: on logs of the usual shape it reads
    /// them itself (it does not give up), and on logs with odd pieces, cut short or with a
    /// byte that is not UTF-8, the records are the full parser's, errors included.
    #[test]
    fn the_scanner_agrees_with_the_full_parser(
        traces in prop::collection::vec(
            prop::collection::vec(prop::collection::vec(0usize..1000, 6), 0..5), 0..5),
        odd in prop::collection::vec((0usize..1000, 0usize..1000), 0..3),
        cut in prop::option::weighted(0.15, 0usize..100_000),
        bad_byte in prop::option::weighted(0.1, 0usize..100_000),
        bom in any::<bool>(),
        block in 16usize..600,
        lifeline in any::<bool>(),
        document in any::<bool>(),
    ) {
        let mut text = log_text(&traces, &odd, bom).concat().into_bytes();
        if let Some(c) = cut {
            text.truncate(c % (text.len() + 1));
        }
        if let Some(b) = bad_byte {
            let n = text.len().max(1);
            text.insert(b % n, 0xff);
        }
        let dir = scratch("agree");
        let p = dir.join("log.xes");
        std::fs::write(&p, &text).unwrap();
        let opts = XesOptions {
            lifeline_key: lifeline.then(|| "org:resource".to_string()),
            order: if document { XesOrder::Document } else { XesOrder::Key("time:timestamp".into()) },
            ..XesOptions::default()
        };
        let (full, fast, bailed) = both(&p, &opts, block);
        prop_assert_eq!(&fast, &full);
        if odd.is_empty() && cut.is_none() && bad_byte.is_none() {
            prop_assert!(!bailed, "the scanner gave up on a usual log");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The timestamps `write_xes` writes are read back to the millisecond they were made from.
    #[test]
    fn written_timestamps_are_read_back(ms in -10_000_000_000_000i64..10_000_000_000_000) {
        let w = epoch_millis(ms);
        prop_assert_eq!(crate::events::parse_timestamp(&w), Some(i128::from(ms) * 1_000_000));
    }
}

#[test]
fn the_scanner_reads_what_gen_writes_itself() {
    // The usual shape, from `write_xes`, cut across many blocks: no fallback, same records.
    let m = model();
    let letters: Vec<String> = m.alphabet.names().to_vec();
    let names = m.alphabet.location_names().to_vec();
    let runs_in: Vec<Written> = (0..40)
        .map(|k| {
            let per = names
                .iter()
                .enumerate()
                .map(|(i, n)| {
                    let own: Vec<String> = letters
                        .iter()
                        .enumerate()
                        .filter(|(l, _)| {
                            m.alphabet
                                .location(multitrace_model::nfa::LetterId(*l as u32))
                                .index()
                                == i
                        })
                        .map(|(_, a)| a.clone())
                        .cycle()
                        .take(k % 7)
                        .collect();
                    (n.clone(), own)
                })
                .collect();
            (format!("run {k}"), per)
        })
        .collect();
    let mut out = Vec::new();
    write_xes(
        &mut out,
        runs_in.iter().map(|(id, t)| (id.clone(), t.as_slice())),
    )
    .unwrap();
    let dir = scratch("gen");
    let p = dir.join("w.xes");
    std::fs::write(&p, &out).unwrap();
    for block in [16, 100, 1 << 20] {
        let (full, fast, bailed) = both(&p, &XesOptions::default(), block);
        assert!(!bailed, "block {block}");
        assert_eq!(fast, full);
        assert_eq!(fast.len(), 40);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
