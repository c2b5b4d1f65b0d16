//! Copies of the few words a product handles at a time (a vertex's position, a state set).
//!
//! A slice of runtime length is copied by a call to `memmove`; for the one to four words of a
//! position or a state set on the models the monitor sees most, the call cost more than the
//! copy (before these helpers, `memmove` was 11.6 % of the MQTT monitor's time, in its 8- to
//! 15-byte path). These copy one to four elements inline and leave longer slices to
//! `memmove`.

/// `dst = src` (same lengths).
#[inline(always)]
pub(super) fn copy<T: Copy>(dst: &mut [T], src: &[T]) {
    match (dst, src) {
        ([d], [s]) => *d = *s,
        ([d0, d1], [s0, s1]) => {
            *d0 = *s0;
            *d1 = *s1;
        }
        ([d0, d1, d2], [s0, s1, s2]) => {
            *d0 = *s0;
            *d1 = *s1;
            *d2 = *s2;
        }
        ([d0, d1, d2, d3], [s0, s1, s2, s3]) => {
            *d0 = *s0;
            *d1 = *s1;
            *d2 = *s2;
            *d3 = *s3;
        }
        (d, s) => d.copy_from_slice(s),
    }
}

/// Appends `src` to `v`.
#[inline(always)]
pub(super) fn append<T: Copy>(v: &mut Vec<T>, src: &[T]) {
    if src.len() <= 4 {
        // A slice's iterator has a trusted length: one reservation, then plain writes.
        v.extend(src.iter().copied());
    } else {
        v.extend_from_slice(src);
    }
}

/// Sets every word of `s` to zero.
#[inline(always)]
pub(super) fn zero(s: &mut [u64]) {
    match s {
        [a] => *a = 0,
        [a, b] => {
            *a = 0;
            *b = 0;
        }
        s => s.fill(0),
    }
}

/// Whether a state set is empty.
pub(super) fn is_empty(s: &[u64]) -> bool {
    s.iter().all(|&x| x == 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every length, the inline ones and the longer ones, copies, appends and zeroes exactly.
    #[test]
    fn copies_append_and_zero_every_length() {
        for n in 0..10u64 {
            let src: Vec<u64> = (1..=n).map(|x| x * 7 + 1).collect();
            let mut dst = vec![0u64; n as usize];
            copy(&mut dst, &src);
            assert_eq!(dst, src);
            let mut v = vec![99u64];
            append(&mut v, &src);
            assert_eq!(v[0], 99);
            assert_eq!(&v[1..], &src[..]);
            zero(&mut dst);
            assert!(dst.iter().all(|&x| x == 0), "{n}");
        }
    }

    #[test]
    #[should_panic]
    fn copy_refuses_unequal_lengths() {
        copy(&mut [0u32; 5], &[1u32; 6]);
    }
}
