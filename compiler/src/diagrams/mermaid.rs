//! Mermaid `sequenceDiagram`s: the reader (statements to [`Builder`] calls) and the writer.
//!
//! The reader works line by line (a `;` also ends a statement, as in Mermaid, except the one
//! closing an entity code such as `#59;`); keywords are matched without regard to case, as
//! Mermaid does. What each statement means is [`super`]'s table.

use super::build::{column_of, first_word, Block, Builder};
use super::write::{render, DrawError, Style};
use crate::syntax::{LoopPosition, ParseError};
use multitrace_model::signature::Signature;
use multitrace_model::term::{TermId, TermStore};

/// The arrows of Mermaid messages, all read as a message (emission then reception).
const ARROWS: [&str; 8] = ["-->>", "->>", "-->", "->", "--x", "-x", "--)", "-)"];

/// Words Mermaid reads as keywords: not usable as participant names in a written diagram.
const KEYWORDS: [&str; 26] = [
    "participant",
    "actor",
    "as",
    "loop",
    "alt",
    "else",
    "opt",
    "par",
    "and",
    "end",
    "critical",
    "option",
    "break",
    "rect",
    "box",
    "note",
    "activate",
    "deactivate",
    "autonumber",
    "title",
    "create",
    "destroy",
    "links",
    "link",
    "properties",
    "details",
];

/// The statements of a text: (line, column of the statement's first character, statement).
fn statements(text: &str, first_line: u32) -> impl Iterator<Item = (u32, u32, &str)> {
    text.lines().enumerate().flat_map(move |(i, line)| {
        let line_no = first_line + i as u32;
        let mut out = Vec::new();
        let mut start = 0usize;
        let bytes = line.as_bytes();
        for (j, &b) in bytes.iter().enumerate() {
            if b == b';' && !closes_entity(&line[..j]) {
                out.push((start, &line[start..j]));
                start = j + 1;
            }
        }
        out.push((start, &line[start..]));
        out.into_iter().filter_map(move |(at, s)| {
            let trimmed = s.trim_start();
            let lead = s.len() - trimmed.len();
            let trimmed = trimmed.trim_end();
            (!trimmed.is_empty()).then(|| {
                let column = line[..at + lead].chars().count() as u32 + 1;
                (line_no, column, trimmed)
            })
        })
    })
}

/// Whether `before` ends with `#name` or `#123` (the `;` after it closes an entity code).
fn closes_entity(before: &str) -> bool {
    let word = before
        .trim_end_matches(|c: char| c.is_ascii_alphanumeric())
        .len();
    word < before.len() && before[..word].ends_with('#')
}

/// Reads a Mermaid sequence diagram whose first line is line `first_line` of `file` (a
/// Markdown file's mermaid block starts after line 1).
pub fn parse_mermaid(
    file: &str,
    text: &str,
    first_line: u32,
    sig: &mut Signature,
    infer: bool,
    store: &mut TermStore,
) -> Result<(TermId, Vec<LoopPosition>), ParseError> {
    let mut b = Builder::new("Mermaid", file, sig, infer, store);
    let mut header = false;
    let mut frontmatter = None::<bool>;
    let mut in_description = false;
    for (line, column, s) in statements(text, first_line) {
        if in_description {
            in_description = !s.contains('}');
            continue;
        }
        if !header {
            // Front matter (`---` ... `---`) first, then comments and directives, then the type.
            match frontmatter {
                None if s == "---" => {
                    frontmatter = Some(true);
                    continue;
                }
                Some(true) => {
                    if s == "---" {
                        frontmatter = Some(false);
                    }
                    continue;
                }
                _ => frontmatter = Some(false),
            }
            if s.starts_with("%%") {
                continue;
            }
            let (word, rest) = first_word(s);
            if word != "sequenceDiagram" || !rest.is_empty() {
                return Err(b.error(
                    line,
                    column,
                    format!(
                        "expected `sequenceDiagram`, found `{}`: only Mermaid sequence diagrams are models",
                        word
                    ),
                ));
            }
            header = true;
            continue;
        }
        if s.starts_with("%%") {
            continue;
        }
        let (word, rest) = first_word(s);
        let kw = word.to_ascii_lowercase();
        let block = |name: &str| match name {
            "loop" => Some(Block::Loop),
            "alt" => Some(Block::Alt),
            "opt" => Some(Block::Opt),
            "par" => Some(Block::Par),
            "critical" => Some(Block::Critical),
            "break" => Some(Block::Break),
            "rect" => Some(Block::Group),
            "box" => Some(Block::Box),
            _ => None,
        };
        if let Some(kind) = block(&kw) {
            b.open(kind, word, line, column)?;
            continue;
        }
        match kw.as_str() {
            "participant" | "actor" => {
                declare(&mut b, s, rest, line, column)?;
                continue;
            }
            "create" => {
                let (what, decl) = first_word(rest);
                if !matches!(what.to_ascii_lowercase().as_str(), "participant" | "actor") {
                    return Err(b.error(
                        line,
                        column,
                        "`create` is followed by `participant NAME` or `actor NAME`",
                    ));
                }
                declare(&mut b, s, decl, line, column)?;
                continue;
            }
            "else" => {
                b.separator(word, &[Block::Alt], line, column)?;
                continue;
            }
            "and" => {
                b.separator(word, &[Block::Par], line, column)?;
                continue;
            }
            "option" => {
                b.separator(word, &[Block::Critical], line, column)?;
                continue;
            }
            "end" if rest.is_empty() => {
                b.close(line, column)?;
                continue;
            }
            "par_over" => {
                return Err(b.error(
                    line,
                    column,
                    "`par_over` cannot be read: write `par` ... `and` ... `end`",
                ))
            }
            "note" | "activate" | "deactivate" | "autonumber" | "title" | "destroy" => continue,
            "links" | "link" | "properties" | "details" if rest.contains(':') => continue,
            _ => {}
        }
        if kw.starts_with("acctitle") || kw.starts_with("accdescr") || kw.starts_with("title:") {
            in_description = kw.starts_with("accdescr") && s.contains('{') && !s.contains('}');
            continue;
        }
        message(&mut b, s, line, column)?;
    }
    if !header {
        return Err(b.error(
            first_line,
            1,
            "expected `sequenceDiagram`: the diagram is empty",
        ));
    }
    b.finish()
}

/// `participant ID [as ALIAS]` or `participant ID@{...}`: the lifeline is ID.
fn declare(
    b: &mut Builder<'_>,
    stmt: &str,
    decl: &str,
    line: u32,
    column: u32,
) -> Result<(), ParseError> {
    let mut id = decl;
    if let Some(i) = id.find("@{") {
        id = &id[..i];
    }
    if let Some(i) = id.find(" as ") {
        id = &id[..i];
    }
    let id = id.trim();
    if id.is_empty() {
        return Err(b.error(
            line,
            column,
            "a participant needs a name: write `participant A` or `participant A as Alice`",
        ));
    }
    b.participant(id, line, column_of(stmt, column, id))?;
    Ok(())
}

/// `FROM ARROW [+|-]TO: LABEL`.
fn message(b: &mut Builder<'_>, s: &str, line: u32, column: u32) -> Result<(), ParseError> {
    let head_end = s.find(':').unwrap_or(s.len());
    let head = &s[..head_end];
    if let Some(i) = head.find("<<-") {
        return Err(b.error(
            line,
            column_of(s, column, &head[i..]),
            "a two-way arrow is two messages: write `A->>B: request` and `B-->>A: reply`",
        ));
    }
    let found = (0..head.len()).find_map(|i| {
        ARROWS
            .iter()
            .filter(|a| head[i..].starts_with(**a))
            .max_by_key(|a| a.len())
            .map(|a| (i, a.len()))
    });
    let Some((i, len)) = found else {
        let (word, _) = first_word(s);
        return Err(b.error(
            line,
            column,
            format!(
                "unknown statement `{word}`: a model's sequence diagram holds participants, messages (`A->>B: request`), loop, alt/else, opt, par/and, critical/option, break, rect, box, notes and activations"
            ),
        ));
    };
    // `()` marks a central connection, `+`/`-` an activation: drawing only.
    let from = head[..i].trim();
    let from = from.strip_suffix("()").unwrap_or(from).trim_end();
    let to = head[i + len..].trim_start();
    let to = to.strip_prefix(['+', '-']).unwrap_or(to).trim_start();
    let to = to.strip_prefix("()").unwrap_or(to).trim();
    if from.is_empty() || to.is_empty() {
        return Err(b.error(
            line,
            column_of(s, column, &head[i..]),
            "an arrow needs a participant on both sides: write `A->>B: request`",
        ));
    }
    let a = b.participant(from, line, column_of(s, column, from))?;
    let c = b.participant(to, line, column_of(s, column, to))?;
    let label = s.get(head_end + 1..).unwrap_or("");
    let label_at = (line, column_of(s, column, label.trim_start()));
    b.message(Some(a), Some(c), label, (line, column), label_at)
}

/// The first ```` ```mermaid ```` block of a Markdown text: its body and the line its body
/// starts on.
pub fn markdown_block(text: &str) -> Option<(&str, u32)> {
    let mut offset = 0usize;
    let mut start: Option<(usize, u32)> = None;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let t = line.trim();
        match start {
            None if t.starts_with("```") && t[3..].trim() == "mermaid" => {
                start = Some((offset + line.len(), i as u32 + 2));
            }
            Some((body, first)) if t.starts_with("```") => {
                return Some((&text[body..offset], first));
            }
            _ => {}
        }
        offset += line.len();
    }
    None
}

/// Writes `root` as a Mermaid sequence diagram: every lifeline of `sig` declared in order,
/// then the messages and fragments.
pub fn write_mermaid(
    store: &TermStore,
    sig: &Signature,
    root: TermId,
) -> Result<String, DrawError> {
    let style = Style {
        dialect: "Mermaid",
        keywords: &KEYWORDS,
        header: "sequenceDiagram\n",
        footer: "",
        participant: "participant",
        separators: ["else", "and"],
        message: |from, to, m| match (from, to) {
            (Some(a), Some(c)) => Some(format!("{a}->>{c}: {m}")),
            _ => None,
        },
    };
    render(store, sig, root, &style)
}
