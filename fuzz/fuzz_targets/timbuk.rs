//! Timbuk reader: never panics; every index of an automaton it returns is in range. Small
//! automata are also compiled (with small caps) and their artifact decoded again.
#![no_main]

#[path = "common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use multitrace_compiler::compile::{compile_automaton, CompileOptions};
use multitrace_compiler::syntax::parse_timbuk;
use multitrace_model::artifact::{decode, encode};

fuzz_target!(|data: &[u8]| {
    let text = common::text(data);
    let Ok(aut) = parse_timbuk("f.timbuk", &text) else {
        return;
    };
    let (ns, nl) = (aut.states.len(), aut.letters.len());
    assert!(aut.initial.iter().chain(&aut.accepting).all(|&s| s < ns));
    assert!(aut
        .transitions
        .iter()
        .all(|&(a, l, b)| a < ns && b < ns && l < nl));
    if let Some(systems) = &aut.systems {
        assert!(systems.iter().flat_map(|(_, ls)| ls).all(|&l| l < nl));
    }
    let opts = CompileOptions {
        state_cap: 500,
        dfa_cap: 500,
        ..CompileOptions::default()
    };
    if let Ok(model) = compile_automaton(&aut, "f.timbuk", &text, &opts) {
        let back = decode(&encode(&model)).expect("an encoded model decodes");
        assert_eq!(back.digest, model.digest);
    }
});
