//! The offline event path (`check --events`): whole runs, held as letters, checked as the
//! batch checks files.
//!
//! `check --events` writes the batch record of each whole run (in its mode, the run's events
//! sorted by order key within each location): [`Engine::check_letters`] of its letters. The
//! order the events arrived in plays no part. A Fail's diagnosis starts from the consistent
//! cut the letters give (`multitrace_check`'s `cut` module: the local bounds, an interleaving
//! read greedily, each location extended by prefix checks), the same on every path, so a
//! diagnosis budget that runs out stops the file path and this one at the same place.
//!
//! Until issue 50 this path found its cut from the arrivals (the longest run of first
//! arrivals that is a multi-prefix), and under a small `--max-diagnosis-vertices` 139 of 600
//! MQTT runs got another partial diagnosis than `check` on the same runs as files.
//!
//! Invariant: the record is the one [`Engine::check_letters`] gives for the run's letters.

use multitrace_check::{CheckError, CheckOptions, Engine, Scratch};
use multitrace_model::verdict::Procedure;
use multitrace_model::verdict::Verdict;

pub use multitrace_formats::entry::{OfflineOut, OfflineRun};

/// Checks one whole run: the record [`Engine::check_letters`] gives for `run.letters` with
/// `opts`, whatever the order of `run.arrivals`.
pub fn check_run(
    engine: &Engine,
    scratch: &mut Scratch,
    run: &OfflineRun,
    opts: &CheckOptions,
) -> Result<(Verdict, Procedure), CheckError> {
    engine.check_letters(scratch, &run.letters, opts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::engine as mqtt;
    use multitrace_model::nfa::LetterId;
    use multitrace_model::rng::Rng;
    use multitrace_model::testdata::random_events;
    use multitrace_model::verdict::Mode;

    /// The verdict as its record has it: without the diagnosis's own search count.
    fn recorded(v: &Verdict) -> Verdict {
        let mut v = v.clone();
        if let Some(d) = &mut v.diagnosis {
            d.vertices = 0;
        }
        v
    }

    fn run_of(engine: &Engine, events: &[LetterId]) -> OfflineRun {
        let alphabet = &engine.model().alphabet;
        let mut letters = vec![Vec::new(); alphabet.locations()];
        let mut arrivals = Vec::new();
        for &a in events {
            let j = alphabet.location(a).index();
            letters[j].push(a);
            arrivals.push(j as u32);
        }
        OfflineRun {
            trace: "ev:1".into(),
            id: Some("r".into()),
            letters,
            arrivals,
        }
    }

    /// Issue 50, item 5: under a diagnosis budget that runs out, the record of a run is the
    /// same whatever the order its events arrived in, and the file path's: the diagnosis's
    /// cut is a function of the letters. (With the arrivals' cut, 139 of 600 differed.)
    #[test]
    fn a_diagnosis_budget_that_runs_out_gives_the_same_record_on_both_paths() {
        let engine = mqtt();
        let mut scratch = engine.scratch();
        let mut rng = Rng::new(23);
        let mut differ = 0;
        for _ in 0..200 {
            let steps = 1 + rng.below(40);
            let mut run = run_of(&engine, &random_events(engine.model(), &mut rng, steps));
            rng.shuffle(&mut run.arrivals);
            for budget in [5, 20, 100] {
                let opts = CheckOptions {
                    mode: Mode::Complete,
                    diagnosis: Some(multitrace_model::budget::Budget {
                        max_vertices: Some(budget),
                        ..Default::default()
                    }),
                    ..CheckOptions::default()
                };
                let want = engine.check_letters(&mut scratch, &run.letters, &opts);
                let got = check_run(&engine, &mut scratch, &run, &opts);
                let (want, got) = (want.unwrap(), got.unwrap());
                differ += usize::from(recorded(&got.0) != recorded(&want.0));
            }
        }
        assert_eq!(differ, 0, "{differ} records differ");
    }
}
