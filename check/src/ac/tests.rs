use super::reached::Reached;
use super::viability::MEMO_MAX;
use super::{check_ac_in, AcScratch, AcTables};
use multitrace_model::bits;
use multitrace_model::budget::Budget;
use multitrace_model::model::Automata;
use multitrace_model::nfa::{Alphabet, LetterId, Nfa, StateId};
use multitrace_model::nfa::{LocationId, Transition};
use multitrace_model::project::AreaTable;
use multitrace_model::verdict::{Mode, Sym, VerdictKind};

use multitrace_model::rng::Rng;

/// Letters `a0..a5`, two per location, three locations.
fn alphabet() -> Alphabet {
    Alphabet::new(
        (0..6).map(|i| format!("a{i}")).collect(),
        (0..6).map(|i| LocationId(i / 2)).collect(),
        (0..3).map(|k| format!("l{k}")).collect(),
    )
    .unwrap()
}

fn random_nfa(rng: &mut Rng, states: u32, transitions: usize) -> Nfa {
    let tr: Vec<Transition> = (0..transitions)
        .map(|_| Transition {
            from: StateId(rng.below(states as usize) as u32),
            letter: LetterId(rng.below(6) as u32),
            to: StateId(rng.below(states as usize) as u32),
        })
        .collect();
    let accepting = (0..states).map(|_| rng.below(2) == 0).collect();
    let initial = vec![StateId(rng.below(states as usize) as u32)];
    Nfa::new(states, initial, accepting, tr, 6).unwrap()
}

fn automata(nfa: Nfa) -> Automata {
    let areas = AreaTable::new(nfa.transitions().len());
    Automata {
        nfa,
        projections: Vec::new(),
        areas,
    }
}

/// Independent oracle: some interleaving of the traces, enumerated one by one, is accepted
/// by a plain subset simulation of the automaton (restricted to `mask`).
fn brute_force(nfa: &Nfa, traces: &[Vec<LetterId>], mask: Option<&[u64]>) -> bool {
    fn go(
        nfa: &Nfa,
        traces: &[Vec<LetterId>],
        pos: &mut Vec<usize>,
        states: Vec<bool>,
        mask: Option<&[u64]>,
    ) -> bool {
        if pos.iter().zip(traces).all(|(&p, t)| p == t.len()) {
            return (0..nfa.states()).any(|s| states[s] && nfa.is_accepting(StateId(s as u32)));
        }
        for j in 0..traces.len() {
            if pos[j] == traces[j].len() {
                continue;
            }
            let a = traces[j][pos[j]];
            let mut next = vec![false; nfa.states()];
            for (i, t) in nfa.transitions().iter().enumerate() {
                if states[t.from.index()] && t.letter == a && mask.is_none_or(|m| bits::get(m, i)) {
                    next[t.to.index()] = true;
                }
            }
            pos[j] += 1;
            let found = go(nfa, traces, pos, next, mask);
            pos[j] -= 1;
            if found {
                return true;
            }
        }
        false
    }
    let mut start = vec![false; nfa.states()];
    for s in nfa.initial() {
        start[s.index()] = true;
    }
    go(nfa, traces, &mut vec![0; traces.len()], start, mask)
}

fn random_traces(rng: &mut Rng, max: usize) -> Vec<Vec<LetterId>> {
    (0..3)
        .map(|k| {
            (0..rng.below(max + 1))
                .map(|_| LetterId((2 * k + rng.below(2)) as u32))
                .collect()
        })
        .collect()
}

fn run(
    scratch: &mut AcScratch,
    a: &Automata,
    t: &AcTables,
    traces: &[Vec<LetterId>],
    mask: Option<&[u64]>,
    mode: Mode,
    prune_after: Option<u64>,
) -> VerdictKind {
    scratch.prune_after = prune_after;
    let budget = Budget::default();
    check_ac_in(
        scratch,
        a,
        t,
        &alphabet(),
        traces,
        mask,
        mode,
        &budget,
        true,
    )
    .verdict
    .kind
}

#[test]
fn ac_agrees_with_brute_force_with_and_without_pruning() {
    let alphabet = alphabet();
    let mut rng = Rng::new(7);
    let mut scratch = AcScratch::default();
    let (mut pass, mut fail) = (0, 0);
    for case in 0..600 {
        // Up to 130 states: sets of one to three words.
        let states = [2, 4, 7, 70, 130][case % 5];
        let a = automata(random_nfa(&mut rng, states, states as usize * 8));
        let t = AcTables::new(&a.nfa, &alphabet);
        let traces = random_traces(&mut rng, 2);
        let mask: Option<Vec<u64>> = (case % 3 == 0).then(|| {
            let m = a.nfa.transitions().len();
            let mut bits = vec![0u64; m.div_ceil(64).max(1)];
            for i in 0..m {
                if rng.below(4) != 0 {
                    bits::set(&mut bits, i);
                }
            }
            bits
        });
        let expected = brute_force(&a.nfa, &traces, mask.as_deref());
        for prune in [None, Some(0), Some(3), Some(u64::MAX)] {
            let got = run(
                &mut scratch,
                &a,
                &t,
                &traces,
                mask.as_deref(),
                Mode::Complete,
                prune,
            );
            let want = if expected {
                VerdictKind::Pass
            } else {
                VerdictKind::Fail
            };
            assert_eq!(
                got, want,
                "case {case}, pruning after {prune:?}: {traces:?}"
            );
        }
        if expected {
            pass += 1;
        } else {
            fail += 1;
        }
    }
    // The generator must exercise both outcomes.
    assert!(pass > 50 && fail > 50, "{pass} passes, {fail} failures");
}

#[test]
fn pruning_preserves_prefix_mode_verdicts() {
    let alphabet = alphabet();
    let mut rng = Rng::new(11);
    let mut scratch = AcScratch::default();
    let mut kinds = std::collections::BTreeSet::new();
    for case in 0..400 {
        let states = [3, 6, 70][case % 3];
        let a = automata(random_nfa(&mut rng, states, states as usize * 2));
        let t = AcTables::new(&a.nfa, &alphabet);
        let traces = random_traces(&mut rng, 4);
        let plain = run(
            &mut scratch,
            &a,
            &t,
            &traces,
            None,
            Mode::Prefix,
            Some(u64::MAX),
        );
        let pruned = run(&mut scratch, &a, &t, &traces, None, Mode::Prefix, Some(0));
        assert_eq!(plain, pruned, "case {case}: {traces:?}");
        kinds.insert(format!("{plain:?}"));
    }
    assert_eq!(
        kinds.len(),
        3,
        "Pass, WeakPass and Fail all occur: {kinds:?}"
    );
}

#[test]
fn witness_is_an_accepted_interleaving_under_pruning() {
    let alphabet = alphabet();
    let mut rng = Rng::new(3);
    let mut scratch = AcScratch::default();
    let mut checked = 0;
    for _ in 0..300 {
        let a = automata(random_nfa(&mut rng, 5, 20));
        let t = AcTables::new(&a.nfa, &alphabet);
        let traces = random_traces(&mut rng, 3);
        scratch.prune_after = Some(0);
        let v = check_ac_in(
            &mut scratch,
            &a,
            &t,
            &alphabet,
            &traces,
            None,
            Mode::Complete,
            &Budget::default(),
            true,
        )
        .verdict;
        let Some(w) = v.witness else { continue };
        // The witness interleaves exactly the traces ...
        for (j, trace) in traces.iter().enumerate() {
            let own: Vec<LetterId> = w
                .iter()
                .filter(|(k, _)| *k == j)
                .map(|(_, s)| match s {
                    Sym::Letter(l) => *l,
                    other => panic!("unexpected symbol {other:?}"),
                })
                .collect();
            assert_eq!(&own, trace);
        }
        // ... and is accepted: it is the only interleaving left to the oracle.
        let word: Vec<LetterId> = w
            .iter()
            .map(|(_, s)| match s {
                Sym::Letter(l) => *l,
                other => panic!("unexpected symbol {other:?}"),
            })
            .collect();
        assert!(brute_force(&a.nfa, &[word], None));
        checked += 1;
    }
    assert!(checked > 20, "{checked} witnesses");
}

#[test]
fn reached_table_finds_every_key_across_growth_and_reset() {
    // Dense (2 words) and sparse (40 words) sets.
    for w in [2usize, 40] {
        let mut r = Reached::default();
        let states = 64 * w;
        for round in 0..3 {
            r.reset(w);
            let keys: Vec<u64> = (0..5000u64).map(|i| i * 7919 + round).collect();
            for &k in &keys {
                let e = r.entry(k, &Budget::UNLIMITED).expect("no limit");
                let mut fresh = vec![0u64; w];
                bits::set(&mut fresh, k as usize % states);
                assert!(r.merge::<0>(e, &mut fresh));
            }
            assert_eq!(r.len(), keys.len());
            for &k in &keys {
                let e = r.find(k).expect("inserted");
                assert_eq!(r.states(e), vec![k as usize % states]);
                assert_eq!(r.entry(k, &Budget::UNLIMITED), Some(e));
            }
            assert_eq!(r.find(3), None);
        }
        r.reset(w);
        assert_eq!(r.find(7919), None);
        assert_eq!(r.len(), 0);
    }
}

#[test]
fn reached_sets_merge_like_a_set_of_states_in_either_representation() {
    // Oracle: a BTreeSet per key. Sparse lists turn into bitsets past 2w states.
    use std::collections::{BTreeMap, BTreeSet};
    for w in [1usize, 3, 17, 40] {
        let n = 64 * w;
        let mut rng = Rng::new(w as u64);
        let mut r = Reached::default();
        r.reset(w);
        let mut oracle: BTreeMap<u64, BTreeSet<usize>> = BTreeMap::new();
        for _ in 0..3000 {
            let key = rng.below(50) as u64;
            let mut fresh = vec![0u64; w];
            let mut want_new = BTreeSet::new();
            let known = oracle.entry(key).or_default();
            for _ in 0..1 + rng.below(6) {
                let s = rng.below(n);
                bits::set(&mut fresh, s);
                if !known.contains(&s) {
                    want_new.insert(s);
                }
            }
            let e = r.entry(key, &Budget::UNLIMITED).unwrap();
            let any = r.merge::<0>(e, &mut fresh);
            assert_eq!(any, !want_new.is_empty());
            assert_eq!(bits::iter(&fresh).collect::<BTreeSet<_>>(), want_new);
            known.extend(want_new);
            assert_eq!(r.states(e), known.iter().copied().collect::<Vec<_>>());
        }
    }
}

#[test]
fn the_reached_table_stays_within_its_memory_budget() {
    let budget = Budget {
        max_memory: Some(1 << 20),
        ..Budget::UNLIMITED
    };
    for w in [2usize, 40] {
        let mut r = Reached::default();
        r.reset(w);
        let mut refused = false;
        for k in 0..1_000_000u64 {
            let Some(e) = r.entry(k, &budget) else {
                refused = true;
                break;
            };
            let mut fresh = vec![0u64; w];
            bits::set(&mut fresh, (k % 64) as usize);
            r.merge::<0>(e, &mut fresh);
            // At most one set's growth past the limit between two checks.
            assert!(
                r.bytes() <= (1 << 20) + 16 * w as u64,
                "{} bytes",
                r.bytes()
            );
        }
        assert!(refused, "a million vectors do not fit in 1 MiB");
    }
}

#[test]
fn memo_is_not_shared_between_models() {
    // Two automata whose backward steps differ on the same (letter, set): a scratch used
    // with both must not reuse the first one's steps for the second.
    let alphabet = alphabet();
    let tr = |from, letter, to| Transition {
        from: StateId(from),
        letter: LetterId(letter),
        to: StateId(to),
    };
    let accepting = vec![false, true];
    let one =
        automata(Nfa::new(2, vec![StateId(0)], accepting.clone(), vec![tr(0, 0, 1)], 6).unwrap());
    let other = automata(Nfa::new(2, vec![StateId(0)], accepting, vec![tr(0, 1, 1)], 6).unwrap());
    let (t1, t2) = (
        AcTables::new(&one.nfa, &alphabet),
        AcTables::new(&other.nfa, &alphabet),
    );
    let mut scratch = AcScratch::default();
    let a0 = vec![vec![LetterId(0)], vec![], vec![]];
    assert_eq!(
        run(&mut scratch, &one, &t1, &a0, None, Mode::Complete, Some(0)),
        VerdictKind::Pass
    );
    assert_eq!(
        run(
            &mut scratch,
            &other,
            &t2,
            &a0,
            None,
            Mode::Complete,
            Some(0)
        ),
        VerdictKind::Fail
    );
    let a1 = vec![vec![LetterId(1)], vec![], vec![]];
    assert_eq!(
        run(
            &mut scratch,
            &other,
            &t2,
            &a1,
            None,
            Mode::Complete,
            Some(0)
        ),
        VerdictKind::Pass
    );
}
#[test]
fn memo_stays_bounded_and_exact_when_full() {
    // Letter a0 rotates 64 states, a1 swaps states 0 and 1 (and fixes the others): a long trace of them visits many
    // distinct sets backwards; a2 (location 1) is a self-loop on every state.
    let alphabet = alphabet();
    let n = 64u32;
    let mut tr = Vec::new();
    for s in 0..n {
        tr.push(Transition {
            from: StateId(s),
            letter: LetterId(0),
            to: StateId((s + 1) % n),
        });
        tr.push(Transition {
            from: StateId(s),
            letter: LetterId(2),
            to: StateId(s),
        });
        if s >= 2 {
            tr.push(Transition {
                from: StateId(s),
                letter: LetterId(1),
                to: StateId(s),
            });
        }
    }
    tr.push(Transition {
        from: StateId(0),
        letter: LetterId(1),
        to: StateId(1),
    });
    tr.push(Transition {
        from: StateId(1),
        letter: LetterId(1),
        to: StateId(0),
    });
    let mut rng = Rng::new(9);
    // An irregular accepting set: its rotations are all distinct.
    let accepting = (0..n).map(|_| rng.below(2) == 0).collect();
    let a = automata(Nfa::new(n, vec![StateId(0)], accepting, tr, 6).unwrap());
    let t = AcTables::new(&a.nfa, &alphabet);
    let mut scratch = AcScratch::default();
    for _ in 0..3 {
        let first: Vec<LetterId> = (0..600).map(|_| LetterId(rng.below(2) as u32)).collect();
        let traces = vec![first, vec![LetterId(2); 3], vec![]];
        let want = brute_force_sequential(&a.nfa, &traces);
        for prune in [Some(0), None, Some(u64::MAX)] {
            let got = run(&mut scratch, &a, &t, &traces, None, Mode::Complete, prune);
            assert_eq!(got == VerdictKind::Pass, want, "pruning after {prune:?}");
            assert!(scratch.memo.map.len() <= MEMO_MAX);
        }
    }
    assert_eq!(scratch.memo.map.len(), MEMO_MAX, "the memo filled up");
}

/// The oracle for long traces when the other locations only read self-loops present on
/// every state: where they are interleaved does not change the states reached, so one
/// interleaving (the concatenation) decides.
fn brute_force_sequential(nfa: &Nfa, traces: &[Vec<LetterId>]) -> bool {
    let word: Vec<LetterId> = traces.iter().flatten().copied().collect();
    brute_force(nfa, &[word], None)
}

/// A random subset of the three locations taken as silent (as a mask and per location) and a
/// random set of up to three of `states` states in `w` words.
fn silent_case(rng: &mut Rng, states: usize, w: usize) -> (usize, Vec<bool>, Vec<u64>) {
    let silent_mask = rng.below(8);
    let silent: Vec<bool> = (0..3).map(|k| silent_mask >> k & 1 == 1).collect();
    let mut set = vec![0u64; w];
    for _ in 0..rng.below(4) {
        bits::set(&mut set, rng.below(states));
    }
    (silent_mask, silent, set)
}

/// The closure rows give the closure [`super::search::close`] computes by walking the
/// transitions, for every subset of silent locations, on random automata and sets (the rows
/// are built lazily, once per subset, and then reused).
#[test]
fn closure_rows_close_sets_as_the_walk_does() {
    let mut rng = Rng::new(11);
    let alphabet = alphabet();
    for _ in 0..60 {
        let states = 1 + rng.below(150) as u32;
        let transitions = rng.below(4 * states as usize + 1);
        let nfa = random_nfa(&mut rng, states, transitions);
        let tables = AcTables::new(&nfa, &alphabet);
        let w = tables.words;
        for _ in 0..20 {
            let (silent_mask, silent, set) = silent_case(&mut rng, states as usize, w);
            let mut walked = set.clone();
            super::search::close(&nfa, &alphabet, &mut walked, &silent, None, &mut Vec::new());
            let rows = tables
                .closure_rows(&nfa, &alphabet, silent_mask)
                .expect("a small model keeps the rows");
            let mut by_rows = vec![0u64; w];
            for s in bits::iter(&set) {
                for k in 0..w {
                    by_rows[k] |= rows[s * w + k];
                }
            }
            assert_eq!(by_rows, walked, "silent locations {silent:?}");
        }
    }
}

/// A restricted search's rows (built per check, one state at a time) close a set as the walk
/// of the mask's transitions does, for every subset of silent locations, also after a reset
/// with another mask.
#[test]
fn masked_closure_rows_close_sets_as_the_walk_does() {
    let mut rng = Rng::new(12);
    let alphabet = alphabet();
    let mut rows = super::closure::MaskedClosure::default();
    for _ in 0..60 {
        let states = 1 + rng.below(150) as u32;
        let transitions = rng.below(4 * states as usize + 1);
        let nfa = random_nfa(&mut rng, states, transitions);
        let w = (states as usize).div_ceil(64);
        for _ in 0..3 {
            let mut mask = vec![0u64; transitions.div_ceil(64).max(1)];
            for i in 0..transitions {
                if rng.below(3) != 0 {
                    bits::set(&mut mask, i);
                }
            }
            rows.reset();
            for _ in 0..20 {
                let (silent_mask, silent, mut set) = silent_case(&mut rng, states as usize, w);
                let mut walked = set.clone();
                let mut stack = Vec::new();
                super::search::close(
                    &nfa,
                    &alphabet,
                    &mut walked,
                    &silent,
                    Some(&mask),
                    &mut stack,
                );
                let mut out = vec![0u64; w];
                rows.close(
                    &nfa,
                    &alphabet,
                    &mask,
                    (states as usize, w, 3),
                    silent_mask,
                    &mut set,
                    &mut out,
                    &mut stack,
                );
                assert_eq!(set, walked, "silent locations {silent:?}");
            }
        }
    }
}
