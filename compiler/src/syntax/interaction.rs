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

use multitrace_model::signature::{
    Action, ActionKind, LifelineId, LifelineSet, MessageId, Signature,
};
mod tree;

use multitrace_model::syntax::hibou::{self, Dialect, Tok, Token};
use multitrace_model::syntax::{name_list, Cursor, ParseError};
use multitrace_model::term::{LoopKind, Term, TermId, TermStore};
use tree::{NoTree, Record, TreeBuilder};
pub use tree::{Operator, SyntaxNode, SyntaxTree};

/// Deepest nesting of operators the `.hif` reader accepts.
pub const MAX_NESTING: usize = 10_000;

/// `.hif`'s HIBOU tokens: `--`, `->` and `<word>` besides the shared ones.
struct Hif;

impl Dialect for Hif {
    const ARROWS: bool = true;

    /// An `<...>` construct is reported as unsupported.
    fn expected(c: &Cursor<'_>, tok: &Token<'_>, what: &str) -> ParseError {
        match tok.kind {
            Tok::Angle => unsupported(c, tok),
            _ => c.expected_found(tok.start, what, hibou::found(tok).as_deref()),
        }
    }
}

type Lexer<'a> = hibou::Lexer<'a, Hif>;

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
                    .cursor()
                    .error(tok.start, format!("lifeline `{name}`: {e}"))
            });
        }
        Err(self.lx.cursor().error(
            tok.start,
            format!(
                "unknown lifeline `{name}`; {}declared lifelines: {}",
                multitrace_model::suggest::did_you_mean(
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
        Err(self.lx.cursor().error(
            tok.start,
            format!(
                "unknown message `{name}`; {}declared messages: {}",
                multitrace_model::suggest::did_you_mean(
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
                        (Tok::LParen, None) => return Err(unsupported(self.lx.cursor(), &tok)),
                        (Tok::LParen, Some(kw)) => {
                            if stack.len() >= MAX_NESTING {
                                return Err(self.lx.cursor().error(
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
                            too_few(self.lx.cursor(), keyword, 0)
                        }
                        Some(Frame::Loop { keyword, .. }) => self.lx.cursor().error(
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
                            return Err(too_few(self.lx.cursor(), &keyword, count));
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
        .zip(p.lx.cursor().line_columns(&offsets))
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
            positions: p.lx.cursor().line_columns(&tree.offsets),
            nodes: tree.nodes,
        },
    ))
}

#[cfg(test)]
mod tests;
