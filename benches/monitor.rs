//! The live monitor on a stream of events: parsing, and the session (runs by id, the
//! incremental product, the records), in events per second on one core.
//!
//! Event sets are generated at bench start (fixed seed) for seed 004's MQTT model
//! (`fixtures/seed004-mqtt`) and, when `../shared/data` is present, AutomatArk NFA12 with seed
//! 004's three locations: [`RUNS`] runs of 20-250 actions (kinds pass, local-error,
//! inter-error and prefix in equal parts), each run's locations interleaved at random with a
//! reception after a matching emission when there is one, [`ACTIVE`] runs open at once and
//! merged at random, as `benches/data/events.py` writes them for the command:
//!
//! - `monitor/NAME/parse_full`: [`jsonl_event_full`] on every line (the `serde_json::Value`
//!   reader, the monitor's parser before the fast path);
//! - `monitor/NAME/parse`: [`scan_flat_with`] and the letter lookup on every line (the fast path);
//! - `monitor/NAME/session`: the monitor's loop without input and output, checking after
//!   every event: parse, then [`Session::push`] on every event and [`Session::close_all`] at
//!   the end, every record built ([`Decision::record`]);
//! - `monitor/NAME/session_deferred`: the same with the checks deferred as `multitrace
//!   monitor` defers them: [`Session::push_deferred`], and [`Session::settle`] after every
//!   [`ROUND`] events (about the 1 MB a polling round reads);
//! - `monitor/NAME/session_round`: the same with each round's events fed at once, grouped by
//!   run, as `multitrace monitor` feeds them: [`Round`] and [`Session::push_round`].

#[path = "common.rs"]
mod common;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use multitrace_analysis::generate::{generate, GenOptions, Kind};
use multitrace_check::Engine;
use multitrace_compiler::compile::{CompileOptions, LocationChoice};
use multitrace_compiler::source::load_model;
use multitrace_formats::events::{jsonl_event_full, scan_flat_with, EventOptions, FlatFields};
use multitrace_formats::NameIndex;
use multitrace_model::rng::Rng;
use multitrace_monitor::session::{
    At, Closed, Decision, LiveEvent, Round, Session, SessionOptions,
};
use multitrace_monitor::{Monitor, MonitorOptions};
use std::path::Path;
use std::time::Duration;

/// Runs in a set.
const RUNS: usize = 4000;
/// Runs open at once.
const ACTIVE: usize = 1000;
/// Seed of the set.
const SEED: u64 = 20;
/// Events between two settles (`session_deferred`).
const ROUND: usize = 20_000;

/// The events of a generated set as JSON Lines, interleaved as they would arrive.
fn events(engine: &Engine) -> Vec<String> {
    let alphabet = &engine.model().alphabet;
    let mut rng = Rng::new(SEED);
    let mut queues: Vec<Vec<String>> = Vec::new();
    for kind in [Kind::Pass, Kind::LocalError, Kind::InterError, Kind::Prefix] {
        let Ok(set) = generate(engine, &GenOptions::new(kind, RUNS / 4, 20, 250, SEED)) else {
            continue;
        };
        for item in set.items {
            let id = queues.len();
            let mut pos = vec![0usize; item.traces.len()];
            let mut sent: std::collections::HashMap<String, usize> = Default::default();
            let mut q = Vec::new();
            loop {
                let left: Vec<usize> = (0..pos.len())
                    .filter(|&k| pos[k] < item.traces[k].len())
                    .collect();
                if left.is_empty() {
                    break;
                }
                let name = |k: usize| alphabet.name(item.traces[k][pos[k]]);
                let causal: Vec<usize> = left
                    .iter()
                    .copied()
                    .filter(|&k| match name(k).split_once('?') {
                        Some((_, m)) => sent.get(m).is_some_and(|&n| n > 0),
                        None => true,
                    })
                    .collect();
                let from = if causal.is_empty() { &left } else { &causal };
                let k = *rng.pick(from).expect("a location left");
                let act = name(k).to_string();
                if let Some((_, m)) = act.split_once('!') {
                    *sent.entry(m.to_string()).or_default() += 1;
                } else if let Some((_, m)) = act.split_once('?') {
                    if let Some(n) = sent.get_mut(m) {
                        *n = n.saturating_sub(1);
                    }
                }
                q.push(format!(
                    r#"{{"run":"r{id}","action":"{act}","order":{}}}"#,
                    pos[k]
                ));
                pos[k] += 1;
            }
            q.reverse();
            if !q.is_empty() {
                queues.push(q);
            }
        }
    }
    let mut out = Vec::new();
    let mut active: Vec<Vec<String>> = Vec::new();
    let mut next = queues.into_iter();
    loop {
        while active.len() < ACTIVE {
            match next.next() {
                Some(q) => active.push(q),
                None => break,
            }
        }
        if active.is_empty() {
            return out;
        }
        let i = rng.below(active.len());
        out.push(active[i].pop().expect("a queue is never empty"));
        if active[i].is_empty() {
            active.swap_remove(i);
        }
    }
}

/// Line `n` (from 0) of a set, a flat event of the model.
fn event<'l>(line: &'l str, n: usize, fields: &FlatFields, names: &NameIndex) -> LiveEvent<'l> {
    let s = scan_flat_with(line, fields).expect("a flat event");
    LiveEvent {
        run: s.run,
        letter: names.letter(s.action).expect("a letter"),
        key: s.order,
        at: At::Line {
            file: "bench",
            line: n as u32 + 1,
        },
        wall: 0,
        end: false,
    }
}

fn bench(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut models = vec![(
        "mqtt".to_string(),
        root.join("fixtures/seed004-mqtt/model.hif"),
        CompileOptions {
            locations: LocationChoice::Default,
            ..CompileOptions::default()
        },
    )];
    models.extend(
        common::automatark(root)
            .into_iter()
            .filter(|(n, _, _)| n == "armcNFA_inclTest_12")
            .map(|(_, p, o)| ("nfa12".to_string(), p, o)),
    );
    for (name, path, opts) in models {
        let engine = Engine::new(load_model(&path, None, &opts).expect("benchmark model"));
        let lines = events(&engine);
        eprintln!(
            "monitor/{name}: {} events, {} bytes",
            lines.len(),
            lines.iter().map(|l| l.len() + 1).sum::<usize>()
        );
        let names = NameIndex::new(&engine.model().alphabet);
        let ev_opts = EventOptions::default();
        // The field names prepared once, as the monitor does.
        let fields = FlatFields::new("run", "action", "order");
        let monitor = Monitor::new(&engine, MonitorOptions::default()).expect("a monitor");
        let mut group = c.benchmark_group(format!("monitor/{name}"));
        group
            .sample_size(10)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(4))
            .throughput(Throughput::Elements(lines.len() as u64));
        group.bench_function("parse_full", |b| {
            b.iter(|| {
                for line in &lines {
                    let (run, body) = jsonl_event_full(line, &ev_opts);
                    let (action, key) = body.expect("an event");
                    std::hint::black_box((run, names.letter(&action), key));
                }
            })
        });
        group.bench_function("parse", |b| {
            b.iter(|| {
                for line in &lines {
                    let s = scan_flat_with(line, &fields).expect("a flat event");
                    std::hint::black_box((s.run, names.letter(s.action), s.order));
                }
            })
        });
        group.bench_function("session", |b| {
            let mut scratch = engine.scratch();
            let mut out: Vec<Decision> = Vec::new();
            b.iter(|| {
                let mut session = Session::new(SessionOptions::default());
                let mut records = 0usize;
                for (n, line) in lines.iter().enumerate() {
                    let ev = event(line, n, &fields, &names);
                    session.push(&monitor, &mut scratch, ev, &mut out);
                    for d in out.drain(..) {
                        records += 1;
                        std::hint::black_box(d.record(&monitor));
                    }
                }
                session.close_all(&monitor, &mut scratch, Closed::EndOfInput, &mut out);
                records += out.len();
                out.clear();
                records
            })
        });
        group.bench_function("session_deferred", |b| {
            let mut scratch = engine.scratch();
            let mut out: Vec<Decision> = Vec::new();
            b.iter(|| {
                let mut session = Session::new(SessionOptions::default());
                let mut records = 0usize;
                for (n, line) in lines.iter().enumerate() {
                    let ev = event(line, n, &fields, &names);
                    session.push_deferred(&monitor, &mut scratch, ev, &mut out);
                    if (n + 1) % ROUND == 0 {
                        session.settle(&monitor, &mut scratch, &mut out);
                    }
                    for d in out.drain(..) {
                        records += 1;
                        std::hint::black_box(d.record(&monitor));
                    }
                }
                session.settle(&monitor, &mut scratch, &mut out);
                session.close_all(&monitor, &mut scratch, Closed::EndOfInput, &mut out);
                records += out.len();
                out.clear();
                records
            })
        });
        group.bench_function("session_round", |b| {
            let mut scratch = engine.scratch();
            let mut out: Vec<Decision> = Vec::new();
            let mut round = Round::new();
            b.iter(|| {
                let mut session = Session::new(SessionOptions::default());
                let mut records = 0usize;
                for (n, line) in lines.iter().enumerate() {
                    round.push(event(line, n, &fields, &names));
                    if (n + 1) % ROUND == 0 {
                        session.push_round(&monitor, &mut scratch, &mut round, &mut out);
                        session.settle(&monitor, &mut scratch, &mut out);
                    }
                    for d in out.drain(..) {
                        records += 1;
                        std::hint::black_box(d.record(&monitor));
                    }
                }
                session.push_round(&monitor, &mut scratch, &mut round, &mut out);
                session.settle(&monitor, &mut scratch, &mut out);
                session.close_all(&monitor, &mut scratch, Closed::EndOfInput, &mut out);
                records += out.len();
                out.clear();
                records
            })
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
