//! AC and AS: time per multitrace, per model and verdict category (seed 004 Table 1).
//!
//! Sets are generated at bench start from a fixed seed (nothing is stored), 200-250 actions,
//! [`SET`] multitraces per category, checked in complete mode:
//!
//! - `ac_as/fig3/<category>`: `fixtures/seed004-fig3/model.timbuk` (always available);
//! - `ac_as/<nfa>/<category>`: the four AutomatArk NFAs of `../shared/data/automatark` with
//!   seed 004's three locations (l1 = a0-a5 and a16, l2 = a6-a10, a17, a18, l3 = a11-a15),
//!   skipped when the data is absent.
//!
//! Each group has two functions, `ac` and `as`; one iteration checks the next multitrace of the
//! set (round robin), so the time reported is the mean time per multitrace. A category a model
//! cannot produce is skipped with the generator's reason on standard error.

#[path = "common.rs"]
mod common;

use criterion::{criterion_group, criterion_main, Criterion};
use multitrace_analysis::generate::{generate, GenOptions, Kind};
use multitrace_check::{CheckOptions, Choice, Engine};
use multitrace_compiler::compile::{CompileOptions, LocationChoice};
use multitrace_compiler::source::load_model;
use multitrace_model::verdict::Procedure;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Multitraces per category.
const SET: usize = 40;
/// Seed of the generated sets.
const SEED: u64 = 2004;

fn models(root: &Path) -> Vec<(String, PathBuf, LocationChoice)> {
    let mut v = vec![(
        "fig3".to_string(),
        root.join("fixtures/seed004-fig3/model.timbuk"),
        LocationChoice::Default,
    )];
    v.extend(
        common::automatark(root)
            .into_iter()
            .map(|(name, path, opts)| (name, path, opts.locations)),
    );
    v
}

fn bench(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (name, path, locations) in models(root) {
        let opts = CompileOptions {
            locations,
            ..CompileOptions::default()
        };
        let engine = Engine::new(load_model(&path, None, &opts).expect("benchmark model"));
        for kind in [
            Kind::Pass,
            Kind::LocalError,
            Kind::InterError,
            Kind::CentralError,
            Kind::CentralErrorMixed,
        ] {
            let set = match generate(&engine, &GenOptions::new(kind, SET, 200, 250, SEED)) {
                Ok(g) => g.items,
                Err(e) => {
                    eprintln!("ac_as: {name}: {e}");
                    continue;
                }
            };
            let mut group = c.benchmark_group(format!("ac_as/{name}/{kind}"));
            group
                .sample_size(10)
                .warm_up_time(Duration::from_millis(500))
                .measurement_time(Duration::from_secs(2));
            for p in [Procedure::Ac, Procedure::As] {
                let check = CheckOptions {
                    mode: kind.mode(),
                    choice: Choice::Force(p),
                    ..CheckOptions::default()
                };
                let mut scratch = engine.scratch();
                let mut next = 0usize;
                group.bench_function(p.name(), |b| {
                    b.iter(|| {
                        let item = &set[next % set.len()];
                        next += 1;
                        let (v, _) = engine
                            .check_letters(&mut scratch, &item.traces, &check)
                            .expect("automata model");
                        debug_assert_eq!(v.kind, item.verdict.kind);
                        std::hint::black_box(v)
                    })
                });
            }
            group.finish();
        }
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
