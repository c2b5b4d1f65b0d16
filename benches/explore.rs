//! Term exploration: time per multitrace.
//!
//! - `explore/fixtures`: every multitrace of `fixtures/` (always available).
//! - `explore/lfrem/<len>`: the HIBOU benchmark sample of seed 001 (`../shared/data`, skipped
//!   when absent), grouped by multitrace length as in seed 001 Sec. 6 (0-3, 4-8, 9-13, 14-20,
//!   21+ actions), prefix mode with POR and LOC, as HIBOU was run.
//! - `explore/sat/<k>-<sat|unsat>`: seed 001's 3-SAT reduction (Prop. 11) with `k` clauses
//!   (lifelines) at the clause/variable ratio 4.26, seed 1, default options (prefix mode), each
//!   run on a fresh copy of the instance's store (a warm store would answer from its memo).
//! - `explore/long/<mode>/<n>`: issue 25's long runs, `n`-action Pass multitraces of the MQTT
//!   fixture with its three lifelines at one location (global traces), generated as `gen`
//!   does (seed 2), default options; the throughput is in actions, so criterion reports the
//!   time per action.
//!
//! Each worker of a batch keeps its term store (and its memo tables) across multitraces; so do
//! the benchmarks, one store per model.

use criterion::BatchSize;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use multitrace_analysis::generate::sat::{Cnf, SatInstance};
use multitrace_analysis::generate::{generate, to_multitrace, GenOptions, Kind};
use multitrace_check::explore::{explore, ExploreOptions};
use multitrace_check::Engine;
use multitrace_compiler::compile::{CompileOptions, LocationChoice};
use multitrace_compiler::source::load_model;
use multitrace_compiler::syntax::{read_interaction, read_text, InteractionModel};
use multitrace_formats::parse_htf;
use multitrace_model::multitrace::Multitrace;
use multitrace_model::term::TermStore;
use multitrace_model::verdict::{Mode, VerdictKind};
use std::path::{Path, PathBuf};

fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    v.retain(|p| p.extension().is_some_and(|e| e == ext));
    v.sort();
    v
}

fn load(model: &InteractionModel, p: &Path) -> Multitrace {
    let text = read_text(p).unwrap();
    parse_htf(&p.display().to_string(), &text, &model.signature)
        .unwrap()
        .0
}

/// (model index, multitrace) pairs with one store per model.
struct Set {
    models: Vec<(InteractionModel, TermStore)>,
    cases: Vec<(usize, Multitrace)>,
}

impl Set {
    fn run(&mut self, opts: &ExploreOptions) {
        for (m, mt) in &self.cases {
            let (model, store) = &mut self.models[*m];
            std::hint::black_box(explore(store, model.root, mt, opts));
        }
    }
}

fn bench(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let opts = ExploreOptions::default();

    let mut fixtures = Set {
        models: Vec::new(),
        cases: Vec::new(),
    };
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root.join("fixtures"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|d| d.join("model.hif").is_file())
        .collect();
    dirs.sort();
    for dir in dirs {
        let model = read_interaction(&dir.join("model.hif"), None).unwrap();
        let idx = fixtures.models.len();
        for t in files(&dir.join("traces"), "htf") {
            fixtures.cases.push((idx, load(&model, &t)));
        }
        let store = model.store.clone();
        fixtures.models.push((model, store));
    }
    let mut g = c.benchmark_group("explore");
    g.throughput(Throughput::Elements(fixtures.cases.len() as u64));
    g.bench_function("fixtures", |b| b.iter(|| fixtures.run(&opts)));
    g.finish();

    let mut g = c.benchmark_group("explore/sat");
    g.sample_size(10);
    for k in [20, 30, 40, 50, 60] {
        for sat in [true, false] {
            let inst = SatInstance::new(&Cnf::labelled(k, 4.26, sat, 1));
            let name = format!("{k}-{}", if sat { "sat" } else { "unsat" });
            g.bench_function(name, |b| {
                b.iter_batched(
                    || inst.store.clone(),
                    |mut store| explore(&mut store, inst.root, &inst.multitrace, &opts),
                    BatchSize::LargeInput,
                )
            });
        }
    }
    g.finish();

    long(c, root);

    let Some(lfrem) =
        multitrace_model::testdata::data("hibou-lfrem-sample/gen_ints", "explore/lfrem")
    else {
        return;
    };
    let buckets: [(&str, usize, usize); 5] = [
        ("0-3", 0, 3),
        ("4-8", 4, 8),
        ("9-13", 9, 13),
        ("14-20", 14, 20),
        ("21+", 21, usize::MAX),
    ];
    let mut sets: Vec<Set> = buckets
        .iter()
        .map(|_| Set {
            models: Vec::new(),
            cases: Vec::new(),
        })
        .collect();
    for i in 0..10 {
        let model = read_interaction(&lfrem.join(format!("i{i}.hif")), None).unwrap();
        for set in sets.iter_mut() {
            set.models.push((model.clone(), model.store.clone()));
        }
        for kind in ["accepted", "slices", "noise", "swap_act", "swap_comp"] {
            for t in files(&lfrem.join(format!("i{i}_{kind}")), "htf") {
                let mt = load(&model, &t);
                let b = buckets
                    .iter()
                    .position(|&(_, lo, hi)| (lo..=hi).contains(&mt.len()))
                    .unwrap();
                sets[b].cases.push((i, mt));
            }
        }
    }
    let mut g = c.benchmark_group("explore/lfrem");
    g.sample_size(10);
    for ((name, _, _), set) in buckets.iter().zip(sets.iter_mut()) {
        g.throughput(Throughput::Elements(set.cases.len() as u64));
        g.bench_function(*name, |b| b.iter(|| set.run(&opts)));
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

/// `explore/long`: time per action of 1,000- and 10,000-action Pass runs of the MQTT fixture
/// at one location, both modes.
fn long(c: &mut Criterion, root: &Path) {
    let opts = CompileOptions {
        locations: LocationChoice::Single,
        ..CompileOptions::default()
    };
    let model = load_model(&root.join("fixtures/seed004-mqtt/model.hif"), None, &opts).unwrap();
    let engine = Engine::new(model);
    let (store, term) = engine.model().term().unwrap();
    let mut g = c.benchmark_group("explore/long");
    g.sample_size(10);
    for n in [1_000, 10_000] {
        let gen = generate(&engine, &GenOptions::new(Kind::Pass, 1, n, n, 2)).unwrap();
        let mt = to_multitrace(engine.model(), &gen.items[0].traces).unwrap();
        g.throughput(Throughput::Elements(n as u64));
        for mode in [Mode::Complete, Mode::Prefix] {
            let opts = ExploreOptions {
                mode,
                ..ExploreOptions::default()
            };
            let mut store = store.clone();
            // Decided within the default budget, or the figure would time a give-up.
            assert_eq!(
                explore(&mut store, term, &mt, &opts).kind,
                VerdictKind::Pass
            );
            let name = match mode {
                Mode::Complete => format!("complete/{n}"),
                Mode::Prefix => format!("prefix/{n}"),
            };
            g.bench_function(name, |b| b.iter(|| explore(&mut store, term, &mt, &opts)));
        }
    }
    g.finish();
}
