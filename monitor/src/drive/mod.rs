//! The driving loop of a live monitor: sources followed, lines read and checked a piece at a
//! time, records written in the order of their deciding events, checkpoints between rounds.
//! The `multitrace monitor` command is a thin layer over [`drive`]: it parses arguments, sets
//! the session up (resuming it from a checkpoint), opens the output, and chooses the exit
//! status from the [`Totals`].
//!
//! Stages: where it starts (a new or a checkpointed session, the output: [`start`]), what
//! the loop is asked ([`options`], with the durations users write: [`durations`]), the records written ([`mod@write`]), the events
//! that the fast path does not read ([`slow`]), the lines of OpenTelemetry spans (`otel`, with
//! the `otel` feature), and the loop itself ([`run`]).
//!
//! Invariants: one record per run, written once, in the order of the events that decided
//! them (a line's Error record where the line was read); a checkpoint is written only after
//! every record before it was flushed, so a restart from it writes nothing twice.

pub mod durations;
pub mod options;
#[cfg(feature = "otel")]
pub mod otel;
pub mod run;
pub mod slow;
pub mod start;
pub mod write;

pub use durations::{parse_duration, parse_window, Arrival};
pub use options::{live_check_options, otel_map, DriveOptions, OtelMap, OtelMapError};
pub use run::{drive, Status};
pub use start::{Start, StartError};
pub use write::{in_order, LineFormat, Totals, Written};
