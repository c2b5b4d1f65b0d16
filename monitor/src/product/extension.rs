//! The questions a run's record asks of its whole multitrace: which letters, appended to one
//! location's trace, keep it a multi-prefix (what a WeakPass's locations could still do).
//!
//! Appending letter `a` to location `i`'s trace (length `n_i`) changes the search of
//! [`Product::is_multi_prefix`] in two places only. Below the new face (`v_i ≤ n_i`) the
//! vertices and edges are the same, but `i` is no longer silent anywhere there (its trace
//! now goes on): their sets are the fixpoint of the search in which `i` is never silent, the
//! same for every letter. The new face (`v_i = n_i + 1`) is entered only by `a` from the old
//! face `i`, and on it `i` is silent everywhere. So one search per location (the
//! [`Frontier`]: the old face `i` with those sets) and, per letter, a step of the frontier
//! by `a` and a search over the new face alone answer what a copy of the product, a push of
//! `a` and a search over all its faces answered per letter (on AutomatArk NFA12, half of the
//! monitor's instructions went to those copies, pushes and searches).
//!
//! The search behind the frontier is the costly part (on NFA12 a location that logged
//! nothing is silent everywhere, and its moves fill the whole grid of the others), and most
//! letters a location's own verifier allows do extend the run: so the frontier of the plain
//! paths, the stored sets of face `i` as they are ([`Product::plain_frontier`], no search),
//! is asked first; its `true` is certain (its sets are at most the exact ones, and the new
//! face's search is monotone in them), and only a `false` asks for the exact frontier.
//!
//! Invariant: [`Product::extends_by`] on an exact frontier answers exactly as pushing `a`
//! on a copy and asking [`Product::is_multi_prefix`], and on a plain one never says `true`
//! where that says `false` (tested on random automata and runs, every letter of every
//! location), or runs out of the same kind of budget.

// Index loops over locations keep positions, lengths and traces visibly in step.
#![allow(clippy::needless_range_loop)]

use super::closure::Closure;
use super::faces::fixed_len;
use super::kernel::Kernel;
use super::store::{Product, TooWide};
use super::words::{append, is_empty, zero};
use super::work::{Work, WORK};
use multitrace_model::nfa::LetterId;

/// Location `i`'s face (`v_i = n_i`) of a product, each vertex with the states the search
/// with silent moves reaches there when `i` is never silent ([`Product::frontier`]): where
/// every letter appended to `i`'s trace starts from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frontier {
    /// The location.
    i: usize,
    /// The sets are those of a whole search, not of the plain paths or a search cut short.
    exact: bool,
    /// The lengths with one more letter on `i`: the new face's upper corner.
    lens: Vec<u32>,
    /// The new face's least coordinates (its vertices are the frontier's moved along `i`).
    lo: Vec<u32>,
    /// The frontier's vertices (`k` positions each) and their sets (`w` words each).
    pos: Vec<u32>,
    sets: Vec<u64>,
}

impl Frontier {
    /// The location whose face this is.
    pub fn location(&self) -> usize {
        self.i
    }

    /// Whether the sets are those of a whole search ([`Product::frontier`] within its
    /// budget): then [`Product::extends_by`] answers exactly; else (the plain frontier, or a
    /// search cut short) only its `true` is certain.
    pub fn exact(&self) -> bool {
        self.exact
    }

    fn add(&mut self, p: &[u32], set: &[u64]) {
        for x in (0..p.len()).filter(|&x| x != self.i) {
            self.lo[x] = self.lo[x].min(p[x]);
        }
        append(&mut self.pos, p);
        append(&mut self.sets, set);
    }
}

/// A location's frontier search kept between a record's questions, to be taken further
/// ([`Product::resume_frontier`]) when its sets, cut short, show nothing for a letter: a
/// worklist search stopped after a vertex goes on from where it stopped, so a search taken
/// by steps to a bound does the work of one search to that bound, and a letter shown early
/// saves the steps after it.
pub struct FrontierSearch {
    /// The search's buffers (its own: the thread's are used by the questions in between).
    wk: Option<Box<Work>>,
    /// The location.
    i: usize,
    /// The search reached its fixpoint: its frontier is exact.
    done: bool,
}

thread_local! {
    /// Buffers of frontier searches that ended, for the next one (a record's search
    /// allocates nothing once they grew).
    static SPARE: std::cell::RefCell<Option<Box<Work>>> = const { std::cell::RefCell::new(None) };
}

impl Drop for FrontierSearch {
    fn drop(&mut self) {
        if let Some(wk) = self.wk.take() {
            // (A thread being torn down keeps nothing.)
            let _ = SPARE.try_with(|s| *s.borrow_mut() = Some(wk));
        }
    }
}

impl FrontierSearch {
    /// Whether the search reached its fixpoint (its frontier is exact).
    pub fn done(&self) -> bool {
        self.done
    }
}

impl Product {
    /// Location `i`'s [`Frontier`], exact when its search stays within `max_vertices`
    /// vertices; else the sets the search had reached when it stopped, at most the exact
    /// ones ([`Frontier::exact`] is then `false`).
    pub fn frontier(
        &self,
        kernel: &Kernel<'_>,
        traces: &[Vec<LetterId>],
        i: usize,
        max_vertices: usize,
    ) -> Frontier {
        let mut search = self.frontier_search(kernel, i);
        self.resume_frontier(&mut search, kernel, traces, max_vertices)
    }

    /// Location `i`'s frontier search, set up (its seeds queued) and not yet run: see
    /// [`Product::resume_frontier`].
    pub fn frontier_search(&self, kernel: &Kernel<'_>, i: usize) -> FrontierSearch {
        let mut wk = SPARE.with(|s| s.borrow_mut().take()).unwrap_or_default();
        by_shape!(self, frontier_start(&mut wk, kernel, i));
        FrontierSearch {
            wk: Some(wk),
            i,
            done: false,
        }
    }

    /// Takes `search` (of this product, with `traces` its traces) on until it holds more than
    /// `max_vertices` vertices or reaches its fixpoint, and gives its frontier: exact at the
    /// fixpoint, else the sets reached, at most the exact ones.
    pub fn resume_frontier(
        &self,
        search: &mut FrontierSearch,
        kernel: &Kernel<'_>,
        traces: &[Vec<LetterId>],
        max_vertices: usize,
    ) -> Frontier {
        let i = search.i;
        let wk = search
            .wk
            .as_mut()
            .expect("a search keeps its buffers until dropped");
        let done = search.done;
        let (fr, done) = by_shape!(
            self,
            frontier_resume(wk, kernel, traces, i, done, max_vertices)
        );
        search.done = done;
        fr
    }

    fn frontier_start<const K: usize, const W: usize>(
        &self,
        wk: &mut Work,
        kernel: &Kernel<'_>,
        i: usize,
    ) {
        let (k, w) = (
            fixed_len::<K>(self.k as usize),
            fixed_len::<W>(self.w as usize),
        );
        let closure = Closure::<W>::new(kernel.closure, k, kernel.nfa.states(), w);
        wk.reset(k, w);
        // The gains of the silent moves, as [`Product::search`] seeds them (no vertex has
        // every location silent: never `true`).
        self.gains::<K, W>(wk, &closure, &self.at_end_but(i), kernel.tables.live());
        self.load::<K, W>(wk);
        wk.gained::<W>();
    }

    /// The lengths, but `i`'s replaced by one no position reaches: `i` is never silent.
    fn at_end_but(&self, i: usize) -> Vec<u32> {
        let mut at_end = self.lens.clone();
        at_end[i] = u32::MAX;
        at_end
    }

    #[allow(clippy::too_many_arguments)]
    fn frontier_resume<const K: usize, const W: usize>(
        &self,
        wk: &mut Work,
        kernel: &Kernel<'_>,
        traces: &[Vec<LetterId>],
        i: usize,
        done: bool,
        max_vertices: usize,
    ) -> (Frontier, bool) {
        let (k, w) = (
            fixed_len::<K>(self.k as usize),
            fixed_len::<W>(self.w as usize),
        );
        let closure = Closure::<W>::new(kernel.closure, k, kernel.nfa.states(), w);
        // (Never `Some(true)`: no vertex has every location silent. A search cut short has
        // added only states some path reaches: its sets are at most the fixpoint's.)
        // A search resumed already past its bound takes no vertex: a search taken by steps
        // stops where one run at once to its last bound stops.
        let exact = done
            || (wk.faces.len() <= max_vertices
                && wk
                    .spread::<K, W>(
                        kernel,
                        &closure,
                        traces,
                        &self.lens,
                        &self.at_end_but(i),
                        max_vertices,
                    )
                    .is_some());
        let mut fr = self.frontier_of(i, exact);
        for v in 0..wk.faces.len() {
            let set = &wk.faces.sets[v * w..(v + 1) * w];
            if wk.faces.pos[v * k + i] == self.lens[i] && !is_empty(set) {
                fr.add(&wk.faces.pos[v * k..(v + 1) * k], set);
            }
        }
        (fr, exact)
    }

    /// An empty frontier of location `i` (`exact`: to be given the sets of a whole search).
    fn frontier_of(&self, i: usize, exact: bool) -> Frontier {
        let mut lens = self.lens.clone();
        lens[i] += 1;
        Frontier {
            i,
            exact,
            lo: lens.clone(),
            lens,
            pos: Vec::new(),
            sets: Vec::new(),
        }
    }

    /// Location `i`'s face with its stored sets, those of the plain paths (no search): a
    /// frontier whose sets are at most the exact ones ([`Frontier::exact`] is `false`), so a
    /// letter it shows extending the multitrace does, and one it does not may yet.
    pub fn plain_frontier(&self, i: usize) -> Frontier {
        let (k, w) = (self.k as usize, self.w as usize);
        let mut fr = self.frontier_of(i, false);
        for &v in &self.on[i] {
            let v = v as usize;
            fr.add(
                &self.faces.pos[v * k..(v + 1) * k],
                &self.faces.sets[v * w..(v + 1) * w],
            );
        }
        fr
    }

    /// Whether the whole multitrace with `a` (a letter of the frontier's location) appended
    /// to its location's trace is a multi-prefix, from that location's [`Frontier`] (`traces`:
    /// the traces the product was fed, without `a`): exactly from an exact frontier; from a
    /// plain one, `true` is certain and `false` says only that its sets show nothing. `Err`
    /// when the search over the new face would hold more than `max_vertices` vertices.
    pub fn extends_by(
        &self,
        kernel: &Kernel<'_>,
        traces: &[Vec<LetterId>],
        frontier: &Frontier,
        a: LetterId,
        max_vertices: usize,
    ) -> Result<bool, TooWide> {
        WORK.with(|work| {
            let wk = &mut work.borrow_mut();
            by_shape!(
                self,
                extends_in(wk, kernel, traces, frontier, a, max_vertices)
            )
        })
    }

    /// Whether the whole multitrace with `a` appended to location `i`'s trace is a
    /// multi-prefix, by a push of `a` on a copy and [`Product::is_multi_prefix`] (which stops
    /// at the first path it finds). `Err` when either would hold more than `max_vertices`.
    pub fn extended(
        &self,
        kernel: &Kernel<'_>,
        traces: &[Vec<LetterId>],
        i: usize,
        a: LetterId,
        max_vertices: usize,
    ) -> Result<bool, TooWide> {
        let mut p = self.clone();
        let mut more = traces.to_vec();
        more[i].push(a);
        Ok(p.push(kernel, &more, i, a, max_vertices)?
            || p.is_multi_prefix(kernel, &more, max_vertices)?)
    }

    fn extends_in<const K: usize, const W: usize>(
        &self,
        wk: &mut Work,
        kernel: &Kernel<'_>,
        traces: &[Vec<LetterId>],
        fr: &Frontier,
        a: LetterId,
        max_vertices: usize,
    ) -> Result<bool, TooWide> {
        let (k, w) = (
            fixed_len::<K>(self.k as usize),
            fixed_len::<W>(self.w as usize),
        );
        let closure = Closure::<W>::new(kernel.closure, k, kernel.nfa.states(), w);
        wk.reset(k, w);
        wk.index.begin(&fr.lo, &fr.lens);
        for (p, set) in fr.pos.chunks_exact(k).zip(fr.sets.chunks_exact(w)) {
            let t = &mut wk.t[..w];
            zero(t);
            kernel.step(set, a, t);
            if is_empty(t) {
                continue;
            }
            // The frontier's vertices are distinct, and so are their successors by `a`.
            wk.add_moved::<K, W>(p, fr.i);
        }
        if wk.stack.is_empty() {
            // `a` is read from none of the frontier's states.
            return Ok(false);
        }
        // On the new face every location is silent where its trace is read: `i` everywhere.
        match wk.spread::<K, W>(kernel, &closure, traces, &fr.lens, &fr.lens, max_vertices) {
            Some(found) => Ok(found),
            None => Err(self.too_wide(wk.faces.len())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::closure::tests::{multi_prefix_walked, shaped_case, Parts};
    use super::super::{Kernel, Product};
    use multitrace_model::nfa::{Alphabet, LetterId, LocationId, Nfa};
    use multitrace_model::rng::Rng;

    /// A random case of `k` locations (a run of up to `len` letters) fed to a product event
    /// by event: `each` sees the model, the product and the traces after every event, and
    /// whether it was the last.
    fn each_event(
        rng: &mut Rng,
        k: usize,
        len: usize,
        mut each: impl FnMut(
            &mut Rng,
            (&Alphabet, &Nfa, &Kernel<'_>),
            &Product,
            &mut [Vec<LetterId>],
            bool,
        ),
    ) {
        let (alphabet, nfa, events) = shaped_case(rng, k, len);
        let parts = Parts::new(&nfa, &alphabet);
        let kernel = parts.kernel(&nfa, &alphabet);
        let mut p = Product::new(&kernel);
        let mut traces = vec![Vec::new(); k];
        for (n, &a) in events.iter().enumerate() {
            let j = alphabet.location(a).index();
            traces[j].push(a);
            p.push(&kernel, &traces, j, a, usize::MAX).unwrap();
            each(
                rng,
                (&alphabet, &nfa, &kernel),
                &p,
                &mut traces,
                n + 1 == events.len(),
            );
        }
    }

    /// On random automata of every shape the product is compiled for and runs that follow a
    /// path of the automaton (some with a location held back or a letter changed), after
    /// every event: for every location and every letter, the exact frontier's answer is that
    /// of a walk of the transitions on the traces with the letter appended, and that of a
    /// copy of the product pushed the letter and searched; the plain frontier's `true` is
    /// never wrong.
    #[test]
    fn the_frontier_answers_as_a_push_and_a_search() {
        let mut rng = Rng::new(73);
        let (mut yes, mut no, mut empty, mut hidden) = (0, 0, 0, 0);
        for case in 0..150 {
            let k = 2 + case % 3;
            let (alphabet, nfa, early) = shaped_case(&mut rng, k, 12);
            let parts = Parts::new(&nfa, &alphabet);
            let kernel = parts.kernel(&nfa, &alphabet);
            let mut p = Product::new(&kernel);
            let mut traces = vec![Vec::new(); k];
            let mut ask = |p: &Product, traces: &mut [Vec<LetterId>]| {
                for i in 0..k {
                    let fr = p.frontier(&kernel, traces, i, usize::MAX);
                    let plain = p.plain_frontier(i);
                    assert!(fr.exact() && !plain.exact());
                    assert_eq!(fr.location(), i);
                    empty += usize::from(fr.pos.is_empty());
                    for &a in alphabet.letters_of(LocationId(i as u32)) {
                        let got = p.extends_by(&kernel, traces, &fr, a, usize::MAX).unwrap();
                        traces[i].push(a);
                        let walked = multi_prefix_walked(&nfa, &alphabet, traces, true);
                        traces[i].pop();
                        let shown = p
                            .extends_by(&kernel, traces, &plain, a, usize::MAX)
                            .unwrap();
                        assert!(!shown || got, "{traces:?} + {a:?} on {i}");
                        hidden += usize::from(got && !shown);
                        let pushed = p.extended(&kernel, traces, i, a, usize::MAX).unwrap();
                        assert_eq!(got, walked, "{k} locations, {traces:?} + {a:?} on {i}");
                        assert_eq!(got, pushed, "{k} locations, {traces:?} + {a:?} on {i}");
                        if got {
                            yes += 1;
                        } else {
                            no += 1;
                        }
                    }
                }
            };
            ask(&p, &mut traces);
            for &a in &early {
                let j = alphabet.location(a).index();
                traces[j].push(a);
                p.push(&kernel, &traces, j, a, usize::MAX).unwrap();
                ask(&p, &mut traces);
            }
        }
        // Some letters extend the run only by states the plain paths do not reach.
        assert!(
            yes > 300 && no > 300 && empty > 10 && hidden > 5,
            "{yes} {no} {empty} {hidden}"
        );
    }

    /// A frontier search taken by steps, its bound raised between them, stops where a search
    /// run at once to the last bound stops, with the same sets: a step wastes nothing and
    /// loses nothing. Taken to its fixpoint it is the exact frontier.
    #[test]
    fn a_search_taken_by_steps_is_one_search() {
        let mut rng = Rng::new(29);
        let (mut cut, mut exact) = (0, 0);
        for case in 0..120 {
            each_event(
                &mut rng,
                2 + case % 3,
                12,
                |rng, (_, _, kernel), p, traces, _| {
                    for i in 0..traces.len() {
                        let last = p.vertices() + rng.below(40);
                        let at_once = p.frontier(kernel, traces, i, last);
                        let mut search = p.frontier_search(kernel, i);
                        let mut bound = p.vertices();
                        let stepped = loop {
                            bound = (bound + rng.below(8)).min(last);
                            let fr = p.resume_frontier(&mut search, kernel, traces, bound);
                            if bound == last {
                                break fr;
                            }
                        };
                        assert_eq!(stepped, at_once, "{traces:?}, {i}");
                        assert_eq!(search.done(), at_once.exact());
                        if at_once.exact() {
                            exact += 1;
                        } else {
                            cut += 1;
                            let whole = p.resume_frontier(&mut search, kernel, traces, usize::MAX);
                            assert!(search.done() && whole.exact());
                            assert_eq!(whole, p.frontier(kernel, traces, i, usize::MAX));
                        }
                    }
                },
            );
        }
        assert!(cut > 50 && exact > 50, "{cut} cut, {exact} exact");
    }

    /// A budget too small for the frontier's search leaves it inexact, and then it shows
    /// only letters that extend the run; one too small for the new face's search is an
    /// `Err`, never an answer.
    #[test]
    fn a_small_budget_gives_no_answer() {
        let mut rng = Rng::new(5);
        let mut wide = 0;
        for _ in 0..100 {
            each_event(
                &mut rng,
                3,
                10,
                |_, (alphabet, nfa, kernel), p, traces, last| {
                    if !last {
                        return;
                    }
                    for i in 0..traces.len() {
                        let fr = p.frontier(kernel, traces, i, 1);
                        let exact = p.frontier(kernel, traces, i, usize::MAX);
                        wide += usize::from(!fr.exact());
                        for &a in alphabet.letters_of(LocationId(i as u32)) {
                            traces[i].push(a);
                            let want = multi_prefix_walked(nfa, alphabet, traces, true);
                            traces[i].pop();
                            let by_exact = p.extends_by(kernel, traces, &exact, a, usize::MAX);
                            assert_eq!(by_exact, Ok(want));
                            match p.extends_by(kernel, traces, &fr, a, 1) {
                                Err(_) => wide += 1,
                                // A frontier cut short shows only letters that extend the run.
                                Ok(got) if !fr.exact() => assert!(!got || want),
                                Ok(got) => assert_eq!(got, want),
                            }
                        }
                    }
                },
            );
        }
        assert!(wide > 10, "{wide}");
    }
}
