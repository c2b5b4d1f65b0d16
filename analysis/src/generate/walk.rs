//! Random accepting runs of exactly a given length: the table of run lengths and the walk.
//!
//! [`RunTable`] holds, for every `r <= cap`, the set `can[r]` of the states with an accepting
//! run of exactly `r` transitions (`can[0]` = the accepting states, `s ∈ can[r]` iff some
//! transition `s -a-> t` has `t ∈ can[r - 1]`). Invariants:
//!
//! - a walk of length `len` starts in an initial state of `can[len]` and, with `r` steps left
//!   in state `q`, takes a transition to a state of `can[r - 1]`: such a transition always
//!   exists, so the walk never backtracks and ends in an accepting state after exactly `len`
//!   steps;
//! - each step chooses uniformly among those transitions (one draw of the generator), the
//!   start uniformly among the initial states of `can[len]`;
//! - the table is `(cap + 1) × states` bits, refused above [`MAX_TABLE_BITS`] (an error, not
//!   an allocation failure).

use super::generator::{project_word, Generator};
use multitrace_model::nfa::{LetterId, StateId};

/// A random accepting run: its letters and the states it visits (one more than letters).
pub(super) struct Run {
    /// The letters read.
    pub(super) word: Vec<LetterId>,
    /// The states visited, the initial one first.
    pub(super) states: Vec<StateId>,
}

impl Generator<'_> {
    /// A random accepting run of exactly `len` transitions (`len` must be feasible).
    pub(super) fn walk(&mut self, len: usize) -> Run {
        let starts: Vec<StateId> = self
            .nfa
            .initial()
            .iter()
            .copied()
            .filter(|&s| self.table.can(len, s))
            .collect();
        let mut q = *self.rng.pick(&starts).expect("feasible length");
        let mut word = Vec::with_capacity(len);
        let mut states = Vec::with_capacity(len + 1);
        states.push(q);
        let mut choices = Vec::new();
        for n in 0..len {
            let r = len - n;
            choices.clear();
            choices.extend(
                self.nfa
                    .out(q)
                    .map(|(_, t)| t)
                    .filter(|t| self.table.can(r - 1, t.to)),
            );
            let t = *self
                .rng
                .pick(&choices)
                .expect("a transition stays feasible");
            word.push(t.letter);
            states.push(t.to);
            q = t.to;
        }
        Run { word, states }
    }

    /// A random feasible run length in `lo..=hi`, or the smallest feasible one above `hi`.
    pub(super) fn length(&mut self, lo: usize, hi: usize) -> Option<usize> {
        let f = self.table.feasible_in(lo, hi);
        if let Some(&r) = self.rng.pick(&f) {
            return Some(r);
        }
        (hi.saturating_add(1)..=self.table.cap).find(|&r| self.table.feasible[r])
    }

    /// The projection of a random accepting run with a length in the asked range.
    pub(super) fn correct(&mut self) -> Option<Vec<Vec<LetterId>>> {
        let len = self.length(self.opts.min_len, self.opts.max_len)?;
        let run = self.walk(len);
        Some(project_word(self.model, &run.word))
    }

    /// A multi-prefix of total length `len` cut from a random accepting run; at least `cut`
    /// actions are removed.
    pub(super) fn multi_prefix(&mut self, len: usize, cut: usize) -> Option<Vec<Vec<LetterId>>> {
        let extra = (len / 4).max(3);
        let base = self.length(len + cut, len + cut + extra)?;
        let run = self.walk(base);
        let mut traces = project_word(self.model, &run.word);
        let mut total = base;
        while total > len {
            let nonempty: Vec<usize> = (0..traces.len())
                .filter(|&k| !traces[k].is_empty())
                .collect();
            let k = *self.rng.pick(&nonempty)?;
            traces[k].pop();
            total -= 1;
        }
        Some(traces)
    }
}

#[cfg(test)]
mod tests {
    use super::super::table::{RunTable, MAX_TABLE_BITS};
    use super::super::tests::engine;
    use super::super::{generate, GenError, GenOptions, Kind};
    use multitrace_model::model::ModelKind;

    #[test]
    fn the_table_holds_the_exact_lengths_of_accepting_runs() {
        // L(A) = c e | a | b (d b)* d c e: lengths 1, 2 and 4 + 2k.
        let e = engine("seed004-fig3/model.timbuk");
        let ModelKind::Automata(a) = &e.model().kind else {
            panic!("fig3 has automata")
        };
        let table = RunTable::new(&a.nfa, 40).unwrap();
        let expected: Vec<usize> = [1, 2].into_iter().chain((4..=40).step_by(2)).collect();
        assert_eq!(table.feasible_in(0, 40), expected);
        assert_eq!(table.feasible_in(41, 99), Vec::<usize>::new());
        // Too large a table is an error, not an allocation.
        assert!(matches!(
            RunTable::new(&a.nfa, MAX_TABLE_BITS),
            Err(GenError::Unsupported(_))
        ));
    }

    #[test]
    fn runs_reach_the_asked_lengths() {
        let e = engine("seed004-fig3/model.timbuk");
        let g = generate(&e, &GenOptions::new(Kind::Pass, 30, 200, 250, 1)).unwrap();
        assert_eq!(g.attempts, 30, "every walk succeeds at the first attempt");
        super::super::tests::recheck(&e, Kind::Pass, &g, 200, 250);
        let err = generate(&e, &GenOptions::new(Kind::Pass, 1, 3, 3, 1)).unwrap_err();
        assert!(
            err.to_string()
                .contains("no accepting run of length in 3..3"),
            "{err}"
        );
    }
}
