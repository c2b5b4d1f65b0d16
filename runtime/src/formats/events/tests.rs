//! Readers and grouping of event logs.
use super::*;
use crate::artifact::decode;
use crate::batch::{Batch, BatchOptions};
use crate::check::{CheckOptions, Engine};
use crate::record::Record;
use std::path::PathBuf;

fn engine() -> Engine {
    Engine::new(
        decode(include_bytes!(
            "../../../../fixtures/golden/seed004-mqtt.v2.mtm"
        ))
        .unwrap(),
    )
}

fn read(text: &str, format: EventFormat, opts: &EventOptions) -> Vec<RawEvent> {
    let mut r = EventReader::new(
        "ev".into(),
        Box::new(std::io::Cursor::new(text.as_bytes().to_vec())),
        format,
        opts,
    );
    let mut out = Vec::new();
    while let Some(e) = r.next_event().unwrap() {
        out.push(e);
    }
    out
}

/// Seconds from 1970-01-01 to the date, by counting days year by year and month by month (an
/// oracle for `parse_timestamp`'s closed formula).
fn days_by_counting(y: i64, mo: i64, d: i64) -> i64 {
    let leap = |y: i64| (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let year = |y: i64| if leap(y) { 366 } else { 365 };
    let mut days: i64 = if y >= 1970 {
        (1970..y).map(year).sum()
    } else {
        -(y..1970).map(year).sum::<i64>()
    };
    let months = [
        31,
        if leap(y) { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    days += months[..(mo - 1) as usize].iter().sum::<i64>();
    days + d - 1
}

proptest::proptest! {
    /// Every well-formed timestamp, separators, fractions (longer than nanoseconds too) and
    /// zones included, is the instant counted day by day.
    #[test]
    fn timestamps_are_the_instants_counted_day_by_day(
        y in 0i64..10_000, mo in 1i64..=12, d in 1i64..=28, h in 0i64..24, mi in 0i64..60,
        sec in 0i64..60, frac in proptest::option::of("[0-9]{1,12}"),
        sep in proptest::sample::select(vec!['T', 't', ' ']),
        zone in proptest::option::of((proptest::bool::ANY, 0i64..24, 0i64..60)),
        z in proptest::sample::select(vec!["", "Z", "z"]),
    ) {
        let mut text = format!("{y:04}-{mo:02}-{d:02}{sep}{h:02}:{mi:02}:{sec:02}");
        let mut nanos: i128 = 0;
        if let Some(f) = &frac {
            text.push('.');
            text.push_str(f);
            let kept = &f[..f.len().min(9)];
            nanos = kept.parse::<i128>().unwrap() * 10i128.pow(9 - kept.len() as u32);
        }
        let mut offset = 0i64;
        match zone {
            Some((plus, oh, om)) => {
                text.push_str(&format!("{}{oh:02}:{om:02}", if plus { '+' } else { '-' }));
                offset = (oh * 3600 + om * 60) * if plus { 1 } else { -1 };
            }
            None => text.push_str(z),
        }
        let secs = days_by_counting(y, mo, d) * 86_400 + h * 3600 + mi * 60 + sec - offset;
        let want = i128::from(secs) * 1_000_000_000 + nanos;
        proptest::prop_assert_eq!(parse_timestamp(&text), Some(want), "{}", text);
    }
}

#[test]
fn timestamps() {
    assert_eq!(parse_timestamp("1970-01-01T00:00:00Z"), Some(0));
    assert_eq!(
        parse_timestamp("1970-01-01T00:00:01.5Z"),
        Some(1_500_000_000)
    );
    assert_eq!(parse_timestamp("1970-01-01 01:00:00+01:00"), Some(0));
    assert_eq!(
        parse_timestamp("2000-03-01T00:00:00"),
        Some(951_868_800_000_000_000)
    );
    assert_eq!(parse_timestamp("2000-13-01T00:00:00"), None);
    assert_eq!(parse_timestamp("yesterday"), None);
    assert!(matches!(OrderKey::parse("12"), Ok(OrderKey::Int(12))));
    assert!(matches!(OrderKey::parse("1.5"), Ok(OrderKey::Float(_))));
    assert_eq!(
        OrderKey::parse(" soon "),
        Err(OrderKeyError::Text {
            text: "soon".into()
        })
    );
}

#[test]
fn bad_events_are_typed() {
    let opts = EventOptions::default();
    let text = "{\"run\":1,\"order\":1}\n{\"run\":1,\"action\":\"a\",\"order\":true}\n[]\n";
    let bodies: Vec<_> = read(text, EventFormat::Jsonl, &opts)
        .into_iter()
        .map(|e| e.body.unwrap_err())
        .collect();
    assert_eq!(
        bodies,
        vec![
            EventError::Missing {
                field: "action".into(),
                role: Field::Action
            },
            EventError::OrderKey {
                field: Some("order".into()),
                error: OrderKeyError::Type {
                    value: "true".into()
                }
            },
            EventError::NotAnObject,
        ]
    );
    assert_eq!(
        bodies[1].to_string(),
        "field \"order\": order key true is neither a number nor an RFC 3339 timestamp"
    );
    let csv = read("run,action,order\n1,a,\"x\n", EventFormat::Csv, &opts);
    assert_eq!(csv[0].body, Err(EventError::UnclosedQuote));
}

#[test]
fn csv_split() {
    assert_eq!(
        split_csv("a,\"b,c\",\"d\"\"e\"").unwrap(),
        vec!["a", "b,c", "d\"e"]
    );
    assert_eq!(split_csv("a,\"b"), None);
    assert_eq!(split_csv("").unwrap(), vec![""]);
}

#[test]
fn groups_sorts_and_reports() {
    let e = engine();
    let g = Grouper::new(&e.model().alphabet);
    let opts = EventOptions::default();
    let text = r#"{"run":"r1","action":"brok?begin","order":2}
{"run":"r2","action":"clt1!begin","order":1}
{"run":"r1","action":"clt1!begin","order":1}
{"run":"r1","action":"brok?pub","order":2}
{"run":"r3","action":"nope","order":1}
{"action":"clt1!begin","order":1}
{"run":"r3","action":"clt1!begin","order":"x"}
"#;
    let out = g.group(read(text, EventFormat::Jsonl, &opts));
    assert_eq!(out.len(), 4);
    let RunOut::Item(r1) = &out[0] else { panic!() };
    assert_eq!(r1.trace, "ev:1");
    assert_eq!(r1.id.as_deref(), Some("r1"));
    let brok = r1.traces.iter().find(|(k, _)| k == "brok").unwrap();
    // Equal keys keep input order.
    assert_eq!(brok.1, vec!["brok?begin", "brok?pub"]);
    let RunOut::Error(r3) = &out[2] else { panic!() };
    let err = r3.error.as_ref().unwrap();
    assert_eq!((err.file.as_deref(), err.line), (Some("ev"), Some(5)));
    assert!(
        err.message.contains("unknown action") && err.message.contains("2 bad events"),
        "{}",
        err.message
    );
    let RunOut::Error(orph) = &out[3] else {
        panic!()
    };
    assert!(orph
        .error
        .as_ref()
        .unwrap()
        .message
        .starts_with("ev:6: bad event (no run)"));
}

#[test]
fn csv_with_field_names() {
    let e = engine();
    let g = Grouper::new(&e.model().alphabet);
    let opts = EventOptions {
        run_field: "session".into(),
        action_field: "act".into(),
        order_field: "ts".into(),
        ..EventOptions::default()
    };
    let text =
        "ts,session,act\n2024-01-01T00:00:02Z,s,clt1!pub\n2024-01-01T00:00:01Z,s,\"clt1!begin\"\n";
    let out = g.group(read(text, EventFormat::Csv, &opts));
    let RunOut::Item(s) = &out[0] else {
        panic!("{out:?}")
    };
    let clt1 = s.traces.iter().find(|(k, _)| k == "clt1").unwrap();
    assert_eq!(clt1.1, vec!["clt1!begin", "clt1!pub"]);
    // Missing field.
    let out = g.group(read("ts,session,act\n1,s,\n", EventFormat::Csv, &opts));
    let RunOut::Error(r) = &out[0] else { panic!() };
    assert!(r
        .error
        .as_ref()
        .unwrap()
        .message
        .contains("missing field \"act\""));
}

#[test]
fn run_events_in_order_with_cap_and_sorted_mode() {
    let dir = std::env::temp_dir().join(format!("mt-events-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let a = dir.join("a.jsonl");
    let b = dir.join("b.jsonl");
    std::fs::write(&a, "{\"run\":1,\"action\":\"clt1!begin\",\"order\":1}\n{\"run\":2,\"action\":\"bad\",\"order\":1}\n").unwrap();
    std::fs::write(&b, "{\"run\":1,\"action\":\"brok?pub\",\"order\":1}\n{\"run\":3,\"action\":\"clt1!begin\",\"order\":1}\n").unwrap();
    let e = engine();
    let batch = Batch::new(
        &e,
        CheckOptions::default(),
        BatchOptions {
            jobs: 2,
            ..BatchOptions::default()
        },
    );
    let mut got = Vec::new();
    let files = vec![a.clone(), b.clone()];
    let n = batch
        .run_events(&files, &EventOptions::default(), &mut got)
        .unwrap();
    assert_eq!(n, 3);
    let v: Vec<_> = got
        .iter()
        .map(|r: &Record| (r.id.clone().unwrap(), r.verdict.clone()))
        .collect();
    assert_eq!(
        v,
        vec![
            ("1".into(), "Fail".into()),
            ("2".into(), "Error".into()),
            ("3".into(), "WeakPass".into())
        ]
    );
    // Sorted mode, two files each sorted by run: merged by run id, the same records.
    let sorted = EventOptions {
        sorted: true,
        ..EventOptions::default()
    };
    let mut got = Vec::new();
    batch.run_events(&files, &sorted, &mut got).unwrap();
    let w: Vec<_> = got
        .iter()
        .map(|r: &Record| (r.id.clone().unwrap(), r.verdict.clone()))
        .collect();
    assert_eq!(w, v);
    // A file not sorted: run 1 appears again after run 2, an Error for that part.
    let c = dir.join("c.jsonl");
    std::fs::write(&c, "{\"run\":1,\"action\":\"clt1!begin\",\"order\":1}\n{\"run\":2,\"action\":\"clt1!begin\",\"order\":1}\n{\"run\":1,\"action\":\"brok?pub\",\"order\":1}\n").unwrap();
    let mut got = Vec::new();
    batch.run_events(&[c], &sorted, &mut got).unwrap();
    let v: Vec<_> = got.iter().map(|r| r.verdict.clone()).collect();
    assert_eq!(v, vec!["WeakPass", "WeakPass", "Error"]);
    assert!(got[2]
        .explanation
        .as_ref()
        .unwrap()
        .contains("appears again"));
    // The cap.
    let capped = EventOptions {
        max_buffered_events: 3,
        ..EventOptions::default()
    };
    let err = batch
        .run_events(&files, &capped, &mut Vec::new())
        .unwrap_err();
    assert!(err.to_string().contains("--max-buffered-events"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

trait RunAll {
    fn run_events(
        &self,
        files: &[PathBuf],
        opts: &EventOptions,
        out: &mut Vec<Record>,
    ) -> Result<usize, EventsError>;
}

impl RunAll for Batch<'_> {
    fn run_events(
        &self,
        files: &[PathBuf],
        opts: &EventOptions,
        out: &mut Vec<Record>,
    ) -> Result<usize, EventsError> {
        run_events(self, files, opts, |o| {
            out.push(o.record);
            Ok::<(), std::convert::Infallible>(())
        })
        .unwrap()
    }
}
