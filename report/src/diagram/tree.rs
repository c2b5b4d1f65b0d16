//! From an interaction term to the tree a sequence diagram draws.
//!
//! The reader builds terms with the store's normalizing constructors, so message passing
//! `a -- m -> b` is `strict(a!m, b?m)`, a broadcast `a -- m -> (b, c)` is
//! `strict(a!m, par(b?m, c?m))`, and sequencing is right-associated (a `strict` chain holds the
//! actions of every message written in it, one after the other). The tree takes that apart
//! again: in a chain of strict sequencing, an emission directly followed by a reception of the
//! same message (or by a `par` of such receptions) is one arrow; any other action is an
//! emission to, or a reception from, the environment.
//!
//! Weak sequencing is the default vertical composition of a sequence diagram, so a `seq` chain
//! is drawn as elements stacked without a box, except inside a `strict` box where it gets a
//! `seq` box of its own; a `strict` chain of two or more elements is a `strict` box.

use super::error::DiagramError;
use multitrace_model::model::TermModel;
use multitrace_model::signature::{ActionKind, LifelineId, LifelineSet, MessageId};
use multitrace_model::term::{children, LoopKind, Term, TermId, TermStore};

/// Read access to the nodes of an interaction term: a [`TermStore`], or the nodes a compiled
/// model keeps ([`StoredTerms`]), read as they are stored so that operands keep the order
/// they were written in.
pub trait Terms {
    /// The node of `t`.
    fn node(&self, t: TermId) -> Term;
    /// The lifelines `t` involves.
    fn lifelines(&self, t: TermId) -> LifelineSet;
}

impl Terms for TermStore {
    fn node(&self, t: TermId) -> Term {
        self.get(t)
    }
    fn lifelines(&self, t: TermId) -> LifelineSet {
        TermStore::lifelines(self, t)
    }
}

/// The term nodes of a compiled model ([`TermModel`]: children before parents, the root
/// last), with the lifelines of each.
pub struct StoredTerms<'a> {
    nodes: &'a [Term],
    lifelines: Vec<LifelineSet>,
}

impl<'a> StoredTerms<'a> {
    /// Reads `model`'s nodes (validated when the model was loaded: children are earlier
    /// nodes).
    pub fn new(model: &'a TermModel) -> Self {
        let mut lifelines: Vec<LifelineSet> = Vec::with_capacity(model.nodes.len());
        for node in &model.nodes {
            let own = match node {
                Term::Act(a) => LifelineSet::single(a.lifeline),
                _ => LifelineSet::EMPTY,
            };
            let set = children(*node)
                .filter_map(|c| lifelines.get(c.index()))
                .fold(own, |acc, &s| acc.union(s));
            lifelines.push(set);
        }
        StoredTerms {
            nodes: &model.nodes,
            lifelines,
        }
    }

    /// The root: the last node.
    pub fn root(&self) -> TermId {
        TermId(self.nodes.len().saturating_sub(1) as u32)
    }
}

impl Terms for StoredTerms<'_> {
    fn node(&self, t: TermId) -> Term {
        self.nodes.get(t.index()).copied().unwrap_or(Term::Empty)
    }
    fn lifelines(&self, t: TermId) -> LifelineSet {
        self.lifelines
            .get(t.index())
            .copied()
            .unwrap_or(LifelineSet::EMPTY)
    }
}

/// Deepest nesting of boxes a diagram draws (a deeper interaction is refused: its boxes would
/// be wider than any screen).
pub const MAX_DIAGRAM_NESTING: usize = 256;

/// An arrow: a message passed, broadcast, sent to or received from the environment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    /// The emitting lifeline; `None` for a reception from the environment.
    pub from: Option<LifelineId>,
    /// The receiving lifelines; empty for an emission to the environment.
    pub to: Vec<LifelineId>,
    /// The message.
    pub message: MessageId,
}

/// The operator of a combined fragment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FragmentKind {
    /// `strict`: every action of an operand before any of the next.
    Strict,
    /// `seq` drawn as a box (inside a `strict` box).
    Seq,
    /// `par`: interleaving.
    Par,
    /// `alt`: choice.
    Alt,
    /// `coreg(s)`: weak sequencing, interleaving on the lifelines of `s`.
    Coreg(LifelineSet),
    /// A loop.
    Loop(LoopKind),
}

/// A combined fragment: a labelled box around its operands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fragment {
    /// The operator.
    pub kind: FragmentKind,
    /// The operands, top to bottom.
    pub operands: Vec<Node>,
    /// The lifelines the fragment involves (its box spans them).
    pub lifelines: LifelineSet,
}

/// One element of a diagram.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node {
    /// ∅: nothing happens.
    Empty,
    /// An arrow.
    Message(Message),
    /// Elements stacked top to bottom without a box (weak sequencing).
    Sequence(Vec<Node>),
    /// A labelled box.
    Fragment(Fragment),
}

impl Node {
    /// Number of actions drawn (an arrow between lifelines counts its emission and each
    /// reception).
    pub fn actions(&self) -> usize {
        match self {
            Node::Empty => 0,
            Node::Message(m) => usize::from(m.from.is_some()) + m.to.len(),
            Node::Sequence(v) => v.iter().map(Node::actions).sum(),
            Node::Fragment(f) => f.operands.iter().map(Node::actions).sum(),
        }
    }
}

/// Which sequencing stacks the elements around a term.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Context {
    /// Weak sequencing (the root, and every operand of a box).
    Weak,
    /// Inside a `strict` chain.
    Strict,
}

/// The diagram tree of `root`.
pub fn tree(store: &dyn Terms, root: TermId) -> Result<Node, DiagramError> {
    build(store, root, Context::Weak, 0)
}

/// The elements of the right-nested chain of `t`, whose nodes `split` takes apart.
fn spine(
    store: &dyn Terms,
    t: TermId,
    split: impl Fn(Term) -> Option<(TermId, TermId)>,
) -> Vec<TermId> {
    let mut out = Vec::new();
    let mut t = t;
    while let Some((a, b)) = split(store.node(t)) {
        out.push(a);
        t = b;
    }
    out.push(t);
    out
}

fn build(store: &dyn Terms, t: TermId, ctx: Context, depth: usize) -> Result<Node, DiagramError> {
    if depth > MAX_DIAGRAM_NESTING {
        return Err(DiagramError::TooDeep {
            limit: MAX_DIAGRAM_NESTING,
        });
    }
    let fragment = |kind, operands| {
        Node::Fragment(Fragment {
            kind,
            operands,
            lifelines: store.lifelines(t),
        })
    };
    Ok(match store.node(t) {
        Term::Empty => Node::Empty,
        Term::Act(a) => Node::Message(match a.kind {
            ActionKind::Emission => Message {
                from: Some(a.lifeline),
                to: Vec::new(),
                message: a.message,
            },
            ActionKind::Reception => Message {
                from: None,
                to: vec![a.lifeline],
                message: a.message,
            },
        }),
        Term::Strict(..) => {
            let items = spine(store, t, |n| match n {
                Term::Strict(a, b) => Some((a, b)),
                _ => None,
            });
            let mut nodes = Vec::with_capacity(items.len());
            let mut i = 0;
            while i < items.len() {
                if let Some((m, used)) = message_at(store, &items[i..]) {
                    nodes.push(Node::Message(m));
                    i += used;
                } else {
                    nodes.push(build(store, items[i], Context::Strict, depth + 1)?);
                    i += 1;
                }
            }
            if nodes.len() == 1 {
                nodes.pop().unwrap_or(Node::Empty)
            } else {
                fragment(FragmentKind::Strict, nodes)
            }
        }
        Term::Seq(..) => {
            let items = spine(store, t, |n| match n {
                Term::Seq(a, b) => Some((a, b)),
                _ => None,
            });
            let nodes = items
                .iter()
                .map(|&x| build(store, x, Context::Weak, depth + 1))
                .collect::<Result<Vec<_>, _>>()?;
            match ctx {
                Context::Weak => Node::Sequence(nodes),
                Context::Strict => fragment(FragmentKind::Seq, nodes),
            }
        }
        Term::Coreg(s, ..) => {
            let items = spine(store, t, |n| match n {
                Term::Coreg(r, a, b) if r == s => Some((a, b)),
                _ => None,
            });
            let nodes = items
                .iter()
                .map(|&x| build(store, x, Context::Weak, depth + 1))
                .collect::<Result<Vec<_>, _>>()?;
            fragment(FragmentKind::Coreg(s), nodes)
        }
        Term::Par(..) => {
            let items = spine(store, t, |n| match n {
                Term::Par(a, b) => Some((a, b)),
                _ => None,
            });
            if let Some(m) = receptions(store, &items) {
                // `m -> (l1, l2)`: one message from the environment to several lifelines.
                Node::Message(Message {
                    from: None,
                    to: m.1,
                    message: m.0,
                })
            } else {
                let nodes = items
                    .iter()
                    .map(|&x| build(store, x, Context::Weak, depth + 1))
                    .collect::<Result<Vec<_>, _>>()?;
                fragment(FragmentKind::Par, nodes)
            }
        }
        Term::Alt(..) => {
            let items = spine(store, t, |n| match n {
                Term::Alt(a, b) => Some((a, b)),
                _ => None,
            });
            let nodes = items
                .iter()
                .map(|&x| build(store, x, Context::Weak, depth + 1))
                .collect::<Result<Vec<_>, _>>()?;
            fragment(FragmentKind::Alt, nodes)
        }
        Term::Loop(k, body) => fragment(
            FragmentKind::Loop(k),
            vec![build(store, body, Context::Weak, depth + 1)?],
        ),
    })
}

/// When `items` (a strict chain from some point) starts with an emission followed by its
/// reception(s): the message, and how many items it takes.
fn message_at(store: &dyn Terms, items: &[TermId]) -> Option<(Message, usize)> {
    let Term::Act(e) = store.node(*items.first()?) else {
        return None;
    };
    if e.kind != ActionKind::Emission {
        return None;
    }
    let next = *items.get(1)?;
    let to = match store.node(next) {
        Term::Act(r) if r.kind == ActionKind::Reception && r.message == e.message => {
            vec![r.lifeline]
        }
        Term::Par(..) => {
            let ops = spine(store, next, |n| match n {
                Term::Par(a, b) => Some((a, b)),
                _ => None,
            });
            match receptions(store, &ops) {
                Some((m, to)) if m == e.message => to,
                _ => return None,
            }
        }
        _ => return None,
    };
    Some((
        Message {
            from: Some(e.lifeline),
            to,
            message: e.message,
        },
        2,
    ))
}

/// When every term of `items` is a reception of one message: the message and the receivers
/// (sorted, as the store sorts them).
fn receptions(store: &dyn Terms, items: &[TermId]) -> Option<(MessageId, Vec<LifelineId>)> {
    let mut message = None;
    let mut to = Vec::with_capacity(items.len());
    for &x in items {
        let Term::Act(r) = store.node(x) else {
            return None;
        };
        if r.kind != ActionKind::Reception || message.is_some_and(|m| m != r.message) {
            return None;
        }
        message = Some(r.message);
        to.push(r.lifeline);
    }
    to.sort();
    // The same lifeline twice is two receptions in parallel, not one message.
    if to.windows(2).any(|w| w[0] == w[1]) {
        return None;
    }
    Some((message?, to))
}
