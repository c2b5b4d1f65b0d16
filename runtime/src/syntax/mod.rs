//! Readers of multitrace files (`.htf`).
//!
//! Every reader returns a [`ParseError`] (file, line, column, what was found and what was
//! expected) on bad input and never panics.

mod error;

pub use error::{line_column, ParseError};
