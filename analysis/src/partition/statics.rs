//! Static analysis of an interaction: seed 002's conditions (Def. 1) and our adaptation to
//! asynchronous messages, each constraint with its `file:line:column` and reason.
//!
//! A constraint is a list of pairs of lifelines: a partition satisfies it when some pair shares
//! a location. Two families are computed:
//!
//! - **Seed 002** (events are whole exchanges: a message with its sender and receivers, the
//!   `involved` agents). *Connectedness for sequence*: for `strict` and `seq` (seed 002 has one
//!   concatenation) and between the iterations of `loopS`, `loopH` and `loopW`, every last
//!   exchange of the left side and first exchange of the right side must involve a common
//!   location. *Unique point of choice*: for `alt`, every first exchange of one branch and of the
//!   other must involve a common location, and both branches must involve the same locations.
//!   (The last part is not applied to a loop's exit: on seed 002's own Example 2 it would reject
//!   every loop.)
//! - **Ours** (events are emissions and receptions; the network orders a reception after its
//!   emission, nothing else). *Sequence*: `strict` (outside a message) and `loopS` order the
//!   last actions of the left side before the first actions of the right side: each such pair on
//!   two lifelines must share a location, since no location sees the order otherwise. Weak
//!   sequencing (`seq`, `loopW`, `loopH`), `par`, `loopP` and `coreg` order only actions of one
//!   lifeline, which its location sees. *Choice*: for `alt`, every first action of one branch and
//!   of the other, on two lifelines, must share a location (the choice is seen at one place).
//!   *Participation* (complete mode only): a lifeline acting in one branch only (or in a loop's
//!   body but not first) must share a location with one acting in the other branch (with one
//!   that starts the branch, when the other branch is empty), or its location cannot tell "the
//!   other branch was taken" from "my part was lost".
//!
//! These conditions guide and explain; they are neither necessary nor sufficient in general.
//! The verdicts come from the exact check of [`super::inclusion`].

use crate::partition::Partition;
use multitrace_compiler::syntax::{parse_interaction_tree, Operator, ParseError, SyntaxNode};
use multitrace_model::signature::{
    Action, ActionKind, LifelineId, LifelineSet, MessageId, Signature,
};
use multitrace_model::term::{LoopKind, TermStore};
use multitrace_model::verdict::Mode;
use std::collections::BTreeSet;

/// Which condition a constraint comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    /// Seed 002, connectedness for sequence.
    Seed002Sequence,
    /// Seed 002, unique point of choice: first exchanges of the branches.
    Seed002Choice,
    /// Seed 002, unique point of choice: both branches involve the same locations.
    Seed002SameAgents,
    /// Ours: strict sequencing between two lifelines.
    Sequence,
    /// Ours: the first actions of two branches of a choice.
    Choice,
    /// Ours (complete mode): a lifeline acting in one branch only.
    Participation,
}

impl Rule {
    /// Whether the rule is one of seed 002's.
    pub fn is_seed002(self) -> bool {
        matches!(
            self,
            Rule::Seed002Sequence | Rule::Seed002Choice | Rule::Seed002SameAgents
        )
    }

    /// A short name.
    pub fn name(self) -> &'static str {
        match self {
            Rule::Seed002Sequence => "connectedness for sequence",
            Rule::Seed002Choice => "unique point of choice",
            Rule::Seed002SameAgents => "unique point of choice (same agents)",
            Rule::Sequence => "sequence",
            Rule::Choice => "choice",
            Rule::Participation => "participation",
        }
    }

    /// Whether the rule applies in `mode`.
    pub fn applies(self, mode: Mode) -> bool {
        self != Rule::Participation || mode == Mode::Complete
    }
}

/// One constraint: some pair of lifelines must share a location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Constraint {
    /// The condition.
    pub rule: Rule,
    /// `file:line:column` of the construct (the operand where the order or choice lies).
    pub at: String,
    /// The construct's keyword (`strict`, `alt`, `loopS`, ...).
    pub construct: String,
    /// Why, in words.
    pub reason: String,
    /// Pairs of lifelines; satisfied when one pair shares a location. Empty: no partition
    /// satisfies it.
    pub options: Vec<(LifelineId, LifelineId)>,
}

impl Constraint {
    /// Whether `p` satisfies the constraint, `atom` giving the atom of a lifeline.
    pub fn satisfied(&self, p: &Partition, atom: &dyn Fn(LifelineId) -> usize) -> bool {
        self.options
            .iter()
            .any(|&(a, b)| p.together(atom(a), atom(b)))
    }
}

/// What is known of a sub-interaction.
#[derive(Clone, Debug, Default)]
struct Info {
    lifelines: LifelineSet,
    nullable: bool,
    first: BTreeSet<Action>,
    last: BTreeSet<Action>,
    /// Seed 002: first and last exchanges (message node ids).
    first2: BTreeSet<usize>,
    last2: BTreeSet<usize>,
}

/// The static analysis of one interaction.
#[derive(Clone, Debug)]
pub struct Statics {
    /// The interaction as written, each node with its `file:line:column`.
    nodes: Vec<(SyntaxNode, String)>,
    constraints: Vec<Constraint>,
}

/// Lifelines of a set of actions.
fn lifelines_of(actions: &BTreeSet<Action>) -> LifelineSet {
    let mut s = LifelineSet::EMPTY;
    for a in actions {
        s.insert(a.lifeline);
    }
    s
}

/// Sequential composition of the infos of `x` then `y`; `weak` lets `y`'s first actions on
/// lifelines `x` does not use (or in `free`) start first.
fn sequence(x: &Info, y: &Info, weak: bool, free: LifelineSet) -> Info {
    let mut first = x.first.clone();
    for a in &y.first {
        if x.nullable || (weak && (!x.lifelines.contains(a.lifeline) || free.contains(a.lifeline)))
        {
            first.insert(*a);
        }
    }
    let mut last = y.last.clone();
    for a in &x.last {
        if y.nullable || (weak && (!y.lifelines.contains(a.lifeline) || free.contains(a.lifeline)))
        {
            last.insert(*a);
        }
    }
    let mut first2 = x.first2.clone();
    if x.nullable {
        first2.extend(y.first2.iter().copied());
    }
    let mut last2 = y.last2.clone();
    if y.nullable {
        last2.extend(x.last2.iter().copied());
    }
    Info {
        lifelines: x.lifelines.union(y.lifelines),
        nullable: x.nullable && y.nullable,
        first,
        last,
        first2,
        last2,
    }
}

fn union(x: &Info, y: &Info, alt: bool) -> Info {
    Info {
        lifelines: x.lifelines.union(y.lifelines),
        nullable: if alt {
            x.nullable || y.nullable
        } else {
            x.nullable && y.nullable
        },
        first: x.first.union(&y.first).copied().collect(),
        last: x.last.union(&y.last).copied().collect(),
        first2: x.first2.union(&y.first2).copied().collect(),
        last2: x.last2.union(&y.last2).copied().collect(),
    }
}

impl Statics {
    /// Reads the interaction `text` over `sig` with the compiler's reader (the names must be
    /// in `sig`) and computes the constraints; `file` names it in positions.
    pub fn new(file: &str, text: &str, sig: &Signature) -> Result<Statics, ParseError> {
        let (_, tree) =
            parse_interaction_tree(file, text, &mut sig.clone(), false, &mut TermStore::new())?;
        let nodes = tree
            .nodes
            .into_iter()
            .zip(tree.positions)
            .map(|(n, (line, column))| (n, format!("{file}:{line}:{column}")))
            .collect();
        let mut st = Statics {
            nodes,
            constraints: Vec::new(),
        };
        st.analyze(sig);
        Ok(st)
    }

    /// Every message as (sender or `None` for the environment, receivers, message).
    pub fn channels(&self) -> Vec<(Option<LifelineId>, &[LifelineId], MessageId)> {
        self.nodes
            .iter()
            .filter_map(|(n, _)| match n {
                SyntaxNode::Message {
                    sender,
                    receivers,
                    message,
                } => Some((*sender, receivers.as_slice(), *message)),
                _ => None,
            })
            .collect()
    }

    /// Every constraint, seed 002's first, each once (the first position where it arises).
    pub fn constraints(&self) -> &[Constraint] {
        &self.constraints
    }

    /// The involved lifelines of a message node.
    fn involved(&self, id: usize) -> LifelineSet {
        let mut s = LifelineSet::EMPTY;
        if let SyntaxNode::Message {
            sender, receivers, ..
        } = &self.nodes[id].0
        {
            if let Some(a) = sender {
                s.insert(*a);
            }
            for &b in receivers {
                s.insert(b);
            }
        }
        s
    }

    fn exchange_name(&self, id: usize, sig: &Signature) -> String {
        match &self.nodes[id].0 {
            SyntaxNode::Message {
                sender,
                receivers,
                message,
            } => {
                let from = sender.map_or("env".to_string(), |a| sig.lifeline_name(a).into());
                let to: Vec<&str> = receivers.iter().map(|&b| sig.lifeline_name(b)).collect();
                let to = match to.len() {
                    0 => "env".to_string(),
                    1 => to[0].to_string(),
                    _ => format!("({})", to.join(",")),
                };
                format!("`{}` ({from}->{to})", sig.message_name(*message))
            }
            _ => String::new(),
        }
    }

    fn add(&mut self, c: Constraint) {
        let mut c = c;
        c.options.sort();
        c.options.dedup();
        if c.options.iter().any(|(a, b)| a == b) {
            return; // satisfied by every partition
        }
        if self
            .constraints
            .iter()
            .any(|d| d.rule == c.rule && d.options == c.options)
        {
            return;
        }
        self.constraints.push(c);
    }

    /// Pairs of `xs × ys`.
    fn pairs(xs: LifelineSet, ys: LifelineSet) -> Vec<(LifelineId, LifelineId)> {
        let mut out = Vec::new();
        for a in xs.iter() {
            for b in ys.iter() {
                out.push(if a <= b { (a, b) } else { (b, a) });
            }
        }
        out
    }

    fn names(sig: &Signature, s: LifelineSet) -> String {
        s.iter()
            .map(|l| sig.lifeline_name(l))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// Constraints between the end of `x` and the start of `y`, sequenced at `at`.
    #[allow(clippy::too_many_arguments)]
    fn sequence_constraints(
        &mut self,
        sig: &Signature,
        x: &Info,
        y: &Info,
        at: &str,
        construct: &str,
        seed002: bool,
        ours: bool,
    ) {
        if seed002 {
            for &e in &x.last2 {
                for &f in &y.first2 {
                    let (ie, jf) = (self.involved(e), self.involved(f));
                    if ie.intersects(jf) {
                        continue;
                    }
                    self.add(Constraint {
                        rule: Rule::Seed002Sequence,
                        at: at.to_string(),
                        construct: construct.to_string(),
                        reason: format!(
                            "{} then {} involve no common agent: one of {} with one of {}",
                            self.exchange_name(e, sig),
                            self.exchange_name(f, sig),
                            Self::names(sig, ie),
                            Self::names(sig, jf)
                        ),
                        options: Self::pairs(ie, jf),
                    });
                }
            }
        }
        if ours {
            for a in &x.last {
                for b in &y.first {
                    if a.lifeline == b.lifeline {
                        continue;
                    }
                    self.add(Constraint {
                        rule: Rule::Sequence,
                        at: at.to_string(),
                        construct: construct.to_string(),
                        reason: format!(
                            "{} (an end of the left side) must precede {} (a start of the right side), an order no location sees unless {} and {} share one",
                            sig.action_to_string(*a),
                            sig.action_to_string(*b),
                            sig.lifeline_name(a.lifeline),
                            sig.lifeline_name(b.lifeline)
                        ),
                        options: Self::pairs(
                            LifelineSet::single(a.lifeline),
                            LifelineSet::single(b.lifeline),
                        ),
                    });
                }
            }
        }
    }

    fn choice_constraints(&mut self, sig: &Signature, x: &Info, y: &Info, at: &str) {
        for &e in &x.first2 {
            for &f in &y.first2 {
                let (ie, jf) = (self.involved(e), self.involved(f));
                if ie.intersects(jf) {
                    continue;
                }
                self.add(Constraint {
                    rule: Rule::Seed002Choice,
                    at: at.to_string(),
                    construct: "alt".into(),
                    reason: format!(
                        "the branches start with {} and {}, which involve no common agent: one of {} with one of {}",
                        self.exchange_name(e, sig),
                        self.exchange_name(f, sig),
                        Self::names(sig, ie),
                        Self::names(sig, jf)
                    ),
                    options: Self::pairs(ie, jf),
                });
            }
        }
        for (this, other) in [(x, y), (y, x)] {
            for l in this.lifelines.minus(other.lifelines).iter() {
                self.add(Constraint {
                    rule: Rule::Seed002SameAgents,
                    at: at.to_string(),
                    construct: "alt".into(),
                    reason: if other.lifelines.is_empty() {
                        format!(
                            "{} is involved in one branch and the other involves nobody: no partition makes the branches involve the same locations",
                            sig.lifeline_name(l)
                        )
                    } else {
                        format!(
                            "{} is involved in one branch only: with one of {} (the other branch's agents)",
                            sig.lifeline_name(l),
                            Self::names(sig, other.lifelines)
                        )
                    },
                    options: Self::pairs(LifelineSet::single(l), other.lifelines),
                });
            }
        }
        for a in &x.first {
            for b in &y.first {
                if a.lifeline == b.lifeline {
                    continue;
                }
                self.add(Constraint {
                    rule: Rule::Choice,
                    at: at.to_string(),
                    construct: "alt".into(),
                    reason: format!(
                        "the branches may start with {} and {}: the choice is seen at one location only if {} and {} share it",
                        sig.action_to_string(*a),
                        sig.action_to_string(*b),
                        sig.lifeline_name(a.lifeline),
                        sig.lifeline_name(b.lifeline)
                    ),
                    options: Self::pairs(
                        LifelineSet::single(a.lifeline),
                        LifelineSet::single(b.lifeline),
                    ),
                });
            }
        }
        for (this, other) in [(x, y), (y, x)] {
            let partners = if other.lifelines.is_empty() {
                lifelines_of(&this.first)
            } else {
                other.lifelines
            };
            for l in this.lifelines.minus(other.lifelines).minus(partners).iter() {
                self.add(Constraint {
                    rule: Rule::Participation,
                    at: at.to_string(),
                    construct: "alt".into(),
                    reason: format!(
                        "{} acts in one branch only: its location must include one of {} to tell the other branch from its own part missing",
                        sig.lifeline_name(l),
                        Self::names(sig, partners)
                    ),
                    options: Self::pairs(LifelineSet::single(l), partners),
                });
            }
        }
    }

    fn analyze(&mut self, sig: &Signature) {
        let n = self.nodes.len();
        let mut info: Vec<Info> = Vec::with_capacity(n);
        for id in 0..n {
            let (node, at) = self.nodes[id].clone();
            let i = match node {
                SyntaxNode::Empty => Info {
                    nullable: true,
                    ..Info::default()
                },
                SyntaxNode::Message {
                    sender,
                    receivers,
                    message,
                } => {
                    let mut lifelines = LifelineSet::EMPTY;
                    let recs: BTreeSet<Action> = receivers
                        .iter()
                        .map(|&b| {
                            lifelines.insert(b);
                            Action {
                                lifeline: b,
                                kind: ActionKind::Reception,
                                message,
                            }
                        })
                        .collect();
                    let (first, last) = match sender {
                        Some(a) => {
                            lifelines.insert(a);
                            let e: BTreeSet<Action> = [Action {
                                lifeline: a,
                                kind: ActionKind::Emission,
                                message,
                            }]
                            .into();
                            let last = if recs.is_empty() { e.clone() } else { recs };
                            (e, last)
                        }
                        None => (recs.clone(), recs),
                    };
                    Info {
                        lifelines,
                        nullable: false,
                        first,
                        last,
                        first2: [id].into(),
                        last2: [id].into(),
                    }
                }
                SyntaxNode::Loop { kind, body } => {
                    let b = info[body].clone();
                    let construct = kind.keyword();
                    if kind != LoopKind::Par {
                        self.sequence_constraints(
                            sig,
                            &b,
                            &b,
                            &at,
                            construct,
                            true,
                            kind == LoopKind::Strict,
                        );
                    }
                    let starters = lifelines_of(&b.first);
                    for l in b.lifelines.minus(starters).iter() {
                        self.add(Constraint {
                            rule: Rule::Participation,
                            at: at.clone(),
                            construct: construct.into(),
                            reason: format!(
                                "{} acts in the loop's body but does not start it: its location must include one of {} to tell \"no more iteration\" from its own part missing",
                                sig.lifeline_name(l),
                                Self::names(sig, starters)
                            ),
                            options: Self::pairs(LifelineSet::single(l), starters),
                        });
                    }
                    Info {
                        nullable: true,
                        ..b
                    }
                }
                SyntaxNode::Nary { op, children } => {
                    // Fold to the right, as the compiler does: op(c1, op(c2, ... cn)).
                    let mut acc = info[*children.last().unwrap_or(&id)].clone();
                    for k in (0..children.len().saturating_sub(1)).rev() {
                        let x = info[children[k]].clone();
                        let right_at = &self.nodes[children[k + 1]].1.clone();
                        acc = match op {
                            Operator::Strict => {
                                self.sequence_constraints(
                                    sig, &x, &acc, right_at, "strict", true, true,
                                );
                                sequence(&x, &acc, false, LifelineSet::EMPTY)
                            }
                            Operator::Seq => {
                                self.sequence_constraints(
                                    sig, &x, &acc, right_at, "seq", true, false,
                                );
                                sequence(&x, &acc, true, LifelineSet::EMPTY)
                            }
                            Operator::Coreg(s) => sequence(&x, &acc, true, s),
                            Operator::Par => union(&x, &acc, false),
                            Operator::Alt => {
                                self.choice_constraints(sig, &x, &acc, &at);
                                union(&x, &acc, true)
                            }
                        };
                    }
                    acc
                }
            };
            info.push(i);
        }
        // Seed 002's constraints first, then ours; stable within each family.
        self.constraints.sort_by_key(|c| !c.rule.is_seed002());
    }

    /// The minimal partitions (coarsenings of the atoms) satisfying every constraint of one
    /// family that applies in `mode` and can be satisfied, among at most `cap` partitions
    /// enumerated (finest first); `None` when the cap was reached first.
    pub fn minimal_partitions(
        &self,
        seed002: bool,
        mode: Mode,
        atoms: usize,
        atom: &dyn Fn(LifelineId) -> usize,
        cap: usize,
    ) -> Option<Vec<Partition>> {
        let cs: Vec<&Constraint> = self
            .constraints
            .iter()
            .filter(|c| c.rule.is_seed002() == seed002 && c.rule.applies(mode))
            .filter(|c| !c.options.is_empty())
            .collect();
        let mut found: Vec<Partition> = Vec::new();
        let mut seen = 0usize;
        let mut complete = true;
        for_each_partition(atoms, &mut |p: &Partition| {
            seen += 1;
            if seen > cap {
                complete = false;
                return false;
            }
            if found.iter().any(|f| f.refines(p)) {
                return true;
            }
            if cs.iter().all(|c| c.satisfied(p, atom)) {
                found.push(p.clone());
            }
            true
        });
        complete.then_some(found)
    }

    /// Whether `p` satisfies every satisfiable constraint of one family that applies in `mode`.
    pub fn satisfies(
        &self,
        seed002: bool,
        mode: Mode,
        p: &Partition,
        atom: &dyn Fn(LifelineId) -> usize,
    ) -> bool {
        self.constraints
            .iter()
            .filter(|c| c.rule.is_seed002() == seed002 && c.rule.applies(mode))
            .filter(|c| !c.options.is_empty())
            .all(|c| c.satisfied(p, atom))
    }
}

/// Calls `f` on every partition of `n` atoms, finest first (by decreasing number of blocks),
/// until it returns false. Within a level, partitions come in the order of their restricted
/// growth strings.
pub fn for_each_partition(n: usize, f: &mut dyn FnMut(&Partition) -> bool) {
    if n == 0 {
        f(&Partition::finest(0));
        return;
    }
    for blocks in (1..=n).rev() {
        // Restricted growth strings with exactly `blocks` distinct values.
        let mut labels = vec![0usize; n];
        if !rgs(&mut labels, 1, 0, blocks, f) {
            return;
        }
    }
}

/// Fills `labels[i..]` (`max` is the largest label so far) so that exactly `blocks` labels are
/// used; returns false when `f` asked to stop.
fn rgs(
    labels: &mut [usize],
    i: usize,
    max: usize,
    blocks: usize,
    f: &mut dyn FnMut(&Partition) -> bool,
) -> bool {
    let n = labels.len();
    if i == n {
        if max + 1 == blocks {
            return f(&Partition::from_labels(labels));
        }
        return true;
    }
    // Not enough atoms left to open the missing blocks.
    if blocks - (max + 1) > n - i {
        return true;
    }
    for l in 0..=(max + 1).min(blocks - 1) {
        labels[i] = l;
        if !rgs(labels, i + 1, max.max(l), blocks, f) {
            return false;
        }
    }
    true
}

/// The Bell number `B(n)` (the number of partitions of `n` atoms), saturating.
pub fn bell(n: usize) -> u128 {
    // Bell triangle.
    let mut row = vec![1u128];
    for _ in 0..n {
        let mut next = vec![*row.last().unwrap_or(&1)];
        for &x in &row {
            let v = next.last().copied().unwrap_or(0).saturating_add(x);
            next.push(v);
        }
        row = next;
    }
    row[0]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sig(lifelines: &[&str], messages: &[&str]) -> Signature {
        let mut s = Signature::new();
        for l in lifelines {
            s.add_lifeline(l).unwrap();
        }
        for m in messages {
            s.add_message(m);
        }
        s
    }

    #[test]
    fn partitions_are_enumerated_once_finest_first() {
        for n in 0..7 {
            let mut all = Vec::new();
            for_each_partition(n, &mut |p| {
                all.push(p.clone());
                true
            });
            assert_eq!(all.len() as u128, bell(n), "n = {n}");
            let mut sorted = all.clone();
            sorted.sort();
            sorted.dedup();
            assert_eq!(sorted.len(), all.len());
            assert!(all.windows(2).all(|w| w[0].len() >= w[1].len()));
        }
        assert_eq!(bell(10), 115_975);
    }

    #[test]
    fn ping_pong_constraints() {
        let s = sig(&["A", "B", "C", "D"], &["ping", "pong"]);
        let st = Statics::new(
            "pp.hif",
            "strict(\n  A -- ping -> B,\n  C -- pong -> D\n)",
            &s,
        )
        .unwrap();
        let cs = st.constraints();
        assert_eq!(cs.len(), 2, "{cs:?}");
        assert_eq!(cs[0].rule, Rule::Seed002Sequence);
        assert_eq!(cs[0].at, "pp.hif:3:3");
        assert_eq!(cs[0].options.len(), 4);
        assert_eq!(cs[1].rule, Rule::Sequence);
        assert_eq!(cs[1].options, vec![(LifelineId(1), LifelineId(2))]);
        let atom = |l: LifelineId| l.index();
        let seed = st
            .minimal_partitions(true, Mode::Complete, 4, &atom, 100)
            .unwrap();
        assert_eq!(seed.len(), 4);
        let ours = st
            .minimal_partitions(false, Mode::Complete, 4, &atom, 100)
            .unwrap();
        assert_eq!(ours, vec![Partition::from_labels(&[0, 1, 1, 2])]);
    }

    #[test]
    fn example3_constraints() {
        let s = sig(&["A", "B", "C", "D"], &["msg1", "msg2"]);
        let st = Statics::new("e3.hif", "alt(A -- msg1 -> B, C -- msg2 -> D)", &s).unwrap();
        let atom = |l: LifelineId| l.index();
        let seed = st
            .minimal_partitions(true, Mode::Complete, 4, &atom, 100)
            .unwrap();
        assert_eq!(
            seed,
            vec![
                Partition::from_labels(&[0, 1, 0, 1]),
                Partition::from_labels(&[0, 1, 1, 0])
            ]
        );
        let complete = st
            .minimal_partitions(false, Mode::Complete, 4, &atom, 100)
            .unwrap();
        assert_eq!(complete, vec![Partition::from_labels(&[0, 1, 0, 1])]);
        let prefix = st
            .minimal_partitions(false, Mode::Prefix, 4, &atom, 100)
            .unwrap();
        assert_eq!(prefix, vec![Partition::from_labels(&[0, 1, 0, 2])]);
        // Channels: both messages, with their senders.
        assert_eq!(st.channels().len(), 2);
    }

    #[test]
    fn every_construct_is_read() {
        let s = sig(&["l1", "l2", "l3"], &["m1", "m2"]);
        let text = "seq( /* c */ l1 -- m1 ->|, m2 -> (l2,l3), coreg(l1,l2)(l1 -- m1 -> l2, o), \
                    par(∅, loopW(l2 -- m2 -> (l1, l3))), loopS(alt(l1 -- m1 -> l3, loopP(m1 -> l1))), loopH(l3 -- m1 -> l1))";
        let st = Statics::new("x.hif", text, &s).unwrap();
        assert_eq!(st.channels().len(), 7);
        // Errors are the compiler reader's, with their positions.
        let e = Statics::new("x.hif", "seq(l1 -- m1 -> l9, o)", &s).unwrap_err();
        assert_eq!((e.line, e.column), (1, 17), "{e}");
        assert!(e.message.contains("unknown lifeline `l9`"), "{e}");
        assert!(Statics::new("x.hif", "seq(l1 -- m1 -> l2, o", &s).is_err());
        // No recursion: as deep as the reader goes, and its limit beyond.
        let deep = format!("{}o{}", "loopS(".repeat(10_000), ")".repeat(10_000));
        assert_eq!(
            Statics::new("x.hif", &deep, &s).unwrap().nodes.len(),
            10_001
        );
        let deeper = format!("{}o{}", "loopS(".repeat(10_001), ")".repeat(10_001));
        assert!(Statics::new("x.hif", &deeper, &s)
            .unwrap_err()
            .message
            .contains("nesting"));
    }
}
