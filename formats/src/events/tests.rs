//! Readers and grouping of event logs.
use super::*;
use multitrace_model::artifact::decode;
use multitrace_model::model::CompiledModel;

/// The MQTT model (its alphabet names the events).
fn mqtt() -> CompiledModel {
    decode(include_bytes!(
        "../../../fixtures/golden/seed004-mqtt.v2.mtm"
    ))
    .unwrap()
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
    let m = mqtt();
    let g = Grouper::new(&m.alphabet);
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
    let m = mqtt();
    let g = Grouper::new(&m.alphabet);
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

/// One event as a reader gives it, in a form both paths share: line, run id, and the action
/// and order key (or the error), as the grouping reads them (an action as its bytes replaced
/// when not UTF-8).
type Seen = (u32, Option<String>, Result<(String, OrderKey), EventError>);

/// Every event of `bytes`, read with the fast path (`fast`) or by `next_event` alone; a read
/// error ends the list (its message).
fn read_all(
    bytes: &[u8],
    format: EventFormat,
    opts: &EventOptions,
    fast: bool,
) -> Vec<Result<Seen, String>> {
    let mut r = EventReader::new(
        "ev".into(),
        Box::new(std::io::Cursor::new(bytes.to_vec())),
        format,
        opts,
    );
    let mut out = Vec::new();
    loop {
        let next = if fast {
            r.next_fast().map(|n| {
                n.map(|n| match n {
                    read::Next::Fast(ev) => (
                        ev.line,
                        Some(String::from_utf8_lossy(ev.run).into_owned()),
                        Ok((String::from_utf8_lossy(ev.action).into_owned(), ev.key)),
                    ),
                    read::Next::Event(ev) => (ev.line, ev.run, ev.body),
                })
            })
        } else {
            r.next_event()
                .map(|e| e.map(|ev| (ev.line, ev.run, ev.body)))
        };
        match next {
            Ok(Some(seen)) => out.push(Ok(seen)),
            Ok(None) => return out,
            Err(e) => {
                out.push(Err(e.to_string()));
                return out;
            }
        }
    }
}

/// Pieces of JSON Lines events, well formed or not: escapes, non-ASCII text, bytes that are
/// not UTF-8, odd white space, duplicate and escaped keys, numbers of every shape.
fn json_line() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
    use proptest::prelude::*;
    let key = proptest::sample::select(vec![
        "run",
        "action",
        "order",
        "x",
        "r\\u0075n",
        "ru\u{e9}",
        "run ",
        "",
    ]);
    let value = proptest::sample::select(vec![
        "\"clt1!begin\"",
        "\"brok?begin\"",
        "\"r1\"",
        "\"r\u{e9}\"",
        "\"r\\\"1\"",
        "12",
        "-3",
        "-0",
        "0",
        "1.5",
        "1e3",
        "true",
        "false",
        "null",
        "\"7\"",
        "\"2024-05-01T12:00:00Z\"",
        "\"2024-05-01 12:00:00+02:00\"",
        "[1]",
        "{\"a\":1}",
        "0012",
        "99999999999999999999",
        "18446744073709551615",
        "-9223372036854775809",
        "\"\"",
        "\"x\u{7f}\"",
        "\"\\u00e9\"",
        "\"clt1!beg\\u0069n\"",
        "\"\u{1F600}\"",
    ]);
    let ws = proptest::sample::select(vec!["", " ", "\t", "  ", "\r"]);
    let field = (ws.clone(), key, ws.clone(), value, ws.clone());
    (
        proptest::collection::vec(field, 0..5),
        proptest::sample::select(vec![",", " , ", ",,"]),
        ws,
        proptest::sample::select(vec!["", " ", "x", ",", "}"]),
        proptest::option::of((
            0usize..60,
            proptest::sample::select(vec![0xffu8, 0xc3, 0x80, 0]),
        )),
    )
        .prop_map(|(fields, sep, lead, tail, bad)| {
            let body: Vec<String> = fields
                .iter()
                .map(|(a, k, b, v, c)| format!("{a}\"{k}\"{b}:{v}{c}"))
                .collect();
            let mut line = format!("{lead}{{{}}}{tail}", body.join(sep)).into_bytes();
            // Now and then one byte replaced: not UTF-8, or a control character.
            if let Some((at, b)) = bad {
                if at < line.len() {
                    line[at] = b;
                }
            }
            line
        })
}

/// A well-formed event (fields in any order, odd white space, another field now and then),
/// or any line of [`json_line`].
fn event_line() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
    use proptest::prelude::*;
    let good = (
        proptest::sample::select(vec!["\"r1\"", "\"r2\"", "7", "\"r\u{e9}\""]),
        proptest::sample::select(vec!["\"clt1!begin\"", "\"brok?begin\"", "\"nope\""]),
        proptest::sample::select(vec!["1", "2", "\"2024-05-01T12:00:00Z\"", "\" 3 \""]),
        proptest::sample::select(vec!["", " ", "\t"]),
        0usize..6,
    )
        .prop_map(|(r, a, o, w, perm)| {
            let mut f = [
                format!("\"run\"{w}:{w}{r}"),
                format!("\"action\":{a}"),
                format!("\"order\":{o}"),
            ];
            f.rotate_left(perm % 3);
            if perm >= 3 {
                f.swap(0, 1);
            }
            format!("{w}{{{}}}{w}", f.join(",")).into_bytes()
        });
    prop_oneof![good, json_line()]
}

#[test]
fn the_fast_reader_takes_plain_events_in_place() {
    let opts = EventOptions::default();
    let text = "{\"run\":\"r1\",\"action\":\"a\",\"order\":1}\n".repeat(20);
    let mut r = EventReader::new(
        "ev".into(),
        Box::new(std::io::Cursor::new(text.into_bytes())),
        EventFormat::Jsonl,
        &opts,
    );
    let mut fast = 0;
    while let Some(n) = r.next_fast().unwrap() {
        fast += usize::from(matches!(n, read::Next::Fast(_)));
    }
    // The first events are read ahead to check the field names (not in place).
    assert!(fast >= 10, "{fast} of 20 events read in place");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(400))]

    /// The fast scan of a line as bytes agrees with the full parser of the line read as the
    /// reader reads it (UTF-8, bad bytes replaced) whenever it answers.
    #[test]
    fn the_byte_scan_agrees_with_the_parser(line in json_line()) {
        let opts = EventOptions::default();
        if let Some(s) = scan_bytes(&line, "run", "action", "order") {
            let text = String::from_utf8_lossy(&line);
            let (run, body) = jsonl_event_full(&text, &opts);
            proptest::prop_assert_eq!(Some(s.run.to_string()), run);
            let (a, k) = body.expect("the parser reads what the scan read");
            proptest::prop_assert_eq!(s.action, a.as_str());
            proptest::prop_assert_eq!(s.order, k);
        }
    }

    /// Files read with the fast path give the events `next_event` gives, line for line
    /// (JSON Lines and CSV; blank lines, CRLF, a last line without a break, lines over a
    /// small length limit; the limit large or small).
    #[test]
    fn the_fast_reader_reads_what_the_line_reader_reads(
        json in proptest::collection::vec(event_line(), 0..24),
        csv in proptest::collection::vec(
            proptest::collection::vec(
                proptest::sample::select(vec![
                    "r1", " r2 ", "clt1!begin", "brok?begin", "3", " 4", "2024-05-01T12:00:00Z",
                    "", "\"a,b\"", "\"r1\"", "x\u{e9}", "\u{a0}r3\u{a0}", "1.5", "nan",
                ]),
                0..5,
            ),
            0..14,
        ),
        breaks in proptest::collection::vec(proptest::sample::select(vec!["\n", "\r\n", "\n\n", "\r\r\n"]), 14),
        last_break in proptest::bool::ANY,
        small in proptest::option::of(20u64..90),
    ) {
        let opts = EventOptions {
            max_line_bytes: small.unwrap_or(crate::input::DEFAULT_MAX_LINE_BYTES),
            ..EventOptions::default()
        };
        let join = |lines: Vec<Vec<u8>>| {
            let mut out = Vec::new();
            let n = lines.len();
            for (i, l) in lines.into_iter().enumerate() {
                out.extend_from_slice(&l);
                if i + 1 < n || last_break {
                    out.extend_from_slice(breaks[i % breaks.len()].as_bytes());
                }
            }
            out
        };
        let jsonl = join(json);
        proptest::prop_assert_eq!(
            read_all(&jsonl, EventFormat::Jsonl, &opts, true),
            read_all(&jsonl, EventFormat::Jsonl, &opts, false)
        );
        let mut rows = vec![b"order,run,action".to_vec()];
        rows.extend(csv.into_iter().map(|r| r.join(",").into_bytes()));
        let csv = join(rows);
        proptest::prop_assert_eq!(
            read_all(&csv, EventFormat::Csv, &opts, true),
            read_all(&csv, EventFormat::Csv, &opts, false)
        );
    }
}

/// A line that is not UTF-8 (in the run id, the action or a field not read) is refused with
/// the byte and its column, by the fast path and the full reader alike: never read lossily,
/// so `r\xff` and `r\xfe` are not merged into one run `r\u{FFFD}`.
#[test]
fn invalid_utf8_lines_are_refused() {
    let opts = EventOptions::default();
    let mut text = Vec::new();
    text.extend_from_slice(b"{\"run\":\"r\xff\",\"action\":\"a\",\"order\":1}\n");
    text.extend_from_slice(b"{\"run\":\"r\xfe\",\"action\":\"a\",\"order\":2}\n");
    text.extend_from_slice(b"{\"run\":\"s\",\"action\":\"a\xff\",\"order\":3}\n");
    text.extend_from_slice(b"{\"run\":\"t\",\"action\":\"a\",\"order\":4,\"x\":\"\xc3\"}\n");
    text.extend_from_slice(b"{\"run\":\"u\",\"action\":\"a\",\"order\":5}\n");
    for fast in [true, false] {
        let seen = read_all(&text, EventFormat::Jsonl, &opts, fast);
        let why = |col: u32, byte: &str| {
            Err(EventError::Unreadable(format!(
                "invalid UTF-8 (byte 0x{byte}) at column {col}: event logs must be UTF-8"
            )))
        };
        assert_eq!(seen[0], Ok((1, None, why(10, "ff"))), "fast {fast}");
        assert_eq!(seen[1], Ok((2, None, why(10, "fe"))), "fast {fast}");
        assert_eq!(seen[2], Ok((3, Some("s".into()), why(23, "ff"))));
        assert_eq!(seen[3], Ok((4, Some("t".into()), why(40, "c3"))));
        assert_eq!(
            seen[4],
            Ok((5, Some("u".into()), Ok(("a".into(), OrderKey::Int(5)))))
        );
    }
    let csv = b"run,action,order\nr\xff,a,1\nr,a,2\n";
    for fast in [true, false] {
        let seen = read_all(csv, EventFormat::Csv, &opts, fast);
        assert_eq!(
            seen[0],
            Ok((
                2,
                None,
                Err(EventError::Unreadable(
                    "invalid UTF-8 (byte 0xff) at column 2: event logs must be UTF-8".into()
                ))
            ))
        );
        assert_eq!(
            seen[1],
            Ok((3, Some("r".into()), Ok(("a".into(), OrderKey::Int(2)))))
        );
    }
}

/// A field read twice in one event is refused, naming the key and its column (not the last
/// one kept silently); a field not read may be repeated.
#[test]
fn duplicate_keys_are_refused() {
    let opts = EventOptions::default();
    let text = b"{\"run\":\"a\",\"run\":\"b\",\"action\":\"x\",\"order\":1}\n\
        {\"run\":\"c\",\"action\":\"x\",\"order\":1,\"order\":2}\n\
        {\"run\":\"d\",\"action\":\"x\",\"order\":1,\"z\":1,\"z\":2}\n";
    for fast in [true, false] {
        let seen = read_all(text, EventFormat::Jsonl, &opts, fast);
        let dup = |k: &str, c: u32| {
            Err(EventError::Unreadable(format!(
                "duplicate key \"{k}\" at column {c}"
            )))
        };
        assert_eq!(seen[0], Ok((1, None, dup("run", 12))));
        assert_eq!(seen[1], Ok((2, Some("c".into()), dup("order", 35))));
        assert_eq!(
            seen[2],
            Ok((3, Some("d".into()), Ok(("x".into(), OrderKey::Int(1)))))
        );
    }
}

mod cut_line_tests {
    use super::read::*;
    use super::*;

    #[test]
    fn the_run_of_a_cut_json_line_is_read_only_when_whole() {
        let f = |p: &str| json_prefix_field(p, "run");
        assert_eq!(
            f(r#"{"run": "s1", "action": "a", "pad": "xx"#),
            Some("s1".into())
        );
        assert_eq!(
            f(r#"{"a": {"run": "no", "b": [1, "]"]}, "run": 7, "x"#),
            Some("7".into())
        );
        assert_eq!(f(r#"{"run": "s1"#), None, "the id itself is cut");
        assert_eq!(f(r#"{"run": 12"#), None, "a number may go on");
        assert_eq!(f(r#"{"pad": "xxxxxxxxx"#), None);
        assert_eq!(f(r#"{"x\"run": 1, "run": "b", "#), Some("b".into()));
    }

    #[test]
    fn a_line_that_is_not_json_names_its_run_when_it_holds_it_once() {
        let opts = EventOptions::default();
        let (run, body) = jsonl_event(r#"{"run": "s1", "action": "a!m", "ord"#, &opts);
        assert_eq!(run.as_deref(), Some("s1"));
        assert!(matches!(body, Err(EventError::NotJson(_))), "{body:?}");
        // Two events run together: neither run is known for sure.
        let two = r#"{"run": "s1", "action": "a!m"{"run": "s2", "action": "b!m", "order": 1}"#;
        assert_eq!(jsonl_event(two, &opts).0, None);
        assert_eq!(jsonl_event(r#"{"action": "a!m", "ru"#, &opts).0, None);
    }

    #[test]
    fn a_cut_line_with_a_known_run_is_a_bad_event_and_reading_goes_on() {
        let opts = EventOptions {
            max_line_bytes: 40,
            ..EventOptions::default()
        };
        let pad = "x".repeat(200);
        let text = format!(
            "{{\"run\":\"s1\",\"action\":\"a\",\"order\":1,\"pad\":\"{pad}\"}}\n{{\"run\":\"s2\",\"action\":\"b\",\"order\":1}}\n"
        );
        let mut r = EventReader::new(
            "ev".into(),
            Box::new(std::io::Cursor::new(text.into_bytes())),
            EventFormat::Jsonl,
            &opts,
        );
        let first = r.next_event().unwrap().unwrap();
        assert_eq!(first.run.as_deref(), Some("s1"));
        assert_eq!(first.body, Err(EventError::LineTooLong(40)));
        assert_eq!(first.line, 1);
        let second = r.next_event().unwrap().unwrap();
        assert_eq!((second.run.as_deref(), second.line), (Some("s2"), 2));
        assert!(r.next_event().unwrap().is_none());
    }
}

/// Integers beyond `u64` are kept exactly: run ids as written (two runs, not one), order keys
/// as `i128`, and beyond that refused (never rounded through `f64`).
#[test]
fn integers_beyond_u64_are_exact() {
    let opts = EventOptions::default();
    let text = b"{\"run\":18446744073709551616,\"action\":\"x\",\"order\":100000000000000000001}\n\
        {\"run\":18446744073709551617,\"action\":\"x\",\"order\":100000000000000000000}\n\
        {\"run\":7,\"action\":\"x\",\"order\":1000000000000000000000000000000000000000}\n\
        {\"run\":8,\"action\":\"x\",\"order\":1e40}\n";
    for fast in [true, false] {
        let seen = read_all(text, EventFormat::Jsonl, &opts, fast);
        let ok = |l, r: &str, k| Ok((l, Some(r.to_string()), Ok(("x".into(), k))));
        assert_eq!(
            seen[0],
            ok(
                1,
                "18446744073709551616",
                OrderKey::Int(100000000000000000001)
            )
        );
        assert_eq!(
            seen[1],
            ok(
                2,
                "18446744073709551617",
                OrderKey::Int(100000000000000000000)
            )
        );
        let Ok((3, Some(r), Err(EventError::Unreadable(why)))) = &seen[2] else {
            panic!("{:?}", seen[2])
        };
        assert_eq!(r, "7");
        assert!(why.contains("beyond the integers"), "{why}");
        assert_eq!(seen[3], ok(4, "8", OrderKey::Float(1e40)));
    }
}
