//! The one lexer cursor behind every text reader: `.hsf`, `.hif` and Timbuk (in the compiler),
//! `.htf` and `.mtf` (in [`multitrace_formats`]).
//!
//! A [`Cursor`] walks a text by byte offsets. The HIBOU readers take their tokens from
//! [`super::hibou`] on top of it, the others keep their own small token sets; the low-level operations live here once: skipping whitespace and `/* */` comments,
//! identifiers and other runs of characters, punctuation, splitting into lines, turning an
//! offset into a [`ParseError`] (`file:line:column`) and describing what was found. The
//! invariants are on [`Cursor`].

use super::error::{line_column, ParseError};
use super::names::{describe_char, is_ident_continue, is_ident_start, quote_word};

/// A position in a text, and the file name used in errors.
///
/// `Copy`: a reader peeks by scanning a copy.
///
/// # Invariants
///
/// - The position is always a char boundary of the text, between the start of the cursor's
///   range and its end (both char boundaries): it only moves by whole characters, or by runs of
///   ASCII bytes.
/// - Every slice is taken with [`str::get`], and every offset given to a method is checked or
///   clamped, so no input and no offset makes a cursor panic.
/// - Offsets (positions, token starts, error locations) are offsets into the whole text, also
///   for a cursor over one line ([`Cursor::next_line`]), so errors point into the file.
#[derive(Clone, Copy, Debug)]
pub struct Cursor<'a> {
    file: &'a str,
    text: &'a str,
    /// The bytes of `text` up to the end of the range the cursor reads (a char boundary).
    scan: &'a [u8],
    /// Byte offset in `text`; a char boundary, `<= scan.len()`.
    pos: usize,
}

/// Whether the ASCII byte `b` is whitespace for [`char::is_whitespace`] (the fast path).
#[inline]
fn is_space_byte(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\x0B' | b'\x0C')
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `text`; `file` names the input in errors.
    pub fn new(file: &'a str, text: &'a str) -> Self {
        Cursor {
            file,
            text,
            scan: text.as_bytes(),
            pos: 0,
        }
    }

    /// The file name used in errors.
    pub fn file(&self) -> &'a str {
        self.file
    }

    /// The whole text (not only the cursor's range).
    pub fn text(&self) -> &'a str {
        self.text
    }

    /// The position: a byte offset into the whole text, always a char boundary.
    #[inline]
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// The rest of the range from the position.
    #[inline]
    pub fn rest(&self) -> &'a str {
        self.text.get(self.pos..self.scan.len()).unwrap_or("")
    }

    /// Whether the position is at the end of the range.
    #[inline]
    pub fn at_end(&self) -> bool {
        self.pos >= self.scan.len()
    }

    /// The byte at the position, if any.
    #[inline]
    pub fn peek_byte(&self) -> Option<u8> {
        self.scan.get(self.pos).copied()
    }

    /// The byte after the one at the position, if any.
    #[inline]
    pub fn peek_byte_after(&self) -> Option<u8> {
        self.scan.get(self.pos.checked_add(1)?).copied()
    }

    /// The character at the position, if any.
    #[inline]
    pub fn peek_char(&self) -> Option<char> {
        self.rest().chars().next()
    }

    /// Whether the rest of the range starts with `s`.
    #[inline]
    pub fn starts_with(&self, s: &str) -> bool {
        self.rest().starts_with(s)
    }

    /// Moves past the character at the position and returns it (`None` at the end).
    #[inline]
    pub fn bump(&mut self) -> Option<char> {
        let c = self.peek_char()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    /// Moves past `b` if the byte at the position is `b` (an ASCII byte: punctuation).
    #[inline]
    pub fn eat_byte(&mut self, b: u8) -> bool {
        if b.is_ascii() && self.peek_byte() == Some(b) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// Moves past `s` if the rest of the range starts with it.
    #[inline]
    pub fn eat(&mut self, s: &str) -> bool {
        if self.starts_with(s) {
            self.pos += s.len();
            true
        } else {
            false
        }
    }

    /// The text from byte offset `start` to the position (empty if `start` is not before the
    /// position or not a char boundary).
    #[inline]
    pub fn since(&self, start: usize) -> &'a str {
        self.text.get(start..self.pos).unwrap_or("")
    }

    /// Moves past the characters satisfying `keep` and returns them (possibly empty).
    #[inline]
    pub fn take_while(&mut self, mut keep: impl FnMut(char) -> bool) -> &'a str {
        let start = self.pos;
        let rest = self.rest();
        let len = rest
            .char_indices()
            .find(|&(_, c)| !keep(c))
            .map_or(rest.len(), |(i, _)| i);
        self.pos += len;
        self.since(start)
    }

    /// Moves past the ASCII bytes satisfying `keep` and returns them (possibly empty); stops
    /// at the first non-ASCII byte whatever `keep` says, so the position stays a char
    /// boundary.
    #[inline]
    pub fn take_while_ascii(&mut self, mut keep: impl FnMut(u8) -> bool) -> &'a str {
        let start = self.pos;
        let mut end = start;
        while let Some(&b) = self.scan.get(end) {
            if !(b.is_ascii() && keep(b)) {
                break;
            }
            end += 1;
        }
        self.pos = end;
        self.since(start)
    }

    /// Skips whitespace ([`char::is_whitespace`]).
    #[inline]
    pub fn skip_whitespace(&mut self) {
        loop {
            match self.peek_byte() {
                Some(b) if is_space_byte(b) => self.pos += 1,
                Some(b) if b.is_ascii() => return,
                None => return,
                Some(_) => match self.peek_char() {
                    Some(c) if c.is_whitespace() => self.pos += c.len_utf8(),
                    _ => return,
                },
            }
        }
    }

    /// Skips whitespace and `/* */` comments (not nested), for the formats that have them
    /// (`.hsf`, `.hif`, `.htf`). An unterminated comment is an error at its opening `/*`.
    #[inline]
    pub fn skip_trivia(&mut self) -> Result<(), ParseError> {
        loop {
            match self.peek_byte() {
                // The common case first: a visible ASCII character other than `/`.
                Some(b) if b > b' ' && b < 0x7F && b != b'/' => return Ok(()),
                Some(b) if is_space_byte(b) => self.pos += 1,
                Some(b'/') if self.peek_byte_after() == Some(b'*') => {
                    let start = self.pos;
                    match self.rest().get(2..).and_then(|r| r.find("*/")) {
                        Some(len) => self.pos += 2 + len + 2,
                        None => {
                            return Err(self
                                .error(start, "unterminated comment: `/*` has no matching `*/`"))
                        }
                    }
                }
                Some(b) if b.is_ascii() => return Ok(()),
                None => return Ok(()),
                Some(_) => match self.peek_char() {
                    Some(c) if c.is_whitespace() => self.pos += c.len_utf8(),
                    _ => return Ok(()),
                },
            }
        }
    }

    /// Reads an identifier `[A-Za-z_][A-Za-z0-9_]*` at the position: its start offset and
    /// text, `None` (without moving) when none starts here.
    #[inline]
    pub fn ident(&mut self) -> Option<(usize, &'a str)> {
        let start = self.pos;
        if !self.peek_byte().is_some_and(is_ident_start) {
            return None;
        }
        let name = self.take_while_ascii(is_ident_continue);
        Some((start, name))
    }

    /// The run of identifier characters (`[A-Za-z0-9_]`) at byte offset `at`, up to the end
    /// of the range (empty when there is none or `at` is out of the range).
    pub fn word_at(&self, at: usize) -> &'a str {
        let rest = match self.text.get(at..self.scan.len()) {
            Some(r) => r,
            None => return "",
        };
        let len = rest.bytes().take_while(|&b| is_ident_continue(b)).count();
        rest.get(..len).unwrap_or("")
    }

    /// The cursor over the next line (without its `\n`), moving this one past it; `None` at
    /// the end of the range. Offsets in the line's cursor are offsets into the whole text.
    ///
    /// A range ending with `\n` has no empty last line: blank lines are not lines for the
    /// readers that use this (`.mtf`), they are skipped.
    pub fn next_line(&mut self) -> Option<Cursor<'a>> {
        let rest = self.rest();
        if rest.is_empty() {
            return None;
        }
        let len = rest.find('\n').unwrap_or(rest.len());
        let end = self.pos + len;
        let line = Cursor {
            scan: self.scan.get(..end).unwrap_or(self.scan),
            ..*self
        };
        // `\n` is one byte: past it is a char boundary (or the end).
        self.pos = (end + 1).min(self.scan.len());
        Some(line)
    }

    /// An error at byte offset `at` of the text (clamped into it), with its line and column.
    pub fn error(&self, at: usize, message: impl Into<String>) -> ParseError {
        ParseError::at(self.file, self.text, at, message)
    }

    /// `LINE:COLUMN` of byte offset `at`, to point back at an earlier token in a message.
    pub fn position(&self, at: usize) -> String {
        let (line, column) = line_column(self.text, at);
        format!("{line}:{column}")
    }

    /// Line and column of each of `offsets` (in any order), as [`line_column`] gives them, in
    /// one pass over the text: for a reader that records many positions (the `.hif` reader's
    /// loops), where one [`line_column`] per offset would read the text again each time.
    pub fn line_columns(&self, offsets: &[usize]) -> Vec<(u32, u32)> {
        let text = self.text;
        let mut order: Vec<(usize, usize)> = offsets
            .iter()
            .enumerate()
            .map(|(i, &at)| {
                // Clamped as `line_column` does: into the text, back to a char boundary.
                let mut at = at.min(text.len());
                while !text.is_char_boundary(at) {
                    at -= 1;
                }
                (at, i)
            })
            .collect();
        order.sort_unstable();
        let mut out = vec![(1, 1); offsets.len()];
        // The position reached: byte offset, line and column (from 1).
        let (mut done, mut line, mut column) = (0usize, 1usize, 1usize);
        for (at, i) in order {
            let between = text.get(done..at).unwrap_or("");
            match between.rfind('\n') {
                Some(nl) => {
                    line += between.bytes().filter(|&b| b == b'\n').count();
                    column = between.get(nl + 1..).map_or(0, |l| l.chars().count()) + 1;
                }
                None => column += between.chars().count(),
            }
            done = at;
            if let Some(slot) = out.get_mut(i) {
                *slot = (line as u32, column as u32);
            }
        }
        out
    }

    /// Describes what is at byte offset `at` for an error message: `` `word` `` for a run of
    /// identifier characters (shortened after 40), the character otherwise (see
    /// [`describe_char`]), `end of input` at the end of the range.
    pub fn describe(&self, at: usize) -> String {
        let word = self.word_at(at);
        if !word.is_empty() {
            return quote_word(word);
        }
        match self
            .text
            .get(at..self.scan.len())
            .and_then(|r| r.chars().next())
        {
            Some(c) => describe_char(c),
            None => "end of input".to_string(),
        }
    }

    /// "expected WHAT, found X" at `at`, X as [`Cursor::describe`] says, or "unexpected end of
    /// input, expected WHAT" at the end of the range.
    pub fn expected(&self, at: usize, what: &str) -> ParseError {
        if at >= self.scan.len() {
            self.expected_found(at, what, None)
        } else {
            self.expected_found(at, what, Some(&self.describe(at)))
        }
    }

    /// "expected WHAT, found FOUND" at `at`, or "unexpected end of input, expected WHAT" when
    /// `found` is `None`: for readers that describe their own tokens.
    pub fn expected_found(&self, at: usize, what: &str, found: Option<&str>) -> ParseError {
        match found {
            Some(found) => self.error(at, format!("expected {what}, found {found}")),
            None => self.error(at, format!("unexpected end of input, expected {what}")),
        }
    }
}

/// Random edits of valid texts, for the readers' proptests that their fast and exact paths
/// agree on inputs near the common case (public so that the readers' crate uses it).
pub mod mutation {
    /// `text` after each `(position, operation, token)` edit: operation 0 inserts `token` at
    /// the position (taken modulo the length, moved back to a char boundary), 1 deletes the
    /// character there, 2 replaces it with `token`.
    pub fn mutate(text: &str, edits: &[(usize, u8, &str)]) -> String {
        let mut out = text.to_string();
        for &(at, op, token) in edits {
            let mut at = at % (out.len() + 1);
            while !out.is_char_boundary(at) {
                at -= 1;
            }
            let next = out
                .get(at..)
                .and_then(|r| r.chars().next())
                .map_or(0, char::len_utf8);
            match op % 3 {
                0 => out.insert_str(at, token),
                1 => out.replace_range(at..at + next, ""),
                _ => out.replace_range(at..at + next, token),
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn trivia_and_identifiers() {
        let mut c = Cursor::new("f", " /* x */\n\tab_1 c");
        c.skip_trivia().unwrap();
        assert_eq!(c.ident(), Some((10, "ab_1")));
        c.skip_trivia().unwrap();
        assert_eq!(c.ident(), Some((15, "c")));
        assert!(c.at_end());
        assert_eq!(c.ident(), None);
        // Vertical tab, form feed and non-ASCII whitespace are whitespace, as for `char`.
        let mut c = Cursor::new("f", "\x0B\x0C\u{85}\u{3000}x");
        c.skip_trivia().unwrap();
        assert_eq!(c.peek_char(), Some('x'));
        let mut c = Cursor::new("f", "\x0B\u{a0} /* */x");
        c.skip_whitespace();
        assert_eq!(c.rest(), "/* */x");
        // A lone `/` is not a comment.
        let mut c = Cursor::new("f", " / x");
        c.skip_trivia().unwrap();
        assert_eq!(c.rest(), "/ x");
    }

    #[test]
    fn unterminated_comment_is_an_error() {
        let mut c = Cursor::new("f", "a\n  /* never closed");
        assert_eq!(c.ident(), Some((0, "a")));
        let e = c.skip_trivia().unwrap_err();
        assert_eq!((e.line, e.column), (2, 3));
        assert_eq!(
            e.to_string(),
            "f:2:3: unterminated comment: `/*` has no matching `*/`"
        );
        // `/*/` does not close itself.
        let mut c = Cursor::new("f", "/*/");
        assert!(c.skip_trivia().is_err());
    }

    #[test]
    fn punctuation_and_runs() {
        let mut c = Cursor::new("f", "->x é∅.");
        assert!(!c.eat("--"));
        assert!(c.eat("->"));
        assert!(c.eat_byte(b'x'));
        assert!(!c.eat_byte(b'x'));
        c.skip_whitespace();
        // A non-ASCII byte is never eaten as a byte.
        assert!(!c.eat_byte(0xC3));
        assert_eq!(c.take_while_ascii(|_| true), "");
        let start = c.pos();
        assert_eq!(c.take_while(|ch| ch != '.'), "é∅");
        assert_eq!(c.since(start), "é∅");
        assert_eq!(c.bump(), Some('.'));
        assert_eq!(c.bump(), None);
        assert_eq!(c.since(99), "");
    }

    #[test]
    fn lines_keep_file_offsets() {
        let text = "ab\n\n  cd\r\nx";
        let mut all = Cursor::new("f", text);
        let mut seen = Vec::new();
        while let Some(mut line) = all.next_line() {
            line.skip_whitespace();
            seen.push((line.pos(), line.rest()));
            if line.rest().starts_with('c') {
                let e = line.error(line.pos(), "here");
                assert_eq!((e.line, e.column), (3, 3));
                assert_eq!(line.describe(line.pos() + 2), "character U+000D");
                assert_eq!(line.describe(line.pos() + 3), "end of input");
            }
        }
        assert_eq!(seen, [(0, "ab"), (3, ""), (6, "cd\r"), (10, "x")]);
        let mut all = Cursor::new("f", "a\n");
        assert!(all.next_line().is_some());
        assert!(all.next_line().is_none());
        assert!(Cursor::new("f", "").next_line().is_none());
    }

    #[test]
    fn descriptions_and_errors() {
        let c = Cursor::new("f", "1abc)#x\u{0}∅");
        assert_eq!(c.describe(0), "`1abc`");
        assert_eq!(c.describe(4), "`)`");
        assert_eq!(c.describe(7), "character U+0000");
        assert_eq!(c.describe(9), "end of input");
        assert_eq!(c.describe(99), "end of input");
        // Never panics, even inside a character.
        assert_eq!(c.describe(c.text().len() - 1), "end of input");
        assert_eq!(c.word_at(1), "abc");
        let long = "w".repeat(50);
        let c = Cursor::new("f", &long);
        assert_eq!(c.describe(0), format!("`{}...`", "w".repeat(40)));
        let c = Cursor::new("f.hsf", "ab\ncd");
        assert_eq!(c.position(4), "2:2");
        assert_eq!(
            c.expected(3, "a name").to_string(),
            "f.hsf:2:1: expected a name, found `cd`"
        );
        assert_eq!(
            c.expected(5, "a name").to_string(),
            "f.hsf:2:3: unexpected end of input, expected a name"
        );
        assert_eq!(
            c.expected_found(0, "x", Some("`y`")).to_string(),
            "f.hsf:1:1: expected x, found `y`"
        );
        assert_eq!(c.file(), "f.hsf");
    }

    proptest! {
        /// `line_columns` gives what `line_column` gives for each offset.
        #[test]
        fn line_columns_match_line_column(
            text in "[a\n∅é\r ]{0,40}",
            offsets in proptest::collection::vec(0usize..50, 0..12),
        ) {
            let c = Cursor::new("f", &text);
            let want: Vec<(u32, u32)> = offsets.iter().map(|&at| line_column(&text, at)).collect();
            prop_assert_eq!(c.line_columns(&offsets), want);
        }

        /// Whatever the operations, the position stays a char boundary within the text and
        /// nothing panics.
        #[test]
        fn never_panics_and_stays_on_boundaries(
            text in "[ a-z_0-9/*\\n\t∅é\u{85}\u{0}#->.]{0,40}",
            ops in proptest::collection::vec(0u8..12, 0..40),
            at in 0usize..50,
        ) {
            let mut c = Cursor::new("f", &text);
            let mut lines = c;
            for op in ops {
                match op {
                    0 => { let _ = c.skip_trivia(); }
                    1 => c.skip_whitespace(),
                    2 => { let _ = c.ident(); }
                    3 => { let _ = c.bump(); }
                    4 => { let _ = c.eat("->"); }
                    5 => { let _ = c.eat_byte(b'/'); }
                    6 => { let _ = c.take_while(|ch| ch != '.'); }
                    7 => { let _ = c.take_while_ascii(|b| b != b'#'); }
                    8 => { if let Some(l) = lines.next_line() { c = l; } }
                    9 => { let _ = c.describe(at); let _ = c.expected(at, "x"); }
                    10 => { let _ = c.word_at(at); let _ = c.since(at); }
                    _ => { let _ = c.error(at, "e"); let _ = c.position(at); }
                }
                prop_assert!(text.is_char_boundary(c.pos()) && c.pos() <= text.len());
                prop_assert!(text.is_char_boundary(lines.pos()));
            }
        }
    }
}
