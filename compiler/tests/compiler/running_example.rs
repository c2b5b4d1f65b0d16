//! Seed 004's running example (Fig. 3a): the local verifiers and areas of Figs. 3-6, AC and AS.

use multitrace_check::ac::{check_ac, AcTables};
use multitrace_check::explore::Budget;
use multitrace_check::semi::{check_as, has_accepting_path, local_check, LocalOutcome};
use multitrace_compiler::compile::{compile_automaton, CompileOptions};
use multitrace_compiler::syntax::TimbukAutomaton;
use multitrace_model::model::{Automata, CompiledModel};
use multitrace_model::nfa::{LetterId, LocationId, StateId};
use multitrace_model::project::bits;
use multitrace_model::verdict::{Mode, Reason, VerdictKind};

/// Fig. 3a: letters a, e (l1), c, d (l2), b (l3); transitions 0-b->1, 0-a->3, 0-c->2,
/// 2-e->3, 1-d->4, 4-b->1, 4-c->2; final state 3 (reconstructed from Figs. 3-6).
fn model() -> CompiledModel {
    let letters = ["a", "e", "c", "d", "b"];
    let l = |n: &str| letters.iter().position(|x| *x == n).unwrap();
    let aut = TimbukAutomaton {
        letters: letters.iter().map(|s| s.to_string()).collect(),
        states: (0..5).map(|i| i.to_string()).collect(),
        initial: vec![0],
        accepting: vec![3],
        transitions: vec![
            (0, l("b"), 1),
            (0, l("a"), 3),
            (0, l("c"), 2),
            (2, l("e"), 3),
            (1, l("d"), 4),
            (4, l("b"), 1),
            (4, l("c"), 2),
        ],
        systems: Some(vec![
            ("l1".into(), vec![l("a"), l("e")]),
            ("l2".into(), vec![l("c"), l("d")]),
            ("l3".into(), vec![l("b")]),
        ]),
    };
    compile_automaton(&aut, "fig3a", "fig3a", &CompileOptions::default()).unwrap()
}

fn automata(m: &CompiledModel) -> &Automata {
    m.automata().unwrap()
}

/// The transitions of an area as (from, letter name, to), sorted.
fn named(m: &CompiledModel, area: &[u64]) -> Vec<(u32, String, u32)> {
    let nfa = &automata(m).nfa;
    let mut v: Vec<_> = bits::iter(area)
        .map(|i| {
            let t = nfa.transitions()[i];
            (t.from.0, m.alphabet.name(t.letter).to_string(), t.to.0)
        })
        .collect();
    v.sort();
    v
}

fn tr(list: &[(u32, &str, u32)]) -> Vec<(u32, String, u32)> {
    let mut v: Vec<_> = list
        .iter()
        .map(|&(a, l, b)| (a, l.to_string(), b))
        .collect();
    v.sort();
    v
}

fn word(m: &CompiledModel, w: &str) -> Vec<LetterId> {
    w.chars()
        .map(|c| m.alphabet.letter(&c.to_string()).unwrap())
        .collect()
}

fn area_of(m: &CompiledModel, k: u32, w: &str) -> Vec<u64> {
    let a = automata(m);
    let mut area = vec![0u64; a.areas.words()];
    let mut seen = Vec::new();
    let out = local_check(
        a,
        &a.projections[k as usize],
        &m.alphabet,
        &word(m, w),
        Mode::Complete,
        &mut area,
        &mut seen,
    );
    assert!(matches!(out, LocalOutcome::Pass { .. }), "{w}: {out:?}");
    area
}

#[test]
fn projection_on_l2_is_fig_3b() {
    let m = model();
    let p = &automata(&m).projections[1];
    let subsets: Vec<Vec<u32>> = p
        .subsets
        .iter()
        .map(|s| s.iter().map(|x| x.0).collect())
        .collect();
    assert_eq!(subsets, vec![vec![0, 1, 3], vec![2, 3], vec![1, 4]]);
    let c = m.alphabet.local_index(m.alphabet.letter("c").unwrap());
    let d = m.alphabet.local_index(m.alphabet.letter("d").unwrap());
    // {0,1,3} -c-> {2,3}, {0,1,3} -d-> {1,4}, {1,4} -c-> {2,3}, {1,4} -d-> {1,4}
    assert_eq!(p.step(0, c).map(|x| x.0), Some(1));
    assert_eq!(p.step(0, d).map(|x| x.0), Some(2));
    assert_eq!(p.step(2, c).map(|x| x.0), Some(1));
    assert_eq!(p.step(2, d).map(|x| x.0), Some(2));
    assert_eq!(p.step(1, c), None);
    assert_eq!(p.step(1, d), None);
    assert_eq!(p.accepting, vec![true, true, false]);
    assert_eq!(p.transition_count(), 4);
    let _ = StateId(0);
    // Fig. 4a: the areas.
    let areas = &automata(&m).areas;
    let bitset = |id| {
        let mut b = vec![0u64; areas.words()];
        areas.union_into(id, &mut b);
        b
    };
    let area = |s: u32, x: u32| named(&m, &bitset(p.step(s, x).unwrap().1));
    assert_eq!(area(0, c), tr(&[(0, "c", 2), (2, "e", 3)]));
    assert_eq!(area(0, d), tr(&[(1, "d", 4), (4, "b", 1)]));
    assert_eq!(area(2, c), tr(&[(4, "c", 2), (2, "e", 3)]));
    assert_eq!(area(2, d), area(0, d));
    // Fig. 4b: init.
    assert_eq!(
        named(&m, &bitset(p.init_area)),
        tr(&[(0, "b", 1), (0, "a", 3)])
    );
}

#[test]
fn areas_and_inter_are_figs_5_and_6() {
    let m = model();
    // Fig. 5a: Area(c).
    assert_eq!(
        named(&m, &area_of(&m, 1, "c")),
        tr(&[(0, "b", 1), (0, "a", 3), (0, "c", 2), (2, "e", 3)])
    );
    // Fig. 5b: Area(dddc): everything but 0 -c-> 2.
    assert_eq!(
        named(&m, &area_of(&m, 1, "dddc")),
        tr(&[
            (0, "b", 1),
            (0, "a", 3),
            (2, "e", 3),
            (1, "d", 4),
            (4, "b", 1),
            (4, "c", 2)
        ])
    );
    // Fig. 6: Inter(e, dddc, bb).
    let mut inter = area_of(&m, 0, "e");
    bits::intersect_with(&mut inter, &area_of(&m, 1, "dddc"));
    bits::intersect_with(&mut inter, &area_of(&m, 2, "bb"));
    assert_eq!(
        named(&m, &inter),
        tr(&[
            (0, "b", 1),
            (1, "d", 4),
            (4, "b", 1),
            (4, "c", 2),
            (2, "e", 3)
        ])
    );
    assert!(has_accepting_path(automata(&m), &inter));
}

#[test]
fn verdicts_of_the_running_example() {
    let m = model();
    let a = automata(&m);
    let tables = AcTables::new(&a.nfa, &m.alphabet);
    let budget = Budget::default();
    let mt = |e: &str, cd: &str, b: &str| vec![word(&m, e), word(&m, cd), word(&m, b)];
    let run_as =
        |t: &[Vec<LetterId>]| check_as(a, &tables, &m.alphabet, t, Mode::Complete, &budget, false);
    let run_ac = |t: &[Vec<LetterId>]| {
        check_ac(
            a,
            &tables,
            &m.alphabet,
            t,
            None,
            Mode::Complete,
            &budget,
            false,
        )
        .verdict
        .kind
    };
    // LocalError(l2) for (e, cd, bbbb).
    let v = run_as(&mt("e", "cd", "bbbb"));
    assert!(
        matches!(
            v.reason,
            Some(Reason::LocalError {
                location: LocationId(1),
                position: 1,
                ..
            })
        ),
        "{v:?}"
    );
    // CentralError for (e, dddc, bb).
    let v = run_as(&mt("e", "dddc", "bb"));
    assert_eq!(
        (v.kind, v.reason),
        (VerdictKind::Fail, Some(Reason::CentralError))
    );
    // InterError for (e, dddc, ε).
    let v = run_as(&mt("e", "dddc", ""));
    assert_eq!(
        (v.kind, v.reason),
        (VerdictKind::Fail, Some(Reason::InterError))
    );
    // Pass for (e, ddc, bb).
    assert_eq!(run_as(&mt("e", "ddc", "bb")).kind, VerdictKind::Pass);
    for (e, cd, b, want) in [
        ("e", "cd", "bbbb", VerdictKind::Fail),
        ("e", "dddc", "bb", VerdictKind::Fail),
        ("e", "dddc", "", VerdictKind::Fail),
        ("e", "ddc", "bb", VerdictKind::Pass),
    ] {
        assert_eq!(run_ac(&mt(e, cd, b)), want, "{e} {cd} {b}");
    }
}
