//! Local verifiers: `Proj(A, Σi)` by subset construction treating the other locations' letters
//! as ε (seed 004 Def. 5), reachable subsets only, with `area(t)` on every transition (Def. 6),
//! `init` (Def. 7), and for each DFA state whether it accepts, whether it is live, and its
//! `tail` (every transition reachable from its NFA states, for partial observation).
//! Identical areas are interned once in a shared [`AreaTable`].

use multitrace_model::nfa::{Alphabet, LocationId, Nfa, StateId};
use multitrace_model::project::{AreaId, AreaTable, ProjDfa, NO_STATE};
use rustc_hash::FxHashMap;

mod intern;
pub mod tail;

pub use intern::AreaInterner;
use intern::Marked;

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
    /// Bytes of the interned areas of all locations ([`AreaTable::bytes`]: a sparse area
    /// costs 4 bytes a transition, a dense one a bit per NFA transition).
    AreaBytes,
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
    let mut tails = tail::Tails::new(nfa);
    let mut out = Vec::with_capacity(alphabet.locations());
    for k in 0..alphabet.locations() {
        out.push(project(
            nfa,
            alphabet,
            LocationId(k as u32),
            &mut areas,
            &mut tails,
            cap,
        )?);
    }
    Ok((out, areas.finish()))
}

/// Builds `Proj(A, Σk)` for location `k`. Subsets and areas are built as sorted lists over
/// scratch bitsets cleared member by member, so the work per DFA transition is proportional to
/// the subsets and areas it touches, not to the NFA's size.
pub fn project(
    nfa: &Nfa,
    alphabet: &Alphabet,
    k: LocationId,
    areas: &mut AreaInterner,
    tails: &mut tail::Tails,
    cap: usize,
) -> Result<ProjDfa, DfaCapReached> {
    let full = DfaCapReached {
        location: k,
        what: CapKind::AreaBytes,
        cap: areas.cap_bytes(),
    };
    let n = nfa.states();
    let local = |t: usize| alphabet.location(nfa.transitions()[t].letter) == k;
    let letters = alphabet.letters_of(k).len();
    let mut states = Marked::new(n);

    // δī closure of the members of `states`, in place.
    let close = |states: &mut Marked| {
        let mut stack: Vec<u32> = states.list.clone();
        while let Some(s) = stack.pop() {
            for i in nfa.out_range(StateId(s)) {
                let to = nfa.transitions()[i].to.index();
                if !local(i) && states.insert(to) {
                    stack.push(to as u32);
                }
            }
        }
    };
    // Δī of a closed set: the non-local transitions leaving it (they stay inside).
    let delta_other = |set: &[u32], area: &mut Vec<u32>| {
        for &s in set {
            area.extend(
                nfa.out_range(StateId(s))
                    .filter(|&i| !local(i))
                    .map(|i| i as u32),
            );
        }
    };

    for s in nfa.initial() {
        states.insert(s.index());
    }
    close(&mut states);
    let start = states.take();
    let mut init = Vec::new();
    delta_other(&start, &mut init);
    init.sort_unstable();
    let init_area = areas.intern(&init).ok_or(full)?;

    let mut index: FxHashMap<Box<[u32]>, u32> = FxHashMap::default();
    let mut subsets: Vec<Box<[u32]>> = vec![start.clone().into_boxed_slice()];
    index.insert(start.into_boxed_slice(), 0);
    let mut next: Vec<u32> = Vec::new();
    let mut area: Vec<AreaId> = Vec::new();
    // Per local letter: the targets and the transitions read from the current subset.
    let mut targets: Vec<Vec<u32>> = vec![Vec::new(); letters];
    let mut reads: Vec<Vec<u32>> = vec![Vec::new(); letters];
    let mut used: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < subsets.len() {
        let mut row_next = vec![NO_STATE; letters];
        let mut row_area = vec![AreaId(0); letters];
        // Group the local transitions leaving the subset by letter.
        for &s in subsets[i].iter() {
            for t in nfa.out_range(StateId(s)) {
                if !local(t) {
                    continue;
                }
                let tr = nfa.transitions()[t];
                let x = alphabet.local_index(tr.letter) as usize;
                if reads[x].is_empty() {
                    used.push(x);
                }
                targets[x].push(tr.to.0);
                reads[x].push(t as u32);
            }
        }
        used.sort_unstable();
        for &x in &used {
            for &to in &targets[x] {
                states.insert(to as usize);
            }
            targets[x].clear();
            close(&mut states);
            let target = states.take();
            let a = &mut reads[x];
            delta_other(&target, a);
            a.sort_unstable();
            let id = match index.get(target.as_slice()) {
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
                    let target = target.into_boxed_slice();
                    index.insert(target.clone(), j);
                    subsets.push(target);
                    j
                }
            };
            row_next[x] = id;
            row_area[x] = areas.intern(a).ok_or(full)?;
            a.clear();
        }
        used.clear();
        next.extend(row_next);
        area.extend(row_area);
        i += 1;
    }
    drop(index);

    let m = subsets.len();
    let accepting: Vec<bool> = subsets
        .iter()
        .map(|set| set.iter().any(|&s| nfa.is_accepting(StateId(s))))
        .collect();
    // Live: can reach an accepting DFA state.
    let live = multitrace_model::nfa::reaching(
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
        .map(|set| tails.of(nfa, set, areas).ok_or(full))
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
            .into_iter()
            .map(|set| set.iter().map(|&s| StateId(s)).collect())
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use multitrace_model::nfa::{LetterId, Transition};

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
        // One word per dense area and 8 bytes of slot: a budget of 32 bytes holds two.
        let mut i = AreaInterner::new(3, 32);
        let x = i.intern(&[0]).unwrap();
        let y = i.intern(&[1, 2]).unwrap();
        assert_ne!(x, y);
        assert_eq!(i.intern(&[0]), Some(x), "a known area is free");
        assert_eq!(i.intern(&[0, 1, 2]), None, "a third one is over the budget");
        assert_eq!(
            i.intern_bits(&[0b110]),
            Some(y),
            "the bitset of a known area is known"
        );
        let t = i.finish();
        assert_eq!(t.len(), 2);
        assert_eq!(t.bytes(), 32);
        // Over many transitions a small area is sparse: 4 bytes a transition.
        let mut i = AreaInterner::new(64 * 64, 1 << 10);
        let z = i.intern(&[5, 4000]).unwrap();
        assert_eq!(i.table().bytes(), 8 + 8);
        assert!(matches!(
            i.table().get(z),
            multitrace_model::project::Area::Sparse(_)
        ));
    }

    #[test]
    fn area_cap_is_reported_with_its_location() {
        let (nfa, alphabet) = chain();
        let (dfas, areas) = project_all(&nfa, &alphabet, 100, 1 << 20).unwrap();
        assert_eq!(dfas.len(), 2);
        let needed = areas.bytes();
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
