//! Event-log reader (`check --events`) and grouping into runs: never panics; every event read
//! is on a line of the input, in increasing line order; grouping gives one output per run (in
//! the order of its first event) and one per event without a run, and every multitrace it
//! builds holds letters of their own locations.
//!
//! The first byte chooses the format (even: JSON Lines, odd: CSV) and whether the input is
//! declared sorted; the second a small line-length limit or none, so that over-long lines
//! are reached.
#![no_main]

#[path = "common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use multitrace_formats::events::{EventFormat, EventOptions, EventReader, Grouper, RunOut};
use multitrace_model::nfa::LetterId;
use std::collections::HashSet;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let Some((&limit, body)) = rest.split_first() else {
        return;
    };
    let opts = EventOptions {
        format: Some(if mode & 1 == 0 {
            EventFormat::Jsonl
        } else {
            EventFormat::Csv
        }),
        sorted: mode & 2 != 0,
        max_buffered_events: 64,
        max_line_bytes: if limit == 0 {
            1 << 20
        } else {
            u64::from(limit)
        },
        ..EventOptions::default()
    };
    let lines = body.iter().filter(|&&b| b == b'\n').count() as u32 + 1;
    let reader = Box::new(std::io::Cursor::new(body.to_vec()));
    let mut events = EventReader::new("e.log".into(), reader, opts.format.unwrap(), &opts);
    let mut read = Vec::new();
    let mut last = 0;
    loop {
        match events.next_event() {
            Ok(Some(ev)) => {
                assert!(
                    ev.line >= 1 && ev.line <= lines,
                    "line {} of {lines}",
                    ev.line
                );
                assert!(ev.line > last, "lines in order");
                last = ev.line;
                assert_eq!(ev.at, format!("e.log:{}", ev.line));
                read.push(ev);
                if read.len() > 10_000 {
                    break;
                }
            }
            Ok(None) => break,
            Err(e) => {
                assert!(e.to_string().contains("e.log"), "{e}");
                break;
            }
        }
    }
    let alphabet = common::alphabet();
    let runs: HashSet<Option<String>> = read.iter().map(|e| e.run.clone()).collect();
    let orphans = read.iter().filter(|e| e.run.is_none()).count();
    let named = runs.iter().filter(|r| r.is_some()).count();
    let out = Grouper::new(&alphabet).group(read);
    assert_eq!(out.len(), named + orphans);
    // A run's local traces are of its own locations' letters.
    for o in &out {
        if let RunOut::Item(item) = o {
            for (location, letters) in &item.traces {
                for name in letters {
                    let l = (0..alphabet.len())
                        .map(|i| LetterId(i as u32))
                        .find(|&l| alphabet.name(l) == name)
                        .expect("a letter of the alphabet");
                    assert_eq!(alphabet.location_name(alphabet.location(l)), location);
                }
            }
        }
    }
});
