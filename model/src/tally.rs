//! What a batch adds up to: counts per verdict and reason, time statistics and the summary
//! line ([`Tally`]), and the exit status of the command line's convention. (The `--expect`
//! comparison of records with expected verdicts is `multitrace-analysis`'s `expect`.)
//!
//! Every front end that checks a batch reports it the same way: the command line prints
//! [`Tally::line`] after the records, and its exit status is [`Tally::exit_code`] (0 when every
//! multitrace is Pass or WeakPass, 1 when any is Fail, 2 on an input error, 3 when none failed
//! but some are Inconclusive).

use crate::record::Record;
use crate::verdict::VerdictKind;
use std::collections::BTreeMap;
use std::fmt;
use std::time::{Duration, Instant};

/// `1 multitrace`, `2 multitraces`.
pub fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A duration with a unit that suits it, to three significant digits: `850 ns`, `12.3 µs`,
/// `4.56 ms`, `123 s`.
pub fn human(d: Duration) -> String {
    let ns = d.as_nanos() as f64;
    let (x, unit) = if ns < 1e3 {
        (ns, "ns")
    } else if ns < 1e6 {
        (ns / 1e3, "µs")
    } else if ns < 1e9 {
        (ns / 1e6, "ms")
    } else {
        (ns / 1e9, "s")
    };
    let decimals = if unit == "ns" || x >= 100.0 {
        0
    } else if x < 10.0 {
        2
    } else {
        1
    };
    format!("{x:.decimals$} {unit}")
}

/// Counts per verdict and reason, and timing, of the records of a batch.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    counts: BTreeMap<VerdictKind, usize>,
    reasons: BTreeMap<(VerdictKind, String), usize>,
    errors: usize,
    fallbacks: usize,
    times: Vec<Duration>,
    /// When the batch started ([`Tally::start`]): the line then gives the wall time.
    started: Option<Instant>,
}

impl Tally {
    /// How many records were added.
    pub fn count(&self) -> usize {
        self.times.len()
    }

    /// Marks the start of the batch: [`Tally::line`] then gives the wall time since, beside
    /// the CPU time (the sum of the records' times, over every worker thread).
    pub fn start(&mut self) {
        self.started = Some(Instant::now());
    }

    /// How many were checked by term exploration because `auto` fell back to it.
    pub fn fallbacks(&self) -> usize {
        self.fallbacks
    }

    /// Counts one record; `fallback`: whether `auto` fell back to term exploration for it.
    pub fn add(&mut self, rec: &Record, fallback: bool) {
        match rec.verdict_kind() {
            Some(k) => {
                *self.counts.entry(k).or_default() += 1;
                if let Some(r) = &rec.reason {
                    *self.reasons.entry((k, r.clone())).or_default() += 1;
                }
            }
            None => self.errors += 1,
        }
        self.fallbacks += usize::from(fallback);
        self.times.push(Duration::from_micros(rec.time_us));
    }

    /// `10 multitraces: 4 Pass, 2 WeakPass, 4 Fail (3 CentralError, 1 LocalError); wall time
    /// 0.80 ms, CPU time 1.23 ms (median 141 µs per multitrace)`, and the fallbacks when there
    /// were some. The CPU time is the sum over the workers, so with several it may exceed the
    /// wall time; the wall time is given when the batch was [started](Tally::start).
    pub fn line(&mut self) -> String {
        let total: Duration = self.times.iter().sum();
        self.times.sort();
        let median = self
            .times
            .get(self.times.len() / 2)
            .copied()
            .unwrap_or_default();
        let mut parts: Vec<String> = Vec::new();
        for (k, n) in &self.counts {
            let reasons: Vec<String> = self
                .reasons
                .iter()
                .filter(|((kind, _), _)| kind == k)
                .map(|((_, r), m)| format!("{m} {r}"))
                .collect();
            if reasons.is_empty() {
                parts.push(format!("{n} {k}"));
            } else {
                parts.push(format!("{n} {k} ({})", reasons.join(", ")));
            }
        }
        if self.errors > 0 {
            parts.push(format!("{} Error", self.errors));
        }
        let wall = self
            .started
            .map(|s| format!("wall time {}, ", human(s.elapsed())))
            .unwrap_or_default();
        let mut line = format!(
            "{}: {}; {wall}CPU time {} (median {} per multitrace)",
            plural(self.times.len(), "multitrace", "multitraces"),
            if parts.is_empty() {
                "none".to_string()
            } else {
                parts.join(", ")
            },
            human(total),
            human(median)
        );
        if self.fallbacks > 0 {
            line.push_str(&format!(
                "; {} checked by term exploration (components are not the compiled locations)",
                self.fallbacks
            ));
        }
        if self.counts.contains_key(&VerdictKind::WeakPass) {
            line.push_str(
                "; WeakPass: the beginning of an accepted run (prefix mode, the default; --mode complete asks for whole runs)",
            );
        }
        line
    }

    /// 2 on an input error, else 1 on a Fail, else 3 on an Inconclusive, else 0.
    pub fn exit_code(&self) -> u8 {
        let n = |k| self.counts.get(&k).copied().unwrap_or(0);
        if self.errors > 0 {
            2
        } else if n(VerdictKind::Fail) > 0 {
            1
        } else if n(VerdictKind::Inconclusive) > 0 {
            3
        } else {
            0
        }
    }
}

/// The note for the first multitrace that `auto` checked by term exploration because its
/// components are not the locations `model` was compiled with (further ones are counted in
/// [`Tally::line`]).
pub fn fallback_note(rec: &Record, model: &str) -> String {
    format!(
        "{}: its components are not the locations {model} was compiled with, so it is checked by term exploration (AC and AS need the compiled locations); further fallbacks are counted in the summary",
        rec.name()
    )
}

/// A batch whose inputs held no multitrace: an error, not an empty success.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NothingChecked {
    /// The inputs as named by the user (`-` is standard input).
    pub inputs: Vec<String>,
}

impl fmt::Display for NothingChecked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inputs: Vec<&str> = self
            .inputs
            .iter()
            .map(|p| if p == "-" { "<stdin>" } else { p.as_str() })
            .collect();
        write!(
            f,
            "no multitraces found in {}: expected .htf or .mtf files, JSON Lines (.jsonl, `-`) with one multitrace per line, or directories holding them",
            inputs.join(", ")
        )
    }
}

impl std::error::Error for NothingChecked {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::ErrorRecord;

    #[test]
    fn durations_have_a_suitable_unit() {
        let h = |ns: u64| human(Duration::from_nanos(ns));
        assert_eq!(h(850), "850 ns");
        assert_eq!(h(12_345), "12.3 µs");
        assert_eq!(h(4_560_000), "4.56 ms");
        assert_eq!(h(123_000_000_000), "123 s");
        assert_eq!(h(0), "0 ns");
    }

    fn record(name: &str, verdict: &str, reason: Option<&str>) -> Record {
        let mut r = Record::error(
            name.into(),
            None,
            ErrorRecord::message("x"),
            Duration::from_micros(10),
        );
        r.verdict = verdict.into();
        r.reason = reason.map(Into::into);
        r
    }

    #[test]
    fn the_line_counts_verdicts_and_reasons_and_the_worst_sets_the_exit_code() {
        let mut t = Tally::default();
        t.add(&record("a", "Pass", None), false);
        assert_eq!(t.exit_code(), 0);
        t.add(&record("b", "Inconclusive", Some("Budget")), false);
        assert_eq!(t.exit_code(), 3);
        t.add(&record("c", "Fail", Some("LocalError")), true);
        t.add(&record("d", "Fail", Some("LocalError")), false);
        assert_eq!(t.exit_code(), 1);
        t.add(&record("e", "Error", None), false);
        assert_eq!(t.exit_code(), 2);
        assert_eq!(
            t.line(),
            "5 multitraces: 1 Pass, 2 Fail (2 LocalError), 1 Inconclusive (1 Budget), 1 Error; \
             CPU time 50.0 µs (median 10.0 µs per multitrace); 1 checked by term exploration (components are not \
             the compiled locations)"
        );
    }

    #[test]
    fn nothing_checked_names_the_inputs() {
        let e = NothingChecked {
            inputs: vec!["-".into(), "d".into()],
        };
        assert!(e
            .to_string()
            .starts_with("no multitraces found in <stdin>, d: "));
    }
}
