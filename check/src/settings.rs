//! The options of a check as every front end takes them: flat numbers where 0 means "no
//! limit", and switches. [`Settings::check_options`] is the one mapping to [`CheckOptions`],
//! used by the command line and the Python package alike, so both give the same verdicts for
//! the same arguments.

use super::explore::{Budget, ExploreOptions};
use super::options::{CheckOptions, Choice};
use multitrace_model::verdict::Mode;
use std::time::Duration;

/// A check's options in front-end form (`--timeout-ms`, `--max-vertices`, `--no-por`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    /// Complete or prefix membership.
    pub mode: Mode,
    /// Which procedure decides.
    pub choice: Choice,
    /// Rebuild one accepted interleaving for a Pass.
    pub witness: bool,
    /// Time per multitrace in milliseconds (0: none); it also bounds the diagnosis.
    pub timeout_ms: u64,
    /// Search vertices per multitrace (0: none).
    pub max_vertices: u64,
    /// Memory of the search structures of one check, in MiB (0: none); per worker.
    pub max_memory_mb: u64,
    /// Diagnose a Fail.
    pub diagnosis: bool,
    /// Search vertices of a diagnosis, all its queries together (0: none).
    pub max_diagnosis_vertices: u64,
    /// Term exploration: partial-order reduction.
    pub por: bool,
    /// Term exploration: local analyses.
    pub loc: bool,
    /// Term exploration: memoization.
    pub memo: bool,
}

impl Default for Settings {
    /// The runtime's defaults ([`CheckOptions::default`]: the default vertex budget, no time
    /// limit, diagnosis on, every reduction on).
    fn default() -> Self {
        let vertices = Budget::default().max_vertices.unwrap_or(0);
        Settings {
            mode: Mode::default(),
            choice: Choice::default(),
            witness: false,
            timeout_ms: 0,
            max_vertices: vertices,
            max_memory_mb: Budget::default().max_memory.map_or(0, |b| b >> 20),
            diagnosis: true,
            max_diagnosis_vertices: vertices,
            por: true,
            loc: true,
            memo: true,
        }
    }
}

impl Settings {
    /// The check options these settings ask for.
    pub fn check_options(&self) -> CheckOptions {
        let bound = |n: u64| (n > 0).then_some(n);
        let budget = Budget {
            max_vertices: bound(self.max_vertices),
            timeout: (self.timeout_ms > 0).then(|| Duration::from_millis(self.timeout_ms)),
            max_memory: bound(self.max_memory_mb).map(|m| m.saturating_mul(1 << 20)),
        };
        CheckOptions {
            mode: self.mode,
            choice: self.choice,
            explore: ExploreOptions {
                mode: self.mode,
                por: self.por,
                loc: self.loc,
                memo: self.memo,
                budget,
                witness: self.witness,
            },
            budget,
            witness: self.witness,
            diagnosis: self.diagnosis.then_some(Budget {
                max_vertices: bound(self.max_diagnosis_vertices),
                timeout: budget.timeout,
                max_memory: budget.max_memory,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_runtime_defaults() {
        assert_eq!(Settings::default().check_options(), CheckOptions::default());
    }

    #[test]
    fn zero_means_no_limit_and_the_timeout_bounds_the_diagnosis() {
        let s = Settings {
            timeout_ms: 250,
            max_vertices: 0,
            max_diagnosis_vertices: 7,
            ..Settings::default()
        };
        let o = s.check_options();
        assert_eq!(o.budget.max_vertices, None);
        assert_eq!(o.budget.timeout, Some(Duration::from_millis(250)));
        assert_eq!(o.explore.budget, o.budget);
        let d = o.diagnosis.expect("diagnosis on");
        assert_eq!(d.max_vertices, Some(7));
        assert_eq!(d.timeout, o.budget.timeout);
        let off = Settings {
            diagnosis: false,
            ..s
        }
        .check_options();
        assert_eq!(off.diagnosis, None);
    }
}
