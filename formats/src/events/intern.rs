//! Ids of byte strings (run ids, actions), found once per event without allocating and, for
//! strings of up to 16 bytes (nearly all run ids and actions), without comparing bytes: such
//! a string is packed into two words with its length, and the open-addressing table compares
//! the words. Longer strings are kept in a hash map.

use rustc_hash::FxHashMap;

/// Strings of at most this many bytes are packed.
pub const PACKED: usize = 16;

/// One slot of the table: the packed string, its length and its id plus one (0: empty).
#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    words: [u64; 2],
    len: u32,
    id: u32,
}

/// A string of at most [`PACKED`] bytes as two little-endian words (zero beyond its end),
/// read a word (or half a word) at a time, the last read overlapping the one before.
#[inline]
pub fn pack(s: &[u8]) -> [u64; 2] {
    let n = s.len();
    let word = |at: usize| u64::from_le_bytes(s[at..at + 8].try_into().expect("8 bytes"));
    let half = |at: usize| {
        u64::from(u32::from_le_bytes(
            s[at..at + 4].try_into().expect("4 bytes"),
        ))
    };
    match n {
        // The last 8 bytes, shifted to drop those the first word holds.
        9..=16 => [word(0), word(n - 8) >> (8 * (16 - n))],
        8 => [word(0), 0],
        4..=7 => [half(0) | ((half(n - 4) >> (8 * (8 - n))) << 32), 0],
        _ => {
            let mut w = 0u64;
            for (i, &b) in s.iter().enumerate() {
                w |= u64::from(b) << (8 * i);
            }
            [w, 0]
        }
    }
}

/// Whether `a` and `b` are the same bytes, compared eight at a time inline (the last word
/// overlapping the one before): for the short texts compared once per event (a file's name),
/// a call to `memcmp` cost more than the comparison.
#[inline(always)]
pub fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let word = |s: &[u8], at: usize| u64::from_le_bytes(s[at..at + 8].try_into().expect("8 bytes"));
    let half = |s: &[u8], at: usize| u32::from_le_bytes(s[at..at + 4].try_into().expect("4 bytes"));
    match n {
        0..=3 => a.iter().zip(b).all(|(x, y)| x == y),
        4..=8 => half(a, 0) == half(b, 0) && half(a, n - 4) == half(b, n - 4),
        9..=16 => word(a, 0) == word(b, 0) && word(a, n - 8) == word(b, n - 8),
        _ => {
            let mut at = 0;
            while at + 8 < n {
                if word(a, at) != word(b, at) {
                    return false;
                }
                at += 8;
            }
            word(a, n - 8) == word(b, n - 8)
        }
    }
}

#[inline]
fn hash(w: [u64; 2], len: usize) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let h = (w[0] ^ (len as u64).rotate_left(56)).wrapping_mul(K);
    (h.rotate_left(23) ^ w[1]).wrapping_mul(K)
}

/// A map from byte strings to ids (`u32`), given by the caller when a string is added.
#[derive(Clone, Debug, Default)]
pub struct ByteIds {
    slots: Vec<Slot>,
    /// Packed strings in the table.
    packed: usize,
    long: FxHashMap<Box<[u8]>, u32>,
}

impl ByteIds {
    /// The id of `s`, if it was added.
    #[inline]
    pub fn get(&self, s: &[u8]) -> Option<u32> {
        if s.len() > PACKED {
            return self.long.get(s).copied();
        }
        self.get_packed(pack(s), s.len())
    }

    /// The id of the string of 1 to 8 bytes, none of them NUL, whose bytes are those of `w`
    /// from the lowest (the rest zero): a scanner packs a short name while it reads it.
    #[inline]
    pub fn get_word(&self, w: u64) -> Option<u32> {
        let len = 8 - (w.leading_zeros() / 8) as usize;
        self.get_packed([w, 0], len)
    }

    #[inline]
    fn get_packed(&self, w: [u64; 2], len: usize) -> Option<u32> {
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut i = (hash(w, len) >> 32) as usize & mask;
        loop {
            let slot = &self.slots[i];
            if slot.id == 0 {
                return None;
            }
            if slot.words == w && slot.len as usize == len {
                return Some(slot.id - 1);
            }
            i = (i + 1) & mask;
        }
    }

    /// Adds `s` (not added before) with `id`.
    pub fn insert(&mut self, s: &[u8], id: u32) {
        if s.len() > PACKED {
            self.long.insert(s.into(), id);
            return;
        }
        if (self.packed + 1) * 2 > self.slots.len() {
            self.grow();
        }
        self.packed += 1;
        self.place(Slot {
            words: pack(s),
            len: s.len() as u32,
            id: id + 1,
        });
    }

    fn place(&mut self, slot: Slot) {
        let mask = self.slots.len() - 1;
        let mut i = (hash(slot.words, slot.len as usize) >> 32) as usize & mask;
        while self.slots[i].id != 0 {
            i = (i + 1) & mask;
        }
        self.slots[i] = slot;
    }

    fn grow(&mut self) {
        let size = (self.slots.len() * 2).max(64);
        let old = std::mem::replace(&mut self.slots, vec![Slot::default(); size]);
        for s in old.into_iter().filter(|s| s.id != 0) {
            self.place(s);
        }
    }

    /// Forgets every string (the table keeps its size).
    pub fn clear(&mut self) {
        self.slots.iter_mut().for_each(|s| *s = Slot::default());
        self.packed = 0;
        self.long.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn packing_reads_every_byte_once_in_place() {
        for n in 0..=PACKED {
            let s: Vec<u8> = (1..=n as u8).collect();
            let mut want = [0u64; 2];
            for (i, &b) in s.iter().enumerate() {
                want[i / 8] |= u64::from(b) << (8 * (i % 8));
            }
            assert_eq!(pack(&s), want, "{n} bytes");
        }
    }

    proptest::proptest! {
        /// Word by word, two byte strings of every length are equal exactly when they are.
        #[test]
        fn same_bytes_is_equality(
            a in proptest::collection::vec(proptest::sample::select(vec![0u8, b'a', b'b', 0xff]), 0..40),
            flip in proptest::option::of(0usize..40),
            cut in proptest::option::of(0usize..40),
        ) {
            let mut b = a.clone();
            if let Some(i) = flip.filter(|&i| i < b.len()) {
                b[i] ^= 1;
            }
            if let Some(n) = cut.filter(|&n| n < b.len()) {
                b.truncate(n);
            }
            proptest::prop_assert_eq!(same_bytes(&a, &b), a == b);
            proptest::prop_assert!(same_bytes(&a, &a));
        }

        /// The ids are a hash map's, for strings of every length around the packed limit
        /// (with zero bytes, which packing pads with).
        #[test]
        fn ids_are_a_hash_maps(
            ops in proptest::collection::vec(
                proptest::collection::vec(proptest::sample::select(vec![0u8, b'a', b'b', 0xff]), 0..20),
                0..300,
            ),
            clear_at in 0usize..300,
        ) {
            let mut ids = ByteIds::default();
            let mut oracle: HashMap<Vec<u8>, u32> = HashMap::new();
            for (k, s) in ops.iter().enumerate() {
                if k == clear_at {
                    ids.clear();
                    oracle.clear();
                }
                proptest::prop_assert_eq!(ids.get(s), oracle.get(s).copied());
                if !oracle.contains_key(s) {
                    let id = oracle.len() as u32;
                    oracle.insert(s.clone(), id);
                    ids.insert(s, id);
                }
                proptest::prop_assert_eq!(ids.get(s), oracle.get(s).copied());
            }
        }
    }
}
