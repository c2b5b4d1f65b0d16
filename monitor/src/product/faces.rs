//! The flat store of a product's vertices ([`Faces`]: positions, keys and state sets) and the
//! index that finds a vertex by its position while a push or a search runs ([`Index`]: a
//! dense grid over the box the positions lie in, else a hash map of their keys).
//!
//! Invariant: a vertex's key is [`key_of`] its position, never [`GONE`] (the key of a vertex
//! no longer on any face); the index answers for the vertices inserted since its last
//! [`Index::begin`] only.

use super::words::append;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

/// Vertices with their state sets, flat: `k` positions, one key (a hash of the positions,
/// compared before them) and `w` words each.
#[derive(Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Faces {
    pub(super) pos: Vec<u32>,
    pub(super) keys: Vec<u64>,
    pub(super) sets: Vec<u64>,
}

/// Whether two positions are equal (element by element: for a few words, a call to `memcmp`
/// cost more than the comparison).
#[inline(always)]
pub(super) fn same(a: &[u32], b: &[u32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// The key of a vertex no longer on any face ([`Product::on`](super::store::Product::on)), left in place until the next
/// compaction; [`key_of`] never gives it, so lookups never find such a vertex.
pub(super) const GONE: u64 = u64::MAX;

/// A length fixed at compile time (`N`), or the runtime one when `N` is 0: the product's
/// hot loops are compiled once per common shape (positions of `K` locations, sets of `W`
/// words) and once for any shape.
#[inline(always)]
pub(super) fn fixed_len<const N: usize>(runtime: usize) -> usize {
    if N == 0 {
        runtime
    } else {
        debug_assert_eq!(N, runtime, "a product's shape is not the one compiled for");
        N
    }
}

pub(super) fn key_of(p: &[u32]) -> u64 {
    let h = p.iter().fold(0u64, |h, &x| {
        (h ^ u64::from(x)).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    });
    h.min(GONE - 1)
}

impl Clone for Faces {
    fn clone(&self) -> Self {
        Faces {
            pos: self.pos.clone(),
            keys: self.keys.clone(),
            sets: self.sets.clone(),
        }
    }

    /// Into the buffers already there (the derived one would allocate anew).
    fn clone_from(&mut self, other: &Self) {
        self.copy_from(other);
    }
}

impl Faces {
    pub(super) fn len(&self) -> usize {
        self.keys.len()
    }

    pub(super) fn clear(&mut self) {
        self.pos.clear();
        self.keys.clear();
        self.sets.clear();
    }

    /// Copies `other` into these buffers (a derived `clone_from` would allocate anew).
    pub(super) fn copy_from(&mut self, other: &Faces) {
        self.clear();
        self.pos.extend_from_slice(&other.pos);
        self.keys.extend_from_slice(&other.keys);
        self.sets.extend_from_slice(&other.sets);
    }

    /// The vertex at `target` (positions are unique, so at most one), from the newest: the
    /// one asked for most (the end of the multitrace) was usually made by the last event.
    pub(super) fn find(&self, k: usize, target: &[u32], key: u64) -> Option<usize> {
        (0..self.keys.len())
            .rev()
            .find(|&i| self.keys[i] == key && same(&self.pos[i * k..(i + 1) * k], target))
    }
}

/// Where the vertices of [`Work::faces`](super::work::Work::faces) are, by position. The positions a push or a search
/// reaches lie in a box (from the least stored coordinate to `n` on each axis), so a dense
/// grid over the box finds a vertex by one array read; a box of more than [`MAX_CELLS`]
/// cells is indexed by a hash map of the vertices' keys instead. (Before the grid, the map
/// was used always: on AutomatArk NFA12, whose faces hold hundreds of vertices, hashing and
/// probing was most of the monitor's time.)
#[derive(Default)]
pub(super) struct Index {
    /// `cells[Σ (p_i - lo_i) · stride_i]`: the vertex at `p` in its low half, valid when its
    /// high half is `stamp` (a new use takes a new stamp: nothing is cleared between uses,
    /// and a use cut short by an error leaves nothing behind).
    pub(super) cells: Vec<u64>,
    pub(super) stamp: u32,
    pub(super) lo: Vec<u32>,
    pub(super) stride: Vec<usize>,
    /// The grid is in use (else `hash`).
    pub(super) dense: bool,
    /// Key → the first vertex with that key (a collision is scanned).
    pub(super) hash: FxHashMap<u64, u32>,
}

/// Most cells of an [`Index`]'s grid (8 MB per thread); a wider box is indexed by hash.
pub(super) const MAX_CELLS: usize = 1 << 20;

impl Index {
    /// Starts a use: positions `lo ..= hi`, empty.
    pub(super) fn begin(&mut self, lo: &[u32], hi: &[u32]) {
        self.lo.clear();
        append(&mut self.lo, lo);
        self.stride.clear();
        let mut cells = 1usize;
        for (&l, &h) in lo.iter().zip(hi) {
            self.stride.push(cells);
            cells = cells.saturating_mul((h - l) as usize + 1);
        }
        self.dense = cells <= MAX_CELLS;
        if !self.dense {
            self.hash.clear();
            return;
        }
        if self.cells.len() < cells {
            self.cells.resize(cells, 0);
        }
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            // Stamps wrapped: no cell may look valid.
            self.cells.fill(0);
            self.stamp = 1;
        }
    }

    #[inline(always)]
    pub(super) fn cell(&self, p: &[u32]) -> usize {
        let mut c = 0;
        for i in 0..p.len() {
            debug_assert!(p[i] >= self.lo[i], "a position outside the index's box");
            c += (p[i] - self.lo[i]) as usize * self.stride[i];
        }
        c
    }

    /// The cell of `p` when the grid is in use (else 0): the cell of `p`'s successor on axis
    /// `i` is then this one plus `stride[i]` ([`Work::extend`](super::work::Work::extend) computes it once per vertex).
    #[inline(always)]
    pub(super) fn cell_of(&self, p: &[u32]) -> usize {
        if self.dense {
            self.cell(p)
        } else {
            0
        }
    }

    /// The vertex in grid cell `c` (the grid is in use).
    #[inline(always)]
    pub(super) fn get_cell(&self, c: usize) -> Option<usize> {
        let c = self.cells[c];
        ((c >> 32) as u32 == self.stamp).then_some(c as u32 as usize)
    }

    /// The vertex of `faces` at `at` (whose key is `key`).
    #[inline(always)]
    pub(super) fn get(&self, faces: &Faces, k: usize, at: &[u32], key: u64) -> Option<usize> {
        if self.dense {
            return self.get_cell(self.cell(at));
        }
        self.get_hashed(faces, k, at, key)
    }

    /// [`Index::get`] when the index hashes.
    #[inline(always)]
    pub(super) fn get_hashed(
        &self,
        faces: &Faces,
        k: usize,
        at: &[u32],
        key: u64,
    ) -> Option<usize> {
        match self.hash.get(&key) {
            Some(&i) if same(&faces.pos[i as usize * k..(i as usize + 1) * k], at) => {
                Some(i as usize)
            }
            Some(_) => faces.find(k, at, key),
            None => None,
        }
    }

    /// Indexes vertex `v` at `at` (whose key is `key`); no vertex is indexed there yet.
    #[inline(always)]
    pub(super) fn insert(&mut self, at: &[u32], key: u64, v: usize) {
        if self.dense {
            self.insert_cell(self.cell(at), v);
        } else {
            self.hash.entry(key).or_insert(v as u32);
        }
    }

    /// Indexes vertex `v` in grid cell `c` (the grid is in use).
    #[inline(always)]
    pub(super) fn insert_cell(&mut self, c: usize, v: usize) {
        self.cells[c] = (u64::from(self.stamp) << 32) | v as u64;
    }
}
