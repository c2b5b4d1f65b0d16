//! How far a long analysis has got ([`Progress`]), reported to a skin's callback at a bounded
//! rate ([`Reporter`]), so that the command line can draw a bar (count, total, rate, time left)
//! while `gen`, `compare` or `partition` runs. Nothing here prints.
//!
//! Invariants:
//!
//! - **Monotone**: within one analysis, `done` never decreases from one report to the next, and
//!   the last report ([`Reporter::finish`]) has `done == total` when the total is known and the
//!   analysis ran to its end.
//! - **Bounded rate, no cost in the hot loop**: [`Reporter::tick`] is called once per unit of
//!   work (a candidate, a check, a product state); it counts, reads the clock only every
//!   [`Reporter::CLOCK_EVERY`] ticks, and calls the callback at most once per
//!   [`Reporter::INTERVAL`]; without a callback it only counts.

use std::time::{Duration, Instant};

/// One report: `done` units of work out of `total` when it is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Units done so far.
    pub done: u64,
    /// Units in all, when known before the work ends.
    pub total: Option<u64>,
    /// What a unit is, in the plural (`"multitraces"`, `"checks"`, `"product states"`).
    pub unit: &'static str,
}

/// The callback a skin passes to an analysis.
pub type ProgressFn<'a> = &'a dyn Fn(Progress);

/// Counts work and reports it to a callback at a bounded rate.
pub struct Reporter<'a> {
    sink: Option<ProgressFn<'a>>,
    unit: &'static str,
    total: Option<u64>,
    ticks: u32,
    last: Option<Instant>,
}

impl<'a> Reporter<'a> {
    /// Least time between two reports (the last one aside).
    pub const INTERVAL: Duration = Duration::from_millis(50);
    /// Ticks between two readings of the clock.
    pub const CLOCK_EVERY: u32 = 64;

    /// A reporter of `unit`s to `sink` (`None`: nothing is reported).
    pub fn new(sink: Option<ProgressFn<'a>>, unit: &'static str, total: Option<u64>) -> Self {
        Reporter {
            sink,
            unit,
            total,
            ticks: 0,
            last: None,
        }
    }

    /// A reporter that reports nothing.
    pub fn silent() -> Self {
        Reporter::new(None, "", None)
    }

    /// The total, once it is known.
    pub fn set_total(&mut self, total: u64) {
        self.total = Some(total);
    }

    /// `done` units so far: reported when [`Self::INTERVAL`] has passed since the last report
    /// (the first tick is always reported).
    #[inline]
    pub fn tick(&mut self, done: u64) {
        let Some(sink) = self.sink else { return };
        self.ticks += 1;
        if self.last.is_some() && self.ticks < Self::CLOCK_EVERY {
            return;
        }
        self.ticks = 0;
        let now = Instant::now();
        if self
            .last
            .is_none_or(|l| now.duration_since(l) >= Self::INTERVAL)
        {
            self.last = Some(now);
            sink(self.progress(done));
        }
    }

    /// The last report: `done` units, always reported.
    pub fn finish(&mut self, done: u64) {
        if let Some(sink) = self.sink {
            sink(self.progress(done));
        }
    }

    fn progress(&self, done: u64) -> Progress {
        Progress {
            done,
            total: self.total,
            unit: self.unit,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    #[test]
    fn reports_are_bounded_in_rate_and_the_last_is_always_given() {
        let seen = RefCell::new(Vec::new());
        let sink = |p: Progress| seen.borrow_mut().push(p);
        let mut r = Reporter::new(Some(&sink), "things", Some(1_000_000));
        for i in 1..=1_000_000 {
            r.tick(i);
        }
        r.finish(1_000_000);
        let seen = seen.into_inner();
        // A million ticks in well under a second: the first, a few at 50 ms, and the last.
        assert!(seen.len() >= 2 && seen.len() < 1_000, "{}", seen.len());
        assert_eq!(seen[0].done, 1);
        assert_eq!(seen.last().unwrap().done, 1_000_000);
        assert!(seen.windows(2).all(|w| w[0].done <= w[1].done));
        assert!(seen
            .iter()
            .all(|p| p.unit == "things" && p.total == Some(1_000_000)));
    }

    #[test]
    fn a_silent_reporter_calls_nothing() {
        let mut r = Reporter::silent();
        r.tick(1);
        r.finish(1);
    }
}
