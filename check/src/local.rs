//! Local analyses (LOC, seed 001 Def. 12) for term exploration: is one local trace, from a
//! position, (in prefix mode, a prefix of) a behaviour of the interaction restricted to its
//! location?
//!
//! The question is reachability in the *local graph* of a component `k`: vertices `(t, q)`, a
//! local term and a position in `k`'s trace, an edge `(t, q) -> (t', q + 1)` for each
//! derivative `t --a--> t'` of the trace's action `a` at `q`; a vertex `(t, len)` is a success
//! when the mode is prefix or `t` terminates. The explorer asks it at every vertex of the
//! global search, from the restriction of that vertex's term.
//!
//! **Why a memo over all local vertices.** Asking each question with a fresh search costs the
//! rest of the trace each time: at one location the local graph *is* the global one, and the
//! global search paid `n - p` local vertices at each of its `n` vertices, about `n²/2` in all
//! (the cause of issue 25's quadratic growth). Here every local vertex that a search expands
//! is recorded, per (component, mode), as
//!
//! - **live** when a success is reachable from it: the vertices on the search's path when it
//!   reaches a success (each is the predecessor of the next), or a vertex with a live child;
//! - **dead** when none is: a vertex all of whose children are dead. This is exact because the
//!   local graph is acyclic (each edge consumes one action, `q` increases), so when a vertex's
//!   last child is done, everything reachable from it has been decided; there is no vertex
//!   "in progress" below it that could still turn out live.
//!
//! Liveness of `(t, q)` depends on `t`, `q`, the trace of `k` from `q` and the mode only, all
//! fixed during one exploration, so a recorded answer is the answer of any later question from
//! that vertex, and a later search stops where it meets a recorded vertex. A search expands a
//! vertex only when it is not recorded, and every expanded vertex is recorded before the
//! search returns (on success the whole path is live, and a vertex is only expanded when it is
//! pushed on that path), so each local vertex is expanded at most once per exploration: the
//! local analyses of one exploration cost at most the number of distinct local vertices, which
//! is linear in the trace length when the local terms at each position fall into a bounded
//! number of classes (as for every model whose loops unfold back to the same term).
//!
//! That bound is only linear when the questions land on few distinct local vertices. When a
//! restriction remembers how far another location ran ahead (the pending receptions of a
//! `loopP` or of a `loopW` body, restricted to the receiving lifeline, are a term per lag),
//! each vertex of the global search asks from a new local vertex and settling it costs the
//! lag. The explorer therefore pays for local vertices from a credit (`Some(credit)`: one
//! unit per expanded vertex); a question the credit cannot settle is left open (`Ok(None)`),
//! which the explorer treats as "no cut". The vertices decided before the credit ran out stay
//! recorded (they are decided), the open path is forgotten.
//!
//! A dead vertex also records the furthest point any of its paths reaches (position and local
//! term there, for the diagnosis of a failure at the first vertex): the first vertex of the
//! greatest position in the order the search visits derivatives (last derivative first), which
//! is what a fresh depth-first search with a visited set finds.

use super::meter::Meter;
use multitrace_model::signature::Action;
use multitrace_model::term::{TermId, TermStore};
use rustc_hash::FxHashMap;

/// What is known of a local vertex.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Reach {
    /// A success is reachable.
    Live,
    /// No success is reachable; the furthest point reached (position, local term there).
    Dead(u32, TermId),
}

/// The recorded local vertices of one exploration: (component, prefix mode?, local term,
/// position) -> what is known.
#[derive(Default)]
pub(super) struct LocalMemo {
    known: FxHashMap<(u32, bool, TermId, u32), Reach>,
}

impl LocalMemo {
    /// About the bytes the memo holds (entries and control bytes at capacity).
    pub(super) fn heap_bytes(&self) -> u64 {
        (self.known.capacity() * (std::mem::size_of::<((u32, bool, TermId, u32), Reach)>() + 1))
            as u64
    }
}

/// One vertex on the search's path: its term, position, derivatives still to try (tried from
/// the last), and the furthest point reached so far.
struct Frame {
    t: TermId,
    q: u32,
    children: Vec<TermId>,
    furthest: (u32, TermId),
}

impl LocalMemo {
    /// Whether the trace `trace` of component `k`, from position `p`, is (with `prefix`: a
    /// prefix of) a behaviour of the local term `lt`. Expands only unrecorded vertices, each
    /// counted by `meter` and, with `credit`, paid from it: `Ok(None)` when the credit runs
    /// out first (the question is left open; what was decided so far stays recorded). `Err`
    /// names the budget that ran out (nothing wrong is recorded then: only decided vertices
    /// are).
    pub(super) fn reach(
        &mut self,
        store: &mut TermStore,
        meter: &mut Meter,
        (k, trace): (u32, &[Action]),
        (lt, p): (TermId, u32),
        prefix: bool,
        mut credit: Option<&mut u64>,
    ) -> Result<Option<Reach>, &'static str> {
        let key = |t: TermId, q: u32| (k, prefix, t, q);
        if let Some(&r) = self.known.get(&key(lt, p)) {
            return Ok(Some(r));
        }
        let len = trace.len() as u32;
        let mut path: Vec<Frame> = Vec::new();
        // The vertex to open next: `Some` after choosing an unrecorded child.
        let mut open = Some((lt, p));
        loop {
            if let Some((t, q)) = open.take() {
                if let Some(c) = credit.as_deref_mut() {
                    if *c == 0 {
                        return Ok(None);
                    }
                    *c -= 1;
                }
                meter.tick(store, t)?;
                if q == len {
                    if prefix || store.terminates(t) {
                        self.known.insert(key(t, q), Reach::Live);
                        return Ok(Some(self.mark_live(&path, key)));
                    }
                    let dead = Reach::Dead(q, t);
                    self.known.insert(key(t, q), dead);
                    match path.last_mut() {
                        Some(parent) => further(&mut parent.furthest, dead),
                        None => return Ok(Some(dead)),
                    }
                } else {
                    let mut children = store.exec(t, trace[q as usize]).to_vec();
                    dedup_keep_first(&mut children);
                    path.push(Frame {
                        t,
                        q,
                        children,
                        furthest: (q, t),
                    });
                }
            }
            let Some(top) = path.last_mut() else {
                unreachable!("the loop returns when the start vertex is decided")
            };
            let Some(c) = top.children.pop() else {
                // Every derivative is dead: so is this vertex.
                let (q, t) = top.furthest;
                let dead = Reach::Dead(q, t);
                let done = path.pop().expect("a frame is on the path");
                self.known.insert(key(done.t, done.q), dead);
                match path.last_mut() {
                    Some(parent) => {
                        further(&mut parent.furthest, dead);
                        continue;
                    }
                    None => return Ok(Some(dead)),
                }
            };
            let q = top.q + 1;
            match self.known.get(&key(c, q)) {
                Some(Reach::Live) => return Ok(Some(self.mark_live(&path, key))),
                Some(&dead) => further(&mut top.furthest, dead),
                None => open = Some((c, q)),
            }
        }
    }

    /// A success was reached from the last vertex of `path`: all of `path` is live.
    fn mark_live(
        &mut self,
        path: &[Frame],
        key: impl Fn(TermId, u32) -> (u32, bool, TermId, u32),
    ) -> Reach {
        for f in path {
            self.known.insert(key(f.t, f.q), Reach::Live);
        }
        Reach::Live
    }
}

/// Keeps the furthest point: a later child replaces it only when it reaches strictly further
/// (so ties go to the child tried first, as in a depth-first search).
fn further(furthest: &mut (u32, TermId), child: Reach) {
    if let Reach::Dead(q, t) = child {
        if q > furthest.0 {
            *furthest = (q, t);
        }
    }
}

/// Removes repeated derivatives, keeping the first of each in position order (the order in
/// which a depth-first search with a visited set would push them).
fn dedup_keep_first(v: &mut Vec<TermId>) {
    let mut j = 0;
    for i in 0..v.len() {
        if !v[..j].contains(&v[i]) {
            v[j] = v[i];
            j += 1;
        }
    }
    v.truncate(j);
}
