//! Readers of multitraces: `.htf` (HIBOU), `.mtf` (seed 004) and JSON Lines.
//!
//! Every text reader of the workspace (these and the compiler's `.hsf`, `.hif` and Timbuk
//! readers) scans with the one [`Cursor`] and names what it found with the same helpers
//! ([`describe_char`], [`quote_word`], [`name_list`]); the three HIBOU readers (`.hsf`, `.hif`,
//! `.htf`) take their tokens from the one [`hibou`] lexer. JSON Lines are read by `serde_json`.
//!
//! [`parse_htf`] reads a multitrace, one local trace per group of lifelines, over the names
//! of a [`Signature`](crate::signature::Signature). Every reader returns a [`ParseError`]
//! (file, line, column, what was found and what was expected) on bad input and never panics.

mod cursor;
mod error;
pub mod hibou;
mod htf;
mod jsonl;
mod mtf;
mod names;
mod text;

pub use cursor::Cursor;
pub use error::{line_column, ParseError};
pub use htf::parse_htf;
pub use jsonl::{parse_jsonl_line, write_jsonl_line, NameIndex};
pub use mtf::{parse_mtf, parse_mtf_indexed, write_mtf};
pub use names::{describe_char, is_ident_continue, is_ident_start, name_list, quote_word};
pub use text::{read_text, read_text_limited, text_of_bytes, ModelError, MAX_TEXT_BYTES};
