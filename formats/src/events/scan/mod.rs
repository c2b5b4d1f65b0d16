//! The fast path of JSON Lines events: a flat object scanned in place, as bytes, its fields
//! borrowed from the line (no `serde_json::Value`, no allocation, no UTF-8 check of the
//! line: only the strings kept are checked).
//!
//! Exactness: [`scan_bytes`] answers only when its answer is the one the full parser
//! ([`super::read::jsonl_event_full`] of the line read as UTF-8) would give (the reader
//! checks the whole line as UTF-8 before the scan and refuses a line that is not): the line is one flat JSON object whose values are
//! strings without escapes, integers, `true`, `false` or `null`, the run, action and order
//! fields each appear once, the run id is a string or an integer (of `i64`/`u64`), the action a
//! string and the order key an integer (of `i64`/`u64`) or a string that reads as a key; the
//! strings kept (run, action, order) and any key that is not ASCII are valid UTF-8. Anything
//! else (escapes, nesting, floats, duplicates, a missing field, a bad value) returns `None`,
//! and the caller falls back to the full parser, which also words the error.
//!
//! Why the line is not checked as UTF-8: the structure of a JSON line is ASCII, and an invalid
//! byte (never ASCII) becomes U+FFFD (never ASCII either) when the reader replaces it, so a
//! byte that is not UTF-8 changes the event only inside a string; the ignored strings do not
//! matter, and the kept ones are checked.
//!
//! The stages, one module each: `line` (the entry points: the canonical path, else the
//! general scan, and the fields as text), `canonical` (the usual shape matched piece by
//! piece, with [`FlatFields`], the names prepared for it), `general` (any flat object, value
//! by value), `token` (the strings and integers both read, eight bytes at a time) and
//! `fields` ([`Scanned`]: what a scan gives).

mod canonical;
mod fields;
mod general;
mod line;
mod token;

pub use canonical::FlatFields;
pub use fields::Scanned;
pub(super) use line::scan_raw_with;
pub use line::{scan_bytes, scan_flat, scan_flat_with};
