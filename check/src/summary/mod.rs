//! Local summaries: what a `local` host sends to `central` in distributed AS (seed 004's
//! architecture).
//!
//! A summary is one JSON object ([`LocalSummary`], written by [`write_summary`]):
//!
//! ```json
//! {
//!   "format": "multitrace-local-summary", "version": 1,
//!   "digest": "bb878205d8fe5d60", "location": "clt1", "mode": "complete",
//!   "trace": ["clt1!begin", "clt1!pub", "clt1!end"],
//!   "verdict": "Pass", "position": null, "expected": [], "area": "0000000000007ef7"
//! }
//! ```
//!
//! `area` (for a `Pass`) is `Area(μi)`: one 16-digit hexadecimal word per 64 transitions of the
//! model's NFA, least significant transition first; `position` (from 0) and `expected` (for a
//! `LocalError`) say where the local verifier rejected the trace and what it could read there.
//!
//! A summary comes from another host, so [`read_summary`] trusts nothing: JSON structure,
//! every field's type, format and version, the digest (the same compiled model), the location,
//! the mode, every letter of the trace and of `expected` (a letter of that location), the
//! verdict and the fields it needs, the position (within the trace), the hexadecimal digits of
//! the area (ASCII only), its number of words and its bits (transitions of the model). Every
//! error is a [`SummaryError`] naming the file and, where possible, the line, column and
//! field. [`SummarySet::new`] then checks that the summaries fit together: one per location,
//! all in the same mode. The local and central steps themselves are
//! [`crate::semi::local_summary`] and [`crate::semi::central_check`].
//!
//! The files, each importing only files before it (never this one): `wire` ([`LocalSummary`],
//! the JSON object), `spans` (where fields stand in the text), `error` ([`SummaryError`]),
//! `validate` ([`Summary`]), `read` ([`read_summary`]), `set` ([`SummarySet`]). The checking
//! procedure ([`crate::semi`]) imports this module, never the other way.

mod error;
mod read;
mod set;
mod spans;
mod validate;
mod wire;

pub use error::{SummaryError, SummaryErrorKind};
pub use read::read_summary;
pub use set::SummarySet;
pub use validate::{LocalResult, Summary};
pub use wire::{mode_name, write_summary, LocalSummary, FORMAT, VERSION};

#[cfg(test)]
mod tests;
