//! A live run whose product outgrew its budget (`--max-live-vertices`: one location lags
//! far behind the others): the product is dropped and the run is checked from its traces,
//! never `Inconclusive` for the product's sake, and a Fail found so says since when it may
//! have been certain ([`Late`]).

use super::late::{Late, LateNote, LateWhy};
use super::product::TooWide;
use super::run::{Known, LiveRun, Monitor, Standing};
use multitrace_check::Scratch;
use multitrace_model::nfa::LetterId;
use multitrace_model::verdict::{Mode, Verdict, VerdictKind};

impl Monitor<'_> {
    /// The run's product outgrew its budget on its last event (one location lags far behind
    /// the others): it is dropped, and the run is checked from its traces from now on (its
    /// local verifiers at each event, [`Monitor::retried`] at doubling event counts, the
    /// batch check at its end), never `Inconclusive` for the product's sake; a Fail found so
    /// says since when it may have been certain ([`Late`]).
    pub(super) fn overflow(&self, run: &mut LiveRun, w: TooWide) {
        run.drop_product();
        // The events before this one are a multi-prefix unless a search ran out since the
        // last check that said so (then the Fail may be certain from that search on).
        let since = match (run.unsure, run.late) {
            (true, Some(l)) => l.since,
            _ => run.events,
        };
        run.late = Some(Late {
            since,
            why: LateWhy::Product(w.location as u32),
        });
        run.unsure = true;
        run.retry = run.events.saturating_mul(2);
    }

    /// What the record of `run`'s verdict `v` says of being late: for a Fail whose run could
    /// not be checked at each event since some event, since when and why; `None` else.
    pub(crate) fn late_note(&self, v: &Verdict, run: &LiveRun) -> Option<LateNote> {
        let names = self.engine.model().alphabet.location_names();
        (v.kind == VerdictKind::Fail)
            .then_some(run.late)
            .flatten()
            .map(|l| l.note(names))
    }

    /// Adds an event to the run's traces without checking it, for events known only when
    /// the run ends (the events a reorder window still holds then): the run is then checked
    /// whole by [`Monitor::finish`] (the batch record of its traces, as `check` gives it);
    /// its product and guess, which no longer match its traces, are dropped.
    pub fn append(&self, run: &mut LiveRun, letter: LetterId) {
        run.events += 1;
        if run.standing != Standing::Open {
            return;
        }
        let j = self.engine.model().alphabet.location(letter).index();
        run.traces[j].push(letter);
        run.drop_product();
        run.local = Vec::new();
        // (Nothing is known of the traces now: the end's check assumes nothing.)
        run.unsure = true;
    }

    /// Whether the run's product outgrew its budget (`--max-live-vertices`): it is then checked
    /// from its traces.
    pub fn overflowed(&self, run: &LiveRun) -> bool {
        run.standing == Standing::Open && run.product.is_none() && self.kernel().is_some()
    }

    /// An event of a run whose product outgrew its budget: at doubling event counts, the
    /// batch check of its events as a prefix (the record `check` gives them); a Fail there is
    /// the run's. The checks between two Fails cost at most twice the last one.
    pub(super) fn retried(&self, scratch: &mut Scratch, run: &mut LiveRun) -> Option<Verdict> {
        if run.events < run.retry {
            return None;
        }
        run.retry = run.events.saturating_mul(2);
        let v = self.batch(
            scratch,
            &run.traces,
            Mode::Prefix,
            Known::Nothing,
            None,
            None,
        );
        match v.kind {
            VerdictKind::Fail => Some(v),
            VerdictKind::Pass | VerdictKind::WeakPass => {
                // A multi-prefix up to here: a later Fail may be certain from the next event.
                if let Some(l) = &mut run.late {
                    l.since = run.events + 1;
                }
                None
            }
            VerdictKind::Inconclusive => None,
        }
    }
}
