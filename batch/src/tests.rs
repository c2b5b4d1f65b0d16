//! Tests of batches: order, window, errors in place, and the chunked reading of JSON Lines
//! against a line-by-line reference.

use super::*;
use multitrace_check::Choice;
use multitrace_check::{CheckOptions, Engine};
use multitrace_formats::input::{collect_traces, read_line_bounded, LineRead, CHUNK_LINES};
use multitrace_model::artifact::decode;
use multitrace_model::nfa::LetterId;
use multitrace_model::record::Record;
use multitrace_model::verdict::Procedure;
use source::{FileSource, Source};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

pub(crate) fn engine() -> Engine {
    let bytes = include_bytes!("../../fixtures/golden/seed004-mqtt.v2.mtm");
    Engine::new(decode(bytes).unwrap())
}

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures")
        .join(rel)
}

/// Item `i`: a WeakPass for even `i`, a Fail for odd ones, and an unknown action every
/// seventh (an Error).
fn item(i: usize) -> Item {
    let brok = match i % 7 {
        6 => vec!["brok?nothing".to_string()],
        _ if i % 2 == 1 => vec!["brok?pub".to_string()],
        _ => vec![],
    };
    Item {
        trace: format!("item{i}"),
        id: matches!(i % 3, 0).then(|| format!("id{i}")),
        traces: vec![
            ("clt1".into(), vec!["clt1!begin".into()]),
            ("brok".into(), brok),
        ],
    }
}

fn expected_verdict(i: usize) -> &'static str {
    match i % 7 {
        6 => "Error",
        _ if i % 2 == 1 => "Fail",
        _ => "WeakPass",
    }
}

fn run_items(engine: &Engine, jobs: usize, n: usize) -> Vec<Record> {
    let opts = BatchOptions {
        jobs,
        window_per_job: 2,
        ..BatchOptions::default()
    };
    let batch = Batch::new(engine, CheckOptions::default(), opts);
    let mut out = Vec::new();
    batch
        .run_items((0..n).map(item), |o| {
            out.push(o.record);
            Ok::<(), ()>(())
        })
        .unwrap();
    out
}

#[test]
fn records_come_in_input_order_whatever_the_jobs() {
    let engine = engine();
    let one = run_items(&engine, 1, 300);
    for jobs in [2, 3, 8] {
        let many = run_items(&engine, jobs, 300);
        let strip = |r: &[Record]| -> Vec<(String, Option<String>, String)> {
            r.iter()
                .map(|r| (r.trace.clone(), r.id.clone(), r.verdict.clone()))
                .collect()
        };
        assert_eq!(strip(&one), strip(&many), "jobs {jobs}");
    }
    for (i, r) in one.iter().enumerate() {
        assert_eq!(r.trace, format!("item{i}"));
        assert_eq!(r.verdict, expected_verdict(i), "{i}: {r:?}");
        assert_eq!(r.id, matches!(i % 3, 0).then(|| format!("id{i}")));
    }
    // Error records stand in their place, with what was wrong.
    let e = &one[6];
    assert!(e.error.is_some());
    assert!(
        e.explanation
            .as_deref()
            .is_some_and(|x| x.contains("unknown action `brok?nothing` at position 1")),
        "{e:?}"
    );
}

#[test]
fn workers_stay_within_the_window() {
    let engine = engine();
    let (jobs, per_job) = (3, 2);
    let opts = BatchOptions {
        jobs,
        window_per_job: per_job,
        ..BatchOptions::default()
    };
    let batch = Batch::new(&engine, CheckOptions::default(), opts);
    let pulled = std::sync::atomic::AtomicUsize::new(0);
    let items = (0..200).map(|i| {
        pulled.fetch_add(1, Ordering::SeqCst);
        item(i)
    });
    let mut consumed = 0;
    batch
        .run_items(items, |_| {
            // Slow sink: workers must wait for it rather than pile records up.
            std::thread::sleep(std::time::Duration::from_micros(200));
            consumed += 1;
            let ahead = pulled.load(Ordering::SeqCst) - consumed;
            // Each worker holds at most one input past the window.
            assert!(ahead <= jobs * per_job + jobs, "{ahead} ahead");
            Ok::<(), ()>(())
        })
        .unwrap();
    assert_eq!(consumed, 200);
}

#[test]
fn a_sink_error_stops_the_batch() {
    let engine = engine();
    let batch = Batch::new(
        &engine,
        CheckOptions::default(),
        BatchOptions {
            jobs: 2,
            window_per_job: 1,
            ..BatchOptions::default()
        },
    );
    let pulled = std::sync::atomic::AtomicUsize::new(0);
    let items = (0..100_000).map(|i| {
        pulled.fetch_add(1, Ordering::SeqCst);
        item(i)
    });
    let mut n = 0;
    let r = batch.run_items(items, |_| {
        n += 1;
        if n == 5 {
            Err("closed")
        } else {
            Ok(())
        }
    });
    assert!(matches!(r, Err(RunError::Sink("closed"))));
    assert!(pulled.load(Ordering::SeqCst) < 100, "{pulled:?}");
}

#[test]
fn progress_counts_every_record() {
    let engine = engine();
    let seen = Mutex::new(Vec::new());
    let batch = Batch::new(&engine, CheckOptions::default(), BatchOptions::default())
        .with_progress(|p| seen.lock().unwrap().push(p));
    batch
        .run_items((0..10).map(item).collect::<Vec<_>>(), |_| Ok::<(), ()>(()))
        .unwrap();
    drop(batch);
    let seen = seen.into_inner().unwrap();
    assert_eq!(seen.len(), 10);
    assert_eq!(
        seen[9],
        Progress {
            done: 10,
            total: Some(10)
        }
    );
}

#[test]
fn files_lines_and_unreadable_inputs_in_order() {
    let engine = engine();
    let d = std::env::temp_dir().join(format!("multitrace-batch-files-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(
            d.join("a.jsonl"),
            b"{\"id\": \"x\", \"traces\": {\"clt1\": [\"clt1!begin\"]}}\n\n{\"traces\": {\"zz\": []}}\n\xff\n{}\n",
        )
        .unwrap();
    std::fs::write(d.join("bad.htf"), "{ [clt1] clt1!nope }").unwrap();
    let files = vec![
        fixture("seed004-mqtt/traces/example1.htf"),
        d.join("a.jsonl"),
        d.join("bad.htf"),
        d.join("missing.jsonl"),
        fixture("seed004-mqtt/traces/example2.htf"),
    ];
    let mut out = Vec::new();
    let batch = Batch::new(
        &engine,
        CheckOptions::default(),
        BatchOptions {
            jobs: 3,
            ..BatchOptions::default()
        },
    );
    batch
        .run(files, |o| {
            out.push(o.record);
            Ok::<(), ()>(())
        })
        .unwrap();
    let got: Vec<(&str, &str)> = out.iter().map(|r| (r.name(), r.verdict.as_str())).collect();
    let a = d.join("a.jsonl").display().to_string();
    let bad = d.join("bad.htf").display().to_string();
    let missing = d.join("missing.jsonl").display().to_string();
    let ex1 = fixture("seed004-mqtt/traces/example1.htf")
        .display()
        .to_string();
    let ex2 = fixture("seed004-mqtt/traces/example2.htf")
        .display()
        .to_string();
    assert_eq!(
        got,
        vec![
            (ex1.as_str(), "Pass"),
            ("x", "WeakPass"),
            (format!("{a}:3").as_str(), "Error"),
            // Invalid UTF-8 stops the file: its last line is not read.
            (format!("{a}:4").as_str(), "Error"),
            (bad.as_str(), "Error"),
            (missing.as_str(), "Error"),
            (ex2.as_str(), "Fail"),
        ]
    );
    let e = out[2].error.as_ref().unwrap();
    assert_eq!((e.line, e.column), (Some(3), Some(13)));
    let e = out[4].error.as_ref().unwrap();
    assert_eq!(e.file.as_deref(), Some(bad.as_str()));
    assert_eq!(e.line, Some(1));
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn items_match_the_files_they_are_read_from() {
    let engine = engine();
    let batch = Batch::new(&engine, CheckOptions::default(), BatchOptions::default());
    let mut scratch = engine.scratch();
    let dir = fixture("seed004-mqtt/traces");
    let files = collect_traces(&[dir], &mut |_| {}).unwrap();
    assert!(files.len() >= 5);
    for f in files {
        let from_file = batch.check_file(&mut scratch, &f).record;
        let items = batch.read_items(&f).unwrap();
        assert_eq!(items.len(), 1);
        let from_item = batch.check_item(&mut scratch, items[0].clone()).record;
        let same = Record {
            time_us: from_file.time_us,
            ..from_item
        };
        assert_eq!(from_file, same, "{}", f.display());
    }
}

#[test]
fn letters_are_checked_like_names() {
    let engine = engine();
    let batch = Batch::new(&engine, CheckOptions::default(), BatchOptions::default());
    let a = &engine.model().alphabet;
    let letter = |n: &str| LetterId(a.names().iter().position(|x| x == n).unwrap() as u32);
    let entries: Vec<Entry> = (0..50)
        .map(|i| {
            let item = item(i);
            if i % 2 == 0 || i % 7 == 6 {
                return Entry::Names(item);
            }
            let mut letters = vec![Vec::new(); a.locations()];
            for (loc, names) in &item.traces {
                let k = a.location_names().iter().position(|x| x == loc).unwrap();
                letters[k] = names.iter().map(|n| letter(n)).collect();
            }
            Entry::Letters(Letters {
                trace: item.trace,
                id: item.id,
                letters,
            })
        })
        .collect();
    let mut got = Vec::new();
    batch
        .run_entries(entries, |o| {
            got.push(o.record);
            Ok::<(), ()>(())
        })
        .unwrap();
    let want = run_items(&engine, 1, 50);
    let strip = |r: &Record| Record {
        time_us: 0,
        ..r.clone()
    };
    assert_eq!(
        got.iter().map(strip).collect::<Vec<_>>(),
        want.iter().map(strip).collect::<Vec<_>>()
    );
    // A letter of another location is an Error record, not a panic.
    let mut scratch = engine.scratch();
    let mut letters = vec![Vec::new(); a.locations()];
    letters[0].push(letter("brok?pub"));
    let o = batch.check_entry(
        &mut scratch,
        Entry::Letters(Letters {
            trace: "x".into(),
            id: None,
            letters,
        }),
    );
    assert_eq!(o.record.verdict, "Error");
}

#[test]
fn co_localized_items_are_checked_like_their_htf_file() {
    // seed 003 fig. 2 has co-localized components in some of its fixtures; here, a group
    // of the MQTT model's lifelines that is not a compiled location.
    let engine = engine();
    let batch = Batch::new(&engine, CheckOptions::default(), BatchOptions::default());
    let mut scratch = engine.scratch();
    let item = Item {
        trace: "grouped".into(),
        id: None,
        traces: vec![(
            "clt1,brok".into(),
            vec!["clt1!begin".into(), "brok?begin".into()],
        )],
    };
    let o = batch.check_item(&mut scratch, item);
    assert_eq!(o.record.verdict, "WeakPass", "{:?}", o.record);
    assert!(o.fallback);
    assert_eq!(o.record.procedure.as_deref(), Some("term"));
    let bad = Item {
        trace: "bad".into(),
        id: None,
        traces: vec![("x;y]".into(), vec![])],
    };
    let o = batch.check_item(&mut scratch, bad);
    assert_eq!(o.record.verdict, "Error");
    assert!(o
        .record
        .explanation
        .unwrap()
        .contains("unknown location `x;y]`"));
}

#[test]
fn a_usage_error_is_found_before_any_input() {
    let engine = engine();
    let term = CheckOptions {
        choice: Choice::Force(Procedure::Term),
        ..CheckOptions::default()
    };
    assert!(Batch::new(&engine, term, BatchOptions::default())
        .validate()
        .is_ok());
    // A term-only model cannot be checked by AS.
    let bytes = include_bytes!("../../fixtures/golden/loopP.v2.mtm");
    let term_only = Engine::new(decode(bytes).unwrap());
    let forced = CheckOptions {
        choice: Choice::Force(Procedure::As),
        ..CheckOptions::default()
    };
    let e = Batch::new(&term_only, forced, BatchOptions::default())
        .validate()
        .unwrap_err();
    assert!(e.to_string().contains("term-only"), "{e}");
}

/// The records of a JSON Lines file read line by line, as batches read them before chunks: the
/// reference the chunked, parallel reading must match (verdicts, errors with file, line and
/// column, order).
fn reference(batch: &Batch<'_>, file: &str, data: &[u8], limit: u64) -> Vec<Record> {
    let mut reader = std::io::BufReader::with_capacity(7, data);
    let mut scratch = batch.engine().scratch();
    let (mut buf, mut out, mut line) = (Vec::new(), Vec::new(), 0);
    let error = |line: usize, column: usize, message: String| {
        let e = multitrace_model::syntax::ParseError {
            file: file.to_string(),
            line: line as u32,
            column: column as u32,
            message,
        };
        Record::error(
            format!("{file}:{line}"),
            None,
            (&e).into(),
            Default::default(),
        )
    };
    loop {
        let read = read_line_bounded(&mut reader, &mut buf, limit).unwrap();
        line += 1;
        match read {
            LineRead::End => return out,
            LineRead::TooLong => {
                out.push(error(line, 1, format!("JSON line longer than {limit} bytes, the limit; raise it with --max-line-bytes N (the rest of this input is not read)")));
                return out;
            }
            LineRead::Line => match std::str::from_utf8(&buf) {
                Ok(text) if text.trim().is_empty() => {}
                Ok(text) => out.push(
                    batch
                        .check_line(&mut scratch, file, line, text.trim_end())
                        .record,
                ),
                Err(e) => {
                    let valid = e.valid_up_to();
                    let column = std::str::from_utf8(&buf[..valid]).unwrap().chars().count() + 1;
                    out.push(error(line, column, format!("invalid UTF-8 (byte 0x{:02X}); JSON Lines must be UTF-8 text (the rest of this input is not read)", buf[valid])));
                    return out;
                }
            },
        }
    }
}

/// Records without their times.
fn untimed(records: Vec<Record>) -> Vec<Record> {
    records
        .into_iter()
        .map(|r| Record { time_us: 0, ..r })
        .collect()
}

/// Lines of every kind: Pass, WeakPass, Fail, unknown names, malformed JSON, ids, blank
/// lines, CRLF, non-ASCII text, invalid UTF-8, long lines.
fn line_kinds() -> Vec<Vec<u8>> {
    let l = |s: &str| s.as_bytes().to_vec();
    vec![
        l(r#"{"id": "p", "traces": {"clt1": ["clt1!begin"], "brok": ["brok?begin"]}}"#),
        l(r#"{"traces": {"clt1": ["clt1!begin"]}}"#),
        l(r#"{"traces": {"brok": ["brok?pub"]}}"#),
        l(r#"{"traces": {"zz": []}}"#),
        l(r#"{"traces": {"clt1": ["brok?pub"]}}"#),
        l(r#"{"traces": "#),
        l(r#"{"id": "é ü", "traces": {}}"#),
        l(r#"  {"traces":{"clt1":[]}}  "#),
        l(""),
        l("   \t"),
        l("\u{a0}"),
        b"{\"id\": \"bad \xff\", \"traces\": {}}".to_vec(),
        b"\xe2\x82".to_vec(),
        format!(r#"{{"id": "{}", "traces": {{}}}}"#, "x".repeat(150)).into_bytes(),
    ]
}

/// A JSON Lines text from line kinds and line breaks (`\n`, `\r\n`, none at the end).
fn jsonl(lines: &[(usize, bool)], last_break: bool) -> Vec<u8> {
    let kinds = line_kinds();
    let mut data = Vec::new();
    for (k, &(kind, crlf)) in lines.iter().enumerate() {
        data.extend_from_slice(&kinds[kind % kinds.len()]);
        if k + 1 < lines.len() || last_break {
            data.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
        }
    }
    data
}

mod chunked {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Chunked and parallel, the records are the line-by-line reference's: same
        /// verdicts, same errors at the same file:line:column, same order, one record per
        /// line that is not blank, nothing after a line too long or not UTF-8.
        #[test]
        fn chunks_give_the_records_of_the_line_by_line_reading(
            lines in proptest::collection::vec((0usize..40, any::<bool>()), 0..120),
            // Mostly valid lines: the kinds past the list repeat the first three.
            last_break in any::<bool>(),
            jobs in 1usize..4,
            window in 1usize..3,
            chunk_lines in 1usize..9,
            chunk_bytes in 1usize..400,
            limit in prop_oneof![Just(1u64 << 20), 60u64..200],
        ) {
            let kinds = line_kinds().len();
            let lines: Vec<(usize, bool)> = lines
                .into_iter()
                .map(|(k, crlf)| (if k < kinds { k } else { k % 3 }, crlf))
                .collect();
            let data = jsonl(&lines, last_break);
            let engine = engine();
            let options = BatchOptions { jobs, window_per_job: window, max_line_bytes: limit };
            let batch = Batch::new(&engine, CheckOptions::default(), options);
            let d = std::env::temp_dir().join(format!(
                "multitrace-chunks-{}-{:?}",
                std::process::id(),
                std::thread::current().id()
            ));
            std::fs::create_dir_all(&d).unwrap();
            let path = d.join("t.jsonl");
            std::fs::write(&path, &data).unwrap();
            let file = path.display().to_string();
            let want = untimed(reference(&batch, &file, &data, limit));
            // A file (read to the chunk size) and a pipe-like reader (short reads).
            let mut got = Vec::new();
            let source = FileSource::new(vec![path.clone()], limit).with_chunks(chunk_lines, chunk_bytes);
            batch.run_source_for_test(source, |o| { got.push(o.record); Ok::<(), ()>(()) }).unwrap();
            prop_assert_eq!(untimed(got), want.clone());
            let mut got = Vec::new();
            let trickle = Trickle { data: data.clone(), step: 1 + chunk_bytes % 13 };
            let source = FileSource::reader(&file, Box::new(trickle), limit);
            batch.run_source_for_test(source, |o| { got.push(o.record); Ok::<(), ()>(()) }).unwrap();
            prop_assert_eq!(untimed(got), want);
            let _ = std::fs::remove_dir_all(&d);
        }
    }

    /// A reader handing out at most `step` bytes per read, like a pipe.
    struct Trickle {
        data: Vec<u8>,
        step: usize,
    }

    impl std::io::Read for Trickle {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.step.min(buf.len()).min(self.data.len());
            buf[..n].copy_from_slice(&self.data[..n]);
            self.data.drain(..n);
            Ok(n)
        }
    }

    /// An endless stream of valid lines, counting the bytes read.
    struct Endless {
        read: Arc<std::sync::atomic::AtomicUsize>,
    }

    impl std::io::Read for Endless {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            const LINE: &[u8] = b"{\"traces\": {\"clt1\": [\"clt1!begin\"]}}\n";
            let n = buf.len() / LINE.len() * LINE.len();
            for c in buf[..n].chunks_mut(LINE.len()) {
                c.copy_from_slice(LINE);
            }
            self.read.fetch_add(n, Ordering::SeqCst);
            Ok(n)
        }
    }

    /// Memory stays bounded: with a slow sink, an endless stream is read no further than
    /// the window of chunks ahead of the sink.
    #[test]
    fn an_endless_stream_is_read_only_a_window_ahead_of_the_sink() {
        let engine = engine();
        let (jobs, window) = (2, 2);
        let options = BatchOptions {
            jobs,
            window_per_job: window,
            ..BatchOptions::default()
        };
        let batch = Batch::new(&engine, CheckOptions::default(), options);
        let read = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let source = FileSource::reader(
            "endless",
            Box::new(Endless {
                read: Arc::clone(&read),
            }),
            1 << 20,
        );
        let mut n = 0;
        let r = batch.run_source_for_test(source, |o| {
            assert_eq!(o.record.verdict, "WeakPass");
            n += 1;
            if n % 512 == 0 {
                std::thread::sleep(std::time::Duration::from_millis(1));
                // Tasks in flight: the window, one per worker, one read ahead; each at most
                // CHUNK_LINES lines, and the cutter holds at most one read past them.
                let line = 37;
                let bound = n * line + (jobs * window + jobs + 2) * CHUNK_LINES * line + (64 << 10);
                let r = read.load(Ordering::SeqCst);
                assert!(r <= bound, "{r} bytes read for {n} records (bound {bound})");
            }
            if n == 20_000 {
                return Err("enough");
            }
            Ok(())
        });
        assert!(matches!(r, Err(RunError::Sink("enough"))));
    }

    /// One input starts one worker, whatever the jobs (start-up of a one-multitrace check);
    /// the records are the same.
    #[test]
    fn one_small_file_is_checked_by_one_worker() {
        let engine = engine();
        let d = std::env::temp_dir().join(format!("multitrace-one-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let path = d.join("one.jsonl");
        std::fs::write(&path, jsonl(&[(0, false), (2, true)], false)).unwrap();
        let source = FileSource::new(vec![path.clone()], 1 << 20);
        let mut source: Box<dyn Source> = Box::new(source);
        assert!(source.next().is_some());
        assert!(!source.has_more(), "a small file is one chunk");
        let batch = Batch::new(
            &engine,
            CheckOptions::default(),
            BatchOptions {
                jobs: 4,
                ..BatchOptions::default()
            },
        );
        let mut got = Vec::new();
        batch
            .run(vec![path.clone()], |o| {
                got.push(o.record.verdict);
                Ok::<(), ()>(())
            })
            .unwrap();
        assert_eq!(got, ["WeakPass", "Fail"]);
        // On the calling thread (it has the stack of a checking thread): the same records.
        let inline = batch.reconfigure(CheckOptions::default(), BatchOptions::default());
        let inline = inline.with_caller_stack();
        let again = std::thread::scope(|scope| {
            std::thread::Builder::new()
                .stack_size(multitrace_check::explore::CHECK_STACK_SIZE)
                .spawn_scoped(scope, || {
                    let mut again = Vec::new();
                    inline
                        .run(vec![path.clone()], |o| {
                            again.push(o.record.verdict);
                            Ok::<(), ()>(())
                        })
                        .unwrap();
                    again
                })
                .unwrap()
                .join()
                .unwrap()
        });
        assert_eq!(again, ["WeakPass", "Fail"]);
        let _ = std::fs::remove_dir_all(&d);
    }

    /// On the calling thread, a file of many chunks is checked whole, whatever the jobs (a
    /// regression: with one job, only the first chunk was checked).
    #[test]
    fn the_caller_thread_checks_every_chunk() {
        let engine = engine();
        let d = std::env::temp_dir().join(format!("multitrace-chunks-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let path = d.join("many.jsonl");
        let n = 3 * CHUNK_LINES + 7;
        let lines: Vec<(usize, bool)> = (0..n).map(|i| (i % 3, false)).collect();
        let data = jsonl(&lines, true);
        std::fs::write(&path, &data).unwrap();
        let batch = Batch::new(&engine, CheckOptions::default(), BatchOptions::default());
        let want = untimed(reference(
            &batch,
            &path.display().to_string(),
            &data,
            1 << 20,
        ));
        assert!(want.len() >= n - n / 3, "{} records", want.len());
        for jobs in [1, 2] {
            let options = BatchOptions {
                jobs,
                ..BatchOptions::default()
            };
            let inline = batch
                .reconfigure(CheckOptions::default(), options)
                .with_caller_stack();
            let got = std::thread::scope(|scope| {
                std::thread::Builder::new()
                    .stack_size(multitrace_check::explore::CHECK_STACK_SIZE)
                    .spawn_scoped(scope, || {
                        let mut got = Vec::new();
                        inline
                            .run(vec![path.clone()], |o| {
                                got.push(o.record);
                                Ok::<(), ()>(())
                            })
                            .unwrap();
                        got
                    })
                    .unwrap()
                    .join()
                    .unwrap()
            });
            assert_eq!(untimed(got), want, "jobs {jobs}");
        }
        let _ = std::fs::remove_dir_all(&d);
    }
}
