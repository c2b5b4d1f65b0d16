//! PlantUML sequence diagrams: the reader and the writer.
//!
//! The reader has two stages: [`lines`] turns the text into statements (comments, drawing
//! blocks, `\\` continuations), then each statement becomes [`Builder`] calls here, the
//! message syntax being [`arrow`]'s. What each statement means is [`super`]'s table.
//!
//! Invariants: a line that reads as a whole message is a message, whatever its first word
//! (`Scale -> B : m`); keywords are recognised only on the other lines; hidden arrows
//! (`-[hidden]>`) are laid out, not drawn, and give no action; a lost message (`->x`) is its
//! emission alone; the preprocessor, `ref`, `return` and two-headed arrows are errors at their
//! place, with what to write instead.

mod arrow;
mod lines;

use super::build::{first_word, Block, Builder};
use super::write::{render, DrawError, Style};
use crate::syntax::{LoopPosition, ParseError};
use arrow::{participant_token, End};
use lines::{Stmt, KINDS};
use multitrace_model::signature::{LifelineId, Signature};
use multitrace_model::term::{TermId, TermStore};
use rustc_hash::FxHashMap;

/// Words PlantUML reads as keywords: not usable as participant names in a written diagram.
const KEYWORDS: [&str; 31] = [
    "participant",
    "actor",
    "boundary",
    "control",
    "entity",
    "database",
    "collections",
    "queue",
    "as",
    "alt",
    "else",
    "opt",
    "loop",
    "par",
    "par2",
    "break",
    "critical",
    "group",
    "end",
    "box",
    "note",
    "hnote",
    "rnote",
    "activate",
    "deactivate",
    "destroy",
    "create",
    "autonumber",
    "title",
    "return",
    "ref",
];

/// Statements that only draw or lay out: skipped (no action).
const LAYOUT: [&str; 22] = [
    "activate",
    "deactivate",
    "destroy",
    "autonumber",
    "autoactivate",
    "title",
    "header",
    "footer",
    "skinparam",
    "hide",
    "show",
    "newpage",
    "mainframe",
    "scale",
    "caption",
    "sprite",
    "skin",
    "ignore",
    "left",
    "right",
    "center",
    "note",
];

/// The fragment a keyword opens (PlantUML's `par2` is `par`).
fn fragment(kw: &str) -> Option<Block> {
    Some(match kw {
        "loop" => Block::Loop,
        "alt" => Block::Alt,
        "opt" => Block::Opt,
        "par" | "par2" => Block::Par,
        "critical" => Block::Critical,
        "break" => Block::Break,
        "group" => Block::Group,
        "box" => Block::Box,
        _ => return None,
    })
}

/// Reads a PlantUML sequence diagram.
pub fn parse_plantuml(
    file: &str,
    text: &str,
    sig: &mut Signature,
    infer: bool,
    store: &mut TermStore,
) -> Result<(TermId, Vec<LoopPosition>), ParseError> {
    let mut b = Builder::new("PlantUML", file, sig, infer, store);
    let mut aliases: FxHashMap<String, String> = FxHashMap::default();
    let (stmts, stopped) = lines::statements(file, text);
    for st in &stmts {
        statement(&mut b, &mut aliases, st)?;
    }
    if let Some(e) = stopped {
        return Err(e);
    }
    b.finish()
}

/// One statement.
fn statement(
    b: &mut Builder<'_>,
    aliases: &mut FxHashMap<String, String>,
    st: &Stmt,
) -> Result<(), ParseError> {
    let s = st.text.as_str();
    let (line, column) = st.at(s);
    let (word, rest) = first_word(s);
    // `alt#Gold #LightBlue guard`: the keyword is before the colour.
    let kw = word.split('#').next().unwrap_or(word).to_ascii_lowercase();
    let keyword = KEYWORDS.contains(&kw.as_str()) || LAYOUT.contains(&kw.as_str());
    match arrow::message(s) {
        Ok(Some(m)) => return message(b, aliases, st, &m),
        Err(bad) if !keyword => {
            let (l, c) = st.at(bad.at);
            return Err(b.error(l, c, bad.message));
        }
        _ => {}
    }
    if let Some(kind) = fragment(&kw) {
        return b.open(kind, word, line, column);
    }
    match kw.as_str() {
        k if KINDS.contains(&k) => return declare(b, aliases, st, rest),
        "create" => {
            let (what, decl) = first_word(rest);
            let decl = if KINDS.contains(&what.to_ascii_lowercase().as_str()) {
                decl
            } else {
                rest
            };
            return declare(b, aliases, st, decl);
        }
        "else" => return b.separator(word, &[Block::Alt, Block::Par], line, column),
        // `end`, `end group`, `end alt`, `end box`...: PlantUML ends the innermost fragment.
        "end" => return b.close(line, column),
        "return" => {
            return Err(b.error(line, column, "`return` cannot be read (its receiver depends on activations): write the reply as a message, `B --> A : reply`"))
        }
        "ref" => {
            return Err(b.error(line, column, "an interaction use (`ref over ...`) cannot be read: it stands for another diagram's messages, which this file does not hold; write the referenced diagram's messages in its place (inline it)"))
        }
        k if LAYOUT.contains(&k) => return Ok(()),
        _ => {}
    }
    if s.starts_with("==") || s.starts_with("...") || s.starts_with("||") {
        return Ok(());
    }
    if s.starts_with('&') {
        return Err(b.error(line, column, "a teoz parallel message (`& A -> B`) is drawn level with the one before, which says neither their order nor that they are concurrent: write both in a `par` fragment (`par` / `else` / `end`), or one after the other"));
    }
    if let Some(d) = s.strip_prefix('!') {
        if d.starts_with("theme") || d.starts_with("pragma") {
            return Ok(());
        }
        let (directive, _) = first_word(s);
        return Err(b.error(line, column, format!("the PlantUML preprocessor (`{directive}`) is not read: expand the file first, e.g. `plantuml -preproc FILE.puml` (it writes the expanded diagram to `FILE.preproc`), and give the result renamed `.puml`")));
    }
    Err(b.error(line, column, format!(
        "unknown statement `{word}`: a model's PlantUML sequence diagram holds participants, messages (`A -> B : request`), alt/else, opt, loop, par/else, critical, break, group, box, notes and activations"
    )))
}

/// `KIND NAME`, `KIND "Display" as CODE`, `KIND CODE as "Display"` (then `order N`, colours
/// and stereotypes, ignored): the lifeline is the code.
fn declare(
    b: &mut Builder<'_>,
    aliases: &mut FxHashMap<String, String>,
    st: &Stmt,
    decl: &str,
) -> Result<(), ParseError> {
    let (line, column) = st.at(&st.text);
    let Some((first, rest)) = participant_token(decl) else {
        return Err(b.error(
            line,
            column,
            "a participant needs a name: write `participant A` or `participant \"Long name\" as A`",
        ));
    };
    let rest = rest.trim_start();
    let (code, display) = match rest.strip_prefix("as ").map(str::trim_start) {
        Some(after) => {
            let quoted = after.starts_with('"');
            let Some((second, _)) = participant_token(after) else {
                return Err(b.error(line, column, "`as` needs a name after it"));
            };
            if quoted {
                (first, Some(second))
            } else {
                (second, Some(first))
            }
        }
        None => (first, None),
    };
    let (l, c) = st.at(code);
    b.participant(code, l, c)?;
    if let Some(d) = display {
        aliases.insert(d.to_string(), code.to_string());
    }
    Ok(())
}

/// A message statement: a message, an emission alone (lost, or to the border), a reception
/// alone (from the border), or nothing (hidden).
fn message(
    b: &mut Builder<'_>,
    aliases: &FxHashMap<String, String>,
    st: &Stmt,
    m: &arrow::Message<'_>,
) -> Result<(), ParseError> {
    let lifeline = |b: &mut Builder<'_>, end: End<'_>| -> Result<Option<LifelineId>, ParseError> {
        match end {
            End::Border => Ok(None),
            End::Named(n) => {
                let code = aliases.get(n).map_or(n, String::as_str);
                let (l, c) = st.at(n);
                b.participant(code, l, c).map(Some)
            }
        }
    };
    let from = lifeline(b, m.sender)?;
    let to = lifeline(b, m.receiver)?;
    let at = st.at(&st.text);
    if m.hidden {
        return Ok(());
    }
    let to = if m.lost { None } else { to };
    if from.is_none() && to.is_none() {
        let (l, c) = st.at(m.arrow);
        let what = if m.lost {
            "a lost message from the border has no action (nobody sends or receives it): remove it, or give it a sender, `A ->x B : m`"
        } else {
            "a message needs a sender or a receiver that is a participant"
        };
        return Err(b.error(l, c, what));
    }
    let label_at = st.at(m.label.trim_start());
    b.message(from, to, m.label, at, label_at)
}

/// Writes `root` as a PlantUML sequence diagram: every lifeline of `sig` declared in order,
/// then the messages and fragments; messages to and from the environment cross the border
/// (`A ->] : m`, `[-> A : m`).
pub fn write_plantuml(
    store: &TermStore,
    sig: &Signature,
    root: TermId,
) -> Result<String, DrawError> {
    let style = Style {
        dialect: "PlantUML",
        keywords: &KEYWORDS,
        header: "@startuml\n",
        footer: "@enduml\n",
        participant: "participant",
        separators: ["else", "else"],
        message: |from, to, m| {
            Some(match (from, to) {
                (Some(a), Some(c)) => format!("{a} -> {c} : {m}"),
                (Some(a), None) => format!("{a} ->] : {m}"),
                (None, Some(c)) => format!("[-> {c} : {m}"),
                (None, None) => return None,
            })
        },
    };
    render(store, sig, root, &style)
}

#[cfg(test)]
mod tests;
