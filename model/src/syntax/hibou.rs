//! The one lexer of HIBOU syntax, shared by signatures (`.hsf`) and interactions (`.hif`) in
//! the compiler and multitraces (`.htf`, in `multitrace_formats`).
//!
//! The three file kinds share identifiers `[A-Za-z_][A-Za-z0-9_]*`, whitespace and `/* */`
//! comments between any two tokens, the punctuation `{ } [ ] ( ) , ; . ! ? |` and `∅`. Each
//! kind adds tokens of its own, which its [`Dialect`] switches on: `#all` (`.htf`), `@name`
//! (`.hsf`), `--`, `->` and `<word>` (`.hif`). Where a dialect lacks a token its text reads as
//! the smaller tokens it is made of (`#all` in a `.hif` is the character `#`, then `all`), so
//! every reader's messages name what that reader sees. The dialect also says how a message
//! names a token found where another was expected.
//!
//! # Invariants
//!
//! - Scanning is the [`Cursor`]'s: it never panics, and a [`Token`]'s `start` is a byte offset
//!   into the whole text and its `text` the text from there to the token's end.
//! - One token of lookahead: [`Lexer::peek`] keeps the token it read with the cursor after it,
//!   so the next [`Lexer::next`] does not scan it again.

use super::cursor::Cursor;
use super::error::ParseError;
use super::names::{describe_char, is_ident_continue, is_ident_start};
use std::marker::PhantomData;

/// The kind of a HIBOU token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tok {
    /// An identifier.
    Ident,
    /// `#all`, every lifeline (`.htf`, [`Dialect::ALL`]).
    All,
    /// `@name`, a section header (`.hsf`, [`Dialect::SECTION`]).
    Section,
    /// `∅`, the empty interaction.
    EmptySym,
    /// `{`
    LBrace,
    /// `}`
    RBrace,
    /// `[`
    LBracket,
    /// `]`
    RBracket,
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `,`
    Comma,
    /// `;`
    Semi,
    /// `.`
    Dot,
    /// `!`
    Bang,
    /// `?`
    Question,
    /// `|`
    Bar,
    /// `--` ([`Dialect::ARROWS`]).
    Dashes,
    /// `->` ([`Dialect::ARROWS`]).
    Arrow,
    /// `<word>`, as in `<synch>` ([`Dialect::ARROWS`]).
    Angle,
    /// Any other character.
    Other(char),
    /// The end of the text.
    Eof,
}

/// A token: its kind, its start (a byte offset into the text) and its text.
#[derive(Clone, Copy, Debug)]
pub struct Token<'a> {
    /// What it is.
    pub kind: Tok,
    /// Byte offset of its first character in the whole text.
    pub start: usize,
    /// Its text (empty at the end of the text).
    pub text: &'a str,
}

/// The tokens one HIBOU file kind adds to the shared ones, and how its messages name a token.
///
/// Implemented by a unit type per reader; the constants are known when the lexer is compiled
/// for it, so a dialect costs no test at run time.
pub trait Dialect {
    /// `#all` is a token.
    const ALL: bool = false;
    /// `@` directly followed by an identifier is one token.
    const SECTION: bool = false;
    /// `--`, `->` and `<word>` are tokens.
    const ARROWS: bool = false;

    /// How a message names `tok`, found where something else was expected (`None` at the end
    /// of the input); [`found`] by default.
    fn found(c: &Cursor<'_>, tok: &Token<'_>) -> Option<String> {
        let _ = c;
        found(tok)
    }

    /// "expected WHAT, found TOKEN" (or "unexpected end of input, expected WHAT").
    fn expected(c: &Cursor<'_>, tok: &Token<'_>, what: &str) -> ParseError {
        c.expected_found(tok.start, what, Self::found(c, tok).as_deref())
    }
}

/// How messages name a token found where another was expected, unless a dialect says
/// otherwise: `None` at the end of the input, the character as [`describe_char`] says for any
/// other character, the token's text in backquotes otherwise.
pub fn found(tok: &Token<'_>) -> Option<String> {
    match tok.kind {
        Tok::Eof => None,
        Tok::Other(ch) => Some(describe_char(ch)),
        _ => Some(format!("`{}`", tok.text)),
    }
}

/// The one-byte tokens.
#[inline]
fn punctuation(b: u8) -> Option<Tok> {
    Some(match b {
        b'{' => Tok::LBrace,
        b'}' => Tok::RBrace,
        b'[' => Tok::LBracket,
        b']' => Tok::RBracket,
        b'(' => Tok::LParen,
        b')' => Tok::RParen,
        b',' => Tok::Comma,
        b';' => Tok::Semi,
        b'.' => Tok::Dot,
        b'!' => Tok::Bang,
        b'?' => Tok::Question,
        b'|' => Tok::Bar,
        _ => return None,
    })
}

/// Reads one token at `c` (after whitespace and comments).
#[inline]
fn scan<'a, D: Dialect>(c: &mut Cursor<'a>) -> Result<Token<'a>, ParseError> {
    c.skip_trivia()?;
    let start = c.pos();
    let kind = match c.peek_byte() {
        None => Tok::Eof,
        Some(b) if is_ident_start(b) => {
            c.take_while_ascii(is_ident_continue);
            Tok::Ident
        }
        Some(b) => match punctuation(b) {
            Some(kind) => {
                c.eat_byte(b);
                kind
            }
            None => scan_rare::<D>(c, b, start),
        },
    };
    Ok(Token {
        kind,
        start,
        text: c.since(start),
    })
}

/// The tokens that start with a byte other than a letter or punctuation; moves past the token.
fn scan_rare<D: Dialect>(c: &mut Cursor<'_>, b: u8, start: usize) -> Tok {
    match b {
        b'#' if D::ALL && c.starts_with("#all") && c.word_at(start + 1).len() == 3 => {
            c.eat("#all");
            Tok::All
        }
        b'@' if D::SECTION && c.peek_byte_after().is_some_and(is_ident_start) => {
            c.eat_byte(b'@');
            c.take_while_ascii(is_ident_continue);
            Tok::Section
        }
        b'-' if D::ARROWS && c.eat("--") => Tok::Dashes,
        b'-' if D::ARROWS && c.eat("->") => Tok::Arrow,
        b'<' if D::ARROWS => {
            // `<word>` is one token, a lone `<` another character.
            let mut probe = *c;
            probe.eat_byte(b'<');
            let word = probe.take_while_ascii(is_ident_continue);
            if !word.is_empty() && probe.eat_byte(b'>') {
                *c = probe;
                Tok::Angle
            } else {
                c.eat_byte(b'<');
                Tok::Other('<')
            }
        }
        _ if c.eat("∅") => Tok::EmptySym,
        _ => c.bump().map_or(Tok::Eof, Tok::Other),
    }
}

/// The tokens of a text in dialect `D`, with one token of lookahead.
pub struct Lexer<'a, D> {
    /// The cursor, before the peeked token if there is one.
    c: Cursor<'a>,
    peeked: Option<(Token<'a>, Cursor<'a>)>,
    dialect: PhantomData<D>,
}

impl<'a, D: Dialect> Lexer<'a, D> {
    /// A lexer at the start of `text`; `file` names the input in errors.
    pub fn new(file: &'a str, text: &'a str) -> Self {
        Lexer {
            c: Cursor::new(file, text),
            peeked: None,
            dialect: PhantomData,
        }
    }

    /// The cursor (before the peeked token, if any): for positions and errors.
    pub fn cursor(&self) -> &Cursor<'a> {
        &self.c
    }

    /// The next token.
    // Not an `Iterator`: a token can fail (an unterminated comment), and `Eof` repeats.
    #[allow(clippy::should_implement_trait)]
    #[inline(always)]
    pub fn next(&mut self) -> Result<Token<'a>, ParseError> {
        match self.peeked.take() {
            Some((tok, after)) => {
                self.c = after;
                Ok(tok)
            }
            None => scan::<D>(&mut self.c),
        }
    }

    /// The next token, without consuming it.
    #[inline(always)]
    pub fn peek(&mut self) -> Result<Token<'a>, ParseError> {
        if let Some((tok, _)) = self.peeked {
            return Ok(tok);
        }
        let mut after = self.c;
        let tok = scan::<D>(&mut after)?;
        self.peeked = Some((tok, after));
        Ok(tok)
    }

    /// "expected WHAT, found TOKEN", as the dialect names `tok`.
    pub fn expected(&self, tok: &Token<'_>, what: &str) -> ParseError {
        D::expected(&self.c, tok, what)
    }

    /// The next token if it is a `kind`, else [`Lexer::expected`] `what`.
    pub fn expect(&mut self, kind: Tok, what: &str) -> Result<Token<'a>, ParseError> {
        let tok = self.next()?;
        if tok.kind == kind {
            Ok(tok)
        } else {
            Err(self.expected(&tok, what))
        }
    }

    /// An error at byte offset `at` of the text.
    pub fn error(&self, at: usize, message: impl Into<String>) -> ParseError {
        self.c.error(at, message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// No dialect tokens.
    struct Plain;
    impl Dialect for Plain {}

    /// Every dialect token.
    struct Every;
    impl Dialect for Every {
        const ALL: bool = true;
        const SECTION: bool = true;
        const ARROWS: bool = true;
    }

    fn kinds<D: Dialect>(text: &str) -> Vec<(Tok, &str)> {
        let mut lx = Lexer::<D>::new("f", text);
        let mut out = Vec::new();
        loop {
            let tok = lx.next().unwrap();
            if tok.kind == Tok::Eof {
                return out;
            }
            out.push((tok.kind, tok.text));
        }
    }

    #[test]
    fn dialect_tokens_are_their_parts_elsewhere() {
        let text = "#all @sec -- -> <w> #allx <1 ∅";
        assert_eq!(
            kinds::<Every>(text),
            [
                (Tok::All, "#all"),
                (Tok::Section, "@sec"),
                (Tok::Dashes, "--"),
                (Tok::Arrow, "->"),
                (Tok::Angle, "<w>"),
                (Tok::Other('#'), "#"),
                (Tok::Ident, "allx"),
                (Tok::Other('<'), "<"),
                (Tok::Other('1'), "1"),
                (Tok::EmptySym, "∅"),
            ]
        );
        assert_eq!(
            kinds::<Plain>("#all @sec -> <w>"),
            [
                (Tok::Other('#'), "#"),
                (Tok::Ident, "all"),
                (Tok::Other('@'), "@"),
                (Tok::Ident, "sec"),
                (Tok::Other('-'), "-"),
                (Tok::Other('>'), ">"),
                (Tok::Other('<'), "<"),
                (Tok::Ident, "w"),
                (Tok::Other('>'), ">"),
            ]
        );
        // `@` before a space is not a section.
        assert_eq!(
            kinds::<Every>("@ x"),
            [(Tok::Other('@'), "@"), (Tok::Ident, "x")]
        );
    }

    #[test]
    fn punctuation_comments_and_lookahead() {
        let text = "{ } [ ] ( ) , ; . ! ? | /* c */ a_1";
        let all = kinds::<Plain>(text);
        assert_eq!(all.len(), 13);
        assert_eq!(all.last(), Some(&(Tok::Ident, "a_1")));
        let mut lx = Lexer::<Plain>::new("f", "x y");
        assert_eq!(lx.peek().unwrap().text, "x");
        assert_eq!(lx.peek().unwrap().text, "x");
        assert_eq!(lx.cursor().pos(), 0);
        assert_eq!(lx.next().unwrap().text, "x");
        let y = lx.expect(Tok::Ident, "a name").unwrap();
        assert_eq!((y.start, y.text), (2, "y"));
        let e = lx.expect(Tok::Ident, "a name").unwrap_err();
        assert_eq!(
            e.to_string(),
            "f:1:4: unexpected end of input, expected a name"
        );
        let mut lx = Lexer::<Plain>::new("f", "\u{1} `");
        let e = lx.expect(Tok::Ident, "a name").unwrap_err();
        assert_eq!(
            e.to_string(),
            "f:1:1: expected a name, found character U+0001"
        );
        let e = lx.expect(Tok::Ident, "a name").unwrap_err();
        assert_eq!(e.to_string(), "f:1:3: expected a name, found a backquote");
        let mut lx = Lexer::<Plain>::new("f", "a /* open");
        lx.next().unwrap();
        assert!(lx.peek().is_err());
    }

    proptest! {
        /// Tokens follow each other through the text: each starts at or after the end of the
        /// one before, its text is the text there, and peeking then reading gives one token.
        #[test]
        fn tokens_tile_the_text(text in "[ a-z_0-9#@<>∅{}()\\[\\],;.!?|\\-/*\n]{0,40}") {
            let mut lx = Lexer::<Every>::new("f", &text);
            let mut end = 0;
            for _ in 0..=text.len() {
                let Ok(peeked) = lx.peek() else { break };
                let tok = lx.next().unwrap();
                prop_assert_eq!(peeked.start, tok.start);
                prop_assert!(tok.start >= end);
                prop_assert_eq!(text.get(tok.start..tok.start + tok.text.len()), Some(tok.text));
                end = tok.start + tok.text.len();
                if tok.kind == Tok::Eof {
                    prop_assert_eq!(tok.start, text.len());
                    break;
                }
                prop_assert!(!tok.text.is_empty());
            }
        }
    }
}
