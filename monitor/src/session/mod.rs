//! A stream of events of many runs: runs keyed by id, per-location reorder windows, the ends of
//! runs, a cap on live runs, and the whole state as bytes (checkpoints).
//!
//! - **Order within a location.** An event is held in its location's reorder window until
//!   [`Reorder`] lets it go, then fed to the run's [`LiveRun`](super::LiveRun) in order-key order (equal keys:
//!   arrival order). An event whose key is smaller than one already fed is later than the
//!   window allows: the run gets an `Error` record naming it (never a silent wrong verdict).
//! - **Ends.** A run ends at its end event (the end action, or an event flagged as the end),
//!   after an idle time without events ([`Session::close_idle`]: in event time when the order
//!   keys are timestamps, else wall-clock time), at the end of the input or at a stop
//!   ([`Session::close_all`]), or when it is the oldest idle run and a new run would pass
//!   [`SessionOptions::max_live_runs`]. Its held events are fed first.
//! - **One record per run.** A run decided by an event (Fail, Inconclusive, Error) gets its
//!   record then; it stays known (without its traces) until its end, so its later events are
//!   counted, not taken for a new run. A run id seen again after its end starts a new run.
//!
//! Its stages, one module each; a stage uses only stages listed before it, and this module
//! only declares them and re-exports their public items:
//!
//! - `event`: one event of a stream and where it was read ([`LiveEvent`], [`At`]), the types
//!   every stage shares, and the `--end-field` flag ([`end_flag`]);
//! - `pending`: the places of the events fed unchecked in a round, and the files of the
//!   runs' places;
//! - `live`: one run's bookkeeping, and the feeding of one event to it;
//! - `reorder`: the per-location reorder windows ([`Reorder`]);
//! - `options`: how a session treats its stream ([`SessionOptions`]);
//! - `runs`: the table of runs by id;
//! - `round`: a round's events, grouped by run ([`Round`]);
//! - `state`: the session itself ([`Session`]), its counters and its state as bytes;
//! - `settle`: the checks of the events fed unchecked ([`Session::settle`]);
//! - `close`: the ends of runs (an end, an idle timeout, the cap on live runs, the end of
//!   the input or a stop);
//! - `push`: one event taken and checked ([`Session::push`], [`Session::fail_run`]);
//! - `spans`: the spans of runs followed as they are exported (`--otel`): a location waits
//!   while one of its spans' parents in its service has not come;
//! - `watermark`: held events of event-time windows fed below the stream's watermark, which
//!   moves with the wall clock after a quiet period ([`Session::advance`]);
//! - `deferred`: events fed unchecked, one at a time ([`Session::push_deferred`]) or a round
//!   grouped by run ([`Session::push_round`]).

#[cfg(test)]
mod arrival_tests;
mod close;
mod deferred;
mod ended;
mod event;
mod live;
mod options;
mod pending;
mod push;
mod reorder;
mod round;
mod runs;
mod settle;
mod spans;
mod state;
#[cfg(test)]
mod tests;
mod watermark;

pub use super::checkpoint::Checkpoint;
pub use super::decision::{Closed, Decision};
pub use event::{end_flag, At, LiveEvent};
pub use options::SessionOptions;
pub use reorder::Reorder;
pub use round::Round;
pub use state::Session;
