//! JSON Lines multitrace reader: never panics; traces it returns hold letters of their own
//! location, and errors are on the line they were read from.
#![no_main]

#[path = "common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use multitrace_formats::{parse_jsonl_line, NameIndex};
use multitrace_model::nfa::LocationId;

fuzz_target!(|data: &[u8]| {
    let text = common::text(data);
    let alphabet = common::alphabet();
    let names = NameIndex::new(&alphabet);
    for (i, line) in text.split('\n').enumerate() {
        match parse_jsonl_line("f.jsonl", i + 1, line, &alphabet, &names) {
            Ok((_, traces)) => {
                assert_eq!(traces.len(), alphabet.locations());
                for (k, t) in traces.iter().enumerate() {
                    assert!(t
                        .iter()
                        .all(|&l| alphabet.location(l) == LocationId(k as u32)));
                }
            }
            Err(e) => assert!(e.line as usize == i + 1 && e.column >= 1, "{e}"),
        }
    }
});
