//! Closure under silent moves in a search restricted to a mask (AS's `Inter`): rows built per
//! check, one state at a time, when a set first holds that state.
//!
//! An unrestricted search closes a set by OR-ing the model's rows
//! ([`super::tables::AcTables::closure_rows`]); a restricted one cannot use them (the mask
//! removes transitions). Walking the transitions at every vertex repeats the same walks, so
//! the walk from each state is done once per check and per subset of silent locations, and
//! kept as a row: the closure of a set is then the OR of its states' rows, the same set the
//! walk gives.

use super::tables::for_each_bit;
use multitrace_model::bits;
use multitrace_model::nfa::{Alphabet, Nfa, StateId};

/// The rows of one check (see the module documentation), indexed by the bitmask of silent
/// locations.
#[derive(Default)]
pub(super) struct MaskedClosure {
    /// Per bitmask: the states whose row is computed (a bitset), and the rows (`w` words per
    /// state).
    slots: Vec<(Vec<u64>, Vec<u64>)>,
    /// The bitmasks used since the last [`MaskedClosure::reset`].
    used: Vec<usize>,
}

impl MaskedClosure {
    /// Forgets every row (a new mask, or another model).
    pub(super) fn reset(&mut self) {
        for &m in &self.used {
            self.slots[m].0.fill(0);
        }
        self.used.clear();
    }

    /// Closes `set` (`w` words, `states` states) under the transitions of `mask` whose
    /// letter's location is in `silent` (a bitmask of `locations` locations), with `out` as
    /// its buffer.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn close(
        &mut self,
        nfa: &Nfa,
        alphabet: &Alphabet,
        mask: &[u64],
        (states, w, locations): (usize, usize, usize),
        silent: usize,
        set: &mut [u64],
        out: &mut [u64],
        stack: &mut Vec<usize>,
    ) {
        if self.slots.len() != 1 << locations {
            self.used.clear();
            self.slots = (0..1usize << locations)
                .map(|_| Default::default())
                .collect();
        }
        let (done, rows) = &mut self.slots[silent];
        if rows.len() != states * w || done.len() != states.div_ceil(64) {
            *rows = vec![0; states * w];
            *done = vec![0; states.div_ceil(64)];
        }
        if !self.used.contains(&silent) {
            self.used.push(silent);
        }
        out[..w].fill(0);
        for_each_bit(set, w, |s| {
            let row = &mut rows[s * w..(s + 1) * w];
            if !bits::get(done, s) {
                bits::set(done, s);
                row.fill(0);
                bits::set(row, s);
                stack.clear();
                stack.push(s);
                while let Some(x) = stack.pop() {
                    for i in nfa.out_range(StateId(x as u32)) {
                        let t = nfa.transitions()[i];
                        if silent >> alphabet.location(t.letter).index() & 1 == 1
                            && bits::get(mask, i)
                            && !bits::get(row, t.to.index())
                        {
                            bits::set(row, t.to.index());
                            stack.push(t.to.index());
                        }
                    }
                }
            }
            for k in 0..w {
                out[k] |= row[k];
            }
        });
        set[..w].copy_from_slice(&out[..w]);
    }
}
