//! The spans of runs followed as they are exported (`monitor --otel`): a span's id and its
//! parent come before its events ([`Session::span`]), and after each line the locations
//! whose parents all came have their held events fed ([`Session::unblock`]).
//!
//! Why it is exact under the exporters' usual behaviour: a span is exported when it ends,
//! by its own process, in the order spans end; a `CLIENT`, `PRODUCER` or `INTERNAL` span
//! ends before the span that encloses it in its service. So when a span comes whose parent
//! in its own service has not, that parent's start (an action of the same location, earlier
//! than every action of its children) is still to come: the location's events wait, held in
//! order-key order, until the parent comes (or the run ends: then they are fed, as `check`
//! reads the whole file). An event that still comes before one already fed is the run's
//! `Error` (or, after its Fail, a correction): never a silent wrong verdict.

use super::live::{Live, Spans};
use super::reorder::release;
use super::state::Session;
use crate::decision::Decision;
use crate::Monitor;
use multitrace_check::Scratch;
use multitrace_model::nfa::LocationId;

impl Session {
    /// Span `id` of run `run` came (read at `at`): known from now on. When its parent is in
    /// its own service (`local_parent`), has not come, and its service is location
    /// `location`, that location's events wait for the parent.
    #[allow(clippy::too_many_arguments)]
    pub fn span(
        &mut self,
        m: &Monitor<'_>,
        scratch: &mut Scratch,
        run: &str,
        at: &str,
        id: &str,
        parent: Option<&str>,
        local_parent: bool,
        location: Option<LocationId>,
        out: &mut Vec<Decision>,
    ) {
        if !self.runs.contains_key(run) {
            if self.ended.has(run) {
                // Its events are late: [`Session::push`] says so.
                return;
            }
            if self.runs.len() >= self.opts().max_live_runs.max(1) {
                self.evict(m, scratch, out);
            }
            let locations = m.engine().model().alphabet.locations();
            let first_at = self.places.place(at);
            self.runs
                .insert(run, Live::new(m.start(), first_at, locations));
        }
        let live = self.runs.get_mut(run).expect("inserted above");
        if live.done {
            return;
        }
        let spans = live.spans.get_or_insert_with(Box::default);
        spans.came.insert(id.into());
        if let (Some(p), true, Some(j)) = (parent, local_parent, location) {
            if !spans.came.contains(p) {
                spans.waits.push((j.0, p.into()));
            }
        }
    }

    /// After a line's spans and events: the waits of run `run` whose parents came end, and
    /// the locations that wait no more have their held events fed, in order-key order (as
    /// far as the session's reorder window lets them go).
    pub fn unblock(
        &mut self,
        m: &Monitor<'_>,
        scratch: &mut Scratch,
        run: &str,
        out: &mut Vec<Decision>,
    ) {
        let reorder = self.opts().reorder;
        let Some(live) = self.runs.get_mut(run) else {
            return;
        };
        let Some(spans) = live.spans.as_deref_mut() else {
            return;
        };
        let Spans { came, waits } = spans;
        let before = waits.len();
        let mut freed: Vec<u32> = Vec::new();
        waits.retain(|(j, p)| {
            let keep = !came.contains(p);
            if !keep {
                freed.push(*j);
            }
            keep
        });
        if waits.len() == before || live.done {
            return;
        }
        freed.sort_unstable();
        freed.dedup();
        for j in freed {
            if !live.waits(j as usize) {
                let places = &mut self.places;
                release(
                    m, scratch, places, run, live, j as usize, reorder, false, out,
                );
            }
        }
    }
}
