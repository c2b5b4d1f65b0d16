//! The one seeded pseudo-random generator of the workspace: splitmix64 (Steele, Lea and Flood,
//! *Fast splittable pseudorandom number generators*, OOPSLA 2014).
//!
//! Every user draws from [`Rng`]: `gen` (the multitraces of a category), `--random-locations`
//! (a random partition), and the randomized tests and benchmarks. It lives in the runtime, the
//! lowest crate whose code (its tests) needs one.
//!
//! Invariants:
//!
//! - **Reproducible**: the stream is a pure function of the seed, the same on every platform
//!   and version. `gen` files and `--random-locations` partitions are byte-identical for the
//!   same seed, so the algorithm, [`Rng::below`]'s multiply-shift and [`Rng::shuffle`]'s order
//!   of draws must not change (the reference values in the tests pin them).
//! - **Any seed**: every `u64` (0 included) seeds a full-period stream (period `2^64`).
//! - **Not cryptographic**: the draws are predictable from the seed; they serve test inputs
//!   and benchmark sets, never secrets.

/// A splitmix64 generator.
///
/// ```
/// use multitrace_model::rng::Rng;
///
/// let mut rng = Rng::new(7);
/// let die = rng.between(1, 6);
/// assert!((1..=6).contains(&die));
/// // The same seed gives the same stream.
/// assert_eq!(Rng::new(7).between(1, 6), die);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed`.
    pub const fn new(seed: u64) -> Self {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n`, by multiply-shift (one draw; the bias is at most `n / 2^64`).
    ///
    /// `n` must be positive: `below(0)` is 0 (and a panic in debug builds).
    pub fn below(&mut self, n: usize) -> usize {
        debug_assert!(n > 0, "Rng::below(0)");
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// A number in `lo..=hi` (`lo <= hi`; one draw).
    pub fn between(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// A uniformly chosen element (one draw), `None` (and no draw) for an empty slice.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        if items.is_empty() {
            None
        } else {
            Some(&items[self.below(items.len())])
        }
    }

    /// Shuffles `items` uniformly (Fisher-Yates from the end: for `i` from `len - 1` down to 1,
    /// swap `i` with `below(i + 1)`; `len - 1` draws).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::{any, prop_assert, prop_assert_eq, proptest};

    #[test]
    fn splitmix64_reference_values() {
        // The published splitmix64 stream from seed 0.
        let mut r = Rng::new(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(r.next_u64(), 0x06C4_5D18_8009_454F);
    }

    #[test]
    fn derived_draws_are_pinned() {
        // `gen` and `--random-locations` depend on these exact values (checked against an
        // independent implementation): changing `below`, `between`, `pick` or `shuffle`
        // changes every generated set.
        let mut r = Rng::new(42);
        let below: Vec<usize> = (1..=8).map(|n| r.below(n)).collect();
        assert_eq!(below, [0, 0, 0, 1, 0, 5, 1, 6]);
        let mut r = Rng::new(42);
        let mut v: Vec<u32> = (0..8).collect();
        r.shuffle(&mut v);
        assert_eq!(v, [4, 3, 2, 0, 7, 6, 1, 5]);
        let mut r = Rng::new(3);
        assert_eq!(r.between(10, 20), 11);
        assert_eq!(r.pick(&["a", "b", "c"]), Some(&"c"));
        let before = r.clone();
        assert_eq!(r.pick::<u8>(&[]), None);
        assert_eq!(r, before, "an empty pick draws nothing");
    }

    proptest! {
        #[test]
        fn draws_stay_in_range(seed in any::<u64>(), n in 1usize..10_000, lo in 0usize..100) {
            let mut r = Rng::new(seed);
            prop_assert!(r.below(n) < n);
            let x = r.between(lo, lo + n);
            prop_assert!((lo..=lo + n).contains(&x));
            let items: Vec<usize> = (0..n.min(50)).collect();
            let picked = *r.pick(&items).unwrap();
            prop_assert!(picked < items.len());
        }

        #[test]
        fn shuffles_are_permutations_and_reproducible(seed in any::<u64>(), n in 0usize..64) {
            let mut a: Vec<usize> = (0..n).collect();
            Rng::new(seed).shuffle(&mut a);
            let mut b: Vec<usize> = (0..n).collect();
            Rng::new(seed).shuffle(&mut b);
            prop_assert_eq!(&a, &b);
            a.sort_unstable();
            prop_assert_eq!(a, (0..n).collect::<Vec<_>>());
        }
    }

    #[test]
    fn below_is_roughly_uniform() {
        let mut r = Rng::new(1);
        let mut counts = [0u32; 6];
        for _ in 0..60_000 {
            counts[r.below(6)] += 1;
        }
        // Expected 10,000 each; 5 standard deviations is about 460.
        assert!(
            counts.iter().all(|&c| (9_500..10_500).contains(&c)),
            "{counts:?}"
        );
    }
}
