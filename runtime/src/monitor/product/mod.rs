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

// Index loops over locations keep positions, lengths and traces visibly in step.
#![allow(clippy::needless_range_loop)]

/// Calls `$p.$f::<K, W>($args)` with the shape its hot loops are compiled for: positions of
/// `K` locations and sets of `W` words for the common shapes (three locations, sets of one
/// or two words), lengths known at compile time (no loop over a runtime length, no bounds
/// check); `0` for a length read at run time ([`fixed_len`]).
macro_rules! by_shape {
    ($p:expr, $f:ident($($arg:expr),* $(,)?)) => {
        match ($p.k, $p.w) {
            (3, 1) => $p.$f::<3, 1>($($arg),*),
            (3, 2) => $p.$f::<3, 2>($($arg),*),
            (_, 1) => $p.$f::<0, 1>($($arg),*),
            (_, 2) => $p.$f::<0, 2>($($arg),*),
            _ => $p.$f::<0, 0>($($arg),*),
        }
    };
}

mod closure;
mod extension;
mod memo;
mod search;
mod step;
mod sweep;
mod words;

pub use closure::closure_rows;
/// Random automata and the walks the product's tests compare it with.
#[cfg(test)]
pub(super) use closure::tests as test_models;
pub use extension::{Frontier, FrontierSearch};

use crate::check::ac::AcTables;
use crate::nfa::{Alphabet, LetterId, Nfa};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use words::{append, copy, zero};

/// Vertices with their state sets, flat: `k` positions, one key (a hash of the positions,
/// compared before them) and `w` words each.
#[derive(Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
struct Faces {
    pos: Vec<u32>,
    keys: Vec<u64>,
    sets: Vec<u64>,
}

/// Whether two positions are equal (element by element: for a few words, a call to `memcmp`
/// cost more than the comparison).
#[inline(always)]
fn same(a: &[u32], b: &[u32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// The key of a vertex no longer on any face ([`Product::on`]), left in place until the next
/// compaction; [`key_of`] never gives it, so lookups never find such a vertex.
const GONE: u64 = u64::MAX;

/// A length fixed at compile time (`N`), or the runtime one when `N` is 0: the product's
/// hot loops are compiled once per common shape (positions of `K` locations, sets of `W`
/// words) and once for any shape.
#[inline(always)]
fn fixed_len<const N: usize>(runtime: usize) -> usize {
    if N == 0 {
        runtime
    } else {
        debug_assert_eq!(N, runtime, "a product's shape is not the one compiled for");
        N
    }
}

fn key_of(p: &[u32]) -> u64 {
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
    fn len(&self) -> usize {
        self.keys.len()
    }

    fn clear(&mut self) {
        self.pos.clear();
        self.keys.clear();
        self.sets.clear();
    }

    /// Copies `other` into these buffers (a derived `clone_from` would allocate anew).
    fn copy_from(&mut self, other: &Faces) {
        self.clear();
        self.pos.extend_from_slice(&other.pos);
        self.keys.extend_from_slice(&other.keys);
        self.sets.extend_from_slice(&other.sets);
    }

    /// The vertex at `target` (positions are unique, so at most one), from the newest: the
    /// one asked for most (the end of the multitrace) was usually made by the last event.
    fn find(&self, k: usize, target: &[u32], key: u64) -> Option<usize> {
        (0..self.keys.len())
            .rev()
            .find(|&i| self.keys[i] == key && same(&self.pos[i * k..(i + 1) * k], target))
    }
}

/// Where the vertices of [`Work::faces`] are, by position. The positions a push or a search
/// reaches lie in a box (from the least stored coordinate to `n` on each axis), so a dense
/// grid over the box finds a vertex by one array read; a box of more than [`MAX_CELLS`]
/// cells is indexed by a hash map of the vertices' keys instead. (Before the grid, the map
/// was used always: on AutomatArk NFA12, whose faces hold hundreds of vertices, hashing and
/// probing was most of the monitor's time.)
#[derive(Default)]
struct Index {
    /// `cells[Σ (p_i - lo_i) · stride_i]`: the vertex at `p` in its low half, valid when its
    /// high half is `stamp` (a new use takes a new stamp: nothing is cleared between uses,
    /// and a use cut short by an error leaves nothing behind).
    cells: Vec<u64>,
    stamp: u32,
    lo: Vec<u32>,
    stride: Vec<usize>,
    /// The grid is in use (else `hash`).
    dense: bool,
    /// Key → the first vertex with that key (a collision is scanned).
    hash: FxHashMap<u64, u32>,
}

/// Most cells of an [`Index`]'s grid (8 MB per thread); a wider box is indexed by hash.
const MAX_CELLS: usize = 1 << 20;

impl Index {
    /// Starts a use: positions `lo ..= hi`, empty.
    fn begin(&mut self, lo: &[u32], hi: &[u32]) {
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
    fn cell(&self, p: &[u32]) -> usize {
        let mut c = 0;
        for i in 0..p.len() {
            debug_assert!(p[i] >= self.lo[i], "a position outside the index's box");
            c += (p[i] - self.lo[i]) as usize * self.stride[i];
        }
        c
    }

    /// The cell of `p` when the grid is in use (else 0): the cell of `p`'s successor on axis
    /// `i` is then this one plus `stride[i]` ([`Work::extend`] computes it once per vertex).
    #[inline(always)]
    fn cell_of(&self, p: &[u32]) -> usize {
        if self.dense {
            self.cell(p)
        } else {
            0
        }
    }

    /// The vertex in grid cell `c` (the grid is in use).
    #[inline(always)]
    fn get_cell(&self, c: usize) -> Option<usize> {
        let c = self.cells[c];
        ((c >> 32) as u32 == self.stamp).then_some(c as u32 as usize)
    }

    /// The vertex of `faces` at `at` (whose key is `key`).
    #[inline(always)]
    fn get(&self, faces: &Faces, k: usize, at: &[u32], key: u64) -> Option<usize> {
        if self.dense {
            return self.get_cell(self.cell(at));
        }
        self.get_hashed(faces, k, at, key)
    }

    /// [`Index::get`] when the index hashes.
    #[inline(always)]
    fn get_hashed(&self, faces: &Faces, k: usize, at: &[u32], key: u64) -> Option<usize> {
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
    fn insert(&mut self, at: &[u32], key: u64, v: usize) {
        if self.dense {
            self.insert_cell(self.cell(at), v);
        } else {
            self.hash.entry(key).or_insert(v as u32);
        }
    }

    /// Indexes vertex `v` in grid cell `c` (the grid is in use).
    #[inline(always)]
    fn insert_cell(&mut self, c: usize, v: usize) {
        self.cells[c] = (u64::from(self.stamp) << 32) | v as u64;
    }
}

/// Buffers of one thread's pushes and searches (a push allocates nothing once they grew).
#[derive(Default)]
struct Work {
    faces: Faces,
    /// Pending (vertex, states new there), the sets flat in `deltas`.
    stack: Vec<u32>,
    deltas: Vec<u64>,
    t: Vec<u64>,
    d: Vec<u64>,
    delta: Vec<u64>,
    at: Vec<u32>,
    known: Vec<u64>,
    silent: Vec<bool>,
    /// The vertices of `faces` by position.
    index: Index,
    /// The least coordinates of the vertices a push or search starts from.
    lo: Vec<u32>,
    /// New places of stored vertices ([`Product::compact`]).
    at_map: Vec<u32>,
}

impl Work {
    /// Empties the buffers for a push or a search on a product of `k` locations and `w`
    /// words per set. The scratch sets and positions keep their contents (every use writes
    /// them before it reads them); only their lengths are set, once per shape.
    fn reset(&mut self, k: usize, w: usize) {
        self.faces.clear();
        self.stack.clear();
        self.deltas.clear();
        if self.t.len() != w {
            for v in [&mut self.t, &mut self.d, &mut self.delta, &mut self.known] {
                v.clear();
                v.resize(w, 0);
            }
        }
        if self.at.len() != k {
            self.at.clear();
            self.at.resize(k, 0);
            self.silent.clear();
            self.silent.resize(k, false);
        }
    }

    #[inline(always)]
    fn push_work<const W: usize>(&mut self, v: usize) {
        let w = fixed_len::<W>(self.delta.len());
        self.stack.push(v as u32);
        append(&mut self.deltas, &self.delta[..w]);
    }

    /// The successor of vertex `u` on axis `i`, by the next letter location `i` logged (none
    /// when its trace is read up to `lens[i]`): its position in `at`, the states `d` reaches
    /// in `t`; `false` when there is none or no state is reached.
    #[inline(always)]
    fn successor<const K: usize, const W: usize>(
        &mut self,
        kernel: &Kernel<'_>,
        traces: &[Vec<LetterId>],
        lens: &[u32],
        u: usize,
        i: usize,
    ) -> bool {
        let (k, w) = (fixed_len::<K>(lens.len()), fixed_len::<W>(self.d.len()));
        let ui = self.faces.pos[u * k + i];
        if ui >= lens[i] {
            return false;
        }
        let t = &mut self.t[..w];
        zero(t);
        kernel.step(&self.d[..w], traces[i][ui as usize], t);
        if is_empty(t) {
            return false;
        }
        copy(&mut self.at[..k], &self.faces.pos[u * k..(u + 1) * k]);
        self.at[i] += 1;
        true
    }

    /// Extends vertex `u` (its new states in `d`, its grid cell `ucell`:
    /// [`Index::cell_of`]) by the next letter location `i` logged (none when its trace is
    /// read up to `lens[i]`): the successor vertex gets the states reached, and is queued
    /// when any of them is new there.
    #[inline(always)]
    fn extend<const K: usize, const W: usize>(
        &mut self,
        kernel: &Kernel<'_>,
        traces: &[Vec<LetterId>],
        lens: &[u32],
        u: usize,
        i: usize,
        ucell: usize,
    ) {
        let (k, w) = (fixed_len::<K>(lens.len()), fixed_len::<W>(self.d.len()));
        if !self.successor::<K, W>(kernel, traces, lens, u, i) {
            return;
        }
        let f = &mut self.faces;
        // In the grid, the successor's cell is `u`'s plus the axis' stride (no key, no
        // product of positions by strides).
        let cell = ucell + self.index.stride[i];
        let found = if self.index.dense {
            self.index.get_cell(cell)
        } else {
            self.index.get_hashed(f, k, &self.at, key_of(&self.at))
        };
        match found {
            Some(v) => {
                // Queued when any state is new there (with those states).
                let mut any = 0;
                let set = &mut f.sets[v * w..(v + 1) * w];
                for ((s, &t), delta) in set.iter_mut().zip(&self.t[..w]).zip(&mut self.delta[..w]) {
                    let d = t & !*s;
                    *s |= d;
                    *delta = d;
                    any |= d;
                }
                if any != 0 {
                    self.push_work::<W>(v);
                }
            }
            None => {
                let v = f.len();
                let at = &self.at[..k];
                let key = key_of(at);
                if self.index.dense {
                    self.index.insert_cell(cell, v);
                } else {
                    self.index.insert(at, key, v);
                }
                append(&mut f.pos, at);
                f.keys.push(key);
                append(&mut f.sets, &self.t[..w]);
                copy(&mut self.delta[..w], &self.t[..w]);
                self.push_work::<W>(v);
            }
        }
    }

    /// Adds the vertex at `from` moved by one along axis `axis`, with the states in `t` (all
    /// new: the caller knows no vertex is there yet), and queues it with those states.
    #[inline(always)]
    fn add_moved<const K: usize, const W: usize>(&mut self, from: &[u32], axis: usize) {
        let (k, w) = (fixed_len::<K>(from.len()), fixed_len::<W>(self.t.len()));
        let at = &mut self.at[..k];
        copy(at, from);
        at[axis] += 1;
        let key = key_of(at);
        self.index.insert(at, key, self.faces.len());
        append(&mut self.faces.pos, at);
        self.faces.keys.push(key);
        append(&mut self.faces.sets, &self.t[..w]);
        copy(&mut self.delta[..w], &self.t[..w]);
        self.push_work::<W>(self.faces.len() - 1);
    }

    /// Pops a pending vertex into `d`.
    #[inline(always)]
    fn pop_work<const W: usize>(&mut self, w: usize) -> Option<usize> {
        let w = fixed_len::<W>(w);
        let v = self.stack.pop()? as usize;
        let at = self.deltas.len() - w;
        copy(&mut self.d[..w], &self.deltas[at..at + w]);
        self.deltas.truncate(at);
        Some(v)
    }
}

thread_local! {
    static WORK: RefCell<Work> = RefCell::new(Work::default());
}

/// The stored vertices of one run's product.
#[derive(Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Product {
    /// Locations.
    k: u32,
    /// Words per state set.
    w: u32,
    /// `n`: the length of each local trace fed so far.
    lens: Vec<u32>,
    faces: Faces,
    /// `on[i]`: the stored vertices of face `i` (`v_i = n_i`), in storage order. An event of
    /// location `j` reads face `j` only, and drops from the store only those of its old
    /// vertices on no other face: its work follows face `j`, not every stored vertex (a
    /// location that stays idle keeps a wide face that other events need not scan).
    on: Vec<Vec<u32>>,
    /// Vertices of `faces` no longer on any face (key [`GONE`]), until the next compaction.
    gone: u32,
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

/// The automaton a product steps on, with the letter → location map.
#[derive(Clone, Copy)]
pub struct Kernel<'a> {
    /// AC's tables of the model.
    pub tables: &'a AcTables,
    /// The model's automaton.
    pub nfa: &'a Nfa,
    /// The model's alphabet.
    pub alphabet: &'a Alphabet,
    /// The model's closure rows ([`closure_rows`]): the states each state reaches by letters
    /// of one location alone, then, for a small model, by letters of each subset of the
    /// locations.
    pub closure: &'a [u64],
}

/// The product grew past its vertex budget while extending location `location`'s face.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooWide {
    /// The location whose face holds the most vertices (the one lagging behind).
    pub location: usize,
    /// Vertices stored when the budget ran out.
    pub vertices: usize,
}

fn is_empty(s: &[u64]) -> bool {
    s.iter().all(|&x| x == 0)
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

    fn push_in<const K: usize, const W: usize>(
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
    fn load<const K: usize, const W: usize>(&self, wk: &mut Work) {
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
    fn compact(&mut self, map: &mut Vec<u32>) {
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

    fn too_wide(&self, extra: usize) -> TooWide {
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
