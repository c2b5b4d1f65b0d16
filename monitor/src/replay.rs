//! The replay of a round's events fed unchecked, when the run's check at the end of the
//! round ([`Monitor::settle`]) finds it no longer a multi-prefix (or a push runs out of the
//! budget): the event that decides the run is found, with the decision [`Monitor::push`]
//! gives there, event by event as if each had been checked.
//!
//! A multitrace that is not a multi-prefix stays so whatever follows, so the events that
//! keep the run one are a prefix of the round, found by bisection: a search per halving
//! instead of one per event (on the MQTT set, the replays were 12 % of the monitor's time).
//!
//! Why skipping those events leaves the run exactly as the event-by-event replay does, even
//! when some check there could run out of the budget: the product's pushes are the same
//! pushes from the same states (a push that runs out stops the bisection, and the events from
//! there are replayed one at a time, meeting it again); no search on a multi-prefix says it
//! is not one, so none of the skipped events decides the run; and what a search that runs
//! out changes (`unsure`) is set again by the next event the product is pushed: the state
//! after the last skipped event is that of the probe that found it a multi-prefix (the same
//! product, the same search), and one whose guess holds follows a push that met the live
//! states. So the bisection needs no bound on the searches' size (it had one, and on the
//! MQTT set 518 of its 865 replays exceeded it and were replayed one event at a time).

use super::behind::Behind;
use super::product::{Kernel, Product};
use super::run::{LiveRun, Monitor, Standing};
use multitrace_check::Scratch;
use multitrace_model::nfa::LetterId;
use multitrace_model::verdict::Verdict;

impl Monitor<'_> {
    /// Finds the first unchecked event that decides the run, with [`Monitor::push`]'s
    /// decision. The events before the first dark one are multi-prefixes (`R(n)` met the
    /// live states after each, so `push`'s check needed no search and passed); the first dark
    /// event is checked by itself (its product is the one kept after it, or the current one
    /// when it is the last), then the others replayed one at a time on the kept product. The
    /// run is decided then.
    ///
    /// `settled`: called at the end of a round whose check did not find the run a
    /// multi-prefix (a search said it is not one, or ran out), not after a push that ran out
    /// of the budget; the events that keep it one are then skipped by bisection
    /// ([`Monitor::still_prefixes`]).
    pub(super) fn replay(
        &self,
        scratch: &mut Scratch,
        run: &mut LiveRun,
        settled: bool,
    ) -> Option<(u64, Verdict)> {
        // The list starts at the first dark event (a replay is asked for only then).
        let n = run.unchecked.len();
        debug_assert!(n > 0);
        if n == 0 {
            run.settled();
            return None;
        }
        let first = run.events - n as u64 + 1;
        let after_first = if n == 1 {
            run.checked = None;
            run.product.take()
        } else {
            run.checked.take().map(|b| *b)
        };
        let unchecked = std::mem::take(&mut run.unchecked);
        run.quiet = 0;
        let mut lens: Vec<usize> = run.traces.iter().map(Vec::len).collect();
        for &j in &unchecked {
            lens[j as usize] -= 1;
        }
        let letters: Vec<LetterId> = {
            let mut at = lens.clone();
            unchecked
                .iter()
                .map(|&j| {
                    let a = run.traces[j as usize][at[j as usize]];
                    at[j as usize] += 1;
                    a
                })
                .collect()
        };
        let mut again = LiveRun {
            traces: run
                .traces
                .iter()
                .zip(&lens)
                .map(|(t, &l)| t[..l].to_vec())
                .collect(),
            product: after_first,
            standing: Standing::Open,
            events: first,
            unchecked: Vec::new(),
            quiet: 0,
            checked: None,
            // As the events before the first dark one left it (one of them, meeting the live
            // states, cleared it).
            unsure: run.unsure,
            late: run.late,
            retry: run.retry,
            // (A replay is of a run whose guess broke before: it has none.)
            guess: None,
            behind: Behind::default(),
            // Read below, once the events the replay needs not check are in.
            local: Vec::new(),
        };
        // The first unchecked event, checked as `push` checks it.
        let j0 = unchecked[0] as usize;
        again.traces[j0].push(letters[0]);
        if let (Some(k), Some(p)) = (self.kernel(), &again.product) {
            let found = p.is_multi_prefix(&k, &again.traces, self.opts.max_vertices);
            if let Some(v) = self.answered(scratch, &mut again, found, j0, None) {
                self.decide(run, first, v.kind);
                return Some((first, v));
            }
        }
        let mut rest = &letters[1..];
        let mut bisected = false;
        if settled && !again.unsure {
            if let (Some(k), Some(p)) = (self.kernel(), &mut again.product) {
                let good = self.still_prefixes(&k, p, &run.traces, rest);
                bisected = true;
                // As the replay would leave them: each a multi-prefix (`unsure` clear, as the
                // module docs show).
                for &a in &rest[..good] {
                    let j = self.engine.model().alphabet.location(a).index();
                    again.traces[j].push(a);
                }
                again.events += good as u64;
                rest = &rest[good..];
            }
        }
        // The local verifiers' states before the events replayed one at a time (`push` reads
        // them as it does when each event is checked at once).
        again.local = self.local_states(&again.traces);
        for (n, &a) in rest.iter().enumerate() {
            // After a bisection the first event breaks the run (unless a check ran out): a copy
            // of the product before it serves its record's diagnosis.
            let before = (bisected && n == 0)
                .then(|| again.product.clone())
                .flatten();
            if let Some(v) = self.push_from(scratch, &mut again, a, before.as_ref()) {
                let at = again.events;
                self.decide(run, at, v.kind);
                return Some((at, v));
            }
        }
        // No decision: the round's searches ran out of the budget (the run stays open, unsure)
        // and the product's did not; the replay has the run's state exactly.
        again.events = run.events;
        *run = again;
        None
    }

    /// How many of `rest`'s events are known, by bisection, to keep the run a multi-prefix,
    /// `p` (the run's product before them, itself one) moved past them: each count the
    /// bisection settles on is one a probe found a multi-prefix (0 when none did). The first
    /// event past them breaks the run unless a probe's push or search ran out of the budget
    /// (the bisection stops there) or the round's check did (its `hi` was never probed): the
    /// caller replays the events past them one at a time either way.
    fn still_prefixes(
        &self,
        k: &Kernel<'_>,
        p: &mut Product,
        traces: &[Vec<LetterId>],
        rest: &[LetterId],
    ) -> usize {
        let max = self.opts.max_vertices;
        let alphabet = &self.engine.model().alphabet;
        // `lo` events keep it a multi-prefix (`p` is past them), `hi` do not.
        let (mut lo, mut hi) = (0, rest.len());
        let mut probe = p.clone();
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            probe.clone_from(p);
            // The product reads each location's trace up to its own length only: the whole
            // run's traces serve every probe.
            let pushed = rest[lo..mid].iter().all(|&a| {
                let j = alphabet.location(a).index();
                probe.push(k, traces, j, a, max).is_ok()
            });
            match pushed.then(|| probe.is_multi_prefix(k, traces, max)) {
                Some(Ok(true)) => {
                    std::mem::swap(p, &mut probe);
                    lo = mid;
                }
                Some(Ok(false)) => hi = mid,
                // A push or the search ran out: the replay goes on event by event from `lo`.
                _ => break,
            }
        }
        lo
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{feed_each, held_back, mqtt};
    use super::super::{Monitor, MonitorOptions};
    use crate::product::Product;
    use multitrace_model::rng::Rng;

    /// On random MQTT runs (mutated, some with a location held back) cut at a random event
    /// into a multi-prefix and the rest: when the whole run is not a multi-prefix, the
    /// bisection never counts past the rest's events before the first that breaks it (found
    /// by checking after every event), leaves the product as pushing the events it counts
    /// does, and counts all of them unless a probe ran out of a small budget.
    #[test]
    fn the_bisection_stops_where_the_run_breaks() {
        // (MQTT's products are small: a budget of 8 vertices rarely stops a probe.)
        let engine = mqtt();
        let mut rng = Rng::new(19);
        let (mut bisected, mut long, mut short) = (0, 0, 0);
        for case in 0..400 {
            let budget = if case % 5 == 0 {
                rng.between(2, 6)
            } else {
                4096
            };
            let opts = MonitorOptions {
                max_vertices: budget,
                ..MonitorOptions::default()
            };
            let m = Monitor::new(&engine, opts).unwrap();
            let k = m.kernel().unwrap();
            let steps = rng.between(2, 70);
            let events = held_back(&engine, &mut rng, steps, [0, 3, 1000][case % 3]);
            // The product after each event, checked after each: `good[t]`.
            let mut products = vec![Product::new(&k)];
            let mut good = vec![true];
            let (_, traces) = feed_each(&k, &events, |p, traces| {
                good.push(p.is_multi_prefix(&k, traces, usize::MAX) == Ok(true));
                products.push(p.clone());
            });
            if good[events.len()] {
                continue;
            }
            let first_bad = good.iter().position(|&g| !g).unwrap();
            // A cut where the run is still a multi-prefix.
            let cut = rng.below(first_bad);
            let mut q = products[cut].clone();
            let n = m.still_prefixes(&k, &mut q, &traces, &events[cut..]);
            assert!(cut + n < first_bad, "{events:?} cut at {cut}");
            assert_eq!(q, products[cut + n]);
            if cut + n == first_bad - 1 {
                bisected += 1;
                long += usize::from(events.len() - cut > 8);
            } else {
                // Only a probe that ran out stops it short.
                assert!(budget <= 6, "{events:?} cut at {cut}");
                short += 1;
            }
        }
        assert!(
            bisected > 100 && long > 20 && short > 5,
            "{bisected} {long} {short}"
        );
    }
}
