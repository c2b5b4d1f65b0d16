//! XES event logs (IEEE 1849) in and out.
//!
//! Reading maps a log to the events that `check --events` groups ([`RawEvent`](crate::events::RawEvent)), one run per
//! `<trace>`:
//! - the run id is the trace's `concept:name` (`trace N`, from 1, when it has none);
//! - the action is the event's `concept:name` (or the attribute [`XesOptions::action_key`]);
//!   with [`XesOptions::lifeline_key`] (e.g. `org:resource`), an action written without its
//!   lifeline (`!m`, `?m`) gets the value of that attribute in front (`clt1` and `!begin` give
//!   `clt1!begin`);
//! - the order key is the event's `time:timestamp` (or the attribute
//!   [`XesOptions::order`]); [`XesOrder::Document`] uses the order of the events in the
//!   trace instead. Only the order within each location counts, so clocks need not agree.
//!
//! The XML is streamed: memory holds one trace; `.gz` files (or any file starting with the gzip
//! magic bytes) are decompressed on the fly. A file is read by a scanner over its bytes
//! (`scan.rs`) while it has the usual shape of a log, and by the full XML parser (quick-xml)
//! from the start again, skipping the traces already given, as soon as it has not: the same
//! records either way, every error from the full parser. An event without its action or
//! order attribute makes its run an `Error` record naming `FILE:LINE`; XML that does not parse
//! ends the file with an `Error` record naming `FILE:LINE:COLUMN` (the traces before it still
//! count).
//!
//! Writing ([`write_xes`]) gives one `<trace>` per multitrace, its events location by
//! location, each with `concept:name` (the action), `org:resource` (the location) and a
//! `time:timestamp` that is only the document order (milliseconds from the epoch): readers
//! that sort by timestamp keep each location's order.

//!
//! Layout: [`options`] (what an event's attributes mean), `scan.rs` (the fast path: a scanner
//! for the usual shape), [`read`] (the full parser, the runs of a file, the fallback),
//! [`write`](mod@write) (`write_xes`).

pub mod options;
pub mod read;
mod scan;
#[cfg(test)]
mod tests;
pub mod write;

pub use options::{XesOptions, XesOrder};
pub use read::{read_xes_runs, XesRuns};
pub use write::write_xes;
