//! Operational semantics: pruning, execution, frontier and lifeline removal (seed 001 Appendix B,
//! seed 003 Defs. 3.1-3.4), extended to `coreg` and `loopH`.

use super::store::{LoopKind, Term, TermId, TermStore};
use crate::signature::{Action, LifelineId, LifelineSet};

impl TermStore {
    /// Pruning `t ≃*_l t'`: the largest sub-behaviour of `t` with no action on `l`.
    ///
    /// Returns `None` when `t` collides with `l` (every trace of `t` has an action on `l`).
    pub fn prune(&mut self, t: TermId, l: LifelineId) -> Option<TermId> {
        if self.collides(t).contains(l) {
            return None;
        }
        Some(self.prune_unchecked(t, l))
    }

    /// Pruning when `t` is known not to collide with `l`.
    fn prune_unchecked(&mut self, t: TermId, l: LifelineId) -> TermId {
        if !self.lifelines(t).contains(l) {
            return t;
        }
        if let Some(&r) = self.prune_memo.get(&(t, l.0)) {
            return r;
        }
        let r = match self.get(t) {
            // ∅ and actions on other lifelines have no lifeline `l`; handled above.
            Term::Empty | Term::Act(_) => t,
            Term::Strict(x, y) => {
                let (x, y) = (self.prune_unchecked(x, l), self.prune_unchecked(y, l));
                self.strict(x, y)
            }
            Term::Seq(x, y) => {
                let (x, y) = (self.prune_unchecked(x, l), self.prune_unchecked(y, l));
                self.seq(x, y)
            }
            Term::Par(x, y) => {
                let (x, y) = (self.prune_unchecked(x, l), self.prune_unchecked(y, l));
                self.par(x, y)
            }
            Term::Coreg(s, x, y) => {
                let (x, y) = (self.prune_unchecked(x, l), self.prune_unchecked(y, l));
                self.coreg(s, x, y)
            }
            Term::Alt(x, y) => {
                let (cx, cy) = (self.collides(x).contains(l), self.collides(y).contains(l));
                match (cx, cy) {
                    (false, false) => {
                        let (x, y) = (self.prune_unchecked(x, l), self.prune_unchecked(y, l));
                        self.alt(x, y)
                    }
                    (true, false) => self.prune_unchecked(y, l),
                    (false, true) => self.prune_unchecked(x, l),
                    (true, true) => unreachable!("alt collides with l, checked by the caller"),
                }
            }
            Term::Loop(k, x) => {
                if self.collides(x).contains(l) {
                    TermId::EMPTY
                } else {
                    let x = self.prune_unchecked(x, l);
                    self.repeat(k, x)
                }
            }
        };
        self.prune_memo.insert((t, l.0), r);
        r
    }

    /// The follow-ups of `t` after executing `a`: one entry per position of `a` in `t` that is
    /// immediately executable (`t --a@p--> t'`), in position order. Memoized.
    pub fn exec(&mut self, t: TermId, a: Action) -> &[TermId] {
        if !self.exec_memo.contains_key(&(t, a)) {
            let mut out = Vec::new();
            self.exec_into(t, a, &mut out);
            self.exec_memo.insert((t, a), out.into_boxed_slice());
        }
        &self.exec_memo[&(t, a)]
    }

    /// Number of positions at which `a` is immediately executable in `t`.
    pub fn exec_count(&mut self, t: TermId, a: Action) -> usize {
        self.exec(t, a).len()
    }

    fn exec_into(&mut self, t: TermId, a: Action, out: &mut Vec<TermId>) {
        if !self.lifelines(t).contains(a.lifeline) {
            return;
        }
        if let Some(done) = self.exec_memo.get(&(t, a)) {
            out.extend_from_slice(done);
            return;
        }
        let l = a.lifeline;
        let start = out.len();
        match self.get(t) {
            Term::Empty => {}
            Term::Act(b) => {
                if a == b {
                    out.push(TermId::EMPTY);
                }
            }
            Term::Alt(x, y) => {
                self.exec_into(x, a, out);
                self.exec_into(y, a, out);
            }
            Term::Par(x, y) => {
                let mid = out.len();
                self.exec_into(x, a, out);
                for slot in &mut out[mid..] {
                    *slot = self.par(*slot, y);
                }
                let mid = out.len();
                self.exec_into(y, a, out);
                for slot in &mut out[mid..] {
                    *slot = self.par(x, *slot);
                }
            }
            Term::Strict(x, y) => {
                let mid = out.len();
                self.exec_into(x, a, out);
                for slot in &mut out[mid..] {
                    *slot = self.strict(*slot, y);
                }
                if self.terminates(x) {
                    self.exec_into(y, a, out);
                }
            }
            Term::Seq(x, y) => {
                let mid = out.len();
                self.exec_into(x, a, out);
                for slot in &mut out[mid..] {
                    *slot = self.seq(*slot, y);
                }
                if let Some(px) = self.prune(x, l) {
                    let mid = out.len();
                    self.exec_into(y, a, out);
                    for slot in &mut out[mid..] {
                        *slot = self.seq(px, *slot);
                    }
                }
            }
            Term::Coreg(s, x, y) => {
                let mid = out.len();
                self.exec_into(x, a, out);
                for slot in &mut out[mid..] {
                    *slot = self.coreg(s, *slot, y);
                }
                // On the region's lifelines the sides interleave; elsewhere weak sequencing.
                let left = if s.contains(l) {
                    Some(x)
                } else {
                    self.prune(x, l)
                };
                if let Some(px) = left {
                    let mid = out.len();
                    self.exec_into(y, a, out);
                    for slot in &mut out[mid..] {
                        *slot = self.coreg(s, px, *slot);
                    }
                }
            }
            Term::Loop(kind, x) => {
                let mid = out.len();
                self.exec_into(x, a, out);
                for slot in &mut out[mid..] {
                    let body = *slot;
                    *slot = match kind {
                        LoopKind::Strict => self.strict(body, t),
                        LoopKind::Head => self.seq(body, t),
                        LoopKind::Par => self.par(body, t),
                        LoopKind::Weak => {
                            // A loop never collides, so its pruning always exists.
                            let pruned = self.prune_unchecked(t, l);
                            let rest = self.seq(body, t);
                            self.seq(pruned, rest)
                        }
                    };
                }
            }
        }
        let done: Box<[TermId]> = out[start..].into();
        self.exec_memo.insert((t, a), done);
    }

    /// Number of positions of `a` in `t` that are immediately executable in `t` restricted to
    /// `a`'s lifeline, `rmv_{L∖{θ(a)}}(t)` (seed 001 Def. 11), counted on `t` itself: building
    /// the restricted term would merge positions through the `alt(x, x) = x` normalization.
    pub fn local_exec_count(&mut self, t: TermId, a: Action) -> u32 {
        let l = a.lifeline;
        if !self.lifelines(t).contains(l) {
            return 0;
        }
        if let Some(&r) = self.local_count_memo.get(&(t, a)) {
            return r;
        }
        // In the restricted term, "x terminates" and "x prunes" both mean x does not collide
        // with l.
        let r = match self.get(t) {
            Term::Empty => 0,
            Term::Act(b) => u32::from(a == b),
            Term::Alt(x, y) | Term::Par(x, y) => {
                self.local_exec_count(x, a) + self.local_exec_count(y, a)
            }
            Term::Strict(x, y) | Term::Seq(x, y) => {
                let right = if self.collides(x).contains(l) {
                    0
                } else {
                    self.local_exec_count(y, a)
                };
                self.local_exec_count(x, a) + right
            }
            Term::Coreg(s, x, y) => {
                let right = if s.contains(l) || !self.collides(x).contains(l) {
                    self.local_exec_count(y, a)
                } else {
                    0
                };
                self.local_exec_count(x, a) + right
            }
            Term::Loop(_, x) => self.local_exec_count(x, a),
        };
        self.local_count_memo.insert((t, a), r);
        r
    }

    /// Whether `a` is immediately executable in `t` at a position that lies in the right operand
    /// of a `strict` whose left operand is not ∅, or in the body of a `loopS` or `loopH`.
    /// Executing `a` there can discard behaviour on other lifelines (the left operand, or
    /// iterations that would have come first), which the partial order reduction must not do.
    pub fn exec_crosses_strict(&mut self, t: TermId, a: Action) -> bool {
        if !self.lifelines(t).contains(a.lifeline) {
            return false;
        }
        if let Some(&r) = self.strict_memo.get(&(t, a)) {
            return r;
        }
        let r = match self.get(t) {
            Term::Empty | Term::Act(_) => false,
            Term::Alt(x, y) | Term::Par(x, y) => {
                self.exec_crosses_strict(x, a) || self.exec_crosses_strict(y, a)
            }
            Term::Strict(x, y) => {
                self.exec_crosses_strict(x, a)
                    || (self.terminates(x) && !self.exec(y, a).is_empty())
            }
            Term::Seq(x, y) => {
                self.exec_crosses_strict(x, a)
                    || (!self.collides(x).contains(a.lifeline) && self.exec_crosses_strict(y, a))
            }
            Term::Coreg(s, x, y) => {
                self.exec_crosses_strict(x, a)
                    || ((s.contains(a.lifeline) || !self.collides(x).contains(a.lifeline))
                        && self.exec_crosses_strict(y, a))
            }
            // Executing in a strict or head-first loop opens an iteration that the earlier
            // iterations' remaining behaviour can no longer follow: the same hazard.
            Term::Loop(LoopKind::Strict | LoopKind::Head, x) => !self.exec(x, a).is_empty(),
            Term::Loop(_, x) => self.exec_crosses_strict(x, a),
        };
        self.strict_memo.insert((t, a), r);
        r
    }

    /// The actions immediately executable in `t` (with multiplicity removed, sorted).
    pub fn frontier(&mut self, t: TermId) -> Vec<Action> {
        let mut out = Vec::new();
        self.frontier_into(t, LifelineSet::EMPTY, &mut out);
        out.sort();
        out.dedup();
        out
    }

    /// Pushes the frontier actions of `t` whose lifeline is not in `blocked`.
    fn frontier_into(&self, t: TermId, blocked: LifelineSet, out: &mut Vec<Action>) {
        match self.get(t) {
            Term::Empty => {}
            Term::Act(a) => {
                if !blocked.contains(a.lifeline) {
                    out.push(a)
                }
            }
            Term::Alt(x, y) | Term::Par(x, y) => {
                self.frontier_into(x, blocked, out);
                self.frontier_into(y, blocked, out);
            }
            Term::Strict(x, y) => {
                self.frontier_into(x, blocked, out);
                if self.terminates(x) {
                    self.frontier_into(y, blocked, out);
                }
            }
            Term::Seq(x, y) => {
                self.frontier_into(x, blocked, out);
                self.frontier_into(y, blocked.union(self.collides(x)), out);
            }
            Term::Coreg(s, x, y) => {
                self.frontier_into(x, blocked, out);
                self.frontier_into(y, blocked.union(self.collides(x).minus(s)), out);
            }
            Term::Loop(_, x) => self.frontier_into(x, blocked, out),
        }
    }

    /// Lifeline removal `rmv_H(t)` (seed 001 Def. 4) with the ∅ simplifications.
    pub fn remove(&mut self, t: TermId, h: LifelineSet) -> TermId {
        if !self.lifelines(t).intersects(h) {
            return t;
        }
        if let Some(&r) = self.rmv_memo.get(&(t, h)) {
            return r;
        }
        let r = match self.get(t) {
            Term::Empty => t,
            Term::Act(a) => {
                if h.contains(a.lifeline) {
                    TermId::EMPTY
                } else {
                    t
                }
            }
            Term::Strict(x, y) => {
                let (x, y) = (self.remove(x, h), self.remove(y, h));
                self.strict(x, y)
            }
            Term::Seq(x, y) => {
                let (x, y) = (self.remove(x, h), self.remove(y, h));
                self.seq(x, y)
            }
            Term::Par(x, y) => {
                let (x, y) = (self.remove(x, h), self.remove(y, h));
                self.par(x, y)
            }
            Term::Coreg(s, x, y) => {
                let (x, y) = (self.remove(x, h), self.remove(y, h));
                self.coreg(s.minus(h), x, y)
            }
            Term::Alt(x, y) => {
                let (x, y) = (self.remove(x, h), self.remove(y, h));
                self.alt(x, y)
            }
            Term::Loop(k, x) => {
                let x = self.remove(x, h);
                self.repeat(k, x)
            }
        };
        self.rmv_memo.insert((t, h), r);
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signature::{ActionKind, MessageId};

    fn a(l: u32, m: u32) -> Action {
        Action {
            lifeline: LifelineId(l),
            kind: ActionKind::Emission,
            message: MessageId(m),
        }
    }

    #[test]
    fn strict_waits_for_termination_and_seq_prunes() {
        let mut s = TermStore::new();
        let x = s.act(a(0, 0));
        let y = s.act(a(1, 0));
        let st = s.strict(x, y);
        assert!(s.exec(st, a(1, 0)).is_empty());
        let sq = s.seq(x, y);
        assert_eq!(s.exec(sq, a(1, 0)), &[x]);
        assert_eq!(s.frontier(sq), vec![a(0, 0), a(1, 0)]);
        assert_eq!(s.frontier(st), vec![a(0, 0)]);
    }

    #[test]
    fn weak_loop_keeps_a_pruned_copy() {
        // loopW(alt(a, b)) after a: seq(loopW(b), loopW(alt(a, b))).
        let mut s = TermStore::new();
        let x = s.act(a(0, 0));
        let y = s.act(a(1, 0));
        let alt = s.alt(x, y);
        let lw = s.repeat(LoopKind::Weak, alt);
        let next = s.exec(lw, a(0, 0)).to_vec();
        let lb = s.repeat(LoopKind::Weak, y);
        let expect = s.seq(lb, lw);
        assert_eq!(next, vec![expect]);
    }

    #[test]
    fn pruning_drops_colliding_branches() {
        let mut s = TermStore::new();
        let x = s.act(a(0, 0));
        let y = s.act(a(1, 0));
        let alt = s.alt(x, y);
        assert_eq!(s.prune(alt, LifelineId(0)), Some(y));
        assert_eq!(s.prune(x, LifelineId(0)), None);
        let lp = s.repeat(LoopKind::Par, x);
        assert_eq!(s.prune(lp, LifelineId(0)), Some(TermId::EMPTY));
    }

    #[test]
    fn coreg_interleaves_on_its_region_only() {
        let mut s = TermStore::new();
        let x = s.act(a(0, 0));
        let y = s.act(a(0, 1));
        let region = LifelineSet::single(LifelineId(0));
        let c = s.coreg(region, x, y);
        assert_eq!(s.exec(c, a(0, 1)), &[x]);
        let sq = s.seq(x, y);
        assert!(s.exec(sq, a(0, 1)).is_empty());
    }

    #[test]
    fn removal_simplifies_empty() {
        let mut s = TermStore::new();
        let x = s.act(a(0, 0));
        let y = s.act(a(1, 0));
        let st = s.strict(x, y);
        let l = s.repeat(LoopKind::Strict, st);
        let r = s.remove(l, LifelineSet::single(LifelineId(1)));
        let expect = s.repeat(LoopKind::Strict, x);
        assert_eq!(r, expect);
        assert_eq!(s.remove(l, LifelineSet(0b11)), TermId::EMPTY);
    }
}
