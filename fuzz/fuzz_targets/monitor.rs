//! The incremental monitor engine (`runtime::monitor`, behind `multitrace monitor` and the
//! Python `Monitor`) against the batch check, event by event, on the golden MQTT model.
//!
//! The first byte chooses the procedure (AC, AS, term exploration) and the mode asked at the
//! end; every other byte is an event (a letter of the model, by index). Asserted besides "no
//! panic": after each event of an open run, `verdict_now` is the batch verdict of the events
//! so far in prefix mode; a Fail is reported by `push` at the event that makes it certain,
//! as the batch record, and the run stays decided; a checkpoint (`to_bytes`/`from_bytes`)
//! taken at any event gives back the same state; at the end, `finish` agrees with the batch
//! check in the chosen mode.
#![no_main]

use libfuzzer_sys::fuzz_target;
use multitrace_check::{CheckOptions, Choice, Engine};
use multitrace_model::artifact::decode;
use multitrace_model::nfa::LetterId;
use multitrace_model::verdict::Procedure;
use multitrace_model::verdict::{Mode, Verdict, VerdictKind};
use multitrace_monitor::{LiveRun, Monitor, MonitorOptions};
use std::sync::OnceLock;

fn engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(|| {
        let bytes = include_bytes!("../../fixtures/golden/seed004-mqtt.v2.mtm");
        Engine::new(decode(bytes).expect("the golden artifact loads"))
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, events)) = data.split_first() else {
        return;
    };
    // Term exploration re-checks the whole run per event: keep its runs short.
    let procedure = [Procedure::Ac, Procedure::As, Procedure::Term][usize::from(mode % 3)];
    let max_events = if procedure == Procedure::Term {
        24
    } else {
        200
    };
    let end_mode = if mode & 0x80 == 0 {
        Mode::Prefix
    } else {
        Mode::Complete
    };
    let engine = engine();
    let alphabet = &engine.model().alphabet;
    let check = |m: Mode| CheckOptions {
        mode: m,
        choice: Choice::Force(procedure),
        ..CheckOptions::default()
    };
    let monitor = Monitor::new(
        engine,
        MonitorOptions {
            check: check(end_mode),
            ..MonitorOptions::default()
        },
    )
    .expect("every procedure runs on the MQTT model");
    let mut scratch = engine.scratch();
    let mut run = monitor.start();
    let mut traces: Vec<Vec<LetterId>> = vec![Vec::new(); alphabet.locations()];
    let mut decided: Option<VerdictKind> = None;
    // A multi-prefix search ran out of the live budget (the run stays open, undecided): a
    // Fail may then be found at a later event than the batch's first.
    let mut late = false;
    for (i, &b) in events.iter().take(max_events).enumerate() {
        let letter = LetterId(u32::from(b) % alphabet.len() as u32);
        traces[alphabet.location(letter).index()].push(letter);
        let got = monitor.push(&mut scratch, &mut run, letter);
        assert_eq!(run.events(), i as u64 + 1);
        let want = engine
            .check_letters(&mut scratch, &traces, &check(Mode::Prefix))
            .expect("letters of the model")
            .0;
        if decided.is_none() {
            if let Some(v) = got.as_ref().filter(|v| v.kind == VerdictKind::Inconclusive) {
                // The live product's own bound (`max_vertices`): a budget, never a verdict.
                decided = Some(v.kind);
                continue;
            }
        }
        if let Some(kind) = decided {
            assert!(got.is_none(), "a decided run is decided once");
            if kind == VerdictKind::Fail {
                assert_eq!(want.kind, VerdictKind::Fail, "prefix closure");
            }
            continue;
        }
        match want.kind {
            VerdictKind::Fail if late && got.is_none() => continue,
            VerdictKind::Fail => {
                // As its record has it: without the diagnosis's search work, which the
                // monitor spares (`Engine::check_letters_known`).
                let recorded = |v: &Verdict| {
                    let mut v = v.clone();
                    if let Some(d) = &mut v.diagnosis {
                        d.vertices = 0;
                    }
                    v
                };
                assert_eq!(
                    got.as_ref().map(recorded),
                    Some(recorded(&want)),
                    "{procedure:?} after {}",
                    i + 1
                );
                decided = Some(VerdictKind::Fail);
            }
            VerdictKind::Inconclusive => {
                // The batch's budget ran out: nothing to compare with.
                decided = got.map(|v| v.kind);
            }
            _ => {
                assert!(got.is_none(), "{procedure:?} decided a multi-prefix");
                match monitor.verdict_now(&mut scratch, &run) {
                    VerdictKind::Inconclusive => late = true,
                    now => assert_eq!(now, want.kind),
                }
            }
        }
        if b & 0x40 != 0 {
            let back = LiveRun::from_bytes(&run.to_bytes()).expect("a checkpoint reads back");
            assert_eq!(back.to_bytes(), run.to_bytes());
            run = back;
        }
    }
    if decided.is_none() {
        let end = monitor.finish(&mut scratch, &run);
        let want = engine
            .check_letters(&mut scratch, &traces, &check(end_mode))
            .expect("letters of the model")
            .0;
        if want.kind != VerdictKind::Inconclusive && end.kind != VerdictKind::Inconclusive {
            assert_eq!(end.kind, want.kind, "{procedure:?} {end_mode:?} at the end");
        }
    }
});
