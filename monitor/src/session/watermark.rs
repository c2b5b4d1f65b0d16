//! The watermark of event-time reorder windows ([`Session::advance`]): held events whose
//! timestamps are more than the window behind the stream's event clock are fed, and after a
//! quiet period ([`SessionOptions::idleness`](super::SessionOptions::idleness)) the clock
//! moves with the caller's wall clock, as stream processors advance an idle source's
//! watermark with processing time (Flink's `withIdleness`), so that a run's record does not
//! wait for the next burst of traffic.
//!
//! Invariant: an assumption the user chose (the window bounds lateness): an event that comes
//! later than the watermark let go before it is the `Error` of its run (or, after its Fail, a
//! correction), never a silent wrong verdict.

use super::reorder::{release_below, Reorder};
use super::state::Session;
use crate::decision::Decision;
use crate::Monitor;
use multitrace_check::Scratch;

impl Session {
    /// The stream's watermark at wall time `now_wall` (the caller's clock, as events'
    /// `wall`): the event clock, moved on by the wall time past the idleness since it last
    /// moved, less the window; `None` without an event-time window or a timestamp yet.
    pub fn watermark(&self, now_wall: u64) -> Option<i128> {
        let Reorder::Span(window) = self.opts().reorder else {
            return None;
        };
        let clock = self.clock?;
        let idle = (self.opts().idleness).map_or(i128::from(window), |d| d.as_nanos() as i128);
        let moved = match self.clock_wall {
            Some(at) => (i128::from(now_wall.saturating_sub(at)) - idle).max(0),
            None => 0,
        };
        Some(clock + moved - i128::from(window))
    }

    /// Feeds every held event below the watermark at `now_wall` (see [`Session::watermark`]);
    /// decisions are appended to `out`. A front end calls it between reading rounds.
    pub fn advance(
        &mut self,
        m: &Monitor<'_>,
        scratch: &mut Scratch,
        now_wall: u64,
        out: &mut Vec<Decision>,
    ) {
        if self.clock.is_some() && self.clock_wall.is_none() {
            // Read back from a state: the idleness counts from now.
            self.clock_wall = Some(now_wall);
        }
        let Some(mark) = self.watermark(now_wall) else {
            return;
        };
        let held: Vec<Box<str>> = self
            .runs
            .iter()
            .filter(|(_, l)| !l.done && l.window.is_some())
            .map(|(id, _)| id.text().into())
            .collect();
        for id in held {
            let Some(live) = self.runs.get_mut(&id) else {
                continue;
            };
            for j in 0..live.windows() {
                let places = &mut self.places;
                release_below(m, scratch, places, &id, live, j, mark, out);
            }
        }
    }
}
