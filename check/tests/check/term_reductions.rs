//! The explorer's reductions against the plain search and the denotational oracle
//! (`../oracle/mod.rs`) on multitraces with at most one action per location, where the partial
//! order reduction by a location (several positions at once) fires most. `runtime.rs` compares
//! every option combination with the oracle on longer multitraces.

use crate::oracle::*;
use multitrace_check::explore::{explore, Budget, ExploreOptions};
use multitrace_model::term::TermStore;
use multitrace_model::verdict::{Mode, VerdictKind};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, .. ProptestConfig::default() })]

    /// Both modes: the reductions (POR, LOC) give the verdict of the plain search, and the
    /// oracle's when it is exact, on multitraces whose components have at most one action.
    #[test]
    fn reductions_agree_with_the_plain_search_on_one_action_traces(
        a in arb_ast(), colocated in any::<bool>(), seed in 1..u64::MAX,
    ) {
        let groups = groups(colocated);
        let mut store = TermStore::new();
        let root = build(&mut store, &a);
        let budget = Budget { max_vertices: Some(2_000_000), timeout: None, ..Budget::UNLIMITED };
        let reduced = ExploreOptions { budget, ..ExploreOptions::default() };
        let plain = ExploreOptions { por: false, loc: false, ..reduced };
        for mu in candidates(&a, &groups, seed) {
            let mu: Vec<Trace> = mu.into_iter().map(|c| c.into_iter().take(1).collect()).collect();
            let mt = multitrace(&groups, &mu);
            for mode in [Mode::Prefix, Mode::Complete] {
                let (reduced, plain) = (ExploreOptions { mode, ..reduced }, ExploreOptions { mode, ..plain });
                let got = explore(&mut store, root, &mt, &reduced).kind;
                let want = explore(&mut store, root, &mt, &plain).kind;
                if store.has_head_loop(root) && (got == VerdictKind::Inconclusive || want == VerdictKind::Inconclusive) {
                    continue; // bounded silent moves may honestly give up
                }
                prop_assert_eq!(got, want, "{:?} {:?} {:?}", a, mu, mode);
                let (expected, exact) = oracle(&a, &groups, &mu, mode);
                if exact {
                    prop_assert_eq!(got, expected, "{:?} {:?} {:?}", a, mu, mode);
                }
            }
        }
    }
}
