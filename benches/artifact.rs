//! Compile once, load fast: artifact decode time (validation included) and compile time.
//!
//! - `artifact/load/<model>`: `artifact::decode` of a compiled model.
//! - `artifact/compile/<model>`: compiling the source into a model.
//!
//! Models: the fixtures seed004-mqtt (interaction) and seed004-fig3 (Timbuk), and the four
//! automatark NFAs with seed 004's three locations when `../shared/data` is present.

use criterion::{criterion_group, criterion_main, Criterion};
use multitrace_compiler::compile::{CompileOptions, LocationChoice};
use multitrace_compiler::source::{compile_source, read_source};
use multitrace_runtime::artifact::{decode, encode};
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
    let data = root.join("../shared/data/automatark/NFA");
    if data.is_dir() {
        let groups = vec![
            ["a0", "a1", "a2", "a3", "a4", "a5", "a16"]
                .map(String::from)
                .to_vec(),
            ["a6", "a7", "a8", "a9", "a10", "a17", "a18"]
                .map(String::from)
                .to_vec(),
            ["a11", "a12", "a13", "a14", "a15"]
                .map(String::from)
                .to_vec(),
        ];
        let opts = CompileOptions {
            locations: LocationChoice::Groups(groups),
            ..CompileOptions::default()
        };
        for (name, file) in [
            ("nfa12", "Bakery-4P-BinEnc-BwBad/armcNFA_inclTest_12.timbuk"),
            ("nfa11", "Bakery-4P-BinEnc-BwBad/armcNFA_inclTest_11.timbuk"),
            ("nfa6", "Bakery-4P-BinEnc-BwBad/armcNFA_inclTest_6.timbuk"),
            (
                "nfa10",
                "IBakery4pBinEnc-FbtOneOne-Nondet/armcNFA_inclTest_10.timbuk",
            ),
        ] {
            models.push((name.into(), data.join(file), opts.clone()));
        }
    }
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
