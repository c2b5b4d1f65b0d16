//! Interactions written as sequence diagrams (Mermaid, PlantUML): the terms a diagram can
//! show, and the refusal, with what to do instead, of those it cannot.
//!
//! What is written reads back to the same term (the readers' rules, inverted): a message is
//! `strict(l!m, l'?m)`, weak sequencing is the order of statements, `alt` with the empty
//! interaction is `opt`, `par` and weak loops are `par` and `loop`. Strict sequencing of
//! anything else, co-regions, broadcasts and other loops have no diagram form and are errors,
//! never drawn approximately.

use multitrace_model::label::label_name;
use multitrace_model::signature::{ActionKind, LifelineId, MessageId, Signature};
use multitrace_model::term::{LoopKind, Term, TermId, TermStore};
use std::fmt;

/// Deepest term written (the writer recurses on the term's nesting).
pub const MAX_WRITE_DEPTH: u32 = 2_000;

/// Why an interaction cannot be written as a diagram.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DrawError {
    /// `strict(x, y)` other than a message.
    Strict,
    /// A co-region.
    Coreg,
    /// A message to several lifelines.
    Broadcast(String),
    /// A loop other than the weak loop.
    Loop(LoopKind),
    /// A message to or from the environment (Mermaid has none).
    Environment {
        /// The diagram language.
        dialect: &'static str,
    },
    /// A name the diagram language cannot hold as it is.
    Name {
        /// `lifeline` or `message`.
        what: &'static str,
        /// The name.
        name: String,
        /// The diagram language.
        dialect: &'static str,
    },
    /// Nesting deeper than [`MAX_WRITE_DEPTH`].
    TooDeep,
    /// The model is a raw automaton: it has no interaction to write.
    NotAnInteraction,
}

impl fmt::Display for DrawError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DrawError::Strict => f.write_str(
                "the interaction uses strict sequencing between fragments, which sequence diagrams do not show (they sequence weakly): draw it as SVG (`draw MODEL`) or write `seq` for `strict`",
            ),
            DrawError::Coreg => f.write_str(
                "the interaction has a co-region (`coreg`), which these sequence diagrams cannot show: draw it as SVG (`draw MODEL`)",
            ),
            DrawError::Broadcast(m) => write!(
                f,
                "message `{m}` is broadcast to several lifelines, which a diagram arrow cannot show: write one message per receiver, or draw it as SVG (`draw MODEL`)"
            ),
            DrawError::Loop(k) => write!(
                f,
                "the interaction has a `{}` loop; a diagram's `loop` is a weak loop (`loopW`): write `loopW`, or draw it as SVG (`draw MODEL`)",
                k.keyword()
            ),
            DrawError::Environment { dialect } => write!(
                f,
                "the interaction has a message to or from the environment, which {dialect} cannot show: draw it with --plantuml (`[-> A`, `A ->]`) or as SVG"
            ),
            DrawError::Name { what, name, dialect } => write!(
                f,
                "{what} `{name}` cannot be written in {dialect} as it is (a keyword, or not a name of letters, digits and `_`): rename it in the model"
            ),
            DrawError::NotAnInteraction => f.write_str(
                "this model is a raw automaton, not an interaction: it has no sequence diagram",
            ),
            DrawError::TooDeep => write!(
                f,
                "the interaction nests deeper than {MAX_WRITE_DEPTH} operators, too deep to draw"
            ),
        }
    }
}

impl std::error::Error for DrawError {}

/// A fragment kind a diagram shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fragment {
    Loop,
    Opt,
    Alt,
    Par,
}

/// A statement of a diagram.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Piece {
    /// A message (`None`: the environment).
    Message {
        from: Option<LifelineId>,
        to: Option<LifelineId>,
        message: MessageId,
    },
    /// A fragment and its branches.
    Fragment {
        kind: Fragment,
        branches: Vec<Vec<Piece>>,
    },
}

/// Operands of the `alt` (or `par`) chain `t`.
fn chain(store: &TermStore, t: TermId, alt: bool) -> Vec<TermId> {
    let mut out = Vec::new();
    let mut t = t;
    loop {
        match (alt, store.get(t)) {
            (true, Term::Alt(a, b)) | (false, Term::Par(a, b)) => {
                out.push(a);
                t = b;
            }
            _ => {
                out.push(t);
                return out;
            }
        }
    }
}

/// The statements of `t`, in order (weak sequencing is their order).
pub(crate) fn pieces(store: &TermStore, t: TermId) -> Result<Vec<Piece>, DrawError> {
    if store.depth(t) > MAX_WRITE_DEPTH {
        return Err(DrawError::TooDeep);
    }
    let mut out = Vec::new();
    let mut t = t;
    loop {
        match store.get(t) {
            Term::Seq(a, b) => {
                piece(store, a, &mut out)?;
                t = b;
            }
            _ => {
                piece(store, t, &mut out)?;
                return Ok(out);
            }
        }
    }
}

fn piece(store: &TermStore, t: TermId, out: &mut Vec<Piece>) -> Result<(), DrawError> {
    let fragment = |kind, ts: &[TermId]| -> Result<Piece, DrawError> {
        let branches = ts
            .iter()
            .map(|&b| pieces(store, b))
            .collect::<Result<_, _>>()?;
        Ok(Piece::Fragment { kind, branches })
    };
    match store.get(t) {
        Term::Empty => {}
        Term::Seq(..) => out.extend(pieces(store, t)?),
        Term::Act(a) => out.push(match a.kind {
            ActionKind::Emission => Piece::Message {
                from: Some(a.lifeline),
                to: None,
                message: a.message,
            },
            ActionKind::Reception => Piece::Message {
                from: None,
                to: Some(a.lifeline),
                message: a.message,
            },
        }),
        Term::Strict(e, r) => match (store.get(e), store.get(r)) {
            (Term::Act(e), Term::Act(r))
                if e.kind == ActionKind::Emission
                    && r.kind == ActionKind::Reception
                    && e.message == r.message =>
            {
                out.push(Piece::Message {
                    from: Some(e.lifeline),
                    to: Some(r.lifeline),
                    message: e.message,
                })
            }
            (Term::Act(e), Term::Par(..)) if e.kind == ActionKind::Emission => {
                return Err(DrawError::Broadcast(format!("#{}", e.message.0)))
            }
            _ => return Err(DrawError::Strict),
        },
        Term::Alt(..) => {
            let ops = chain(store, t, true);
            let rest: Vec<TermId> = ops
                .iter()
                .copied()
                .filter(|&o| o != TermId::EMPTY)
                .collect();
            if rest.len() < ops.len() {
                let body = match rest.as_slice() {
                    [one] => pieces(store, *one)?,
                    _ => vec![fragment(Fragment::Alt, &rest)?],
                };
                out.push(Piece::Fragment {
                    kind: Fragment::Opt,
                    branches: vec![body],
                });
            } else {
                out.push(fragment(Fragment::Alt, &ops)?);
            }
        }
        Term::Par(..) => out.push(fragment(Fragment::Par, &chain(store, t, false))?),
        Term::Loop(LoopKind::Weak, b) => out.push(fragment(Fragment::Loop, &[b])?),
        Term::Loop(k, _) => return Err(DrawError::Loop(k)),
        Term::Coreg(..) => return Err(DrawError::Coreg),
    }
    Ok(())
}

/// A name the dialect can write as it is: an identifier ([`label_name`] gives it back) that is
/// not one of `keywords`.
pub(crate) fn check_name(
    name: &str,
    what: &'static str,
    dialect: &'static str,
    keywords: &[&str],
) -> Result<(), DrawError> {
    let ok = label_name(name).as_deref() == Some(name)
        && !keywords.iter().any(|k| k.eq_ignore_ascii_case(name));
    if ok {
        Ok(())
    } else {
        Err(DrawError::Name {
            what,
            name: name.to_string(),
            dialect,
        })
    }
}

/// How a dialect writes a diagram.
pub(crate) struct Style {
    pub dialect: &'static str,
    pub keywords: &'static [&'static str],
    pub header: &'static str,
    pub footer: &'static str,
    pub participant: &'static str,
    /// Separators of `alt` and `par` branches.
    pub separators: [&'static str; 2],
    /// A message line (without indentation), `None` when the dialect cannot write it.
    pub message: fn(Option<&str>, Option<&str>, &str) -> Option<String>,
}

/// Writes `root` in `style`: every lifeline of `sig` declared in order, then the statements.
pub(crate) fn render(
    store: &TermStore,
    sig: &Signature,
    root: TermId,
    style: &Style,
) -> Result<String, DrawError> {
    let body = pieces(store, root)?;
    let mut out = String::from(style.header);
    for name in sig.lifelines() {
        check_name(name, "lifeline", style.dialect, style.keywords)?;
        out.push_str(&format!("    {} {name}\n", style.participant));
    }
    for m in sig.messages() {
        check_name(m, "message", style.dialect, &[])?;
    }
    write_pieces(sig, &body, 1, style, &mut out)?;
    out.push_str(style.footer);
    Ok(out)
}

fn write_pieces(
    sig: &Signature,
    items: &[Piece],
    depth: usize,
    style: &Style,
    out: &mut String,
) -> Result<(), DrawError> {
    let pad = "    ".repeat(depth);
    for p in items {
        match p {
            Piece::Message { from, to, message } => {
                let line = (style.message)(
                    from.map(|l| sig.lifeline_name(l)),
                    to.map(|l| sig.lifeline_name(l)),
                    sig.message_name(*message),
                )
                .ok_or(DrawError::Environment {
                    dialect: style.dialect,
                })?;
                out.push_str(&format!("{pad}{line}\n"));
            }
            Piece::Fragment { kind, branches } => {
                let (open, sep) = match kind {
                    Fragment::Loop => ("loop", ""),
                    Fragment::Opt => ("opt", ""),
                    Fragment::Alt => ("alt", style.separators[0]),
                    Fragment::Par => ("par", style.separators[1]),
                };
                out.push_str(&format!("{pad}{open}\n"));
                for (k, b) in branches.iter().enumerate() {
                    if k > 0 {
                        out.push_str(&format!("{pad}{sep}\n"));
                    }
                    write_pieces(sig, b, depth + 1, style, out)?;
                }
                out.push_str(&format!("{pad}end\n"));
            }
        }
    }
    Ok(())
}
