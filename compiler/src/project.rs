//! Local verifiers: `Proj(A, Σi)` by subset construction treating the other locations' letters
//! as ε (seed 004 Def. 5), reachable subsets only, with `area(t)` on every transition (Def. 6),
//! `init` (Def. 7), and for each DFA state whether it accepts, whether it is live, and its
//! `tail` (every transition reachable from its NFA states, for partial observation).
//! Identical areas are interned once in a shared [`AreaTable`].

use multitrace_runtime::nfa::{Alphabet, LocationId, Nfa, StateId};
use multitrace_runtime::project::{bits, AreaId, AreaTable, ProjDfa, NO_STATE};
use rustc_hash::FxHashMap;

/// A subset construction exceeded one of its caps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DfaCapReached {
    /// The location being built.
    pub location: LocationId,
    /// Which cap.
    pub what: CapKind,
    /// The cap.
    pub cap: usize,
}

/// The caps of [`project_all`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CapKind {
    /// DFA states of one location.
    States,
    /// Bytes of the interned areas of all locations (each area is a bitset over every NFA
    /// transition, so long chains of transitions make this table quadratic).
    AreaBytes,
}

/// Interns areas, within a byte budget.
pub struct AreaInterner {
    table: AreaTable,
    index: FxHashMap<Vec<u64>, AreaId>,
    max_areas: usize,
    cap_bytes: usize,
}

impl AreaInterner {
    /// An interner for areas over `transitions` transitions, holding at most `cap_bytes` of
    /// areas.
    pub fn new(transitions: usize, cap_bytes: usize) -> Self {
        let table = AreaTable::new(transitions);
        let max_areas = cap_bytes / (table.words() * 8).max(1);
        AreaInterner {
            table,
            index: FxHashMap::default(),
            max_areas,
            cap_bytes,
        }
    }
    /// The byte budget.
    pub fn cap_bytes(&self) -> usize {
        self.cap_bytes
    }
    /// The id of an area (added if new); `None` when adding it would exceed the byte budget.
    pub fn intern(&mut self, area: &[u64]) -> Option<AreaId> {
        if let Some(&id) = self.index.get(area) {
            return Some(id);
        }
        if self.table.len() >= self.max_areas {
            return None;
        }
        let id = self.table.push(area);
        self.index.insert(area.to_vec(), id);
        Some(id)
    }
    /// The table.
    pub fn finish(self) -> AreaTable {
        self.table
    }
}

/// Builds `Proj(A, Σk)` for every location of `alphabet`, with at most `cap` DFA states per
/// location and `area_cap` bytes of interned areas.
pub fn project_all(
    nfa: &Nfa,
    alphabet: &Alphabet,
    cap: usize,
    area_cap: usize,
) -> Result<(Vec<ProjDfa>, AreaTable), DfaCapReached> {
    let mut areas = AreaInterner::new(nfa.transitions().len(), area_cap);
    let mut out = Vec::with_capacity(alphabet.locations());
    for k in 0..alphabet.locations() {
        out.push(project(
            nfa,
            alphabet,
            LocationId(k as u32),
            &mut areas,
            cap,
        )?);
    }
    Ok((out, areas.finish()))
}

/// Builds `Proj(A, Σk)` for location `k`.
pub fn project(
    nfa: &Nfa,
    alphabet: &Alphabet,
    k: LocationId,
    areas: &mut AreaInterner,
    cap: usize,
) -> Result<ProjDfa, DfaCapReached> {
    let full = DfaCapReached {
        location: k,
        what: CapKind::AreaBytes,
        cap: areas.cap_bytes(),
    };
    let n = nfa.states();
    let sw = n.div_ceil(64).max(1);
    let tw = nfa.transitions().len().div_ceil(64).max(1);
    let local = |t: usize| alphabet.location(nfa.transitions()[t].letter) == k;
    let letters = alphabet.letters_of(k).len();

    // δī closure of a state set, in place.
    let close = |set: &mut Vec<u64>| {
        let mut stack: Vec<usize> = bits::iter(set).collect();
        while let Some(s) = stack.pop() {
            for i in nfa.out_range(StateId(s as u32)) {
                let to = nfa.transitions()[i].to.index();
                if !local(i) && !bits::get(set, to) {
                    bits::set(set, to);
                    stack.push(to);
                }
            }
        }
    };
    // Δī of a closed set: the non-local transitions leaving it (they stay inside).
    let delta_other = |set: &[u64], area: &mut Vec<u64>| {
        for s in bits::iter(set) {
            for i in nfa.out_range(StateId(s as u32)) {
                if !local(i) {
                    bits::set(area, i);
                }
            }
        }
    };

    let mut start = vec![0u64; sw];
    for s in nfa.initial() {
        bits::set(&mut start, s.index());
    }
    close(&mut start);
    let mut init = vec![0u64; tw];
    delta_other(&start, &mut init);
    let init_area = areas.intern(&init).ok_or(full)?;

    let mut index: FxHashMap<Vec<u64>, u32> = FxHashMap::default();
    let mut subsets: Vec<Vec<u64>> = vec![start.clone()];
    index.insert(start, 0);
    let mut next: Vec<u32> = Vec::new();
    let mut area: Vec<AreaId> = Vec::new();
    let mut i = 0;
    while i < subsets.len() {
        let mut row_next = vec![NO_STATE; letters];
        let mut row_area = vec![AreaId(0); letters];
        // Group the local transitions leaving the subset by letter.
        let mut by_letter: Vec<(Vec<u64>, Vec<u64>)> = Vec::new();
        let mut slot: Vec<usize> = vec![usize::MAX; letters];
        for s in bits::iter(&subsets[i]) {
            for t in nfa.out_range(StateId(s as u32)) {
                if !local(t) {
                    continue;
                }
                let tr = nfa.transitions()[t];
                let x = alphabet.local_index(tr.letter) as usize;
                if slot[x] == usize::MAX {
                    slot[x] = by_letter.len();
                    by_letter.push((vec![0u64; sw], vec![0u64; tw]));
                }
                let (targets, a) = &mut by_letter[slot[x]];
                bits::set(targets, tr.to.index());
                bits::set(a, t);
            }
        }
        for x in 0..letters {
            if slot[x] == usize::MAX {
                continue;
            }
            let (mut target, mut a) = std::mem::take(&mut by_letter[slot[x]]);
            close(&mut target);
            delta_other(&target, &mut a);
            let id = match index.get(&target) {
                Some(&j) => j,
                None => {
                    if subsets.len() >= cap {
                        return Err(DfaCapReached {
                            location: k,
                            what: CapKind::States,
                            cap,
                        });
                    }
                    let j = subsets.len() as u32;
                    index.insert(target.clone(), j);
                    subsets.push(target);
                    j
                }
            };
            row_next[x] = id;
            row_area[x] = areas.intern(&a).ok_or(full)?;
        }
        next.extend(row_next);
        area.extend(row_area);
        i += 1;
    }

    let m = subsets.len();
    let accepting: Vec<bool> = subsets
        .iter()
        .map(|set| bits::iter(set).any(|s| nfa.is_accepting(StateId(s as u32))))
        .collect();
    // Live: can reach an accepting DFA state.
    let live = multitrace_runtime::nfa::reaching(
        m,
        next.iter()
            .enumerate()
            .filter(|&(_, &t)| t != NO_STATE)
            .map(|(cell, &t)| ((cell / letters.max(1)) as u32, t)),
        (0..m).filter(|&s| accepting[s]),
    );
    // Tail: transitions reachable from the subset.
    let tail: Vec<AreaId> = subsets
        .iter()
        .map(|set| {
            let mut seen = set.clone();
            let mut a = vec![0u64; tw];
            let mut stack: Vec<usize> = bits::iter(set).collect();
            while let Some(s) = stack.pop() {
                for t in nfa.out_range(StateId(s as u32)) {
                    bits::set(&mut a, t);
                    let to = nfa.transitions()[t].to.index();
                    if !bits::get(&seen, to) {
                        bits::set(&mut seen, to);
                        stack.push(to);
                    }
                }
            }
            areas.intern(&a).ok_or(full)
        })
        .collect::<Result<_, _>>()?;
    Ok(ProjDfa {
        location: k,
        states: m as u32,
        letters: letters as u32,
        next,
        area,
        accepting,
        live,
        init_area,
        tail,
        subsets: subsets
            .iter()
            .map(|set| bits::iter(set).map(|s| StateId(s as u32)).collect())
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use multitrace_runtime::nfa::{LetterId, Transition};

    /// `q0 -a-> q1 -b-> q2 -a-> q3`, `a` on location 0 and `b` on location 1.
    fn chain() -> (Nfa, Alphabet) {
        let t = |from, letter, to| Transition {
            from: StateId(from),
            letter: LetterId(letter),
            to: StateId(to),
        };
        let nfa = Nfa::new(
            4,
            vec![StateId(0)],
            vec![false, false, false, true],
            vec![t(0, 0, 1), t(1, 1, 2), t(2, 0, 3)],
            2,
        )
        .unwrap();
        let alphabet = Alphabet::new(
            vec!["a".into(), "b".into()],
            vec![LocationId(0), LocationId(1)],
            vec!["l0".into(), "l1".into()],
        )
        .unwrap();
        (nfa, alphabet)
    }

    #[test]
    fn interner_shares_areas_and_respects_its_budget() {
        // One word per area: a budget of 16 bytes holds two areas.
        let mut i = AreaInterner::new(3, 16);
        let x = i.intern(&[0b001]).unwrap();
        let y = i.intern(&[0b110]).unwrap();
        assert_ne!(x, y);
        assert_eq!(i.intern(&[0b001]), Some(x), "a known area is free");
        assert_eq!(i.intern(&[0b111]), None, "a third one is over the budget");
        assert_eq!(i.finish().len(), 2);
    }

    #[test]
    fn area_cap_is_reported_with_its_location() {
        let (nfa, alphabet) = chain();
        let (dfas, areas) = project_all(&nfa, &alphabet, 100, 1 << 20).unwrap();
        assert_eq!(dfas.len(), 2);
        let needed = areas.len() * areas.words() * 8;
        assert!(needed > 8);
        let err = project_all(&nfa, &alphabet, 100, 8).unwrap_err();
        assert_eq!(err.what, CapKind::AreaBytes);
        assert_eq!(err.cap, 8);
        // Exactly enough is enough.
        assert!(project_all(&nfa, &alphabet, 100, needed).is_ok());
        let err = project_all(&nfa, &alphabet, 1, 1 << 20).unwrap_err();
        assert_eq!(err.what, CapKind::States);
    }
}
