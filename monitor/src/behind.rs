//! The locations of the events a run's guess skipped, in the order they came (what its
//! product is fed when the guess breaks, or when the run ends).
//!
//! A run whose guess holds keeps one location per event, for the whole run: one byte each
//! while the location's number is below 255 (every model we know of has a handful), five
//! for a larger one (the byte 255, then the number's four bytes, little-endian). On
//! AutomatArk NFA12's 100,000 runs, whose guesses mostly hold, that is about 15 MB less at
//! the end of the input.
//!
//! Invariants: the bytes held are a function of the list (so a run fed its events and a run
//! read back from bytes report the same [`Behind::state_bytes`]); the serialized form is the
//! list of numbers as `u32`s, as it was before this form (bincode writes a number below 251
//! in one byte either way), so a state written then reads back unchanged.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// See the module docs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Behind(Vec<u8>);

/// The byte before a location of 255 or more.
const ESCAPE: u8 = u8::MAX;

impl Behind {
    /// Appends location `j`.
    #[inline]
    pub(super) fn push(&mut self, j: u32) {
        match u8::try_from(j) {
            Ok(b) if b != ESCAPE => self.0.push(b),
            _ => {
                self.0.push(ESCAPE);
                self.0.extend_from_slice(&j.to_le_bytes());
            }
        }
    }

    /// The locations, oldest first.
    pub(super) fn to_vec(&self) -> Vec<u32> {
        let mut out = Vec::with_capacity(self.0.len());
        let mut i = 0;
        while i < self.0.len() {
            if self.0[i] == ESCAPE {
                let b: [u8; 4] = self.0[i + 1..i + 5].try_into().expect("four bytes");
                out.push(u32::from_le_bytes(b));
                i += 5;
            } else {
                out.push(u32::from(self.0[i]));
                i += 1;
            }
        }
        out
    }

    /// Bytes of the buffer held (for the memory figures).
    pub(super) fn bytes(&self) -> usize {
        self.0.capacity()
    }

    /// Bytes by content (a record's `state_bytes`).
    pub(super) fn state_bytes(&self) -> usize {
        self.0.len()
    }
}

impl Serialize for Behind {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_vec().serialize(s)
    }
}

impl<'de> Deserialize<'de> for Behind {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut b = Behind::default();
        for j in Vec::<u32>::deserialize(d)? {
            b.push(j);
        }
        Ok(b)
    }
}

#[cfg(test)]
mod tests {
    use super::Behind;
    use multitrace_model::rng::Rng;

    /// Random lists of locations (some of 255 or more): the list gives back what was pushed,
    /// holds one byte per location below 255 and five per other, and its serialized bytes
    /// are those of the same numbers as a `Vec<u32>`, read back equal.
    #[test]
    fn behind_is_a_list_of_locations() {
        let mut rng = Rng::new(11);
        for case in 0..300 {
            let n = rng.below(40);
            let list: Vec<u32> = (0..n)
                .map(|_| match case % 3 {
                    0 => rng.below(3) as u32,
                    1 => rng.below(256) as u32,
                    _ => [7, 254, 255, 256, 300, 70_000, u32::MAX][rng.below(7)],
                })
                .collect();
            let mut b = Behind::default();
            for &j in &list {
                b.push(j);
            }
            assert_eq!(b.to_vec(), list);
            let wide = list.iter().filter(|&&j| j >= 255).count();
            assert_eq!(b.state_bytes(), n + 4 * wide, "{list:?}");
            let config = bincode::config::standard();
            let bytes = bincode::serde::encode_to_vec(&b, config).unwrap();
            assert_eq!(bytes, bincode::serde::encode_to_vec(&list, config).unwrap());
            let (back, _): (Behind, usize) =
                bincode::serde::decode_from_slice(&bytes, config).unwrap();
            assert_eq!(back, b);
        }
    }
}
