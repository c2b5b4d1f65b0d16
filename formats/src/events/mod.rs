//! Event logs to multitraces: raw event records (JSON Lines or CSV) grouped by run into
//! multitraces, one per run, ready for a `multitrace_batch::Batch`.
//!
//! An event has a run id, an action (an interaction action `l1!m`/`l1?m`, or an automaton
//! letter) and an order key within its location. The location of an event comes from the
//! model (the location of its letter), never from the event. Within a run, each location's
//! events are sorted by order key; events with equal keys keep their input order (files in the
//! order given, lines in file order).
//!
//! Order keys ([`OrderKey`]) are integers (exact, 128 bits), other numbers, or RFC 3339
//! timestamps (`2024-05-01T12:00:00.25Z`, `2024-05-01 12:00:00+02:00`; without a zone: UTC),
//! given as JSON numbers, JSON strings or CSV fields. Numbers and timestamps compare among
//! themselves; a run mixing both is a bad event.
//!
//! # Memory: how runs are grouped
//!
//! - Unsorted input (the default): every event is held until the end of the input, since a run
//!   is complete only then (grouped into its run as it is read: its letter, location and order
//!   key, never the event as read); at most [`EventOptions::max_buffered_events`] events are
//!   held, and one more is a fatal [`EventsError::TooManyEvents`] naming the cap and the
//!   options that lift it. Records come in the order of each run's first event.
//! - Sorted input ([`EventOptions::sorted`]): one file's runs are contiguous; several files
//!   are each sorted by run id (natural order) and merged k-way by run id (a run takes its
//!   events from every file where it comes next); a run is checked as soon as it is complete,
//!   so memory holds one run per file (plus the set of run ids seen, to catch a run that
//!   appears again, which is a bad event).
//!
//! # Bad events
//!
//! A line that is not an event (bad JSON or CSV, a missing field, an action the model does not
//! have, an order key that is not a number or a timestamp) is never dropped: when its run is
//! known, that run's record is an `Error` naming the first bad event as `FILE:LINE` (and the
//! number of bad events of the run); when it is not (no run field), the line gets an `Error`
//! record of its own. A file that cannot be read is one `Error` record. A line that cannot be read
//! never stops the others, and no run gets a verdict from data known to be incomplete: a line that
//! is not JSON names its run when it holds the run field whole, once; a place whose run is not
//! known (such a line, an event without a run, the rest of a file, a file) leaves no run it could
//! belong to a verdict ([`lost`]).
//!
//! Layout: [`event`] (an event as read: options, fields, errors), [`key`] (order keys and
//! timestamps), [`scan`] (the fast path of JSON Lines), `block` (lines found in large blocks,
//! in place), [`read`] (one event per line of JSON Lines or CSV), [`group`] (runs grouped and checked on a batch: `check --events` checks them
//! as letters on the engine's offline path, `multitrace_batch::offline`).

mod block;
mod entries;
pub mod event;
pub mod group;
pub mod headers;
pub mod intern;
pub mod key;
pub mod lost;
pub mod read;
mod runs;
pub mod scan;
#[cfg(test)]
mod tests;

pub use event::{
    EventError, EventFormat, EventOptions, EventReadError, EventsError, Field, RawEvent,
    DEFAULT_MAX_BUFFERED_EVENTS,
};
pub use group::{read_offline_runs, read_runs, Grouper, RunOut};
pub use headers::CsvHeaders;
pub use key::{parse_timestamp, OrderKey, OrderKeyError};
pub use lost::Lost;
pub use read::{
    csv_columns, csv_event, jsonl_event, jsonl_event_full, not_utf8, split_csv, EventReader,
};
pub use scan::{scan_bytes, scan_flat, scan_flat_with, FlatFields, Scanned};
