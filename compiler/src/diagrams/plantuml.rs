//! PlantUML sequence diagrams: the reader (statements to [`Builder`] calls) and the writer.
//!
//! Only the lines between `@startuml` and `@enduml` are read (the whole file when it has no
//! `@startuml`); `'` comments and `/' ... '/` blocks are skipped, as are multi-line notes,
//! titles, legends and `skinparam { }` blocks. What each statement means is [`super`]'s table.

use super::build::{column_of, first_word, Block, Builder};
use super::write::{render, DrawError, Style};
use crate::syntax::{LoopPosition, ParseError};
use multitrace_runtime::signature::{LifelineId, Signature};
use multitrace_runtime::term::{TermId, TermStore};
use rustc_hash::FxHashMap;

/// The declarations of participants.
const KINDS: [&str; 8] = [
    "participant",
    "actor",
    "boundary",
    "control",
    "entity",
    "database",
    "collections",
    "queue",
];

/// Words PlantUML reads as keywords: not usable as participant names in a written diagram.
const KEYWORDS: [&str; 30] = [
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

/// Multi-line constructs that are skipped: the opening word and the words that close it.
fn skipped_block(word: &str, rest: &str) -> Option<&'static [&'static str]> {
    Some(match word {
        "note" | "hnote" | "rnote" if !rest.contains(':') => &[
            "end note",
            "endnote",
            "end hnote",
            "endhnote",
            "end rnote",
            "endrnote",
        ],
        "title" if rest.is_empty() => &["end title", "endtitle"],
        "legend" => &["end legend", "endlegend"],
        "header" if rest.is_empty() => &["end header", "endheader"],
        "footer" if rest.is_empty() => &["end footer", "endfooter"],
        "skinparam" if rest.ends_with('{') => &["}"],
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
    let has_start = text
        .lines()
        .any(|l| l.trim_start().starts_with("@startuml"));
    let mut reading = !has_start;
    let mut comment = false;
    let mut skip_until: Option<&'static [&'static str]> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = i as u32 + 1;
        let s = raw.trim();
        let column = (raw.len() - raw.trim_start().len()) as u32 + 1;
        let column = raw[..column as usize - 1].chars().count() as u32 + 1;
        if comment {
            comment = !s.contains("'/");
            continue;
        }
        if let Some(ends) = skip_until {
            if ends.iter().any(|e| s.eq_ignore_ascii_case(e)) {
                skip_until = None;
            }
            continue;
        }
        if s.starts_with("@startuml") {
            reading = true;
            continue;
        }
        if s.starts_with("@enduml") {
            if reading && has_start {
                break;
            }
            continue;
        }
        if !reading || s.is_empty() || s.starts_with('\'') {
            continue;
        }
        if let Some(rest) = s.strip_prefix("/'") {
            comment = !rest.contains("'/");
            continue;
        }
        let (word, rest) = first_word(s);
        let kw = word.to_ascii_lowercase();
        if let Some(ends) = skipped_block(&kw, rest) {
            skip_until = Some(ends);
            continue;
        }
        let block = match kw.as_str() {
            "loop" => Some(Block::Loop),
            "alt" => Some(Block::Alt),
            "opt" => Some(Block::Opt),
            "par" => Some(Block::Par),
            "critical" => Some(Block::Critical),
            "break" => Some(Block::Break),
            "group" => Some(Block::Group),
            "box" => Some(Block::Box),
            _ => None,
        };
        if let Some(kind) = block {
            b.open(kind, word, line, column)?;
            continue;
        }
        match kw.as_str() {
            k if KINDS.contains(&k) => {
                declare(&mut b, &mut aliases, s, rest, line, column)?;
                continue;
            }
            "create" => {
                let (what, decl) = first_word(rest);
                let decl = if KINDS.contains(&what.to_ascii_lowercase().as_str()) { decl } else { rest };
                declare(&mut b, &mut aliases, s, decl, line, column)?;
                continue;
            }
            "else" => {
                b.separator(word, &[Block::Alt, Block::Par], line, column)?;
                continue;
            }
            "end" if rest.is_empty() || rest.eq_ignore_ascii_case("box") => {
                b.close(line, column)?;
                continue;
            }
            "return" => {
                return Err(b.error(line, column, "`return` cannot be read (its receiver depends on activations): write the reply as a message, `B --> A : reply`"))
            }
            "ref" => {
                return Err(b.error(line, column, "an interaction use (`ref`) cannot be read: write the referenced messages in its place"))
            }
            "note" | "hnote" | "rnote" | "activate" | "deactivate" | "destroy" | "autonumber"
            | "autoactivate" | "title" | "header" | "footer" | "skinparam" | "hide" | "show"
            | "newpage" | "mainframe" | "scale" | "caption" => continue,
            _ => {}
        }
        if s.starts_with("==")
            || s.starts_with("...")
            || s.starts_with("|||")
            || s.starts_with("||")
        {
            continue;
        }
        if let Some(d) = s.strip_prefix('!') {
            if d.starts_with("theme") || d.starts_with("pragma") {
                continue;
            }
            return Err(b.error(line, column, "the PlantUML preprocessor is not read: expand the file first (`plantuml -preproc FILE`) and give the result"));
        }
        message(&mut b, &aliases, s, line, column)?;
    }
    b.finish()
}

/// A participant token at the start of `s`: a quoted display name or a code; the token and
/// the rest.
fn participant_token(s: &str) -> Option<(&str, &str)> {
    if let Some(q) = s.strip_prefix('"') {
        let end = q.find('"')?;
        return Some((&q[..end], &q[end + 1..]));
    }
    let end = s
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.' || c == '@'))
        .unwrap_or(s.len());
    (end > 0).then(|| (&s[..end], &s[end..]))
}

/// `KIND NAME`, `KIND "Display" as CODE`, `KIND CODE as "Display"` (then `order N`, colours
/// and stereotypes, ignored): the lifeline is the code.
fn declare(
    b: &mut Builder<'_>,
    aliases: &mut FxHashMap<String, String>,
    stmt: &str,
    decl: &str,
    line: u32,
    column: u32,
) -> Result<(), ParseError> {
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
    b.participant(code, line, column_of(stmt, column, code))?;
    if let Some(d) = display {
        aliases.insert(d.to_string(), code.to_string());
    }
    Ok(())
}

/// An arrow's text at the start of `s` and what follows it.
fn arrow(s: &str) -> (&str, &str) {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'-' | b'<' | b'>' | b'\\' | b'/' | b'.' | b'*' => i += 1,
            b'[' if b
                .get(i + 1)
                .is_some_and(|&c| c == b'#' || c.is_ascii_alphabetic())
                && i > 0 =>
            {
                match s[i..].find(']') {
                    Some(j) => i += j + 1,
                    None => break,
                }
            }
            b'o' | b'x'
                if i > 0
                    && b.get(i + 1)
                        .is_none_or(|c| c.is_ascii_whitespace() || *c == b':') =>
            {
                i += 1
            }
            _ => break,
        }
    }
    (&s[..i], &s[i..])
}

/// `FROM ARROW TO [: LABEL]`, `[-> TO`, `FROM ->]` (the border: the environment).
fn message(
    b: &mut Builder<'_>,
    aliases: &FxHashMap<String, String>,
    s: &str,
    line: u32,
    column: u32,
) -> Result<(), ParseError> {
    let unknown = |b: &Builder<'_>| {
        let (word, _) = first_word(s);
        b.error(line, column, format!(
            "unknown statement `{word}`: a model's PlantUML sequence diagram holds participants, messages (`A -> B : request`), alt/else, opt, loop, par/else, critical, break, group, box, notes and activations"
        ))
    };
    // The label starts at the first `:` outside quotes.
    let mut quoted = false;
    let colon = s.char_indices().find(|&(_, c)| {
        quoted ^= c == '"';
        c == ':' && !quoted
    });
    let (head, label) = match colon {
        Some((i, _)) => (&s[..i], &s[i + 1..]),
        None => (s, ""),
    };
    let (from, after) = match head.strip_prefix(['[', '?']) {
        Some(rest) => (None, rest),
        None => match participant_token(head) {
            Some((tok, rest)) => (Some(tok), rest.trim_start()),
            None => return Err(unknown(b)),
        },
    };
    let (arrow_text, mut after) = arrow(after);
    if !arrow_text.contains('-') || (from.is_none() && arrow_text.is_empty()) {
        return Err(unknown(b));
    }
    let arrow_at = column_of(s, column, arrow_text);
    if arrow_text.contains('<') && arrow_text.contains('>') {
        return Err(b.error(
            line,
            arrow_at,
            "a two-way arrow is two messages: write `A -> B : request` and `B --> A : reply`",
        ));
    }
    let mut to = None;
    if let Some(rest) = after.strip_prefix([']', '?']) {
        after = rest;
    } else {
        let Some((tok, rest)) = participant_token(after.trim_start()) else {
            return Err(b.error(line, arrow_at, "an arrow needs a participant (or `]`, the border) after it: write `A -> B : request`"));
        };
        to = Some(tok);
        after = rest;
    }
    let trailing = after.trim().trim_start_matches(['+', '-', '*', '!']).trim();
    if !trailing.is_empty() {
        return Err(b.error(
            line,
            column_of(s, column, trailing),
            format!(
                "unexpected `{trailing}` after the message's receiver: the label comes after `:`"
            ),
        ));
    }
    let lifeline =
        |b: &mut Builder<'_>, name: Option<&str>| -> Result<Option<LifelineId>, ParseError> {
            match name {
                None => Ok(None),
                Some(n) => {
                    let code = aliases.get(n).map_or(n, String::as_str);
                    b.participant(code, line, column_of(s, column, n)).map(Some)
                }
            }
        };
    let a = lifeline(b, from)?;
    let c = lifeline(b, to)?;
    let reverse = arrow_text.contains('<') || arrow_text.starts_with(['\\', '/']);
    let (a, c) = if reverse { (c, a) } else { (a, c) };
    let label_at = (line, column_of(s, column, label.trim_start()));
    b.message(a, c, label, (line, column), label_at)
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
