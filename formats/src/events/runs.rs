//! The events of one run as they are grouped: letters (`u32` ids) and order keys in flat
//! arrays, in input order, the keys as `i64` while every key is a small integer (the common
//! case: 12 bytes an event rather than 48), and the run's local traces made from them at the
//! end (each location's letters sorted by key, equal keys in input order).

use super::key::OrderKey;
use multitrace_model::nfa::LetterId;
use multitrace_model::record::ErrorRecord;
use std::cmp::Ordering;

/// The order keys of a run's events.
enum Keys {
    /// Integers of `i64`, as `OrderKey::Int`.
    Small(Vec<i64>),
    /// Any keys.
    Any(Vec<OrderKey>),
}

/// The events of one run collected so far.
pub(super) struct Run {
    /// The run id.
    pub id: String,
    /// `FILE:LINE` of its first event.
    pub first_at: String,
    /// The letter of each event, in input order.
    letters: Vec<LetterId>,
    /// The order key of each event.
    keys: Keys,
    /// Its first bad event (the run's Error record) and the number of bad events.
    pub bad: Option<(ErrorRecord, usize)>,
}

impl Run {
    pub(super) fn new(id: String, first_at: String) -> Run {
        Run {
            id,
            first_at,
            letters: Vec::new(),
            keys: Keys::Small(Vec::new()),
            bad: None,
        }
    }

    /// The events taken.
    pub(super) fn len(&self) -> usize {
        self.letters.len()
    }

    /// Whether `key` can be compared with the keys taken (numbers with numbers, timestamps
    /// with timestamps).
    #[inline]
    pub(super) fn comparable(&self, key: &OrderKey) -> bool {
        match &self.keys {
            Keys::Small(k) => k.is_empty() || !matches!(key, OrderKey::Time(_)),
            Keys::Any(k) => k.first().is_none_or(|f| f.comparable(key)),
        }
    }

    /// Takes an event.
    #[inline]
    pub(super) fn push(&mut self, letter: LetterId, key: OrderKey) {
        self.letters.push(letter);
        match (&mut self.keys, key) {
            (Keys::Small(k), OrderKey::Int(i)) if i64::try_from(i).is_ok() => k.push(i as i64),
            (Keys::Any(k), key) => k.push(key),
            (Keys::Small(k), key) => {
                let mut all: Vec<OrderKey> = k.iter().map(|&i| OrderKey::Int(i.into())).collect();
                all.push(key);
                self.keys = Keys::Any(all);
            }
        }
    }

    /// The run's local traces (one per location, `location[letter]` naming a letter's) and
    /// the location of each event in input order.
    pub(super) fn traces(
        &self,
        location: &[u32],
        locations: usize,
    ) -> (Vec<Vec<LetterId>>, Vec<u32>) {
        let arrivals: Vec<u32> = self
            .letters
            .iter()
            .map(|l| location[l.0 as usize])
            .collect();
        let traces = match &self.keys {
            Keys::Small(k) => split(&self.letters, &arrivals, k, locations, |a, b| a.cmp(b)),
            Keys::Any(k) => split(&self.letters, &arrivals, k, locations, |a, b| a.cmp_key(b)),
        };
        (traces, arrivals)
    }
}

/// Each location's letters, sorted by key (stable: equal keys in input order); a location
/// whose keys come in order (the common case) is not sorted.
fn split<K: Copy>(
    letters: &[LetterId],
    arrivals: &[u32],
    keys: &[K],
    locations: usize,
    cmp: impl Fn(&K, &K) -> Ordering,
) -> Vec<Vec<LetterId>> {
    let mut count = vec![0usize; locations];
    for &j in arrivals {
        count[j as usize] += 1;
    }
    let mut out: Vec<Vec<LetterId>> = count.iter().map(|&n| Vec::with_capacity(n)).collect();
    let mut last: Vec<Option<K>> = vec![None; locations];
    let mut unsorted = false;
    for ((&l, &j), &k) in letters.iter().zip(arrivals).zip(keys) {
        let j = j as usize;
        out[j].push(l);
        if let Some(p) = &last[j] {
            unsorted |= cmp(p, &k) == Ordering::Greater;
        }
        last[j] = Some(k);
    }
    if unsorted {
        for (j, trace) in out.iter_mut().enumerate() {
            let mut evs: Vec<(LetterId, K)> = letters
                .iter()
                .zip(arrivals)
                .zip(keys)
                .filter(|((_, &a), _)| a as usize == j)
                .map(|((&l, _), &k)| (l, k))
                .collect();
            if !evs.is_sorted_by(|a, b| cmp(&a.1, &b.1).is_le()) {
                evs.sort_by(|a, b| cmp(&a.1, &b.1));
                *trace = evs.into_iter().map(|(l, _)| l).collect();
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The traces are each location's letters sorted stably by key, as sorting pairs
        /// of all the keys does (whether the keys stay small or not).
        #[test]
        fn traces_are_the_stably_sorted_letters(
            events in proptest::collection::vec((0u32..6, -3i128..4, proptest::bool::ANY), 0..40),
        ) {
            // Letters 0..6 at locations letter % 3; a big key now and then.
            let location = [0u32, 1, 2, 0, 1, 2];
            let mut run = Run::new("r".into(), "ev:1".into());
            let mut all = Vec::new();
            for &(l, k, big) in &events {
                let key = OrderKey::Int(if big { k * (1i128 << 80) } else { k });
                run.push(LetterId(l), key);
                all.push((LetterId(l), key));
            }
            let (traces, arrivals) = run.traces(&location, 3);
            for (j, trace) in traces.iter().enumerate() {
                let mut want: Vec<(LetterId, OrderKey)> = all
                    .iter()
                    .copied()
                    .filter(|(l, _)| location[l.0 as usize] as usize == j)
                    .collect();
                want.sort_by(|a, b| a.1.cmp_key(&b.1));
                let want: Vec<LetterId> = want.into_iter().map(|(l, _)| l).collect();
                proptest::prop_assert_eq!(trace, &want);
            }
            let want: Vec<u32> = all.iter().map(|(l, _)| location[l.0 as usize]).collect();
            proptest::prop_assert_eq!(arrivals, want);
        }
    }
}
