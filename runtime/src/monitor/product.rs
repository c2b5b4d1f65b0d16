//! The incremental product of AC for one live run: `Central(A, μ)` kept on its upper faces
//! while `μ` grows one event at a time.
//!
//! Let `n` be the lengths of the local traces seen so far and `R(v)` the states of `A` reached
//! by reading some interleaving of the cut of `μ` at `v` (no silent moves). A vertex `v ≤ n` is
//! *interior* when `v_j < n_j` for every `j`: every successor of an interior vertex is `≤ n`, so
//! `R` is already final on all of them and no later event can add a path through an interior
//! vertex that does not also pass through a vertex of an *upper face* (`v_j = n_j` for some
//! `j`). Invariants:
//!
//! - the product stores exactly the vertices of the upper faces with `R(v) ≠ ∅`, each with
//!   its exact `R(v)` (every predecessor of a stored vertex is `≤ n`, so its set is complete);
//! - an event of location `j` with letter `a` extends the paths of face `j`'s vertices by `a`
//!   (the only new edges), then closes the new face `v_j = n_j + 1` by the letters the other
//!   locations already logged, and forgets the vertices that no longer lie on a face.
//!
//! When the locations keep pace, the faces hold a bounded number of vertices (as many as the
//! lags the model allows between locations), so the work per event does not grow with the
//! run. When one location lags, its face grows with the lag: the number of stored vertices is
//! bounded by [`Product::push`]'s `max_vertices`, past which the run is undecided (the caller
//! turns that into an `Inconclusive` record naming the location).
//!
//! Verdicts (those of AC, [`crate::check::ac`]): complete membership is `R(n) ∩ F ≠ ∅`.
//! Multi-prefix membership (prefix mode) lets a location whose trace is consumed move
//! silently; silent paths differ from plain ones only at vertices of an upper face (a silent
//! move of `j` needs `v_j = n_j`, and a face vertex has only face successors), so it is a search
//! over the faces seeded with the stored sets ([`Product::is_multi_prefix`]); when `R(n)` meets
//! the live states already, no search is needed, which is the common case of events that
//! arrive in causal order.

use crate::check::ac::AcTables;
use crate::nfa::{Alphabet, LetterId, Nfa};
use serde::{Deserialize, Serialize};

/// The stored vertices of one run's product (positions and state sets, flat).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Product {
    /// Locations.
    k: u32,
    /// Words per state set.
    w: u32,
    /// `n`: the length of each local trace fed so far.
    lens: Vec<u32>,
    /// `k` positions per stored vertex.
    pos: Vec<u32>,
    /// `w` words per stored vertex.
    sets: Vec<u64>,
}

/// The automaton a product steps on, with the letter → location map.
#[derive(Clone, Copy)]
pub struct Kernel<'a> {
    /// AC's tables of the model.
    pub tables: &'a AcTables,
    /// The model's automaton.
    pub nfa: &'a Nfa,
    /// The model's alphabet.
    pub alphabet: &'a Alphabet,
}

/// The product grew past its vertex budget while extending location `location`'s face.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooWide {
    /// The location whose face holds the most vertices (the one lagging behind).
    pub location: usize,
    /// Vertices stored when the budget ran out.
    pub vertices: usize,
}

impl Product {
    /// The product of an empty multitrace: the initial states at the origin.
    pub fn new(kernel: &Kernel<'_>) -> Product {
        let k = kernel.alphabet.locations();
        let w = kernel.tables.words();
        Product {
            k: k as u32,
            w: w as u32,
            lens: vec![0; k],
            pos: vec![0; k],
            sets: kernel.tables.initial_states().to_vec(),
        }
    }

    /// Stored vertices.
    pub fn vertices(&self) -> usize {
        self.sets.len() / self.w.max(1) as usize
    }

    /// Bytes held (positions, sets and lengths).
    pub fn bytes(&self) -> usize {
        std::mem::size_of::<Product>()
            + 4 * (self.lens.capacity() + self.pos.capacity())
            + 8 * self.sets.capacity()
    }

    fn find(pos: &[u32], k: usize, target: &[u32]) -> Option<usize> {
        pos.chunks_exact(k).position(|p| p == target)
    }

    /// Merges `set` into the vertex at `at` of the flat lists (added when absent); returns its
    /// index and whether states were new there (`delta` receives the new states).
    fn merge(
        pos: &mut Vec<u32>,
        sets: &mut Vec<u64>,
        k: usize,
        w: usize,
        at: &[u32],
        set: &[u64],
        delta: &mut [u64],
    ) -> (usize, bool) {
        match Self::find(pos, k, at) {
            Some(i) => {
                let mut any = 0;
                for x in 0..w {
                    let d = set[x] & !sets[i * w + x];
                    sets[i * w + x] |= d;
                    delta[x] = d;
                    any |= d;
                }
                (i, any != 0)
            }
            None => {
                pos.extend_from_slice(at);
                sets.extend_from_slice(set);
                delta.copy_from_slice(set);
                (pos.len() / k - 1, true)
            }
        }
    }

    /// Feeds event `a` of location `j` (`traces[j]` already ends with it; `traces` are the
    /// local traces seen so far). `Err` when more than `max_vertices` would be stored: the
    /// product is then unusable.
    pub fn push(
        &mut self,
        kernel: &Kernel<'_>,
        traces: &[Vec<LetterId>],
        j: usize,
        a: LetterId,
        max_vertices: usize,
    ) -> Result<(), TooWide> {
        let (k, w) = (self.k as usize, self.w as usize);
        let nj = self.lens[j];
        let mut new_pos: Vec<u32> = Vec::new();
        let mut new_sets: Vec<u64> = Vec::new();
        let mut work: Vec<(usize, Vec<u64>)> = Vec::new();
        let mut t = vec![0u64; w];
        let mut delta = vec![0u64; w];
        let mut at = vec![0u32; k];
        for v in 0..self.vertices() {
            if self.pos[v * k + j] != nj {
                continue;
            }
            t.fill(0);
            kernel
                .tables
                .step_into(kernel.nfa, &self.sets[v * w..(v + 1) * w], a, &mut t);
            if t.iter().all(|&x| x == 0) {
                continue;
            }
            at.copy_from_slice(&self.pos[v * k..(v + 1) * k]);
            at[j] += 1;
            let (i, fresh) = Self::merge(&mut new_pos, &mut new_sets, k, w, &at, &t, &mut delta);
            if fresh {
                work.push((i, delta.clone()));
            }
        }
        self.lens[j] = nj + 1;
        // Close the new face by the letters the other locations logged.
        while let Some((u, d)) = work.pop() {
            for i in 0..k {
                let ui = new_pos[u * k + i];
                if i == j || ui >= self.lens[i] {
                    continue;
                }
                t.fill(0);
                kernel
                    .tables
                    .step_into(kernel.nfa, &d, traces[i][ui as usize], &mut t);
                if t.iter().all(|&x| x == 0) {
                    continue;
                }
                at.copy_from_slice(&new_pos[u * k..(u + 1) * k]);
                at[i] += 1;
                let (v, fresh) =
                    Self::merge(&mut new_pos, &mut new_sets, k, w, &at, &t, &mut delta);
                if fresh {
                    work.push((v, delta.clone()));
                }
            }
            if new_pos.len() / k + self.vertices() > max_vertices {
                return Err(self.too_wide(new_pos.len() / k));
            }
        }
        // Keep the old vertices still on a face (not `j`'s: its face moved on).
        let lens = &self.lens;
        let mut keep = 0;
        for v in 0..self.vertices() {
            let p = &self.pos[v * k..(v + 1) * k];
            if (0..k).any(|i| i != j && p[i] == lens[i]) {
                self.pos.copy_within(v * k..(v + 1) * k, keep * k);
                self.sets.copy_within(v * w..(v + 1) * w, keep * w);
                keep += 1;
            }
        }
        self.pos.truncate(keep * k);
        self.sets.truncate(keep * w);
        self.pos.extend_from_slice(&new_pos);
        self.sets.extend_from_slice(&new_sets);
        Ok(())
    }

    fn too_wide(&self, extra: usize) -> TooWide {
        let k = self.k as usize;
        let mut per = vec![0usize; k];
        for p in self.pos.chunks_exact(k) {
            for i in 0..k {
                per[i] += usize::from(p[i] == self.lens[i]);
            }
        }
        // The lagging location is the one whose face is the widest.
        let location = (0..k).max_by_key(|&i| per[i]).unwrap_or(0);
        TooWide {
            location,
            vertices: self.vertices() + extra,
        }
    }

    /// `R(n)`: the states reached by the whole multitrace read so far (empty when no vertex).
    fn at_end(&self) -> Option<&[u64]> {
        let (k, w) = (self.k as usize, self.w as usize);
        Self::find(&self.pos, k, &self.lens).map(|i| &self.sets[i * w..(i + 1) * w])
    }

    /// Whether `R(n)` meets `goal`.
    fn end_meets(&self, goal: &[u64]) -> bool {
        self.at_end()
            .is_some_and(|s| s.iter().zip(goal).any(|(a, b)| a & b != 0))
    }

    /// Complete membership: some interleaving of the whole multitrace is accepted.
    pub fn is_accepted(&self, kernel: &Kernel<'_>) -> bool {
        self.end_meets(kernel.tables.accepting_states())
    }

    /// Multi-prefix membership (prefix mode with silent moves, as AC's first search). `Err`
    /// when the search over the faces would visit more than `max_vertices` vertices.
    pub fn is_multi_prefix(
        &self,
        kernel: &Kernel<'_>,
        traces: &[Vec<LetterId>],
        max_vertices: usize,
    ) -> Result<bool, TooWide> {
        let live = kernel.tables.live();
        if self.end_meets(live) {
            return Ok(true);
        }
        let (k, w) = (self.k as usize, self.w as usize);
        // A search over the faces with silent moves, seeded with every stored set.
        let mut pos: Vec<u32> = Vec::with_capacity(self.pos.len());
        let mut sets: Vec<u64> = Vec::with_capacity(self.sets.len());
        let mut work: Vec<(usize, Vec<u64>)> = Vec::new();
        let mut delta = vec![0u64; w];
        for v in 0..self.vertices() {
            let (i, fresh) = Self::merge(
                &mut pos,
                &mut sets,
                k,
                w,
                &self.pos[v * k..(v + 1) * k],
                &self.sets[v * w..(v + 1) * w],
                &mut delta,
            );
            if fresh {
                work.push((i, delta.clone()));
            }
        }
        let mut t = vec![0u64; w];
        let mut at = vec![0u32; k];
        let mut silent = vec![false; k];
        while let Some((u, mut d)) = work.pop() {
            for i in 0..k {
                silent[i] = pos[u * k + i] == self.lens[i];
            }
            // Silent moves at `u`: the states they add are new there too.
            // States of `u` other than `d` were closed and propagated (or are queued).
            let known: Vec<u64> = (0..w).map(|x| sets[u * w + x] & !d[x]).collect();
            close_silent(kernel, &silent, &mut d);
            for x in 0..w {
                d[x] &= !known[x];
                sets[u * w + x] |= d[x];
            }
            if silent.iter().all(|&s| s) && d.iter().zip(live).any(|(a, b)| a & b != 0) {
                return Ok(true);
            }
            for i in 0..k {
                let ui = pos[u * k + i];
                if ui >= self.lens[i] {
                    continue;
                }
                t.fill(0);
                kernel
                    .tables
                    .step_into(kernel.nfa, &d, traces[i][ui as usize], &mut t);
                if t.iter().all(|&x| x == 0) {
                    continue;
                }
                at.copy_from_slice(&pos[u * k..(u + 1) * k]);
                at[i] += 1;
                let (v, fresh) = Self::merge(&mut pos, &mut sets, k, w, &at, &t, &mut delta);
                if fresh {
                    work.push((v, delta.clone()));
                }
            }
            if pos.len() / k > max_vertices {
                return Err(self.too_wide(0));
            }
        }
        Ok(false)
    }
}

/// Closes `set` under the letters of the locations marked in `silent`.
fn close_silent(kernel: &Kernel<'_>, silent: &[bool], set: &mut [u64]) {
    if !silent.iter().any(|&s| s) {
        return;
    }
    let mut t = vec![0u64; set.len()];
    loop {
        t.copy_from_slice(set);
        for (i, &s) in silent.iter().enumerate() {
            if !s {
                continue;
            }
            for &a in kernel.alphabet.letters_of(crate::nfa::LocationId(i as u32)) {
                let from = t.clone();
                kernel.tables.step_into(kernel.nfa, &from, a, &mut t);
            }
        }
        if t == set {
            return;
        }
        set.copy_from_slice(&t);
    }
}
