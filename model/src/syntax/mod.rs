//! The lexical layer of every text reader: the [`Cursor`], the [`hibou`] lexer, positions and
//! errors, the names of what was found, and text input.
//!
//! Every text reader of the workspace (the readers of runs in `multitrace_formats` and the
//! compiler's `.hsf`, `.hif` and Timbuk readers) scans with the one [`Cursor`], reads its file
//! with [`read_text`] and names what it found with the same helpers ([`describe_char`],
//! [`quote_word`], [`name_list`]); the three HIBOU readers (`.hsf`, `.hif`, `.htf`) take their
//! tokens from the one [`hibou`] lexer. Every reader returns a [`ParseError`] (file, line,
//! column, what was found and what was expected) on bad input and never panics.
//!
//! Nothing here knows a format: this module imports nothing from `multitrace_formats`.

mod cursor;
mod error;
pub mod hibou;
mod names;
mod text;

pub use cursor::mutation;
pub use cursor::Cursor;
pub use error::{line_column, ParseError};
pub use names::{describe_char, is_ident_continue, is_ident_start, name_list, quote_word};
pub use text::{read_text, read_text_limited, text_of_bytes, ModelError, MAX_TEXT_BYTES};
