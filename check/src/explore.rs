//! Term exploration (seed 001 Secs. 4-5): search the analysis graph whose vertices are
//! (interaction term, consumed position in each local trace).
//!
//! - An execution step consumes the head action `a` of one local trace and replaces the term by
//!   one of its derivatives `t --a--> t'`.
//! - Prefix mode (partial observation): as soon as a location's trace is fully consumed, all its
//!   lifelines are removed from the term (`rmv_H`, all emptied lifelines at once, before any
//!   execution); a vertex whose traces are all consumed is a success (the multitrace is a
//!   multi-prefix). Complete mode: no removal; success needs a terminating term. Removal is
//!   exact only with one lifeline per location and seed 001's operators; with co-localized
//!   lifelines (`removal_loses_order`), or a `coreg` whose region leaves out a lifeline both
//!   sides use (`TermStore::has_hidden_order`), it over-approximates, and its successes are
//!   confirmed by silent moves.
//! - POR: when a head action is one-unambiguous (seed 001 Def. 11) and executable, its
//!   derivative is the only successor; more generally, when the head action of a one-lifeline
//!   location executes now at every position of its local restriction, its derivatives are
//!   the only successors (`Search::all_positions_now`). On seed 001's 3-SAT reduction (Prop.
//!   11) this branches on one clause at a time instead of on every clause.
//! - LOC: a vertex is cut when some local trace is not (a prefix of) a behaviour of the term
//!   restricted to that location (Def. 12). The local searches share one memo of decided local
//!   vertices (`check::local`) and are paid from a credit of `LOCAL_CREDIT` local vertices
//!   per vertex of the search, so an exploration costs O(its vertices), not O(n) per vertex
//!   (issue 25); a vertex with one trace left whose restriction changes nothing is decided by
//!   its local analysis (`Search::local_analyses`).
//! - Memo: a vertex is visited once, keyed by equality of (term id, positions); in prefix mode
//!   the removed lifelines are a function of the positions, so the key covers them.
//!
//! The verdict is exact: the search either finds a success, exhausts the graph (Fail), or runs
//! out of budget (Inconclusive). In prefix mode a success is followed by a complete-mode search
//! to tell Pass (accepted) from WeakPass (only a multi-prefix).

use super::local::{LocalMemo, Reach};
use super::meter::Meter;
use multitrace_model::multitrace::{Component, Multitrace};
use multitrace_model::signature::{Action, LifelineSet, LocationId};
use multitrace_model::term::{TermId, TermStore};
use multitrace_model::verdict::{Mode, Reason, Sym, Verdict, VerdictKind};
use rustc_hash::FxHashSet;

pub use super::meter::MAX_TERM_DEPTH;

/// Stack size for threads that run checks: enough for terms of [`MAX_TERM_DEPTH`].
pub const CHECK_STACK_SIZE: usize = 256 << 20;

pub use multitrace_model::budget::Budget;

/// Local vertices that the local analyses may expand per vertex of the search, on average
/// (the first vertex's analyses are not limited): see [`Search::local_analyses`].
const LOCAL_CREDIT: u64 = 8;

/// Options of term exploration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExploreOptions {
    /// Complete or prefix membership.
    pub mode: Mode,
    /// Partial order reduction by one-unambiguous actions.
    pub por: bool,
    /// Local analyses.
    pub loc: bool,
    /// Visit each vertex once.
    pub memo: bool,
    /// Limits.
    pub budget: Budget,
    /// Record one accepted interleaving for a Pass.
    pub witness: bool,
}

impl Default for ExploreOptions {
    fn default() -> Self {
        ExploreOptions {
            mode: Mode::Prefix,
            por: true,
            loc: true,
            memo: true,
            budget: Budget::default(),
            witness: false,
        }
    }
}

/// Checks `mt` against the interaction `root` of `store` by term exploration.
///
/// Lifelines of the term that no component of `mt` covers are unobserved (empty local trace).
pub fn explore(
    store: &mut TermStore,
    root: TermId,
    mt: &Multitrace,
    opts: &ExploreOptions,
) -> Verdict {
    let (owned, adjusted, how) = prepare(store, root, mt, opts);
    let mt = owned.as_ref().unwrap_or(mt);
    let opts = adjusted.as_ref().unwrap_or(opts);
    let mut search = Search::new(store, mt, opts);
    let first_mode = opts.mode;
    let first = first_search(&mut search, root, first_mode == Mode::Prefix, how);
    let mut verdict = match first {
        Outcome::NotFound => {
            let mut v = Verdict::new(VerdictKind::Fail);
            if let Some((k, position, lt)) = search.root_cut {
                // A local trace is rejected on its own: say where, as AS does.
                v.reason = Some(Reason::LocalError {
                    location: LocationId(k as u32),
                    position: position as usize,
                    expected: search
                        .store
                        .frontier(lt)
                        .into_iter()
                        .map(Sym::Action)
                        .collect(),
                });
            } else {
                v.reason = Some(Reason::CentralError);
            }
            v
        }
        Outcome::Exhausted(limit) => inconclusive(limit, None),
        Outcome::Found => match first_mode {
            Mode::Complete => Verdict::new(VerdictKind::Pass),
            Mode::Prefix => {
                // A multi-prefix; is it also accepted?
                match search.run(root, false) {
                    Outcome::Found => Verdict::new(VerdictKind::Pass),
                    Outcome::NotFound => Verdict::new(VerdictKind::WeakPass),
                    Outcome::Exhausted(limit) => {
                        inconclusive(limit, Some("accepted as a multi-prefix".into()))
                    }
                }
            }
        },
    };
    verdict.vertices = search.meter.vertices;
    if verdict.kind == VerdictKind::Pass {
        if let Some(ks) = search.path.take() {
            let mut pos = vec![0usize; mt.components.len()];
            let mut w = Vec::with_capacity(ks.len());
            for k in ks {
                w.push((k, Sym::Action(mt.components[k].trace[pos[k]])));
                pos[k] += 1;
            }
            verdict.witness = Some(w);
        }
    }
    verdict
}

/// Is `mt` a multi-prefix of an accepted multitrace of `root`? Prefix mode's first search
/// only (no Pass/WeakPass distinction, no witness; `opts.mode` is ignored): `Ok(answer)`, or
/// `Err(limit)` when the budget ran out; with the vertices spent.
pub fn is_multi_prefix(
    store: &mut TermStore,
    root: TermId,
    mt: &Multitrace,
    opts: &ExploreOptions,
) -> (Result<bool, &'static str>, u64) {
    let (owned, adjusted, how) = prepare(store, root, mt, opts);
    let mt = owned.as_ref().unwrap_or(mt);
    let opts = adjusted.as_ref().unwrap_or(opts);
    let mut search = Search::new(store, mt, opts);
    let answer = match first_search(&mut search, root, true, how) {
        Outcome::Found => Ok(true),
        Outcome::NotFound => Ok(false),
        Outcome::Exhausted(limit) => Err(limit),
    };
    (answer, search.meter.vertices)
}

/// [`is_multi_prefix`] for one of a series of queries on cuts of one multitrace (the
/// diagnosis): the local analyses' decided vertices are kept in `memo` from one query to the
/// next instead of being settled again. `ids[k]` names component `k`'s trace in the memo: the
/// caller gives the same id only to the same trace of the same component (a decided local
/// vertex depends on the trace, the local term, the position and the mode only, see
/// [`LocalMemo`]), and the same root and lifelines to every query of the series.
pub(super) fn is_multi_prefix_shared(
    store: &mut TermStore,
    root: TermId,
    mt: &Multitrace,
    opts: &ExploreOptions,
    memo: &mut LocalMemo,
    ids: &[u32],
) -> (Result<bool, &'static str>, u64) {
    let (owned, adjusted, how) = prepare(store, root, mt, opts);
    let mt = owned.as_ref().unwrap_or(mt);
    let opts = adjusted.as_ref().unwrap_or(opts);
    let mut search = Search::new(store, mt, opts);
    // Components added for unobserved lifelines have empty traces, the same in every query.
    search.ids = (0..mt.components.len())
        .map(|k| ids.get(k).copied().unwrap_or(u32::MAX - k as u32))
        .collect();
    search.local = std::mem::take(memo);
    let answer = match first_search(&mut search, root, true, how) {
        Outcome::Found => Ok(true),
        Outcome::NotFound => Ok(false),
        Outcome::Exhausted(limit) => Err(limit),
    };
    *memo = std::mem::take(&mut search.local);
    (answer, search.meter.vertices)
}

/// What every search of `mt` starts from: the multitrace completed with an empty trace for
/// each lifeline of the term that no component covers (unobserved), and, when the term has a
/// `loopH`, options without local analyses nor POR (lifeline removal is unsound there, see
/// `TermStore::has_head_loop`; in prefix mode unobserved continuations are then explored as
/// silent moves). `None` where nothing changes; [`Prefix`] says how prefix mode explores.
fn prepare(
    store: &TermStore,
    root: TermId,
    mt: &Multitrace,
    opts: &ExploreOptions,
) -> (Option<Multitrace>, Option<ExploreOptions>, Prefix) {
    let missing = store.lifelines(root).minus(mt.lifelines());
    let owned = (!missing.is_empty()).then(|| {
        let mut m = mt.clone();
        m.complete_with(m.lifelines().union(missing));
        m
    });
    let head = store.has_head_loop(root);
    let adjusted = head.then_some(ExploreOptions {
        loc: false,
        por: false,
        ..*opts
    });
    let confirm =
        !head && removal_loses_order(store, root, &owned.as_ref().unwrap_or(mt).components);
    (
        owned,
        adjusted,
        Prefix {
            silent: head,
            confirm,
        },
    )
}

/// How prefix mode explores unobserved continuations (see [`prepare`]).
#[derive(Clone, Copy)]
struct Prefix {
    /// Silent moves only (lifeline removal is unsound for the term).
    silent: bool,
    /// Lifeline removal, whose success is confirmed by silent moves (removal over-approximates
    /// the multi-prefixes there: see [`removal_loses_order`]).
    confirm: bool,
}

/// Prefix mode's search (or complete mode's when `prefix` is false), with the confirmation
/// that [`Prefix::confirm`] asks for. Removal accepts a superset of the multi-prefixes
/// (`rmv_H` of an accepted trace is a trace of `rmv_H` of the term, at every step), so its
/// `NotFound` is final; its `Found` is checked again with silent moves, which are exact (and
/// whose bound gives `Exhausted`, never a wrong answer).
fn first_search(search: &mut Search<'_>, root: TermId, prefix: bool, how: Prefix) -> Outcome {
    search.silent = how.silent;
    let first = if prefix && how.silent {
        deepening(search, root)
    } else {
        search.run(root, prefix)
    };
    if !(prefix && how.confirm && first == Outcome::Found) {
        return first;
    }
    search.silent = true;
    search.confirming = true;
    let confirmed = deepening(search, root);
    search.silent = false;
    search.confirming = false;
    confirmed
}

/// A prefix-mode search by silent moves, with their bound per path raised step by step
/// ([`SILENT_FIRST`], then [`SILENT_STEP`] times more, up to the search's own bound).
///
/// Why: a depth-first search spends its silent moves where the successors come first, and a
/// `loopP` of the consumed locations opens a new iteration at every silent move (each a new
/// term: `par` of the iterations begun), so a success that needs three silent moves of
/// another branch came after tens of thousands of vertices (a diagnosis's queries ran out of
/// 200,000 vertices on a term of depth 7). Exact at every step: a success is one; a search
/// that found none and cut no path at its bound explored every vertex (`NotFound` is final);
/// only the last step's cut gives `Exhausted("silent moves")`. Searches that end within the
/// first bound cost what they did; one that needs the whole bound pays about the sum of the
/// steps, dominated by the last.
fn deepening(search: &mut Search<'_>, root: TermId) -> Outcome {
    let own = search.silent_bound(root);
    let mut cap = SILENT_FIRST;
    loop {
        search.silent_cap = cap;
        let out = search.run(root, true);
        search.silent_cap = u32::MAX;
        match out {
            Outcome::Exhausted("silent moves") if cap < own => {
                cap = cap.saturating_mul(SILENT_STEP);
            }
            out => return out,
        }
    }
}

/// The first bound on silent moves per path of [`deepening`].
const SILENT_FIRST: u32 = 4;
/// How much [`deepening`] raises the bound on silent moves per path at each step.
const SILENT_STEP: u32 = 4;

/// Whether lifeline removal may accept more than the multi-prefixes: when a location of
/// several lifelines remains beside another one. Seed 001's Th. 1 (`rmv` commutes with the
/// semantics) holds for multitraces with one component per lifeline, where `strict` and `seq`
/// mean the same. With co-localized lifelines the order *within* a location counts, and
/// removal forgets an order that went through the removed lifelines: in
/// `seq(strict(loopS(l0?m), l2?m), strict(l2?m, l1?m))` with locations `{l0, l1}` and `{l2}`,
/// `l1?m` comes after every `l0?m`, but once `l2` is removed (its trace empty) the term is
/// `seq(loopS(l0?m), l1?m)`, which lets `l0?m` follow `l1?m`: `([l0?m l1?m l0?m], [])` would be
/// a WeakPass although no accepted multitrace extends it. There a success found with removal is
/// confirmed with silent moves (the consumed locations' later actions, executed without
/// consuming anything), which are exact; a confirmation that reaches their bound is
/// inconclusive, never a WeakPass.
///
/// The same holds, with one lifeline per location, when the term has a `coreg` whose region
/// leaves out a lifeline both sides use ([`TermStore::has_hidden_order`]): its sides are
/// ordered through that lifeline, and removing it forgets the order.
fn removal_loses_order(store: &TermStore, root: TermId, components: &[Component]) -> bool {
    store.has_hidden_order(root)
        || (components.len() > 1 && components.iter().any(|c| c.lifelines.len() > 1))
}

fn inconclusive(limit: &str, established: Option<String>) -> Verdict {
    let mut v = Verdict::new(VerdictKind::Inconclusive);
    v.reason = Some(Reason::Budget {
        limit: limit.to_string(),
        established,
    });
    v
}

#[derive(Debug, PartialEq, Eq)]
enum Outcome {
    Found,
    NotFound,
    Exhausted(&'static str),
}

/// Vertices between two estimates of a search's bytes against `--max-memory` (an estimate
/// walks no table: it reads capacities).
const MEMORY_EVERY: u64 = 64;

/// About the bytes of a search's own structures with `n` components: the visited set (a
/// vertex, its boxed positions, a control byte per slot), the stack and the trail, at their
/// capacities.
fn search_bytes(n: usize, visited: usize, stack: usize, trail: usize) -> u64 {
    use std::mem::size_of;
    let positions = 4 * n + 16; // the boxed slice and its allocator overhead
    let vertex = size_of::<Vertex>() + positions;
    (visited * (vertex + 1)
        + stack * (size_of::<(Vertex, u32, u32)>() + positions)
        + trail * size_of::<(u32, u32)>()) as u64
}

/// What the local analyses say of a vertex.
enum LocalVerdict {
    /// The local trace of this component is not (a prefix of) a behaviour of its restriction:
    /// no success below.
    Cut(usize),
    /// No cut; `true` when the local analysis of the only unconsumed component was run on the
    /// vertex's term itself (its restriction changed nothing), so it decided the vertex.
    Pass(bool),
}

struct Search<'a> {
    store: &'a mut TermStore,
    components: &'a [Component],
    all: LifelineSet,
    opts: &'a ExploreOptions,
    meter: Meter,
    /// Every decided vertex of the local analyses (see [`LocalMemo`]).
    local: LocalMemo,
    /// The name of each component's trace in `local` (empty: its index).
    ids: Vec<u32>,
    /// Local vertices the local analyses may still expand: [`LOCAL_CREDIT`] per global vertex.
    credit: u64,
    /// The local analysis that cut the initial vertex: (component, furthest local position,
    /// local term there).
    root_cut: Option<(usize, u32, TermId)>,
    /// Furthest point of the last failed local analysis.
    last_local: (u32, TermId),
    /// Components executed, in order, on the path of the last success (with `witness`).
    path: Option<Vec<usize>>,
    /// Prefix mode by silent moves (actions of consumed locations executed without consuming
    /// anything) instead of lifeline removal.
    silent: bool,
    /// Silent moves that confirm a success found with removal (see [`first_search`]).
    confirming: bool,
    /// A bound on silent moves per path below the search's own ([`deepening`]).
    silent_cap: u32,
}

type Vertex = (TermId, Box<[u32]>);

impl<'a> Search<'a> {
    fn new(store: &'a mut TermStore, mt: &'a Multitrace, opts: &'a ExploreOptions) -> Self {
        let all = mt.lifelines();
        Search {
            store,
            components: &mt.components,
            all,
            opts,
            meter: Meter::new(opts.budget),
            local: LocalMemo::default(),
            ids: Vec::new(),
            credit: 0,
            root_cut: None,
            last_local: (0, TermId::EMPTY),
            path: None,
            silent: false,
            confirming: false,
            silent_cap: u32::MAX,
        }
    }

    /// The search's own bound on silent moves per path (a [`Search::silent_cap`] may lower
    /// it). A confirmation ([`first_search`]) may need the consumed locations to act between
    /// every two observed actions (a `loopS` whose iterations span locations), so its bound
    /// grows with the observed actions.
    fn silent_bound(&self, root: TermId) -> u32 {
        let n = self.components.len();
        let observed: u32 = (0..n).map(|k| self.len(k)).sum();
        let per_path = 2 * self.store.depth(root) + 8;
        if self.confirming {
            per_path.saturating_mul(observed + 1)
        } else {
            per_path
        }
    }

    fn len(&self, k: usize) -> u32 {
        self.components[k].trace.len() as u32
    }

    /// Depth-first search from `root` with all positions at 0; `removal` selects prefix mode.
    fn run(&mut self, root: TermId, removal: bool) -> Outcome {
        let n = self.components.len();
        let mut visited: FxHashSet<Vertex> = FxHashSet::default();
        let start: Vertex = (root, vec![0u32; n].into_boxed_slice());
        if self.opts.memo {
            visited.insert(start.clone());
        }
        // Each stack entry knows its node in `trail` (parent node, component executed), so a
        // success can be turned into a witness.
        let mut trail: Vec<(u32, u32)> = Vec::new();
        let track = self.opts.witness;
        if track {
            trail.push((u32::MAX, u32::MAX));
        }
        let mut stack: Vec<(Vertex, u32, u32)> = vec![(start, 0, 0)];
        let mut succ: Vec<(Vertex, u32)> = Vec::new();
        // Silent moves along one path are bounded; a search that hit the bound and found
        // nothing is inconclusive, never a Fail.
        let silent_max = self.silent_bound(root).min(self.silent_cap);
        let mut cut = false;
        // Bytes of the store before this search: what it grows by is this search's.
        let store_before = self.store.heap_bytes();
        while let Some(((mut t, pos), node, silent_used)) = stack.pop() {
            if let Err(limit) = self.meter.tick(self.store, t) {
                return Outcome::Exhausted(limit);
            }
            if self.meter.vertices.is_multiple_of(MEMORY_EVERY) {
                let held = search_bytes(n, visited.capacity(), stack.capacity(), trail.capacity())
                    + self.store.heap_bytes().saturating_sub(store_before)
                    + self.local.heap_bytes();
                if !self.opts.budget.memory_allows(held) {
                    return Outcome::Exhausted("memory");
                }
            }
            self.credit += LOCAL_CREDIT;
            if (0..n).all(|k| pos[k] == self.len(k)) {
                if removal || self.store.terminates(t) {
                    if track {
                        self.path = Some(witness(&trail, node, &[]));
                    }
                    return Outcome::Found;
                }
                continue;
            }
            let mut h = LifelineSet::EMPTY;
            if removal {
                for (k, c) in self.components.iter().enumerate() {
                    if pos[k] == self.len(k) {
                        h = h.union(c.lifelines);
                    }
                }
                if !self.silent {
                    t = self.store.remove(t, h);
                }
            }
            if self.opts.loc {
                match self.local_analyses(t, &pos, removal) {
                    Err(limit) => return Outcome::Exhausted(limit),
                    Ok(LocalVerdict::Cut(k)) => {
                        if pos.iter().all(|&p| p == 0) {
                            self.root_cut = Some((k, self.last_local.0, self.last_local.1));
                        }
                        continue;
                    }
                    Ok(LocalVerdict::Pass(true)) => {
                        // Only one trace is left and its local analysis ran on `t` itself:
                        // the rest of the search is that analysis, which found a success.
                        if track {
                            let k = (0..n).find(|&k| pos[k] < self.len(k));
                            let rest: Vec<usize> = k
                                .map(|k| vec![k; (self.len(k) - pos[k]) as usize])
                                .unwrap_or_default();
                            self.path = Some(witness(&trail, node, &rest));
                        }
                        return Outcome::Found;
                    }
                    Ok(LocalVerdict::Pass(false)) => {}
                }
            }
            succ.clear();
            // The successors of one location whose action can only ever execute at the
            // positions executable now (see `all_positions_now`), the fewest seen.
            let mut ample: Option<Vec<(Vertex, u32)>> = None;
            for k in 0..n {
                if pos[k] == self.len(k) {
                    continue;
                }
                let a = self.components[k].trace[pos[k] as usize];
                let nexts = self.store.exec(t, a);
                if nexts.is_empty() {
                    continue;
                }
                let mut next_pos = pos.clone();
                next_pos[k] += 1;
                if self.opts.por && nexts.len() == 1 {
                    let only = nexts[0];
                    if self.one_unambiguous(t, a) {
                        succ.clear();
                        succ.push(((only, next_pos), k as u32));
                        break;
                    }
                    succ.push(((only, next_pos), k as u32));
                    continue;
                }
                let nexts = self.store.exec(t, a).to_vec();
                let from = succ.len();
                for (j, &nt) in nexts.iter().enumerate() {
                    if nexts[..j].contains(&nt) {
                        continue;
                    }
                    succ.push(((nt, next_pos.clone()), k as u32));
                }
                if self.opts.por
                    && self.components[k].lifelines.len() == 1
                    && ample.as_ref().is_none_or(|x| x.len() > succ.len() - from)
                    && self.all_positions_now(t, a, nexts.len())
                {
                    ample = Some(succ[from..].to_vec());
                }
            }
            if let Some(only) = ample {
                succ.clear();
                succ.extend(only);
            }
            if removal && self.silent && !h.is_empty() && silent_used >= silent_max {
                cut = true;
            } else if removal && self.silent && !h.is_empty() {
                // What consumed locations did after their observation stopped.
                let from = succ.len();
                for a in self.store.frontier(t) {
                    if h.contains(a.lifeline) {
                        let nexts = self.store.exec(t, a).to_vec();
                        // A move back to the same term changes nothing.
                        for nt in nexts.into_iter().filter(|&nt| nt != t) {
                            succ.push(((nt, pos.clone()), u32::MAX));
                        }
                    }
                }
                // Shallower terms first: a move that finishes an iteration begun comes before
                // one that opens a new iteration of a `loopP` (a deeper `par`), so the moves
                // that let a `strict` go on are tried first. Only the order of the search.
                let store = &*self.store;
                succ[from..].sort_by_key(|((nt, _), _)| store.depth(*nt));
            }
            for (v, k) in succ.drain(..).rev() {
                if !self.opts.memo || visited.insert(v.clone()) {
                    let child = if track {
                        trail.push((node, k));
                        trail.len() as u32 - 1
                    } else {
                        0
                    };
                    let used = if k == u32::MAX {
                        silent_used + 1
                    } else {
                        silent_used
                    };
                    stack.push((v, child, used));
                }
            }
        }
        if cut {
            return Outcome::Exhausted("silent moves");
        }
        Outcome::NotFound
    }

    /// Partial order reduction by a location, generalizing [`Search::one_unambiguous`] to
    /// several positions: the head action `a` of a one-lifeline location `l` executes now at
    /// every position where it executes in `t` restricted to `l` (`executable` of them,
    /// counted on `t` as in Def. 11), and none of them crosses a `strict` nor enters a
    /// `loopS`/`loopH` body. Then the successors by `a` are the only ones needed.
    ///
    /// Why: a vertex succeeds iff its remaining multitrace `μ` is (prefix mode: a multi-prefix
    /// of) the projection of an accepted trace of `t` (seed 001 Sec. 4.4), so some accepted
    /// `u a z` of `t` where `u` has no action on `l` (`a` is `l`'s next action) projects onto
    /// (an extension of) `μ`. The position `p` where that `a` executes is executable
    /// in the restriction to `l` (other lifelines' actions are invisible there), hence now. `a`
    /// at `p` only resolves the `alt`s above `p` (toward `p`, as `u` left them, since `p` was
    /// still reachable after `u`) and prunes `l` from the left of weak sequencings (where `u`
    /// left no action of `l`, `a` being the first), and discards no left operand of a `strict`
    /// and no earlier loop iteration (the crossing condition): so `u` still executes after
    /// it, `a u z` is accepted too, it has the same projections, and the successor by `a` at
    /// `p` succeeds. With one position this is the condition of
    /// [`Search::one_unambiguous`]. Co-localized lifelines are left out: there `u` may hold
    /// actions of `a`'s location that the argument would reorder. The property tests
    /// (`runtime/tests`) compare it with the plain search and the denotational oracle.
    fn all_positions_now(&mut self, t: TermId, a: Action, executable: usize) -> bool {
        self.store.local_exec_count(t, a) as usize == executable
            && !self.store.exec_crosses_strict(t, a)
    }

    /// Partial order reduction criterion: `a` is one-unambiguous in `t` (seed 001 Def. 11: one
    /// executable position in the term restricted to `a`'s lifeline) and executing it does not
    /// cross the right operand of a `strict` nor enter a `loopS`/`loopH` body
    /// ([`TermStore::exec_crosses_strict`]). Seed 001's Prop. 14 omits the second condition, but
    /// without it POR is unsound: in `strict(loopS(l3?m), l1?m)`, executing `l1?m` first
    /// discards the loop, rejecting the accepted multitrace `(l1?m, l3?m.l3?m)`; in
    /// `loopS(seq(alt(l1?a, l3?a), l3?b))`, executing `l1?a` first puts it in the first
    /// iteration and rejects `(l1?a.l1?a, l3?a.l3?b.l3?b.l3?b)`.
    fn one_unambiguous(&mut self, t: TermId, a: Action) -> bool {
        self.store.local_exec_count(t, a) == 1 && !self.store.exec_crosses_strict(t, a)
    }

    /// Whether every local trace, from its current position, is (prefix mode: a prefix of) a
    /// behaviour of the term restricted to its location; [`LocalVerdict::Cut`] names a
    /// component whose trace is not.
    ///
    /// [`LocalVerdict::Pass`]`(true)` says more: one component `k` is left unconsumed and
    /// restricting `t` to it removed nothing (`t` has no lifeline of another component, as
    /// at one location, or in prefix mode once the others are consumed and removed). Then the
    /// vertex's question, is what remains of the multitrace (only `k`'s trace is left)
    /// accepted by `t` (prefix mode: a multi-prefix), is the local analysis' question on the
    /// same term: both searches are exact, so the local success is the vertex's. Without this
    /// the global search would walk the same graph a second time.
    ///
    /// Cost: the analyses at a vertex other than the first may expand only the local
    /// vertices the search has paid for ([`LOCAL_CREDIT`] per global vertex, saved up when
    /// unused). A question the credit cannot settle is left open and does not cut: local
    /// analyses only ever cut vertices from which no success is reachable, so cutting fewer
    /// never changes a verdict, and the search costs at most `1 + LOCAL_CREDIT` times its
    /// global vertices (plus the first vertex's analyses). Without the credit a term whose
    /// restriction remembers how far another location ran ahead (pending receptions of a
    /// `loopP`, or of a `loopW` body) asks a new question at each vertex that costs the lag
    /// to settle: quadratic in the trace (issue 25).
    fn local_analyses(
        &mut self,
        t: TermId,
        pos: &[u32],
        prefix: bool,
    ) -> Result<LocalVerdict, &'static str> {
        let first = pos.iter().all(|&p| p == 0);
        let mut left = 0;
        let mut decided = false;
        for (k, &p) in pos.iter().enumerate() {
            let done = p == self.len(k);
            if done && prefix {
                continue; // removed
            }
            let others = self.all.minus(self.components[k].lifelines);
            let lt = self.store.remove(t, others);
            if done {
                if !self.store.terminates(lt) {
                    self.last_local = (p, lt);
                    return Ok(LocalVerdict::Cut(k));
                }
                continue;
            }
            let id = self.ids.get(k).copied().unwrap_or(k as u32);
            let trace = (id, &self.components[k].trace[..]);
            let credit = (!first).then_some(&mut self.credit);
            let reach =
                self.local
                    .reach(self.store, &mut self.meter, trace, (lt, p), prefix, credit)?;
            match reach {
                Some(Reach::Live) => decided = lt == t,
                None => decided = false,
                Some(Reach::Dead(q, at)) => {
                    self.last_local = (q, at);
                    return Ok(LocalVerdict::Cut(k));
                }
            }
            left += 1;
        }
        Ok(LocalVerdict::Pass(left == 1 && decided))
    }
}

/// The components executed from the start to `node` of `trail`, then `rest`.
fn witness(trail: &[(u32, u32)], node: u32, rest: &[usize]) -> Vec<usize> {
    let mut ks = Vec::new();
    let mut at = node;
    while trail[at as usize].0 != u32::MAX {
        if trail[at as usize].1 != u32::MAX {
            ks.push(trail[at as usize].1 as usize);
        }
        at = trail[at as usize].0;
    }
    ks.reverse();
    ks.extend_from_slice(rest);
    ks
}
