//! Tails of the local verifiers' states: the NFA transitions reachable from a DFA state's
//! subset (what may still happen after an observation that stopped there, for prefix mode).
//!
//! A search per DFA state costs the reachable part of the NFA each time: quadratic when most
//! subsets reach most of the NFA (a ring of N states: N DFA states each reaching all 2N
//! transitions). The states of one strongly connected component reach the same transitions,
//! so the tail of a subset lying in one component (every subset of a deterministic NFA, and
//! most others) is computed once per component and shared; other subsets are searched.

use super::intern::{AreaInterner, Marked};
use multitrace_model::nfa::{Nfa, StateId};
use multitrace_model::project::AreaId;

/// Marks a state not yet numbered, or a component whose tail is not known yet.
const NONE: u32 = u32::MAX;

/// The tails of one NFA, memoized per strongly connected component.
pub struct Tails {
    component: Vec<u32>,
    memo: Vec<u32>,
    states: Marked,
}

impl Tails {
    /// The components of `nfa` (Tarjan's algorithm, iterative).
    pub fn new(nfa: &Nfa) -> Self {
        let n = nfa.states();
        let mut index = vec![NONE; n];
        let mut low = vec![0u32; n];
        let mut component = vec![NONE; n];
        let mut on: Vec<u32> = Vec::new();
        let mut call: Vec<(u32, usize)> = Vec::new();
        let (mut next_index, mut next_component) = (0u32, 0u32);
        for root in 0..n as u32 {
            if index[root as usize] != NONE {
                continue;
            }
            // Numbers `v` and opens its frame.
            let mut open = |v: u32,
                            index: &mut [u32],
                            low: &mut [u32],
                            on: &mut Vec<u32>,
                            call: &mut Vec<_>| {
                index[v as usize] = next_index;
                low[v as usize] = next_index;
                next_index += 1;
                on.push(v);
                call.push((v, nfa.out_range(StateId(v)).start));
            };
            open(root, &mut index, &mut low, &mut on, &mut call);
            while let Some(&(v, i)) = call.last() {
                let end = nfa.out_range(StateId(v)).end;
                if i < end {
                    call.last_mut().expect("a frame is open").1 += 1;
                    let w = nfa.transitions()[i].to.0;
                    if index[w as usize] == NONE {
                        open(w, &mut index, &mut low, &mut on, &mut call);
                    } else if component[w as usize] == NONE {
                        low[v as usize] = low[v as usize].min(index[w as usize]);
                    }
                    continue;
                }
                call.pop();
                if let Some(&(u, _)) = call.last() {
                    low[u as usize] = low[u as usize].min(low[v as usize]);
                }
                if low[v as usize] == index[v as usize] {
                    while let Some(w) = on.pop() {
                        component[w as usize] = next_component;
                        if w == v {
                            break;
                        }
                    }
                    next_component += 1;
                }
            }
        }
        Tails {
            component,
            memo: vec![NONE; next_component as usize],
            states: Marked::new(n),
        }
    }

    /// The interned tail of the subset `set` (NFA states); `None` when interning it would
    /// exceed the areas' byte budget.
    pub fn of(&mut self, nfa: &Nfa, set: &[u32], areas: &mut AreaInterner) -> Option<AreaId> {
        let one = set
            .first()
            .map(|&s| self.component[s as usize])
            .filter(|&c| set.iter().all(|&s| self.component[s as usize] == c));
        if let Some(c) = one {
            if self.memo[c as usize] != NONE {
                return Some(AreaId(self.memo[c as usize]));
            }
            // Any member reaches what the component reaches.
            let id = self.search(nfa, &set[..1], areas)?;
            self.memo[c as usize] = id.0;
            return Some(id);
        }
        self.search(nfa, set, areas)
    }

    /// Every transition reachable from `set`, interned.
    fn search(&mut self, nfa: &Nfa, set: &[u32], areas: &mut AreaInterner) -> Option<AreaId> {
        let mut stack: Vec<u32> = Vec::new();
        for &s in set {
            if self.states.insert(s as usize) {
                stack.push(s);
            }
        }
        let mut area: Vec<u32> = Vec::new();
        while let Some(s) = stack.pop() {
            for t in nfa.out_range(StateId(s)) {
                area.push(t as u32);
                let to = nfa.transitions()[t].to.0;
                if self.states.insert(to as usize) {
                    stack.push(to);
                }
            }
        }
        self.states.take();
        area.sort_unstable();
        areas.intern(&area)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use multitrace_model::nfa::{LetterId, Transition};
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    proptest! {
        /// The memoized tails are what a plain search from the whole subset finds.
        #[test]
        fn tails_are_the_reachable_transitions(
            n in 1u32..12,
            edges in proptest::collection::vec((0u32..12, 0u32..12), 0..30),
            subsets in proptest::collection::vec(proptest::collection::btree_set(0u32..12, 0..4), 1..8),
        ) {
            let mut ts: Vec<Transition> = edges
                .iter()
                .map(|&(a, b)| Transition { from: StateId(a % n), letter: LetterId(0), to: StateId(b % n) })
                .collect();
            ts.sort_by_key(|t| (t.from, t.to));
            ts.dedup();
            let nfa = Nfa::new(n, vec![StateId(0)], vec![true; n as usize], ts, 1).unwrap();
            let mut areas = AreaInterner::new(nfa.transitions().len(), 1 << 20);
            let mut tails = Tails::new(&nfa);
            for set in subsets {
                let set: Vec<u32> = set.into_iter().map(|s| s % n).collect::<BTreeSet<_>>().into_iter().collect();
                // Brute force: a fixed point over the transitions.
                let mut reach: BTreeSet<u32> = set.iter().copied().collect();
                loop {
                    let more: Vec<u32> = nfa.transitions().iter().filter(|t| reach.contains(&t.from.0)).map(|t| t.to.0).filter(|s| !reach.contains(s)).collect();
                    if more.is_empty() { break; }
                    reach.extend(more);
                }
                let want: Vec<usize> = (0..nfa.transitions().len()).filter(|&i| reach.contains(&nfa.transitions()[i].from.0)).collect();
                let id = tails.of(&nfa, &set, &mut areas).unwrap();
                let table = areas.table();
                prop_assert_eq!(table.get(id).iter().collect::<Vec<_>>(), want);
            }
        }
    }
}
