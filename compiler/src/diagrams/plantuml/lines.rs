//! The first stage of the PlantUML reader: the file's text to statements.
//!
//! Only the lines between `@startuml` and `@enduml` are read (the whole file when it has no
//! `@startuml`). Dropped here: empty lines, `'` comments and `/' ... '/` blocks, and the
//! multi-line constructs that draw but hold no statement: notes, `title`/`header`/`footer`/
//! `legend` blocks, `skinparam ... { }`, `sprite` data, `<style>` sheets and the multi-line
//! display of a declaration (`participant A [` ... `]`, the declaration kept). A line ending in
//! `\` is joined with the next one as PlantUML joins it: the `\` dropped, the next line
//! appended as it is, indentation included (`hel\` then `   lo` is `hel   lo`).
//!
//! Invariants: every statement maps each of its characters back to its file line and column
//! ([`Stmt::at`]), across joined lines; a block left open is an error at its opening line,
//! never a silent skip of the rest of the file; the statements before a stage error are still
//! given, so that errors come in file order. Message-shaped lines (`Note -> B : m`) are never
//! taken for the start of a block.

use super::arrow::is_message;
use crate::diagrams::build::first_word;
use crate::syntax::ParseError;

/// One statement: its text (trimmed) and where each joined line of it starts.
pub(super) struct Stmt {
    pub text: String,
    /// (byte offset in `text`, line, column) of each joined line's first character.
    starts: Vec<(usize, u32, u32)>,
}

impl Stmt {
    /// The line and column of `part`, a subslice of [`Stmt::text`] (its start otherwise).
    pub fn at(&self, part: &str) -> (u32, u32) {
        let base = self.text.as_ptr() as usize;
        let off = (part.as_ptr() as usize)
            .checked_sub(base)
            .filter(|&o| o <= self.text.len())
            .unwrap_or(0);
        let &(o, line, column) = self
            .starts
            .iter()
            .rev()
            .find(|s| s.0 <= off)
            .unwrap_or(&self.starts[0]);
        let chars = self.text.get(o..off).map_or(0, |s| s.chars().count());
        (line, column + chars as u32)
    }
}

/// How a skipped block ends.
#[derive(Clone, Copy)]
enum End {
    /// A line equal (ignoring case) to one of these.
    Words(&'static [&'static str]),
    /// The `}` that balances the opening `{` (depth so far).
    Brace(usize),
    /// A line containing this text.
    Contains(&'static str),
}

struct Skip {
    what: String,
    line: u32,
    column: u32,
    end: End,
}

const NOTE_ENDS: &[&str] = &[
    "end note",
    "endnote",
    "end hnote",
    "endhnote",
    "end rnote",
    "endrnote",
];

/// The block a statement opens, if it is one of the skipped multi-line constructs.
fn block_start(s: &str) -> Option<End> {
    let (word, rest) = first_word(s);
    let word = word.to_ascii_lowercase();
    let braces = |t: &str| t.matches('{').count() as isize - t.matches('}').count() as isize;
    Some(match word.as_str() {
        "note" | "hnote" | "rnote" if !rest.contains(':') => End::Words(NOTE_ENDS),
        "title" if rest.is_empty() => End::Words(&["end title", "endtitle"]),
        "legend" => End::Words(&["end legend", "endlegend"]),
        "header" | "footer" if rest.is_empty() => {
            End::Words(&["end header", "endheader", "end footer", "endfooter"])
        }
        "left" | "right" | "center"
            if rest.eq_ignore_ascii_case("header") || rest.eq_ignore_ascii_case("footer") =>
        {
            End::Words(&["end header", "endheader", "end footer", "endfooter"])
        }
        "skinparam" | "sprite" if braces(rest) > 0 => End::Brace(braces(rest) as usize),
        "sprite" if rest.contains("<svg") && !rest.contains("</svg>") => End::Contains("</svg>"),
        _ if word.starts_with("<style") && !s.contains("</style>") => End::Contains("</style>"),
        _ => return None,
    })
}

/// What closes the block, for the error on a block left open.
fn closing(end: End) -> &'static str {
    match end {
        End::Words(words) => words[0],
        End::Brace(_) => "}",
        End::Contains(t) => t,
    }
}

/// Whether the block ends at `s`; updates a brace depth.
fn block_ends(end: &mut End, s: &str) -> bool {
    match end {
        End::Words(words) => words.iter().any(|w| s.eq_ignore_ascii_case(w)),
        End::Contains(t) => s.contains(*t),
        End::Brace(depth) => {
            let open = s.matches('{').count();
            let close = s.matches('}').count();
            let d = (*depth + open).saturating_sub(close);
            *depth = d;
            d == 0
        }
    }
}

/// The declarations of participants.
pub(super) const KINDS: [&str; 8] = [
    "participant",
    "actor",
    "boundary",
    "control",
    "entity",
    "database",
    "collections",
    "queue",
];

/// Whether `s` declares a participant.
fn is_declaration(s: &str) -> bool {
    let word = first_word(s).0.to_ascii_lowercase();
    KINDS.contains(&word.as_str())
}

/// The column (1-based, in characters) of the first non-blank character of `raw`.
fn indent_column(raw: &str) -> u32 {
    raw.chars().take_while(|c| c.is_whitespace()).count() as u32 + 1
}

/// Whether `s` ends in a line continuation: one `\` (not `\\`).
fn continues(s: &str) -> bool {
    s.ends_with('\\') && !s.ends_with("\\\\")
}

/// The statements of a PlantUML text, and the error that stopped the stage, if any.
pub(super) fn statements(file: &str, text: &str) -> (Vec<Stmt>, Option<ParseError>) {
    let error = |line, column, message: String| ParseError {
        file: file.to_string(),
        line,
        column,
        message,
    };
    let has_start = text
        .lines()
        .any(|l| l.trim_start().starts_with("@startuml"));
    let mut reading = !has_start;
    let mut comment = false;
    let mut skip: Option<Skip> = None;
    let mut pending: Option<Stmt> = None;
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i as u32 + 1;
        let s = raw.trim();
        let column = indent_column(raw);
        if comment {
            comment = !s.contains("'/");
            continue;
        }
        if let Some(open) = &mut skip {
            if s.starts_with("@enduml") {
                let msg = format!(
                    "`{}` is not closed before `@enduml`: add `{}` after its last line",
                    open.what,
                    closing(open.end)
                );
                return (out, Some(error(open.line, open.column, msg)));
            }
            if block_ends(&mut open.end, s) {
                skip = None;
            }
            continue;
        }
        if let Some(mut p) = pending.take() {
            // PlantUML keeps the next line's indentation.
            p.text.pop();
            p.starts.push((p.text.len(), line, 1));
            p.text.push_str(raw.trim_end());
            if continues(&p.text) {
                pending = Some(p);
            } else {
                out.push(p);
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
        if !is_message(s) {
            if let Some(end) = block_start(s) {
                let (word, _) = first_word(s);
                skip = Some(Skip {
                    what: word.to_string(),
                    line,
                    column,
                    end,
                });
                continue;
            }
        }
        let stmt = Stmt {
            text: s.to_string(),
            starts: vec![(0, line, column)],
        };
        // `participant A [` ... `]`: the declaration stays, its multi-line drawing is skipped.
        if s.ends_with('[') && is_declaration(s) {
            out.push(stmt);
            skip = Some(Skip {
                what: first_word(s).0.to_string(),
                line,
                column,
                end: End::Words(&["]"]),
            });
            continue;
        }
        if continues(s) {
            pending = Some(stmt);
        } else {
            out.push(stmt);
        }
    }
    if let Some(open) = skip {
        let msg = format!(
            "`{}` is not closed: add `{}` after its last line",
            open.what,
            closing(open.end)
        );
        return (out, Some(error(open.line, open.column, msg)));
    }
    if let Some(mut p) = pending {
        p.text.pop();
        out.push(p);
    }
    (out, None)
}
