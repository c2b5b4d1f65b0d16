//! One event of a stream ([`LiveEvent`]) and where it was read ([`At`]): the types every stage
//! of a session shares, and the `--end-field` flag of a JSON event ([`end_flag`]).
//!
//! Invariant: an event's place is kept as the file's text and a line number; its `FILE:LINE`
//! text is made only when a record names it.

use multitrace_formats::events::OrderKey;
use multitrace_model::nfa::LetterId;

/// One event of a stream.
#[derive(Clone, Copy, Debug)]
pub struct LiveEvent<'a> {
    /// The run id.
    pub run: &'a str,
    /// The letter (its location is the model's).
    pub letter: LetterId,
    /// Its order key within its location.
    pub key: OrderKey,
    /// Where it was read.
    pub at: At<'a>,
    /// Wall-clock time of its arrival (nanoseconds on the caller's clock).
    pub wall: u64,
    /// The event says its run ends with it (`--end-field`).
    pub end: bool,
}

/// Where an event was read: a line of a file, kept as the file's index and the number (no
/// `FILE:LINE` text is made unless a record names the place), or any other text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum At<'a> {
    /// Line `line` of `file` (a path, or `<stdin>`): `FILE:LINE` in records.
    Line {
        /// The file.
        file: &'a str,
        /// The line's number, from 1.
        line: u32,
    },
    /// A place of another form, written as it is.
    Text(&'a str),
}

impl std::fmt::Display for At<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            At::Line { file, line } => write!(f, "{file}:{line}"),
            At::Text(t) => f.write_str(t),
        }
    }
}

impl At<'_> {
    /// The file and the line number, as an
    /// [`ErrorRecord`](multitrace_model::record::ErrorRecord) gives them.
    pub(super) fn split(&self) -> (Option<String>, Option<u32>) {
        match self {
            At::Line { file, line } => (Some(file.to_string()), Some(*line)),
            At::Text(t) => split_at(t),
        }
    }
}

pub(super) fn split_at(at: &str) -> (Option<String>, Option<u32>) {
    match at.rsplit_once(':') {
        Some((f, l)) => match l.parse() {
            Ok(l) => (Some(f.to_string()), Some(l)),
            Err(_) => (Some(at.to_string()), None),
        },
        None => (Some(at.to_string()), None),
    }
}

/// Whether the JSON event `text` has field `field` set to `true` (`--end-field`).
pub fn end_flag(text: &str, field: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .and_then(|v| v.get(field).cloned())
        .is_some_and(|v| v == serde_json::Value::Bool(true))
}
