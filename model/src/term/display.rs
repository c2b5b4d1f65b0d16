//! Rendering terms in `.hif` syntax.

use super::store::{Term, TermId, TermStore};
use crate::signature::{ActionKind, Signature};
use std::fmt;

/// Displays a term in `.hif` syntax (one line, binary operators).
pub struct TermDisplay<'a> {
    /// The store holding the term.
    pub store: &'a TermStore,
    /// Names of lifelines and messages.
    pub signature: &'a Signature,
    /// The term.
    pub term: TermId,
}

impl fmt::Display for TermDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Iterative to survive deep terms: a stack of pending pieces.
        enum Item {
            Term(TermId),
            Text(&'static str),
        }
        let mut stack = vec![Item::Term(self.term)];
        while let Some(item) = stack.pop() {
            let t = match item {
                Item::Text(s) => {
                    f.write_str(s)?;
                    continue;
                }
                Item::Term(t) => t,
            };
            match self.store.get(t) {
                Term::Empty => f.write_str("o")?,
                Term::Act(a) => {
                    let l = self.signature.lifeline_name(a.lifeline);
                    let m = self.signature.message_name(a.message);
                    match a.kind {
                        ActionKind::Emission => write!(f, "{l} -- {m} ->|")?,
                        ActionKind::Reception => write!(f, "{m} -> {l}")?,
                    }
                }
                Term::Loop(k, x) => {
                    write!(f, "{}(", k.keyword())?;
                    stack.push(Item::Text(")"));
                    stack.push(Item::Term(x));
                }
                Term::Coreg(s, x, y) => {
                    let names: Vec<&str> =
                        s.iter().map(|l| self.signature.lifeline_name(l)).collect();
                    write!(f, "coreg({})(", names.join(","))?;
                    stack.push(Item::Text(")"));
                    stack.push(Item::Term(y));
                    stack.push(Item::Text(", "));
                    stack.push(Item::Term(x));
                }
                Term::Strict(x, y) | Term::Seq(x, y) | Term::Par(x, y) | Term::Alt(x, y) => {
                    let name = match self.store.get(t) {
                        Term::Strict(..) => "strict(",
                        Term::Seq(..) => "seq(",
                        Term::Par(..) => "par(",
                        _ => "alt(",
                    };
                    f.write_str(name)?;
                    stack.push(Item::Text(")"));
                    stack.push(Item::Term(y));
                    stack.push(Item::Text(", "));
                    stack.push(Item::Term(x));
                }
            }
        }
        Ok(())
    }
}
