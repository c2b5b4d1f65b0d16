//! Ingestion: reading, cutting and parsing multitraces, against reading the input alone.
//!
//! A set of [`SET`] `pass` multitraces of 200-250 actions is generated at bench start (fixed
//! seed; AutomatArk NFA12 with seed 004's three locations when `../shared/data` is present,
//! else the running example `fixtures/seed004-fig3`), written as one JSON Lines file and as
//! `.mtf` texts. Throughput is in bytes of input:
//!
//! - `ingest/jsonl/read`: `std::fs::read` of the file (the physical limit);
//! - `ingest/jsonl/cut`: the batch's reading thread and UTF-8 validation: [`Cutter`] chunks,
//!   [`split_chunk`] and [`lines_of`] (no parsing);
//! - `ingest/jsonl/parse`: [`parse_jsonl_line`] on every line, one thread;
//! - `ingest/jsonl/batch_j1`, `batch_j2`: [`Batch::run`] on the file (cut, parse, check AS,
//!   records in order) with 1 and 2 workers;
//! - `ingest/mtf/parse`: [`parse_mtf_indexed`] on every `.mtf` text, one thread;
//! - `ingest/mqtt/htf/parse`: [`parse_htf`] on [`SET`] `.htf` texts of seed 004's MQTT model
//!   (`fixtures/seed004-mqtt`, `pass` multitraces of 200-250 actions, as `multitrace gen`
//!   writes them), one thread;
//! - `ingest/mqtt/htf/parse_exact`: the same texts behind a `/* */` comment, which the fast
//!   path leaves to the token-by-token reader (the HIBOU lexer), one thread;
//! - `ingest/mqtt/hif/parse`: [`parse_interaction`] on the MQTT model's `.hif` text, [`SET`]
//!   times, one thread.

#[path = "common.rs"]
mod common;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use multitrace_analysis::generate::{generate, render_htf, GenOptions, Kind};
use multitrace_batch::{Batch, BatchOptions};
use multitrace_check::{CheckOptions, Engine};
use multitrace_compiler::compile::{CompileOptions, LocationChoice};
use multitrace_compiler::source::load_model;
use multitrace_compiler::syntax::parse_interaction;
use multitrace_formats::input::{lines_of, split_chunk, Cut, Cutter, DEFAULT_MAX_LINE_BYTES};
use multitrace_formats::{
    parse_htf, parse_jsonl_line, parse_mtf_indexed, write_jsonl_line, write_mtf, NameIndex,
};
use multitrace_model::verdict::Mode;
use std::path::Path;
use std::time::Duration;

/// Multitraces in the set.
const SET: usize = 2000;
/// Seed of the set.
const SEED: u64 = 15;

fn bench(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (name, path, opts) = common::automatark(root)
        .into_iter()
        .next()
        .unwrap_or_else(|| {
            (
                "fig3".to_string(),
                root.join("fixtures/seed004-fig3/model.timbuk"),
                CompileOptions {
                    locations: LocationChoice::Default,
                    ..CompileOptions::default()
                },
            )
        });
    let engine = Engine::new(load_model(&path, None, &opts).expect("benchmark model"));
    let alphabet = &engine.model().alphabet;
    let set = generate(&engine, &GenOptions::new(Kind::Pass, SET, 200, 250, SEED))
        .expect("a pass set")
        .items;
    let mut jsonl = String::new();
    for (i, item) in set.iter().enumerate() {
        jsonl.push_str(&write_jsonl_line(
            &format!("pass-{i}"),
            &item.traces,
            alphabet,
        ));
        jsonl.push('\n');
    }
    let mtf: Vec<String> = set.iter().map(|i| write_mtf(&i.traces, alphabet)).collect();
    let dir = std::env::temp_dir().join(format!("multitrace-bench-ingest-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let file = dir.join("pass.jsonl");
    std::fs::write(&file, &jsonl).expect("temporary file");
    eprintln!(
        "ingest: {name}, {SET} multitraces, {} actions, {} bytes of JSON Lines",
        set.iter()
            .map(|i| i.traces.iter().map(Vec::len).sum::<usize>())
            .sum::<usize>(),
        jsonl.len()
    );

    let mut group = c.benchmark_group(format!("ingest/{name}/jsonl"));
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
        .throughput(Throughput::Bytes(jsonl.len() as u64));
    group.bench_function("read", |b| {
        b.iter(|| std::fs::read(&file).expect("read").len())
    });
    group.bench_function("cut", |b| {
        b.iter(|| {
            let f = std::fs::File::open(&file).expect("open");
            let mut cutter = Cutter::new(Box::new(f), false, DEFAULT_MAX_LINE_BYTES);
            let mut lines = 0;
            while let Cut::Lines { first_line, bytes } = cutter.next_cut() {
                let (text, bad) = split_chunk(&bytes, first_line);
                assert!(bad.is_none());
                lines += lines_of(text, first_line).count();
            }
            assert_eq!(lines, SET);
        })
    });
    let names = NameIndex::new(alphabet);
    group.bench_function("parse", |b| {
        b.iter(|| {
            for (n, line) in jsonl.lines().enumerate() {
                let parsed = parse_jsonl_line("bench", n + 1, line, alphabet, &names);
                std::hint::black_box(parsed.expect("a valid line"));
            }
        })
    });
    for jobs in [1, 2] {
        let options = BatchOptions {
            jobs,
            ..BatchOptions::default()
        };
        let check = CheckOptions {
            mode: Mode::Complete,
            ..CheckOptions::default()
        };
        let batch = Batch::new(&engine, check, options);
        group.bench_function(format!("batch_j{jobs}"), |b| {
            b.iter(|| {
                let mut n = 0;
                batch
                    .run(vec![file.clone()], |o| {
                        debug_assert_eq!(o.record.verdict, "Pass");
                        n += 1;
                        Ok::<(), ()>(())
                    })
                    .expect("batch");
                assert_eq!(n, SET);
            })
        });
    }
    group.finish();

    let mut group = c.benchmark_group(format!("ingest/{name}/mtf"));
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
        .throughput(Throughput::Bytes(
            mtf.iter().map(String::len).sum::<usize>() as u64,
        ));
    group.bench_function("parse", |b| {
        b.iter(|| {
            for text in &mtf {
                std::hint::black_box(
                    parse_mtf_indexed("bench.mtf", text, alphabet, &names).expect("valid"),
                );
            }
        })
    });
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
    bench_htf(c, root);
}

/// `ingest/mqtt/htf/parse`, `ingest/mqtt/htf/parse_exact` and `ingest/mqtt/hif/parse`.
fn bench_htf(c: &mut Criterion, root: &Path) {
    let path = root.join("fixtures/seed004-mqtt/model.hif");
    let engine = Engine::new(load_model(&path, None, &CompileOptions::default()).expect("MQTT"));
    let set = generate(&engine, &GenOptions::new(Kind::Pass, SET, 200, 250, SEED))
        .expect("a pass set")
        .items;
    let htf: Vec<String> = set
        .iter()
        .map(|i| render_htf(engine.model(), &i.traces).expect("an interaction model"))
        .collect();
    let sig = engine.model().signature().expect("an interaction model");
    let mut group = c.benchmark_group("ingest/mqtt/htf");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
        .throughput(Throughput::Bytes(
            htf.iter().map(String::len).sum::<usize>() as u64,
        ));
    group.bench_function("parse", |b| {
        b.iter(|| {
            for text in &htf {
                std::hint::black_box(parse_htf("bench.htf", text, sig).expect("valid"));
            }
        })
    });
    let commented: Vec<String> = htf.iter().map(|t| format!("/* */{t}")).collect();
    group.bench_function("parse_exact", |b| {
        b.iter(|| {
            for text in &commented {
                std::hint::black_box(parse_htf("bench.htf", text, sig).expect("valid"));
            }
        })
    });
    group.finish();

    let hif = std::fs::read_to_string(&path).expect("the MQTT model");
    let mut group = c.benchmark_group("ingest/mqtt/hif");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
        .throughput(Throughput::Bytes((hif.len() * SET) as u64));
    group.bench_function("parse", |b| {
        b.iter(|| {
            for _ in 0..SET {
                let mut sig = sig.clone();
                let mut store = multitrace_model::term::TermStore::new();
                std::hint::black_box(
                    parse_interaction("bench.hif", &hif, &mut sig, false, &mut store)
                        .expect("valid"),
                );
            }
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
