//! Hash-consed interaction terms.

use crate::signature::{Action, LifelineSet};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

/// Id of an interned term in a [`TermStore`]. Equal terms of one store have equal ids.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
pub struct TermId(pub u32);

impl TermId {
    /// The empty interaction ∅ (always id 0).
    pub const EMPTY: TermId = TermId(0);

    /// The id as an index.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Repetition kinds: which sequencing joins two iterations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum LoopKind {
    /// `loopS`: strict sequencing between iterations.
    Strict,
    /// `loopH`: head-first weak sequencing (an iteration starts once its first action runs).
    Head,
    /// `loopW`: weak sequencing between iterations.
    Weak,
    /// `loopP`: interleaving of iterations.
    Par,
}

impl LoopKind {
    /// The keyword in `.hif` syntax.
    pub fn keyword(self) -> &'static str {
        match self {
            LoopKind::Strict => "loopS",
            LoopKind::Head => "loopH",
            LoopKind::Weak => "loopW",
            LoopKind::Par => "loopP",
        }
    }
}

/// One node of an interaction term (seed 001 Def. 3, plus `coreg` and `loopH`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Term {
    /// ∅, the empty interaction.
    Empty,
    /// One action.
    Act(Action),
    /// Strict sequencing: every action of the left before any of the right.
    Strict(TermId, TermId),
    /// Weak sequencing: ordered only on shared lifelines.
    Seq(TermId, TermId),
    /// Co-region: weak sequencing, except on the listed lifelines where the two sides interleave.
    Coreg(LifelineSet, TermId, TermId),
    /// Interleaving.
    Par(TermId, TermId),
    /// Choice.
    Alt(TermId, TermId),
    /// Repetition, zero or more times.
    Loop(LoopKind, TermId),
}

/// Facts cached for each interned term (computed bottom-up once).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TermInfo {
    /// Lifelines that occur in the term.
    pub lifelines: LifelineSet,
    /// Lifelines `l` such that every trace of the term has an action on `l` (`i ⊄* l`).
    pub collides: LifelineSet,
    /// Whether the term accepts the empty trace (`i ↓`).
    pub terminates: bool,
    /// Height of the term tree (a leaf has depth 1).
    pub depth: u32,
    /// Whether a `loopH` occurs in the term.
    pub head_loop: bool,
    /// Whether a `coreg` occurs whose region leaves out a lifeline both sides use (see
    /// [`TermStore::has_hidden_order`]).
    pub hidden_order: bool,
}

/// An arena of hash-consed terms with memo tables for the semantic functions.
///
/// Invariants: `TermId::EMPTY` is ∅; children are interned before parents, so a child's id is
/// smaller than its parent's; constructors normalize (∅ is neutral, sequencing is
/// right-associated, `alt` and `par` operands are flattened and sorted by id, `alt(x, x) = x`,
/// `loop(∅) = ∅`, nested loops collapse, a loop is idempotent under its own sequencing), and
/// every normalization preserves the global-trace semantics, so any term of a store may stand
/// for its input.
#[derive(Clone, Debug)]
pub struct TermStore {
    pub(crate) terms: Vec<Term>,
    pub(crate) info: Vec<TermInfo>,
    index: FxHashMap<Term, TermId>,
    pub(crate) prune_memo: FxHashMap<(TermId, u32), TermId>,
    pub(crate) rmv_memo: FxHashMap<(TermId, LifelineSet), TermId>,
    pub(crate) exec_memo: FxHashMap<(TermId, Action), Box<[TermId]>>,
    pub(crate) strict_memo: FxHashMap<(TermId, Action), bool>,
    pub(crate) local_count_memo: FxHashMap<(TermId, Action), u32>,
    /// `op(x, y)` for a left operand `x` that is itself an `op` chain (right-associating it
    /// walks the chain): successors of deep nestings append to the same chains again and
    /// again (`exec` of `strict(strict(.., y2), y1)` level by level), cubic in the depth
    /// without it. Keyed by `(x, y, strict)`.
    seq_memo: FxHashMap<(TermId, TermId, bool), TermId>,
    /// Chains split by `sequence` (the work the memo bounds), for the tests.
    #[cfg(test)]
    splits: u64,
}

impl Default for TermStore {
    fn default() -> Self {
        Self::new()
    }
}

impl TermStore {
    /// About the bytes this store holds (its tables at their capacity: entries plus a control
    /// byte per slot of each hash table; the boxed successor lists of `exec_memo` at two ids
    /// each on average): what term exploration charges to `--max-memory` as it grows.
    pub fn heap_bytes(&self) -> u64 {
        use std::mem::size_of;
        fn map<K, V>(m: &FxHashMap<K, V>) -> usize {
            m.capacity() * (size_of::<(K, V)>() + 1)
        }
        let bytes = self.terms.capacity() * size_of::<Term>()
            + self.info.capacity() * size_of::<TermInfo>()
            + map(&self.index)
            + map(&self.prune_memo)
            + map(&self.rmv_memo)
            + map(&self.exec_memo)
            + self.exec_memo.len() * 2 * size_of::<TermId>()
            + map(&self.strict_memo)
            + map(&self.local_count_memo)
            + map(&self.seq_memo);
        bytes as u64
    }

    /// A store holding only ∅.
    pub fn new() -> Self {
        let mut s = TermStore {
            terms: Vec::new(),
            info: Vec::new(),
            index: FxHashMap::default(),
            prune_memo: FxHashMap::default(),
            rmv_memo: FxHashMap::default(),
            exec_memo: FxHashMap::default(),
            strict_memo: FxHashMap::default(),
            local_count_memo: FxHashMap::default(),
            seq_memo: FxHashMap::default(),
            #[cfg(test)]
            splits: 0,
        };
        let e = s.intern(Term::Empty);
        debug_assert_eq!(e, TermId::EMPTY);
        s
    }

    /// Number of interned terms.
    pub fn len(&self) -> usize {
        self.terms.len()
    }

    /// Whether the store only holds ∅.
    pub fn is_empty(&self) -> bool {
        self.terms.len() <= 1
    }

    /// The node of a term.
    #[inline]
    pub fn get(&self, t: TermId) -> Term {
        self.terms[t.index()]
    }

    /// Whether the term accepts the empty trace.
    #[inline]
    pub fn terminates(&self, t: TermId) -> bool {
        self.info[t.index()].terminates
    }

    /// Lifelines occurring in the term.
    #[inline]
    pub fn lifelines(&self, t: TermId) -> LifelineSet {
        self.info[t.index()].lifelines
    }

    /// Lifelines every trace of the term has an action on.
    #[inline]
    pub fn collides(&self, t: TermId) -> LifelineSet {
        self.info[t.index()].collides
    }

    /// Height of the term tree.
    #[inline]
    pub fn depth(&self, t: TermId) -> u32 {
        self.info[t.index()].depth
    }

    /// Whether a `loopH` occurs in the term. Lifeline removal does not commute with the
    /// semantics of `loopH` (which lifeline may open an iteration depends on the removed ones),
    /// so the explorer neither removes lifelines from such a term nor restricts it locally.
    #[inline]
    pub fn has_head_loop(&self, t: TermId) -> bool {
        self.info[t.index()].head_loop
    }

    /// Whether a `coreg(s)(x, y)` occurs in the term whose region `s` leaves out a lifeline
    /// both `x` and `y` use. There the two sides are weakly sequenced on that lifeline, so an
    /// order between them on the region's lifelines may go through it (in
    /// `coreg({l0})(strict(l0!m, l1?m), strict(l1?m, l0?m))`, `l0!m` precedes `l0?m` through
    /// `l1`), and lifeline removal forgets it: seed 001's Th. 1 does not extend to such a
    /// coreg, whose multitraces are not a function of its sides' multitraces.
    #[inline]
    pub fn has_hidden_order(&self, t: TermId) -> bool {
        self.info[t.index()].hidden_order
    }

    fn intern(&mut self, term: Term) -> TermId {
        if let Some(&id) = self.index.get(&term) {
            return id;
        }
        let info = self.compute_info(term);
        let id = TermId(self.terms.len() as u32);
        self.terms.push(term);
        self.info.push(info);
        self.index.insert(term, id);
        id
    }

    fn compute_info(&self, term: Term) -> TermInfo {
        let i = |t: TermId| self.info[t.index()];
        match term {
            Term::Empty => TermInfo {
                lifelines: LifelineSet::EMPTY,
                collides: LifelineSet::EMPTY,
                terminates: true,
                depth: 1,
                head_loop: false,
                hidden_order: false,
            },
            Term::Act(a) => TermInfo {
                lifelines: LifelineSet::single(a.lifeline),
                collides: LifelineSet::single(a.lifeline),
                terminates: false,
                depth: 1,
                head_loop: false,
                hidden_order: false,
            },
            Term::Strict(x, y) | Term::Seq(x, y) | Term::Par(x, y) | Term::Coreg(_, x, y) => {
                let (a, b) = (i(x), i(y));
                let hidden = match term {
                    Term::Coreg(s, _, _) => !a.lifelines.inter(b.lifelines).minus(s).is_empty(),
                    _ => false,
                };
                TermInfo {
                    lifelines: a.lifelines.union(b.lifelines),
                    collides: a.collides.union(b.collides),
                    terminates: a.terminates && b.terminates,
                    depth: 1 + a.depth.max(b.depth),
                    head_loop: a.head_loop || b.head_loop,
                    hidden_order: hidden || a.hidden_order || b.hidden_order,
                }
            }
            Term::Alt(x, y) => {
                let (a, b) = (i(x), i(y));
                TermInfo {
                    lifelines: a.lifelines.union(b.lifelines),
                    collides: a.collides.inter(b.collides),
                    terminates: a.terminates || b.terminates,
                    depth: 1 + a.depth.max(b.depth),
                    head_loop: a.head_loop || b.head_loop,
                    hidden_order: a.hidden_order || b.hidden_order,
                }
            }
            Term::Loop(k, x) => {
                let a = i(x);
                TermInfo {
                    lifelines: a.lifelines,
                    collides: LifelineSet::EMPTY,
                    terminates: true,
                    depth: 1 + a.depth,
                    head_loop: a.head_loop || k == LoopKind::Head,
                    hidden_order: a.hidden_order,
                }
            }
        }
    }

    /// ∅.
    pub fn empty(&self) -> TermId {
        TermId::EMPTY
    }

    /// One action.
    pub fn act(&mut self, a: Action) -> TermId {
        self.intern(Term::Act(a))
    }

    /// `strict(x, y)`.
    pub fn strict(&mut self, x: TermId, y: TermId) -> TermId {
        self.sequence(x, y, SeqOp::Strict)
    }

    /// `seq(x, y)`.
    pub fn seq(&mut self, x: TermId, y: TermId) -> TermId {
        self.sequence(x, y, SeqOp::Seq)
    }

    /// `par(x, y)`: operands flattened and sorted by id (interleaving is associative and
    /// commutative), ∅ dropped, repeated `loopP(z)` operands merged (`loopP(z) ∥ loopP(z) =
    /// loopP(z)`), then right-nested.
    pub fn par(&mut self, x: TermId, y: TermId) -> TermId {
        if x == TermId::EMPTY {
            return y;
        }
        if y == TermId::EMPTY {
            return x;
        }
        let mut ops = Vec::new();
        self.flatten(x, false, &mut ops);
        self.flatten(y, false, &mut ops);
        ops.sort();
        let terms = &self.terms;
        ops.dedup_by(|a, b| a == b && matches!(terms[a.index()], Term::Loop(LoopKind::Par, _)));
        self.nest(ops, false)
    }

    /// `coreg(s)(x, y)`. Only the lifelines of `s` that both sides use matter, so `s` is reduced
    /// to them; an empty region is weak sequencing.
    pub fn coreg(&mut self, s: LifelineSet, x: TermId, y: TermId) -> TermId {
        let s = s.inter(self.lifelines(x)).inter(self.lifelines(y));
        if s.is_empty() {
            return self.seq(x, y);
        }
        if x == TermId::EMPTY {
            return y;
        }
        if y == TermId::EMPTY {
            return x;
        }
        self.intern(Term::Coreg(s, x, y))
    }

    /// `alt(x, y)`: operands flattened, sorted by id and deduplicated (choice is associative,
    /// commutative and idempotent), then right-nested.
    pub fn alt(&mut self, x: TermId, y: TermId) -> TermId {
        if x == y {
            return x;
        }
        let mut ops = Vec::new();
        self.flatten(x, true, &mut ops);
        self.flatten(y, true, &mut ops);
        ops.sort();
        ops.dedup();
        self.nest(ops, true)
    }

    /// Pushes the operands of the alt (or par) chain `t`.
    fn flatten(&self, t: TermId, alt: bool, out: &mut Vec<TermId>) {
        let mut t = t;
        loop {
            match (alt, self.get(t)) {
                (true, Term::Alt(a, b)) | (false, Term::Par(a, b)) => {
                    // Chains are right-nested with non-chain left operands.
                    out.push(a);
                    t = b;
                }
                _ => {
                    out.push(t);
                    return;
                }
            }
        }
    }

    /// Right-nests sorted operands into an alt (or par) chain.
    fn nest(&mut self, mut ops: Vec<TermId>, alt: bool) -> TermId {
        let mut acc = ops.pop().unwrap_or(TermId::EMPTY);
        while let Some(x) = ops.pop() {
            acc = self.intern(if alt {
                Term::Alt(x, acc)
            } else {
                Term::Par(x, acc)
            });
        }
        acc
    }

    /// `loopK(x)`. A loop directly inside a loop whose sequencing is as weak or weaker
    /// collapses: with strength strict > weak > par, `loopK(loopK'(y)) = loopK(y)` when K is not
    /// stronger than K' (the inner iterations are already sequences of outer ones).
    pub fn repeat(&mut self, kind: LoopKind, x: TermId) -> TermId {
        if x == TermId::EMPTY {
            return x;
        }
        let strength = |k: LoopKind| match k {
            LoopKind::Strict => Some(2),
            LoopKind::Weak => Some(1),
            LoopKind::Par => Some(0),
            LoopKind::Head => None,
        };
        if let Term::Loop(inner, y) = self.get(x) {
            if inner == kind && kind != LoopKind::Head {
                return x;
            }
            if let (Some(outer), Some(inner)) = (strength(kind), strength(inner)) {
                if outer <= inner {
                    return self.repeat(kind, y);
                }
            }
        }
        self.intern(Term::Loop(kind, x))
    }

    /// Builds any node through the normalizing constructors.
    pub fn make(&mut self, term: Term) -> TermId {
        match term {
            Term::Empty => TermId::EMPTY,
            Term::Act(a) => self.act(a),
            Term::Strict(x, y) => self.strict(x, y),
            Term::Seq(x, y) => self.seq(x, y),
            Term::Par(x, y) => self.par(x, y),
            Term::Coreg(s, x, y) => self.coreg(s, x, y),
            Term::Alt(x, y) => self.alt(x, y),
            Term::Loop(k, x) => self.repeat(k, x),
        }
    }

    fn sequence(&mut self, x: TermId, y: TermId, op: SeqOp) -> TermId {
        if x == TermId::EMPTY {
            return y;
        }
        if y == TermId::EMPTY {
            return x;
        }
        // Right-associate: op(op(a, b), c) = op(a, op(b, c)). The loop of the left spine keeps the
        // recursion depth at the length of the right spine of `b`, not of the whole left spine.
        if let Some((a, b)) = op.split(self.get(x)) {
            let key = (x, y, op == SeqOp::Strict);
            if let Some(&r) = self.seq_memo.get(&key) {
                return r;
            }
            #[cfg(test)]
            {
                self.splits += 1;
            }
            let bc = self.sequence(b, y, op);
            let r = self.sequence(a, bc, op);
            self.seq_memo.insert(key, r);
            return r;
        }
        // Kleene idempotence: op(L*, op(L*, z)) = op(L*, z) and op(L*, L*) = L* for the loop whose
        // iterations are joined by `op` (loopS/strict, loopW/seq; loopP/par is in `par`).
        if let Term::Loop(k, _) = self.get(x) {
            if op.loop_kind() == Some(k) {
                if y == x {
                    return x;
                }
                if let Some((a, _)) = op.split(self.get(y)) {
                    if a == x {
                        return y;
                    }
                }
            }
        }
        self.intern(op.node(x, y))
    }

    /// Every term reachable from `root` (children first).
    pub fn reachable(&self, root: TermId) -> Vec<TermId> {
        let mut seen = vec![false; self.terms.len()];
        let mut order = Vec::new();
        let mut stack = vec![(root, false)];
        while let Some((t, expanded)) = stack.pop() {
            if expanded {
                order.push(t);
                continue;
            }
            if seen[t.index()] {
                continue;
            }
            seen[t.index()] = true;
            stack.push((t, true));
            for c in children(self.get(t)) {
                if !seen[c.index()] {
                    stack.push((c, false));
                }
            }
        }
        order
    }
}

impl Term {
    /// The same node with every child id replaced by `f(child)`.
    pub fn map_children(self, mut f: impl FnMut(TermId) -> TermId) -> Term {
        match self {
            Term::Empty => Term::Empty,
            Term::Act(a) => Term::Act(a),
            Term::Strict(x, y) => Term::Strict(f(x), f(y)),
            Term::Seq(x, y) => Term::Seq(f(x), f(y)),
            Term::Par(x, y) => Term::Par(f(x), f(y)),
            Term::Alt(x, y) => Term::Alt(f(x), f(y)),
            Term::Coreg(s, x, y) => Term::Coreg(s, f(x), f(y)),
            Term::Loop(k, x) => Term::Loop(k, f(x)),
        }
    }
}

/// Children of a node.
pub fn children(t: Term) -> impl Iterator<Item = TermId> {
    let (a, b) = match t {
        Term::Empty | Term::Act(_) => (None, None),
        Term::Strict(x, y)
        | Term::Seq(x, y)
        | Term::Par(x, y)
        | Term::Alt(x, y)
        | Term::Coreg(_, x, y) => (Some(x), Some(y)),
        Term::Loop(_, x) => (Some(x), None),
    };
    a.into_iter().chain(b)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum SeqOp {
    Strict,
    Seq,
}

impl SeqOp {
    fn split(self, t: Term) -> Option<(TermId, TermId)> {
        match (self, t) {
            (SeqOp::Strict, Term::Strict(a, b)) | (SeqOp::Seq, Term::Seq(a, b)) => Some((a, b)),
            _ => None,
        }
    }
    fn node(self, x: TermId, y: TermId) -> Term {
        match self {
            SeqOp::Strict => Term::Strict(x, y),
            SeqOp::Seq => Term::Seq(x, y),
        }
    }
    fn loop_kind(self) -> Option<LoopKind> {
        Some(match self {
            SeqOp::Strict => LoopKind::Strict,
            SeqOp::Seq => LoopKind::Weak,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signature::{ActionKind, LifelineId, MessageId};

    fn act(s: &mut TermStore, l: u32, m: u32) -> TermId {
        s.act(Action {
            lifeline: LifelineId(l),
            kind: ActionKind::Emission,
            message: MessageId(m),
        })
    }

    #[test]
    fn hash_consing_shares_equal_terms() {
        let mut s = TermStore::new();
        let a = act(&mut s, 0, 0);
        let b = act(&mut s, 1, 0);
        let x = s.seq(a, b);
        let y = s.seq(a, b);
        assert_eq!(x, y);
        assert_ne!(s.strict(a, b), x);
    }

    #[test]
    fn empty_is_neutral_and_sequences_right_associate() {
        let mut s = TermStore::new();
        let a = act(&mut s, 0, 0);
        let b = act(&mut s, 1, 0);
        let c = act(&mut s, 2, 0);
        assert_eq!(s.strict(TermId::EMPTY, a), a);
        assert_eq!(s.par(a, TermId::EMPTY), a);
        assert_eq!(s.repeat(LoopKind::Weak, TermId::EMPTY), TermId::EMPTY);
        let ab = s.seq(a, b);
        let left = s.seq(ab, c);
        let bc = s.seq(b, c);
        let right = s.seq(a, bc);
        assert_eq!(left, right);
    }

    #[test]
    fn info_is_computed() {
        let mut s = TermStore::new();
        let a = act(&mut s, 0, 0);
        let b = act(&mut s, 1, 0);
        let alt = s.alt(a, b);
        assert!(s.collides(alt).is_empty());
        assert!(!s.terminates(alt));
        let st = s.strict(a, b);
        assert_eq!(s.collides(st).len(), 2);
        let l = s.repeat(LoopKind::Par, st);
        assert!(s.terminates(l) && s.collides(l).is_empty());
        assert_eq!(s.lifelines(l).len(), 2);
    }

    /// `strict(alt(x, strict(alt(x, ..), x)), x)` nested `n` deep: executing `x`'s action has
    /// `n` successors (the innermost `alt(x, x)` is `x`), each a strict chain as long as its depth. Appending each level's
    /// right operand walks the chain built so far; the memo of `sequence` shares those walks
    /// between successors, so the work is quadratic in `n` (it was cubic: 13 s at n = 1,500).
    #[test]
    fn deep_nestings_execute_in_quadratic_work() {
        let n: u64 = 200;
        let mut s = TermStore::new();
        let x = act(&mut s, 0, 0);
        let mut t = x;
        for _ in 0..n {
            let a = s.alt(x, t);
            t = s.strict(a, x);
        }
        let Term::Act(action) = s.get(x) else {
            unreachable!()
        };
        let before = s.splits;
        let next = s.exec(t, action).len() as u64;
        assert_eq!(next, n);
        let work = s.splits - before;
        // Every chain suffix is split once per level at most: at most n^2 / 2 (plus n).
        assert!(work <= n * n / 2 + n, "{work} splits for n = {n}");
        // Executing again is a lookup.
        let again = s.splits;
        s.exec(t, action);
        assert_eq!(s.splits, again);
    }

    #[test]
    fn coreg_without_shared_region_is_seq() {
        let mut s = TermStore::new();
        let a = act(&mut s, 0, 0);
        let b = act(&mut s, 1, 0);
        let c = s.coreg(LifelineSet::single(LifelineId(0)), a, b);
        assert_eq!(c, s.seq(a, b));
    }
}
