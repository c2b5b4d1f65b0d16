//! `.mtf` reader: never panics; traces it returns hold letters of their own location, and
//! `write_mtf` reads back to the same traces.
#![no_main]

#[path = "common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use multitrace_formats::{parse_mtf, write_mtf};
use multitrace_model::nfa::LocationId;

fuzz_target!(|data: &[u8]| {
    let text = common::text(data);
    let alphabet = common::alphabet();
    if let Ok(traces) = parse_mtf("f.mtf", &text, &alphabet) {
        assert_eq!(traces.len(), alphabet.locations());
        for (k, t) in traces.iter().enumerate() {
            for &l in t {
                assert_eq!(alphabet.location(l), LocationId(k as u32));
            }
        }
        let again = parse_mtf("g.mtf", &write_mtf(&traces, &alphabet), &alphabet);
        assert_eq!(again.as_ref(), Ok(&traces));
    }
});
