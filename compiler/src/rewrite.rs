//! Multitrace-equivalent rewriting before synthesis, and the regularity check.
//!
//! A multitrace cannot see the order of actions on different lifelines. Replacing weak by strict
//! sequencing (`seq → strict`, `loopW`/`loopH → loopS`) therefore keeps the set of accepted
//! multitraces when (a) every location holds one lifeline and (b) the node has no `par`,
//! `coreg` or `loopP` ancestor: the cross-lifeline orders that `strict` adds then all go from the
//! left part to the right part and cannot close a cycle with the local orders. Under a parallel
//! ancestor it is not sound: `par(strict(a!x, b!y), strict(b!z, a!w))` rejects the multitrace
//! `(a!w.a!x, b!y.b!z)` that `par(seq(a!x, b!y), seq(b!z, a!w))` accepts.
//!
//! After rewriting, a weak loop (`loopW`/`loopH`) over two or more lifelines, or a `loopP` whose
//! body is not a choice among single actions, can have a non-regular multitrace language: such
//! a model is never approximated by an automaton ([`non_regular`]).

use multitrace_runtime::term::{LoopKind, Term, TermId, TermStore};
use rustc_hash::FxHashMap;

/// Rewrites weak into strict sequencing where it is sound (see the module documentation).
/// `singleton_locations` must be true only when every location holds exactly one lifeline;
/// otherwise the term is returned unchanged.
pub fn strengthen(store: &mut TermStore, root: TermId, singleton_locations: bool) -> TermId {
    if !singleton_locations {
        return root;
    }
    let mut memo = FxHashMap::default();
    rewrite(store, root, false, &mut memo)
}

fn rewrite(
    store: &mut TermStore,
    t: TermId,
    under_par: bool,
    memo: &mut FxHashMap<(TermId, bool), TermId>,
) -> TermId {
    if let Some(&r) = memo.get(&(t, under_par)) {
        return r;
    }
    let r = match store.get(t) {
        Term::Empty | Term::Act(_) => t,
        Term::Strict(x, y) => {
            let (x, y) = (
                rewrite(store, x, under_par, memo),
                rewrite(store, y, under_par, memo),
            );
            store.strict(x, y)
        }
        Term::Seq(x, y) => {
            let (x, y) = (
                rewrite(store, x, under_par, memo),
                rewrite(store, y, under_par, memo),
            );
            if under_par {
                store.seq(x, y)
            } else {
                store.strict(x, y)
            }
        }
        Term::Alt(x, y) => {
            let (x, y) = (
                rewrite(store, x, under_par, memo),
                rewrite(store, y, under_par, memo),
            );
            store.alt(x, y)
        }
        Term::Par(x, y) => {
            let (x, y) = (rewrite(store, x, true, memo), rewrite(store, y, true, memo));
            store.par(x, y)
        }
        Term::Coreg(s, x, y) => {
            let (x, y) = (rewrite(store, x, true, memo), rewrite(store, y, true, memo));
            store.coreg(s, x, y)
        }
        Term::Loop(k, x) => {
            let inner_par = under_par || k == LoopKind::Par;
            let x = rewrite(store, x, inner_par, memo);
            let k = match k {
                LoopKind::Weak | LoopKind::Head if !under_par => LoopKind::Strict,
                k => k,
            };
            store.repeat(k, x)
        }
    };
    memo.insert((t, under_par), r);
    r
}

/// The first node (pre-order) whose multitrace language may not be regular, with a
/// description: a weak loop over two or more lifelines, or a `loopP` whose body is not a
/// choice among single actions.
pub fn non_regular(store: &TermStore, root: TermId) -> Option<(TermId, String)> {
    let mut stack = vec![root];
    let mut seen = rustc_hash::FxHashSet::default();
    while let Some(t) = stack.pop() {
        if !seen.insert(t) {
            continue;
        }
        match store.get(t) {
            Term::Loop(k @ (LoopKind::Weak | LoopKind::Head), x)
                if store.lifelines(x).len() >= 2 =>
            {
                return Some((
                    t,
                    format!(
                        "{} over {} lifelines that cannot be made strict (it has a par, coreg or loopP ancestor, or lifelines share a location)",
                        k.keyword(),
                        store.lifelines(x).len()
                    ),
                ));
            }
            Term::Loop(LoopKind::Par, x) if !is_choice_of_actions(store, x) => {
                return Some((
                    t,
                    "loopP whose body is not a choice among single actions".to_string(),
                ));
            }
            _ => {}
        }
        let children: Vec<TermId> = multitrace_runtime::term::children(store.get(t)).collect();
        for c in children.into_iter().rev() {
            stack.push(c);
        }
    }
    None
}

fn is_choice_of_actions(store: &TermStore, t: TermId) -> bool {
    let mut t = t;
    loop {
        match store.get(t) {
            Term::Act(_) | Term::Empty => return true,
            Term::Alt(x, y) => {
                if !matches!(store.get(x), Term::Act(_) | Term::Empty) {
                    return false;
                }
                t = y;
            }
            _ => return false,
        }
    }
}
