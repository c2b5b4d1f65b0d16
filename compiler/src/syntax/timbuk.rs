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

mod lexer;

use lexer::{Lexer, Tok, Token, KEYWORDS, SHAPE};
use multitrace_model::syntax::{name_list, ParseError};
use std::collections::HashMap;

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
    // Repeats are ignored; a flag per state keeps that linear (`contains` was quadratic: 80%
    // of reading a 100,000-state ring whose states are all final).
    let mut listed = vec![false; states.names.len()];
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
        if !std::mem::replace(&mut listed[s], true) {
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
mod tests;
