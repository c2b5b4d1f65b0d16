//! `.mtm` loader (`artifact::decode`): never panics, and a model it accepts can be checked
//! without panicking by every procedure, in both modes.
//!
//! The first byte selects the input: even, the rest is a whole file (header, payload and
//! checksum, as read from disk); odd, the rest is a payload that the target frames with a
//! correct header and checksum (the header's kind and source hash taken from the payload when it
//! deserializes), so that mutations reach the payload decoder and `CompiledModel::validate`
//! instead of stopping at the checksum. A hostile file can always carry a correct checksum.
#![no_main]

use libfuzzer_sys::fuzz_target;
use multitrace_check::explore::{Budget, ExploreOptions, CHECK_STACK_SIZE};
use multitrace_check::{CheckOptions, Choice, Engine};
use multitrace_model::artifact::{decode, fnv1a, FORMAT_VERSION, MAGIC, MAX_PAYLOAD};
use multitrace_model::model::{CompiledModel, ModelKind};
use multitrace_model::nfa::LocationId;
use multitrace_model::verdict::Mode;
use multitrace_model::verdict::Procedure;
use std::time::Duration;

fn frame(payload: &[u8]) -> Vec<u8> {
    let config = bincode::config::standard().with_limit::<{ MAX_PAYLOAD as usize }>();
    let (kind, digest) =
        match bincode::serde::decode_from_slice::<CompiledModel, _>(payload, config) {
            Ok((m, _)) => (
                u8::from(matches!(m.kind, ModelKind::TermOnly(_))),
                m.source_hash.0,
            ),
            Err(_) => (0, [0; 32]),
        };
    let mut out = Vec::with_capacity(payload.len() + 64);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&[kind, 0, 0, 0]);
    out.extend_from_slice(&digest);
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(payload);
    let sum = fnv1a(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

fn exercise(model: CompiledModel, noise: &[u8]) {
    let engine = Engine::new(model);
    let m = engine.model();
    let locations = m.alphabet.locations();
    // A small multitrace chosen by the last bytes of the input.
    let mut traces = vec![Vec::new(); locations];
    if locations > 0 {
        for (i, &b) in noise.iter().rev().take(6).enumerate() {
            let letters = m.alphabet.letters_of(LocationId((i % locations) as u32));
            if !letters.is_empty() {
                traces[i % locations].push(letters[b as usize % letters.len()]);
            }
        }
    }
    for l in 0..m.alphabet.len() {
        let _ = m.alphabet.name(multitrace_model::nfa::LetterId(l as u32));
    }
    if let Some(sig) = m.signature() {
        for l in sig.lifelines() {
            assert!(sig.lifeline(l).is_some());
        }
    }
    let budget = Budget {
        max_vertices: Some(2_000),
        timeout: Some(Duration::from_millis(200)),
        ..Budget::UNLIMITED
    };
    let mut scratch = engine.scratch();
    for mode in [Mode::Complete, Mode::Prefix] {
        for choice in [
            Choice::Auto,
            Choice::Force(Procedure::Ac),
            Choice::Force(Procedure::As),
            Choice::Force(Procedure::Term),
        ] {
            let opts = CheckOptions {
                mode,
                choice,
                explore: ExploreOptions {
                    mode,
                    budget,
                    ..ExploreOptions::default()
                },
                budget,
                ..CheckOptions::default()
            };
            let _ = engine.check_letters(&mut scratch, &traces, &opts);
            let _ = engine.check_letters(&mut scratch, &vec![Vec::new(); locations], &opts);
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let bytes = if mode & 1 == 0 {
        rest.to_vec()
    } else {
        frame(rest)
    };
    // Reproducing a crash: `MTM_FILE_OUT=x.mtm cargo fuzz run mtm CRASH` writes the file the
    // input stands for, for `multitrace check x.mtm ...` and for a regression case.
    if let Some(path) = std::env::var_os("MTM_FILE_OUT") {
        std::fs::write(path, &bytes).expect("MTM_FILE_OUT is writable");
    }
    // As in the command line: checks run on a thread with a large stack.
    let noise = rest.to_vec();
    std::thread::Builder::new()
        .stack_size(CHECK_STACK_SIZE)
        .spawn(move || {
            if let Ok(model) = decode(&bytes) {
                exercise(model, &noise);
            }
        })
        .expect("thread")
        .join()
        .unwrap_or_else(|e| std::panic::resume_unwind(e));
});
