//! A product moved past many events at once: the region between the stored faces and the
//! new lengths swept in order of levels, each vertex stepped once.
//!
//! A run whose guess holds feeds its product nothing ([`crate`]'s guess); when the
//! guess breaks, or the run's record needs the product, the product is behind by the events
//! since. Fed one at a time, each event paid a push's fixed cost (the face's box, its index,
//! the lists) for a fraction of a new vertex (on the MQTT set, 0.7 new vertices and about 950
//! instructions a push; the catch-ups were a tenth of the monitor's time). The sweep computes
//! the same product directly. A sweep that grows wider than a given number of new vertices
//! per event gives up (the product unchanged) and the events are pushed: at a break the
//! region is often wider than the budget (AutomatArk NFA12, about 97 new vertices per
//! event), and the sweep's work is then lost (measured: 6 % more instructions on NFA12 when
//! breaks swept without that bound).
//!
//! Why it is the same: let `n0` be the product's lengths and `n1 ≥ n0` the new ones, `D` the
//! locations with new events. A vertex `v ≤ n1` not `≤ n0` is *new*; its predecessor on an
//! axis is either new or `≤ n0`, and then it lies on the old face of an axis of `D` (it is
//! `v` minus one step on an axis where `v` passes `n0`): a stored vertex when its set is not
//! empty (the product's invariant). So the sets of the new vertices are the least ones
//! closed under the steps from the stored vertices of the faces of `D` across their face,
//! and from new vertices on any axis below `n1`; a step adds one to the level (the sum of the
//! coordinates), so visiting the new vertices by increasing level steps each once, its set
//! complete. The product at `n1` stores the vertices on its upper faces with non-empty sets:
//! the old ones on a face of a location without new events (their sets unchanged), and the
//! new ones on a face of `n1`. Storage order differs from the pushes' (the tests compare the
//! stored vertices as sets, and `state_bytes` counts content).
//!
//! Budget: the pushes run out at the first event `t` whose new face is not empty and where
//! the vertices stored before it and those of its new face are more than `max_vertices` (a
//! push checks that count as its face grows, and the face only grows). With the sets of all
//! the new vertices known, that count is known for every `t` without pushing: a vertex `v`
//! (its set not empty) is stored from the event after which `n ≥ v` (the last of its
//! coordinates reached; it is then on that location's new face) until the event after which
//! `n > v` on every axis (never, when some location does not get that far). When some `t`
//! runs out, the sweep gives up before changing anything and the pushes run, which give the
//! error (its vertex count and widest face are the record's) exactly as before. The sweep also gives up when the new vertices, those the
//! pushes would only hold for a while included, are more than [`SWEPT`] times the budget: its
//! memory stays a multiple of the product's.

use super::faces::{fixed_len, key_of, GONE};
use super::kernel::Kernel;
use super::store::{Product, TooWide};
use super::words::{append, copy, is_empty, zero};
use super::work::{Work, WORK};
use multitrace_model::nfa::LetterId;

/// The new vertices a sweep may hold, in multiples of the vertex budget.
pub(super) const SWEPT: usize = 1;

/// How a sweep ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Swept {
    /// The product is past the events.
    Done,
    /// A push among the events would run out of the budget: the product is unchanged.
    RunsOut,
    /// The sweep would hold too many new vertices: the product is unchanged.
    TooLarge,
}

/// A location that never gets as far (in [`Product::sweep_in`]'s times).
const NEVER: u32 = u32::MAX;

impl Product {
    /// Feeds the events of `behind` (their locations, in the order they came; each the next
    /// letter of its location's trace past the product's length): the product, and the
    /// error, that pushing them one at a time ([`Product::push`]) gives. `per_event`: the
    /// new vertices a sweep may make per event before it gives up for the pushes (the work
    /// it may lose, relative to theirs).
    pub fn advance(
        &mut self,
        kernel: &Kernel<'_>,
        traces: &[Vec<LetterId>],
        behind: &[u32],
        max_vertices: usize,
        per_event: usize,
    ) -> Result<(), TooWide> {
        // One event is one push: no sweep to set up. A product whose faces are wide for the
        // events it is behind by is pushed too: the sweep's region is then wide, looked up in
        // a large grid or by hash (on AutomatArk NFA12, whose faces hold hundreds of vertices,
        // sweeps cost a quarter more than the pushes).
        if behind.len() > 1 && self.vertices().saturating_mul(behind.len()) <= max_vertices {
            let mut upto = self.lens.clone();
            for &l in behind {
                upto[l as usize] += 1;
            }
            let cap = per_event
                .saturating_mul(behind.len())
                .min(max_vertices.saturating_mul(SWEPT));
            let swept = WORK.with(|work| {
                let wk = &mut work.borrow_mut();
                by_shape!(
                    self,
                    sweep_in(wk, kernel, traces, behind, &upto, max_vertices, cap)
                )
            });
            if swept == Swept::Done {
                return Ok(());
            }
        }
        for &l in behind {
            let l = l as usize;
            let a = traces[l][self.lens[l] as usize];
            self.push(kernel, traces, l, a, max_vertices)?;
        }
        Ok(())
    }

    /// The sweep of the events `behind`, up to `upto` (the product unchanged unless it is
    /// done).
    #[allow(clippy::too_many_arguments)]
    fn sweep_in<const K: usize, const W: usize>(
        &mut self,
        wk: &mut Work,
        kernel: &Kernel<'_>,
        traces: &[Vec<LetterId>],
        behind: &[u32],
        upto: &[u32],
        max_vertices: usize,
        cap: usize,
    ) -> Swept {
        let (k, w) = (
            fixed_len::<K>(self.k as usize),
            fixed_len::<W>(self.w as usize),
        );
        wk.reset(k, w);
        let n0 = &self.lens;
        let old = &self.faces;
        let grows = |i: usize| upto[i] > n0[i];
        // The box: from the least coordinates of the seeds (the stored vertices on a face
        // that moves) to `upto`.
        wk.lo.clear();
        append(&mut wk.lo, upto);
        for i in (0..k).filter(|&i| grows(i)) {
            for &v in &self.on[i] {
                let p = &old.pos[v as usize * k..(v as usize + 1) * k];
                for (lo, &x) in wk.lo.iter_mut().zip(p) {
                    *lo = (*lo).min(x);
                }
            }
        }
        wk.index.begin(&wk.lo, upto);
        if !wk.index.dense {
            return Swept::TooLarge;
        }
        let budget = cap;
        // `stack`: the new vertices reached across the old faces, then sorted by level.
        for i in (0..k).filter(|&i| grows(i)) {
            let a = traces[i][n0[i] as usize];
            for &v in &self.on[i] {
                let v = v as usize;
                let t = &mut wk.t[..w];
                zero(t);
                kernel.step(&old.sets[v * w..(v + 1) * w], a, t);
                if is_empty(t) {
                    continue;
                }
                copy(&mut wk.at[..k], &old.pos[v * k..(v + 1) * k]);
                wk.at[i] += 1;
                let cell = wk.index.cell_of(&wk.at[..k]);
                if let Some(new) = wk.reach::<K, W>(cell) {
                    wk.stack.push(new as u32);
                }
            }
        }
        if wk.faces.len() > budget {
            return Swept::TooLarge;
        }
        let level = |wk: &Work, v: u32| -> u32 {
            wk.faces.pos[v as usize * k..(v as usize + 1) * k]
                .iter()
                .sum()
        };
        // Stable: the order of the vertices is a function of the product and the events.
        let mut seeds: Vec<(u32, u32)> = wk.stack.iter().map(|&v| (level(wk, v), v)).collect();
        seeds.sort_by_key(|&(l, _)| l);
        wk.stack.clear();
        // Level by level: the seeds of the level, then the vertices first reached from the
        // level below (`next`, all of level `l + 1`); each vertex is stepped when all its
        // predecessors were.
        let mut cur: Vec<u32> = Vec::new();
        let mut next: Vec<u32> = Vec::new();
        let mut next_level = 0;
        let mut s = 0;
        loop {
            let l = match (seeds.get(s), next.is_empty()) {
                (Some(&(a, _)), false) => a.min(next_level),
                (Some(&(a, _)), true) => a,
                (None, false) => next_level,
                (None, true) => break,
            };
            cur.clear();
            if !next.is_empty() && next_level == l {
                std::mem::swap(&mut cur, &mut next);
            }
            while s < seeds.len() && seeds[s].0 == l {
                cur.push(seeds[s].1);
                s += 1;
            }
            next_level = l + 1;
            for &u in &cur {
                let u = u as usize;
                copy(&mut wk.d[..w], &wk.faces.sets[u * w..(u + 1) * w]);
                // In the grid, a successor's cell is `u`'s plus the axis' stride.
                let ucell = wk.index.cell_of(&wk.faces.pos[u * k..(u + 1) * k]);
                for i in 0..k {
                    if !wk.successor::<K, W>(kernel, traces, upto, u, i) {
                        continue;
                    }
                    // (`stride` is set in both modes; the cell is read only in the grid.)
                    let cell = ucell + wk.index.stride[i];
                    if let Some(new) = wk.reach::<K, W>(cell) {
                        next.push(new as u32);
                    }
                }
                if wk.faces.len() > budget {
                    return Swept::TooLarge;
                }
            }
        }
        // (Within the budget at every event when all of them are at once.)
        if self.vertices() + wk.faces.len() > max_vertices && !self.fits(wk, behind, max_vertices) {
            return Swept::RunsOut;
        }
        // The old vertices on no face of `upto` leave the store (left in place, as a push
        // leaves them); those on a face without new events stay, in their lists.
        let f = &mut self.faces;
        for i in (0..k).filter(|&i| grows(i)) {
            for &v in &self.on[i] {
                let v = v as usize;
                if f.keys[v] != GONE
                    && !(0..k).any(|j| upto[j] == n0[j] && f.pos[v * k + j] == n0[j])
                {
                    f.keys[v] = GONE;
                    self.gone += 1;
                }
            }
        }
        for i in (0..k).filter(|&i| grows(i)) {
            self.on[i].clear();
        }
        // The new vertices on a face of `upto`, in the order they were reached.
        for t in 0..wk.faces.len() {
            let p = &wk.faces.pos[t * k..(t + 1) * k];
            if !(0..k).any(|i| p[i] == upto[i]) {
                continue;
            }
            let id = f.len() as u32;
            append(&mut f.pos, p);
            f.keys.push(wk.faces.keys[t]);
            append(&mut f.sets, &wk.faces.sets[t * w..(t + 1) * w]);
            for i in (0..k).filter(|&i| p[i] == upto[i]) {
                self.on[i].push(id);
            }
        }
        self.lens.clear();
        self.lens.extend_from_slice(upto);
        if self.gone as usize > self.vertices().max(8) {
            self.compact(&mut wk.at_map);
        }
        Swept::Done
    }
}

impl Product {
    /// How a sweep of `behind` ends (on a copy of the product).
    #[cfg(test)]
    fn sweep_of(
        &self,
        kernel: &Kernel<'_>,
        traces: &[Vec<LetterId>],
        behind: &[u32],
        max_vertices: usize,
    ) -> Swept {
        let mut upto = self.lens.clone();
        for &l in behind {
            upto[l as usize] += 1;
        }
        let mut p = self.clone();
        let cap = max_vertices.saturating_mul(SWEPT);
        WORK.with(|work| {
            p.sweep_in::<0, 0>(
                &mut work.borrow_mut(),
                kernel,
                traces,
                behind,
                &upto,
                max_vertices,
                cap,
            )
        })
    }

    /// Whether pushing the events `behind` one at a time stays within `max_vertices`, the
    /// sets of the new vertices (`wk.faces`) known (see the module docs).
    fn fits(&self, wk: &Work, behind: &[u32], max_vertices: usize) -> bool {
        let k = self.k as usize;
        let n0 = &self.lens;
        // `times[j][c - n0_j - 1]`: the event (from 1) after which location `j` is at `c`.
        let mut times: Vec<Vec<u32>> = vec![Vec::new(); k];
        for (t, &l) in (1u32..).zip(behind) {
            times[l as usize].push(t);
        }
        let time = |j: usize, c: u32| -> u32 {
            if c <= n0[j] {
                0
            } else {
                times[j]
                    .get((c - n0[j] - 1) as usize)
                    .copied()
                    .unwrap_or(NEVER)
            }
        };
        let last = behind.len();
        // `change[t]`: vertices stored after event `t` less those stored before it;
        // `fresh[t]`: the vertices of event `t`'s new face.
        let mut change = vec![0i64; last + 1];
        let mut fresh = vec![0usize; last + 1];
        let span = |p: &[u32], from: usize, change: &mut [i64]| {
            change[from] += 1;
            let until = (0..k).map(|j| time(j, p[j] + 1)).max().unwrap_or(NEVER);
            if until != NEVER {
                change[until as usize] -= 1;
            }
        };
        let f = &self.faces;
        for v in (0..f.len()).filter(|&v| f.keys[v] != GONE) {
            span(&f.pos[v * k..(v + 1) * k], 0, &mut change);
        }
        for p in wk.faces.pos.chunks_exact(k) {
            let from = (0..k).map(|j| time(j, p[j])).max().unwrap_or(0) as usize;
            fresh[from] += 1;
            span(p, from, &mut change);
        }
        let mut stored = change[0];
        for t in 1..=last {
            // (A push checks only as its face grows: an empty face passes.)
            if fresh[t] > 0 && stored as usize + fresh[t] > max_vertices {
                return false;
            }
            stored += change[t];
        }
        true
    }
}

impl Work {
    /// Adds the states `t` to the vertex at `at` (made when there is none, with them), whose
    /// grid cell is `cell` when the grid is in use: `Some(id)` when it is made.
    #[inline(always)]
    fn reach<const K: usize, const W: usize>(&mut self, cell: usize) -> Option<usize> {
        let (k, w) = (fixed_len::<K>(self.at.len()), fixed_len::<W>(self.t.len()));
        let at = &self.at[..k];
        let found = if self.index.dense {
            self.index.get_cell(cell)
        } else {
            self.index.get_hashed(&self.faces, k, at, key_of(at))
        };
        match found {
            Some(v) => {
                for (s, &t) in self.faces.sets[v * w..(v + 1) * w]
                    .iter_mut()
                    .zip(&self.t[..w])
                {
                    *s |= t;
                }
                None
            }
            None => {
                let v = self.faces.len();
                let key = key_of(at);
                if self.index.dense {
                    self.index.insert_cell(cell, v);
                } else {
                    self.index.insert(at, key, v);
                }
                append(&mut self.faces.pos, at);
                self.faces.keys.push(key);
                append(&mut self.faces.sets, &self.t[..w]);
                Some(v)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::closure::tests::{random_nfa, three_locations, Parts};
    use super::super::{Product, TooWide};
    use super::Swept;
    use multitrace_model::nfa::LetterId;
    use multitrace_model::rng::Rng;

    /// On random three-location automata (sets of one to three words) and random events,
    /// from a product fed a random part of them: the sweep stores exactly the vertices, with
    /// the sets, that pushing the rest one at a time stores, and under a small budget fails
    /// (or not) as the pushes do, with the same error.
    #[test]
    fn the_sweep_stores_what_the_pushes_store() {
        let alphabet = three_locations();
        let mut rng = Rng::new(71);
        let (mut swept, mut failed, mut long) = (0, 0, 0);
        // Sweeps under a budget at the edge: done, and run out.
        let mut edge = (0, 0);
        for case in 0..900 {
            let states = [3, 8, 40, 64, 65, 130, 150][rng.below(7)];
            let transitions = rng.between(states, 5 * states);
            let nfa = random_nfa(&mut rng, states, transitions);
            let parts = Parts::new(&nfa, &alphabet);
            let kernel = parts.kernel(&nfa, &alphabet);
            // Mostly letters the automaton can read from some state, for non-empty products.
            let events: Vec<LetterId> = (0..rng.between(0, 40))
                .map(|_| LetterId(rng.below(6) as u32))
                .collect();
            let mut traces = vec![Vec::new(); 3];
            for &e in &events {
                traces[alphabet.location(e).index()].push(e);
            }
            let cut = rng.below(events.len() + 1);
            let mut p = Product::new(&kernel);
            for &e in &events[..cut] {
                let j = alphabet.location(e).index();
                p.push(&kernel, &traces, j, e, usize::MAX).unwrap();
            }
            let behind: Vec<u32> = events[cut..]
                .iter()
                .map(|&e| alphabet.location(e).index() as u32)
                .collect();
            let push_all = |budget: usize| -> (Product, Result<(), TooWide>) {
                let mut one = p.clone();
                let pushed = behind.iter().try_for_each(|&l| {
                    let l = l as usize;
                    let a = traces[l][one.len_of(l)];
                    one.push(&kernel, &traces, l, a, budget).map(|_| ())
                });
                (one, pushed)
            };
            // Every other case, a budget at the edge: one less than the least the pushes
            // need, that one, or one more.
            let budget = if case % 2 == 0 {
                let least = (1..400).find(|&b| push_all(b).1.is_ok()).unwrap_or(400);
                least - 1 + rng.below(3)
            } else {
                usize::MAX
            };
            let (one, pushed) = push_all(budget);
            // The sweep runs out exactly when a push does (unless it gives up first).
            match p.sweep_of(&kernel, &traces, &behind, budget) {
                Swept::Done => {
                    assert!(pushed.is_ok(), "case {case}");
                    edge.0 += usize::from(budget != usize::MAX);
                }
                Swept::RunsOut => {
                    assert!(
                        pushed.is_err(),
                        "case {case}: budget {budget}, {events:?} cut at {cut}, {} stored",
                        p.vertices()
                    );
                    edge.1 += 1;
                }
                Swept::TooLarge => {}
            }
            let mut all = p.clone();
            let per_event = [1, 4, usize::MAX][case % 3];
            let advanced = all.advance(&kernel, &traces, &behind, budget, per_event);
            assert_eq!(advanced, pushed, "case {case}: {events:?} cut at {cut}");
            if pushed.is_ok() {
                let (mut a, mut b) = (all.stored(), one.stored());
                a.sort();
                b.sort();
                assert_eq!(a, b, "case {case}: {events:?} cut at {cut}");
                assert_eq!(all.state_bytes(), one.state_bytes());
                assert_eq!(all.vertices(), one.vertices());
                for i in 0..3 {
                    assert_eq!(all.len_of(i), one.len_of(i));
                }
                assert_eq!(all.is_accepted(&kernel), one.is_accepted(&kernel));
                assert_eq!(
                    all.is_multi_prefix(&kernel, &traces, usize::MAX),
                    one.is_multi_prefix(&kernel, &traces, usize::MAX)
                );
                swept += 1;
                long += usize::from(behind.len() > 10 && a.len() > 3);
            } else {
                failed += 1;
            }
        }
        assert!(
            swept > 300 && failed > 20 && long > 50 && edge.0 > 50 && edge.1 > 15,
            "{swept} {failed} {long} {edge:?}"
        );
    }
}
