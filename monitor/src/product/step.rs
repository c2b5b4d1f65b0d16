//! AC's step on one small state set, as the product takes it: once per edge of the product
//! it extends, so the step is inlined for the sets of one or two words of most models (MQTT's
//! set is one word, AutomatArk NFA12's two). The general step ([`AcTables::step_into`]) is a
//! call with a loop over any number of words: on NFA12, whose sets hold one state, the call
//! took about 110 instructions a step, and the inlined step cut the monitor's instructions
//! by a tenth there.
//!
//! Invariant: [`Kernel::step`] is `out |= δ(from, a)`, exactly as
//! [`AcTables::step_into`] (tested against a walk of the transitions on random automata of
//! one to four words).

use super::kernel::Kernel;
#[cfg(doc)]
use multitrace_check::ac::AcTables;
use multitrace_model::nfa::LetterId;

impl Kernel<'_> {
    /// `out |= δ(from, a)`: AC's step ([`AcTables::step_into`]), inlined for sets of one or
    /// two words.
    #[inline(always)]
    pub(crate) fn step(&self, from: &[u64], a: LetterId, out: &mut [u64]) {
        if let Some(rows) = self.tables.rows(a) {
            if let ([f], [o]) = (from, &mut *out) {
                let mut b = *f;
                while b != 0 {
                    *o |= rows[b.trailing_zeros() as usize];
                    b &= b - 1;
                }
                return;
            }
            if let ([f0, f1], [o0, o1]) = (from, &mut *out) {
                for (base, &word) in [(0, f0), (64, f1)] {
                    let mut b = word;
                    while b != 0 {
                        let s = 2 * (base + b.trailing_zeros() as usize);
                        *o0 |= rows[s];
                        *o1 |= rows[s + 1];
                        b &= b - 1;
                    }
                }
                return;
            }
        }
        self.tables.step_into(self.nfa, from, a, out);
    }
}

#[cfg(test)]
mod tests {
    use super::super::closure::tests::{random_nfa, three_locations};
    use super::super::Kernel;
    use multitrace_check::ac::AcTables;
    use multitrace_model::bits;
    use multitrace_model::nfa::LetterId;
    use multitrace_model::rng::Rng;

    /// On random automata of 1 to 250 states (one to four words: the inlined one- and
    /// two-word steps and the general one), every letter and random sets: the step ORs into
    /// `out` exactly the states a walk of the transitions reaches.
    #[test]
    fn the_step_is_the_walk_of_the_transitions() {
        let alphabet = three_locations();
        let mut rng = Rng::new(41);
        let mut by_words = [0usize; 5];
        for case in 0..80 {
            let states = [1, 40, 64, 65, 100, 128, 129, 250][case % 8];
            let transitions = rng.below(6 * states + 1);
            let nfa = random_nfa(&mut rng, states, transitions);
            let tables = AcTables::new(&nfa, &alphabet);
            let w = tables.words();
            by_words[w] += 1;
            let kernel = Kernel {
                tables: &tables,
                nfa: &nfa,
                alphabet: &alphabet,
                closure: &[],
            };
            for _ in 0..30 {
                let mut from = vec![0u64; w];
                for _ in 0..rng.below(6) {
                    bits::set(&mut from, rng.below(states));
                }
                let a = LetterId(rng.below(6) as u32);
                // Some bits set before: the step ORs, it does not overwrite.
                let mut before = vec![0u64; w];
                if rng.below(2) == 0 {
                    bits::set(&mut before, rng.below(states));
                }
                let mut want = before.clone();
                for t in nfa.transitions() {
                    if t.letter == a && bits::get(&from, t.from.index()) {
                        bits::set(&mut want, t.to.index());
                    }
                }
                let mut got = before.clone();
                kernel.step(&from, a, &mut got);
                assert_eq!(got, want, "{states} states, letter {a:?}, from {from:?}");
            }
        }
        assert!(by_words[1] > 0 && by_words[2] > 0 && by_words[3] > 0 && by_words[4] > 0);
    }
}
