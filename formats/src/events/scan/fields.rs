//! What a scan gives: the fields of an event borrowed from its line, as text ([`Scanned`]) or
//! with the action left as bytes ([`Raw`]).
//!
//! Invariants: the run id is valid UTF-8 in both; the order key is the full parser's.

use crate::events::key::OrderKey;

/// The fields of an event, borrowed from its line.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scanned<'a> {
    /// The run id as the full parser gives it (a string's contents, an integer as written).
    pub run: &'a str,
    /// The action.
    pub action: &'a str,
    /// The order key.
    pub order: OrderKey,
}

/// The fields of an event as [`scan_raw`] reads them: the run id (valid UTF-8) and the
/// action (bytes as written, not checked: an action that names a letter is valid, and one that
/// does not is an unknown action, worded from its bytes as the reader replaces them).
///
/// [`scan_raw`]: super::line::scan_raw
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Raw<'a> {
    pub run: &'a [u8],
    pub action: &'a [u8],
    pub order: OrderKey,
}
