//! Throughput of the local check of AS (reading a local trace on `Proj(A, Σi)` and collecting
//! `Area(μi)`): actions per second, on long accepted local traces.
//!
//! - `local/fig3`: seed 004's running example, the trace `d^n c` of location l2.
//! - `local/automatark/<model>`: a 1,000,000-step random accepting walk of each automatark
//!   NFA (3 locations as in seed 004, `../shared/data`, skipped when absent), projected on each
//!   location; the figure is actions read per second summed over the three local checks.

#[path = "common.rs"]
mod common;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use multitrace_check::semi::local_check;
use multitrace_compiler::compile::CompileOptions;
use multitrace_compiler::source::load_model;
use multitrace_model::model::CompiledModel;
use multitrace_model::nfa::{LetterId, StateId};
use multitrace_model::rng::Rng;
use multitrace_model::verdict::Mode;
use std::path::Path;

/// A random walk of `steps` transitions that stays within states that can reach an accepting
/// state and continue forever (deterministic: `multitrace_model::rng`); its local traces are
/// live prefixes.
fn walk(m: &CompiledModel, steps: usize, seed: u64) -> Vec<LetterId> {
    let nfa = &m.automata().unwrap().nfa;
    let n = nfa.states();
    let mut live: Vec<bool> = (0..n)
        .map(|s| nfa.is_accepting(StateId(s as u32)))
        .collect();
    loop {
        let mut changed = false;
        for t in nfa.transitions() {
            if live[t.to.index()] && !live[t.from.index()] {
                live[t.from.index()] = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    // States with an infinite live path (greatest fixpoint): the walk stays among them.
    let mut endless = live.clone();
    loop {
        let mut changed = false;
        for s in 0..n {
            if endless[s]
                && !nfa
                    .out(StateId(s as u32))
                    .any(|(_, t)| endless[t.to.index()])
            {
                endless[s] = false;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let mut rng = Rng::new(seed);
    let Some(&start) = nfa.initial().iter().find(|s| endless[s.index()]) else {
        return Vec::new();
    };
    let mut s = start;
    let mut out = Vec::with_capacity(steps);
    while out.len() < steps {
        let choices: Vec<_> = nfa.out(s).filter(|(_, t)| endless[t.to.index()]).collect();
        let (_, t) = *rng
            .pick(&choices)
            .expect("an endless state has an endless successor");
        out.push(t.letter);
        s = t.to;
    }
    out
}

fn project(m: &CompiledModel, w: &[LetterId]) -> Vec<Vec<LetterId>> {
    let mut traces = vec![Vec::new(); m.alphabet.locations()];
    for &l in w {
        traces[m.alphabet.location(l).index()].push(l);
    }
    traces
}

fn bench_model(c: &mut Criterion, name: &str, m: &CompiledModel, traces: &[Vec<LetterId>]) {
    let a = m.automata().unwrap();
    let total: usize = traces.iter().map(Vec::len).sum();
    let mut g = c.benchmark_group("local");
    g.throughput(Throughput::Elements(total as u64));
    g.sample_size(10);
    let mut area = vec![0u64; a.areas.words()];
    let mut seen = Vec::new();
    g.bench_function(name, |b| {
        b.iter(|| {
            for (k, t) in traces.iter().enumerate() {
                let out = local_check(
                    a,
                    &a.projections[k],
                    &m.alphabet,
                    t,
                    Mode::Prefix,
                    &mut area,
                    &mut seen,
                );
                std::hint::black_box(out);
            }
        })
    });
    g.finish();
}

fn bench(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let fig3 = load_model(
        &root.join("fixtures/seed004-fig3/model.timbuk"),
        None,
        &CompileOptions::default(),
    )
    .unwrap();
    let d = fig3.alphabet.letter("d").unwrap();
    let cc = fig3.alphabet.letter("c").unwrap();
    let mut l2 = vec![d; 1_000_000];
    l2.push(cc);
    let traces = vec![Vec::new(), l2, Vec::new()];
    bench_model(c, "fig3", &fig3, &traces);

    for (name, path, opts) in common::automatark(root) {
        let m = load_model(&path, None, &opts).unwrap();
        let w = walk(&m, 1_000_000, 42);
        bench_model(c, &format!("automatark/{name}"), &m, &project(&m, &w));
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
