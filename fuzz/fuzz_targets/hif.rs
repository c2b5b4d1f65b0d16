//! `.hif` reader: never panics, with a declared signature and with names inferred; every term
//! it returns is in the store, and errors point into the text.
#![no_main]

#[path = "common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use multitrace_compiler::syntax::parse_interaction;
use multitrace_model::signature::Signature;
use multitrace_model::term::TermStore;

fuzz_target!(|data: &[u8]| {
    let text = common::text(data);
    let lines = text.split('\n').count() as u32;
    for (mut sig, infer) in [(common::signature(), false), (Signature::new(), true)] {
        let mut store = TermStore::new();
        match parse_interaction("f.hif", &text, &mut sig, infer, &mut store) {
            Ok(t) => assert!(t.index() < store.len()),
            Err(e) => assert!(e.line >= 1 && e.line <= lines && e.column >= 1, "{e}"),
        }
    }
});
