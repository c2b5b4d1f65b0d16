//! The interaction of a sequence diagram, built statement by statement: the one place where
//! the mapping rules of Mermaid and PlantUML diagrams live (the two readers only tokenize).
//!
//! Invariants: the open fragments are an explicit stack (no recursion on the input's
//! nesting, at most [`MAX_DIAGRAM_NESTING`] levels); the diagram's statements are weakly
//! sequenced; a message is its emission strictly followed by its reception; names come from
//! [`label_name`] and two different texts giving one name are an error, never merged.

use crate::syntax::{LoopPosition, ParseError};
use multitrace_model::label::label_name;
use multitrace_model::signature::{Action, ActionKind, LifelineId, Signature};
use multitrace_model::term::{LoopKind, TermId, TermStore};
use rustc_hash::FxHashMap;

/// Deepest nesting of fragments (`loop`, `alt`, ...) a diagram may have.
pub const MAX_DIAGRAM_NESTING: usize = 1_000;

/// A fragment of a sequence diagram.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Block {
    /// The diagram itself.
    Diagram,
    /// `loop`: a weak loop (UML: iterations are weakly sequenced).
    Loop,
    /// `alt` / `else`: a choice among the branches.
    Alt,
    /// `opt`: a choice between the body and nothing.
    Opt,
    /// `par` / `and` (PlantUML: `else`): the branches interleaved.
    Par,
    /// `critical` / `option`: the region, or one of its options (a choice).
    Critical,
    /// `break`: the body instead of the rest of the enclosing operand (or diagram).
    Break,
    /// `rect`, `group`: drawing only; the body stays in sequence with its surroundings.
    Group,
    /// `box`: participants drawn together; holds declarations only.
    Box,
}

/// One statement of the current branch.
enum Item {
    Term(TermId),
    /// A `break` body: the choice between it and the rest of the branch.
    Break(TermId),
}

struct Frame {
    block: Block,
    keyword: String,
    line: u32,
    column: u32,
    /// Finished branches.
    branches: Vec<TermId>,
    /// Statements of the current branch.
    items: Vec<Item>,
}

/// Builds an interaction from the statements of a diagram, in their order.
pub(crate) struct Builder<'s> {
    file: String,
    sig: &'s mut Signature,
    infer: bool,
    store: &'s mut TermStore,
    frames: Vec<Frame>,
    loops: Vec<LoopPosition>,
    /// Name -> the text it was made from, per kind (lifelines, messages).
    lifeline_texts: FxHashMap<String, String>,
    message_texts: FxHashMap<String, String>,
    /// The dialect's word for "write this instead" hints (`Mermaid`, `PlantUML`).
    dialect: &'static str,
}

impl<'s> Builder<'s> {
    /// A builder adding names to `sig` (when `infer`; else every name must be in `sig`) and
    /// terms to `store`.
    pub fn new(
        dialect: &'static str,
        file: &str,
        sig: &'s mut Signature,
        infer: bool,
        store: &'s mut TermStore,
    ) -> Self {
        Builder {
            file: file.to_string(),
            sig,
            infer,
            store,
            frames: vec![Frame {
                block: Block::Diagram,
                keyword: String::new(),
                line: 1,
                column: 1,
                branches: Vec::new(),
                items: Vec::new(),
            }],
            loops: Vec::new(),
            lifeline_texts: FxHashMap::default(),
            message_texts: FxHashMap::default(),
            dialect,
        }
    }

    /// An error at `line:column` of the diagram.
    pub fn error(&self, line: u32, column: u32, message: impl Into<String>) -> ParseError {
        ParseError {
            file: self.file.clone(),
            line,
            column,
            message: message.into(),
        }
    }

    /// The name `text` gives, checked against the other texts of its kind.
    fn name(&mut self, text: &str, lifeline: bool, at: (u32, u32)) -> Result<String, ParseError> {
        let what = if lifeline {
            "participant"
        } else {
            "message label"
        };
        let Some(name) = label_name(text) else {
            return Err(self.error(
                at.0,
                at.1,
                format!("{what} `{text}` has no letter or digit to name it by: write a name such as `m1`"),
            ));
        };
        let texts = if lifeline {
            &mut self.lifeline_texts
        } else {
            &mut self.message_texts
        };
        match texts.get(&name) {
            Some(first) if first != text => Err(ParseError {
                file: self.file.clone(),
                line: at.0,
                column: at.1,
                message: format!(
                    "{what} `{text}` and {what} `{first}` both give the name `{name}` (names keep letters, digits and `_`, other characters become `_`): rename one"
                ),
            }),
            Some(_) => Ok(name),
            None => {
                texts.insert(name.clone(), text.to_string());
                Ok(name)
            }
        }
    }

    /// Declares (or looks up) the lifeline of participant `text` at `line:column`.
    pub fn participant(
        &mut self,
        text: &str,
        line: u32,
        column: u32,
    ) -> Result<LifelineId, ParseError> {
        let name = self.name(text, true, (line, column))?;
        match self.sig.lifeline(&name) {
            Some(l) => Ok(l),
            None if self.infer => self
                .sig
                .add_lifeline(&name)
                .map_err(|e| self.error(line, column, e.to_string())),
            None => Err(self.error(
                line,
                column,
                format!(
                    "unknown lifeline `{name}`: the signature declares {}",
                    multitrace_model::syntax::name_list(self.sig.lifelines())
                ),
            )),
        }
    }

    /// A message from `from` to `to` (`None`: the environment), labelled `label` at
    /// `label_at`; the statement starts at `at`.
    pub fn message(
        &mut self,
        from: Option<LifelineId>,
        to: Option<LifelineId>,
        label: &str,
        at: (u32, u32),
        label_at: (u32, u32),
    ) -> Result<(), ParseError> {
        let label = label.trim();
        if label.is_empty() {
            let hint = if self.dialect == "Mermaid" {
                "A->>B: request"
            } else {
                "A -> B : request"
            };
            return Err(self.error(
                at.0,
                at.1,
                format!("a message needs a label: its message name (write `{hint}`)"),
            ));
        }
        let name = self.name(label, false, label_at)?;
        let m = match self.sig.message(&name) {
            Some(m) => m,
            None if self.infer => self.sig.add_message(&name),
            None => {
                return Err(self.error(
                    label_at.0,
                    label_at.1,
                    format!(
                        "unknown message `{name}`: the signature declares {}",
                        multitrace_model::syntax::name_list(self.sig.messages())
                    ),
                ))
            }
        };
        let act = |store: &mut TermStore, l: LifelineId, kind| {
            store.act(Action {
                lifeline: l,
                kind,
                message: m,
            })
        };
        let term = match (from, to) {
            (Some(a), Some(b)) => {
                let e = act(self.store, a, ActionKind::Emission);
                let r = act(self.store, b, ActionKind::Reception);
                self.store.strict(e, r)
            }
            (Some(a), None) => act(self.store, a, ActionKind::Emission),
            (None, Some(b)) => act(self.store, b, ActionKind::Reception),
            (None, None) => {
                return Err(self.error(
                    at.0,
                    at.1,
                    "a message needs a sender or a receiver that is a participant",
                ))
            }
        };
        self.push_term(term, at)
    }

    fn push_term(&mut self, term: TermId, at: (u32, u32)) -> Result<(), ParseError> {
        let top = self.frames.last_mut().expect("the diagram frame");
        if top.block == Block::Box {
            return Err(ParseError {
                file: self.file.clone(),
                line: at.0,
                column: at.1,
                message: format!(
                    "a message inside `{}` (opened at {}:{}): a box holds participant declarations only; close it with `end` first",
                    top.keyword, top.line, top.column
                ),
            });
        }
        top.items.push(Item::Term(term));
        Ok(())
    }

    /// Whether the innermost open fragment is a `box`.
    pub fn in_box(&self) -> bool {
        self.frames.last().is_some_and(|f| f.block == Block::Box)
    }

    /// Opens a fragment whose keyword `keyword` is at `line:column`.
    pub fn open(
        &mut self,
        block: Block,
        keyword: &str,
        line: u32,
        column: u32,
    ) -> Result<(), ParseError> {
        if self.frames.len() > MAX_DIAGRAM_NESTING {
            return Err(self.error(
                line,
                column,
                format!("fragments nested deeper than {MAX_DIAGRAM_NESTING} levels"),
            ));
        }
        if self.in_box() {
            return Err(self.error(
                line,
                column,
                format!("`{keyword}` inside a box: a box holds participant declarations only"),
            ));
        }
        match block {
            Block::Break => {
                // UML: the break's operand is done instead of the rest of the enclosing
                // fragment's operand (`alt`, `opt`, `par`, `critical`, another `break`, or
                // the diagram): `alt(body, rest)` there. Inside a loop it is read either as
                // leaving the loop or as ending one iteration: refused, never guessed.
                let enclosing = self
                    .frames
                    .iter()
                    .rev()
                    .find(|f| !matches!(f.block, Block::Group | Block::Box));
                if let Some(outer) = enclosing.filter(|f| f.block == Block::Loop) {
                    return Err(self.error(
                        line,
                        column,
                        format!(
                            "`{keyword}` inside `{}` (opened at {}:{}) cannot be read: a break in a loop is read both as leaving the loop and as ending one iteration; to leave the loop write the loop without the break, then `opt` holding one last iteration up to the break and the break's messages; to end one iteration write `alt` with the break's messages in one branch and the rest of the iteration in the other",
                            outer.keyword, outer.line, outer.column
                        ),
                    ));
                }
            }
            Block::Critical => {
                if let Some(par) = self.frames.iter().find(|f| f.block == Block::Par) {
                    return Err(self.error(
                        line,
                        column,
                        format!(
                            "`{keyword}` inside `{}` (opened at {}:{}) cannot be read: interactions have no atomic region to keep the parallel branches out of it; move the critical region out of the parallel fragment, or write its messages without `{keyword}` if they may interleave",
                            par.keyword, par.line, par.column
                        ),
                    ));
                }
            }
            _ => {}
        }
        self.frames.push(Frame {
            block,
            keyword: keyword.to_string(),
            line,
            column,
            branches: Vec::new(),
            items: Vec::new(),
        });
        Ok(())
    }

    /// A branch separator (`else`, `and`, `option`) at `line:column`: accepted by the
    /// fragments in `accepted`.
    pub fn separator(
        &mut self,
        keyword: &str,
        accepted: &[Block],
        line: u32,
        column: u32,
    ) -> Result<(), ParseError> {
        let (block, top_keyword) = {
            let top = self.frames.last().expect("the diagram frame");
            (top.block, top.keyword.clone())
        };
        if !accepted.contains(&block) || block == Block::Diagram {
            let inside = if block == Block::Diagram {
                "outside any fragment".to_string()
            } else {
                format!("inside `{top_keyword}`")
            };
            return Err(self.error(
                line,
                column,
                format!(
                    "`{keyword}` {inside}: it separates the branches of {}",
                    fragment_names(accepted)
                ),
            ));
        }
        let body = self.fold_items();
        self.frames
            .last_mut()
            .expect("a fragment")
            .branches
            .push(body);
        Ok(())
    }

    /// Closes the innermost fragment (`end` at `line:column`).
    pub fn close(&mut self, line: u32, column: u32) -> Result<(), ParseError> {
        if self.frames.len() == 1 {
            return Err(self.error(line, column, "`end` without an open fragment"));
        }
        if let Some(top) = self.frames.last() {
            if matches!(top.block, Block::Group | Block::Box) {
                // Drawing only: the statements join the enclosing branch as they are.
                let frame = self.frames.pop().expect("a fragment");
                let parent = self.frames.last_mut().expect("the diagram frame");
                parent.items.extend(frame.items);
                return Ok(());
            }
        }
        let body = self.fold_items();
        let mut frame = self.frames.pop().expect("a fragment");
        frame.branches.push(body);
        let parent = self.frames.last_mut().expect("the diagram frame");
        let store = &mut *self.store;
        let item = match frame.block {
            Block::Diagram | Block::Box | Block::Group => return Ok(()),
            Block::Loop => {
                let t = store.repeat(LoopKind::Weak, body);
                self.loops.push((t, frame.line, frame.column));
                Item::Term(t)
            }
            Block::Opt => Item::Term(store.alt(body, TermId::EMPTY)),
            Block::Alt | Block::Critical => {
                let mut acc = frame.branches.pop().unwrap_or(TermId::EMPTY);
                while let Some(b) = frame.branches.pop() {
                    acc = store.alt(b, acc);
                }
                Item::Term(acc)
            }
            Block::Par => {
                let mut acc = frame.branches.pop().unwrap_or(TermId::EMPTY);
                while let Some(b) = frame.branches.pop() {
                    acc = store.par(b, acc);
                }
                Item::Term(acc)
            }
            Block::Break => Item::Break(body),
        };
        parent.items.push(item);
        Ok(())
    }

    /// The current branch's statements, weakly sequenced, a `break` choosing between its body
    /// and the rest; the branch is emptied.
    fn fold_items(&mut self) -> TermId {
        let items = std::mem::take(&mut self.frames.last_mut().expect("a frame").items);
        let mut acc = TermId::EMPTY;
        for item in items.into_iter().rev() {
            acc = match item {
                Item::Term(t) => self.store.seq(t, acc),
                Item::Break(b) => self.store.alt(b, acc),
            };
        }
        acc
    }

    /// The interaction and its loops, once every statement was given; `end` is where the
    /// diagram ends (for the error on a fragment left open).
    pub fn finish(mut self) -> Result<(TermId, Vec<LoopPosition>), ParseError> {
        if let Some(open) = self.frames.get(1) {
            return Err(self.error(
                open.line,
                open.column,
                format!(
                    "`{}` is not closed: add `end` after its last statement",
                    open.keyword
                ),
            ));
        }
        let root = self.fold_items();
        Ok((root, self.loops))
    }
}

/// The first word of a statement `s` and the rest (trimmed): Mermaid and PlantUML alike.
pub(super) fn first_word(s: &str) -> (&str, &str) {
    match s.find(char::is_whitespace) {
        Some(i) => (&s[..i], s[i..].trim()),
        None => (s, ""),
    }
}

/// Column of `part` (a subslice of `stmt`, which starts at `column`).
pub(super) fn column_of(stmt: &str, column: u32, part: &str) -> u32 {
    let off = (part.as_ptr() as usize).saturating_sub(stmt.as_ptr() as usize);
    column + stmt.get(..off).map_or(0, |s| s.chars().count()) as u32
}

/// "`alt`, `par`" for the fragments a separator belongs to.
fn fragment_names(blocks: &[Block]) -> String {
    let names: Vec<&str> = blocks
        .iter()
        .map(|b| match b {
            Block::Alt => "`alt`",
            Block::Par => "`par`",
            Block::Critical => "`critical`",
            _ => "a fragment",
        })
        .collect();
    names.join(" and ")
}
