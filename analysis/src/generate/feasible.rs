//! Whether a model can produce a kind at all, decided before any attempt.
//!
//! Invariants: a refusal ([`GenError::Impossible`]) is a proof, never a heuristic, so a kind
//! that some seed could produce is never refused:
//!
//! - no accepting run of a length in the range: read off the run table;
//! - mixed kinds need two locations;
//! - `central-error` needs a cycle of the trim part of `A` that reads two locations, in a
//!   strongly connected component of two states or more: a component of one state reads every
//!   word over its self-loop letters, so iterating its cycle `k_i` times on location `i` gives
//!   the projections of `u c_1^k_1 ... c_n^k_n v`, another accepted run, which passes.
//!
//! The reasons name what they found (the lengths that exist, the locations or states
//! involved), so the error explains itself.

use super::generator::Generator;
use super::kinds::Kind;
use super::spec::GenError;
use multitrace_model::nfa::{LocationId, StateId};
use multitrace_model::verdict::Mode;
use std::collections::BTreeMap;
use std::fmt;

/// Why no central error can be built by iterating a cycle unevenly per location: a proof
/// that every such multitrace passes (see the module documentation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum NoFailingCycle {
    /// The trim part of `A` has no cycle: its language is finite.
    Acyclic,
    /// Every cycle reads letters of one location only.
    SingleLocation {
        /// The locations whose letters the cycles read, sorted, without repeats.
        locations: Vec<String>,
    },
    /// Every cycle that reads two locations is made of self-loops of one state.
    SelfLoops {
        /// Such states (at most six).
        states: Vec<String>,
        /// Whether there are more than those listed.
        more: bool,
    },
}

impl fmt::Display for NoFailingCycle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NoFailingCycle::Acyclic => f.write_str(
                "A has no cycle on its accepting runs (its language is finite): there is no cycle to iterate",
            ),
            NoFailingCycle::SingleLocation { locations } => write!(
                f,
                "every cycle of A reads letters of a single location ({}): iterating a cycle a different number of times per location changes one local trace only, which stays accepted",
                locations.join(", ")
            ),
            NoFailingCycle::SelfLoops { states, more } => write!(
                f,
                "every cycle of A that reads two locations is a combination of self-loops of one state ({}{}); such a state reads every word over its loop letters, so iterating the cycle a different number of times per location is the projection of another accepted run and passes (`central-error-mixed` builds central errors by mixing local traces instead)",
                states.join(", "),
                if *more { ", ..." } else { "" }
            ),
        }
    }
}

impl Generator<'_> {
    fn impossible(&self, why: String) -> GenError {
        GenError::Impossible {
            kind: self.opts.kind,
            why,
        }
    }

    /// Checks that the model can produce the kind at all (before any attempt).
    pub(super) fn feasibility(&self) -> Result<(), GenError> {
        let (min, max) = (self.opts.min_len, self.opts.max_len);
        if !self.table.feasible.iter().any(|&f| f) {
            return Err(self.impossible(format!(
                "A has no accepting run of length at most {} (it may accept no word at all)",
                self.table.cap
            )));
        }
        let needs_range = self.opts.kind.mode() == Mode::Complete;
        if needs_range && self.table.feasible_in(min, max).is_empty() {
            let some: Vec<String> = self
                .table
                .feasible_in(0, self.table.cap)
                .iter()
                .take(12)
                .map(|r| r.to_string())
                .collect();
            return Err(self.impossible(format!(
                "A has no accepting run of length in {min}..{max} (lengths of accepting runs up to {}: {})",
                self.table.cap,
                some.join(", ")
            )));
        }
        if !needs_range && self.table.feasible_in(min, self.table.cap).is_empty() {
            return Err(self.impossible(format!(
                "A has no accepting run of length {min} to {} to cut multi-prefixes from",
                self.table.cap
            )));
        }
        match self.opts.kind {
            Kind::InterError | Kind::CentralErrorMixed if self.model.alphabet.locations() < 2 => {
                Err(self
                    .impossible("the model has a single location: there is nothing to mix".into()))
            }
            Kind::CentralError => self
                .cycles_on_two_locations()
                .map_err(|w| self.impossible(w.to_string())),
            Kind::LocalError
                if (0..self.model.alphabet.locations()).all(|k| self.letters(k).is_empty()) =>
            {
                Err(self.impossible("no location has letters to mutate".into()))
            }
            _ => Ok(()),
        }
    }

    /// Whether some cycle of the trim part of `A` reads letters of two locations (a strongly
    /// connected component whose internal transitions read two locations); else why not.
    fn cycles_on_two_locations(&self) -> Result<(), NoFailingCycle> {
        use petgraph::graph::{DiGraph, NodeIndex};
        let nfa = self.nfa;
        let n = nfa.states();
        // Trim: reachable from an initial state and co-reachable (a run of some length).
        let mut reach = vec![false; n];
        let mut stack: Vec<StateId> = nfa.initial().to_vec();
        for s in &stack {
            reach[s.index()] = true;
        }
        while let Some(s) = stack.pop() {
            for (_, t) in nfa.out(s) {
                if !reach[t.to.index()] {
                    reach[t.to.index()] = true;
                    stack.push(t.to);
                }
            }
        }
        let mut co = vec![false; n];
        let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
        for t in nfa.transitions() {
            preds[t.to.index()].push(t.from.index());
        }
        let mut stack: Vec<usize> = (0..n)
            .filter(|&s| nfa.is_accepting(StateId(s as u32)))
            .collect();
        for &s in &stack {
            co[s] = true;
        }
        while let Some(s) = stack.pop() {
            for &p in &preds[s] {
                if !co[p] {
                    co[p] = true;
                    stack.push(p);
                }
            }
        }
        let trim = |s: usize| reach[s] && co[s];
        let mut g: DiGraph<(), ()> = DiGraph::with_capacity(n, nfa.transitions().len());
        for _ in 0..n {
            g.add_node(());
        }
        for t in nfa.transitions() {
            if trim(t.from.index()) && trim(t.to.index()) {
                g.add_edge(
                    NodeIndex::new(t.from.index()),
                    NodeIndex::new(t.to.index()),
                    (),
                );
            }
        }
        let mut comp = vec![usize::MAX; n];
        for (i, scc) in petgraph::algo::kosaraju_scc(&g).iter().enumerate() {
            for v in scc {
                comp[v.index()] = i;
            }
        }
        let mut locs_of: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for t in nfa.transitions() {
            let (f, to) = (t.from.index(), t.to.index());
            if trim(f) && trim(to) && comp[f] == comp[to] {
                let e = locs_of.entry(comp[f]).or_default();
                let k = self.model.alphabet.location(t.letter).index();
                if !e.contains(&k) {
                    e.push(k);
                }
            }
        }
        if locs_of.is_empty() {
            return Err(NoFailingCycle::Acyclic);
        }
        if locs_of.values().all(|l| l.len() < 2) {
            let mut locations: Vec<String> = locs_of
                .values()
                .map(|l| {
                    let k = LocationId(l[0] as u32);
                    self.model.alphabet.location_name(k).to_string()
                })
                .collect();
            locations.sort();
            locations.dedup();
            return Err(NoFailingCycle::SingleLocation { locations });
        }
        // A component of one state: its cycles are words over its self-loop letters, and the
        // state reads every such word. Iterating a cycle `k_i` times on location `i` gives the
        // projections of `u c_1^k_1 ... c_n^k_n v`, another accepted run: always Pass.
        let mut size = vec![0usize; locs_of.len().max(1)];
        let mut first_state: BTreeMap<usize, usize> = BTreeMap::new();
        for (s, &c) in comp.iter().enumerate() {
            if let Some(i) = locs_of.keys().position(|&k| k == c) {
                size[i] += 1;
                first_state.entry(c).or_insert(s);
            }
        }
        let multi: Vec<(usize, usize)> = locs_of
            .iter()
            .enumerate()
            .filter(|(_, (_, l))| l.len() >= 2)
            .map(|(i, (&c, _))| (i, c))
            .collect();
        if multi.iter().all(|&(i, _)| size[i] == 1) {
            let states: Vec<String> = multi
                .iter()
                .take(6)
                .map(|(_, c)| nfa.state_name(StateId(first_state[c] as u32)))
                .collect();
            return Err(NoFailingCycle::SelfLoops {
                states,
                more: multi.len() > 6,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::recheck;
    use super::super::{generate, GenError, GenOptions, Kind};
    use multitrace_check::Engine;
    use multitrace_compiler::compile::CompileOptions;
    use multitrace_compiler::source::load_model;

    #[test]
    fn central_error_needs_a_cycle_that_can_fail() {
        let dir = std::env::temp_dir().join(format!("mt-gen-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let model = |name: &str, body: &str| {
            let path = dir.join(name);
            std::fs::write(
                &path,
                format!("Ops a:1 b:1 c:1 x:0\nAutomaton A\n{body}Systems\n [l1] a\n [l2] b c\n"),
            )
            .unwrap();
            Engine::new(load_model(&path, None, &CompileOptions::default()).unwrap())
        };
        let cases = [
            (
                model(
                    "acyclic.timbuk",
                    "States q0 q1 q2\nFinal States q2\nTransitions\nx -> q0\na(q0) -> q1\nb(q1) -> q2\n",
                ),
                "no cycle",
            ),
            (
                model(
                    "oneloc.timbuk",
                    "States q0 q1\nFinal States q1\nTransitions\nx -> q0\na(q0) -> q0\nb(q0) -> q1\n",
                ),
                "single location (l1)",
            ),
            (
                model(
                    "selfloops.timbuk",
                    "States q0 q1\nFinal States q1\nTransitions\nx -> q0\na(q0) -> q0\nb(q0) -> q0\nc(q0) -> q1\n",
                ),
                "self-loops of one state (q0)",
            ),
        ];
        for (e, fragment) in &cases {
            let err = generate(e, &GenOptions::new(Kind::CentralError, 3, 1, 9, 0)).unwrap_err();
            assert!(
                matches!(err, GenError::Impossible { .. }) && err.to_string().contains(fragment),
                "{err}"
            );
        }
        // A cycle of two states (a b)* followed by c: iterating it unevenly on l1 and l2 fails.
        let e = model(
            "cycle.timbuk",
            "States q0 q1 q2\nFinal States q2\nTransitions\nx -> q0\na(q0) -> q1\nb(q1) -> q0\nc(q0) -> q2\n",
        );
        let g = generate(&e, &GenOptions::new(Kind::CentralError, 5, 3, 20, 0)).unwrap();
        recheck(&e, Kind::CentralError, &g, 3, 20);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
