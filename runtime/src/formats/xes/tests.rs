use super::*;
use crate::artifact::decode;
use crate::events::{read_runs, EventOptions};
use crate::model::CompiledModel;
use proptest::prelude::*;

fn model() -> CompiledModel {
    decode(include_bytes!(
        "../../../../fixtures/golden/seed004-mqtt.v2.mtm"
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
            ":3: not well-formed XML",
        ),
        (
            "root.xes",
            "<?xml version=\"1.0\"?>\n<html/>\n",
            ":2: not an XES log: the root element is <html>",
        ),
        (
            "open.xes",
            "<log>\n<trace>\n<event>\n",
            "the file ends inside the <trace> opened at line 2",
        ),
        (
            "attr.xes",
            "<log><trace><string value=\"x\"/></trace></log>",
            ":1: <string> needs `key` and `value`",
        ),
    ];
    for (name, text, needle) in cases {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        let got = runs(&p, &XesOptions::default());
        assert_eq!(got.len(), 1, "{name}");
        let e = error(&got[0]);
        assert!(e.contains(needle), "{name}: {e}");
    }
    let got = runs(&dir.join("missing.xes"), &XesOptions::default());
    assert!(error(&got[0]).contains("cannot read"));
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
                let l = crate::nfa::LetterId((i % letters.len()) as u32);
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
