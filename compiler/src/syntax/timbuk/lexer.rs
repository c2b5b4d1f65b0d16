//! The tokens of Timbuk files on the shared [`Cursor`], with one token of lookahead, and how
//! messages name them. Never panics; every token's start is a byte offset into the whole text.

use multitrace_model::syntax::{describe_char, quote_word, Cursor, ParseError};
use std::fmt;

pub(super) const KEYWORDS: &[&str] = &[
    "Ops",
    "Automaton",
    "States",
    "Final",
    "Transitions",
    "Systems",
];

pub(super) const SHAPE: &str =
    "`Ops a0:1 x:0  Automaton A  States q0 q1  Final States q1  Transitions  \
                     x -> q0  a0(q0) -> q1`";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Tok {
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
pub(super) struct Token<'a> {
    pub(super) kind: Tok,
    pub(super) start: usize,
    pub(super) text: &'a str,
}

impl Token<'_> {
    pub(super) fn is_word(&self, w: &str) -> bool {
        self.kind == Tok::Word && self.text == w
    }
}

/// The one-character tokens.
pub(super) fn punctuation(c: char) -> Option<Tok> {
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
pub(super) fn is_stray(c: char) -> bool {
    c.is_control() || c == '\u{feff}'
}

/// The tokens of Timbuk on the shared [`Cursor`] (no comments in this format).
pub(super) struct Lexer<'a> {
    pub(super) c: Cursor<'a>,
}

impl<'a> Lexer<'a> {
    pub(super) fn new(file: &'a str, text: &'a str) -> Self {
        Lexer {
            c: Cursor::new(file, text),
        }
    }

    pub(super) fn error(&self, at: usize, message: impl Into<String>) -> ParseError {
        self.c.error(at, message)
    }

    pub(super) fn next(&mut self) -> Token<'a> {
        scan(&mut self.c)
    }

    /// The next token, without moving (rare in Timbuk: a copy of the cursor scans it).
    pub(super) fn peek(&self) -> Token<'a> {
        let mut ahead = self.c;
        scan(&mut ahead)
    }

    /// "expected WHAT, found TOKEN" (or "unexpected end of input, expected WHAT").
    pub(super) fn expected(&self, tok: &Token<'_>, what: &str) -> ParseError {
        match tok.kind {
            Tok::Eof => self.c.expected_found(tok.start, what, None),
            _ => self.c.expected_found(tok.start, what, Some(&describe(tok))),
        }
    }

    /// The next token, which must be a name (not a keyword). `what` is only formatted for an
    /// error (pass `format_args!`, not `format!`: this runs for every rule).
    pub(super) fn name(&mut self, what: impl fmt::Display) -> Result<Token<'a>, ParseError> {
        let tok = self.next();
        if tok.kind == Tok::Word && !KEYWORDS.contains(&tok.text) {
            Ok(tok)
        } else {
            Err(self.expected(&tok, &what.to_string()))
        }
    }

    /// The next token, which must be of `kind`; `what` as for [`Lexer::name`].
    pub(super) fn expect(
        &mut self,
        kind: Tok,
        what: impl fmt::Display,
    ) -> Result<Token<'a>, ParseError> {
        let tok = self.next();
        if tok.kind == kind {
            Ok(tok)
        } else {
            Err(self.expected(&tok, &what.to_string()))
        }
    }

    pub(super) fn position(&self, at: usize) -> String {
        self.c.position(at)
    }
}

/// Reads one token at `c` (after whitespace; Timbuk has no comments).
pub(super) fn scan<'a>(c: &mut Cursor<'a>) -> Token<'a> {
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
pub(super) fn describe(tok: &Token<'_>) -> String {
    match tok.kind {
        Tok::Eof => "end of input".to_string(),
        Tok::Other => describe_char(tok.text.chars().next().unwrap_or(' ')),
        Tok::Word => quote_word(tok.text),
        _ => format!("`{}`", tok.text),
    }
}
