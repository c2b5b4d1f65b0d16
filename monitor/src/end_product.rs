//! The diagnosis's questions about a cut of a run extended by one letter ([`EndProduct`]),
//! answered by the run's guess and product where the batch check (AC) would search the cut
//! from scratch; used for the record of a run that ends and of a Fail at its last event.
//!
//! Invariant: exact; an answer is given only when the guess holds at the cut or the product
//! is at it, and a budget that runs out leaves the question to AC (`None`).

use super::guess::Guess;
use super::product::{Frontier, FrontierSearch, Kernel, Product};
use multitrace_check::diagnose::EndQueries;
use multitrace_model::nfa::{LetterId, LocationId};
use multitrace_model::project::ProjDfa;

/// The diagnosis's questions about a cut of a run extended by one letter (what each location
/// could still do after the whole run, asked when an open run's record is written, or after
/// the events before a Fail a local verifier decides), answered by the run's guess and
/// product, where AC would search the cut from scratch for each letter: the guess's step or
/// walk ([`Guess::takes`], [`Guess::extend`]); else, when the product is at the cut, per letter, a step of the location's face
/// and a search over the new face ([`Product::extends_by`]), from the face's stored sets
/// first, then from those of a search over the faces (one per location,
/// [`Product::frontier`]); else a push of the letter on a copy of the product and a search
/// that stops at the first path found ([`Product::extended`]). Exact: a budget that runs out
/// leaves the question to AC.
pub(super) struct EndProduct<'a> {
    kernel: Kernel<'a>,
    /// The run's product: it answers when it is at the cut (not behind it by events its
    /// run's guess skipped).
    product: &'a Product,
    /// A guess that holds for the cut: a letter it takes extends it without a search.
    guess: Option<Guess>,
    /// The traces of the cut.
    traces: &'a [Vec<LetterId>],
    max_vertices: usize,
    /// The locations' local verifiers (AS's DFAs `Proj(A, Σi)`), when known: see [`WIDE`].
    verifiers: Option<&'a [ProjDfa]>,
    /// [`WIDE`] (the tests lower it).
    wide_from: usize,
    /// The frontiers of the location last asked about.
    frontiers: Option<Frontiers>,
}

impl<'a> EndProduct<'a> {
    /// The questions about the cut `traces`, of the run whose product is `product` and whose
    /// guess, if any, holds for the cut.
    pub(super) fn new(
        kernel: Kernel<'a>,
        product: &'a Product,
        guess: Option<Guess>,
        traces: &'a [Vec<LetterId>],
        max_vertices: usize,
        verifiers: Option<&'a [ProjDfa]>,
    ) -> Self {
        EndProduct {
            kernel,
            product,
            guess,
            traces,
            max_vertices,
            verifiers,
            wide_from: WIDE,
            frontiers: None,
        }
    }

    /// The same, with the exact frontier searched at the first letter the plain one does not
    /// show when the location's verifier allows `n` letters or more (0: always).
    #[cfg(test)]
    pub(super) fn wide_from(mut self, n: usize) -> Self {
        self.wide_from = n;
        self
    }
}

/// One location's frontiers: the plain one, and the one of a search once asked for, taken
/// by steps ([`FRONTIER_FIRST`], then [`FRONTIER_STEP`] times more) up to
/// [`FRONTIER_VERTICES`] while its sets show nothing for a letter (exact once the search
/// reaches its fixpoint).
pub(super) struct Frontiers {
    plain: Frontier,
    /// A letter the plain frontier does not show was asked by a search of its own.
    asked: bool,
    /// The search, the vertices past the product's it may hold now, and its frontier.
    exact: Option<(FrontierSearch, usize, Frontier)>,
}

impl Frontiers {
    /// Asks the search's frontier about `a`; while it is cut short and shows nothing, the
    /// search goes on to its next bound; past the last, a push and a search.
    fn ask(
        p: &Product,
        k: &Kernel<'_>,
        traces: &[Vec<LetterId>],
        (search, step, fr): &mut (FrontierSearch, usize, Frontier),
        i: usize,
        a: LetterId,
        max: usize,
    ) -> Option<bool> {
        loop {
            match p.extends_by(k, traces, fr, a, max) {
                Ok(found) if found || fr.exact() => return Some(found),
                _ if *step < FRONTIER_VERTICES && !search.done() => {
                    *step = (*step * FRONTIER_STEP).min(FRONTIER_VERTICES);
                    *fr = p.resume_frontier(search, k, traces, max.min(p.vertices() + *step));
                }
                _ => return p.extended(k, traces, i, a, max).ok(),
            }
        }
    }
}

/// Most vertices of a frontier's search, beyond the product's own: it serves every letter of
/// the location but never stops early, where a search per letter stops at the first path it
/// finds. On AutomatArk NFA12 a location that logged nothing is silent everywhere, and its
/// moves fill the grid of the others when the frontier of another location is searched
/// (grids of 2,000 cells and more): the search stops, and its sets, at most the exact ones,
/// show the letters they can before a search per letter asks about the others.
///
/// The search is taken there by steps ([`FRONTIER_FIRST`] vertices, then [`FRONTIER_STEP`]
/// times more), each only when the sets so far show nothing for a letter: on NFA12 the
/// searches cut at 256 vertices in one go (24,227 of 67,317 on 100,000 runs, all with a
/// location that logged nothing) were 84 % of the frontiers' vertices, and most of their
/// letters show after a few dozen. Instructions on 10,000 NFA12 runs (1,197,098 events): in
/// one go to 256, 3,771.9 M; by steps from 16, times 4 to 256, 3,588.5 M; from 4, times 4,
/// 3,592.0 M; from 8, 16 or 32, times 2 to 256, 3,531.5, 3,527.6 and 3,525.0 M; from 16,
/// times 2 to 512, 1,024 or 4,096, 3,419.3 M (the same: the searches end before); in one go
/// to 128 or 512, 3,841.4 and 4,079.3 M. The MQTT set's figure does not move.
const FRONTIER_VERTICES: usize = 512;

/// The first bound of a frontier's search, past the product's vertices (see
/// [`FRONTIER_VERTICES`]).
const FRONTIER_FIRST: usize = 16;
/// How much a frontier's bound grows at each step (see [`FRONTIER_VERTICES`]).
const FRONTIER_STEP: usize = 2;

/// Letters a location's local verifier allows after the cut from which its exact frontier
/// is searched at the first letter its plain frontier does not show (fewer: that letter is
/// pushed and searched alone first, and the frontier searched only for a second). A letter
/// the plain frontier does not show costs a push and a search (41,000 instructions on
/// AutomatArk NFA12's 100,000 runs), the exact frontier about twice that and serves every
/// later letter: it pays when a second letter follows more often than not. On the MQTT set,
/// whose verifiers allow one or two letters there, 55 locations of 3,011 asked for a second;
/// on NFA12's 763 runs, whose verifiers mostly allow four or more of a location's letters,
/// 529 of 545 (the threshold 2, 3 or 4 gives NFA12 the same instructions, 5 or 6 2.3 % more;
/// 2 gives the MQTT set 0.9 % more). A function of the run alone (not of what the thread
/// saw before): a record never depends on the runs before it, even when a budget runs out.
const WIDE: usize = 3;

impl EndQueries for EndProduct<'_> {
    fn extends(&mut self, v: &[usize], i: usize, a: LetterId) -> Option<bool> {
        let traces = self.traces;
        if v.len() != traces.len() || v.iter().zip(traces).any(|(&n, t)| n != t.len()) {
            return None;
        }
        let (k, max) = (&self.kernel, self.max_vertices);
        if let Some(g) = &self.guess {
            // (Its walk is bounded by the automaton; no cap on the letters guessed here.)
            if g.takes(k, i, a) || g.clone().extend(k, i, a, usize::MAX) {
                return Some(true);
            }
        }
        // A product behind the cut is not caught up for the questions (a sweep over the events
        // it skipped cost about as much as AC's searches it would save, on the MQTT set).
        let p = self.product;
        if (0..traces.len()).any(|l| p.len_of(l) != traces[l].len()) {
            return None;
        }
        // Runs that end (or break) at the same point of a protocol ask the same questions.
        let frontiers = &mut self.frontiers;
        let (verifiers, from) = (self.verifiers, self.wide_from);
        let wide = |i: usize| {
            let allowed = |v: &[ProjDfa]| {
                v[i].live_letters_after(k.alphabet, LocationId(i as u32), &traces[i])
                    .count()
            };
            from == 0 || verifiers.is_some_and(|v| allowed(v) >= from)
        };
        p.extends_memo(k, traces, i, a, max, || {
            Self::by_frontiers(frontiers, k, p, traces, i, a, max, wide)
        })
    }
}

impl EndProduct<'_> {
    /// [`EndQueries::extends`] asked of the product (at the cut), by its frontiers (`wide`:
    /// whether a location's verifier allows [`WIDE`] letters or more after the cut, asked at
    /// the first letter its plain frontier does not show).
    #[allow(clippy::too_many_arguments)]
    fn by_frontiers(
        frontiers: &mut Option<Frontiers>,
        k: &Kernel<'_>,
        p: &Product,
        traces: &[Vec<LetterId>],
        i: usize,
        a: LetterId,
        max: usize,
        wide: impl FnOnce(usize) -> bool,
    ) -> Option<bool> {
        let f = match frontiers {
            Some(f) if f.plain.location() == i => f,
            f => f.insert(Frontiers {
                plain: p.plain_frontier(i),
                asked: false,
                exact: None,
            }),
        };
        if let Some(exact) = &mut f.exact {
            // (It shows all the plain frontier shows.)
            return Frontiers::ask(p, k, traces, exact, i, a, max);
        }
        if p.extends_by(k, traces, &f.plain, a, max) == Ok(true) {
            return Some(true);
        }
        if !f.asked && !wide(i) {
            // The first letter the plain frontier does not show: most often the only one
            // when the location's verifier allows few.
            f.asked = true;
            return p.extended(k, traces, i, a, max).ok();
        }
        let mut search = p.frontier_search(k, i);
        let fr = p.resume_frontier(
            &mut search,
            k,
            traces,
            max.min(p.vertices() + FRONTIER_FIRST),
        );
        let exact = f.exact.insert((search, FRONTIER_FIRST, fr));
        Frontiers::ask(p, k, traces, exact, i, a, max)
    }
}
