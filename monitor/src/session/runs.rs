//! A session's runs by id, an id of up to 16 bytes (nearly all) kept packed in two words
//! ([`pack`]) inside the table, a longer one as a string.
//!
//! Every event finds its run here. A map keyed by strings keeps each id in a heap block of
//! its own, so every lookup read that block (a cache miss per event on 100,000 runs) and
//! compared it with `memcmp`; a packed id is hashed and compared as words in the table's own
//! slot, and costs no allocation.
//!
//! Invariants: an id is in exactly one of the two maps (by its length); the state's bytes
//! are those of one map from ids to runs, so the format of
//! [`Session::to_bytes`](super::state::Session::to_bytes) does not depend on this layout.

use super::live::Live;
use multitrace_formats::events::intern::{pack, PACKED};
use rustc_hash::FxHashMap;
use serde::de::{Deserializer, MapAccess, Visitor};
use serde::ser::{Error as _, SerializeMap, Serializer};
use serde::{Deserialize, Serialize};

/// An id of at most [`PACKED`] bytes: its bytes in two little-endian words (zero beyond
/// its end) and its length.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct Short {
    words: [u64; 2],
    len: u8,
}

impl Short {
    #[inline]
    fn of(id: &str) -> Short {
        Short {
            words: pack(id.as_bytes()),
            len: id.len() as u8,
        }
    }

    /// The id's bytes (`buf` holds them).
    fn bytes<'b>(&self, buf: &'b mut [u8; PACKED]) -> &'b [u8] {
        buf[..8].copy_from_slice(&self.words[0].to_le_bytes());
        buf[8..].copy_from_slice(&self.words[1].to_le_bytes());
        &buf[..self.len as usize]
    }

    /// The id (it was text when packed).
    fn text(&self) -> String {
        let mut buf = [0u8; PACKED];
        String::from_utf8_lossy(self.bytes(&mut buf)).into_owned()
    }
}

/// A run's id as the table holds it.
#[derive(Clone, Copy, Debug)]
pub(super) enum IdRef<'a> {
    Short(&'a Short),
    Long(&'a str),
}

impl IdRef<'_> {
    /// Its length in bytes.
    pub(super) fn len(&self) -> usize {
        match self {
            IdRef::Short(s) => s.len as usize,
            IdRef::Long(s) => s.len(),
        }
    }

    /// The id as text.
    pub(super) fn text(&self) -> String {
        match self {
            IdRef::Short(s) => s.text(),
            IdRef::Long(s) => s.to_string(),
        }
    }
}

/// The runs of a session.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Runs {
    short: FxHashMap<Short, Box<Live>>,
    long: FxHashMap<Box<str>, Box<Live>>,
}

impl Runs {
    /// Runs held.
    pub(super) fn len(&self) -> usize {
        self.short.len() + self.long.len()
    }

    /// Run `id`.
    #[inline]
    pub(super) fn get_mut(&mut self, id: &str) -> Option<&mut Live> {
        if id.len() <= PACKED {
            self.short.get_mut(&Short::of(id)).map(|l| &mut **l)
        } else {
            self.long.get_mut(id).map(|l| &mut **l)
        }
    }

    /// Whether run `id` is held.
    pub(super) fn contains_key(&self, id: &str) -> bool {
        if id.len() <= PACKED {
            self.short.contains_key(&Short::of(id))
        } else {
            self.long.contains_key(id)
        }
    }

    /// Adds run `id` (in place of one held under it).
    pub(super) fn insert(&mut self, id: &str, live: Box<Live>) {
        if id.len() <= PACKED {
            self.short.insert(Short::of(id), live);
        } else {
            self.long.insert(id.into(), live);
        }
    }

    /// Run `id`, added with `make` when it is not held.
    pub(super) fn get_or_insert_with(
        &mut self,
        id: &str,
        make: impl FnOnce() -> Box<Live>,
    ) -> &mut Live {
        if id.len() <= PACKED {
            self.short.entry(Short::of(id)).or_insert_with(make)
        } else {
            self.long.entry(id.into()).or_insert_with(make)
        }
    }

    /// Takes run `id` out.
    pub(super) fn remove(&mut self, id: &str) -> Option<Box<Live>> {
        if id.len() <= PACKED {
            self.short.remove(&Short::of(id))
        } else {
            self.long.remove(id)
        }
    }

    /// Every run and its id.
    pub(super) fn iter(&self) -> impl Iterator<Item = (IdRef<'_>, &Live)> {
        let short = self.short.iter().map(|(id, l)| (IdRef::Short(id), &**l));
        let long = self.long.iter().map(|(id, l)| (IdRef::Long(id), &**l));
        short.chain(long)
    }

    /// Takes every run out.
    pub(super) fn drain(&mut self) -> Vec<(Box<str>, Box<Live>)> {
        let mut all = Vec::with_capacity(self.len());
        all.extend(self.short.drain().map(|(id, l)| (id.text().into(), l)));
        all.extend(self.long.drain());
        all
    }
}

impl Serialize for Runs {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.len()))?;
        let mut buf = [0u8; PACKED];
        for (id, live) in &self.short {
            let id = std::str::from_utf8(id.bytes(&mut buf)).map_err(S::Error::custom)?;
            map.serialize_entry(id, live)?;
        }
        for (id, live) in &self.long {
            map.serialize_entry(id, live)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Runs {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Runs, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Runs;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a map from run ids to runs")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Runs, A::Error> {
                let mut runs = Runs::default();
                while let Some((id, live)) = a.next_entry::<String, Box<Live>>()? {
                    if runs.contains_key(&id) {
                        return Err(serde::de::Error::custom(format!(
                            "run {id:?} is twice in the state"
                        )));
                    }
                    runs.insert(&id, live);
                }
                Ok(runs)
            }
        }
        d.deserialize_map(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::pending::Place;
    use crate::tests::mqtt;
    use crate::{Monitor, MonitorOptions};
    use std::collections::HashMap;

    proptest::proptest! {
        /// The table holds what a hash map of ids holds, through insertions and removals,
        /// gives the ids back as they were (of every length around the packed limit, with
        /// NUL bytes, which packing pads with, and non-ASCII text), and its bytes read back.
        #[test]
        fn runs_are_a_hash_maps(
            ops in proptest::collection::vec(
                (proptest::collection::vec(proptest::sample::select(vec!["\0", "a", "é", "r7"]), 0..12),
                 proptest::bool::ANY),
                0..300,
            ),
        ) {
            let engine = mqtt();
            let m = Monitor::new(&engine, MonitorOptions::default()).expect("a monitor");
            let mut runs = Runs::default();
            let mut oracle: HashMap<String, u64> = HashMap::new();
            for (k, (parts, add)) in ops.into_iter().enumerate() {
                let id = parts.concat();
                if add {
                    let mut live = Live::new(m.start(), Place::Line { file: 0, line: 1 }, 2);
                    live.touched = k as u64;
                    let got = runs.get_or_insert_with(&id, || live).touched;
                    proptest::prop_assert_eq!(got, *oracle.entry(id.clone()).or_insert(k as u64));
                } else {
                    proptest::prop_assert_eq!(
                        runs.remove(&id).map(|l| l.touched),
                        oracle.remove(&id)
                    );
                }
                proptest::prop_assert_eq!(runs.len(), oracle.len());
                proptest::prop_assert_eq!(runs.contains_key(&id), oracle.contains_key(&id));
            }
            let mut seen: Vec<(String, usize, u64)> =
                runs.iter().map(|(id, l)| (id.text(), id.len(), l.touched)).collect();
            seen.sort();
            let mut want: Vec<(String, usize, u64)> =
                oracle.iter().map(|(id, &t)| (id.clone(), id.len(), t)).collect();
            want.sort();
            proptest::prop_assert_eq!(seen, want);
            let bytes = bincode::serde::encode_to_vec(&runs, bincode::config::standard())
                .expect("encodes");
            let back: Runs = bincode::serde::decode_from_slice(&bytes, bincode::config::standard())
                .expect("decodes")
                .0;
            proptest::prop_assert!(back == runs);
            let mut all: Vec<(String, u64)> =
                runs.drain().into_iter().map(|(id, l)| (id.into(), l.touched)).collect();
            all.sort();
            let mut want: Vec<(String, u64)> = oracle.into_iter().collect();
            want.sort();
            proptest::prop_assert_eq!(all, want);
            proptest::prop_assert_eq!(runs.len(), 0);
        }
    }
}
