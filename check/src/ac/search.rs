//! The depth-first search of `Central(A, μ)` (specialized on the word count of state sets),
//! its steps, silent moves and the witness.

#![allow(clippy::needless_range_loop)]

use super::outcome::AcOutcome;
use super::scratch::AcScratch;
use super::tables::{for_each_bit, step, AcTables, CLOSURE_MAX_LOCATIONS};
use super::vectors::Radix;
use super::viability::{filter, viability, Q_MAX_WORDS};
use multitrace_model::bits;
use multitrace_model::budget::{Budget, Limit, Meter};
use multitrace_model::nfa::{Alphabet, LetterId, Nfa, StateId};
use multitrace_model::verdict::{Reason, Verdict, VerdictKind};

/// Closes `set` under transitions whose letter belongs to a location in `silent`, restricted
/// to `mask`.
pub(super) fn close(
    nfa: &Nfa,
    alphabet: &Alphabet,
    set: &mut [u64],
    silent: &[bool],
    mask: Option<&[u64]>,
    stack: &mut Vec<usize>,
) {
    stack.clear();
    stack.extend(bits::iter(set));
    while let Some(s) = stack.pop() {
        for i in nfa.out_range(StateId(s as u32)) {
            let t = nfa.transitions()[i];
            if silent[alphabet.location(t.letter).index()]
                && mask.is_none_or(|m| bits::get(m, i))
                && !bits::get(set, t.to.index())
            {
                bits::set(set, t.to.index());
                stack.push(t.to.index());
            }
        }
    }
}

/// How one search ended.
pub(super) enum Search {
    /// Reached the end in a goal state.
    Found,
    NotFound,
    Exhausted(&'static str),
}

pub(super) struct Run<'a, 's> {
    pub(super) nfa: &'a Nfa,
    pub(super) tables: &'a AcTables,
    pub(super) alphabet: &'a Alphabet,
    pub(super) traces: &'a [Vec<LetterId>],
    pub(super) mask: Option<&'a [u64]>,
    pub(super) radix: &'a Radix,
    pub(super) budget: &'a Budget,
    /// The clock of the search (its work since the clock was last read).
    pub(super) meter: Meter,
    pub(super) vertices: u64,
    pub(super) s: &'s mut AcScratch,
}

impl Run<'_, '_> {
    /// Depth-first propagation of state sets, specialized on the words per set.
    pub(super) fn search(&mut self, silent_moves: bool) -> Search {
        match self.tables.words {
            1 => self.search_w::<1>(silent_moves),
            2 => self.search_w::<2>(silent_moves),
            3 => self.search_w::<3>(silent_moves),
            4 => self.search_w::<4>(silent_moves),
            _ => self.search_w::<0>(silent_moves),
        }
    }

    /// The search with `W` words per set (`0`: read from the tables); `silent_moves` enables
    /// the silent moves of consumed locations (prefix mode).
    pub(super) fn search_w<const W: usize>(&mut self, silent_moves: bool) -> Search {
        let tables = self.tables;
        let w = if W == 0 { tables.words } else { W };
        let n = self.traces.len();
        let radix = self.radix;
        let end: u64 = (0..n).map(|j| radix.lens[j] * radix.strides[j]).sum();
        let goal = if silent_moves {
            &tables.live
        } else {
            &tables.accepting
        };
        let actions: u64 = radix.lens.iter().sum();
        let s = &mut *self.s;
        let prune_after = s.prune_after.unwrap_or(2 * actions + 64);
        // `Q` holds `(actions + locations) × w` words: bounded, so that a huge trace cannot make
        // pruning allocate without limit (the search then runs unpruned, within its budget).
        let viable = tables
            .viability
            .as_ref()
            .filter(|_| n == tables.locations && (actions as usize + n) * w <= Q_MAX_WORDS);
        let mut pruning = false;
        let mut expanded = 0u64;
        s.reached.reset(w);
        s.keys.clear();
        s.sets.clear();
        s.fresh.clear();
        s.fresh.resize(w, 0);
        s.silent.clear();
        s.silent.resize(n, false);
        // Stack of (key, actions consumed) with the states to propagate, flat.
        s.keys.push((0, 0));
        s.sets.extend_from_slice(&tables.initial[..w]);
        while let Some((key, consumed)) = s.keys.pop() {
            let at = s.sets.len() - w;
            s.fresh[..w].copy_from_slice(&s.sets[at..at + w]);
            s.sets.truncate(at);
            if silent_moves {
                let (mut any, mut bitmask) = (false, 0usize);
                for (k, x) in s.silent.iter_mut().enumerate() {
                    *x = radix.pos(key, k) == radix.lens[k];
                    any |= *x;
                    bitmask |= (*x as usize) << (k % usize::BITS as usize);
                }
                // (The rows are indexed by the model's locations: only when the traces are.)
                let rows = match self.mask {
                    None if any && n == tables.locations && n <= CLOSURE_MAX_LOCATIONS => {
                        tables.closure_rows(self.nfa, self.alphabet, bitmask)
                    }
                    _ => None,
                };
                if let Some(rows) = rows {
                    // The closure is the union of the rows of the states (each row holds its
                    // own state).
                    s.closed.clear();
                    s.closed.resize(w, 0);
                    for_each_bit(&s.fresh, w, |x| {
                        let row = &rows[x * w..(x + 1) * w];
                        for k in 0..w {
                            s.closed[k] |= row[k];
                        }
                    });
                    s.fresh[..w].copy_from_slice(&s.closed[..w]);
                } else if let Some(m) = self.mask.filter(|_| {
                    any && n == tables.locations
                        && n <= CLOSURE_MAX_LOCATIONS
                        && tables.closure.is_some()
                }) {
                    s.closed.resize(w, 0);
                    s.masked_closure.close(
                        self.nfa,
                        self.alphabet,
                        m,
                        (tables.states, w, n),
                        bitmask,
                        &mut s.fresh,
                        &mut s.closed,
                        &mut s.stack,
                    );
                } else if any {
                    close(
                        self.nfa,
                        self.alphabet,
                        &mut s.fresh,
                        &s.silent,
                        self.mask,
                        &mut s.stack,
                    );
                }
            }
            if pruning {
                filter(&s.q, &s.q_at, radix, key, &mut s.fresh, w);
            }
            // Keep only the states new at this vector.
            let Some(e) = s.reached.entry(key, self.budget) else {
                return Search::Exhausted(Limit::Memory.name());
            };
            if !s.reached.merge::<W>(e, &mut s.fresh) {
                continue;
            }
            self.vertices += 1;
            expanded += 1;
            if self.budget.max_vertices.is_some_and(|m| self.vertices > m) {
                return Search::Exhausted(Limit::Vertices.name());
            }
            // A vertex reads its set once per successor, and merges it.
            if self.meter.spend((w * (n + 2)) as u64) {
                return Search::Exhausted(Limit::Time.name());
            }
            // The stack may double while it is copied: count its capacity twice.
            let stack = 2 * (s.sets.capacity() * 8 + s.keys.capacity() * 16) as u64;
            if !self.budget.memory_allows(s.reached.bytes() + stack) {
                return Search::Exhausted(Limit::Memory.name());
            }
            if key == end {
                if (0..w).any(|k| s.fresh[k] & goal[k] != 0) {
                    return Search::Found;
                }
                continue;
            }
            if !pruning && expanded > prune_after {
                if let Some(v) = viable {
                    viability::<W>(
                        tables,
                        v,
                        self.traces,
                        goal,
                        w,
                        &mut s.q,
                        &mut s.q_at,
                        &mut s.memo,
                    );
                    pruning = true;
                    filter(&s.q, &s.q_at, radix, key, &mut s.fresh, w);
                }
            }
            // Successors, the last location first so that location 0 is explored first.
            for j in (0..n).rev() {
                let p = radix.pos(key, j) as usize;
                if p == self.traces[j].len() {
                    continue;
                }
                let at = s.sets.len();
                s.sets.resize(at + w, 0);
                let out = &mut s.sets[at..at + w];
                step(
                    tables,
                    self.nfa,
                    &s.masked,
                    self.mask,
                    &s.fresh,
                    self.traces[j][p],
                    out,
                    w,
                );
                let next = key + radix.strides[j];
                if pruning {
                    filter(&s.q, &s.q_at, radix, next, out, w);
                }
                if out.iter().all(|&x| x == 0) {
                    s.sets.truncate(at);
                    continue;
                }
                s.keys.push((next, consumed + 1));
            }
        }
        Search::NotFound
    }

    /// Walks back from an accepting state at the end (complete-mode sets).
    pub(super) fn rebuild(&self) -> Vec<(usize, LetterId)> {
        let nfa = self.nfa;
        let radix = self.radix;
        let n = self.traces.len();
        let end: u64 = (0..n).map(|j| radix.lens[j] * radix.strides[j]).sum();
        let reached = &self.s.reached;
        let mut key = end;
        let e = reached.find(key).expect("the end was reached");
        let mut state = reached
            .states(e)
            .into_iter()
            .find(|&s| bits::get(&self.tables.accepting, s))
            .expect("an accepting state at the end");
        let mut out = Vec::new();
        while key != 0 || !bits::get(&self.tables.initial, state) {
            let mut found = None;
            'search: for j in 0..n {
                let p = radix.pos(key, j) as usize;
                if p == 0 {
                    continue;
                }
                let pkey = key - radix.strides[j];
                let Some(pe) = reached.find(pkey) else {
                    continue;
                };
                let a = self.traces[j][p - 1];
                for s in reached.states(pe) {
                    let (lo, hi) = self.tables.ranges[s * self.tables.letters + a.index()];
                    for i in lo as usize..hi as usize {
                        if nfa.transitions()[i].to.index() == state
                            && self.mask.is_none_or(|m| bits::get(m, i))
                        {
                            found = Some((j, a, pkey, s));
                            break 'search;
                        }
                    }
                }
            }
            let Some((j, a, pkey, s)) = found else { break };
            out.push((j, a));
            key = pkey;
            state = s;
        }
        out.reverse();
        out
    }

    /// A CentralError (explained afterwards by [`super::diagnose`], whatever the procedure).
    pub(super) fn fail(&self) -> AcOutcome {
        let mut v = Verdict::new(VerdictKind::Fail);
        v.reason = Some(Reason::CentralError);
        v.vertices = self.vertices;
        AcOutcome {
            verdict: v,
            vertices: self.vertices,
        }
    }
}
