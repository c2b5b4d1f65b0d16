//! # multitrace-batch
//!
//! Batches: many multitraces checked against one model, in parallel, one
//! [`Record`](multitrace_model::record::Record) each, handed out in input order with bounded memory.
//!
//! Every front end checks through a [`Batch`]: the command line's `check` (files, directories,
//! JSON Lines, standard input) and the Python package (multitraces held in memory).
//!
//! - Inputs are streamed. Files are listed first ([`collect_traces`](multitrace_formats::input::collect_traces): directories are searched
//!   recursively in natural order, symbolic-link loops are searched once), and each is read by
//!   the worker that checks it; JSON Lines (files or standard input) are cut into chunks of
//!   whole lines (at most [`CHUNK_LINES`](multitrace_formats::input::CHUNK_LINES) lines and [`CHUNK_BYTES`](multitrace_formats::input::CHUNK_BYTES) bytes, or one longer
//!   line, never beyond [`BatchOptions::max_line_bytes`]) by the worker that takes the next
//!   task, and each chunk is validated (UTF-8), parsed and checked by one worker, so parsing
//!   runs in parallel; in-memory multitraces ([`Item`]) are pulled from an iterator as
//!   workers need them.
//! - [`BatchOptions::jobs`] workers, each with its own [`Scratch`](multitrace_check::Scratch),
//!   take the next task (an input, or a chunk of lines) from the shared source, but never run
//!   more than [`BatchOptions::window_per_job`] tasks per worker ahead of the sink: memory does
//!   not grow with the number of multitraces. When the first task is the only one (one file, one small
//!   JSON Lines file), one worker is started, whatever `jobs` says.
//! - The sink receives one [`Outcome`] per input, in input order. An input that cannot be read
//!   or checked gives an `Error` record in its place (never a stopped batch); a sink error
//!   stops the batch (workers finish the check in hand and take no more input).
//!
//! # Example
//!
//! ```
//! use multitrace_model::artifact::decode;
//! use multitrace_batch::{Batch, BatchOptions};
//! use multitrace_formats::entry::Item;
//! use multitrace_check::{CheckOptions, Engine};
//!
//! let bytes = include_bytes!("../../fixtures/golden/seed004-mqtt.v2.mtm");
//! let engine = Engine::new(decode(bytes)?);
//! let options = BatchOptions { jobs: 2, ..BatchOptions::default() };
//! let batch = Batch::new(&engine, CheckOptions::default(), options);
//! let items = (0..100).map(|i| Item {
//!     trace: format!("item{i}"),
//!     id: None,
//!     traces: vec![
//!         ("clt1".into(), vec!["clt1!begin".into()]),
//!         ("brok".into(), if i % 2 == 0 { vec![] } else { vec!["brok?pub".into()] }),
//!     ],
//! });
//! let mut verdicts = Vec::new();
//! batch.run_items(items, |o| {
//!     verdicts.push((o.record.trace, o.record.verdict));
//!     Ok::<(), std::convert::Infallible>(())
//! })?;
//! assert_eq!(verdicts.len(), 100);
//! assert_eq!(verdicts[0], ("item0".to_string(), "WeakPass".to_string()));
//! assert_eq!(verdicts[1], ("item1".to_string(), "Fail".to_string()));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod check;
pub mod distributed;
pub mod events;
pub mod inputs;
pub mod offline;
mod options;
mod order;
mod outcome;
pub mod plan;
mod read;
mod run;
mod source;
#[cfg(test)]
mod tests;

pub use check::text_error;
pub use inputs::{InputArgs, Inputs, InputsError};
/// The inputs of a batch (defined with the readers that make them).
pub use multitrace_formats::entry::{Entry, Item, Letters};
pub use options::{
    default_jobs, BatchOptions, DEFAULT_MAX_LINE_BYTES, DEFAULT_WINDOW_PER_JOB, MAX_JOBS,
};
pub use outcome::{Outcome, Progress, RunError};
pub use plan::Plan;
pub use run::Batch;
