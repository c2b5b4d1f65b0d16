//! Interned areas (seed 004 Def. 6): sets of the NFA's transitions, each stored **sparse** (its
//! transitions, a strictly increasing `u32` list) or **dense** (a bitset of one bit per
//! transition), whichever the rule below picks.
//!
//! **The rule (per area, by density).** An area of `c` transitions over `T` transitions
//! (`w = ⌈T/64⌉` words, at least one) is sparse exactly when `c * SPARSE_RATIO <= w`
//! ([`SPARSE_RATIO`] = 8), else dense. A sparse area then costs at most `w/2` bytes against the
//! bitset's `8w`, and adding it to an accumulator (one bit per transition) costs at most `w/8`
//! single-bit writes against `w` word ORs, so it is never slower than the bitset; denser areas
//! keep the bitset, whose OR is sequential and vectorized. The form is canonical (it depends
//! only on the set), so two equal areas are stored alike and interning compares stored forms.
//! Why: an area per DFA transition is often a handful of transitions (at one location, the
//! transitions of one letter from one subset), and bitsets made the table `areas × T` bits:
//! quadratic in the model (docs/performance.md, "Model size").
//!
//! Invariants (checked by [`AreaTable::validate`] when a model is loaded): every slot lies in
//! its pool; a sparse area is strictly increasing, below `T`, and sparse by the rule; a dense
//! area has no bit at or past `T` and is dense by the rule. Accumulators (an `Area(μi)`,
//! `Inter`) stay bitsets of `w` words: they are unions and intersections of many areas.

use crate::bits;
use serde::{Deserialize, Serialize};

/// An area is stored sparse when its transitions times this are at most its bitset's words.
pub const SPARSE_RATIO: usize = 8;

/// Id of an interned area.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct AreaId(pub u32);

impl AreaId {
    /// The id as an index.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Marks a dense slot (`len` of [`Slot`]).
const DENSE: u32 = u32::MAX;

/// Where an area lies: `start` in [`AreaTable`]'s `sparse` pool (`len` transitions), or, when
/// `len` is `DENSE`, `start` in its `dense` pool (in words). Not stored: rebuilt from the
/// lengths on loading ([`Wire`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Slot {
    start: u32,
    len: u32,
}

/// One area, as stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Area<'a> {
    /// Its transitions, strictly increasing.
    Sparse(&'a [u32]),
    /// Its bitset.
    Dense(&'a [u64]),
}

impl Area<'_> {
    /// Whether transition `t` is in the area.
    #[inline]
    pub fn contains(&self, t: usize) -> bool {
        match *self {
            Area::Sparse(ts) => u32::try_from(t).is_ok_and(|t| ts.binary_search(&t).is_ok()),
            Area::Dense(b) => t / 64 < b.len() && bits::get(b, t),
        }
    }
    /// Whether the area has no transition.
    #[inline]
    pub fn is_empty(&self) -> bool {
        match *self {
            Area::Sparse(ts) => ts.is_empty(),
            Area::Dense(b) => bits::is_empty(b),
        }
    }
    /// Number of transitions.
    pub fn len(&self) -> usize {
        match *self {
            Area::Sparse(ts) => ts.len(),
            Area::Dense(b) => b.iter().map(|w| w.count_ones() as usize).sum(),
        }
    }
    /// Its transitions, increasing.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        let (sparse, dense) = match *self {
            Area::Sparse(ts) => (ts, &[][..]),
            Area::Dense(b) => (&[][..], b),
        };
        sparse.iter().map(|&t| t as usize).chain(bits::iter(dense))
    }
    /// `acc |= self` (`acc` a bitset wide enough for every transition).
    #[inline]
    pub fn union_into(&self, acc: &mut [u64]) {
        match *self {
            Area::Sparse(ts) => {
                for &t in ts {
                    bits::set(acc, t as usize);
                }
            }
            Area::Dense(b) => bits::union_with(acc, b),
        }
    }
    /// `acc &= self` (`acc` a bitset; its bits past the area's are cleared).
    pub fn intersect_into(&self, acc: &mut [u64]) {
        match *self {
            Area::Sparse(ts) => {
                // Keep the words of `acc` the area touches, masked; clear the others.
                let mut i = 0;
                for (w, word) in acc.iter_mut().enumerate() {
                    let mut mask = 0u64;
                    while i < ts.len() && ts[i] as usize / 64 == w {
                        mask |= 1 << (ts[i] % 64);
                        i += 1;
                    }
                    *word &= mask;
                }
            }
            Area::Dense(b) => {
                bits::intersect_with(acc, b);
                let n = b.len().min(acc.len());
                acc[n..].fill(0);
            }
        }
    }
    /// Whether the two areas share a transition.
    pub fn intersects(&self, other: &Area<'_>) -> bool {
        match (*self, *other) {
            (Area::Dense(a), Area::Dense(b)) => a.iter().zip(b).any(|(x, y)| x & y != 0),
            (Area::Sparse(a), Area::Sparse(b)) => {
                let (mut i, mut j) = (0, 0);
                while i < a.len() && j < b.len() {
                    match a[i].cmp(&b[j]) {
                        std::cmp::Ordering::Less => i += 1,
                        std::cmp::Ordering::Greater => j += 1,
                        std::cmp::Ordering::Equal => return true,
                    }
                }
                false
            }
            (Area::Sparse(s), d @ Area::Dense(_)) | (d @ Area::Dense(_), Area::Sparse(s)) => {
                s.iter().any(|&t| d.contains(t as usize))
            }
        }
    }
}

/// Whether an area of `count` transitions over `words` words is stored sparse.
#[inline]
pub fn is_sparse(count: usize, words: usize) -> bool {
    count.saturating_mul(SPARSE_RATIO) <= words
}

/// Interned areas, each sparse or dense by the rule of the [module docs](self).
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(from = "Wire")]
pub struct AreaTable {
    transitions: u32,
    words: u32,
    slots: Vec<Slot>,
    sparse: Vec<u32>,
    dense: Vec<u64>,
}

impl AreaTable {
    /// An empty table for areas over `transitions` transitions.
    pub fn new(transitions: usize) -> Self {
        AreaTable {
            transitions: transitions as u32,
            words: transitions.div_ceil(64).max(1) as u32,
            ..AreaTable::default()
        }
    }
    /// Words of a bitset over the transitions (the width of accumulators).
    #[inline]
    pub fn words(&self) -> usize {
        self.words as usize
    }
    /// Number of areas.
    pub fn len(&self) -> usize {
        self.slots.len()
    }
    /// Whether the table is empty.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }
    /// Bytes the table holds (slots and both pools): what the compiler's area cap bounds.
    pub fn bytes(&self) -> usize {
        self.slots.len() * std::mem::size_of::<Slot>()
            + self.sparse.len() * 4
            + self.dense.len() * 8
    }
    /// Bytes that adding an area of `count` transitions would add.
    pub fn bytes_of(&self, count: usize) -> usize {
        std::mem::size_of::<Slot>()
            + if is_sparse(count, self.words()) {
                count * 4
            } else {
                self.words() * 8
            }
    }
    /// Number of areas stored sparse.
    pub fn sparse_count(&self) -> usize {
        self.slots.iter().filter(|s| s.len != DENSE).count()
    }
    /// An area.
    #[inline]
    pub fn get(&self, a: AreaId) -> Area<'_> {
        let Slot { start, len } = self.slots[a.index()];
        let start = start as usize;
        if len == DENSE {
            Area::Dense(&self.dense[start..start + self.words()])
        } else {
            Area::Sparse(&self.sparse[start..start + len as usize])
        }
    }
    /// `acc |= area a` (`acc` of [`words`](Self::words) words).
    #[inline]
    pub fn union_into(&self, a: AreaId, acc: &mut [u64]) {
        self.get(a).union_into(acc)
    }
    /// Appends an area given by its transitions, strictly increasing and below the table's
    /// transitions (the caller interns); returns its id.
    pub fn push(&mut self, transitions: &[u32]) -> AreaId {
        debug_assert!(transitions.windows(2).all(|p| p[0] < p[1]));
        debug_assert!(transitions.iter().all(|&t| t < self.transitions));
        let id = AreaId(self.len() as u32);
        if is_sparse(transitions.len(), self.words()) {
            self.slots.push(Slot {
                start: self.sparse.len() as u32,
                len: transitions.len() as u32,
            });
            self.sparse.extend_from_slice(transitions);
        } else {
            let start = self.dense.len();
            self.slots.push(Slot {
                start: start as u32,
                len: DENSE,
            });
            self.dense.resize(start + self.words(), 0);
            for &t in transitions {
                bits::set(&mut self.dense[start..], t as usize);
            }
        }
        id
    }
    /// Appends an area given as a bitset of [`words`](Self::words) words.
    pub fn push_bits(&mut self, b: &[u64]) -> AreaId {
        let ts: Vec<u32> = bits::iter(b).map(|t| t as u32).collect();
        self.push(&ts)
    }
    /// Whether area `a` is exactly `transitions` (strictly increasing).
    pub fn equals(&self, a: AreaId, transitions: &[u32]) -> bool {
        match self.get(a) {
            Area::Sparse(ts) => ts == transitions,
            area @ Area::Dense(_) => {
                !is_sparse(transitions.len(), self.words())
                    && area.len() == transitions.len()
                    && transitions.iter().all(|&t| area.contains(t as usize))
            }
        }
    }
    /// Checks the table's shape against the NFA's `transitions`.
    pub fn validate(&self, transitions: usize) -> Result<(), AreaError> {
        let words = self.words();
        if self.transitions as usize != transitions || words != transitions.div_ceil(64).max(1) {
            return Err(AreaError::Width);
        }
        let (mut sparse_end, mut dense_end) = (0usize, 0usize);
        for &Slot { start, len } in &self.slots {
            let start = start as usize;
            if len == DENSE {
                let b = start
                    .checked_add(words)
                    .and_then(|end| self.dense.get(start..end))
                    .ok_or(AreaError::Width)?;
                if bits::iter(b).any(|t| t >= transitions) {
                    return Err(AreaError::Transition);
                }
                if is_sparse(Area::Dense(b).len(), words) {
                    return Err(AreaError::Form);
                }
                dense_end = dense_end.max(start + words);
            } else {
                let ts = start
                    .checked_add(len as usize)
                    .and_then(|end| self.sparse.get(start..end))
                    .ok_or(AreaError::Width)?;
                if ts.iter().any(|&t| t as usize >= transitions) {
                    return Err(AreaError::Transition);
                }
                if !ts.windows(2).all(|p| p[0] < p[1]) || !is_sparse(ts.len(), words) {
                    return Err(AreaError::Form);
                }
                sparse_end = sparse_end.max(start + ts.len());
            }
        }
        // Nothing stored that no area uses.
        if sparse_end != self.sparse.len() || dense_end != self.dense.len() {
            return Err(AreaError::Form);
        }
        Ok(())
    }
}

/// An inconsistent area table (found by [`AreaTable::validate`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AreaError {
    /// The table's width does not fit the NFA's transitions, or an area lies past its pool.
    Width,
    /// An area holds a transition past the NFA's last one.
    Transition,
    /// An area is not in the form the density rule gives it (sparse lists strictly
    /// increasing), or the pools hold more than the areas.
    Form,
}

/// The stored form of an [`AreaTable`]: per area one number, `0` for a dense area and `c + 1`
/// for a sparse one of `c` transitions (one byte each in bincode's variable-length integers
/// for the small areas that dominate), then the two pools in area order; the slots' starts
/// are the running sums, recomputed on loading.
#[derive(Serialize, Deserialize)]
struct Wire {
    transitions: u32,
    words: u32,
    kinds: Vec<u32>,
    sparse: Vec<u32>,
    dense: Vec<u64>,
}

/// The borrowed [`Wire`] written by [`AreaTable`]'s `Serialize` (no copy of the pools).
#[derive(Serialize)]
struct WireRef<'a> {
    transitions: u32,
    words: u32,
    kinds: Kinds<'a>,
    sparse: &'a [u32],
    dense: &'a [u64],
}

/// The kinds of [`Wire`], from the slots.
struct Kinds<'a>(&'a [Slot]);

impl Serialize for Kinds<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(
            self.0
                .iter()
                .map(|slot| if slot.len == DENSE { 0 } else { slot.len + 1 }),
        )
    }
}

impl Serialize for AreaTable {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        WireRef {
            transitions: self.transitions,
            words: self.words,
            kinds: Kinds(&self.slots),
            sparse: &self.sparse,
            dense: &self.dense,
        }
        .serialize(s)
    }
}

impl From<Wire> for AreaTable {
    /// The starts are running sums, saturating: a sum past `u32` gives a start past both pools, which
    /// [`AreaTable::validate`] refuses.
    fn from(w: Wire) -> Self {
        let (mut sparse_at, mut dense_at) = (0u32, 0u32);
        let slots = w
            .kinds
            .iter()
            .map(|&k| {
                if k == 0 {
                    let start = dense_at;
                    dense_at = dense_at.saturating_add(w.words);
                    Slot { start, len: DENSE }
                } else {
                    let start = sparse_at;
                    sparse_at = sparse_at.saturating_add(k - 1);
                    Slot { start, len: k - 1 }
                }
            })
            .collect();
        AreaTable {
            transitions: w.transitions,
            words: w.words,
            slots,
            sparse: w.sparse,
            dense: w.dense,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    /// The same set in both forms (bypassing the rule), over `n` transitions.
    fn both(set: &BTreeSet<u32>, n: usize) -> (Vec<u32>, Vec<u64>) {
        let mut b = vec![0u64; n.div_ceil(64).max(1)];
        for &t in set {
            bits::set(&mut b, t as usize);
        }
        (set.iter().copied().collect(), b)
    }

    fn sets(n: usize) -> impl Strategy<Value = BTreeSet<u32>> {
        // Sizes from empty to full, so that both sides of the rule are drawn.
        prop_oneof![
            proptest::collection::btree_set(0..n as u32, 0..4),
            proptest::collection::btree_set(0..n as u32, 0..n + 1),
        ]
    }

    proptest! {
        /// Sparse and dense answer every operation alike, and as a brute-force set does.
        #[test]
        fn sparse_and_dense_agree_with_a_set(
            (n, a, b, acc) in (1usize..300).prop_flat_map(|n| (Just(n), sets(n), sets(n), sets(n)))
        ) {
            let (sa, da) = both(&a, n);
            let (sb, db) = both(&b, n);
            let forms_a = [Area::Sparse(&sa), Area::Dense(&da)];
            let forms_b = [Area::Sparse(&sb), Area::Dense(&db)];
            let (_, acc_bits) = both(&acc, n);
            for x in forms_a {
                prop_assert_eq!(x.is_empty(), a.is_empty());
                prop_assert_eq!(x.len(), a.len());
                prop_assert_eq!(x.iter().collect::<Vec<_>>(), a.iter().map(|&t| t as usize).collect::<Vec<_>>());
                for t in 0..n + 70 {
                    prop_assert_eq!(x.contains(t), a.contains(&(t as u32)));
                }
                let mut u = acc_bits.clone();
                x.union_into(&mut u);
                let want: BTreeSet<usize> = a.union(&acc).map(|&t| t as usize).collect();
                prop_assert_eq!(bits::iter(&u).collect::<BTreeSet<_>>(), want);
                let mut i = acc_bits.clone();
                x.intersect_into(&mut i);
                let want: BTreeSet<usize> = a.intersection(&acc).map(|&t| t as usize).collect();
                prop_assert_eq!(bits::iter(&i).collect::<BTreeSet<_>>(), want);
                for y in forms_b {
                    prop_assert_eq!(x.intersects(&y), !a.is_disjoint(&b));
                }
            }
            // Through a table: the rule picks one form, the answers do not change.
            let mut table = AreaTable::new(n);
            let ia = table.push(&sa);
            let ib = table.push(&sb);
            prop_assert!(table.validate(n).is_ok());
            prop_assert_eq!(matches!(table.get(ia), Area::Sparse(_)), is_sparse(a.len(), table.words()));
            prop_assert!(table.equals(ia, &sa) && table.equals(ib, &sb));
            prop_assert_eq!(table.equals(ia, &sb), a == b);
            prop_assert_eq!(table.get(ia).iter().collect::<Vec<_>>(), forms_a[1].iter().collect::<Vec<_>>());
            prop_assert_eq!(table.get(ia).intersects(&table.get(ib)), !a.is_disjoint(&b));
            prop_assert_eq!(table.bytes(), table.bytes_of(a.len()) + table.bytes_of(b.len()));
            // The stored form round-trips (the starts are recomputed).
            let config = bincode::config::standard();
            let bytes = bincode::serde::encode_to_vec(&table, config).unwrap();
            let (back, _): (AreaTable, usize) = bincode::serde::decode_from_slice(&bytes, config).unwrap();
            prop_assert_eq!(back, table);
        }
    }

    #[test]
    fn validate_refuses_what_the_rule_would_not_write() {
        let mut t = AreaTable::new(1000); // 16 words: sparse up to 2 transitions
        t.push(&[3, 999]);
        t.push(&[1, 2, 3]);
        assert!(t.validate(1000).is_ok());
        assert_eq!(t.sparse_count(), 1);
        let mut bad = t.clone();
        bad.sparse[1] = 3; // not increasing
        assert_eq!(bad.validate(1000), Err(crate::project::AreaError::Form));
        let mut bad = t.clone();
        bad.sparse[1] = 1000; // past the last transition
        assert_eq!(
            bad.validate(1000),
            Err(crate::project::AreaError::Transition)
        );
        let mut bad = t.clone();
        bad.slots[0].len = 3; // past the pool
        assert_eq!(bad.validate(1000), Err(crate::project::AreaError::Width));
        let mut bad = t.clone();
        bad.dense[0] = 1; // a dense area of one transition: the rule says sparse
        assert_eq!(bad.validate(1000), Err(crate::project::AreaError::Form));
        assert_eq!(t.validate(999), Err(crate::project::AreaError::Width));
    }
}
