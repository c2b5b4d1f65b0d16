//! A run's *guess*: a certificate that its events so far are a multi-prefix, kept in constant
//! work per event while it holds, so that the product ([`super::product`]) is not fed at all.
//!
//! A guess for the multitrace `μ` is, per location `j`, a word `s_j` of `j`'s letters (what
//! `j` is guessed to log next) and a set `E` of live states, with the invariant: every `q` in
//! `E` ends a path of the automaton from an initial state reading a word `w` whose
//! projection on each location `j` is `μ_j · s_j`. Then `w` extends to an accepted word (`q`
//! is live) whose projections extend every `μ_j`: `μ` is a multi-prefix. When every `s_j`
//! is empty and `E` meets the accepting states, `w` is an accepted interleaving of `μ`
//! itself: `μ` is accepted.
//!
//! An event `a` of location `j` keeps the invariant in one of three ways (else the guess is
//! *broken* and the run goes on with its product, fed the events it skipped):
//!
//! - `s_j` starts with `a`: the same paths, `a` moved from the guess to `μ_j`;
//! - `s_j` is empty and `δ(E, a)` meets the live states: the paths extended by `a`;
//! - `s_j` is empty and a breadth-first walk from `E` over the letters of the *other*
//!   locations reaches a state `q` where `a` leads to live states: the path extended by the
//!   walk `σ` and `a`; the other locations' guesses grow by their letters of `σ` (they read
//!   them after their own traces, which `w` has read whole). The walk is bounded by the
//!   automaton, not by the run.
//!
//! A run starts with the empty guess (`E` the live initial states). Runs that follow a
//! protocol keep their guess: a location that is ahead makes the others' next letters
//! guessed, and their events, when they come, are those letters (on the MQTT event set,
//! most runs never break it). A run broken once keeps its product until its end (so the
//! decisions and records never depend on how a stream's events were batched).

use super::product::Kernel;
use multitrace_model::bits;
use multitrace_model::nfa::{LetterId, StateId};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::cell::RefCell;

/// See the module docs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Guess {
    /// `s_j`: `silent[j][next[j]..]`, oldest first.
    silent: Vec<Vec<LetterId>>,
    next: Vec<u32>,
    /// `E`: live states, each ending a path as the invariant says.
    end: Vec<u64>,
}

/// The breadth-first walk's buffers, per thread: a guess's repair allocates nothing once
/// they have grown.
#[derive(Default)]
struct Walk {
    /// Per state: the state and letter it was reached from (`u32::MAX`: a start).
    from: Vec<(u32, LetterId)>,
    seen: Vec<u64>,
    queue: Vec<u32>,
    t: Vec<u64>,
    path: Vec<LetterId>,
    /// The tables' id the memo's walks are of.
    owner: u64,
    /// The walks' outcomes by `E` (of one or two words) and letter: the walk's letters,
    /// newest first, and the new `E`; `None` when the walk finds none. At most
    /// [`MAX_WALKS`] (then it starts again empty: only speed depends on what it holds).
    memo: FxHashMap<([u64; 2], LetterId), Option<WalkTaken>>,
}

/// What a walk found: its letters, newest first, and the new `E`.
type WalkTaken = (Box<[LetterId]>, [u64; 2]);

/// Most walks kept per thread (a protocol's runs meet few distinct `E`s: on the MQTT set
/// two in five events of runs whose guess holds walk, all from a handful of them).
const MAX_WALKS: usize = 1 << 14;

thread_local! {
    static WALK: RefCell<Walk> = RefCell::new(Walk::default());
}

/// Swaps this thread's memo of walks with `memo` (the tests compare guesses with and without
/// it).
#[cfg(test)]
fn swap_walks(memo: &mut FxHashMap<([u64; 2], LetterId), Option<WalkTaken>>) {
    WALK.with(|walk| std::mem::swap(&mut walk.borrow_mut().memo, memo));
}

impl Guess {
    /// The guess of the empty multitrace: no letter guessed, `E` the live initial states.
    /// `None` when no initial state is live (the model accepts nothing).
    pub(super) fn start(kernel: &Kernel<'_>) -> Option<Guess> {
        let w = kernel.tables.words();
        Guess::from_end(kernel, &kernel.tables.initial_states()[..w])
    }

    /// The guess of a multitrace whose plain interleavings reach the states `end` (`R(n)`
    /// of its product): no letter guessed, `E` the live ones. `None` when none is live.
    pub(super) fn from_end(kernel: &Kernel<'_>, end: &[u64]) -> Option<Guess> {
        let end: Vec<u64> = end
            .iter()
            .zip(kernel.tables.live())
            .map(|(a, b)| a & b)
            .collect();
        end.iter().any(|&x| x != 0).then(|| Guess {
            silent: vec![Vec::new(); kernel.alphabet.locations()],
            next: vec![0; kernel.alphabet.locations()],
            end,
        })
    }

    /// Whether the multitrace is accepted as it is (no letter guessed, `E` meets the
    /// accepting states). `false` says nothing.
    pub(super) fn accepted(&self, kernel: &Kernel<'_>) -> bool {
        self.silent.iter().all(Vec::is_empty)
            && self
                .end
                .iter()
                .zip(kernel.tables.accepting_states())
                .any(|(a, b)| a & b != 0)
    }

    /// Bytes held (for the memory figures).
    pub(super) fn bytes(&self) -> usize {
        std::mem::size_of::<Guess>()
            + self
                .silent
                .iter()
                .map(|s| std::mem::size_of::<Vec<LetterId>>() + 4 * s.capacity())
                .sum::<usize>()
            + 4 * self.next.capacity()
            + 8 * self.end.capacity()
    }

    /// Bytes by content (a record's `state_bytes`).
    pub(super) fn state_bytes(&self) -> usize {
        std::mem::size_of::<Guess>()
            + self
                .silent
                .iter()
                .map(|s| std::mem::size_of::<Vec<LetterId>>() + 4 * s.len())
                .sum::<usize>()
            + 4 * self.next.len()
            + 8 * self.end.len()
    }

    /// Takes event `a` of location `j` (see the module docs): `true` when the guess still
    /// holds, `false` when it is broken (then it is left as it was). `max_guessed`: most
    /// letters guessed at once (past it the guess breaks: a location silent for long would
    /// make them grow without bound; the run's vertex budget serves).
    pub(super) fn extend(
        &mut self,
        kernel: &Kernel<'_>,
        j: usize,
        a: LetterId,
        max_guessed: usize,
    ) -> bool {
        let s = &mut self.silent[j];
        let at = self.next[j] as usize;
        if at < s.len() {
            if s[at] != a {
                return false;
            }
            if at + 1 == s.len() {
                s.clear();
                self.next[j] = 0;
            } else if at >= 32 && 2 * at >= s.len() {
                // The letters read are dropped once they are half the list: a location that
                // always has letters guessed ahead keeps a list bounded by them, not by the run.
                s.drain(..=at);
                self.next[j] = 0;
            } else {
                self.next[j] += 1;
            }
            return true;
        }
        let w = self.end.len();
        if w <= 2 {
            // Most events of a run whose guess holds step `E` and stay live: for one or two
            // words (up to 128 states), on the stack, without the walk's buffers (on NFA12 a
            // fifth of the monitor's instructions went to this step and its setting up).
            let mut t = [0u64; 2];
            kernel.step(&self.end, a, &mut t[..w]);
            if and_any(&mut t[..w], kernel.tables.live()) {
                self.end.copy_from_slice(&t[..w]);
                return true;
            }
        }
        WALK.with(|walk| self.append(kernel, &mut walk.borrow_mut(), j, a, max_guessed))
    }

    /// Whether [`Guess::extend`] would take event `a` of location `j` without its walk (the
    /// location's next guessed letter, or `s_j` empty and `δ(E, a)` meeting the live
    /// states): then the multitrace with `a` appended is a multi-prefix. `false` says
    /// nothing. The guess is left as it is.
    pub(super) fn takes(&self, kernel: &Kernel<'_>, j: usize, a: LetterId) -> bool {
        let at = self.next[j] as usize;
        if at < self.silent[j].len() {
            return self.silent[j][at] == a;
        }
        let mut t = vec![0u64; self.end.len()];
        kernel.step(&self.end, a, &mut t);
        and_any(&mut t, kernel.tables.live())
    }

    /// `s_j` is empty: `E` steps by `a`, after a walk over the other locations' letters when
    /// it must.
    fn append(
        &mut self,
        kernel: &Kernel<'_>,
        wk: &mut Walk,
        j: usize,
        a: LetterId,
        max_guessed: usize,
    ) -> bool {
        let w = self.end.len();
        if w <= 2 {
            // (`E` was stepped by `extend`.) The walk's outcome depends on `E` and `a` alone
            // (and the model): kept.
            let owner = kernel.tables.id();
            if wk.owner != owner {
                wk.memo.clear();
                wk.owner = owner;
            }
            let mut key = [0u64; 2];
            key[..w].copy_from_slice(&self.end);
            if let Some(found) = wk.memo.get(&(key, a)) {
                return match found {
                    Some((path, end)) => self.take(kernel, path, &end[..w], max_guessed),
                    None => false,
                };
            }
            let found = self.walk(kernel, wk, j, a);
            let took = found && self.take(kernel, &wk.path, &wk.t, max_guessed);
            if wk.memo.len() >= MAX_WALKS {
                wk.memo.clear();
            }
            let kept = found.then(|| {
                let mut end = [0u64; 2];
                end[..w].copy_from_slice(&wk.t);
                (wk.path.as_slice().into(), end)
            });
            wk.memo.insert((key, a), kept);
            return took;
        }
        wk.t.clear();
        wk.t.resize(w, 0);
        kernel.step(&self.end, a, &mut wk.t);
        if and_any(&mut wk.t, kernel.tables.live()) {
            self.end.copy_from_slice(&wk.t);
            return true;
        }
        self.walk(kernel, wk, j, a) && self.take(kernel, &wk.path, &wk.t, max_guessed)
    }

    /// The other locations' guesses grow by `path` (a walk's letters, newest first) and `E`
    /// becomes `end`, unless more than `max_guessed` letters would then be guessed (`false`:
    /// the guess is left as it was).
    fn take(
        &mut self,
        kernel: &Kernel<'_>,
        path: &[LetterId],
        end: &[u64],
        max_guessed: usize,
    ) -> bool {
        let guessed: usize = self
            .silent
            .iter()
            .zip(&self.next)
            .map(|(s, &n)| s.len() - n as usize)
            .sum();
        if guessed + path.len() > max_guessed {
            return false;
        }
        for &l in path.iter().rev() {
            self.silent[kernel.alphabet.location(l).index()].push(l);
        }
        self.end.copy_from_slice(end);
        true
    }

    /// The walk of the module docs from `E`, for event `a` of location `j`: `false` when no
    /// state it reaches takes `a` to a live state; else the walk's letters are in
    /// `wk.path`, newest first, and the live states `a` leads to from its end in `wk.t`.
    fn walk(&self, kernel: &Kernel<'_>, wk: &mut Walk, j: usize, a: LetterId) -> bool {
        let w = self.end.len();
        let live = kernel.tables.live();
        // The walk, breadth first from `E` (the shortest guess), over live states only (a
        // state on a path to a live state is live).
        let nfa = kernel.nfa;
        let states = nfa.states();
        // `from` is read only for the states the walk reached, each written first.
        if wk.from.len() < states {
            wk.from.resize(states, (u32::MAX, LetterId(0)));
        }
        wk.seen.clear();
        wk.seen.resize(w, 0);
        wk.queue.clear();
        for s in bits::iter(&self.end) {
            bits::set(&mut wk.seen, s);
            wk.from[s] = (u32::MAX, LetterId(0));
            wk.queue.push(s as u32);
        }
        let mut head = 0;
        let mut found = None;
        while head < wk.queue.len() {
            let s = wk.queue[head] as usize;
            head += 1;
            let mut hit = false;
            for i in nfa.out_range(StateId(s as u32)) {
                let t = nfa.transitions()[i];
                if t.letter == a && bits::get(live, t.to.index()) {
                    hit = true;
                    break;
                }
            }
            if hit {
                found = Some(s);
                break;
            }
            for i in nfa.out_range(StateId(s as u32)) {
                let t = nfa.transitions()[i];
                let to = t.to.index();
                if kernel.alphabet.location(t.letter).index() != j
                    && bits::get(live, to)
                    && !bits::get(&wk.seen, to)
                {
                    bits::set(&mut wk.seen, to);
                    wk.from[to] = (s as u32, t.letter);
                    wk.queue.push(to as u32);
                }
            }
        }
        let Some(mut s) = found else { return false };
        let q = s;
        wk.path.clear();
        while wk.from[s].0 != u32::MAX {
            let (p, l) = wk.from[s];
            wk.path.push(l);
            s = p as usize;
        }
        wk.t.clear();
        wk.t.resize(w, 0);
        for i in nfa.out_range(StateId(q as u32)) {
            let t = nfa.transitions()[i];
            if t.letter == a && bits::get(live, t.to.index()) {
                bits::set(&mut wk.t, t.to.index());
            }
        }
        true
    }
}

/// `t &= live`, and whether anything is left.
fn and_any(t: &mut [u64], live: &[u64]) -> bool {
    let mut any = 0;
    for (x, l) in t.iter_mut().zip(live) {
        *x &= l;
        any |= *x;
    }
    any != 0
}

#[cfg(test)]
mod tests {
    use super::super::product::test_models::{multi_prefix_walked, random_nfa, three_locations};
    use super::super::product::Kernel;
    use super::Guess;
    use multitrace_check::ac::AcTables;
    use multitrace_model::nfa::LetterId;
    use multitrace_model::nfa::{Alphabet, Nfa};
    use multitrace_model::rng::Rng;

    /// A random automaton of `states` states and up to `per_state` transitions a state, with
    /// its tables.
    fn random_tables(
        rng: &mut Rng,
        alphabet: &Alphabet,
        states: usize,
        per_state: usize,
    ) -> (Nfa, AcTables) {
        let transitions = rng.below(per_state * states + 1);
        let nfa = random_nfa(rng, states, transitions);
        let tables = AcTables::new(&nfa, alphabet);
        (nfa, tables)
    }

    /// The kernel of `nfa` (without closure rows: the guess reads none).
    fn kernel_of<'a>(nfa: &'a Nfa, tables: &'a AcTables, alphabet: &'a Alphabet) -> Kernel<'a> {
        Kernel {
            tables,
            nfa,
            alphabet,
            closure: &[],
        }
    }

    /// On random automata of three locations and runs that follow a path of the automaton
    /// (some with a letter changed, some with a location held back to the end, fed in random
    /// orders): after every event the guess takes, the multitrace is a multi-prefix, and
    /// accepted whenever the guess says so (both by a walk of the transitions); an event that
    /// breaks the guess leaves it as it was. The three ways of taking an event are all met,
    /// and so are the cap on the guessed letters and guesses that hold to the end. Every
    /// letter the guess takes without a walk ([`Guess::takes`]) extends the multitrace into
    /// a multi-prefix.
    #[test]
    fn a_guess_that_holds_is_a_multi_prefix() {
        let alphabet = three_locations();
        let mut rng = Rng::new(83);
        let (mut popped, mut stepped, mut walked, mut capped) = (0, 0, 0, 0);
        let (mut whole, mut accepted, mut taken) = (0, 0, 0);
        for case in 0..400 {
            let states = rng.between(1, 30);
            let (nfa, tables) = random_tables(&mut rng, &alphabet, states, 5);
            let kernel = kernel_of(&nfa, &tables, &alphabet);
            let Some(mut g) = Guess::start(&kernel) else {
                continue;
            };
            // A path of the automaton, projected.
            let mut traces = vec![Vec::new(); 3];
            let mut s = 0;
            for _ in 0..rng.between(0, 25) {
                let out: Vec<_> = nfa
                    .out(multitrace_model::nfa::StateId(s))
                    .map(|(_, t)| t)
                    .collect();
                if out.is_empty() {
                    break;
                }
                let t = out[rng.below(out.len())];
                traces[alphabet.location(t.letter).index()].push(t.letter);
                s = t.to.0;
            }
            if case % 4 == 0 {
                // A letter changed for another of its location (letters `2l` and `2l + 1`).
                let l = rng.below(3);
                if !traces[l].is_empty() {
                    let i = rng.below(traces[l].len());
                    traces[l][i] = LetterId((2 * l + rng.below(2)) as u32);
                }
            }
            let held = (case % 3 == 0).then(|| rng.below(3));
            let max_guessed = if case % 5 == 0 { 2 } else { 64 };
            // Events in a random order keeping each location's, `held` last.
            let mut pos = [0usize; 3];
            let mut fed = vec![Vec::new(); 3];
            let mut broke = false;
            loop {
                let left: Vec<usize> = (0..3)
                    .filter(|&l| pos[l] < traces[l].len())
                    .filter(|&l| {
                        Some(l) != held || (0..3).all(|i| i == l || pos[i] == traces[i].len())
                    })
                    .collect();
                if left.is_empty() {
                    break;
                }
                // Every letter the guess takes without a walk extends the multitrace.
                for b in 0..6u32 {
                    let l = alphabet.location(LetterId(b)).index();
                    if g.takes(&kernel, l, LetterId(b)) {
                        let mut more = fed.clone();
                        more[l].push(LetterId(b));
                        assert!(
                            multi_prefix_walked(&nfa, &alphabet, &more, true),
                            "{more:?}"
                        );
                        taken += 1;
                    }
                }
                let j = left[rng.below(left.len())];
                let a = traces[j][pos[j]];
                pos[j] += 1;
                fed[j].push(a);
                let before = g.clone();
                let guessed_before: usize = g.silent.iter().map(Vec::len).sum();
                let first = g.next[j] as usize;
                let pops = first < g.silent[j].len();
                if !g.extend(&kernel, j, a, max_guessed) {
                    assert_eq!(g, before, "a broken guess is left as it was");
                    capped += usize::from(!pops && max_guessed == 2);
                    broke = true;
                    break;
                }
                if pops {
                    popped += 1;
                } else if g.silent.iter().map(Vec::len).sum::<usize>() > guessed_before {
                    walked += 1;
                } else {
                    stepped += 1;
                }
                assert!(
                    multi_prefix_walked(&nfa, &alphabet, &fed, true),
                    "{fed:?} is not a multi-prefix, yet the guess holds"
                );
                if g.accepted(&kernel) {
                    accepted += 1;
                    assert!(
                        multi_prefix_walked(&nfa, &alphabet, &fed, false),
                        "{fed:?} is not accepted, yet the guess says so"
                    );
                }
            }
            whole += usize::from(!broke);
        }
        assert!(
            popped > 50 && stepped > 200 && walked > 50 && capped > 5,
            "{popped} {stepped} {walked} {capped}"
        );
        assert!(
            whole > 50 && accepted > 50 && taken > 500,
            "{whole} {accepted} {taken}"
        );
    }

    /// On random automata of 1 to 200 states (one to four words) and random events of three
    /// locations, a guess fed with this thread's memo of walks kept (warmed by the runs
    /// before) and one fed with it emptied before every event take and refuse the same
    /// events and are equal after each: the memo changes no outcome. Walks are met, and
    /// answered from the memo.
    #[test]
    fn the_memo_of_walks_changes_nothing() {
        let alphabet = three_locations();
        let mut rng = Rng::new(97);
        let (mut walked, mut hits) = (0usize, 0usize);
        for case in 0..300 {
            let states = [1, 8, 30, 64, 65, 128, 129, 200][case % 8];
            let (nfa, tables) = random_tables(&mut rng, &alphabet, states, 6);
            let kernel = kernel_of(&nfa, &tables, &alphabet);
            let Some(start) = Guess::start(&kernel) else {
                continue;
            };
            // The same runs twice in a row: the second meets the walks of the first.
            let runs: Vec<Vec<(usize, LetterId)>> = (0..4)
                .map(|_| {
                    (0..rng.between(1, 30))
                        .map(|_| {
                            let a = LetterId(rng.below(6) as u32);
                            (alphabet.location(a).index(), a)
                        })
                        .collect()
                })
                .collect();
            // The warm memo, kept here while the cold guess runs with an empty one.
            let mut kept = Default::default();
            for run in runs.iter().chain(&runs) {
                let (mut warm, mut cold) = (start.clone(), start.clone());
                for &(j, a) in run {
                    let before: usize = warm.silent.iter().map(Vec::len).sum();
                    super::swap_walks(&mut kept);
                    let known = super::WALK.with(|w| w.borrow().memo.len());
                    let took = warm.extend(&kernel, j, a, 16);
                    let after = super::WALK.with(|w| w.borrow().memo.len());
                    super::swap_walks(&mut kept);
                    super::WALK.with(|w| w.borrow_mut().memo.clear());
                    assert_eq!(took, cold.extend(&kernel, j, a, 16), "{run:?}");
                    assert_eq!(warm, cold, "{run:?}");
                    if took && warm.silent.iter().map(Vec::len).sum::<usize>() > before {
                        walked += 1;
                        hits += usize::from(after == known && known > 0);
                    }
                    if !took {
                        break;
                    }
                }
            }
        }
        assert!(walked > 1000 && hits > 500, "{walked} {hits}");
    }
}
