//! Writes seed 001's 3-SAT reduction instances (Prop. 11) as `.hif`/`.hsf`/`.htf` files for the
//! CLI: for each number of clauses `k` from `K_MIN` to `K_MAX` by `STEP`, one satisfiable and
//! one unsatisfiable formula (labelled by brute force) at the clause/variable ratio 4.26.
//!
//! ```text
//! cargo run --release -p multitrace-compiler --example sat_instances -- DIR K_MIN K_MAX [STEP] [SEED]
//! multitrace check DIR/k50-unsat/model.hif DIR/k50-unsat/trace.htf --procedure term
//! ```
//!
//! Each instance is a directory `k<K>-sat` or `k<K>-unsat` holding `model.hif`,
//! `signature.hsf`, `trace.htf` and `formula.txt` (the clauses, one per line, DIMACS-style
//! literals).

use multitrace_analysis::generate::sat::{Cnf, SatInstance};
use std::path::PathBuf;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: sat_instances DIR K_MIN K_MAX [STEP] [SEED]";
    if args.len() < 3 || args.len() > 5 {
        eprintln!("{usage}");
        std::process::exit(2);
    }
    let num = |i: usize, default: u64| -> u64 {
        args.get(i).map_or(default, |s| {
            s.parse().unwrap_or_else(|_| {
                eprintln!("{usage}: `{s}` is not a number");
                std::process::exit(2)
            })
        })
    };
    let dir = PathBuf::from(&args[0]);
    let (lo, hi, step, seed) = (num(1, 0), num(2, 0), num(3, 10).max(1), num(4, 1));
    if !(1..=64).contains(&lo) || !(lo..=64).contains(&hi) {
        eprintln!("{usage}: clauses are lifelines, 1 to 64");
        std::process::exit(2);
    }
    for k in (lo..=hi).step_by(step as usize) {
        for sat in [true, false] {
            let cnf = Cnf::labelled(k as usize, 4.26, sat, seed);
            let inst = SatInstance::new(&cnf);
            let out = dir.join(format!("k{k}-{}", if sat { "sat" } else { "unsat" }));
            let formula: String = cnf
                .clauses
                .iter()
                .map(|c| format!("{} {} {} 0\n", c[0], c[1], c[2]))
                .collect();
            let written = std::fs::create_dir_all(&out)
                .and_then(|()| std::fs::write(out.join("model.hif"), inst.render_hif()))
                .and_then(|()| std::fs::write(out.join("signature.hsf"), inst.render_hsf()))
                .and_then(|()| std::fs::write(out.join("trace.htf"), inst.render_htf()))
                .and_then(|()| std::fs::write(out.join("formula.txt"), formula));
            if let Err(e) = written {
                eprintln!("{}: {e}", out.display());
                std::process::exit(2);
            }
            println!("{} ({} variables)", out.display(), cnf.vars);
        }
    }
}
