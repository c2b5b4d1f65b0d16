//! Bit sets over `u64` words: sets of NFA states and of transitions (areas). Bit `i` is bit
//! `i % 64` of word `i / 64`; callers size the slices, these helpers never allocate except
//! [`iter`]'s iterator state.

/// Sets bit `i`.
#[inline]
pub fn set(b: &mut [u64], i: usize) {
    b[i / 64] |= 1 << (i % 64);
}
/// Tests bit `i`.
#[inline]
pub fn get(b: &[u64], i: usize) -> bool {
    b[i / 64] >> (i % 64) & 1 == 1
}
/// `a |= b`.
#[inline]
pub fn union_with(a: &mut [u64], b: &[u64]) {
    for (x, y) in a.iter_mut().zip(b) {
        *x |= y;
    }
}
/// `a &= b`.
#[inline]
pub fn intersect_with(a: &mut [u64], b: &[u64]) {
    for (x, y) in a.iter_mut().zip(b) {
        *x &= y;
    }
}
/// Whether no bit is set.
#[inline]
pub fn is_empty(a: &[u64]) -> bool {
    a.iter().all(|&x| x == 0)
}
/// Indices of the set bits.
pub fn iter(a: &[u64]) -> impl Iterator<Item = usize> + '_ {
    a.iter().enumerate().flat_map(|(w, &word)| {
        let mut bits = word;
        std::iter::from_fn(move || {
            if bits == 0 {
                None
            } else {
                let i = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                Some(w * 64 + i)
            }
        })
    })
}
