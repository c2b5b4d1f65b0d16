//! A cursor over model text shared by the `.hsf` and `.hif` readers: whitespace and `/* */`
//! comments, identifiers, and descriptions of what was found for error messages.
//!
//! Invariant: `pos` is always a char boundary of `text` (it only moves by whole characters), and
//! every slice is taken with `str::get`, so no input can make the cursor panic.

use multitrace_runtime::syntax::ParseError;
pub(crate) use multitrace_runtime::syntax::{
    describe_char, is_ident_continue, is_ident_start, name_list,
};

/// Position in the text (byte offset) and the file name used in errors.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cursor<'a> {
    pub file: &'a str,
    pub text: &'a str,
    pub pos: usize,
}

impl<'a> Cursor<'a> {
    pub fn new(file: &'a str, text: &'a str) -> Self {
        Cursor { file, text, pos: 0 }
    }

    /// The rest of the text from the cursor.
    pub fn rest(&self) -> &'a str {
        self.text.get(self.pos..).unwrap_or("")
    }

    /// The byte at the cursor.
    pub fn peek_byte(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    /// The character at the cursor.
    pub fn peek_char(&self) -> Option<char> {
        self.rest().chars().next()
    }

    /// Whether the cursor is at the end of the text.
    pub fn at_end(&self) -> bool {
        self.pos >= self.text.len()
    }

    /// An error at byte offset `at`.
    pub fn error(&self, at: usize, message: impl Into<String>) -> ParseError {
        ParseError::at(self.file, self.text, at, message)
    }

    /// Skips whitespace and `/* */` comments (not nested); an unterminated comment is an error
    /// at its opening `/*`.
    pub fn skip_trivia(&mut self) -> Result<(), ParseError> {
        loop {
            let rest = self.rest();
            if rest.starts_with("/*") {
                let start = self.pos;
                match rest.get(2..).and_then(|r| r.find("*/")) {
                    Some(end) => self.pos += 2 + end + 2,
                    None => {
                        return Err(
                            self.error(start, "unterminated comment: `/*` has no matching `*/`")
                        )
                    }
                }
            } else {
                match self.peek_char() {
                    Some(c) if c.is_whitespace() => self.pos += c.len_utf8(),
                    _ => return Ok(()),
                }
            }
        }
    }

    /// Reads an identifier `[A-Za-z_][A-Za-z0-9_]*` at the cursor, returning its start offset.
    pub fn ident(&mut self) -> Option<(usize, &'a str)> {
        let start = self.pos;
        let bytes = self.text.as_bytes();
        if !bytes.get(start).copied().is_some_and(is_ident_start) {
            return None;
        }
        let mut end = start + 1;
        while bytes.get(end).copied().is_some_and(is_ident_continue) {
            end += 1;
        }
        let name = self.text.get(start..end)?;
        self.pos = end;
        Some((start, name))
    }

    /// Describes what is at byte offset `at` for an error message: `` `word` `` for a run of
    /// identifier characters, `` `c` `` for another character, `end of input` at the end.
    pub fn describe(&self, at: usize) -> String {
        describe_at(self.text, at)
    }

    /// "expected WHAT, found X" at `at` (or "unexpected end of input, expected WHAT").
    pub fn expected(&self, at: usize, what: &str) -> ParseError {
        if at >= self.text.len() {
            self.error(at, format!("unexpected end of input, expected {what}"))
        } else {
            self.error(at, format!("expected {what}, found {}", self.describe(at)))
        }
    }
}

/// Describes what is at byte offset `at` of `text` (see [`Cursor::describe`]).
pub(crate) fn describe_at(text: &str, at: usize) -> String {
    let rest = match text.get(at..) {
        Some(r) if !r.is_empty() => r,
        _ => return "end of input".to_string(),
    };
    let word_len = rest.bytes().take_while(|&b| is_ident_continue(b)).count();
    if word_len > 0 {
        let word = rest.get(..word_len.min(40)).unwrap_or("");
        let more = if word_len > 40 { "..." } else { "" };
        return format!("`{word}{more}`");
    }
    match rest.chars().next() {
        Some(c) => describe_char(c),
        None => "end of input".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trivia_and_identifiers() {
        let mut c = Cursor::new("f", " /* x */\n\tab_1 c");
        c.skip_trivia().unwrap();
        assert_eq!(c.ident(), Some((10, "ab_1")));
        c.skip_trivia().unwrap();
        assert_eq!(c.ident(), Some((15, "c")));
        assert!(c.at_end());
        assert_eq!(c.ident(), None);
    }

    #[test]
    fn unterminated_comment_is_an_error() {
        let mut c = Cursor::new("f", "a\n  /* never closed");
        c.pos = 1;
        let e = c.skip_trivia().unwrap_err();
        assert_eq!((e.line, e.column), (2, 3));
        assert!(e.message.contains("unterminated comment"));
        // `/*/` does not close itself.
        let mut c = Cursor::new("f", "/*/");
        assert!(c.skip_trivia().is_err());
    }

    #[test]
    fn descriptions() {
        assert_eq!(describe_at("1abc)", 0), "`1abc`");
        assert_eq!(describe_at("#x", 0), "`#`");
        assert_eq!(describe_at("\u{0}", 0), "character U+0000");
        assert_eq!(describe_at("ab", 2), "end of input");
        assert_eq!(describe_at("ab", 99), "end of input");
        // Never panics, even inside a character.
        let _ = describe_at("∅", 1);
    }
}
