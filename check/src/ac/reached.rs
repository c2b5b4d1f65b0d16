//! The position vectors reached by one search, each with the set of `A`'s states expanded
//! there, in memory proportional to what was reached rather than to `A`.
//!
//! An open-addressing table (linear probing, multiplicative hashing, at most half full) maps a
//! vector to its entry number; entries are numbered in order of arrival, and `used[e]` is the
//! slot of entry `e`, so that clearing the table costs what the last search used and growing
//! it moves only keys, never sets.
//!
//! The sets of an automaton of at most [`DENSE_MAX_WORDS`] words per set are kept in one
//! arena, `w` words per entry (no per-vector allocation: the hot path of small models). Larger
//! automata keep each entry's set as a sorted list of states until the list would outweigh the
//! bitset (`4 × len ≥ 8 × w` bytes), then as a bitset: a vector where the search holds one
//! state of a 177,147-state automaton (seed 004's `par` shapes) costs a few bytes instead of
//! 22 KB.
//!
//! Every allocation that grows with the search is counted by [`Reached::bytes`]; the table
//! refuses to grow past the memory budget ([`Reached::entry`] returns `None`), and a set grows
//! by at most one bitset (`8 × w` bytes) between two checks of the search.

use multitrace_model::budget::Budget;

/// Marks an empty slot (never a position vector, see [`super::vectors::Radix`]).
const EMPTY: u64 = u64::MAX;

/// Largest words per set kept in the dense arena.
pub(super) const DENSE_MAX_WORDS: usize = 16;

/// One entry's set, for automata of more than [`DENSE_MAX_WORDS`] words per set.
enum Sparse {
    /// Sorted, no duplicates.
    List(Vec<u32>),
    /// `w` words.
    Bits(Box<[u64]>),
}

/// See the module documentation.
#[derive(Default)]
pub(super) struct Reached {
    keys: Vec<u64>,
    /// Per slot, its entry number (meaningful for used slots only).
    index: Vec<u32>,
    /// Per entry, its slot.
    used: Vec<usize>,
    /// `w` words per entry, when `w <= DENSE_MAX_WORDS`.
    dense: Vec<u64>,
    /// One set per entry, when `w > DENSE_MAX_WORDS`.
    sparse: Vec<Sparse>,
    /// Bytes of the buffers owned by `sparse`'s sets.
    heap: u64,
    /// States new at an entry, while it is merged.
    added: Vec<u32>,
    shift: u32,
    w: usize,
}

impl Reached {
    const FIRST_BITS: u32 = 10;

    /// Empties the table for sets of `w` words (keeping its slots when `w` is unchanged).
    pub(super) fn reset(&mut self, w: usize) {
        if self.w != w || self.keys.is_empty() {
            let cap = 1usize << Self::FIRST_BITS;
            *self = Reached {
                keys: vec![EMPTY; cap],
                index: vec![0; cap],
                shift: 64 - Self::FIRST_BITS,
                w,
                ..Reached::default()
            };
            return;
        }
        for &i in &self.used {
            self.keys[i] = EMPTY;
        }
        self.used.clear();
        self.dense.clear();
        self.sparse.clear();
        self.heap = 0;
    }

    /// Bytes held by the table and its sets.
    pub(super) fn bytes(&self) -> u64 {
        (self.keys.capacity() * 8
            + self.index.capacity() * 4
            + self.used.capacity() * 8
            + self.dense.capacity() * 8
            + self.sparse.capacity() * std::mem::size_of::<Sparse>()
            + self.added.capacity() * 4) as u64
            + self.heap
    }

    #[inline]
    fn home(&self, key: u64) -> usize {
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    /// The entry of `key`, if reached.
    pub(super) fn find(&self, key: u64) -> Option<usize> {
        let mask = self.keys.len() - 1;
        let mut i = self.home(key);
        loop {
            match self.keys[i] {
                k if k == key => return Some(self.index[i] as usize),
                EMPTY => return None,
                _ => i = (i + 1) & mask,
            }
        }
    }

    /// The entry of `key`, created with an empty set if new; `None` when growing the table
    /// would exceed `budget`'s memory, or the sets already do.
    #[inline]
    pub(super) fn entry(&mut self, key: u64, budget: &Budget) -> Option<usize> {
        if !budget.memory_allows(self.bytes()) {
            return None;
        }
        if (self.used.len() + 1) * 2 > self.keys.len() {
            self.grow(budget)?;
        }
        if self.used.len() == self.used.capacity() {
            self.reserve(budget)?;
        }
        let mask = self.keys.len() - 1;
        let mut i = self.home(key);
        loop {
            match self.keys[i] {
                k if k == key => return Some(self.index[i] as usize),
                EMPTY => {
                    let e = self.used.len();
                    self.keys[i] = key;
                    self.index[i] = e as u32;
                    self.used.push(i);
                    if self.w <= DENSE_MAX_WORDS {
                        self.dense.resize(self.dense.len() + self.w, 0);
                    } else {
                        self.sparse.push(Sparse::List(Vec::new()));
                    }
                    return Some(e);
                }
                _ => i = (i + 1) & mask,
            }
        }
    }

    /// Doubles the entry arrays (`used` and the sets), if the budget allows both copies.
    #[cold]
    fn reserve(&mut self, budget: &Budget) -> Option<()> {
        let more = self.used.capacity().max(64);
        let per_entry = 8 + if self.w <= DENSE_MAX_WORDS {
            8 * self.w
        } else {
            std::mem::size_of::<Sparse>()
        };
        // Old and new buffers coexist while one is copied into the other.
        let peak = self.bytes() + (2 * more * per_entry) as u64;
        if !budget.memory_allows(peak) {
            return None;
        }
        self.used.reserve_exact(more);
        if self.w <= DENSE_MAX_WORDS {
            self.dense.reserve_exact(more * self.w);
        } else {
            self.sparse.reserve_exact(more);
        }
        Some(())
    }

    /// Doubles the slots (moving keys and entry numbers only), if the budget allows.
    #[cold]
    fn grow(&mut self, budget: &Budget) -> Option<()> {
        let cap = self.keys.len() * 2;
        if !budget.memory_allows(self.bytes() + (cap * 12) as u64) {
            return None;
        }
        let keys = std::mem::replace(&mut self.keys, vec![EMPTY; cap]);
        let index = std::mem::replace(&mut self.index, vec![0; cap]);
        self.shift -= 1;
        let mask = cap - 1;
        for slot in self.used.iter_mut() {
            let key = keys[*slot];
            let mut i = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize;
            while self.keys[i] != EMPTY {
                i = (i + 1) & mask;
            }
            self.keys[i] = key;
            self.index[i] = index[*slot];
            *slot = i;
        }
        Some(())
    }

    /// Keeps in `fresh` (`W` words; `0`: the table's `w`) only the states not yet known at
    /// entry `e`, and adds them to it; `true` when some are new.
    #[inline]
    pub(super) fn merge<const W: usize>(&mut self, e: usize, fresh: &mut [u64]) -> bool {
        let w = if W == 0 { self.w } else { W };
        if w <= DENSE_MAX_WORDS {
            return merge_bits::<W>(&mut self.dense[e * w..(e + 1) * w], &mut fresh[..w]);
        }
        let added = &mut self.added;
        let list = match &mut self.sparse[e] {
            Sparse::Bits(known) => return merge_bits::<0>(known, &mut fresh[..w]),
            Sparse::List(list) => list,
        };
        added.clear();
        let mut at = 0;
        for (k, word) in fresh[..w].iter_mut().enumerate() {
            let mut b = *word;
            let mut keep = 0u64;
            while b != 0 {
                let t = b.trailing_zeros();
                let s = (k * 64) as u32 + t;
                while at < list.len() && list[at] < s {
                    at += 1;
                }
                if at == list.len() || list[at] != s {
                    keep |= 1 << t;
                    added.push(s);
                }
                b &= b - 1;
            }
            *word = keep;
        }
        if added.is_empty() {
            return false;
        }
        let before = (list.capacity() * 4) as u64;
        let len = list.len() + added.len();
        if len * 4 >= w * 8 {
            let mut bits = vec![0u64; w].into_boxed_slice();
            for &s in list.iter().chain(added.iter()) {
                bits[s as usize / 64] |= 1 << (s % 64);
            }
            self.heap = self.heap - before + (w * 8) as u64;
            self.sparse[e] = Sparse::Bits(bits);
            return true;
        }
        // Merge the two sorted lists from the back, in place.
        let (mut i, mut j) = (list.len(), added.len());
        list.resize(len, 0);
        for out in (0..len).rev() {
            if j == 0 || (i > 0 && list[i - 1] > added[j - 1]) {
                i -= 1;
                list[out] = list[i];
            } else {
                j -= 1;
                list[out] = added[j];
            }
        }
        self.heap = self.heap - before + (list.capacity() * 4) as u64;
        true
    }

    /// The states known at entry `e`, in increasing order.
    pub(super) fn states(&self, e: usize) -> Vec<usize> {
        let w = self.w;
        if w <= DENSE_MAX_WORDS {
            return multitrace_model::bits::iter(&self.dense[e * w..(e + 1) * w]).collect();
        }
        match &self.sparse[e] {
            Sparse::Bits(b) => multitrace_model::bits::iter(b).collect(),
            Sparse::List(l) => l.iter().map(|&s| s as usize).collect(),
        }
    }

    /// Entries reached.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.used.len()
    }
}

/// `fresh &= !known; known |= fresh` over `W` words (`0`: their length); `true` when some
/// state is new.
#[inline(always)]
fn merge_bits<const W: usize>(known: &mut [u64], fresh: &mut [u64]) -> bool {
    let w = if W == 0 { known.len() } else { W };
    let mut any = 0u64;
    for k in 0..w {
        let f = fresh[k] & !known[k];
        known[k] |= f;
        fresh[k] = f;
        any |= f;
    }
    any != 0
}
