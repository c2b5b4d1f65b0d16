//! The sets the subset construction builds: interned areas within a byte budget, and sets of
//! NFA states or transitions built over a scratch bitset.

use multitrace_model::project::{bits, AreaId, AreaTable};
use rustc_hash::FxHashMap;
use std::hash::{Hash, Hasher};

/// Interns areas, within a byte budget. An area is given by its transitions (strictly
/// increasing); the index maps a hash of them to the first area of that hash, and `chain`
/// links the others, so that no area is held twice (the table's stored form is compared).
pub struct AreaInterner {
    table: AreaTable,
    index: FxHashMap<u64, AreaId>,
    chain: Vec<AreaId>,
    cap_bytes: usize,
}

/// Ends a chain of [`AreaInterner`].
const NO_AREA: AreaId = AreaId(u32::MAX);

impl AreaInterner {
    /// An interner for areas over `transitions` transitions, holding at most `cap_bytes` of
    /// areas ([`AreaTable::bytes`]).
    pub fn new(transitions: usize, cap_bytes: usize) -> Self {
        AreaInterner {
            table: AreaTable::new(transitions),
            index: FxHashMap::default(),
            chain: Vec::new(),
            cap_bytes,
        }
    }
    /// The byte budget.
    pub fn cap_bytes(&self) -> usize {
        self.cap_bytes
    }
    /// The id of an area, given by its transitions in increasing order (added if new); `None`
    /// when adding it would exceed the byte budget.
    pub fn intern(&mut self, area: &[u32]) -> Option<AreaId> {
        let mut h = rustc_hash::FxHasher::default();
        area.hash(&mut h);
        let h = h.finish();
        let first = self.index.get(&h).copied();
        let mut at = first.unwrap_or(NO_AREA);
        while at != NO_AREA {
            if self.table.equals(at, area) {
                return Some(at);
            }
            at = self.chain[at.index()];
        }
        if self.table.bytes() + self.table.bytes_of(area.len()) > self.cap_bytes {
            return None;
        }
        let id = self.table.push(area);
        self.chain.push(first.unwrap_or(NO_AREA));
        self.index.insert(h, id);
        Some(id)
    }
    /// [`intern`](Self::intern) of an area given as a bitset.
    pub fn intern_bits(&mut self, area: &[u64]) -> Option<AreaId> {
        let ts: Vec<u32> = bits::iter(area).map(|t| t as u32).collect();
        self.intern(&ts)
    }
    /// The table so far.
    pub fn table(&self) -> &AreaTable {
        &self.table
    }
    /// The table.
    pub fn finish(self) -> AreaTable {
        self.table
    }
}

/// A set of NFA states (or transitions) being built: the members in the order they came, and
/// a bitset of them to test membership; [`Marked::take`] hands the members back sorted and
/// leaves it empty in time proportional to them (not to the NFA).
pub(super) struct Marked {
    pub(super) list: Vec<u32>,
    bits: Vec<u64>,
}

impl Marked {
    pub(super) fn new(n: usize) -> Self {
        Marked {
            list: Vec::new(),
            bits: vec![0; n.div_ceil(64).max(1)],
        }
    }
    /// Adds `i`; whether it was new.
    #[inline]
    pub(super) fn insert(&mut self, i: usize) -> bool {
        if bits::get(&self.bits, i) {
            return false;
        }
        bits::set(&mut self.bits, i);
        self.list.push(i as u32);
        true
    }
    /// The members, sorted; empties the set.
    pub(super) fn take(&mut self) -> Vec<u32> {
        for &i in &self.list {
            self.bits[i as usize / 64] = 0;
        }
        let mut v = std::mem::take(&mut self.list);
        v.sort_unstable();
        v
    }
}
