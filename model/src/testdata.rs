//! Where tests and benchmarks find the external data sets (the AutomatArk NFAs and the HIBOU
//! benchmark sample): the directory named by the environment variable `MULTITRACE_DATA`,
//! default `../shared/data` beside the workspace root. The data are never copied into the
//! project; a test that needs them and does not find them says so on standard error
//! (`skipped: ...`) instead of passing silently.
//!
//! [`scratch_dir`] gives a test its own empty directory for the files it writes, and
//! [`random_events`] a random run of a compiled model.

use crate::model::CompiledModel;
use crate::nfa::LetterId;
use crate::rng::Rng;
use std::path::PathBuf;

/// The environment variable naming the data directory.
pub const DATA_VAR: &str = "MULTITRACE_DATA";

/// `sub` inside the data directory, if it exists; otherwise prints `skipped: WHAT (DIR is
/// absent; set MULTITRACE_DATA)` on standard error and returns `None`.
pub fn data(sub: &str, what: &str) -> Option<PathBuf> {
    let root = match std::env::var_os(DATA_VAR) {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        // The runtime crate's directory is `<workspace>/runtime`.
        _ => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data"),
    };
    let path = root.join(sub);
    if path.exists() {
        Some(path)
    } else {
        eprintln!(
            "skipped: {what} ({} is absent; set {DATA_VAR} to the data directory)",
            path.display()
        );
        None
    }
}

/// A fresh, empty directory `multitrace-TAG-PID-NAME` under the system's temporary directory,
/// for the files one test writes: the process id keeps concurrent runs apart, and a directory
/// a previous run left behind is removed first. Panics when it cannot be made (tests only).
pub fn scratch_dir(tag: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("multitrace-{tag}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory under the temporary directory");
    dir
}

/// A random run: a walk of `steps` transitions of the automaton, projected on the locations,
/// then (half the time) mutated by a swap, a deletion or an insertion of a random letter;
/// returned as events in a random order that keeps each location's order.
pub fn random_events(model: &CompiledModel, rng: &mut Rng, steps: usize) -> Vec<LetterId> {
    let nfa = &model.automata().unwrap().nfa;
    let alphabet = &model.alphabet;
    let mut s = nfa.initial()[rng.below(nfa.initial().len())];
    let mut word = Vec::new();
    for _ in 0..steps {
        let out: Vec<_> = nfa.out(s).map(|(_, t)| t).collect();
        if out.is_empty() {
            break;
        }
        let t = out[rng.below(out.len())];
        word.push(t.letter);
        s = t.to;
    }
    let mut traces = vec![Vec::new(); alphabet.locations()];
    for &a in &word {
        traces[alphabet.location(a).index()].push(a);
    }
    if rng.below(2) == 0 {
        let k = rng.below(traces.len());
        let t = &mut traces[k];
        match rng.below(3) {
            0 if t.len() >= 2 => {
                let i = rng.below(t.len() - 1);
                t.swap(i, i + 1);
            }
            1 if !t.is_empty() => {
                t.remove(rng.below(t.len()));
            }
            _ => {
                let letters = alphabet.letters_of(crate::nfa::LocationId(k as u32));
                let i = rng.below(t.len() + 1);
                t.insert(i, letters[rng.below(letters.len())]);
            }
        }
    }
    // A random interleaving.
    let mut pos = vec![0; traces.len()];
    let mut events = Vec::new();
    while let Some(k) = {
        let left: Vec<usize> = (0..traces.len())
            .filter(|&k| pos[k] < traces[k].len())
            .collect();
        (!left.is_empty()).then(|| left[rng.below(left.len())])
    } {
        events.push(traces[k][pos[k]]);
        pos[k] += 1;
    }
    events
}
