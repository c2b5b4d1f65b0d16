//! Reader of word automata in Timbuk syntax (the NFAs of the AutomatArk benchmark), with the
//! optional `Systems` block of seed 004 that assigns every letter to a location.
//!
//! ```text
//! Ops a0:1 a1:1 a2:1 x:0
//!
//! Automaton A
//! States q0 q1 q2
//! Final States q1
//! Transitions
//! x -> q0
//! a1(q0) -> q1
//! a0(q1) -> q1
//! Systems
//!     [l1] a0 a1
//!     [l2] a2
//! ```
//!
//! Tokens are separated by any whitespace, newlines included, and the punctuation `(`, `)`,
//! `:`, `[`, `]`, `,` and `->`. A name (symbol, state, automaton or location) is any other run
//! of non-whitespace, non-control characters that does not contain `->`. The section keywords
//! `Ops`, `Automaton`, `States`, `Final`, `Transitions` and `Systems` cannot name symbols or
//! states.
//!
//! - `Ops` declares symbols `name:arity`: arity 1 for letters, arity 0 for initial markers
//!   (usually `x:0`). Other arities (tree automata) are refused.
//! - `Automaton NAME`, then `States` lists the states (an annotation `q:0` is accepted).
//! - `Final States` lists the accepting states; the list may be empty.
//! - `Transitions` lists rules: `x -> q` makes `q` initial (several such rules give several
//!   initial states), `a(q1) -> q2` reads letter `a` from `q1` to `q2`.
//! - `Systems` (optional, last) lists locations `[name]` each followed by its letters
//!   (optionally separated by `,`); every letter of `Ops` belongs to exactly one location.
//!
//! Every error is a [`ParseError`] with the line and column of the offending token; the reader
//! never panics and uses no recursion.

use multitrace_runtime::syntax::{describe_char, name_list, quote_word, Cursor, ParseError};
use std::collections::HashMap;
use std::fmt;

/// A word automaton read from a Timbuk file.
///
/// Indices in `initial`, `accepting` and `transitions` are into `states`; letter indices in
/// `transitions` and `systems` are into `letters`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimbukAutomaton {
    /// The arity-1 symbols of `Ops`, in order of declaration.
    pub letters: Vec<String>,
    /// The states of `States`, in order of declaration.
    pub states: Vec<String>,
    /// The initial states (targets of rules `x -> q`), in order of first rule, without
    /// duplicates.
    pub initial: Vec<usize>,
    /// The accepting states of `Final States`, in order, without duplicates.
    pub accepting: Vec<usize>,
    /// `(from, letter, to)` for each rule `letter(from) -> to`, in file order.
    pub transitions: Vec<(usize, usize, usize)>,
    /// The `Systems` block when present: each location's name and its letters, in file order.
    pub systems: Option<Vec<(String, Vec<usize>)>>,
}

const KEYWORDS: &[&str] = &[
    "Ops",
    "Automaton",
    "States",
    "Final",
    "Transitions",
    "Systems",
];

const SHAPE: &str = "`Ops a0:1 x:0  Automaton A  States q0 q1  Final States q1  Transitions  \
                     x -> q0  a0(q0) -> q1`";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tok {
    Word,
    LParen,
    RParen,
    Colon,
    LBracket,
    RBracket,
    Comma,
    Arrow,
    /// A control character or a byte-order mark.
    Other,
    Eof,
}

#[derive(Clone, Copy, Debug)]
struct Token<'a> {
    kind: Tok,
    start: usize,
    text: &'a str,
}

impl Token<'_> {
    fn is_word(&self, w: &str) -> bool {
        self.kind == Tok::Word && self.text == w
    }
}

/// The one-character tokens.
fn punctuation(c: char) -> Option<Tok> {
    Some(match c {
        '(' => Tok::LParen,
        ')' => Tok::RParen,
        ':' => Tok::Colon,
        '[' => Tok::LBracket,
        ']' => Tok::RBracket,
        ',' => Tok::Comma,
        _ => return None,
    })
}

/// Control characters and byte-order marks are never part of a name.
fn is_stray(c: char) -> bool {
    c.is_control() || c == '\u{feff}'
}

/// The tokens of Timbuk on the shared [`Cursor`] (no comments in this format).
struct Lexer<'a> {
    c: Cursor<'a>,
}

impl<'a> Lexer<'a> {
    fn new(file: &'a str, text: &'a str) -> Self {
        Lexer {
            c: Cursor::new(file, text),
        }
    }

    fn error(&self, at: usize, message: impl Into<String>) -> ParseError {
        self.c.error(at, message)
    }

    fn next(&mut self) -> Token<'a> {
        scan(&mut self.c)
    }

    /// The next token, without moving (rare in Timbuk: a copy of the cursor scans it).
    fn peek(&self) -> Token<'a> {
        let mut ahead = self.c;
        scan(&mut ahead)
    }

    /// "expected WHAT, found TOKEN" (or "unexpected end of input, expected WHAT").
    fn expected(&self, tok: &Token<'_>, what: &str) -> ParseError {
        match tok.kind {
            Tok::Eof => self.c.expected_found(tok.start, what, None),
            _ => self.c.expected_found(tok.start, what, Some(&describe(tok))),
        }
    }

    /// The next token, which must be a name (not a keyword). `what` is only formatted for an
    /// error (pass `format_args!`, not `format!`: this runs for every rule).
    fn name(&mut self, what: impl fmt::Display) -> Result<Token<'a>, ParseError> {
        let tok = self.next();
        if tok.kind == Tok::Word && !KEYWORDS.contains(&tok.text) {
            Ok(tok)
        } else {
            Err(self.expected(&tok, &what.to_string()))
        }
    }

    /// The next token, which must be of `kind`; `what` as for [`Lexer::name`].
    fn expect(&mut self, kind: Tok, what: impl fmt::Display) -> Result<Token<'a>, ParseError> {
        let tok = self.next();
        if tok.kind == kind {
            Ok(tok)
        } else {
            Err(self.expected(&tok, &what.to_string()))
        }
    }

    fn position(&self, at: usize) -> String {
        self.c.position(at)
    }
}

/// Reads one token at `c` (after whitespace; Timbuk has no comments).
fn scan<'a>(c: &mut Cursor<'a>) -> Token<'a> {
    c.skip_whitespace();
    let start = c.pos();
    let kind = if c.eat("->") {
        Tok::Arrow
    } else {
        match c.peek_char() {
            None => Tok::Eof,
            Some(ch) => match punctuation(ch) {
                Some(kind) => {
                    c.bump();
                    kind
                }
                None if is_stray(ch) => {
                    c.bump();
                    Tok::Other
                }
                None => {
                    // A name: up to whitespace, punctuation, a stray character or `->`. Runs
                    // of visible ASCII first (whitespace and controls are below `!`, DEL is a
                    // control), then one `-` or non-ASCII character at a time.
                    loop {
                        c.take_while_ascii(|b| {
                            b > b' '
                                && b != 0x7F
                                && b != b'-'
                                && punctuation(char::from(b)).is_none()
                        });
                        match c.peek_char() {
                            Some('-') if !c.starts_with("->") => {
                                c.bump();
                            }
                            Some(ch) if !ch.is_ascii() && !ch.is_whitespace() && !is_stray(ch) => {
                                c.bump();
                            }
                            _ => break,
                        }
                    }
                    Tok::Word
                }
            },
        }
    };
    Token {
        kind,
        start,
        text: c.since(start),
    }
}

/// How a token reads in an error message.
fn describe(tok: &Token<'_>) -> String {
    match tok.kind {
        Tok::Eof => "end of input".to_string(),
        Tok::Other => describe_char(tok.text.chars().next().unwrap_or(' ')),
        Tok::Word => quote_word(tok.text),
        _ => format!("`{}`", tok.text),
    }
}

/// A symbol of `Ops`: its arity and its index among the symbols of that arity.
#[derive(Clone, Copy)]
struct Symbol {
    arity: u32,
    index: usize,
    at: usize,
}

/// Reads a word automaton in Timbuk syntax, with its optional `Systems` block.
///
/// `file` names the input in errors. Never panics; every error carries the line and column of
/// the offending text and says what was expected.
pub fn parse_timbuk(file: &str, text: &str) -> Result<TimbukAutomaton, ParseError> {
    let mut lx = Lexer::new(file, text);

    // Ops
    let tok = lx.next();
    match tok.kind {
        Tok::Eof => {
            return Err(lx.error(
                tok.start,
                format!("empty file: expected a Timbuk automaton like {SHAPE}"),
            ))
        }
        _ if tok.is_word("Ops") => {}
        _ => return Err(lx.expected(&tok, "`Ops` opening a Timbuk automaton")),
    }
    let ops = ops_section(&mut lx)?;

    // Automaton NAME
    lx.name("the automaton's name after `Automaton`")?;

    // States
    let tok = lx.next();
    if !tok.is_word("States") {
        return Err(lx.expected(&tok, "`States` after the automaton's name"));
    }
    let states = states_section(&mut lx)?;

    // Final States
    let tok = lx.next();
    if !tok.is_word("States") {
        return Err(lx.expected(&tok, "`States` after `Final`"));
    }
    let (accepting, transitions_at) = final_section(&mut lx, &states)?;

    // Transitions
    let (initial, transitions, systems_at) =
        transitions_section(&mut lx, &ops, &states, transitions_at)?;

    // Systems
    let systems = match systems_at {
        None => None,
        Some(at) => Some(systems_block(&mut lx, at, &ops.symbols, &ops.letters)?),
    };

    Ok(TimbukAutomaton {
        letters: ops.letters,
        states: states.names,
        initial,
        accepting,
        transitions,
        systems,
    })
}

/// The symbols declared by `Ops`: letters (arity 1) and initial markers (arity 0).
struct Ops<'a> {
    symbols: HashMap<&'a str, Symbol>,
    letters: Vec<String>,
    nullary: Vec<String>,
}

/// The states declared by `States`, with where each was declared.
struct States<'a> {
    ids: HashMap<&'a str, (usize, usize)>,
    names: Vec<String>,
}

impl States<'_> {
    /// The id of the state named by `tok`, or an error naming the declared states.
    fn id(&self, lx: &Lexer<'_>, tok: &Token<'_>) -> Result<usize, ParseError> {
        match self.ids.get(tok.text) {
            Some(&(id, _)) => Ok(id),
            None => Err(lx.error(
                tok.start,
                format!(
                    "unknown state `{}`; states declared in `States`: {}",
                    tok.text,
                    name_list(&self.names)
                ),
            )),
        }
    }
}

/// The `Ops` section after its keyword, up to and including `Automaton`.
fn ops_section<'a>(lx: &mut Lexer<'a>) -> Result<Ops<'a>, ParseError> {
    let mut symbols: HashMap<&str, Symbol> = HashMap::new();
    let mut letters: Vec<String> = Vec::new();
    let mut nullary: Vec<String> = Vec::new();
    loop {
        let tok = lx.next();
        if tok.is_word("Automaton") {
            break;
        }
        if tok.kind != Tok::Word {
            return Err(lx.expected(&tok, "a symbol `name:arity` or `Automaton`"));
        }
        if KEYWORDS.contains(&tok.text) {
            return Err(lx.error(
                tok.start,
                format!(
                    "`{}` is a keyword and cannot name a symbol; expected a symbol \
                     `name:arity` or `Automaton` (the section after `Ops`)",
                    tok.text
                ),
            ));
        }
        lx.expect(
            Tok::Colon,
            format_args!("`:` and an arity after symbol `{}`", tok.text),
        )?;
        let atok = lx.next();
        let arity = match atok.kind {
            Tok::Word if atok.text.bytes().all(|b| b.is_ascii_digit()) => {
                atok.text.parse::<u32>().unwrap_or(u32::MAX)
            }
            _ => {
                return Err(lx.expected(
                    &atok,
                    &format!("the arity of symbol `{}` (0 or 1)", tok.text),
                ))
            }
        };
        if arity > 1 {
            return Err(lx.error(
                atok.start,
                format!(
                    "symbol `{}` has arity {}: only word automata are supported, with letters \
                     of arity 1 and initial markers of arity 0",
                    tok.text, atok.text
                ),
            ));
        }
        if let Some(first) = symbols.get(tok.text) {
            return Err(lx.error(
                tok.start,
                format!(
                    "symbol `{}` is declared twice in `Ops` (first at {})",
                    tok.text,
                    lx.position(first.at)
                ),
            ));
        }
        let list = if arity == 1 {
            &mut letters
        } else {
            &mut nullary
        };
        symbols.insert(
            tok.text,
            Symbol {
                arity,
                index: list.len(),
                at: tok.start,
            },
        );
        list.push(tok.text.to_string());
    }

    Ok(Ops {
        symbols,
        letters,
        nullary,
    })
}

/// The `States` section after its keyword, up to and including `Final`.
fn states_section<'a>(lx: &mut Lexer<'a>) -> Result<States<'a>, ParseError> {
    let mut state_ids: HashMap<&str, (usize, usize)> = HashMap::new();
    let mut states: Vec<String> = Vec::new();
    loop {
        let tok = lx.next();
        if tok.is_word("Final") {
            break;
        }
        if tok.is_word("Transitions") {
            return Err(lx.error(
                tok.start,
                "missing `Final States` section before `Transitions` (write `Final States` \
                 followed by the accepting states, possibly none)",
            ));
        }
        if tok.kind != Tok::Word || KEYWORDS.contains(&tok.text) {
            return Err(lx.expected(&tok, "a state name or `Final States`"));
        }
        if let Some(&(_, first)) = state_ids.get(tok.text) {
            return Err(lx.error(
                tok.start,
                format!(
                    "duplicate state `{}` (first declared at {})",
                    tok.text,
                    lx.position(first)
                ),
            ));
        }
        if lx.peek().kind == Tok::Colon {
            lx.next();
            let atok = lx.next();
            if !atok.is_word("0") {
                return Err(lx.expected(
                    &atok,
                    &format!(
                        "arity `0` after state `{}:` (states have arity 0)",
                        tok.text
                    ),
                ));
            }
        }
        state_ids.insert(tok.text, (states.len(), tok.start));
        states.push(tok.text.to_string());
    }
    Ok(States {
        ids: state_ids,
        names: states,
    })
}

/// The accepting states after `Final States`, up to and including `Transitions` (whose
/// position is returned).
fn final_section(
    lx: &mut Lexer<'_>,
    states: &States<'_>,
) -> Result<(Vec<usize>, usize), ParseError> {
    let mut accepting: Vec<usize> = Vec::new();
    let transitions_at = loop {
        let tok = lx.next();
        if tok.is_word("Transitions") {
            break tok.start;
        }
        if tok.is_word("Systems") {
            return Err(lx.error(
                tok.start,
                "missing `Transitions` section before `Systems` (write `Transitions` followed \
                 by rules `x -> q0` and `a(q0) -> q1`)",
            ));
        }
        if tok.kind != Tok::Word || KEYWORDS.contains(&tok.text) {
            return Err(lx.expected(&tok, "an accepting state or `Transitions`"));
        }
        let s = states.id(lx, &tok)?;
        if !accepting.contains(&s) {
            accepting.push(s);
        }
    };

    Ok((accepting, transitions_at))
}

/// Initial states, transitions `(from, letter, to)` and the position of `Systems`, if any.
type Rules = (Vec<usize>, Vec<(usize, usize, usize)>, Option<usize>);

/// The rules after `Transitions`, up to `Systems` or the end of input.
fn transitions_section(
    lx: &mut Lexer<'_>,
    ops: &Ops<'_>,
    states: &States<'_>,
    transitions_at: usize,
) -> Result<Rules, ParseError> {
    let mut initial: Vec<usize> = Vec::new();
    let mut transitions: Vec<(usize, usize, usize)> = Vec::new();
    let systems_at = loop {
        let tok = lx.next();
        if tok.kind == Tok::Eof {
            break None;
        }
        if tok.is_word("Systems") {
            break Some(tok.start);
        }
        if tok.kind != Tok::Word || KEYWORDS.contains(&tok.text) {
            return Err(lx.expected(
                &tok,
                "a rule `a(q) -> q'` or `x -> q`, `Systems` or end of input",
            ));
        }
        let sym = ops.symbols.get(tok.text).copied();
        let after = lx.next();
        match after.kind {
            Tok::LParen => {
                let letter = match sym {
                    Some(Symbol {
                        arity: 1, index, ..
                    }) => index,
                    Some(_) => {
                        return Err(lx.error(
                            tok.start,
                            format!(
                                "arity mismatch: `{0}` has arity 0 in `Ops` (an initial \
                                 marker), it is used as `{0} -> q`, not `{0}(q) -> q'`",
                                tok.text
                            ),
                        ))
                    }
                    None => {
                        return Err(lx.error(
                            tok.start,
                            format!(
                                "unknown letter `{}`; letters declared in `Ops`: {}",
                                tok.text,
                                name_list(&ops.letters)
                            ),
                        ))
                    }
                };
                let from = lx.name(format_args!("a state inside `{}(`", tok.text))?;
                let from = states.id(lx, &from)?;
                lx.expect(Tok::RParen, "`)` after the source state")?;
                lx.expect(Tok::Arrow, "`->` after `)`")?;
                let to = lx.name("a target state after `->`")?;
                let to = states.id(lx, &to)?;
                transitions.push((from, letter, to));
            }
            Tok::Arrow => {
                match sym {
                    Some(Symbol { arity: 0, .. }) => {}
                    Some(_) => {
                        return Err(lx.error(
                            tok.start,
                            format!(
                                "arity mismatch: `{0}` has arity 1 in `Ops` (a letter), \
                                 write a transition `{0}(q) -> q'`; initial states are marked \
                                 with a symbol of arity 0 (`{1} -> q`)",
                                tok.text,
                                ops.nullary.first().map_or("x", String::as_str)
                            ),
                        ))
                    }
                    None => {
                        return Err(lx.error(
                            tok.start,
                            format!(
                                "undeclared symbol `{0}`: a rule `{0} -> q` needs `{0}` \
                                 declared with arity 0 in `Ops` (`{0}:0`); symbols of arity 0 \
                                 in `Ops`: {1}",
                                tok.text,
                                name_list(&ops.nullary)
                            ),
                        ))
                    }
                }
                let to = lx.name("a state after `->`")?;
                let to = states.id(lx, &to)?;
                if !initial.contains(&to) {
                    initial.push(to);
                }
            }
            _ => return Err(lx.expected(&after, &format!("`(` or `->` after `{}`", tok.text))),
        }
    };
    if initial.is_empty() {
        return Err(lx.error(
            transitions_at,
            format!(
                "no initial state: `Transitions` has no rule `{} -> q` (a symbol of arity 0 \
                 of `Ops` to a state)",
                ops.nullary.first().map_or("x", String::as_str)
            ),
        ));
    }

    Ok((initial, transitions, systems_at))
}

/// The `Systems` block after its keyword (at byte `systems_at`): `[name] letters...` up to the
/// end of input; every letter of `letters` in exactly one location.
fn systems_block(
    lx: &mut Lexer<'_>,
    systems_at: usize,
    symbols: &HashMap<&str, Symbol>,
    letters: &[String],
) -> Result<Vec<(String, Vec<usize>)>, ParseError> {
    let mut locations: Vec<(String, Vec<usize>)> = Vec::new();
    // Location name -> byte offset of its name.
    let mut location_at: HashMap<&str, usize> = HashMap::new();
    // Letter -> (location index, byte offset where it was listed).
    let mut owner: Vec<Option<(usize, usize)>> = vec![None; letters.len()];
    let mut tok = lx.next();
    loop {
        match tok.kind {
            Tok::Eof => break,
            Tok::LBracket => {}
            _ if locations.is_empty() => {
                return Err(lx.expected(&tok, "`[` opening a location like `[l1] a0 a1`"))
            }
            _ => {
                return Err(lx.expected(
                    &tok,
                    "a letter, `[` opening the next location or end of input",
                ))
            }
        }
        let name = lx.next();
        if name.kind != Tok::Word {
            return Err(lx.expected(&name, "a location name after `[`"));
        }
        if let Some(&first) = location_at.get(name.text) {
            return Err(lx.error(
                name.start,
                format!(
                    "location `{}` is listed twice in `Systems` (first at {}); list all its \
                     letters after one `[{}]`",
                    name.text,
                    lx.position(first),
                    name.text
                ),
            ));
        }
        lx.expect(
            Tok::RBracket,
            format_args!("`]` after location name `{}`", name.text),
        )?;
        let k = locations.len();
        location_at.insert(name.text, name.start);
        let mut mine: Vec<usize> = Vec::new();
        tok = lx.next();
        while matches!(tok.kind, Tok::Word | Tok::Comma) {
            if tok.kind == Tok::Word {
                let letter = match symbols.get(tok.text) {
                    Some(Symbol {
                        arity: 1, index, ..
                    }) => *index,
                    Some(_) => {
                        return Err(lx.error(
                            tok.start,
                            format!(
                                "`{}` has arity 0 in `Ops` (an initial marker), it is not a \
                                 letter; remove it from `Systems`",
                                tok.text
                            ),
                        ))
                    }
                    None => {
                        return Err(lx.error(
                            tok.start,
                            format!(
                                "unknown letter `{}` in location {}; letters declared in \
                                 `Ops`: {}",
                                tok.text,
                                name.text,
                                name_list(letters)
                            ),
                        ))
                    }
                };
                match owner.get(letter).copied().flatten() {
                    Some((j, at)) if j == k => {
                        return Err(lx.error(
                            tok.start,
                            format!(
                                "letter `{}` is listed twice in location {} (first at {})",
                                tok.text,
                                name.text,
                                lx.position(at)
                            ),
                        ))
                    }
                    Some((j, at)) => {
                        let other = locations.get(j).map_or("?", |(n, _)| n.as_str());
                        return Err(lx.error(
                            tok.start,
                            format!(
                                "letter `{}` is already in location {other} (at {}); each \
                                 letter belongs to exactly one location: remove it from one \
                                 of them",
                                tok.text,
                                lx.position(at)
                            ),
                        ));
                    }
                    None => {}
                }
                if let Some(slot) = owner.get_mut(letter) {
                    *slot = Some((k, tok.start));
                }
                mine.push(letter);
            }
            tok = lx.next();
        }
        locations.push((name.text.to_string(), mine));
    }
    let missing: Vec<String> = owner
        .iter()
        .zip(letters)
        .filter(|(o, _)| o.is_none())
        .map(|(_, l)| l.clone())
        .collect();
    if let Some(first) = missing.first() {
        let (subject, verb) = if missing.len() == 1 {
            (format!("letter `{first}`"), "is")
        } else {
            (format!("letters {}", name_list(&missing)), "are")
        };
        let example = locations.first().map_or("l1", |(n, _)| n.as_str());
        return Err(lx.error(
            systems_at,
            format!(
                "{subject} of `Ops` {verb} in no location of `Systems`; each letter belongs to \
                 exactly one location: add {} to a location, e.g. `[{example}] ... {first}`",
                if missing.len() == 1 { "it" } else { "each" }
            ),
        ));
    }
    Ok(locations)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const SMALL: &str = "Ops a0:1 a1:1 a2:1 x:0

Automaton A
States q0 q1 q2
Final States q1
Transitions
x -> q0
a1(q0) -> q1
a0(q1) -> q1
";

    fn parse(text: &str) -> TimbukAutomaton {
        parse_timbuk("t.timbuk", text).unwrap_or_else(|e| panic!("{e}"))
    }

    #[track_caller]
    fn assert_err(text: &str, line: u32, column: u32, fragment: &str) {
        match parse_timbuk("t.timbuk", text) {
            Ok(a) => panic!("expected an error, got {a:?}"),
            Err(e) => {
                assert!(
                    e.message.contains(fragment),
                    "message `{}` lacks `{fragment}`",
                    e.message
                );
                assert_eq!((e.line, e.column), (line, column), "{e}");
                assert!(e.to_string().starts_with("t.timbuk:"), "{e}");
            }
        }
    }

    #[test]
    fn small_automaton() {
        let a = parse(SMALL);
        assert_eq!(a.letters, ["a0", "a1", "a2"]);
        assert_eq!(a.states, ["q0", "q1", "q2"]);
        assert_eq!(a.initial, [0]);
        assert_eq!(a.accepting, [1]);
        assert_eq!(a.transitions, [(0, 1, 1), (1, 0, 1)]);
        assert_eq!(a.systems, None);
    }

    #[test]
    fn free_form_layout() {
        let a = parse(
            "Ops\na0 : 1\n x:\n0 Automaton\n\tA States q0:0 q1 Final\nStates Transitions x->q0 \
             a0 ( q0\n)\n->\nq1 x -> q0",
        );
        assert_eq!(a.states, ["q0", "q1"]);
        assert_eq!(a.initial, [0]);
        assert!(a.accepting.is_empty());
        assert_eq!(a.transitions, [(0, 0, 1)]);
        // Names are any non-whitespace runs without punctuation.
        let a = parse(
            "Ops é-1:1 a.b:1 x0:0 Automaton my-aut States s>1 s-2 Final States s-2 Transitions \
             x0 -> s>1 é-1(s>1)->s-2 a.b(s-2) -> s>1",
        );
        assert_eq!(a.letters, ["é-1", "a.b"]);
        assert_eq!(a.states, ["s>1", "s-2"]);
        assert_eq!(a.transitions, [(0, 0, 1), (1, 1, 0)]);
        // Windows line ends.
        let a = parse(&SMALL.replace('\n', "\r\n"));
        assert_eq!(a.transitions.len(), 2);
    }

    #[test]
    fn several_initial_states() {
        let a = parse(
            "Ops a:1 x:0 y:0 Automaton A States p q r Final States r p r Transitions \
             x -> q y -> p x -> q a(p) -> r",
        );
        assert_eq!(a.initial, [1, 0]);
        assert_eq!(a.accepting, [2, 0]);
        assert_eq!(a.transitions, [(0, 0, 2)]);
    }

    #[test]
    fn systems_block() {
        let a = parse(&format!("{SMALL}Systems\n    [l1] a0 a1\n    [l2] a2\n"));
        assert_eq!(
            a.systems,
            Some(vec![
                ("l1".to_string(), vec![0, 1]),
                ("l2".to_string(), vec![2])
            ])
        );
        // Commas between letters, locations in any order, a location without letters.
        let a = parse(&format!("{SMALL}Systems [l2] a2, a0 [l0] [l1]a1"));
        assert_eq!(
            a.systems,
            Some(vec![
                ("l2".to_string(), vec![2, 0]),
                ("l0".to_string(), vec![]),
                ("l1".to_string(), vec![1])
            ])
        );
        // No letters at all: an empty block is fine.
        let a = parse("Ops x:0 Automaton A States q Final States Transitions x -> q Systems");
        assert_eq!(a.systems, Some(vec![]));
    }

    #[test]
    fn systems_errors() {
        let base = format!("{SMALL}Systems\n");
        // SMALL has 9 lines; `Systems` is on line 10.
        assert_err(
            &format!("{base}[l1] a0 a1\n[l2] a2 a1"),
            12,
            9,
            "letter `a1` is already in location l1 (at 11:9); each letter belongs to exactly one \
             location",
        );
        assert_err(
            &format!("{base}[l1] a0 a1 a0 [l2] a2"),
            11,
            12,
            "letter `a0` is listed twice in location l1 (first at 11:6)",
        );
        assert_err(
            &format!("{base}[l1] a0 a1\n[l2] a9"),
            12,
            6,
            "unknown letter `a9` in location l2; letters declared in `Ops`: a0, a1, a2",
        );
        assert_err(
            &format!("{base}[l1] a0 x"),
            11,
            9,
            "`x` has arity 0 in `Ops` (an initial marker), it is not a letter",
        );
        assert_err(
            &format!("{base}[l1] a0\n"),
            10,
            1,
            "letters a1, a2 of `Ops` are in no location of `Systems`; each letter belongs to \
             exactly one location: add each to a location, e.g. `[l1] ... a1`",
        );
        assert_err(
            &format!("{base}[l1] a0 a1"),
            10,
            1,
            "letter `a2` of `Ops` is in no location",
        );
        assert_err(
            &format!("{base}[l1] a0 a1 [l1] a2"),
            11,
            13,
            "location `l1` is listed twice in `Systems` (first at 11:2)",
        );
        assert_err(
            &format!("{base}a0 [l1] a0 a1 a2"),
            11,
            1,
            "expected `[` opening a location like `[l1] a0 a1`, found `a0`",
        );
        assert_err(
            &format!("{base}[l1 a0"),
            11,
            5,
            "expected `]` after location name `l1`, found `a0`",
        );
        assert_err(
            &format!("{base}[] a0"),
            11,
            2,
            "expected a location name after `[`, found `]`",
        );
        assert_err(
            &format!("{base}[l1] a0 a1 a2 )"),
            11,
            15,
            "expected a letter, `[` opening the next location or end of input, found `)`",
        );
        assert_err(&format!("{base}["), 11, 2, "unexpected end of input");
    }

    #[test]
    fn rule_errors() {
        let head = "Ops a0:1 a1:1 x:0\nAutomaton A\nStates q0 q1\nFinal States q1\nTransitions\n";
        assert_err(
            &format!("{head}x -> q0\n  a7(q0) -> q1"),
            7,
            3,
            "unknown letter `a7`; letters declared in `Ops`: a0, a1",
        );
        assert_err(
            &format!("{head}x -> q0\na0(q0) -> q9"),
            7,
            11,
            "unknown state `q9`; states declared in `States`: q0, q1",
        );
        assert_err(
            &format!("{head}x -> q0\na0(q5) -> q1"),
            7,
            4,
            "unknown state `q5`",
        );
        assert_err(&format!("{head}x -> q3"), 6, 6, "unknown state `q3`");
        assert_err(
            &format!("{head}x -> q0\nx(q0) -> q1"),
            7,
            1,
            "arity mismatch: `x` has arity 0 in `Ops` (an initial marker)",
        );
        assert_err(
            &format!("{head}a0 -> q0"),
            6,
            1,
            "arity mismatch: `a0` has arity 1 in `Ops` (a letter), write a transition \
             `a0(q) -> q'`",
        );
        assert_err(
            &format!("{head}y -> q0"),
            6,
            1,
            "undeclared symbol `y`: a rule `y -> q` needs `y` declared with arity 0 in `Ops` \
             (`y:0`); symbols of arity 0 in `Ops`: x",
        );
        assert_err(
            &format!("{head}x -> q0\na0 q0 -> q1"),
            7,
            4,
            "expected `(` or `->` after `a0`, found `q0`",
        );
        assert_err(
            &format!("{head}x -> q0\na0(q0 -> q1"),
            7,
            7,
            "expected `)` after the source state, found `->`",
        );
        assert_err(
            &format!("{head}x -> q0\na0(q0) q1"),
            7,
            8,
            "expected `->` after `)`, found `q1`",
        );
        assert_err(
            &format!("{head}x -> q0\na0(q0) ->"),
            7,
            10,
            "unexpected end of input, expected a target state after `->`",
        );
        assert_err(
            &format!("{head}x -> q0\na0() -> q1"),
            7,
            4,
            "expected a state inside `a0(`, found `)`",
        );
        assert_err(
            &format!("{head}x -> q0\n(q0) -> q1"),
            7,
            1,
            "expected a rule `a(q) -> q'` or `x -> q`, `Systems` or end of input, found `(`",
        );
        assert_err(&format!("{head}x -> q0\nStates q2"), 7, 1, "found `States`");
        assert_err(
            &format!("{head}a0(q0) -> q1"),
            5,
            1,
            "no initial state: `Transitions` has no rule `x -> q`",
        );
    }

    #[test]
    fn section_errors() {
        assert_err("", 1, 1, "empty file: expected a Timbuk automaton");
        assert_err(" \n\t\n", 3, 1, "empty file");
        assert_err(
            "Automaton A",
            1,
            1,
            "expected `Ops` opening a Timbuk automaton, found `Automaton`",
        );
        assert_err(
            "Ops a0:1 x:0 States q0",
            1,
            14,
            "`States` is a keyword and cannot name a symbol; expected a symbol `name:arity` or \
             `Automaton`",
        );
        assert_err(
            "Ops a0:1 x:0\nA States q0",
            2,
            3,
            "expected `:` and an arity after symbol `A`, found `States`",
        );
        assert_err(
            "Ops a0:1 x:0",
            1,
            13,
            "unexpected end of input, expected a symbol `name:arity` or `Automaton`",
        );
        assert_err(
            "Ops a0:1 Transitions:1 Automaton",
            1,
            10,
            "`Transitions` is a keyword and cannot name a symbol",
        );
        assert_err(
            "Ops a0 x:0",
            1,
            8,
            "expected `:` and an arity after symbol `a0`, found `x`",
        );
        assert_err(
            "Ops a0:one",
            1,
            8,
            "expected the arity of symbol `a0` (0 or 1), found `one`",
        );
        assert_err(
            "Ops f:2 x:0",
            1,
            7,
            "symbol `f` has arity 2: only word automata are supported",
        );
        assert_err(
            "Ops f:99999999999999999999 x:0",
            1,
            7,
            "has arity 99999999999999999999",
        );
        assert_err(
            "Ops a:1 b:1\n a:1",
            2,
            2,
            "symbol `a` is declared twice in `Ops` (first at 1:5)",
        );
        assert_err(
            "Ops x:0 Automaton States q0",
            1,
            19,
            "expected the automaton's name after `Automaton`, found `States`",
        );
        assert_err(
            "Ops x:0 Automaton A Final States",
            1,
            21,
            "expected `States` after the automaton's name, found `Final`",
        );
        assert_err(
            "Ops x:0 Automaton A States q0 q1\n  q0 Final States",
            2,
            3,
            "duplicate state `q0` (first declared at 1:28)",
        );
        assert_err(
            "Ops x:0 Automaton A States q0:1 Final States",
            1,
            31,
            "expected arity `0` after state `q0:`",
        );
        assert_err(
            "Ops x:0 Automaton A States q0 Transitions x -> q0",
            1,
            31,
            "missing `Final States` section before `Transitions`",
        );
        assert_err(
            "Ops x:0 Automaton A States q0 ( Final States",
            1,
            31,
            "expected a state name or `Final States`, found `(`",
        );
        assert_err(
            "Ops x:0 Automaton A States q0 Final q0",
            1,
            37,
            "expected `States` after `Final`, found `q0`",
        );
        assert_err(
            "Ops x:0 Automaton A States q0 Final States q0",
            1,
            46,
            "unexpected end of input, expected an accepting state or `Transitions`",
        );
        assert_err(
            "Ops x:0 Automaton A States q0 Final States q7 Transitions",
            1,
            44,
            "unknown state `q7`; states declared in `States`: q0",
        );
        assert_err(
            "Ops x:0 Automaton A States q0 Final States Systems [l] ",
            1,
            44,
            "missing `Transitions` section before `Systems`",
        );
        assert_err(
            "Ops x:0 Automaton A States q0 Final States Transitions x -> q0 ] garbage",
            1,
            64,
            "expected a rule `a(q) -> q'` or `x -> q`, `Systems` or end of input, found `]`",
        );
        assert_err(
            "Ops a:1 \u{7}:1",
            1,
            9,
            "expected a symbol `name:arity` or `Automaton`, found character U+0007",
        );
    }

    #[test]
    fn long_words_are_shortened_in_messages() {
        let long = "z".repeat(100);
        let e = parse_timbuk("f", &format!("Ops a:1 b {long}")).unwrap_err();
        assert!(
            e.message.contains(&format!("`{}...`", "z".repeat(40))),
            "{e}"
        );
    }

    /// The AutomatArk NFAs of seed 004, read from the shared data folder when it exists.
    #[test]
    fn automatark_files() {
        let Some(root) = multitrace_runtime::testdata::data("", "automatark_files") else {
            return;
        };
        let nfa = root.join("automatark/NFA");
        let cases = [
            (
                "Bakery-4P-BinEnc-BwBad/armcNFA_inclTest_12.timbuk",
                94,
                320,
                1,
            ),
            (
                "Bakery-4P-BinEnc-BwBad/armcNFA_inclTest_11.timbuk",
                35,
                75,
                1,
            ),
            (
                "Bakery-4P-BinEnc-BwBad/armcNFA_inclTest_6.timbuk",
                15,
                23,
                1,
            ),
            (
                "IBakery4pBinEnc-FbtOneOne-Nondet/armcNFA_inclTest_10.timbuk",
                124,
                348,
                2,
            ),
        ];
        // Seed 004's partition: l1 = a0-a5 and a16, l2 = a6-a10, a17 and a18, l3 = a11-a15.
        let systems = "\nSystems\n  [l1] a0 a1 a2 a3 a4 a5 a16\n  [l2] a6 a7 a8 a9 a10 a17 \
                       a18\n  [l3] a11 a12 a13 a14 a15\n";
        for (path, states, transitions, initial) in cases {
            let path = nfa.join(path);
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let name = path.display().to_string();
            let a = parse_timbuk(&name, &text).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(a.states.len(), states, "{name}");
            assert_eq!(a.transitions.len(), transitions, "{name}");
            assert_eq!(a.initial.len(), initial, "{name}");
            assert_eq!(a.letters.len(), 19, "{name}");
            assert_eq!(a.accepting.len(), 1, "{name}");
            assert_eq!(a.systems, None);
            let with =
                parse_timbuk(&name, &format!("{text}{systems}")).unwrap_or_else(|e| panic!("{e}"));
            let locs = with.systems.expect("a Systems block");
            let sizes: Vec<usize> = locs.iter().map(|(_, ls)| ls.len()).collect();
            assert_eq!(sizes, [7, 7, 5]);
        }
    }

    const TOKENS: &[&str] = &[
        "Ops",
        "Automaton",
        "States",
        "Final",
        "Transitions",
        "Systems",
        "a0",
        "a1",
        "x",
        "q0",
        "q1",
        ":",
        "0",
        "1",
        "2",
        "(",
        ")",
        "->",
        "-",
        ">",
        "[",
        "]",
        ",",
        "l1",
        " ",
        "\n",
        "é",
        "\0",
    ];

    proptest! {
        #[test]
        fn never_panics_on_strings(text in any::<String>()) {
            let _ = parse_timbuk("f", &text);
        }

        #[test]
        fn never_panics_on_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let _ = parse_timbuk("f", &String::from_utf8_lossy(&bytes));
        }

        #[test]
        fn never_panics_on_token_soup(
            toks in proptest::collection::vec(proptest::sample::select(TOKENS), 0..80),
            spaced in any::<bool>(),
        ) {
            let text = toks.join(if spaced { " " } else { "" });
            let _ = parse_timbuk("f", &text);
            let _ = parse_timbuk("f", &format!("{SMALL}{text}"));
            let _ = parse_timbuk("f", &format!("{SMALL}Systems {text}"));
        }

        #[test]
        fn generated_automata_parse(
            n_letters in 1usize..6,
            n_states in 1usize..6,
            rules in proptest::collection::vec((0usize..6, 0usize..6, 0usize..6), 0..20),
        ) {
            let mut text = String::from("Ops");
            for l in 0..n_letters {
                text.push_str(&format!(" a{l}:1"));
            }
            text.push_str(" x:0\nAutomaton A\nStates");
            for s in 0..n_states {
                text.push_str(&format!(" q{s}"));
            }
            text.push_str("\nFinal States q0\nTransitions\nx -> q0\n");
            let rules: Vec<(usize, usize, usize)> = rules
                .into_iter()
                .map(|(f, l, t)| (f % n_states, l % n_letters, t % n_states))
                .collect();
            for &(f, l, t) in &rules {
                text.push_str(&format!("a{l}(q{f}) -> q{t}\n"));
            }
            let a = parse_timbuk("f", &text).unwrap();
            prop_assert_eq!(a.transitions, rules);
            prop_assert_eq!(a.states.len(), n_states);
        }
    }
}
