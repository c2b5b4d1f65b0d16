//! Nondeterministic finite automata over an alphabet partitioned into locations.
//!
//! Invariants of a [`Nfa`] (checked by [`Nfa::validate`]): transitions are sorted by
//! (source, letter, target) without duplicates, `out_start` is their CSR index by source
//! (`out_start.len() == states + 1`), every state and letter id is in range, and there is at
//! least one initial state.

use serde::{Deserialize, Serialize};

use crate::signature::id_newtype;

id_newtype!(
    /// A state of an automaton.
    StateId
);
id_newtype!(
    /// A letter of an [`Alphabet`].
    LetterId
);
id_newtype!(
    /// A transition of a [`Nfa`] (index into [`Nfa::transitions`]).
    TransitionId
);

pub use crate::signature::LocationId;

/// Letters, their names and their locations.
///
/// Invariants: `location.len() == names.len()`; every location id is below
/// `location_names.len()`; `local_index[l]` is the rank of letter `l` among the letters of its
/// location, and `location_letters[k]` lists the letters of location `k` in that order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Alphabet {
    names: Vec<String>,
    location: Vec<LocationId>,
    location_names: Vec<String>,
    local_index: Vec<u32>,
    location_letters: Vec<Vec<LetterId>>,
}

impl Alphabet {
    /// Builds an alphabet; `None` when a letter's location is out of range.
    pub fn new(
        names: Vec<String>,
        location: Vec<LocationId>,
        location_names: Vec<String>,
    ) -> Option<Self> {
        if names.len() != location.len() {
            return None;
        }
        let mut location_letters = vec![Vec::new(); location_names.len()];
        let mut local_index = Vec::with_capacity(names.len());
        for (i, loc) in location.iter().enumerate() {
            let letters = location_letters.get_mut(loc.index())?;
            local_index.push(letters.len() as u32);
            letters.push(LetterId(i as u32));
        }
        Some(Alphabet {
            names,
            location,
            location_names,
            local_index,
            location_letters,
        })
    }

    /// Checks every invariant (used after decoding untrusted bytes): one location per letter,
    /// every location in range, and the per-location tables (`local_index`, the letters of
    /// each location) exactly as [`Alphabet::new`] builds them.
    pub fn validate(&self) -> Result<(), NfaError> {
        if self.location.len() != self.names.len() {
            return Err(NfaError("letter locations do not match the letters".into()));
        }
        if u32::try_from(self.names.len()).is_err()
            || u32::try_from(self.location_names.len()).is_err()
        {
            return Err(NfaError("too many letters or locations".into()));
        }
        match Alphabet::new(
            self.names.clone(),
            self.location.clone(),
            self.location_names.clone(),
        ) {
            None => Err(NfaError("a letter's location is out of range".into())),
            Some(a) if a != *self => Err(NfaError(
                "the letters of each location do not match the letters' locations".into(),
            )),
            Some(_) => Ok(()),
        }
    }

    /// Number of letters.
    pub fn len(&self) -> usize {
        self.names.len()
    }
    /// Whether there is no letter.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
    /// Number of locations.
    pub fn locations(&self) -> usize {
        self.location_names.len()
    }
    /// Name of a letter.
    pub fn name(&self, l: LetterId) -> &str {
        &self.names[l.index()]
    }
    /// All letter names.
    pub fn names(&self) -> &[String] {
        &self.names
    }
    /// Location of a letter.
    #[inline]
    pub fn location(&self, l: LetterId) -> LocationId {
        self.location[l.index()]
    }
    /// Name of a location.
    pub fn location_name(&self, k: LocationId) -> &str {
        &self.location_names[k.index()]
    }
    /// All location names.
    pub fn location_names(&self) -> &[String] {
        &self.location_names
    }
    /// Rank of a letter among the letters of its location.
    #[inline]
    pub fn local_index(&self, l: LetterId) -> u32 {
        self.local_index[l.index()]
    }
    /// Letters of a location, by local index.
    pub fn letters_of(&self, k: LocationId) -> &[LetterId] {
        &self.location_letters[k.index()]
    }
    /// The letter of that name.
    pub fn letter(&self, name: &str) -> Option<LetterId> {
        self.names
            .iter()
            .position(|n| n == name)
            .map(|i| LetterId(i as u32))
    }
}

/// One transition `from --letter--> to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Transition {
    /// Source state.
    pub from: StateId,
    /// Letter read.
    pub letter: LetterId,
    /// Target state.
    pub to: StateId,
}

/// A nondeterministic finite automaton with several initial states allowed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Nfa {
    states: u32,
    initial: Vec<StateId>,
    accepting: Vec<bool>,
    transitions: Vec<Transition>,
    out_start: Vec<u32>,
    /// Optional state names (for drawing), empty or one per state.
    state_names: Vec<String>,
}

/// Why an automaton is not well formed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NfaError(pub String);

impl std::fmt::Display for NfaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NfaError {}

impl Nfa {
    /// Builds an automaton; transitions are sorted and deduplicated.
    pub fn new(
        states: u32,
        initial: Vec<StateId>,
        accepting: Vec<bool>,
        mut transitions: Vec<Transition>,
        letters: usize,
    ) -> Result<Self, NfaError> {
        transitions.sort();
        transitions.dedup();
        let mut initial = initial;
        initial.sort();
        initial.dedup();
        let mut out_start = vec![0u32; states as usize + 1];
        for t in &transitions {
            if t.from.0 >= states || t.to.0 >= states {
                return Err(NfaError(format!(
                    "transition {:?} uses a state out of range",
                    t
                )));
            }
            out_start[t.from.index() + 1] += 1;
        }
        for i in 0..states as usize {
            out_start[i + 1] += out_start[i];
        }
        let nfa = Nfa {
            states,
            initial,
            accepting,
            transitions,
            out_start,
            state_names: Vec::new(),
        };
        nfa.validate(letters)?;
        Ok(nfa)
    }

    /// Checks every invariant (used after decoding untrusted bytes).
    pub fn validate(&self, letters: usize) -> Result<(), NfaError> {
        let n = self.states as usize;
        if self.accepting.len() != n {
            return Err(NfaError("accepting flags do not match the states".into()));
        }
        if self.initial.is_empty() {
            return Err(NfaError("no initial state".into()));
        }
        if self.initial.iter().any(|s| s.index() >= n) {
            return Err(NfaError("initial state out of range".into()));
        }
        if self.out_start.len() != n + 1
            || self.out_start.first() != Some(&0)
            || self.out_start.last().copied() != Some(self.transitions.len() as u32)
            || self.out_start.windows(2).any(|w| w[0] > w[1])
        {
            return Err(NfaError("transition index is inconsistent".into()));
        }
        for (i, t) in self.transitions.iter().enumerate() {
            if t.from.index() >= n || t.to.index() >= n || t.letter.index() >= letters {
                return Err(NfaError(format!("transition {i} out of range")));
            }
            let (lo, hi) = (
                self.out_start[t.from.index()] as usize,
                self.out_start[t.from.index() + 1] as usize,
            );
            if !(lo..hi).contains(&i) {
                return Err(NfaError(format!("transition {i} is not under its source")));
            }
            if i > 0 && self.transitions[i - 1] >= *t {
                return Err(NfaError("transitions are not sorted".into()));
            }
        }
        if !self.state_names.is_empty() && self.state_names.len() != n {
            return Err(NfaError("state names do not match the states".into()));
        }
        Ok(())
    }

    /// Sets state names (one per state) for drawing.
    pub fn with_state_names(mut self, names: Vec<String>) -> Self {
        if names.len() == self.states as usize {
            self.state_names = names;
        }
        self
    }

    /// Number of states.
    pub fn states(&self) -> usize {
        self.states as usize
    }
    /// Initial states.
    pub fn initial(&self) -> &[StateId] {
        &self.initial
    }
    /// Whether a state is accepting.
    #[inline]
    pub fn is_accepting(&self, s: StateId) -> bool {
        self.accepting[s.index()]
    }
    /// All transitions, sorted by (source, letter, target).
    pub fn transitions(&self) -> &[Transition] {
        &self.transitions
    }
    /// The transitions leaving `s` with their ids.
    #[inline]
    pub fn out(&self, s: StateId) -> impl Iterator<Item = (TransitionId, Transition)> + '_ {
        let lo = self.out_start[s.index()] as usize;
        let hi = self.out_start[s.index() + 1] as usize;
        (lo..hi).map(move |i| (TransitionId(i as u32), self.transitions[i]))
    }
    /// Range of transition indices leaving `s`.
    #[inline]
    pub fn out_range(&self, s: StateId) -> std::ops::Range<usize> {
        self.out_start[s.index()] as usize..self.out_start[s.index() + 1] as usize
    }
    /// Name of a state (its number when unnamed).
    pub fn state_name(&self, s: StateId) -> String {
        self.state_names
            .get(s.index())
            .cloned()
            .unwrap_or_else(|| s.0.to_string())
    }
    /// Number of accepting states.
    pub fn accepting_count(&self) -> usize {
        self.accepting.iter().filter(|&&a| a).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_csr_index_and_validates() {
        let t = |a, l, b| Transition {
            from: StateId(a),
            letter: LetterId(l),
            to: StateId(b),
        };
        let nfa = Nfa::new(
            3,
            vec![StateId(0)],
            vec![false, false, true],
            vec![t(1, 0, 2), t(0, 1, 1), t(0, 0, 1), t(0, 0, 1)],
            2,
        )
        .unwrap();
        assert_eq!(nfa.transitions().len(), 3);
        assert_eq!(nfa.out(StateId(0)).count(), 2);
        assert_eq!(nfa.out(StateId(2)).count(), 0);
        assert!(Nfa::new(2, vec![], vec![false, true], vec![], 1).is_err());
        assert!(Nfa::new(2, vec![StateId(0)], vec![false, true], vec![t(0, 5, 1)], 1).is_err());
    }

    #[test]
    fn alphabet_ranks_letters_per_location() {
        let a = Alphabet::new(
            vec!["a".into(), "b".into(), "c".into()],
            vec![LocationId(1), LocationId(0), LocationId(1)],
            vec!["x".into(), "y".into()],
        )
        .unwrap();
        assert_eq!(a.local_index(LetterId(2)), 1);
        assert_eq!(a.letters_of(LocationId(1)), &[LetterId(0), LetterId(2)]);
        assert_eq!(a.letter("c"), Some(LetterId(2)));
        assert!(Alphabet::new(vec!["a".into()], vec![LocationId(3)], vec!["x".into()]).is_none());
        assert_eq!(a.validate(), Ok(()));
    }

    #[test]
    fn validate_refuses_inconsistent_tables() {
        // What a decoded (hostile) alphabet may hold: each table on its own looks fine.
        let good = Alphabet::new(
            vec!["a".into(), "b".into()],
            vec![LocationId(0), LocationId(1)],
            vec!["x".into(), "y".into()],
        )
        .unwrap();
        let mut bad = good.clone();
        bad.location_letters[1].push(LetterId(5));
        assert!(bad.validate().is_err());
        let mut bad = good.clone();
        bad.location[1] = LocationId(7);
        assert!(bad.validate().is_err());
        let mut bad = good.clone();
        bad.location.pop();
        assert!(bad.validate().is_err());
        let mut bad = good.clone();
        bad.local_index[0] = 3;
        assert!(bad.validate().is_err());
        let mut bad = good;
        bad.location_letters.pop();
        assert!(bad.validate().is_err());
    }
}

/// The nodes of a graph of `n` nodes that reach one of `targets` (themselves included), by
/// the reversed `edges` `(from, to)`: the one backward reachability of the crates (live states
/// of NFAs and DFAs, trimming).
pub fn reaching(
    n: usize,
    edges: impl IntoIterator<Item = (u32, u32)>,
    targets: impl IntoIterator<Item = usize>,
) -> Vec<bool> {
    let mut preds: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (from, to) in edges {
        preds[to as usize].push(from);
    }
    let mut mark = vec![false; n];
    let mut stack: Vec<usize> = Vec::new();
    for t in targets {
        if !mark[t] {
            mark[t] = true;
            stack.push(t);
        }
    }
    while let Some(s) = stack.pop() {
        for &p in &preds[s] {
            if !mark[p as usize] {
                mark[p as usize] = true;
                stack.push(p as usize);
            }
        }
    }
    mark
}

impl Nfa {
    /// States reachable from an initial state.
    pub fn reachable(&self) -> Vec<bool> {
        let n = self.states as usize;
        let mut mark = vec![false; n];
        let mut stack: Vec<StateId> = self.initial.clone();
        for s in &stack {
            mark[s.index()] = true;
        }
        while let Some(s) = stack.pop() {
            for (_, t) in self.out(s) {
                if !mark[t.to.index()] {
                    mark[t.to.index()] = true;
                    stack.push(t.to);
                }
            }
        }
        mark
    }

    /// States that can reach an accepting state (live states).
    pub fn co_reachable(&self) -> Vec<bool> {
        reaching(
            self.states as usize,
            self.transitions.iter().map(|t| (t.from.0, t.to.0)),
            (0..self.states as usize).filter(|&s| self.accepting[s]),
        )
    }

    /// The automaton without the states that cannot reach an accepting state, except the
    /// initial ones (an automaton keeps an initial state even when it accepts nothing), and
    /// the new number of each old state (`u32::MAX` when dropped). State names follow.
    pub fn trim(&self) -> (Nfa, Vec<u32>) {
        let n = self.states as usize;
        let mut keep = self.co_reachable();
        for s in &self.initial {
            keep[s.index()] = true;
        }
        let mut renum = vec![u32::MAX; n];
        let mut kept = 0u32;
        for s in 0..n {
            if keep[s] {
                renum[s] = kept;
                kept += 1;
            }
        }
        let map = |s: StateId| StateId(renum[s.index()]);
        let transitions = self
            .transitions
            .iter()
            .filter(|t| keep[t.from.index()] && keep[t.to.index()])
            .map(|t| Transition {
                from: map(t.from),
                letter: t.letter,
                to: map(t.to),
            })
            .collect();
        let letters = self
            .transitions
            .iter()
            .map(|t| t.letter.index() + 1)
            .max()
            .unwrap_or(0);
        let nfa = Nfa {
            states: kept,
            initial: self.initial.iter().map(|&s| map(s)).collect(),
            accepting: (0..n)
                .filter(|&s| keep[s])
                .map(|s| self.accepting[s])
                .collect(),
            transitions: Vec::new(),
            out_start: Vec::new(),
            state_names: Vec::new(),
        };
        let mut out = Nfa::new(nfa.states, nfa.initial, nfa.accepting, transitions, letters)
            .expect("a trimmed automaton keeps the invariants of its source");
        if !self.state_names.is_empty() {
            out.state_names = (0..n)
                .filter(|&s| keep[s])
                .map(|s| self.state_names[s].clone())
                .collect();
        }
        (out, renum)
    }
}

#[cfg(test)]
mod reach_tests {
    use super::*;

    fn t(from: u32, letter: u32, to: u32) -> Transition {
        Transition {
            from: StateId(from),
            letter: LetterId(letter),
            to: StateId(to),
        }
    }

    #[test]
    fn reachability_and_trimming() {
        // 0 -a-> 1 -b-> 2 (accepting), 0 -a-> 3 (dead end), 4 unreachable -a-> 2.
        let nfa = Nfa::new(
            5,
            vec![StateId(0)],
            vec![false, false, true, false, false],
            vec![t(0, 0, 1), t(1, 1, 2), t(0, 0, 3), t(4, 0, 2)],
            2,
        )
        .unwrap();
        assert_eq!(nfa.reachable(), vec![true, true, true, true, false]);
        assert_eq!(nfa.co_reachable(), vec![true, true, true, false, true]);
        let (trimmed, renum) = nfa.trim();
        assert_eq!(renum, vec![0, 1, 2, u32::MAX, 3]);
        assert_eq!(trimmed.states(), 4);
        assert_eq!(trimmed.transitions().len(), 3);
        assert!(trimmed.is_accepting(StateId(2)));
        // Nothing accepted: the initial state stays.
        let empty = Nfa::new(2, vec![StateId(1)], vec![false, false], vec![t(0, 0, 1)], 1).unwrap();
        let (trimmed, renum) = empty.trim();
        assert_eq!((trimmed.states(), renum), (1, vec![u32::MAX, 0]));
        assert_eq!(trimmed.initial(), &[StateId(0)]);
    }
}
