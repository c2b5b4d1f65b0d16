//! Text inputs: every reader's file is read by [`read_text`], with the same limits and checks.
//!
//! A checking process reads trace files (`.htf`, `.mtf`) and the compiler reads models
//! (`.hsf`, `.hif`, Timbuk) the same way: a bounded read ([`MAX_TEXT_BYTES`]), then UTF-8 and
//! binary-content checks that report a [`ParseError`] at the offending line and column.

use super::error::ParseError;
use std::fmt;
use std::path::{Path, PathBuf};

/// Why a text input (a model, a signature or a multitrace file) could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModelError {
    /// A file could not be read.
    Io {
        /// The file.
        path: PathBuf,
        /// The system's explanation.
        message: String,
    },
    /// A file was read but is not valid.
    Parse(ParseError),
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModelError::Io { path, message } => {
                write!(f, "{}: cannot read: {message}", path.display())
            }
            ModelError::Parse(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ModelError {
    // Transparent: a parse error is displayed as itself, so it is not its own cause too
    // (a printed chain, `{:#}`, would say it twice).
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ModelError::Io { .. } => None,
            ModelError::Parse(e) => e.source(),
        }
    }
}

impl From<ParseError> for ModelError {
    fn from(e: ParseError) -> Self {
        ModelError::Parse(e)
    }
}

/// Largest text input (model, signature or multitrace file) the readers accept: 1 GiB, about
/// 110 million actions in one `.htf` file. Larger local traces are split across files or
/// checked as prefixes.
pub const MAX_TEXT_BYTES: u64 = 1 << 30;

/// Reads a text file for a reader.
///
/// A leading byte-order mark is dropped. An empty file is an error ("empty file" at 1:1), as
/// are invalid UTF-8 (at the line and column of the first invalid byte), a NUL byte and other
/// control characters that do not occur in text (a binary file).
///
/// A file larger than [`MAX_TEXT_BYTES`] is refused (also an endless one such as `/dev/zero`):
/// reading stops one byte past the limit.
pub fn read_text(path: &Path) -> Result<String, ModelError> {
    read_text_limited(path, MAX_TEXT_BYTES)
}

/// [`read_text`] with another size limit (bytes).
pub fn read_text_limited(path: &Path, limit: u64) -> Result<String, ModelError> {
    use std::io::Read;
    let io = |e: std::io::Error| ModelError::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let hint = file.metadata().map_or(0, |m| m.len()).min(limit + 1);
    let mut bytes = Vec::with_capacity(usize::try_from(hint).unwrap_or(0));
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > limit {
        return Err(ModelError::Io {
            path: path.to_path_buf(),
            message: format!(
                "larger than {} bytes, the largest text input multitrace reads; split it",
                limit
            ),
        });
    }
    text_of_bytes(&path.display().to_string(), bytes).map_err(ModelError::Parse)
}

/// The checks of [`read_text`] on bytes already read; `file` names them in errors.
pub fn text_of_bytes(file: &str, bytes: Vec<u8>) -> Result<String, ParseError> {
    if bytes.is_empty() {
        return Err(ParseError::at(file, "", 0, "empty file"));
    }
    let mut text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            let bytes = e.as_bytes();
            let valid = e.utf8_error().valid_up_to();
            let prefix = bytes
                .get(..valid)
                .and_then(|b| std::str::from_utf8(b).ok())
                .unwrap_or("");
            let bad = bytes.get(valid).copied().unwrap_or(0);
            return Err(ParseError::at(
                file,
                prefix,
                valid,
                format!("invalid UTF-8 (byte 0x{bad:02X}); is this a text file?"),
            ));
        }
    };
    if text.starts_with('\u{feff}') {
        text.drain(..'\u{feff}'.len_utf8());
    }
    if let Some((at, c)) = first_control(&text) {
        let what = if c == '\0' {
            "NUL byte".to_string()
        } else {
            format!("control character U+{:04X}", c as u32)
        };
        return Err(ParseError::at(
            file,
            &text,
            at,
            format!("{what}: this looks like a binary file, not text"),
        ));
    }
    Ok(text)
}

/// The first control character of `text` other than tab, line feed, carriage return and
/// form feed.
///
/// Control characters are C0 (bytes below 0x20), DEL (0x7F) and C1 (U+0080 to U+009F, whose
/// UTF-8 starts with 0xC2): a byte scan without early exit (which the compiler vectorizes)
/// rules them out, and only text holding such a byte is decoded character by character.
fn first_control(text: &str) -> Option<(usize, char)> {
    let suspect =
        |b: u8| (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0c)) || b == 0x7f || b == 0xc2;
    let any = text
        .as_bytes()
        .chunks(256)
        .any(|c| c.iter().fold(false, |found, &b| found | suspect(b)));
    if !any {
        return None;
    }
    text.char_indices()
        .find(|&(_, c)| c.is_control() && !matches!(c, '\t' | '\n' | '\r' | '\u{c}'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        crate::testdata::scratch_dir("runtime-text", name)
    }

    #[test]
    fn text_checks() {
        let e = text_of_bytes("f", Vec::new()).unwrap_err();
        assert_eq!(e.to_string(), "f:1:1: empty file");
        let e = text_of_bytes("f", b"ab\ncd\xffe".to_vec()).unwrap_err();
        assert_eq!((e.line, e.column), (2, 3));
        assert!(e.message.contains("invalid UTF-8"), "{e}");
        let e = text_of_bytes("f", "∅\n∅é".bytes().chain([0xe2, 0x88]).collect()).unwrap_err();
        assert_eq!((e.line, e.column), (2, 3), "{e}");
        let e = text_of_bytes("f", b"o\n  \0".to_vec()).unwrap_err();
        assert_eq!((e.line, e.column), (2, 3));
        assert!(e.message.contains("NUL byte"), "{e}");
        let e = text_of_bytes("f", b"\x07".to_vec()).unwrap_err();
        assert!(e.message.contains("control character U+0007"), "{e}");
        assert_eq!(
            text_of_bytes("f", b"\xef\xbb\xbfo\r\n\t".to_vec()).unwrap(),
            "o\r\n\t"
        );
    }

    #[test]
    fn oversized_and_endless_inputs_are_refused() {
        let dir = scratch("big");
        let path = dir.join("t.htf");
        std::fs::write(&path, "{ [l1] l1!m }").unwrap();
        assert!(read_text_limited(&path, 13).is_ok());
        let e = read_text_limited(&path, 12).unwrap_err();
        assert!(
            e.to_string()
                .ends_with("t.htf: cannot read: larger than 12 bytes, the largest text input multitrace reads; split it"),
            "{e}"
        );
        // A device with no end stops at the limit instead of filling memory.
        let zero = Path::new("/dev/zero");
        if zero.exists() {
            let e = read_text_limited(zero, 1 << 16).unwrap_err();
            assert!(e.to_string().contains("larger than 65536 bytes"), "{e}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn io_errors_name_the_file() {
        let dir = scratch("io");
        let path = dir.join("missing.hif");
        let e = read_text(&path).unwrap_err();
        assert!(matches!(e, ModelError::Io { .. }));
        assert!(
            e.to_string()
                .starts_with(&format!("{}: cannot read: ", path.display())),
            "{e}"
        );
        std::fs::write(dir.join("empty.hif"), "").unwrap();
        let e = read_text(&dir.join("empty.hif")).unwrap_err();
        assert!(e.to_string().ends_with("empty.hif:1:1: empty file"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    proptest::proptest! {
        /// The byte scan finds what decoding every character finds.
        #[test]
        fn control_characters_are_found_as_by_decoding(
            text in "(\\PC|[\\x00-\\x1f\\x7f\\u{80}-\\u{9f}\\u{a0}-\\u{bf}\\t\\n\\r])*"
        ) {
            let want = text
                .char_indices()
                .find(|&(_, c)| c.is_control() && !matches!(c, '\t' | '\n' | '\r' | '\u{c}'));
            proptest::prop_assert_eq!(first_control(&text), want);
        }
    }
}
