//! Batches: many multitraces checked against one model, in parallel, one
//! [`Record`](crate::record::Record) each, handed out in input order with bounded memory.
//!
//! Every front end checks through a [`Batch`]: the command line's `check` (files, directories,
//! JSON Lines, standard input) and the Python package (multitraces held in memory).
//!
//! - Inputs are streamed. Files are listed first ([`collect_traces`]: directories are searched
//!   recursively in natural order, symbolic-link loops are searched once), and each is read by
//!   the worker that checks it; JSON Lines (files or standard input) are cut into chunks of
//!   whole lines (at most [`CHUNK_LINES`] lines and [`CHUNK_BYTES`] bytes, or one longer
//!   line, never beyond [`BatchOptions::max_line_bytes`]) by the worker that takes the next
//!   task, and each chunk is validated (UTF-8), parsed and checked by one worker, so parsing
//!   runs in parallel; in-memory multitraces ([`Item`]) are pulled from an iterator as
//!   workers need them.
//! - [`BatchOptions::jobs`] workers, each with its own [`Scratch`](crate::check::Scratch),
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
//! use multitrace_runtime::artifact::decode;
//! use multitrace_runtime::batch::{Batch, BatchOptions, Item};
//! use multitrace_runtime::check::{CheckOptions, Engine};
//!
//! let bytes = include_bytes!("../../../fixtures/golden/seed004-mqtt.v2.mtm");
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

mod check;
mod entry;
mod lines;
mod options;
mod order;
mod outcome;
mod read;
mod run;
mod source;
#[cfg(test)]
mod tests;
mod walk;

pub use check::text_error;
pub use entry::{Entry, Item, Letters};
#[cfg(test)]
pub(crate) use lines::Trickle;
pub use lines::{
    lines_of, read_line_bounded, split_chunk, BadText, Cut, Cutter, LineRead, CHUNK_BYTES,
    CHUNK_LINES,
};
pub use options::{
    default_jobs, BatchOptions, DEFAULT_MAX_LINE_BYTES, DEFAULT_WINDOW_PER_JOB, MAX_JOBS,
};
pub use outcome::{Outcome, Progress, RunError};
pub use run::Batch;
pub use source::{content_extension, is_streamed, open_input, read_input_text, Compression};
pub use walk::{collect_traces, natural_cmp, WalkError};
