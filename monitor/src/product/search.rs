//! Membership questions on a product: complete membership from the end vertex, and
//! multi-prefix membership (AC's prefix mode, with silent moves) by a search over the faces
//! that propagates only what silent moves add to the stored sets.

// Index loops over locations keep positions, lengths and traces visibly in step.
#![allow(clippy::needless_range_loop)]

use super::closure::Closure;
use super::faces::{fixed_len, key_of, same, GONE};
use super::kernel::Kernel;
use super::store::{Product, TooWide};
use super::words::copy;
use super::work::{Work, WORK};
use multitrace_model::nfa::LetterId;

impl Product {
    /// Whether `R(n)` (the states reached by the whole multitrace read so far) meets `goal`.
    pub(super) fn end_meets(&self, goal: &[u64]) -> bool {
        let (k, w) = (self.k as usize, self.w as usize);
        // `n` is on every face: look in the shortest list, from its newest vertex.
        let key = key_of(&self.lens);
        let list = self
            .on
            .iter()
            .min_by_key(|l| l.len())
            .map_or(&[][..], |l| &l[..]);
        list.iter()
            .rev()
            .map(|&v| v as usize)
            .find(|&v| {
                self.faces.keys[v] == key && same(&self.faces.pos[v * k..(v + 1) * k], &self.lens)
            })
            .is_some_and(|i| {
                self.faces.sets[i * w..(i + 1) * w]
                    .iter()
                    .zip(goal)
                    .any(|(a, b)| a & b != 0)
            })
    }

    /// `R(n)`: the states the whole multitrace read so far reaches (`None`: none).
    pub fn end_set(&self) -> Option<&[u64]> {
        let (k, w) = (self.k as usize, self.w as usize);
        let key = key_of(&self.lens);
        let list = self.on.iter().min_by_key(|l| l.len())?;
        list.iter().rev().map(|&v| v as usize).find_map(|v| {
            (self.faces.keys[v] == key && same(&self.faces.pos[v * k..(v + 1) * k], &self.lens))
                .then(|| &self.faces.sets[v * w..(v + 1) * w])
        })
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
        if self.end_meets(kernel.tables.live()) {
            return Ok(true);
        }
        self.search_memo(kernel, traces, max_vertices, || {
            WORK.with(|work| self.search(&mut work.borrow_mut(), kernel, traces, max_vertices))
        })
    }

    /// The search over the faces with silent moves. The stored sets are exact for plain
    /// paths and closed under them (a face vertex's plain successors are face vertices, stored
    /// when reached), so the search starts from them and propagates only what silent moves
    /// add: the vertices whose set grows under the silent moves allowed there are the only
    /// seeds, each with the states it gains. The fixpoint is the one a search seeded with
    /// every stored set reaches (the least sets containing the stored ones, closed under
    /// silent moves and steps), at a fraction of the work: most vertices gain nothing.
    pub(super) fn search(
        &self,
        wk: &mut Work,
        kernel: &Kernel<'_>,
        traces: &[Vec<LetterId>],
        max_vertices: usize,
    ) -> Result<bool, TooWide> {
        // One copy of the search per common shape, as for the push ([`Product::push`]).
        by_shape!(self, search_in(wk, kernel, traces, max_vertices))
    }

    fn search_in<const K: usize, const W: usize>(
        &self,
        wk: &mut Work,
        kernel: &Kernel<'_>,
        traces: &[Vec<LetterId>],
        max_vertices: usize,
    ) -> Result<bool, TooWide> {
        let live = kernel.tables.live();
        let (k, w) = (
            fixed_len::<K>(self.k as usize),
            fixed_len::<W>(self.w as usize),
        );
        let closure = Closure::<W>::new(kernel.closure, k, kernel.nfa.states(), w);
        wk.reset(k, w);
        // The gains first, read on the store: most searches find none, and copy nothing.
        if self.gains::<K, W>(wk, &closure, &self.lens, live) {
            // `R(n)` meets the live states (the caller looks first; never wrong here).
            return Ok(true);
        }
        if wk.stack.is_empty() {
            // The stored sets are the fixpoint, and `R(n)` meets no live state.
            return Ok(false);
        }
        // Every vertex the search reaches lies between the stored ones and `n`.
        self.load::<K, W>(wk);
        wk.gained::<W>();
        match wk.spread::<K, W>(
            kernel,
            &closure,
            traces,
            &self.lens,
            &self.lens,
            max_vertices,
        ) {
            Some(found) => Ok(found),
            None => Err(self.too_wide(0)),
        }
    }
}

impl Product {
    /// Queues each stored vertex whose set grows under the silent moves of the locations
    /// whose trace is read up to `at_end` there, with what it gains (by its place among the
    /// stored vertices, as [`Product::load`] copies them; [`Work::gained`] adds the gains
    /// then). `true` when the vertex at `at_end` (every location silent) meets `live` as it
    /// is: no search is needed.
    #[inline(always)]
    pub(super) fn gains<const K: usize, const W: usize>(
        &self,
        wk: &mut Work,
        closure: &Closure<'_, W>,
        at_end: &[u32],
        live: &[u64],
    ) -> bool {
        let (k, w) = (
            fixed_len::<K>(self.k as usize),
            fixed_len::<W>(self.w as usize),
        );
        let f = &self.faces;
        let mut at = 0;
        for v in 0..f.len() {
            if f.keys[v] == GONE {
                continue;
            }
            // `at`: the vertex's place among the stored ones, its place in the copy.
            at += 1;
            for i in 0..k {
                wk.silent[i] = f.pos[v * k + i] == at_end[i];
            }
            let set = &f.sets[v * w..(v + 1) * w];
            if wk.silent.iter().all(|&s| s) && set.iter().zip(live).any(|(a, b)| a & b != 0) {
                return true;
            }
            if closure.is_closed(&wk.silent, set) {
                // Gains nothing: the plain paths already did all there is from here.
                continue;
            }
            copy(&mut wk.d[..w], set);
            closure.close(&wk.silent, &mut wk.d[..w], &mut wk.t[..w]);
            let mut any = 0;
            for x in 0..w {
                wk.delta[x] = wk.d[x] & !set[x];
                any |= wk.delta[x];
            }
            if any != 0 {
                // Popped with the gain as its new states: its set is closed then.
                wk.push_work::<W>(at - 1);
            }
        }
        false
    }
}

impl Work {
    /// Adds the queued gains ([`Product::gains`]) to the loaded vertices' sets.
    #[inline(always)]
    pub(super) fn gained<const W: usize>(&mut self) {
        let w = fixed_len::<W>(self.d.len());
        for (n, &v) in self.stack.iter().enumerate() {
            let v = v as usize;
            for x in 0..w {
                self.faces.sets[v * w + x] |= self.deltas[n * w + x];
            }
        }
    }
}

impl Work {
    /// Propagates the queued gains over the faces until nothing is new: each popped vertex
    /// closes its new states under the silent moves of the locations whose trace is read up
    /// to `at_end` there (a location whose entry exceeds every position is never silent),
    /// then extends them by the next letter of each location up to `lens`. `Some(true)` as
    /// soon as the vertex at `at_end` (every location silent) gains a live state,
    /// `Some(false)` at the fixpoint, `None` once more than `max_vertices` are held.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn spread<const K: usize, const W: usize>(
        &mut self,
        kernel: &Kernel<'_>,
        closure: &Closure<'_, W>,
        traces: &[Vec<LetterId>],
        lens: &[u32],
        at_end: &[u32],
        max_vertices: usize,
    ) -> Option<bool> {
        let live = kernel.tables.live();
        let (k, w) = (fixed_len::<K>(lens.len()), fixed_len::<W>(self.d.len()));
        while let Some(u) = self.pop_work::<W>(w) {
            for i in 0..k {
                self.silent[i] = self.faces.pos[u * k + i] == at_end[i];
            }
            // States of `u` other than `d` were closed and propagated (or are queued).
            for x in 0..w {
                self.known[x] = self.faces.sets[u * w + x] & !self.d[x];
            }
            closure.close(&self.silent, &mut self.d[..w], &mut self.t[..w]);
            for x in 0..w {
                self.d[x] &= !self.known[x];
                self.faces.sets[u * w + x] |= self.d[x];
            }
            if self.silent.iter().all(|&s| s)
                && self.d[..w].iter().zip(live).any(|(a, b)| a & b != 0)
            {
                return Some(true);
            }
            let ucell = self.index.cell_of(&self.faces.pos[u * k..(u + 1) * k]);
            for i in 0..k {
                self.extend::<K, W>(kernel, traces, lens, u, i, ucell);
            }
            if self.faces.len() > max_vertices {
                return None;
            }
        }
        Some(false)
    }
}

#[cfg(test)]
mod tests {
    use super::super::closure::tests::{multi_prefix_walked, shaped_case, Parts};
    use super::super::Product;
    use multitrace_check::ac::AcTables;
    use multitrace_model::nfa::{LetterId, Nfa};
    use multitrace_model::rng::Rng;
    use std::collections::{BTreeMap, HashSet};

    /// The states each position of the whole grid is reached with, position by position.
    fn grid(
        tables: &AcTables,
        nfa: &Nfa,
        traces: &[Vec<LetterId>],
        w: usize,
    ) -> BTreeMap<Vec<u32>, Vec<u64>> {
        let k = traces.len();
        let lens: Vec<u32> = traces.iter().map(|t| t.len() as u32).collect();
        let mut grid: BTreeMap<Vec<u32>, Vec<u64>> = BTreeMap::new();
        let mut v = vec![0u32; k];
        loop {
            let mut set = vec![0u64; w];
            if v.iter().all(|&x| x == 0) {
                set.copy_from_slice(&tables.initial_states()[..w]);
            }
            for i in 0..k {
                if v[i] > 0 {
                    let mut u = v.clone();
                    u[i] -= 1;
                    tables.step_into(nfa, &grid[&u], traces[i][u[i] as usize], &mut set);
                }
            }
            grid.insert(v.clone(), set);
            let Some(i) = (0..k).rev().find(|&i| v[i] < lens[i]) else {
                return grid;
            };
            v[i] += 1;
            for x in &mut v[i + 1..] {
                *x = 0;
            }
        }
    }

    /// Every shape the push and the search are compiled for (two to four locations, sets of
    /// one to three words: `(3, 1)`, `(3, 2)`, `(_, 1)`, `(_, 2)` and the general one), on
    /// random automata and runs that follow a path of the automaton, some with a location
    /// held back or a letter changed: after every event the product stores exactly the
    /// grid's positions on an upper face that some state reaches, with their states, and
    /// its membership answers are those of a walk of the transitions.
    #[test]
    fn every_shape_stores_the_grid_and_answers_as_the_walk() {
        let mut rng = Rng::new(61);
        let mut shapes = HashSet::new();
        let (mut yes, mut no) = (0, 0);
        for case in 0..150 {
            let k = 2 + case % 3;
            let (alphabet, nfa, early) = shaped_case(&mut rng, k, 14);
            let parts = Parts::new(&nfa, &alphabet);
            let tables = &parts.tables;
            let w = tables.words();
            let kernel = parts.kernel(&nfa, &alphabet);
            shapes.insert((k, w));
            let mut p = Product::new(&kernel);
            let mut traces = vec![Vec::new(); k];
            for &a in &early {
                let j = alphabet.location(a).index();
                traces[j].push(a);
                p.push(&kernel, &traces, j, a, usize::MAX).unwrap();
                let lens: Vec<u32> = traces.iter().map(|t| t.len() as u32).collect();
                let want: Vec<(Vec<u32>, Vec<u64>)> = grid(tables, &nfa, &traces, w)
                    .into_iter()
                    .filter(|(v, s)| (0..k).any(|i| v[i] == lens[i]) && s.iter().any(|&x| x != 0))
                    .collect();
                let mut got = p.stored();
                got.sort();
                assert_eq!(
                    got,
                    want,
                    "{k} locations, {} states, {traces:?}",
                    nfa.states()
                );
                let end = &grid(tables, &nfa, &traces, w)[&lens];
                let accepted = end
                    .iter()
                    .zip(tables.accepting_states())
                    .any(|(a, b)| a & b != 0);
                assert_eq!(p.is_accepted(&kernel), accepted);
                let is = p.is_multi_prefix(&kernel, &traces, usize::MAX).unwrap();
                assert_eq!(
                    is,
                    multi_prefix_walked(&nfa, &alphabet, &traces, true),
                    "{k} locations, {traces:?}"
                );
                if is {
                    yes += 1;
                } else {
                    no += 1;
                }
            }
        }
        for shape in [(3, 1), (3, 2), (2, 1), (4, 2), (2, 3)] {
            assert!(shapes.contains(&shape), "{shape:?} not met: {shapes:?}");
        }
        assert!(yes > 100 && no > 30, "{yes} multi-prefixes, {no} not");
    }
}
