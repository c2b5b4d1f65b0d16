//! Position vectors packed in one `u64`, and the open-addressing table of the vectors reached.

#![allow(clippy::needless_range_loop)]

use super::*;

/// Position vectors as one `u64`: location `j`'s position in a bit field of its own
/// (`pos_j << shift_j`), wide enough for its trace length, so that moving on is an addition
/// and reading a position a shift and a mask (no division in the hot loop). The fields use at
/// most 63 bits, so `u64::MAX` is never a vector (it marks empty slots of [`Reached`]).
#[derive(Default)]
pub(super) struct Radix {
    pub(super) strides: Vec<u64>,
    pub(super) shifts: Vec<u32>,
    pub(super) masks: Vec<u64>,
    pub(super) lens: Vec<u64>,
}

impl Radix {
    /// Lays out the fields for `traces` (reusing the buffers); `false` when they do not fit in
    /// 63 bits.
    pub(super) fn fill(&mut self, traces: &[Vec<LetterId>]) -> bool {
        self.strides.clear();
        self.shifts.clear();
        self.masks.clear();
        self.lens.clear();
        let mut shift = 0u32;
        for t in traces {
            let width = 64 - (t.len() as u64).leading_zeros();
            if shift + width > 63 {
                return false;
            }
            self.strides
                .push(if width == 0 { 0 } else { 1u64 << shift });
            self.shifts.push(shift);
            self.masks
                .push(if width == 0 { 0 } else { (1u64 << width) - 1 });
            self.lens.push(t.len() as u64);
            shift += width;
        }
        true
    }
    #[inline]
    pub(super) fn pos(&self, key: u64, j: usize) -> u64 {
        (key >> self.shifts[j]) & self.masks[j]
    }
}

/// Marks an empty slot of [`Reached`] (never a position vector, see [`Radix`]).
pub(super) const EMPTY: u64 = u64::MAX;

/// Every position vector reached, with the set of `A`'s states expanded there: an
/// open-addressing table (linear probing, multiplicative hashing, at most half full) whose
/// used slots are listed, so that clearing it costs what the last search used.
#[derive(Default)]
pub(super) struct Reached {
    pub(super) keys: Vec<u64>,
    /// `w` words per slot.
    pub(super) sets: Vec<u64>,
    pub(super) used: Vec<usize>,
    pub(super) shift: u32,
    pub(super) w: usize,
}

impl Reached {
    const FIRST_BITS: u32 = 10;

    pub(super) fn reset(&mut self, w: usize) {
        if self.w != w || self.keys.is_empty() {
            let cap = 1usize << Self::FIRST_BITS;
            self.keys = vec![EMPTY; cap];
            self.sets = vec![0; cap * w];
            self.used.clear();
            self.shift = 64 - Self::FIRST_BITS;
            self.w = w;
            return;
        }
        for &i in &self.used {
            self.keys[i] = EMPTY;
            self.sets[i * w..(i + 1) * w].fill(0);
        }
        self.used.clear();
    }

    #[inline]
    pub(super) fn home(&self, key: u64) -> usize {
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    pub(super) fn find(&self, key: u64) -> Option<usize> {
        let mask = self.keys.len() - 1;
        let mut i = self.home(key);
        loop {
            match self.keys[i] {
                k if k == key => return Some(i),
                EMPTY => return None,
                _ => i = (i + 1) & mask,
            }
        }
    }

    /// The slot of `key`, created with an empty set if new.
    #[inline]
    pub(super) fn slot(&mut self, key: u64, w: usize) -> usize {
        if (self.used.len() + 1) * 2 > self.keys.len() {
            self.grow(w);
        }
        let mask = self.keys.len() - 1;
        let mut i = self.home(key);
        loop {
            match self.keys[i] {
                k if k == key => return i,
                EMPTY => {
                    self.keys[i] = key;
                    self.used.push(i);
                    return i;
                }
                _ => i = (i + 1) & mask,
            }
        }
    }

    #[cold]
    pub(super) fn grow(&mut self, w: usize) {
        let cap = self.keys.len() * 2;
        let keys = std::mem::replace(&mut self.keys, vec![EMPTY; cap]);
        let sets = std::mem::replace(&mut self.sets, vec![0; cap * w]);
        let used = std::mem::take(&mut self.used);
        self.shift -= 1;
        for old in used {
            let i = self.slot(keys[old], w);
            self.sets[i * w..(i + 1) * w].copy_from_slice(&sets[old * w..(old + 1) * w]);
        }
    }

    pub(super) fn set(&self, slot: usize, w: usize) -> &[u64] {
        &self.sets[slot * w..(slot + 1) * w]
    }
}
