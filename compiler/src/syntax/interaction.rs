//! Reader of interaction files (`.hif`, HIBOU syntax).
//!
//! ```text
//! i ::= o | ∅                                  empty interaction
//!     | l -- m ->|                             emission l!m to the environment
//!     | m -> l | m -> (l1, l2, ...)            reception(s) from the environment
//!     | a -- m -> b | a -- m -> (b1, b2, ...)  message passing / broadcast
//!     | strict(i, i, ...) | seq(...) | par(...) | alt(...)     two or more, folded right
//!     | coreg(l1, l2, ...)(i, i, ...)          co-region, two or more, folded right
//!     | loopS(i) | loopH(i) | loopW(i) | loopP(i)
//! ```
//!
//! Whitespace and `/* */` comments may appear between any two tokens (also between `->` and
//! `|`). Terms are built bottom-up with the normalizing constructors of [`TermStore`]. The
//! reader uses an explicit stack (no recursion), refuses nesting deeper than
//! [`MAX_NESTING`] levels, and never panics.

use multitrace_runtime::signature::{
    Action, ActionKind, LifelineId, LifelineSet, MessageId, Signature,
};
use multitrace_runtime::syntax::{
    describe_char, is_ident_continue, is_ident_start, name_list, Cursor, Lookahead, ParseError,
};
use multitrace_runtime::term::{LoopKind, Term, TermId, TermStore};

/// Deepest nesting of operators the `.hif` reader accepts.
pub const MAX_NESTING: usize = 10_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tok {
    Ident,
    /// `∅`
    EmptySym,
    LParen,
    RParen,
    Comma,
    /// `--`
    Dashes,
    /// `->`
    Arrow,
    /// `|`
    Bar,
    /// `<word>`, as in `<synch>`.
    Angle,
    /// Any other character.
    Other(char),
    Eof,
}

#[derive(Clone, Copy, Debug)]
struct Token<'a> {
    kind: Tok,
    start: usize,
    text: &'a str,
}

/// The one-byte tokens.
fn punctuation(b: u8) -> Option<Tok> {
    Some(match b {
        b'(' => Tok::LParen,
        b')' => Tok::RParen,
        b',' => Tok::Comma,
        b'|' => Tok::Bar,
        _ => return None,
    })
}

/// The tokens of `.hif` on the shared [`Cursor`], with one token of lookahead.
struct Lexer<'a> {
    la: Lookahead<'a, Token<'a>>,
}

impl<'a> Lexer<'a> {
    fn new(file: &'a str, text: &'a str) -> Self {
        Lexer {
            la: Lookahead::new(file, text),
        }
    }

    fn next(&mut self) -> Result<Token<'a>, ParseError> {
        self.la.next(scan)
    }

    fn peek(&mut self) -> Result<Token<'a>, ParseError> {
        self.la.peek(scan)
    }

    fn describe(tok: &Token<'_>) -> String {
        match tok.kind {
            Tok::Eof => "end of input".to_string(),
            Tok::Other(ch) => describe_char(ch),
            _ => format!("`{}`", tok.text),
        }
    }

    /// "expected WHAT, found TOKEN" (an `<...>` construct is reported as unsupported).
    fn expected(&self, tok: &Token<'_>, what: &str) -> ParseError {
        match tok.kind {
            Tok::Eof => self.la.c.expected_found(tok.start, what, None),
            Tok::Angle => unsupported(&self.la.c, tok),
            _ => self
                .la
                .c
                .expected_found(tok.start, what, Some(&Self::describe(tok))),
        }
    }

    fn expect(&mut self, kind: Tok, what: &str) -> Result<Token<'a>, ParseError> {
        let tok = self.next()?;
        if tok.kind == kind {
            Ok(tok)
        } else {
            Err(self.expected(&tok, what))
        }
    }
}

/// Reads one token at `c` (after whitespace and comments).
fn scan<'a>(c: &mut Cursor<'a>) -> Result<Token<'a>, ParseError> {
    c.skip_trivia()?;
    let start = c.pos();
    let kind = match c.peek_byte() {
        None => Tok::Eof,
        Some(b) if is_ident_start(b) => {
            c.take_while_ascii(is_ident_continue);
            Tok::Ident
        }
        Some(b'-') if c.eat("--") => Tok::Dashes,
        Some(b'-') if c.eat("->") => Tok::Arrow,
        Some(b'<') => {
            // `<word>` is one token (refused as unsupported), a lone `<` another character.
            let mut probe = *c;
            probe.eat_byte(b'<');
            let word = probe.take_while_ascii(is_ident_continue);
            if !word.is_empty() && probe.eat_byte(b'>') {
                *c = probe;
                Tok::Angle
            } else {
                c.eat_byte(b'<');
                Tok::Other('<')
            }
        }
        Some(b) => match punctuation(b) {
            Some(kind) => {
                c.eat_byte(b);
                kind
            }
            None if c.eat("∅") => Tok::EmptySym,
            None => c.bump().map_or(Tok::Eof, Tok::Other),
        },
    };
    Ok(Token {
        kind,
        start,
        text: c.since(start),
    })
}

fn unsupported(c: &Cursor<'_>, tok: &Token<'_>) -> ParseError {
    c.error(
        tok.start,
        format!(
            "unsupported construct `{}`: interactions use strict, seq, par, alt, coreg(...), \
             loopS, loopH, loopW and loopP",
            tok.text
        ),
    )
}

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
    fn is_sequencing(self) -> bool {
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

/// The syntax tree of an interaction, from [`parse_interaction_tree`].
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
trait Record {
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
struct NoTree;

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
struct TreeBuilder {
    nodes: Vec<SyntaxNode>,
    offsets: Vec<usize>,
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

#[derive(Debug)]
enum Frame<'a> {
    /// An n-ary operator whose children are being read.
    Nary {
        op: Operator,
        keyword: Token<'a>,
        /// The children read so far, flattened through nested sequencing of the same kind.
        children: Vec<TermId>,
        /// How many children were written.
        count: usize,
    },
    /// A loop whose single child is being read.
    Loop { kind: LoopKind, keyword: Token<'a> },
}

struct Parser<'a, 's, R: Record> {
    lx: Lexer<'a>,
    sig: &'s mut Signature,
    infer: bool,
    /// Loops built, with the byte offset of their keyword.
    loops: Vec<(TermId, usize)>,
    /// The syntax tree, when asked for.
    tree: R,
}

impl<'a, R: Record> Parser<'a, '_, R> {
    fn lifeline(&mut self, tok: &Token<'a>) -> Result<LifelineId, ParseError> {
        let name = tok.text;
        if let Some(id) = self.sig.lifeline(name) {
            return Ok(id);
        }
        if self.infer {
            return self.sig.add_lifeline(name).map_err(|e| {
                self.lx
                    .la
                    .c
                    .error(tok.start, format!("lifeline `{name}`: {e}"))
            });
        }
        Err(self.lx.la.c.error(
            tok.start,
            format!(
                "unknown lifeline `{name}`; {}declared lifelines: {}",
                multitrace_runtime::suggest::did_you_mean(
                    name,
                    self.sig.lifelines().iter().map(String::as_str)
                ),
                name_list(self.sig.lifelines())
            ),
        ))
    }

    fn message(&mut self, tok: &Token<'a>) -> Result<MessageId, ParseError> {
        let name = tok.text;
        if let Some(id) = self.sig.message(name) {
            return Ok(id);
        }
        if self.infer {
            return Ok(self.sig.add_message(name));
        }
        Err(self.lx.la.c.error(
            tok.start,
            format!(
                "unknown message `{name}`; {}declared messages: {}",
                multitrace_runtime::suggest::did_you_mean(
                    name,
                    self.sig.messages().iter().map(String::as_str)
                ),
                name_list(self.sig.messages())
            ),
        ))
    }

    /// After `->`: a lifeline name, or `(l1, l2, ...)`; returns the receptions of `m` folded
    /// with `par` to the right.
    fn receivers(
        &mut self,
        m: MessageId,
        store: &mut TermStore,
        what: &str,
    ) -> Result<TermId, ParseError> {
        let tok = self.lx.next()?;
        let names: Vec<Token<'a>> = match tok.kind {
            Tok::Ident => vec![tok],
            Tok::LParen => {
                let mut names = Vec::new();
                loop {
                    names.push(self.lx.expect(Tok::Ident, "a lifeline name")?);
                    let sep = self.lx.next()?;
                    match sep.kind {
                        Tok::Comma => {}
                        Tok::RParen => break,
                        _ => return Err(self.lx.expected(&sep, "`,` or `)`")),
                    }
                }
                names
            }
            _ => return Err(self.lx.expected(&tok, what)),
        };
        let mut acts = Vec::with_capacity(names.len());
        for name in &names {
            let l = self.lifeline(name)?;
            self.tree.receiver(l);
            acts.push(store.act(Action {
                lifeline: l,
                kind: ActionKind::Reception,
                message: m,
            }));
        }
        let mut acc = acts.pop().unwrap_or(TermId::EMPTY);
        while let Some(x) = acts.pop() {
            acc = sequence(store, SeqOp::Par, x, acc);
        }
        Ok(acc)
    }

    /// An action or message after its first identifier `first` (followed by `--` or `->`).
    fn action(&mut self, first: Token<'a>, store: &mut TermStore) -> Result<TermId, ParseError> {
        let op = self.lx.next()?;
        if op.kind == Tok::Arrow {
            // `m -> l` or `m -> (l1, l2)`: reception(s) from the environment.
            let m = self.message(&first)?;
            let t = self.receivers(m, store, "a lifeline name or `(` after `->`")?;
            self.record_message(None, m, first.start);
            return Ok(t);
        }
        // `l -- m ->|`, `l -- m -> b`, `l -- m -> (b, c)`.
        let l = self.lifeline(&first)?;
        let mtok = self.lx.expect(Tok::Ident, "a message name after `--`")?;
        let m = self.message(&mtok)?;
        self.lx.expect(Tok::Arrow, "`->` after the message")?;
        let emission = store.act(Action {
            lifeline: l,
            kind: ActionKind::Emission,
            message: m,
        });
        if self.lx.peek()?.kind == Tok::Bar {
            self.lx.next()?;
            self.record_message(Some(l), m, first.start);
            return Ok(emission);
        }
        let receptions = self.receivers(m, store, "a lifeline name, `(` or `|` after `->`")?;
        self.record_message(Some(l), m, first.start);
        Ok(sequence(store, SeqOp::Strict, emission, receptions))
    }

    /// Records a message whose receivers [`Parser::receivers`] collected.
    fn record_message(&mut self, sender: Option<LifelineId>, message: MessageId, at: usize) {
        self.tree.node(
            |receivers| SyntaxNode::Message {
                sender,
                receivers: std::mem::take(receivers),
                message,
            },
            at,
        );
    }

    /// `coreg(l1, ...)(`: the lifeline list and the opening parenthesis of the children.
    fn coreg_region(&mut self) -> Result<LifelineSet, ParseError> {
        self.lx.expect(Tok::LParen, "`(` after `coreg`")?;
        let mut set = LifelineSet::EMPTY;
        loop {
            let name = self.lx.expect(Tok::Ident, "a lifeline name")?;
            set.insert(self.lifeline(&name)?);
            let sep = self.lx.next()?;
            match sep.kind {
                Tok::Comma => {}
                Tok::RParen => break,
                _ => return Err(self.lx.expected(&sep, "`,` or `)`")),
            }
        }
        self.lx
            .expect(Tok::LParen, "`(` opening the interactions of `coreg(...)`")?;
        Ok(set)
    }

    fn parse(&mut self, store: &mut TermStore) -> Result<TermId, ParseError> {
        let mut stack: Vec<Frame<'a>> = Vec::new();
        'outer: loop {
            // Read the start of an interaction: a leaf, or an operator pushed on the stack.
            let tok = self.lx.next()?;
            let mut value = match tok.kind {
                Tok::EmptySym => {
                    self.tree.node(|_| SyntaxNode::Empty, tok.start);
                    TermId::EMPTY
                }
                Tok::Ident => {
                    let after = self.lx.peek()?;
                    match (after.kind, keyword(tok.text)) {
                        (Tok::Dashes | Tok::Arrow, _) => self.action(tok, store)?,
                        (Tok::LParen, None) => return Err(unsupported(&self.lx.la.c, &tok)),
                        (Tok::LParen, Some(kw)) => {
                            if stack.len() >= MAX_NESTING {
                                return Err(self.lx.la.c.error(
                                    tok.start,
                                    format!("nesting deeper than {MAX_NESTING} levels"),
                                ));
                            }
                            let frame = match kw {
                                Keyword::Op(op) => {
                                    self.lx.next()?;
                                    Frame::Nary {
                                        op,
                                        keyword: tok,
                                        children: Vec::new(),
                                        count: 0,
                                    }
                                }
                                Keyword::Coreg => Frame::Nary {
                                    op: Operator::Coreg(self.coreg_region()?),
                                    keyword: tok,
                                    children: Vec::new(),
                                    count: 0,
                                },
                                Keyword::Loop(kind) => {
                                    self.lx.next()?;
                                    Frame::Loop { kind, keyword: tok }
                                }
                            };
                            if let Frame::Nary { .. } = frame {
                                self.tree.open();
                            }
                            stack.push(frame);
                            continue 'outer;
                        }
                        _ if tok.text == "o" => {
                            self.tree.node(|_| SyntaxNode::Empty, tok.start);
                            TermId::EMPTY
                        }
                        (_, Some(_)) => {
                            let what = format!("`(` after `{}`", tok.text);
                            return Err(self.lx.expected(&after, &what));
                        }
                        (_, None) => {
                            let what = format!("`--` or `->` after `{}`", tok.text);
                            return Err(self.lx.expected(&after, &what));
                        }
                    }
                }
                Tok::RParen => {
                    // `seq()` or `loopW()`: no interaction at all.
                    return Err(match stack.last() {
                        Some(Frame::Nary { keyword, count, .. }) if *count == 0 => {
                            too_few(&self.lx.la.c, keyword, 0)
                        }
                        Some(Frame::Loop { keyword, .. }) => self.lx.la.c.error(
                            keyword.start,
                            format!(
                                "`{}` needs exactly one interaction, found none",
                                keyword.text
                            ),
                        ),
                        _ => self.lx.expected(&tok, "an interaction"),
                    });
                }
                _ => return Err(self.lx.expected(&tok, "an interaction")),
            };
            // Reduce: hand the value to the enclosing operators while they close. `spliced`
            // means the value was already handed over as the children of a nested sequencing
            // of the same kind, whose list was appended to its parent's.
            let mut spliced = false;
            loop {
                let Some(frame) = stack.pop() else {
                    let end = self.lx.next()?;
                    if end.kind != Tok::Eof {
                        return Err(self.lx.expected(&end, "end of input"));
                    }
                    return Ok(value);
                };
                match frame {
                    Frame::Nary {
                        op,
                        keyword,
                        mut children,
                        mut count,
                    } => {
                        if !spliced {
                            children.push(value);
                        }
                        self.tree.operand();
                        count += 1;
                        spliced = false;
                        let sep = self.lx.next()?;
                        match sep.kind {
                            Tok::Comma => {
                                stack.push(Frame::Nary {
                                    op,
                                    keyword,
                                    children,
                                    count,
                                });
                                continue 'outer;
                            }
                            Tok::RParen => {}
                            _ => return Err(self.lx.expected(&sep, "`,` or `)`")),
                        }
                        if count < 2 {
                            return Err(too_few(&self.lx.la.c, &keyword, count));
                        }
                        self.tree.close(op, keyword.start);
                        // op(op(a, b), c) is op(a, op(b, c)) in the store: hand the children
                        // to an enclosing sequencing of the same kind rather than building
                        // the inner term and taking it apart again.
                        if let Some(Frame::Nary {
                            op: parent_op,
                            children: parent_children,
                            ..
                        }) = stack.last_mut()
                        {
                            if *parent_op == op && op.is_sequencing() {
                                parent_children.append(&mut children);
                                spliced = true;
                                continue;
                            }
                        }
                        value = fold(store, op, children);
                    }
                    Frame::Loop { kind, keyword } => {
                        let sep = self.lx.next()?;
                        if sep.kind != Tok::RParen {
                            let what =
                                format!("`)` (`{}` takes exactly one interaction)", keyword.text);
                            return Err(self.lx.expected(&sep, &what));
                        }
                        value = store.repeat(kind, value);
                        self.loops.push((value, keyword.start));
                        let body = self.tree.last();
                        self.tree
                            .node(|_| SyntaxNode::Loop { kind, body }, keyword.start);
                    }
                }
            }
        }
    }
}

/// Operator keywords (a name followed by `(`).
#[derive(Clone, Copy)]
enum Keyword {
    Op(Operator),
    Coreg,
    Loop(LoopKind),
}

// Inlined into both instances of the reader (with and without the tree), as it was into the
// one reader before: a call here costs 0.4% of the instructions of a parse.
#[inline(always)]
fn keyword(name: &str) -> Option<Keyword> {
    Some(match name {
        "strict" => Keyword::Op(Operator::Strict),
        "seq" => Keyword::Op(Operator::Seq),
        "par" => Keyword::Op(Operator::Par),
        "alt" => Keyword::Op(Operator::Alt),
        "coreg" => Keyword::Coreg,
        "loopS" => Keyword::Loop(LoopKind::Strict),
        "loopH" => Keyword::Loop(LoopKind::Head),
        "loopW" => Keyword::Loop(LoopKind::Weak),
        "loopP" => Keyword::Loop(LoopKind::Par),
        _ => return None,
    })
}

fn too_few(c: &Cursor<'_>, keyword: &Token<'_>, found: usize) -> ParseError {
    let found = match found {
        0 => "none".to_string(),
        n => n.to_string(),
    };
    c.error(
        keyword.start,
        format!(
            "`{}` needs two or more interactions, found {found}",
            keyword.text
        ),
    )
}

/// Folds two or more children to the right: `op(c1, op(c2, ... op(cn-1, cn)))`.
#[inline(always)]
fn fold(store: &mut TermStore, op: Operator, children: Vec<TermId>) -> TermId {
    let mut children = children;
    let mut acc = children.pop().unwrap_or(TermId::EMPTY);
    while let Some(x) = children.pop() {
        acc = match op {
            Operator::Strict => sequence(store, SeqOp::Strict, x, acc),
            Operator::Seq => sequence(store, SeqOp::Seq, x, acc),
            Operator::Par => sequence(store, SeqOp::Par, x, acc),
            Operator::Alt => store.alt(x, acc),
            Operator::Coreg(set) => {
                // The store reduces the region to the lifelines both sides use and builds weak
                // sequencing when nothing is left; build that case here without recursion.
                let s = set.inter(store.lifelines(x)).inter(store.lifelines(acc));
                if s.is_empty() {
                    sequence(store, SeqOp::Seq, x, acc)
                } else {
                    store.coreg(set, x, acc)
                }
            }
        };
    }
    acc
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum SeqOp {
    Strict,
    Seq,
    Par,
}

/// `op(x, y)` through the store's constructor, without letting the store recurse.
///
/// The store right-associates `op(op(a, b), c)` by recursing along the right spine of the left
/// operand, which a deeply left-nested input would turn into deep recursion. Here the spine of
/// `x` is walked with a loop and its elements are folded onto `y` one by one, which yields the
/// same term (each element is not itself an `op` node, so the store does not recurse).
fn sequence(store: &mut TermStore, op: SeqOp, x: TermId, y: TermId) -> TermId {
    let split = |store: &TermStore, t: TermId| match (op, store.get(t)) {
        (SeqOp::Strict, Term::Strict(a, b))
        | (SeqOp::Seq, Term::Seq(a, b))
        | (SeqOp::Par, Term::Par(a, b)) => Some((a, b)),
        _ => None,
    };
    let raw = |store: &mut TermStore, a: TermId, b: TermId| match op {
        SeqOp::Strict => store.strict(a, b),
        SeqOp::Seq => store.seq(a, b),
        SeqOp::Par => store.par(a, b),
    };
    let mut spine = Vec::new();
    let mut last = x;
    while let Some((a, b)) = split(store, last) {
        spine.push(a);
        last = b;
    }
    let mut acc = raw(store, last, y);
    while let Some(a) = spine.pop() {
        acc = raw(store, a, acc);
    }
    acc
}

/// Reads an interaction (`.hif`) into `store` and returns its root.
///
/// Names are looked up in `sig`; an unknown lifeline or message is an error unless `infer` is
/// true, in which case it is added to `sig` (in order of first occurrence). `file` names the
/// input in errors. Never panics and never recurses on the nesting of the input; nesting
/// deeper than [`MAX_NESTING`] operators is an error.
pub fn parse_interaction(
    file: &str,
    text: &str,
    sig: &mut Signature,
    infer: bool,
    store: &mut TermStore,
) -> Result<TermId, ParseError> {
    parse_interaction_with_loops(file, text, sig, infer, store).map(|(t, _)| t)
}

/// A loop term and the line and column of its keyword.
pub type LoopPosition = (TermId, u32, u32);

/// [`parse_interaction`], also returning every loop term built with the line and column of its
/// keyword (first occurrence for equal terms), so that later stages can point at a loop.
pub fn parse_interaction_with_loops(
    file: &str,
    text: &str,
    sig: &mut Signature,
    infer: bool,
    store: &mut TermStore,
) -> Result<(TermId, Vec<LoopPosition>), ParseError> {
    let mut p = Parser {
        lx: Lexer::new(file, text),
        sig,
        infer,
        loops: Vec::new(),
        tree: NoTree,
    };
    let root = p.parse(store)?;
    // All positions in one pass over the text (one `line_column` per loop was quadratic).
    let offsets: Vec<usize> = p.loops.iter().map(|&(_, at)| at).collect();
    let loops = p
        .loops
        .iter()
        .zip(p.lx.la.c.line_columns(&offsets))
        .map(|(&(t, _), (line, col))| (t, line, col))
        .collect();
    Ok((root, loops))
}

/// [`parse_interaction`], also returning the interaction as written, each node with its
/// position, for the stages that point into the text (the static analysis of partitions).
pub fn parse_interaction_tree(
    file: &str,
    text: &str,
    sig: &mut Signature,
    infer: bool,
    store: &mut TermStore,
) -> Result<(TermId, SyntaxTree), ParseError> {
    let mut p = Parser {
        lx: Lexer::new(file, text),
        sig,
        infer,
        loops: Vec::new(),
        tree: TreeBuilder::default(),
    };
    let root = p.parse(store)?;
    let tree = std::mem::take(&mut p.tree);
    Ok((
        root,
        SyntaxTree {
            positions: p.lx.la.c.line_columns(&tree.offsets),
            nodes: tree.nodes,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use multitrace_runtime::term::TermDisplay;
    use proptest::prelude::*;

    const REAL: &str = "strict(\n\tl2 -- m5 ->|,\n\tseq(\n\t\tm3 -> l2,\n\t\tloopW(seq(l1 -- m4 -> l3, m6 -> (l2,l5))),\n\t\tcoreg(l1)(l1 -- m1 ->|, m2 -> l1)\n\t)\n)";

    fn sig() -> Signature {
        let mut s = Signature::new();
        for l in ["l1", "l2", "l3", "l4", "l5"] {
            s.add_lifeline(l).unwrap();
        }
        for m in ["m1", "m2", "m3", "m4", "m5", "m6"] {
            s.add_message(m);
        }
        s
    }

    fn parse(text: &str, store: &mut TermStore) -> TermId {
        let mut s = sig();
        parse_interaction("i.hif", text, &mut s, false, store).unwrap_or_else(|e| panic!("{e}"))
    }

    fn err(text: &str) -> ParseError {
        let mut s = sig();
        parse_interaction("i.hif", text, &mut s, false, &mut TermStore::new()).unwrap_err()
    }

    fn assert_err(text: &str, line: u32, column: u32, fragment: &str) {
        let e = err(text);
        assert_eq!((e.line, e.column), (line, column), "{e}");
        assert!(e.message.contains(fragment), "{e}");
    }

    fn em(s: &mut TermStore, l: u32, m: u32) -> TermId {
        s.act(Action {
            lifeline: LifelineId(l),
            kind: ActionKind::Emission,
            message: MessageId(m),
        })
    }

    fn rc(s: &mut TermStore, l: u32, m: u32) -> TermId {
        s.act(Action {
            lifeline: LifelineId(l),
            kind: ActionKind::Reception,
            message: MessageId(m),
        })
    }

    #[test]
    fn leaves() {
        let mut s = TermStore::new();
        assert_eq!(parse("o", &mut s), TermId::EMPTY);
        assert_eq!(parse(" ∅ ", &mut s), TermId::EMPTY);
        let e = em(&mut s, 1, 4);
        assert_eq!(parse("l2 -- m5 ->|", &mut s), e);
        assert_eq!(parse("l2--m5->|", &mut s), e);
        assert_eq!(parse("l2 -- m5 -> /* env */ |", &mut s), e);
        let r = rc(&mut s, 0, 2);
        assert_eq!(parse("m3 -> l1", &mut s), r);
        let (a, b) = (em(&mut s, 0, 0), rc(&mut s, 2, 0));
        let pass = s.strict(a, b);
        assert_eq!(parse("l1 -- m1 -> l3", &mut s), pass);
    }

    #[test]
    fn broadcasts_fold_par_to_the_right() {
        let mut s = TermStore::new();
        let a = em(&mut s, 0, 0);
        let (b, c, d) = (rc(&mut s, 1, 0), rc(&mut s, 2, 0), rc(&mut s, 3, 0));
        let cd = s.par(c, d);
        let bcd = s.par(b, cd);
        let expected = s.strict(a, bcd);
        assert_eq!(parse("l1 -- m1 -> (l2, l3, l4)", &mut s), expected);
        assert_eq!(parse("m1 -> (l2,l3,l4)", &mut s), bcd);
        assert_eq!(parse("m1 -> (l2)", &mut s), b);
    }

    #[test]
    fn nary_operators_fold_to_the_right() {
        let mut s = TermStore::new();
        let (a, b, c) = (em(&mut s, 0, 0), em(&mut s, 1, 1), em(&mut s, 2, 2));
        let text = "OP(l1 -- m1 ->|, l2 -- m2 ->|, l3 -- m3 ->|)";
        let bc = s.strict(b, c);
        let want = s.strict(a, bc);
        assert_eq!(parse(&text.replace("OP", "strict"), &mut s), want);
        let bc = s.seq(b, c);
        let want = s.seq(a, bc);
        assert_eq!(parse(&text.replace("OP", "seq"), &mut s), want);
        let bc = s.par(b, c);
        let want = s.par(a, bc);
        assert_eq!(parse(&text.replace("OP", "par"), &mut s), want);
        let bc = s.alt(b, c);
        let want = s.alt(a, bc);
        assert_eq!(parse(&text.replace("OP", "alt"), &mut s), want);
        // The store flattens and sorts alt operands: any grouping gives the same term.
        let ab = s.alt(a, b);
        let left = s.alt(ab, c);
        assert_eq!(left, want);
        let set = LifelineSet::single(LifelineId(0)).union(LifelineSet::single(LifelineId(1)));
        let (x, y) = (em(&mut s, 0, 0), rc(&mut s, 0, 1));
        let z = em(&mut s, 1, 2);
        let yz = s.coreg(set, y, z);
        let want = s.coreg(set, x, yz);
        assert_eq!(
            parse(
                "coreg(l1, l2)(l1 -- m1 ->|, m2 -> l1, l2 -- m3 ->|)",
                &mut s
            ),
            want
        );
    }

    #[test]
    fn loops() {
        let mut s = TermStore::new();
        let a = em(&mut s, 0, 0);
        for (kw, kind) in [
            ("loopS", LoopKind::Strict),
            ("loopH", LoopKind::Head),
            ("loopW", LoopKind::Weak),
            ("loopP", LoopKind::Par),
        ] {
            let want = s.repeat(kind, a);
            assert_eq!(parse(&format!("{kw}( l1 -- m1 ->| )"), &mut s), want);
        }
        assert_eq!(parse("loopW(o)", &mut s), TermId::EMPTY);
    }

    #[test]
    fn real_example() {
        let mut s = TermStore::new();
        let got = parse(REAL, &mut s);
        let e25 = em(&mut s, 1, 4);
        let r23 = rc(&mut s, 1, 2);
        let (e14, r34) = (em(&mut s, 0, 3), rc(&mut s, 2, 3));
        let pass = s.strict(e14, r34);
        let (r26, r56) = (rc(&mut s, 1, 5), rc(&mut s, 4, 5));
        let bcast = s.par(r26, r56);
        let inner = s.seq(pass, bcast);
        let lp = s.repeat(LoopKind::Weak, inner);
        let (e11, r12) = (em(&mut s, 0, 0), rc(&mut s, 0, 1));
        let co = s.coreg(LifelineSet::single(LifelineId(0)), e11, r12);
        let tail = s.seq(lp, co);
        let sq = s.seq(r23, tail);
        let want = s.strict(e25, sq);
        assert_eq!(got, want);
        // The store's rendering reads back to the same term.
        let sg = sig();
        let shown = TermDisplay {
            store: &s,
            signature: &sg,
            term: got,
        }
        .to_string();
        assert_eq!(parse(&shown, &mut s), got);
    }

    #[test]
    fn inference_adds_names_in_order() {
        let mut s = TermStore::new();
        let mut sig = Signature::new();
        let t = parse_interaction("i", "seq(b -- x -> a, y -> (c, a))", &mut sig, true, &mut s)
            .unwrap();
        assert_eq!(sig.lifelines(), ["b", "a", "c"]);
        assert_eq!(sig.messages(), ["x", "y"]);
        assert_eq!(s.lifelines(t).len(), 3);
        // Keywords are names where an action expects one.
        let mut sig = Signature::new();
        parse_interaction("i", "seq -- o -> coreg", &mut sig, true, &mut s).unwrap();
        assert_eq!(sig.lifelines(), ["seq", "coreg"]);
        assert_eq!(sig.messages(), ["o"]);
        // Too many lifelines.
        let mut sig = Signature::new();
        let names: Vec<String> = (0..65).map(|i| format!("m -> l{i}")).collect();
        let text = format!("par({})", names.join(", "));
        let e = parse_interaction("i", &text, &mut sig, true, &mut s).unwrap_err();
        assert!(
            e.message.contains("lifeline `l64`: too many lifelines"),
            "{e}"
        );
    }

    #[test]
    fn unknown_names() {
        assert_err(
            "seq(l1 -- m1 ->|,\n  x -- m1 ->|)",
            2,
            3,
            "unknown lifeline `x`; declared lifelines: l1, l2, l3, l4, l5",
        );
        assert_err(
            "l1 -- zz ->|",
            1,
            7,
            "unknown message `zz`; declared messages: m1, m2",
        );
        assert_err("m1 -> (l1, q)", 1, 12, "unknown lifeline `q`");
        assert_err("coreg(l9)(o, o)", 1, 7, "unknown lifeline `l9`");
    }

    #[test]
    fn arity_errors() {
        assert_err(
            "seq(l1 -- m1 ->|)",
            1,
            1,
            "`seq` needs two or more interactions, found 1",
        );
        assert_err(
            "strict()",
            1,
            1,
            "`strict` needs two or more interactions, found none",
        );
        assert_err("o /* */ ,", 1, 9, "expected end of input, found `,`");
        assert_err(
            "coreg(l1)(o)",
            1,
            1,
            "`coreg` needs two or more interactions, found 1",
        );
        assert_err(
            "loopW(o, o)",
            1,
            8,
            "expected `)` (`loopW` takes exactly one interaction), found `,`",
        );
        assert_err(
            "loopP()",
            1,
            1,
            "`loopP` needs exactly one interaction, found none",
        );
    }

    #[test]
    fn unsupported_constructs() {
        assert_err(
            "seq(o,\n  sync(o, o))",
            2,
            3,
            "unsupported construct `sync`",
        );
        assert_err("and(o, o)", 1, 1, "unsupported construct `and`");
        assert_err("seq(o, <synch>)", 1, 8, "unsupported construct `<synch>`");
        assert_err(
            "l1 -- m1 -> <synch> l2",
            1,
            13,
            "unsupported construct `<synch>`",
        );
    }

    #[test]
    fn syntax_errors() {
        assert_err("seq(o, o x)", 1, 10, "expected `,` or `)`, found `x`");
        assert_err(
            "seq(o, o",
            1,
            9,
            "unexpected end of input, expected `,` or `)`",
        );
        assert_err("", 1, 1, "unexpected end of input, expected an interaction");
        assert_err("seq(o,)", 1, 7, "expected an interaction, found `)`");
        assert_err(
            "l1 m1",
            1,
            4,
            "expected `--` or `->` after `l1`, found `m1`",
        );
        assert_err("seq o", 1, 5, "expected `(` after `seq`, found `o`");
        assert_err(
            "l1 -- ->|",
            1,
            7,
            "expected a message name after `--`, found `->`",
        );
        assert_err(
            "l1 -- m1 l2",
            1,
            10,
            "expected `->` after the message, found `l2`",
        );
        assert_err(
            "l1 -- m1 -> ,",
            1,
            13,
            "expected a lifeline name, `(` or `|` after `->`, found `,`",
        );
        assert_err(
            "m1 -> |",
            1,
            7,
            "expected a lifeline name or `(` after `->`, found `|`",
        );
        assert_err("m1 -> (l1 l2)", 1, 11, "expected `,` or `)`, found `l2`");
        assert_err("m1 -> ()", 1, 8, "expected a lifeline name, found `)`");
        assert_err("coreg l1", 1, 7, "expected `(` after `coreg`, found `l1`");
        assert_err(
            "coreg(l1) o",
            1,
            11,
            "expected `(` opening the interactions of `coreg(...)`, found `o`",
        );
        assert_err("coreg()(o, o)", 1, 7, "expected a lifeline name, found `)`");
        assert_err(
            "l1 - m1 ->|",
            1,
            4,
            "expected `--` or `->` after `l1`, found `-`",
        );
        assert_err("seq(o, o)\n/* unterminated", 2, 1, "unterminated comment");
        assert_err("∅∅", 1, 2, "expected end of input, found `∅`");
        assert_err(
            "\u{1}",
            1,
            1,
            "expected an interaction, found character U+0001",
        );
        assert_err("é", 1, 1, "expected an interaction, found `é`");
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let text = "seq(".repeat(100_000);
        let e = err(&text);
        assert_eq!((e.line, e.column), (1, 4 * 10_000 + 1));
        assert_eq!(e.message, "nesting deeper than 10000 levels");
        let text = format!("{}o{}", "loopW(".repeat(10_001), ")".repeat(10_001));
        assert!(err(&text).message.contains("nesting deeper"));
        // Exactly the limit is fine.
        let text = format!(
            "{}l1 -- m1 ->|{}",
            "loopW(".repeat(10_000),
            ")".repeat(10_000)
        );
        let mut s = TermStore::new();
        parse(&text, &mut s);
    }

    #[test]
    fn deep_left_nested_sequences_do_not_recurse() {
        // seq(seq(seq(a, a), a), a)...: right-associating this in the store would recurse as
        // deep as the input.
        let n = 3_000;
        let text = format!(
            "{}l1 -- m1 ->|{}",
            "seq(".repeat(n),
            ", m1 -> l2)".repeat(n)
        );
        let mut s = TermStore::new();
        let t = parse(&text, &mut s);
        assert_eq!(s.depth(t) as usize, n + 1);
        let small = "seq(seq(seq(l1 -- m1 ->|, m1 -> l2), m2 -> l2), m3 -> l3)";
        let flat = "seq(l1 -- m1 ->|, m1 -> l2, m2 -> l2, m3 -> l3)";
        assert_eq!(parse(small, &mut s), parse(flat, &mut s));
    }

    #[test]
    fn real_sample_files() {
        let Some(dir) = multitrace_runtime::testdata::data(
            "hibou-lfrem-sample/gen_ints",
            "HIBOU sample interactions",
        ) else {
            return;
        };
        let Ok(entries) = std::fs::read_dir(&dir) else {
            return;
        };
        let sig_text =
            std::fs::read_to_string(dir.join("../signature.hsf")).expect("signature.hsf");
        let sig0 = super::super::parse_signature("signature.hsf", &sig_text).unwrap();
        let mut count = 0;
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "hif") {
                let text = std::fs::read_to_string(&path).unwrap();
                let mut sig = sig0.clone();
                let mut store = TermStore::new();
                parse_interaction(
                    &path.display().to_string(),
                    &text,
                    &mut sig,
                    false,
                    &mut store,
                )
                .unwrap_or_else(|e| panic!("{e}"));
                count += 1;
            }
        }
        assert!(count > 0);
    }

    #[test]
    fn the_tree_keeps_the_text_as_written() {
        let mut s = sig();
        let text = "seq(seq(l1 -- m1 ->|, o),\n  /* é */ m2 -> (l2, l3), loopW(∅), l1 -- m3 -> l2)";
        let (_, tree) =
            parse_interaction_tree("i.hif", text, &mut s, false, &mut TermStore::new()).unwrap();
        let (l, m) = (LifelineId, MessageId);
        assert_eq!(
            tree.nodes,
            vec![
                SyntaxNode::Message {
                    sender: Some(l(0)),
                    receivers: vec![],
                    message: m(0)
                },
                SyntaxNode::Empty,
                // The inner `seq` stays (the store splices it into the outer one).
                SyntaxNode::Nary {
                    op: Operator::Seq,
                    children: vec![0, 1]
                },
                SyntaxNode::Message {
                    sender: None,
                    receivers: vec![l(1), l(2)],
                    message: m(1)
                },
                SyntaxNode::Empty,
                SyntaxNode::Loop {
                    kind: LoopKind::Weak,
                    body: 4
                },
                SyntaxNode::Message {
                    sender: Some(l(0)),
                    receivers: vec![l(1)],
                    message: m(2)
                },
                SyntaxNode::Nary {
                    op: Operator::Seq,
                    children: vec![2, 3, 5, 6]
                },
            ]
        );
        // Columns count characters (`é` is two bytes).
        assert_eq!(
            tree.positions,
            vec![
                (1, 9),
                (1, 23),
                (1, 5),
                (2, 11),
                (2, 33),
                (2, 27),
                (2, 37),
                (1, 1)
            ]
        );
    }

    const TOKENS: &[&str] = &[
        "seq(", "strict(", "par(", "alt(", "coreg(", "loopS(", "loopH(", "loopW(", "loopP(",
        "sync(", "(", ")", ",", "--", "->", "->|", "|", "-", "<synch>", "<", "o", "∅", "l1", "l2",
        "m1", "m2", "zz", " ", "\n", "/*", "*/", "é", "\0",
    ];

    type Build = fn(&mut TermStore, TermId, TermId) -> TermId;

    /// Random interaction texts over the test signature, rich in ∅ and loops so that the
    /// store's normalizations apply.
    fn interaction_text() -> impl Strategy<Value = String> {
        let leaf = proptest::sample::select(vec![
            "o",
            "l1 -- m1 ->|",
            "m1 -> l2",
            "l2 -- m2 -> (l3, l1)",
            "loopW(l1 -- m1 ->|)",
            "loopS(l1 -- m1 ->|)",
            "loopP(m2 -> l3)",
        ])
        .prop_map(str::to_string);
        leaf.prop_recursive(4, 24, 3, |inner| {
            (
                proptest::sample::select(vec![
                    "strict",
                    "seq",
                    "par",
                    "alt",
                    "coreg(l1)",
                    "loopW",
                    "loopS",
                    "loopP",
                ]),
                proptest::collection::vec(inner, 2..4),
            )
                .prop_map(|(op, kids)| {
                    if op.starts_with("loop") {
                        format!("{op}({})", kids[0])
                    } else {
                        format!("{op}({})", kids.join(", "))
                    }
                })
        })
    }

    proptest! {
        #[test]
        fn nested_sequencing_matches_bottom_up_construction(
            x in interaction_text(),
            y in interaction_text(),
            z in interaction_text(),
            op in 0usize..3,
        ) {
            let (kw, build): (&str, Build) = match op {
                0 => ("strict", TermStore::strict),
                1 => ("seq", TermStore::seq),
                _ => ("par", TermStore::par),
            };
            let mut s = TermStore::new();
            let (px, py, pz) = (parse(&x, &mut s), parse(&y, &mut s), parse(&z, &mut s));
            let xy = build(&mut s, px, py);
            let left = build(&mut s, xy, pz);
            let yz = build(&mut s, py, pz);
            let right = build(&mut s, px, yz);
            prop_assert_eq!(parse(&format!("{kw}({kw}({x}, {y}), {z})"), &mut s), left);
            prop_assert_eq!(parse(&format!("{kw}({x}, {kw}({y}, {z}))"), &mut s), right);
            prop_assert_eq!(parse(&format!("{kw}({x}, {y}, {z})"), &mut s), right);
        }

        #[test]
        fn never_panics_on_mutations(
            at in 0usize..200,
            cut in 0usize..4,
            insert in proptest::sample::select(TOKENS),
            infer in any::<bool>(),
        ) {
            // The real example with a few characters replaced by a token.
            let chars: Vec<char> = REAL.chars().collect();
            let at = at.min(chars.len());
            let end = (at + cut).min(chars.len());
            let text: String = chars[..at]
                .iter()
                .chain(insert.chars().collect::<Vec<_>>().iter())
                .chain(chars[end..].iter())
                .collect();
            let mut s = sig();
            let _ = parse_interaction("f", &text, &mut s, infer, &mut TermStore::new());
        }

        #[test]
        fn the_tree_reader_reads_as_the_plain_reader(
            x in interaction_text(),
            at in 0usize..200,
            insert in proptest::sample::select(TOKENS),
        ) {
            // The same term, names and errors with and without the tree, on valid texts and on
            // texts with a token inserted.
            let chars: Vec<char> = x.chars().collect();
            let at = at.min(chars.len());
            let bad: String = chars[..at].iter().copied().chain(insert.chars()).chain(chars[at..].iter().copied()).collect();
            for text in [x.as_str(), bad.as_str()] {
                let (mut s1, mut s2) = (sig(), sig());
                let (mut t1, mut t2) = (TermStore::new(), TermStore::new());
                let plain = parse_interaction("f", text, &mut s1, true, &mut t1);
                let tree = parse_interaction_tree("f", text, &mut s2, true, &mut t2);
                prop_assert_eq!(plain, tree.as_ref().map(|(t, _)| *t).map_err(Clone::clone));
                prop_assert_eq!(s1.lifelines(), s2.lifelines());
                if let Ok((_, tree)) = tree {
                    prop_assert_eq!(tree.nodes.len(), tree.positions.len());
                    prop_assert!(!tree.nodes.is_empty());
                }
            }
        }

        #[test]
        fn never_panics_on_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..200), infer in any::<bool>()) {
            let text = String::from_utf8_lossy(&bytes);
            let mut s = sig();
            let _ = parse_interaction("f", &text, &mut s, infer, &mut TermStore::new());
        }

        #[test]
        fn never_panics_on_token_soup(
            toks in proptest::collection::vec(proptest::sample::select(TOKENS), 0..80),
            infer in any::<bool>(),
        ) {
            let text = toks.concat();
            let mut s = sig();
            let _ = parse_interaction("f", &text, &mut s, infer, &mut TermStore::new());
        }
    }
}
