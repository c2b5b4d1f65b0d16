//! # multitrace-monitor
//!
//! Live monitoring: verdicts while the system runs, one event at a time.
//!
//! One engine serves every front end (`multitrace monitor`, `check --events`, the Python
//! `Monitor` and the Spark streaming function):
//!
//! - [`Monitor`] wraps a loaded [`multitrace_check::Engine`]; [`LiveRun`] is the state of one run.
//!   After each event, [`Monitor::verdict_now`] is the verdict the batch check gives in
//!   prefix mode on the events seen so far, and [`Monitor::push`] returns the run's verdict at
//!   the first event that makes a Fail certain (a multitrace that is not a multi-prefix stays
//!   so whatever follows), as the batch record of that prefix (the canonical diagnosis). When
//!   the run ends, [`Monitor::finish`] gives the batch verdict of the whole run in the
//!   monitor's mode.
//! - Automata models (AC and AS, whose verdicts are the same) keep an incremental product
//!   ([`product`]): never re-checked from the start, its work per event does not grow with the
//!   run while the locations keep pace, and its size is bounded by
//!   [`MonitorOptions::max_vertices`] when one location lags (then the run is `Inconclusive`,
//!   naming the location). Before that, a run is followed by its *guess* (`guess`): the next
//!   letters of the locations that lag, guessed from a path of the automaton, certify that
//!   the events are a multi-prefix in constant work per event, and the product is fed only
//!   when an event breaks the guess (then with every event it skipped, in order). Each
//!   location's local verifier (AS's DFA `Proj(A, Σj)`) reads its events too: an event it
//!   refuses is the run's Fail without the product, when every event before was checked.
//!   Term-only models (and `--procedure term`) re-check the run's traces
//!   after each event, within the check's budget: the cost of an event grows with the run.
//!   Its stages: the run's state and the pushes (`run`), the list of the events a guess
//!   skipped (`behind`), the replay of a round's events (`replay`), and the records of its
//!   verdicts (`verdicts`, whose diagnosis asks the guess and product of a run at its cut:
//!   `end_product`).
//! - [`session`] adds what a stream needs on top: runs keyed by id, their ends (an end action,
//!   an idle timeout, the end of the input), per-location reorder windows, a cap on live
//!   runs, and checkpoints of everything as bytes; its stages are the modules of its folder
//!   (one run's bookkeeping, the table of runs by id, the reorder windows, a round's events
//!   grouped by run, the places of events fed unchecked, ...), and the checkpoint file is
//!   `checkpoint`.
//!
//! Invariant: a run's record is decided once; a Fail or Inconclusive record is final at the
//! event that decides it, and later events of that run are counted, never checked.

#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod behind;
mod checkpoint;
pub mod decision;
pub mod drive;
mod end_product;
mod eventually;
pub mod follow;
mod guess;
pub mod late;
mod overflow;
pub mod product;
pub mod receive;
mod replay;
mod run;
pub mod session;
#[cfg(test)]
mod tests;
mod verdicts;

pub use run::{LiveRun, Monitor, MonitorOptions, Standing, StateError, DEFAULT_MAX_LIVE_VERTICES};
