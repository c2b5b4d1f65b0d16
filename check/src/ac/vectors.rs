//! Position vectors packed in one `u64`.

#![allow(clippy::needless_range_loop)]

use multitrace_model::nfa::LetterId;

/// Position vectors as one `u64`: location `j`'s position in a bit field of its own
/// (`pos_j << shift_j`), wide enough for its trace length, so that moving on is an addition
/// and reading a position a shift and a mask (no division in the hot loop). The fields use at
/// most 63 bits, so `u64::MAX` is never a vector (it marks empty slots of [`super::reached::Reached`]).
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
