//! The interaction as written ([`SyntaxTree`]), which the `.hif` reader records besides the
//! term when asked ([`Record`]): for the stages that point into the text.

use multitrace_model::signature::{LifelineId, LifelineSet, MessageId};
use multitrace_model::term::LoopKind;

/// The binary operators that n-ary forms fold to the right.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operator {
    /// `strict`: strict sequencing.
    Strict,
    /// `seq`: weak sequencing.
    Seq,
    /// `par`: interleaving.
    Par,
    /// `alt`: choice.
    Alt,
    /// `coreg(l1, ...)`: weak sequencing, except on the region's lifelines (interleaved).
    Coreg(LifelineSet),
}

impl Operator {
    /// Whether the store right-associates the operator (`strict`, `seq`, `par`).
    pub(super) fn is_sequencing(self) -> bool {
        matches!(self, Operator::Strict | Operator::Seq | Operator::Par)
    }

    /// The keyword (`coreg` without its region).
    pub fn keyword(self) -> &'static str {
        match self {
            Operator::Strict => "strict",
            Operator::Seq => "seq",
            Operator::Par => "par",
            Operator::Alt => "alt",
            Operator::Coreg(_) => "coreg",
        }
    }
}

/// A node of an interaction as written, before the store's normalizations (which drop `o`
/// operands, regroup n-ary operators and merge equal terms): for the stages that point into
/// the text. Children are indices into [`SyntaxTree::nodes`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SyntaxNode {
    /// `o` or `∅`.
    Empty,
    /// `a -- m ->|`, `m -> b`, `a -- m -> b` or `a -- m -> (b, c, ...)`.
    Message {
        /// The sender (`None`: the environment).
        sender: Option<LifelineId>,
        /// The receivers, as written (none: the environment).
        receivers: Vec<LifelineId>,
        /// The message.
        message: MessageId,
    },
    /// An n-ary operator and its operands, as written.
    Nary {
        /// The operator.
        op: Operator,
        /// The operands.
        children: Vec<usize>,
    },
    /// A loop and its body.
    Loop {
        /// The kind of loop.
        kind: LoopKind,
        /// The body.
        body: usize,
    },
}

/// The syntax tree of an interaction, from [`parse_interaction_tree`](super::parse_interaction_tree).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SyntaxTree {
    /// The nodes, children before their parent (the root is the last one), in the order the
    /// text closes them.
    pub nodes: Vec<SyntaxNode>,
    /// Per node, the line and column (from 1) where it starts: its first name or keyword.
    pub positions: Vec<(u32, u32)>,
}

/// What the reader records besides the term. A type parameter, so that the plain reader
/// ([`NoTree`]) compiles to the code it had before the tree existed.
pub(super) trait Record {
    /// A leaf or a loop, starting at byte `at`.
    fn node(&mut self, node: impl FnOnce(&mut Vec<LifelineId>) -> SyntaxNode, at: usize);
    /// A receiver of the message being read.
    fn receiver(&mut self, l: LifelineId);
    /// An n-ary operator opens.
    fn open(&mut self);
    /// An operand of the innermost open operator was read (the last node).
    fn operand(&mut self);
    /// The innermost open operator closes, its keyword at byte `at`.
    fn close(&mut self, op: Operator, at: usize);
    /// The last node recorded: the root of the interaction read last.
    fn last(&self) -> usize;
}

/// No tree.
pub(super) struct NoTree;

impl Record for NoTree {
    #[inline(always)]
    fn node(&mut self, _: impl FnOnce(&mut Vec<LifelineId>) -> SyntaxNode, _: usize) {}
    #[inline(always)]
    fn receiver(&mut self, _: LifelineId) {}
    #[inline(always)]
    fn open(&mut self) {}
    #[inline(always)]
    fn operand(&mut self) {}
    #[inline(always)]
    fn close(&mut self, _: Operator, _: usize) {}
    #[inline(always)]
    fn last(&self) -> usize {
        0
    }
}

/// The tree being recorded: nodes with the byte offsets where they start.
#[derive(Default)]
pub(super) struct TreeBuilder {
    pub(super) nodes: Vec<SyntaxNode>,
    pub(super) offsets: Vec<usize>,
    /// The receivers of the message being read.
    receivers: Vec<LifelineId>,
    /// The operands of the open operators, innermost last, and where each operator's start.
    operands: Vec<usize>,
    starts: Vec<usize>,
}

impl Record for TreeBuilder {
    fn node(&mut self, node: impl FnOnce(&mut Vec<LifelineId>) -> SyntaxNode, at: usize) {
        let node = node(&mut self.receivers);
        self.nodes.push(node);
        self.offsets.push(at);
    }

    fn receiver(&mut self, l: LifelineId) {
        self.receivers.push(l);
    }

    fn open(&mut self) {
        self.starts.push(self.operands.len());
    }

    fn operand(&mut self) {
        self.operands.push(self.last());
    }

    fn close(&mut self, op: Operator, at: usize) {
        let start = self.starts.pop().unwrap_or(0);
        let children = self.operands.split_off(start.min(self.operands.len()));
        self.node(|_| SyntaxNode::Nary { op, children }, at);
    }

    fn last(&self) -> usize {
        self.nodes.len().wrapping_sub(1)
    }
}
