//! Reader of multitrace files (`.htf`).
//!
//! ```text
//! {
//!   [l1] l1!m1.l1?m2;
//!   [l2,l3] l2!m.l3?m;
//!   [l4]
//! }
//! ```
//!
//! Components are separated by `;` (a trailing `;` is allowed); each one lists its lifelines
//! in brackets (`[#all]` is every lifeline of the signature) followed by its local trace,
//! actions `l!m` / `l?m` joined by `.`, written as nothing when empty. Whitespace and `/* */`
//! comments may appear between any two tokens. Lifelines of the signature that no component
//! lists get an empty singleton component.

mod fast;

use multitrace_model::multitrace::{Component, Multitrace};
use multitrace_model::signature::{Action, ActionKind, LifelineId, LifelineSet, Signature};
use multitrace_model::syntax::hibou::{self, Dialect, Tok, Token};
use multitrace_model::syntax::{name_list, Cursor, ParseError};

/// `.htf`'s HIBOU tokens: `#all` besides the shared ones.
struct Htf;

impl Dialect for Htf {
    const ALL: bool = true;

    /// A run of identifier characters reads better whole (`1abc`, not `1`).
    fn found(c: &Cursor<'_>, tok: &Token<'_>) -> Option<String> {
        let word = c.word_at(tok.start);
        match word.get(..word.len().min(40)) {
            Some(word) if word.len() > tok.text.len() => Some(format!("`{word}`")),
            _ => hibou::found(tok),
        }
    }
}

type Lexer<'a> = hibou::Lexer<'a, Htf>;

/// Reads a multitrace (`.htf`) over the names of `sig`.
///
/// Returns the multitrace, completed with an empty singleton component for every lifeline of
/// `sig` that no component lists, and a display name per component (its lifelines joined by
/// `,`, as written). `file` names the input in errors. Never panics; every error carries the
/// line and column of the offending text.
pub fn parse_htf(
    file: &str,
    text: &str,
    sig: &Signature,
) -> Result<(Multitrace, Vec<String>), ParseError> {
    let (mt, names) = match fast::parse(text, sig) {
        Some(read) => read,
        None => parse_htf_exact(file, text, sig)?,
    };
    Ok(complete(mt, names, sig))
}

/// Adds an empty singleton component for every lifeline of `sig` that no component of `mt`
/// lists, and its display name.
fn complete(
    mut mt: Multitrace,
    mut names: Vec<String>,
    sig: &Signature,
) -> (Multitrace, Vec<String>) {
    mt.complete_with(sig.all_lifelines());
    for c in mt.components.iter().skip(names.len()) {
        names.push(
            c.lifelines
                .iter()
                .map(|l| sig.lifelines().get(l.index()).map_or("?", String::as_str))
                .collect::<Vec<_>>()
                .join(","),
        );
    }
    (mt, names)
}

/// [`parse_htf`] token by token on the [`Cursor`], before completion: every input, every
/// error with its position.
fn parse_htf_exact(
    file: &str,
    text: &str,
    sig: &Signature,
) -> Result<(Multitrace, Vec<String>), ParseError> {
    let mut lx = Lexer::new(file, text);
    let open = lx.next()?;
    match open.kind {
        Tok::LBrace => {}
        Tok::Eof => {
            return Err(lx.error(
                open.start,
                "empty file: expected a multitrace `{ [l1] l1!m1.l1?m2; [l2] ... }`",
            ))
        }
        _ => return Err(lx.expected(&open, "`{` opening the multitrace")),
    }
    let mut mt = Multitrace::default();
    let mut names: Vec<String> = Vec::new();
    // Byte offset of the `[` of each component, to point back at it.
    let mut component_at: Vec<usize> = Vec::new();
    loop {
        // A component or the closing brace (empty multitrace, or after a trailing `;`).
        let tok = lx.next()?;
        match tok.kind {
            Tok::RBrace => break,
            Tok::LBracket => {}
            _ => return Err(lx.expected(&tok, "`[` opening a component or `}`")),
        }
        let bracket = tok.start;
        let (lifelines, name) = component_lifelines(&mut lx, sig, &mt, &names, &component_at)?;
        // The local trace: nothing, or actions joined by `.`.
        let mut trace = Vec::new();
        if lx.peek()?.kind == Tok::Ident {
            loop {
                trace.push(action(&mut lx, sig, lifelines, &name)?);
                if lx.peek()?.kind == Tok::Dot {
                    lx.next()?;
                } else {
                    break;
                }
            }
        }
        mt.components.push(Component { lifelines, trace });
        names.push(name);
        component_at.push(bracket);
        let sep = lx.next()?;
        match sep.kind {
            Tok::Semi => {}
            Tok::RBrace => break,
            _ if trace_ended_early(&sep) => {
                return Err(lx.expected(&sep, "`.` and an action, `;` or `}`"))
            }
            _ => return Err(lx.expected(&sep, "`;` or `}`")),
        }
    }
    let end = lx.next()?;
    if end.kind != Tok::Eof {
        return Err(lx.expected(&end, "end of input after the closing `}`"));
    }
    Ok((mt, names))
}

/// Whether a token after a component could only have continued its trace.
fn trace_ended_early(tok: &Token<'_>) -> bool {
    matches!(tok.kind, Tok::Ident | Tok::Bang | Tok::Question)
}

/// `l1,l2]` or `#all]` after the `[` of a component: its lifelines and display name.
fn component_lifelines(
    lx: &mut Lexer<'_>,
    sig: &Signature,
    mt: &Multitrace,
    names: &[String],
    component_at: &[usize],
) -> Result<(LifelineSet, String), ParseError> {
    let taken = mt.lifelines();
    // Where lifeline `l` was listed before, for the error message (positions from a copy of
    // the cursor, which the closure keeps while `lx` moves on).
    let here = *lx.cursor();
    let owner = |l: LifelineId| -> String {
        match mt.components.iter().position(|c| c.lifelines.contains(l)) {
            Some(k) => {
                let name = names.get(k).map_or("", String::as_str);
                match component_at.get(k) {
                    Some(&at) => format!("component [{name}] at {}", here.position(at)),
                    None => format!("component [{name}]"),
                }
            }
            None => "another component".to_string(),
        }
    };
    let first = lx.next()?;
    if first.kind == Tok::All {
        lx.expect(Tok::RBracket, "`]` after `#all`")?;
        let all = sig.all_lifelines();
        if all.is_empty() {
            return Err(lx.error(
                first.start,
                "`[#all]` is empty: the signature declares no lifelines",
            ));
        }
        if let Some(l) = all.inter(taken).iter().next() {
            let name = sig.lifelines().get(l.index()).map_or("?", String::as_str);
            return Err(lx.error(
                first.start,
                format!(
                    "`#all` includes lifeline `{name}`, which is already in {}",
                    owner(l)
                ),
            ));
        }
        return Ok((all, sig.lifelines().join(",")));
    }
    let mut set = LifelineSet::EMPTY;
    let mut written: Vec<&str> = Vec::new();
    let mut tok = first;
    loop {
        if tok.kind != Tok::Ident {
            let what = if written.is_empty() {
                "a lifeline name or `#all`"
            } else {
                "a lifeline name"
            };
            return Err(lx.expected(&tok, what));
        }
        let Some(l) = sig.lifeline(tok.text) else {
            return Err(lx.error(
                tok.start,
                format!(
                    "unknown lifeline `{}`; {}declared lifelines: {}",
                    tok.text,
                    multitrace_model::suggest::did_you_mean(
                        tok.text,
                        sig.lifelines().iter().map(String::as_str)
                    ),
                    name_list(sig.lifelines())
                ),
            ));
        };
        if set.contains(l) {
            return Err(lx.error(
                tok.start,
                format!("lifeline `{}` is listed twice in this component", tok.text),
            ));
        }
        if taken.contains(l) {
            return Err(lx.error(
                tok.start,
                format!(
                    "lifeline `{}` is already in {}; a lifeline belongs to one component",
                    tok.text,
                    owner(l)
                ),
            ));
        }
        set.insert(l);
        written.push(tok.text);
        let sep = lx.next()?;
        match sep.kind {
            Tok::Comma => tok = lx.next()?,
            Tok::RBracket => break,
            _ => return Err(lx.expected(&sep, "`,` or `]`")),
        }
    }
    Ok((set, written.join(",")))
}

/// One action `l!m` or `l?m` of a component over `lifelines` (display name `name`).
fn action(
    lx: &mut Lexer<'_>,
    sig: &Signature,
    lifelines: LifelineSet,
    name: &str,
) -> Result<Action, ParseError> {
    let ltok = lx.expect(Tok::Ident, "an action `l!m` or `l?m`")?;
    let ktok = lx.next()?;
    let kind = match ktok.kind {
        Tok::Bang => ActionKind::Emission,
        Tok::Question => ActionKind::Reception,
        _ => return Err(lx.expected(&ktok, &format!("`!` or `?` after lifeline `{}`", ltok.text))),
    };
    let mtok = lx.expect(Tok::Ident, "a message name")?;
    let Some(lifeline) = sig.lifeline(ltok.text) else {
        return Err(lx.error(
            ltok.start,
            format!(
                "unknown lifeline `{}`; {}declared lifelines: {}",
                ltok.text,
                multitrace_model::suggest::did_you_mean(
                    ltok.text,
                    sig.lifelines().iter().map(String::as_str)
                ),
                name_list(sig.lifelines())
            ),
        ));
    };
    let Some(message) = sig.message(mtok.text) else {
        return Err(lx.error(
            mtok.start,
            format!(
                "unknown message `{}`; {}declared messages: {}",
                mtok.text,
                multitrace_model::suggest::did_you_mean(
                    mtok.text,
                    sig.messages().iter().map(String::as_str)
                ),
                name_list(sig.messages())
            ),
        ));
    };
    if !lifelines.contains(lifeline) {
        return Err(lx.error(
            ltok.start,
            format!(
                "action `{}{}{}` is on lifeline {}, which is not in this component [{name}]",
                ltok.text, ktok.text, mtok.text, ltok.text
            ),
        ));
    }
    Ok(Action {
        lifeline,
        kind,
        message,
    })
}

#[cfg(test)]
mod tests;
