//! The buffers of one thread's pushes and searches ([`Work`], one per thread in [`WORK`]):
//! the faces being built, the stack of vertices with states new there, scratch sets.
//!
//! Invariant: a push or a search starts by [`Work::reset`]; nothing in the buffers outlives
//! it (every use writes a scratch set before it reads it), so a push allocates nothing once
//! the buffers grew.

use super::faces::{fixed_len, key_of, Faces, Index};
use super::kernel::Kernel;
use super::words::{append, copy, is_empty, zero};
use multitrace_model::nfa::LetterId;
use std::cell::RefCell;

/// Buffers of one thread's pushes and searches (a push allocates nothing once they grew).
#[derive(Default)]
pub(super) struct Work {
    pub(super) faces: Faces,
    /// Pending (vertex, states new there), the sets flat in `deltas`.
    pub(super) stack: Vec<u32>,
    pub(super) deltas: Vec<u64>,
    pub(super) t: Vec<u64>,
    pub(super) d: Vec<u64>,
    pub(super) delta: Vec<u64>,
    pub(super) at: Vec<u32>,
    pub(super) known: Vec<u64>,
    pub(super) silent: Vec<bool>,
    /// The vertices of `faces` by position.
    pub(super) index: Index,
    /// The least coordinates of the vertices a push or search starts from.
    pub(super) lo: Vec<u32>,
    /// New places of stored vertices ([`Product::compact`](super::store::Product::compact)).
    pub(super) at_map: Vec<u32>,
}

impl Work {
    /// Empties the buffers for a push or a search on a product of `k` locations and `w`
    /// words per set. The scratch sets and positions keep their contents (every use writes
    /// them before it reads them); only their lengths are set, once per shape.
    pub(super) fn reset(&mut self, k: usize, w: usize) {
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
    pub(super) fn push_work<const W: usize>(&mut self, v: usize) {
        let w = fixed_len::<W>(self.delta.len());
        self.stack.push(v as u32);
        append(&mut self.deltas, &self.delta[..w]);
    }

    /// The successor of vertex `u` on axis `i`, by the next letter location `i` logged (none
    /// when its trace is read up to `lens[i]`): its position in `at`, the states `d` reaches
    /// in `t`; `false` when there is none or no state is reached.
    #[inline(always)]
    pub(super) fn successor<const K: usize, const W: usize>(
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
    pub(super) fn extend<const K: usize, const W: usize>(
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
    pub(super) fn add_moved<const K: usize, const W: usize>(&mut self, from: &[u32], axis: usize) {
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
    pub(super) fn pop_work<const W: usize>(&mut self, w: usize) -> Option<usize> {
        let w = fixed_len::<W>(w);
        let v = self.stack.pop()? as usize;
        let at = self.deltas.len() - w;
        copy(&mut self.d[..w], &self.deltas[at..at + w]);
        self.deltas.truncate(at);
        Some(v)
    }
}

thread_local! {
    pub(super) static WORK: RefCell<Work> = RefCell::new(Work::default());
}
