//! The table of exact run lengths ([`RunTable`]): for every `r <= cap`, the set `can[r]` of the
//! states with an accepting run of exactly `r` transitions (`can[0]` = the accepting states,
//! `s ∈ can[r]` iff some transition `s -a-> t` has `t ∈ can[r - 1]`).
//!
//! Invariant: the table is `(cap + 1) × states` bits, refused above [`MAX_TABLE_BITS`] (an
//! error, not an allocation failure).

use super::spec::GenError;
use multitrace_model::nfa::{Nfa, StateId};

/// Largest run table, in bits.
pub(super) const MAX_TABLE_BITS: usize = 1 << 32;

/// Lengths of accepting runs: `can[r]` holds the states with an accepting run of exactly `r`
/// transitions, for `r <= cap`.
pub(super) struct RunTable {
    words: usize,
    /// The longest length in the table.
    pub(super) cap: usize,
    bits: Vec<u64>,
    /// Lengths `r <= cap` with an accepting run of `r` transitions from an initial state.
    pub(super) feasible: Vec<bool>,
}

impl RunTable {
    /// The table of `nfa` up to `cap` transitions.
    pub(super) fn new(nfa: &Nfa, cap: usize) -> Result<Self, GenError> {
        let n = nfa.states();
        let words = n.div_ceil(64).max(1);
        if (cap + 1).saturating_mul(words * 64) > MAX_TABLE_BITS {
            return Err(GenError::Unsupported(format!(
                "lengths up to {cap} on an NFA of {n} states need too large a table of run lengths; ask for shorter multitraces"
            )));
        }
        let mut bits = vec![0u64; (cap + 1) * words];
        for s in 0..n {
            if nfa.is_accepting(StateId(s as u32)) {
                bits[s / 64] |= 1 << (s % 64);
            }
        }
        for r in 1..=cap {
            let (done, rest) = bits.split_at_mut(r * words);
            let prev = &done[(r - 1) * words..];
            let cur = &mut rest[..words];
            for t in nfa.transitions() {
                let to = t.to.index();
                if prev[to / 64] >> (to % 64) & 1 == 1 {
                    let f = t.from.index();
                    cur[f / 64] |= 1 << (f % 64);
                }
            }
        }
        let mut table = RunTable {
            words,
            cap,
            bits,
            feasible: Vec::new(),
        };
        table.feasible = (0..=cap)
            .map(|r| nfa.initial().iter().any(|&s| table.can(r, s)))
            .collect();
        Ok(table)
    }

    /// Whether `s` has an accepting run of exactly `r` transitions.
    #[inline]
    pub(super) fn can(&self, r: usize, s: StateId) -> bool {
        let i = s.index();
        self.bits[r * self.words + i / 64] >> (i % 64) & 1 == 1
    }

    /// The lengths in `lo..=hi` (within the table) of accepting runs from an initial state.
    pub(super) fn feasible_in(&self, lo: usize, hi: usize) -> Vec<usize> {
        (lo..=hi.min(self.cap))
            .filter(|&r| self.feasible[r])
            .collect()
    }
}
