//! Local summary reader (`summary::read_summary`, what `multitrace central` reads from other
//! hosts): never panics, errors name the file and point into it, and a summary it accepts is
//! consistent with the model, reads back the same after writing, and goes through the central
//! step without panicking.
//!
//! The model is the golden artifact of seed 004's MQTT-like protocol. The first byte selects
//! the input: even, the rest is a summary file (text, lossy UTF-8); odd, the rest chooses a
//! location, a mode and a local trace, whose summary `local_summary` writes and the reader must
//! accept as it was written.
#![no_main]

use libfuzzer_sys::fuzz_target;
use multitrace_check::explore::Budget;
use multitrace_check::semi::{central_check, local_summary};
use multitrace_check::summary::{
    read_summary, write_summary, LocalResult, LocalSummary, Summary, SummarySet,
};
use multitrace_check::Engine;
use multitrace_model::artifact::decode;
use multitrace_model::nfa::LocationId;
use multitrace_model::verdict::Mode;
use std::sync::OnceLock;
use std::time::Duration;

fn engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(|| {
        let bytes = include_bytes!("../../fixtures/golden/seed004-mqtt.v2.mtm");
        Engine::new(decode(bytes).expect("the golden artifact loads"))
    })
}

fn text_of(s: &LocalSummary) -> String {
    let mut out = Vec::new();
    write_summary(s, &mut out).expect("writing to memory");
    String::from_utf8(out).expect("summaries are UTF-8")
}

/// Everything the reader promises about a summary it accepted.
fn consistent(s: &Summary) {
    let engine = engine();
    let model = engine.model();
    let alphabet = &model.alphabet;
    let automata = model.automata().expect("an automata model");
    let k = s.location();
    assert!(k.index() < alphabet.locations());
    assert_eq!(s.digest(), model.digest);
    let own = |l: &multitrace_model::nfa::LetterId| alphabet.location(*l) == k;
    assert!(s.trace().iter().all(own));
    match s.result() {
        LocalResult::Pass { area } => {
            assert_eq!(area.len(), automata.areas.words());
            let nt = automata.nfa.transitions().len();
            for (w, &word) in area.iter().enumerate() {
                for b in 0..64 {
                    if word >> b & 1 == 1 {
                        assert!(w * 64 + b < nt, "bit {} of {nt}", w * 64 + b);
                    }
                }
            }
        }
        LocalResult::LocalError { position, expected } => {
            assert!(*position <= s.trace().len());
            assert!(expected.iter().all(own));
        }
    }
    // Written again, it reads back the same.
    let again = text_of(&s.to_local(model));
    let back = read_summary(s.file(), &again, model).expect("a written summary reads back");
    assert_eq!(back, *s);
    // With empty traces for the other locations, the central step runs.
    let mut all = vec![s.clone()];
    for j in 0..alphabet.locations() {
        if j != k.index() {
            let other = local_summary(model, LocationId(j as u32), &[], s.mode())
                .expect("a summary of an empty trace");
            let text = text_of(&other);
            all.push(read_summary("other.json", &text, model).expect("written summaries read"));
        }
    }
    let set = SummarySet::new(model, all).expect("one summary per location, one mode");
    let budget = Budget {
        max_vertices: Some(2_000),
        timeout: Some(Duration::from_millis(200)),
        ..Budget::UNLIMITED
    };
    let tables = engine.tables().expect("AC tables");
    central_check(model, tables, &set, &budget, true).expect("the set fits the model");
}

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let model = engine().model();
    if first % 2 == 0 {
        let text = String::from_utf8_lossy(rest);
        match read_summary("f.json", &text, model) {
            Ok(s) => consistent(&s),
            Err(e) => {
                assert_eq!(e.file.as_deref(), Some("f.json"));
                if let Some((line, column)) = e.position {
                    assert!(line >= 1 && column >= 1, "{e}");
                    assert!(line as usize <= text.split('\n').count(), "{e}");
                    let l = text.split('\n').nth(line as usize - 1).unwrap_or("");
                    assert!(column as usize <= l.chars().count() + 1, "{e}");
                }
                assert!(e.to_string().starts_with("f.json:"), "{e}");
            }
        }
    } else {
        let alphabet = &model.alphabet;
        let Some((&choice, letters)) = rest.split_first() else {
            return;
        };
        let k = LocationId(u32::from(choice >> 1) % alphabet.locations() as u32);
        let mode = if choice & 1 == 0 {
            Mode::Complete
        } else {
            Mode::Prefix
        };
        let own = alphabet.letters_of(k);
        let trace: Vec<_> = letters
            .iter()
            .map(|&b| own[b as usize % own.len()])
            .collect();
        let summary = local_summary(model, k, &trace, mode).expect("a trace of its location");
        let s = read_summary("l.json", &text_of(&summary), model)
            .expect("what local writes, central reads");
        assert_eq!(s.trace(), &trace[..]);
        assert_eq!(s.mode(), mode);
        consistent(&s);
    }
});
