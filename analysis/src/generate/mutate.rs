//! Candidates of each kind: correct multitraces, their mutations, mixes and iterated cycles.
//!
//! Invariants:
//!
//! - a candidate is only a proposal: the driver checks it and keeps it only when its verdict
//!   is the one of its kind, so nothing here has to be exact about the verdict it aims at;
//! - every letter a mutation writes on location `i` is a letter of location `i` (a mutated
//!   multitrace is still a multitrace of the model);
//! - the order and number of draws is part of the reproducibility contract: the same stream
//!   gives the same candidates, so reordering draws changes every generated set;
//! - a candidate that cannot be built this time is a short reason (`"no run"`, ...), counted
//!   among the rejected candidates, never an error.

use super::generator::{project_word, Generator};
use super::kinds::Kind;
use multitrace_model::nfa::{LetterId, LocationId};

impl Generator<'_> {
    /// Letters of location `k`.
    pub(super) fn letters(&self, k: usize) -> &[LetterId] {
        self.model.alphabet.letters_of(LocationId(k as u32))
    }

    /// One local mutation of `traces` on a location that has letters (a random applicable
    /// operation, else an insertion); false when no location has letters.
    fn mutate(&mut self, traces: &mut [Vec<LetterId>]) -> bool {
        let locs: Vec<usize> = (0..traces.len())
            .filter(|&k| !self.letters(k).is_empty())
            .collect();
        let Some(&k) = self.rng.pick(&locs) else {
            return false;
        };
        let letters = self.letters(k).to_vec();
        let t = &mut traces[k];
        for _ in 0..8 {
            match self.rng.below(4) {
                // Replace a letter by another letter of the location.
                0 if !t.is_empty() && letters.len() > 1 => {
                    let p = self.rng.below(t.len());
                    let others: Vec<LetterId> =
                        letters.iter().copied().filter(|&l| l != t[p]).collect();
                    t[p] = *self.rng.pick(&others).expect("two letters");
                    return true;
                }
                // Insert a letter.
                1 => {
                    let p = self.rng.below(t.len() + 1);
                    let l = *self.rng.pick(&letters).expect("a letter");
                    t.insert(p, l);
                    return true;
                }
                // Delete a letter.
                2 if !t.is_empty() => {
                    let p = self.rng.below(t.len());
                    t.remove(p);
                    return true;
                }
                // Transpose two adjacent different letters.
                3 if t.len() >= 2 => {
                    let p = self.rng.below(t.len() - 1);
                    if t[p] != t[p + 1] {
                        t.swap(p, p + 1);
                        return true;
                    }
                }
                _ => {}
            }
        }
        // Inserting always applies.
        let p = self.rng.below(t.len() + 1);
        t.insert(p, *self.rng.pick(&letters).expect("a letter"));
        true
    }

    /// One candidate of the kind, or why none was built this time.
    pub(super) fn candidate(&mut self) -> Result<Vec<Vec<LetterId>>, &'static str> {
        let (min, max) = (self.opts.min_len, self.opts.max_len);
        let nloc = self.model.alphabet.locations();
        match self.opts.kind {
            Kind::Pass => self.correct().ok_or("no run"),
            Kind::LocalError => {
                let mut traces = self.correct().ok_or("no run")?;
                let n = 1 + self.rng.below(2);
                for _ in 0..n {
                    if !self.mutate(&mut traces) {
                        return Err("no mutation applies");
                    }
                }
                Ok(traces)
            }
            Kind::InterError | Kind::CentralErrorMixed => {
                let sources = if nloc > 2 { 2 + self.rng.below(2) } else { 2 };
                let mut pick: Vec<usize> = (0..nloc).map(|_| self.rng.below(sources)).collect();
                if pick.iter().all(|&s| s == pick[0]) {
                    let k = self.rng.below(nloc);
                    pick[k] = (pick[k] + 1 + self.rng.below(sources - 1)) % sources;
                }
                let mut runs = Vec::with_capacity(sources);
                for _ in 0..sources {
                    runs.push(self.correct().ok_or("no run")?);
                }
                let traces: Vec<Vec<LetterId>> = (0..nloc)
                    .map(|k| std::mem::take(&mut runs[pick[k]][k]))
                    .collect();
                Ok(traces)
            }
            Kind::CentralError => self.central(),
            Kind::Prefix => {
                let len = self.rng.between(min, max);
                self.multi_prefix(len, 1).ok_or("no run")
            }
            Kind::Noise => {
                let len = self.rng.between(min.max(1), max.max(1));
                let mut traces = self.multi_prefix(len - 1, 0).ok_or("no run")?;
                let l = LetterId(self.rng.below(self.model.alphabet.len()) as u32);
                let t = &mut traces[self.model.alphabet.location(l).index()];
                let p = self.rng.below(t.len() + 1);
                t.insert(p, l);
                Ok(traces)
            }
            Kind::SwapActions => {
                let len = self.rng.between(min, max);
                let mut traces = self.multi_prefix(len, 0).ok_or("no run")?;
                let locs: Vec<usize> = (0..nloc)
                    .filter(|&k| traces[k].iter().any(|&l| l != traces[k][0]))
                    .collect();
                let k = *self
                    .rng
                    .pick(&locs)
                    .ok_or("no local trace with two letters")?;
                let t = &mut traces[k];
                loop {
                    let (i, j) = (self.rng.below(t.len()), self.rng.below(t.len()));
                    if t[i] != t[j] {
                        t.swap(i, j);
                        break;
                    }
                }
                Ok(traces)
            }
            Kind::SwapComponents => {
                let l1 = self.rng.between(min, max);
                let l2 = self.rng.between(min, max);
                let mut a = self.multi_prefix(l1, 0).ok_or("no run")?;
                let b = self.multi_prefix(l2, 0).ok_or("no run")?;
                let locs: Vec<usize> = (0..nloc).filter(|&k| a[k] != b[k]).collect();
                let k = *self.rng.pick(&locs).ok_or("identical multi-prefixes")?;
                a[k] = b[k].clone();
                Ok(a)
            }
        }
    }

    /// `u c v` with `c` a cycle on two locations or more, iterated `ki` times on location `i`.
    fn central(&mut self) -> Result<Vec<Vec<LetterId>>, &'static str> {
        let (min, max) = (self.opts.min_len, self.opts.max_len);
        let len = self.length(min, max).ok_or("no run")?;
        let run = self.walk(len);
        let loc = |l: LetterId| self.model.alphabet.location(l).index();
        // Every (p, q) with the same state at p and q whose segment reads two locations.
        let mut cycles: Vec<(usize, usize)> = Vec::new();
        for p in 0..run.word.len() {
            let first = loc(run.word[p]);
            let mut multi = false;
            for q in p + 1..=run.word.len() {
                multi |= loc(run.word[q - 1]) != first;
                if multi && run.states[q] == run.states[p] {
                    cycles.push((p, q));
                }
            }
        }
        if cycles.is_empty() {
            return Err("run without a cycle on two locations");
        }
        // Prefer cycles short enough to keep the length in range.
        let slack = ((max - min) / 2).max(1);
        let short: Vec<(usize, usize)> = cycles
            .iter()
            .copied()
            .filter(|&(p, q)| q - p <= slack)
            .collect();
        let &(p, q) = self
            .rng
            .pick(if short.is_empty() { &cycles } else { &short })
            .expect("a cycle");
        let nloc = self.model.alphabet.locations();
        let (u, c, v) = (
            project_word(self.model, &run.word[..p]),
            project_word(self.model, &run.word[p..q]),
            project_word(self.model, &run.word[q..]),
        );
        let involved: Vec<usize> = (0..nloc).filter(|&k| !c[k].is_empty()).collect();
        for _ in 0..16 {
            let times: Vec<usize> = involved.iter().map(|_| self.rng.below(4)).collect();
            if times.iter().all(|&t| t == times[0]) {
                continue;
            }
            let total = len - (q - p)
                + involved
                    .iter()
                    .zip(&times)
                    .map(|(&k, &t)| t * c[k].len())
                    .sum::<usize>();
            if !(min..=max).contains(&total) {
                continue;
            }
            let mut traces = u.clone();
            for k in 0..nloc {
                let reps = involved
                    .iter()
                    .position(|&j| j == k)
                    .map_or(1, |i| times[i]);
                for _ in 0..reps {
                    traces[k].extend_from_slice(&c[k]);
                }
                traces[k].extend_from_slice(&v[k]);
            }
            return Ok(traces);
        }
        Err("length out of range")
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::engine;
    use super::super::{generate, GenOptions, Kind};

    #[test]
    fn mutations_write_letters_of_their_location() {
        let e = engine("seed004-mqtt/model.hif");
        let alphabet = &e.model().alphabet;
        for kind in [Kind::LocalError, Kind::Noise, Kind::SwapActions] {
            let g = generate(&e, &GenOptions::new(kind, 20, 6, 24, 4)).unwrap();
            for item in &g.items {
                for (k, trace) in item.traces.iter().enumerate() {
                    assert!(
                        trace.iter().all(|&l| alphabet.location(l).index() == k),
                        "{kind}: {:?}",
                        item.traces
                    );
                }
            }
        }
    }
}
