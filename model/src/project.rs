//! Local verifiers: the DFA `Proj(A, Σi)` of each location with its area labels (seed 004
//! Defs. 5-7).
//!
//! Invariants (checked by [`ProjDfa::validate`]): state 0 is the initial state (`δī(Q0)`); the
//! transition table is dense (`states × letters of the location`), `NO_STATE` marks a missing
//! transition and a present one carries an area id; every area id indexes the
//! [`AreaTable`]; `subsets[s]` are the NFA states of DFA state `s`.

pub use crate::area::{Area, AreaError, AreaId, AreaTable};
use crate::nfa::{Alphabet, LetterId, LocationId, StateId};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Marks a missing DFA transition.
pub const NO_STATE: u32 = u32::MAX;

/// The DFA `Proj(A, Σi)` of one location.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProjDfa {
    /// The location.
    pub location: LocationId,
    /// Number of states.
    pub states: u32,
    /// Number of letters of the location.
    pub letters: u32,
    /// `next[s * letters + x]`: target of state `s` on local letter `x`, or [`NO_STATE`].
    pub next: Vec<u32>,
    /// `area[s * letters + x]`: area of that transition (meaningless when missing).
    pub area: Vec<AreaId>,
    /// Whether a state contains an accepting NFA state.
    pub accepting: Vec<bool>,
    /// Whether a state can still reach an accepting state (partial observation).
    pub live: Vec<bool>,
    /// `init` (Def. 7): the area before the first local letter.
    pub init_area: AreaId,
    /// Per state: every NFA transition reachable from the state's NFA states (what may happen
    /// after an observation that stopped there).
    pub tail: Vec<AreaId>,
    /// NFA states of each DFA state.
    pub subsets: Vec<Vec<StateId>>,
}

impl ProjDfa {
    /// Target and area of `s` on local letter `x`.
    #[inline]
    pub fn step(&self, s: u32, x: u32) -> Option<(u32, AreaId)> {
        let i = (s * self.letters + x) as usize;
        let t = self.next[i];
        (t != NO_STATE).then(|| (t, self.area[i]))
    }

    /// The target of `s` on local letter `x` when it is live (the local verifier still
    /// reads the trace as a prefix of a projection of an accepted word).
    #[inline]
    pub fn live_step(&self, s: u32, x: u32) -> Option<u32> {
        self.step(s, x)
            .map(|(t, _)| t)
            .filter(|&t| self.live[t as usize])
    }

    /// Reads local letters from the initial state while they lead to live states: the
    /// state reached and how many letters were read (the longest prefix the local verifier
    /// accepts as a prefix).
    pub fn read_live(&self, letters: impl IntoIterator<Item = u32>) -> (u32, usize) {
        let (mut s, mut n) = (0u32, 0usize);
        for x in letters {
            match self.live_step(s, x) {
                Some(t) => s = t,
                None => break,
            }
            n += 1;
        }
        (s, n)
    }

    /// The letters of location `location` (this DFA's) it reads into a live state after
    /// `trace`, in the alphabet's order; none when it refuses a letter of `trace`.
    pub fn live_letters_after<'a>(
        &'a self,
        alphabet: &'a Alphabet,
        location: LocationId,
        trace: &[LetterId],
    ) -> impl Iterator<Item = LetterId> + 'a {
        let (s, read) = self.read_live(trace.iter().map(|&l| alphabet.local_index(l)));
        let letters = if read < trace.len() {
            &[][..]
        } else {
            alphabet.letters_of(location)
        };
        letters
            .iter()
            .copied()
            .filter(move |&l| self.live_step(s, alphabet.local_index(l)).is_some())
    }

    /// Number of transitions.
    pub fn transition_count(&self) -> usize {
        self.next.iter().filter(|&&t| t != NO_STATE).count()
    }

    /// Checks every invariant against the tables it refers to.
    pub fn validate(&self, nfa_states: usize, areas: usize) -> Result<(), TableError> {
        let n = self.states as usize;
        let cells = n
            .checked_mul(self.letters as usize)
            .ok_or(TableError::TooLarge)?;
        if n == 0 {
            return Err(TableError::NoStates);
        }
        if self.next.len() != cells || self.area.len() != cells {
            return Err(TableError::TableSize);
        }
        if self.accepting.len() != n || self.live.len() != n || self.tail.len() != n {
            return Err(TableError::Flags);
        }
        if self.subsets.len() != n {
            return Err(TableError::Subsets);
        }
        for (i, &t) in self.next.iter().enumerate() {
            if t != NO_STATE && (t as usize >= n || self.area[i].index() >= areas) {
                return Err(TableError::Transition);
            }
        }
        if self.init_area.index() >= areas || self.tail.iter().any(|a| a.index() >= areas) {
            return Err(TableError::Area);
        }
        if self
            .subsets
            .iter()
            .flatten()
            .any(|s| s.index() >= nfa_states)
        {
            return Err(TableError::SubsetState);
        }
        Ok(())
    }
}

/// An inconsistent area table or local verifier (found by [`AreaTable::validate`] and
/// [`ProjDfa::validate`] when a compiled model is loaded).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableError {
    /// The area table's width does not fit the NFA's transitions.
    AreaWidth,
    /// An area holds a transition past the NFA's last one.
    AreaTransition,
    /// An area is not in the form the density rule gives it (sparse lists strictly
    /// increasing), or the pools hold more than the areas.
    AreaForm,
    /// The DFA's table would not fit in memory.
    TooLarge,
    /// The DFA has no state.
    NoStates,
    /// The DFA's tables are not `states × letters`.
    TableSize,
    /// The DFA's per-state flags are not one per state.
    Flags,
    /// The DFA's NFA-state subsets are not one per state.
    Subsets,
    /// A DFA transition names a state or an area out of range.
    Transition,
    /// The DFA's initial or tail area is out of range.
    Area,
    /// A DFA state's subset names an NFA state out of range.
    SubsetState,
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TableError::AreaWidth => "area table has the wrong width",
            TableError::AreaTransition => "an area names a transition out of range",
            TableError::AreaForm => "an area is not stored in its canonical form",
            TableError::TooLarge => "DFA too large",
            TableError::NoStates => "DFA without states",
            TableError::TableSize => "DFA table has the wrong size",
            TableError::Flags => "DFA flags do not match its states",
            TableError::Subsets => "DFA subsets do not match its states",
            TableError::Transition => "DFA transition out of range",
            TableError::Area => "DFA area out of range",
            TableError::SubsetState => "DFA subset names an NFA state out of range",
        })
    }
}

impl std::error::Error for TableError {}

impl From<AreaError> for TableError {
    fn from(e: AreaError) -> Self {
        match e {
            AreaError::Width => TableError::AreaWidth,
            AreaError::Transition => TableError::AreaTransition,
            AreaError::Form => TableError::AreaForm,
        }
    }
}

/// The bit-set helpers, re-exported where the areas first needed them.
pub use crate::bits;
