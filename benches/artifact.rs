//! Compile once, load fast: artifact decode time (validation included) and compile time.
//!
//! - `artifact/load/<model>`: `artifact::decode` of a compiled model.
//! - `artifact/compile/<model>`: compiling the source into a model.
//!
//! Models: the fixtures seed004-mqtt (interaction) and seed004-fig3 (Timbuk), and the four
//! automatark NFAs with seed 004's three locations when `../shared/data` is present.

#[path = "common.rs"]
mod common;

use criterion::{criterion_group, criterion_main, Criterion};
use multitrace_compiler::compile::CompileOptions;
use multitrace_compiler::source::{compile_source, read_source};
use multitrace_model::artifact::{decode, encode};
use std::path::{Path, PathBuf};

fn bench(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut models: Vec<(String, PathBuf, CompileOptions)> = vec![
        (
            "mqtt".into(),
            root.join("fixtures/seed004-mqtt/model.hif"),
            CompileOptions::default(),
        ),
        (
            "fig3".into(),
            root.join("fixtures/seed004-fig3/model.timbuk"),
            CompileOptions::default(),
        ),
    ];
    models.extend(common::automatark(root));
    let mut g = c.benchmark_group("artifact");
    for (name, path, opts) in &models {
        let src = read_source(path, None).unwrap();
        let model = compile_source(&src, opts).unwrap();
        let bytes = encode(&model);
        g.bench_function(format!("load/{name}"), |b| {
            b.iter(|| decode(std::hint::black_box(&bytes)).unwrap())
        });
        g.bench_function(format!("compile/{name}"), |b| {
            b.iter(|| compile_source(&src, opts).unwrap())
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
