//! Parse errors with file, line and column.

use std::fmt;

/// An input that could not be read: where, what was found and what was expected.
///
/// Displayed as `FILE:LINE:COLUMN: MESSAGE` (lines and columns count from 1, columns in
/// characters).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// The file (or `<stdin>`, or a description of the input).
    pub file: String,
    /// Line, from 1.
    pub line: u32,
    /// Column in characters, from 1.
    pub column: u32,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl ParseError {
    /// An error at a byte offset of `text`.
    pub fn at(file: &str, text: &str, offset: usize, message: impl Into<String>) -> Self {
        let (line, column) = line_column(text, offset);
        ParseError {
            file: file.to_string(),
            line,
            column,
            message: message.into(),
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file, self.line, self.column, self.message
        )
    }
}

impl std::error::Error for ParseError {}

/// Line and column (from 1, column in characters) of a byte offset; offsets past the end or
/// inside a character are clamped.
pub fn line_column(text: &str, offset: usize) -> (u32, u32) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |p| p + 1);
    let column = text[line_start..offset].chars().count() + 1;
    (line as u32, column as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_from_one_in_characters() {
        let text = "ab\n∅x";
        assert_eq!(line_column(text, 0), (1, 1));
        assert_eq!(line_column(text, 3), (2, 1));
        assert_eq!(line_column(text, 3 + '∅'.len_utf8()), (2, 2));
        assert_eq!(line_column(text, 999), (2, 3));
        let e = ParseError::at("f.htf", text, 1, "bad");
        assert_eq!(e.to_string(), "f.htf:1:2: bad");
    }
}
