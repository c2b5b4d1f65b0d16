//! Multitrace-equivalent rewriting before synthesis, and the regularity check.
//!
//! A multitrace cannot see the order of actions on different lifelines. Replacing weak by strict
//! sequencing (`seq → strict`, `loopW`/`loopH → loopS`) therefore keeps the set of accepted
//! multitraces when (a) every location holds one lifeline and (b) the node has no `par`,
//! `coreg` or `loopP` ancestor: the cross-lifeline orders that `strict` adds then all go from the
//! left part to the right part and cannot close a cycle with the local orders. Under a parallel
//! ancestor it is not sound: `par(strict(a!x, b!y), strict(b!z, a!w))` rejects the multitrace
//! `(a!w.a!x, b!y.b!z)` that `par(seq(a!x, b!y), seq(b!z, a!w))` accepts. A `par` whose
//! operands use disjoint lifelines cannot close such a cycle, so it does not count as a
//! parallel ancestor.
//!
//! After rewriting, a weak loop (`loopW`/`loopH`) over two or more lifelines, or a `loopP` whose
//! body is not a choice among single actions, can have a non-regular multitrace language: such
//! a model is never approximated by an automaton ([`non_regular`]).

use multitrace_model::term::{LoopKind, Term, TermId, TermStore};
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
        Term::Seq(x, y) if under_par => {
            // Under a parallel ancestor: stays weak.
            let (x, y) = (
                rewrite(store, x, under_par, memo),
                rewrite(store, y, under_par, memo),
            );
            store.seq(x, y)
        }
        Term::Strict(..) | Term::Seq(..) => {
            // The whole spine of nodes that become strict, flattened and rebuilt from the
            // right: rebuilding node by node would re-associate the rewritten left operand at
            // every level, quadratic in the depth of a left-nested `strict(seq(strict(...)))`.
            let mut leaves = Vec::new();
            let mut stack = vec![t];
            while let Some(u) = stack.pop() {
                match becomes_strict(store.get(u), under_par) {
                    Some((x, y)) => {
                        stack.push(y);
                        stack.push(x);
                    }
                    None => leaves.push(u),
                }
            }
            let leaves: Vec<TermId> = leaves
                .into_iter()
                .map(|u| rewrite(store, u, under_par, memo))
                .collect();
            leaves
                .into_iter()
                .rev()
                .reduce(|acc, leaf| store.strict(leaf, acc))
                .unwrap_or(TermId::EMPTY)
        }
        Term::Alt(x, y) => {
            let (x, y) = (
                rewrite(store, x, under_par, memo),
                rewrite(store, y, under_par, memo),
            );
            store.alt(x, y)
        }
        Term::Par(x, y) => {
            // Operands on disjoint lifelines cannot order each other's actions: such a par
            // is transparent, and its operands keep the context of the par itself.
            let inner = under_par || store.lifelines(x).intersects(store.lifelines(y));
            let (x, y) = (
                rewrite(store, x, inner, memo),
                rewrite(store, y, inner, memo),
            );
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

/// The operands of a node that [`strengthen`] makes strict: a `strict`, or a `seq` without a
/// parallel ancestor.
fn becomes_strict(t: Term, under_par: bool) -> Option<(TermId, TermId)> {
    match t {
        Term::Strict(x, y) => Some((x, y)),
        Term::Seq(x, y) if !under_par => Some((x, y)),
        _ => None,
    }
}

/// The first node (pre-order) whose multitrace language may not be regular, with a
/// description: a weak loop over two or more lifelines, or a `loopP` whose body is not a
/// choice among single actions. `singleton_locations` tells why a weak loop stayed weak.
pub fn non_regular(
    store: &TermStore,
    root: TermId,
    singleton_locations: bool,
) -> Option<(TermId, String)> {
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
                        "{} over {} lifelines that cannot be made strict ({})",
                        k.keyword(),
                        store.lifelines(x).len(),
                        if singleton_locations {
                            "it is inside a par, coreg or loopP whose operands share lifelines"
                        } else {
                            "lifelines share a location"
                        }
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
        let children: Vec<TermId> = multitrace_model::term::children(store.get(t)).collect();
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

#[cfg(test)]
mod tests {
    use super::*;
    use multitrace_model::signature::{Action, ActionKind, LifelineId, MessageId};

    fn act(s: &mut TermStore, l: u32, m: u32) -> TermId {
        s.act(Action {
            lifeline: LifelineId(l),
            kind: ActionKind::Emission,
            message: MessageId(m),
        })
    }

    #[test]
    fn weak_sequencing_under_a_sharing_par_is_left_alone() {
        // par(seq(a!x, b!y), seq(b!z, a!w)) stays as it is.
        let mut s = TermStore::new();
        let (ax, by, bz, aw) = (
            act(&mut s, 0, 0),
            act(&mut s, 1, 1),
            act(&mut s, 1, 2),
            act(&mut s, 0, 3),
        );
        let left = s.seq(ax, by);
        let right = s.seq(bz, aw);
        let p = s.par(left, right);
        assert_eq!(strengthen(&mut s, p, true), p);
        // At top level, seq becomes strict; with co-localized lifelines nothing changes.
        let top = s.seq(left, right);
        let strict_all = {
            let l = s.strict(ax, by);
            let r = s.strict(bz, aw);
            s.strict(l, r)
        };
        assert_eq!(strengthen(&mut s, top, true), strict_all);
        assert_eq!(strengthen(&mut s, top, false), top);
    }

    #[test]
    fn a_par_on_disjoint_lifelines_is_transparent() {
        let mut s = TermStore::new();
        let (ax, by, cz) = (act(&mut s, 0, 0), act(&mut s, 1, 1), act(&mut s, 2, 2));
        let ab = s.seq(ax, by);
        let lw = s.repeat(LoopKind::Weak, ab);
        let p = s.par(lw, cz);
        let r = strengthen(&mut s, p, true);
        assert!(non_regular(&s, r, true).is_none());
        // With a sharing operand the weak loop stays, and is reported.
        let bw = act(&mut s, 1, 3);
        let p2 = s.par(lw, bw);
        let r2 = strengthen(&mut s, p2, true);
        let (node, why) = non_regular(&s, r2, true).unwrap();
        assert_eq!(node, lw);
        assert!(why.contains("loopW over 2 lifelines"), "{why}");
    }

    #[test]
    fn loop_p_of_single_actions_is_regular() {
        let mut s = TermStore::new();
        let (ax, by) = (act(&mut s, 0, 0), act(&mut s, 1, 1));
        let alt = s.alt(ax, by);
        let lp = s.repeat(LoopKind::Par, alt);
        assert!(non_regular(&s, lp, true).is_none());
        let st = s.strict(ax, by);
        let lp2 = s.repeat(LoopKind::Par, st);
        assert!(non_regular(&s, lp2, true).is_some());
    }

    #[test]
    fn left_nested_mixed_sequences_become_one_strict_chain_in_linear_time() {
        // strict(seq(strict(seq(a0, a1), a2), a3), ...), 20,000 levels, on two lifelines.
        let mut s = TermStore::new();
        let n = 20_000u32;
        let acts: Vec<TermId> = (0..=n).map(|i| act(&mut s, i % 2, i % 3)).collect();
        let mut t = acts[0];
        for (i, &a) in acts.iter().enumerate().skip(1) {
            t = if i % 2 == 0 {
                s.strict(t, a)
            } else {
                s.seq(t, a)
            };
        }
        let before = s.len();
        let start = std::time::Instant::now();
        let r = strengthen(&mut s, t, true);
        // The right-associated chain a0.(a1.(...)): at most one new node per action (the
        // node-by-node rebuild visited the whole chain at every level).
        assert!(
            s.len() - before <= n as usize + 1,
            "{} new terms",
            s.len() - before
        );
        let mut u = r;
        for &a in &acts[..n as usize] {
            match s.get(u) {
                Term::Strict(x, y) => {
                    assert_eq!(x, a);
                    u = y;
                }
                other => panic!("expected strict, found {other:?}"),
            }
        }
        assert_eq!(u, acts[n as usize]);
        assert!(start.elapsed().as_secs_f64() < 1.0, "{:?}", start.elapsed());
    }
}
