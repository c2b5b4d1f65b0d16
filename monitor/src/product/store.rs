//! The product itself ([`Product`]: the stored vertices of the upper faces, by face), and
//! the error of a budget that runs out ([`TooWide`]);
//! a product made, pushed one event ([`Product::push`]), compacted and measured.
//!
//! Invariant: the product stores exactly the vertices of the upper faces with `R(v) ≠ ∅`,
//! each with its exact `R(v)`; `on[i]` lists the stored vertices of face `i`.

use super::faces::{fixed_len, key_of, Faces, GONE};
use super::kernel::Kernel;
use super::words::{append, is_empty, zero};
use super::work::{Work, WORK};
use multitrace_model::nfa::LetterId;
use serde::{Deserialize, Serialize};

/// The stored vertices of one run's product.
#[derive(Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Product {
    /// Locations.
    pub(super) k: u32,
    /// Words per state set.
    pub(super) w: u32,
    /// `n`: the length of each local trace fed so far.
    pub(super) lens: Vec<u32>,
    pub(super) faces: Faces,
    /// `on[i]`: the stored vertices of face `i` (`v_i = n_i`), in storage order. An event of
    /// location `j` reads face `j` only, and drops from the store only those of its old
    /// vertices on no other face: its work follows face `j`, not every stored vertex (a
    /// location that stays idle keeps a wide face that other events need not scan).
    pub(super) on: Vec<Vec<u32>>,
    /// Vertices of `faces` no longer on any face (key [`GONE`]), until the next compaction.
    pub(super) gone: u32,
}

impl Clone for Product {
    fn clone(&self) -> Self {
        Product {
            k: self.k,
            w: self.w,
            lens: self.lens.clone(),
            faces: self.faces.clone(),
            on: self.on.clone(),
            gone: self.gone,
        }
    }

    /// Into the buffers already there (a run's product is copied once per reading round).
    fn clone_from(&mut self, other: &Self) {
        self.k = other.k;
        self.w = other.w;
        self.lens.clone_from(&other.lens);
        self.faces.clone_from(&other.faces);
        self.on.clone_from(&other.on);
        self.gone = other.gone;
    }
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
        let origin = vec![0; k];
        let faces = Faces {
            keys: vec![key_of(&origin)],
            pos: origin,
            sets: kernel.tables.initial_states()[..w].to_vec(),
        };
        Product {
            k: k as u32,
            w: w as u32,
            lens: vec![0; k],
            faces,
            // The origin is on every face.
            on: vec![vec![0]; k],
            gone: 0,
        }
    }

    /// The stored vertices (positions and state sets, in storage order), after checking the
    /// faces' lists: `on[i]` holds exactly the stored vertices with `v_i = n_i`, in order.
    #[cfg(test)]
    pub(crate) fn stored(&self) -> Vec<(Vec<u32>, Vec<u64>)> {
        let (k, w) = (self.k as usize, self.w as usize);
        let live: Vec<usize> = (0..self.faces.len())
            .filter(|&v| self.faces.keys[v] != GONE)
            .collect();
        for i in 0..k {
            let want: Vec<u32> = live
                .iter()
                .filter(|&&v| self.faces.pos[v * k + i] == self.lens[i])
                .map(|&v| v as u32)
                .collect();
            assert_eq!(self.on[i], want, "face {i}'s list");
        }
        assert_eq!(live.len(), self.vertices());
        live.iter()
            .map(|&v| {
                (
                    self.faces.pos[v * k..(v + 1) * k].to_vec(),
                    self.faces.sets[v * w..(v + 1) * w].to_vec(),
                )
            })
            .collect()
    }

    /// Stored vertices.
    pub fn vertices(&self) -> usize {
        self.faces.len() - self.gone as usize
    }

    /// Bytes held (positions, keys, sets, lengths and the faces' lists).
    pub fn bytes(&self) -> usize {
        std::mem::size_of::<Product>()
            + 4 * (self.lens.capacity() + self.faces.pos.capacity())
            + 8 * (self.faces.sets.capacity() + self.faces.keys.capacity())
            + self
                .on
                .iter()
                .map(|l| std::mem::size_of::<Vec<u32>>() + 4 * l.capacity())
                .sum::<usize>()
    }

    /// The bytes of the product's content (its stored vertices and lists, not capacities nor
    /// the vertices left in place until a compaction): the same for the same events however
    /// the run was fed or restored, as records need.
    pub fn state_bytes(&self) -> usize {
        let (k, w, n) = (self.k as usize, self.w as usize, self.vertices());
        std::mem::size_of::<Product>()
            + 4 * (self.lens.len() + n * k)
            + 8 * (n * w + n)
            + self
                .on
                .iter()
                .map(|l| std::mem::size_of::<Vec<u32>>() + 4 * l.len())
                .sum::<usize>()
    }

    /// Feeds event `a` of location `j` (`traces[j]` already ends with it; `traces` are the
    /// local traces seen so far): `Ok(true)` when `R(n)` meets the live states then (the
    /// multitrace is a multi-prefix, no search needed: [`Product::is_multi_prefix`] would
    /// say so at once), `Ok(false)` when only a search can tell. `Err` when more than
    /// `max_vertices` would be stored: the product is then unusable until
    /// [`Product::undo_too_wide`] gives back the one before the push.
    pub fn push(
        &mut self,
        kernel: &Kernel<'_>,
        traces: &[Vec<LetterId>],
        j: usize,
        a: LetterId,
        max_vertices: usize,
    ) -> Result<bool, TooWide> {
        WORK.with(|work| {
            let wk = &mut work.borrow_mut();
            by_shape!(self, push_in(wk, kernel, traces, j, a, max_vertices))
        })
    }

    pub(super) fn push_in<const K: usize, const W: usize>(
        &mut self,
        wk: &mut Work,
        kernel: &Kernel<'_>,
        traces: &[Vec<LetterId>],
        j: usize,
        a: LetterId,
        max_vertices: usize,
    ) -> Result<bool, TooWide> {
        let (k, w) = (
            fixed_len::<K>(self.k as usize),
            fixed_len::<W>(self.w as usize),
        );
        wk.reset(k, w);
        let nj = self.lens[j];
        let old = &self.faces;
        // The box of the new face: its vertices are those of the old face `j` moved by `a`,
        // then by the other locations' letters up to `n`.
        wk.lo.clear();
        append(&mut wk.lo, &self.lens);
        for &v in &self.on[j] {
            for (lo, &p) in wk
                .lo
                .iter_mut()
                .zip(&old.pos[v as usize * k..(v as usize + 1) * k])
            {
                *lo = (*lo).min(p);
            }
        }
        // The only change to `self` before the budget may run out ([`Product::undo_too_wide`]).
        self.lens[j] = nj + 1;
        wk.lo[j] = nj + 1;
        wk.index.begin(&wk.lo, &self.lens);
        for &v in &self.on[j] {
            let v = v as usize;
            let t = &mut wk.t[..w];
            zero(t);
            kernel.step(&old.sets[v * w..(v + 1) * w], a, t);
            if is_empty(t) {
                continue;
            }
            // The old face's vertices are distinct, and so are their successors by `a`: each
            // is new (no lookup), with all its states new.
            wk.add_moved::<K, W>(&old.pos[v * k..(v + 1) * k], j);
        }
        // Close the new face by the letters the other locations logged.
        while let Some(u) = wk.pop_work::<W>(w) {
            let ucell = wk.index.cell_of(&wk.faces.pos[u * k..(u + 1) * k]);
            for i in 0..k {
                if i != j {
                    wk.extend::<K, W>(kernel, traces, &self.lens, u, i, ucell);
                }
            }
            if wk.faces.len() + self.vertices() > max_vertices {
                return Err(self.too_wide(wk.faces.len()));
            }
        }
        // `n` is on the new face `j` (when its set is not empty).
        let live = wk
            .index
            .get(&wk.faces, k, &self.lens, key_of(&self.lens))
            .is_some_and(|t| {
                wk.faces.sets[t * w..(t + 1) * w]
                    .iter()
                    .zip(kernel.tables.live())
                    .any(|(a, b)| a & b != 0)
            });
        // The old vertices of face `j` on no other face leave the store (its face moved on);
        // the others stay where they are, so the store keeps its order.
        let lens = &self.lens;
        let f = &mut self.faces;
        let mut old_j = std::mem::take(&mut self.on[j]);
        for &v in &old_j {
            let v = v as usize;
            if !(0..k).any(|i| i != j && f.pos[v * k + i] == lens[i]) {
                f.keys[v] = GONE;
                self.gone += 1;
            }
        }
        let base = f.len() as u32;
        f.pos.extend_from_slice(&wk.faces.pos);
        f.sets.extend_from_slice(&wk.faces.sets);
        f.keys.extend_from_slice(&wk.faces.keys);
        old_j.clear();
        old_j.extend(base..base + wk.faces.len() as u32);
        self.on[j] = old_j;
        for i in (0..k).filter(|&i| i != j) {
            for t in 0..wk.faces.len() {
                if wk.faces.pos[t * k + i] == lens[i] {
                    self.on[i].push(base + t as u32);
                }
            }
        }
        // At most half the store left in place (a quarter made the wide products of AutomatArk
        // NFA12 compact so often that the monitor took 13 % more time, for 20 % less memory).
        if self.gone as usize > self.vertices().max(8) {
            self.compact(&mut wk.at_map);
        }
        Ok(live)
    }

    /// Copies the stored vertices into `wk.faces` and indexes them over the box from their
    /// least coordinates to `n` (every vertex a search from them reaches lies in it).
    #[inline(always)]
    pub(super) fn load<const K: usize, const W: usize>(&self, wk: &mut Work) {
        let (k, w) = (
            fixed_len::<K>(self.k as usize),
            fixed_len::<W>(self.w as usize),
        );
        let f = &self.faces;
        if self.gone == 0 {
            wk.faces.copy_from(f);
        } else {
            for v in (0..f.len()).filter(|&v| f.keys[v] != GONE) {
                append(&mut wk.faces.pos, &f.pos[v * k..(v + 1) * k]);
                append(&mut wk.faces.sets, &f.sets[v * w..(v + 1) * w]);
                wk.faces.keys.push(f.keys[v]);
            }
        }
        wk.lo.clear();
        append(&mut wk.lo, &self.lens);
        for p in wk.faces.pos.chunks_exact(k) {
            for (lo, &x) in wk.lo.iter_mut().zip(p) {
                *lo = (*lo).min(x);
            }
        }
        wk.index.begin(&wk.lo, &self.lens);
        for (i, p) in wk.faces.pos.chunks_exact(k).enumerate() {
            wk.index.insert(p, wk.faces.keys[i], i);
        }
    }

    /// The length of location `l`'s trace the product was fed.
    pub fn len_of(&self, l: usize) -> usize {
        self.lens[l] as usize
    }

    /// Gives back the product as it was before a push of location `j` that ran out of the
    /// vertex budget (`Err` from [`Product::push`]): such a push changes nothing but the
    /// length of `j`'s trace before it runs out.
    pub fn undo_too_wide(&mut self, j: usize) {
        self.lens[j] -= 1;
    }

    /// Drops the vertices no longer on any face from the store (in order), and renumbers the
    /// faces' lists (`map`: scratch).
    pub(super) fn compact(&mut self, map: &mut Vec<u32>) {
        let (k, w) = (self.k as usize, self.w as usize);
        let f = &mut self.faces;
        let n = f.len();
        map.clear();
        let mut keep = 0;
        let mut v = 0;
        // Kept vertices come in runs (a push leaves its new face in one piece), each moved
        // by one copy.
        while v < n {
            if f.keys[v] == GONE {
                map.push(keep as u32);
                v += 1;
                continue;
            }
            let start = v;
            while v < n && f.keys[v] != GONE {
                v += 1;
            }
            map.extend(keep as u32..(keep + v - start) as u32);
            if keep != start {
                f.pos.copy_within(start * k..v * k, keep * k);
                f.sets.copy_within(start * w..v * w, keep * w);
                f.keys.copy_within(start..v, keep);
            }
            keep += v - start;
        }
        f.pos.truncate(keep * k);
        f.sets.truncate(keep * w);
        f.keys.truncate(keep);
        for list in &mut self.on {
            for v in list.iter_mut() {
                *v = map[*v as usize];
            }
        }
        self.gone = 0;
    }

    pub(super) fn too_wide(&self, extra: usize) -> TooWide {
        let k = self.k as usize;
        let mut per = vec![0usize; k];
        for (p, &key) in self.faces.pos.chunks_exact(k).zip(&self.faces.keys) {
            if key == GONE {
                continue;
            }
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
}
