//! `.hsf` reader: never panics; a signature it returns has unique names and at most
//! `MAX_LIFELINES` lifelines.
#![no_main]

#[path = "common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use multitrace_compiler::syntax::parse_signature;
use multitrace_model::signature::MAX_LIFELINES;

fuzz_target!(|data: &[u8]| {
    let text = common::text(data);
    if let Ok(sig) = parse_signature("f.hsf", &text) {
        assert!(sig.lifelines().len() <= MAX_LIFELINES);
        for (i, l) in sig.lifelines().iter().enumerate() {
            assert_eq!(sig.lifeline(l).map(|id| id.index()), Some(i));
        }
        for (i, m) in sig.messages().iter().enumerate() {
            assert_eq!(sig.message(m).map(|id| id.index()), Some(i));
        }
    } else if let Err(e) = parse_signature("f.hsf", &text) {
        assert!(e.line >= 1 && e.column >= 1);
    }
});
