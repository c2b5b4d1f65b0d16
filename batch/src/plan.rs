//! A batch as a front end asks for it: the optional numbers of a command line (`--jobs`,
//! `--max-memory`) resolved into worker threads and budgets, the same for every front end.
//!
//! Invariants: without `--jobs`, one task (one trace file that is not JSON Lines) gets one
//! worker and anything else one per core; the memory budget is the one given, else derived
//! from the workers asked for, else the runtime's deferred default
//! ([`DEFERRED_MEMORY`]: the core count and memory size are read only when a search grows
//! past it, which saves a one-multitrace check the time to read them).

use multitrace_check::settings::Settings;
use multitrace_check::CheckOptions;
use multitrace_model::budget::{default_jobs, default_max_memory, DEFERRED_MEMORY};

/// Worker threads and check options.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Worker threads.
    pub jobs: usize,
    /// The options of every check (the memory budget resolved).
    pub options: CheckOptions,
}

impl Plan {
    /// The plan for `settings` (whose `max_memory_mb` is replaced by the one resolved from
    /// `max_memory_mb` in MiB and `jobs`, both as given by the user), `one_task` saying
    /// whether the inputs are one task.
    pub fn new(
        settings: Settings,
        jobs: Option<usize>,
        max_memory_mb: Option<u64>,
        one_task: bool,
    ) -> Plan {
        let workers = jobs.unwrap_or_else(|| if one_task { 1 } else { default_jobs() });
        let max_memory_mb = max_memory_mb.or_else(|| jobs.map(|j| default_max_memory(j) >> 20));
        let mut options = Settings {
            max_memory_mb: max_memory_mb.unwrap_or(0),
            ..settings
        }
        .check_options();
        if max_memory_mb.is_none() {
            let deferred = Some(DEFERRED_MEMORY);
            options.budget.max_memory = deferred;
            options.explore.budget.max_memory = deferred;
            if let Some(d) = &mut options.diagnosis {
                d.max_memory = deferred;
            }
        }
        Plan {
            jobs: workers,
            options,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_given_derived_or_deferred() {
        let s = Settings::default();
        let given = Plan::new(s, Some(3), Some(5), false);
        assert_eq!(given.jobs, 3);
        assert_eq!(given.options.budget.max_memory, Some(5 << 20));
        let derived = Plan::new(s, Some(2), None, false);
        let per_job = default_max_memory(2) >> 20;
        assert_eq!(derived.options.budget.max_memory, Some(per_job << 20));
        let deferred = Plan::new(s, None, None, true);
        assert_eq!(deferred.jobs, 1);
        assert_eq!(deferred.options.budget.max_memory, Some(DEFERRED_MEMORY));
        assert_eq!(
            deferred.options.explore.budget.max_memory,
            Some(DEFERRED_MEMORY)
        );
        let d = deferred.options.diagnosis.expect("diagnosis on");
        assert_eq!(d.max_memory, Some(DEFERRED_MEMORY));
        assert_eq!(Plan::new(s, None, None, false).jobs, default_jobs());
    }
}
