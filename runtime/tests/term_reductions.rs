//! The term-level facts behind the explorer's reductions, on random interactions
//! (`oracle/mod.rs`'s generator): free derivatives (free completion) and the local frontier
//! (the one-action local analyses). The explorer itself is compared with the denotational
//! oracle, with and without its reductions, in `runtime.rs`.

#[path = "oracle/mod.rs"]
mod oracle;

use multitrace_runtime::check::explore::{explore, Budget, ExploreOptions};
use multitrace_runtime::signature::{Action, ActionKind, LifelineId, LifelineSet};
use multitrace_runtime::term::TermStore;
use multitrace_runtime::verdict::{Mode, VerdictKind};
use oracle::*;
use proptest::prelude::*;

fn alphabet() -> Vec<Action> {
    let mut v = Vec::new();
    for l in 0..LIFELINES {
        for kind in [ActionKind::Emission, ActionKind::Reception] {
            for m in 0..2 {
                v.push(act(l, kind, m));
            }
        }
    }
    v
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, .. ProptestConfig::default() })]

    /// A free derivative is a derivative, and removing `h` from it gives the same term as
    /// removing `h` from the original (the hash-consed form of `σ(rmv_h(t')) = σ(rmv_h(t))`),
    /// for every sub-term reachable by execution.
    #[test]
    fn free_derivatives_change_nothing_elsewhere(a in arb_ast(), extra in 0..LIFELINES) {
        let mut store = TermStore::new();
        let root = build(&mut store, &a);
        let mut terms = vec![root];
        for &x in &alphabet() {
            terms.extend(store.exec(root, x).to_vec());
        }
        for &t in &terms {
            for x in alphabet() {
                for h in [
                    LifelineSet::single(x.lifeline),
                    LifelineSet::single(x.lifeline).union(LifelineSet::single(LifelineId(extra))),
                ] {
                    if let Some(t2) = store.free_exec(t, x, h) {
                        prop_assert!(store.exec(t, x).contains(&t2), "{:?} {:?}", a, x);
                        let (r1, r2) = (store.remove(t, h), store.remove(t2, h));
                        prop_assert_eq!(r1, r2, "{:?} {:?} {:?}", a, x, h);
                    }
                }
            }
        }
    }

    /// The local frontier holds exactly the actions executable in the term restricted to their
    /// lifeline, computed by building the restricted term.
    #[test]
    fn local_frontier_is_execution_in_the_restricted_term(a in arb_ast()) {
        let mut store = TermStore::new();
        let t = build(&mut store, &a);
        let frontier = store.local_frontier(t);
        let all = LifelineSet::first(LIFELINES as usize);
        for x in alphabet() {
            let restricted = store.remove(t, all.minus(LifelineSet::single(x.lifeline)));
            let executable = !store.exec(restricted, x).is_empty();
            prop_assert_eq!(frontier.contains(&x), executable, "{:?} {:?}", a, x);
            prop_assert_eq!(store.local_exec_count(t, x) > 0, executable);
        }
    }

    /// Prefix mode with the reductions (POR with free completion, LOC with its one-action
    /// shortcut) gives the verdict of the plain search, and the oracle's when it is exact, on
    /// multitraces whose components have at most one action (where both reductions apply).
    #[test]
    fn reductions_agree_with_the_plain_search_on_one_action_traces(
        a in arb_ast(), colocated in any::<bool>(), seed in 1..u64::MAX,
    ) {
        let groups = groups(colocated);
        let mut store = TermStore::new();
        let root = build(&mut store, &a);
        let budget = Budget { max_vertices: Some(2_000_000), timeout: None };
        let reduced = ExploreOptions { budget, ..ExploreOptions::default() };
        let plain = ExploreOptions { por: false, loc: false, ..reduced };
        for mu in candidates(&a, &groups, seed) {
            let mu: Vec<Trace> = mu.into_iter().map(|c| c.into_iter().take(1).collect()).collect();
            let mt = multitrace(&groups, &mu);
            let got = explore(&mut store, root, &mt, &reduced).kind;
            let want = explore(&mut store, root, &mt, &plain).kind;
            if store.has_head_loop(root) && (got == VerdictKind::Inconclusive || want == VerdictKind::Inconclusive) {
                continue; // bounded silent moves may honestly give up
            }
            prop_assert_eq!(got, want, "{:?} {:?}", a, mu);
            let (expected, exact) = oracle(&a, &groups, &mu, Mode::Prefix);
            if exact {
                prop_assert_eq!(got, expected, "{:?} {:?}", a, mu);
            }
        }
    }
}
