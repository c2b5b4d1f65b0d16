//! Test support shared by the integration tests of the runtime and the compiler (included with
//! `#[path]`): random interaction terms and an independent oracle.
//!
//! The oracle computes the global-trace semantics *denotationally* (union, concatenation, weak
//! sequencing, shuffle and their Kleene closures on finite sets of traces, bounded by a length),
//! without the operational rules (pruning, execution) the checkers use, and then projects the
//! traces onto the locations.
#![allow(dead_code)]

use multitrace_model::multitrace::{Component, Multitrace};
use multitrace_model::rng::Rng;
use multitrace_model::signature::{Action, ActionKind, LifelineId, LifelineSet, MessageId};
use multitrace_model::term::{LoopKind, TermId, TermStore};
use multitrace_model::verdict::{Mode, VerdictKind};
use proptest::prelude::*;
use std::collections::BTreeSet;

pub type Trace = Vec<Action>;
pub type Lang = BTreeSet<Trace>;

/// An interaction as a plain tree, for generating and for the oracle.
#[derive(Clone, Debug)]
pub enum Ast {
    Empty,
    Act(Action),
    Strict(Box<Ast>, Box<Ast>),
    Seq(Box<Ast>, Box<Ast>),
    Par(Box<Ast>, Box<Ast>),
    Alt(Box<Ast>, Box<Ast>),
    Coreg(u64, Box<Ast>, Box<Ast>),
    Loop(LoopKind, Box<Ast>),
}

pub fn act(l: u32, k: ActionKind, m: u32) -> Action {
    Action {
        lifeline: LifelineId(l),
        kind: k,
        message: MessageId(m),
    }
}

pub fn build(store: &mut TermStore, a: &Ast) -> TermId {
    match a {
        Ast::Empty => TermId::EMPTY,
        Ast::Act(x) => store.act(*x),
        Ast::Strict(x, y) => {
            let (x, y) = (build(store, x), build(store, y));
            store.strict(x, y)
        }
        Ast::Seq(x, y) => {
            let (x, y) = (build(store, x), build(store, y));
            store.seq(x, y)
        }
        Ast::Par(x, y) => {
            let (x, y) = (build(store, x), build(store, y));
            store.par(x, y)
        }
        Ast::Alt(x, y) => {
            let (x, y) = (build(store, x), build(store, y));
            store.alt(x, y)
        }
        Ast::Coreg(s, x, y) => {
            let (x, y) = (build(store, x), build(store, y));
            store.coreg(LifelineSet(*s), x, y)
        }
        Ast::Loop(k, x) => {
            let x = build(store, x);
            store.repeat(*k, x)
        }
    }
}

pub fn has_loop(a: &Ast) -> bool {
    match a {
        Ast::Empty | Ast::Act(_) => false,
        Ast::Loop(..) => true,
        Ast::Strict(x, y)
        | Ast::Seq(x, y)
        | Ast::Par(x, y)
        | Ast::Alt(x, y)
        | Ast::Coreg(_, x, y) => has_loop(x) || has_loop(y),
    }
}

pub fn count_actions(a: &Ast) -> usize {
    match a {
        Ast::Empty => 0,
        Ast::Act(_) => 1,
        Ast::Loop(_, x) => count_actions(x),
        Ast::Strict(x, y)
        | Ast::Seq(x, y)
        | Ast::Par(x, y)
        | Ast::Alt(x, y)
        | Ast::Coreg(_, x, y) => count_actions(x) + count_actions(y),
    }
}

// ---------------------------------------------------------------- denotational oracle

/// Weak sequencing of two traces; `free` lifelines may overtake (co-region), `None` for seq.
pub fn weak(t1: &[Action], t2: &[Action], free: u64, out: &mut Lang) {
    fn go(t1: &[Action], t2: &[Action], free: u64, acc: &mut Trace, out: &mut Lang) {
        if t1.is_empty() && t2.is_empty() {
            out.insert(acc.clone());
            return;
        }
        if let Some((&a, rest)) = t1.split_first() {
            acc.push(a);
            go(rest, t2, free, acc, out);
            acc.pop();
        }
        if let Some((&b, rest)) = t2.split_first() {
            let l = b.lifeline.0;
            if free >> l & 1 == 1 || t1.iter().all(|a| a.lifeline != b.lifeline) {
                acc.push(b);
                go(t1, rest, free, acc, out);
                acc.pop();
            }
        }
    }
    go(t1, t2, free, &mut Vec::new(), out)
}

pub fn shuffle(t1: &[Action], t2: &[Action], out: &mut Lang) {
    weak(t1, t2, u64::MAX, out)
}

#[derive(Clone, Copy)]
enum Op {
    Strict,
    Weak(u64),
    Par,
    /// Head-first weak sequencing: the left's first action comes first.
    Head,
}

/// Most traces one combination may build before the oracle gives up on a term: a parallel
/// composition of a dozen actions has billions of interleavings, and a test must end.
const MAX_TRACES: usize = 200_000;

thread_local! {
    /// Set when a combination was cut at [`MAX_TRACES`]: the languages since are partial.
    static CUT: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

fn combine(op: Op, l1: &Lang, l2: &Lang, n: usize) -> Lang {
    let mut out = Lang::new();
    for t1 in l1 {
        for t2 in l2 {
            if out.len() > MAX_TRACES {
                CUT.with(|c| c.set(true));
                return out;
            }
            if t1.len() + t2.len() > n {
                continue;
            }
            match op {
                Op::Strict => {
                    let mut t = t1.clone();
                    t.extend_from_slice(t2);
                    out.insert(t);
                }
                Op::Weak(free) => weak(t1, t2, free, &mut out),
                Op::Par => shuffle(t1, t2, &mut out),
                Op::Head => {
                    if let Some((&a, rest)) = t1.split_first() {
                        let mut tail = Lang::new();
                        weak(rest, t2, 0, &mut tail);
                        for t in tail {
                            let mut x = vec![a];
                            x.extend(t);
                            out.insert(x);
                        }
                    }
                }
            }
        }
    }
    out
}

fn star(op: Op, body: &Lang, n: usize) -> Lang {
    let nonempty: Lang = body.iter().filter(|t| !t.is_empty()).cloned().collect();
    let mut result: Lang = [Vec::new()].into_iter().collect();
    loop {
        let next = combine(op, &nonempty, &result, n);
        let before = result.len();
        result.extend(next);
        if result.len() == before || CUT.with(|c| c.get()) {
            return result;
        }
    }
}

/// Accepted global traces of length at most `n`.
pub fn sem(a: &Ast, n: usize) -> Lang {
    match a {
        Ast::Empty => [Vec::new()].into_iter().collect(),
        Ast::Act(x) => {
            if n == 0 {
                Lang::new()
            } else {
                [vec![*x]].into_iter().collect()
            }
        }
        Ast::Alt(x, y) => {
            let mut l = sem(x, n);
            l.extend(sem(y, n));
            l
        }
        Ast::Strict(x, y) => combine(Op::Strict, &sem(x, n), &sem(y, n), n),
        Ast::Seq(x, y) => combine(Op::Weak(0), &sem(x, n), &sem(y, n), n),
        Ast::Coreg(s, x, y) => combine(Op::Weak(*s), &sem(x, n), &sem(y, n), n),
        Ast::Par(x, y) => combine(Op::Par, &sem(x, n), &sem(y, n), n),
        Ast::Loop(k, x) => {
            let body = sem(x, n);
            let op = match k {
                LoopKind::Strict => Op::Strict,
                LoopKind::Weak => Op::Weak(0),
                LoopKind::Par => Op::Par,
                LoopKind::Head => Op::Head,
            };
            star(op, &body, n)
        }
    }
}

pub fn project(t: &[Action], groups: &[LifelineSet]) -> Vec<Trace> {
    groups
        .iter()
        .map(|g| {
            t.iter()
                .copied()
                .filter(|a| g.contains(a.lifeline))
                .collect()
        })
        .collect()
}

pub fn multitrace(groups: &[LifelineSet], traces: &[Trace]) -> Multitrace {
    Multitrace {
        components: groups
            .iter()
            .zip(traces)
            .map(|(&g, t)| Component {
                lifelines: g,
                trace: t.clone(),
            })
            .collect(),
    }
}

/// The accepted traces of length at most `n`, or `None` when a combination had more than
/// [`MAX_TRACES`] (the language would be partial).
pub fn sem_whole(a: &Ast, n: usize) -> Option<Lang> {
    CUT.with(|c| c.set(false));
    let lang = sem(a, n);
    (!CUT.with(|c| c.replace(false))).then_some(lang)
}

/// Oracle verdict; `exact` is false when the prefix answer may be cut by the length bound.
/// `(Inconclusive, false)`: the term's language is too large to enumerate, no answer.
pub fn oracle(a: &Ast, groups: &[LifelineSet], mu: &[Trace], mode: Mode) -> (VerdictKind, bool) {
    let len: usize = mu.iter().map(Vec::len).sum();
    let Some(lang) = sem_whole(a, len) else {
        return (VerdictKind::Inconclusive, false);
    };
    let accepted = lang
        .iter()
        .any(|t| t.len() == len && project(t, groups) == mu);
    if accepted {
        return (VerdictKind::Pass, true);
    }
    if mode == Mode::Complete {
        return (VerdictKind::Fail, true);
    }
    let exact = !has_loop(a);
    let bound = if exact { count_actions(a) } else { len + 4 };
    let Some(lang) = sem_whole(a, bound) else {
        return (VerdictKind::Inconclusive, false);
    };
    let prefix = lang.iter().any(|t| {
        project(t, groups)
            .iter()
            .zip(mu)
            .all(|(p, m)| p.starts_with(m))
    });
    if prefix {
        (VerdictKind::WeakPass, true)
    } else {
        (VerdictKind::Fail, exact)
    }
}

// ---------------------------------------------------------------- generators

pub const LIFELINES: u32 = 3;

pub fn arb_action() -> impl Strategy<Value = Action> {
    (0..LIFELINES, any::<bool>(), 0..2u32).prop_map(|(l, e, m)| {
        act(
            l,
            if e {
                ActionKind::Emission
            } else {
                ActionKind::Reception
            },
            m,
        )
    })
}

pub fn arb_ast() -> impl Strategy<Value = Ast> {
    let leaf = prop_oneof![1 => Just(Ast::Empty), 4 => arb_action().prop_map(Ast::Act)];
    leaf.prop_recursive(4, 14, 2, |inner| {
        let pair = (inner.clone(), inner.clone());
        prop_oneof![
            pair.clone()
                .prop_map(|(x, y)| Ast::Strict(x.into(), y.into())),
            pair.clone().prop_map(|(x, y)| Ast::Seq(x.into(), y.into())),
            pair.clone().prop_map(|(x, y)| Ast::Par(x.into(), y.into())),
            pair.clone().prop_map(|(x, y)| Ast::Alt(x.into(), y.into())),
            (1..8u64, inner.clone(), inner.clone()).prop_map(|(s, x, y)| Ast::Coreg(
                s,
                x.into(),
                y.into()
            )),
            (0..4usize, inner).prop_map(|(k, x)| {
                let kind = [
                    LoopKind::Strict,
                    LoopKind::Head,
                    LoopKind::Weak,
                    LoopKind::Par,
                ][k];
                Ast::Loop(kind, x.into())
            }),
        ]
    })
}

/// A partition of the lifelines into locations: singletons, or lifelines 0 and 1 together.
pub fn groups(colocated: bool) -> Vec<LifelineSet> {
    if colocated {
        vec![LifelineSet(0b011), LifelineSet(0b100)]
    } else {
        (0..LIFELINES)
            .map(|l| LifelineSet::single(LifelineId(l)))
            .collect()
    }
}

/// Multitrace candidates: projections of accepted traces, their prefixes, and mutants.
pub fn candidates(a: &Ast, groups: &[LifelineSet], seed: u64) -> Vec<Vec<Trace>> {
    let lang: Vec<Trace> = sem(a, 6).into_iter().collect();
    let mut rng = Rng::new(seed);
    let mut out = vec![vec![Vec::new(); groups.len()]];
    for _ in 0..6 {
        if lang.is_empty() {
            break;
        }
        let t = &lang[rng.below(lang.len())];
        let mu = project(t, groups);
        // A multi-prefix: cut each component.
        let cut: Vec<Trace> = mu
            .iter()
            .map(|c| c[..rng.below(c.len() + 1)].to_vec())
            .collect();
        // A mutant: swap two actions or insert one.
        let mut mutant = mu.clone();
        let k = rng.below(groups.len());
        if mutant[k].len() >= 2 {
            let n = mutant[k].len();
            let i = rng.below(n);
            mutant[k].swap(i, (i + 1) % n);
        } else {
            let l = groups[k].iter().next().unwrap();
            mutant[k].push(act(l.0, ActionKind::Emission, rng.below(2) as u32));
        }
        out.push(mu);
        out.push(cut);
        out.push(mutant);
    }
    out
}
