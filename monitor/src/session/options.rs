//! How a session treats its stream ([`SessionOptions`]): the end letter, the idle timeout,
//! the reorder window, the cap on live runs and the bound on events fed unchecked.
//!
//! Invariant: the options are not part of a session's state as bytes; a state read back
//! takes the options it is given.

use super::reorder::Reorder;
use multitrace_model::nfa::LetterId;
use std::time::Duration;

/// How a session treats its stream.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SessionOptions {
    /// A run ends after an event with this letter.
    pub end_letter: Option<LetterId>,
    /// A run ends after this long without events.
    pub idle_timeout: Option<Duration>,
    /// Per-location reorder window.
    pub reorder: Reorder,
    /// With a reorder window of event time ([`Reorder::Span`]): after this long of the
    /// caller's wall clock without the event clock moving (a quiet period), the event clock
    /// moves with the wall clock, so that held events are fed without waiting for more
    /// traffic ([`Session::advance`](super::Session::advance)); `None`: the window's length.
    pub idleness: Option<Duration>,
    /// Most runs live at once; past it the oldest idle one is closed.
    pub max_live_runs: usize,
    /// Most events of a run fed unchecked ([`Session::push_deferred`](super::Session::push_deferred)) before it is checked
    /// without waiting for the end of the round ([`Session::settle`](super::Session::settle)): a run that breaks is
    /// replayed from its last check, so this bounds that work (on AutomatArk NFA12, 32
    /// took a fifth off the monitor's time against a check per round only). The decisions
    /// do not depend on it.
    pub max_unchecked: usize,
}

impl Default for SessionOptions {
    fn default() -> Self {
        SessionOptions {
            end_letter: None,
            idle_timeout: None,
            reorder: Reorder::Events(0),
            idleness: None,
            max_live_runs: 1_000_000,
            max_unchecked: 32,
        }
    }
}
