//! Event logs checked on a batch: the runs the readers group
//! ([`multitrace_formats::events`]), one record per run in the order of each run's first
//! event, Error records in place.

use crate::{Batch, Outcome, RunError};
use multitrace_formats::events::{read_offline_runs, EventOptions, EventsError, RunOut};
use multitrace_model::record::Record;
use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// Checks the runs of event files on `batch` and hands one record per run to `sink`, in the
/// order of each run's first event (an event without a run, or an unreadable file, gets its
/// own Error record in place).
pub fn run_events<E>(
    batch: &Batch<'_>,
    files: &[PathBuf],
    opts: &EventOptions,
    sink: impl FnMut(Outcome) -> Result<(), E>,
) -> Result<Result<usize, EventsError>, RunError<E>> {
    // Runs as letters, checked whole on the monitor's offline path (a Fail's diagnosis knows
    // the cut the monitor decides it at): the same records as `check_runs` of `read_runs`.
    let runs = match read_offline_runs(&batch.engine().model().alphabet, files, opts) {
        Ok(r) => r,
        Err(e) => return Ok(Err(e)),
    };
    batch.run_offline(runs, sink).map(Ok)
}

/// Checks grouped runs ([`Grouper::group`](multitrace_formats::events::Grouper::group), [`read_runs`](multitrace_formats::events::read_runs)) on `batch` and hands one record per
/// run to `sink` in their order (Error records in place); returns the number of records.
pub fn check_runs<E>(
    batch: &Batch<'_>,
    runs: impl Iterator<Item = RunOut> + Send,
    mut sink: impl FnMut(Outcome) -> Result<(), E>,
) -> Result<usize, RunError<E>> {
    // Error records wait in `pending`, tagged with the number of items before them, and are
    // handed to the sink between the outcomes of the items around them.
    let pending: Arc<Mutex<VecDeque<(usize, Record)>>> = Arc::default();
    let queue = Arc::clone(&pending);
    let mut pulled = 0usize;
    let items = runs.filter_map(move |r| match r {
        RunOut::Item(i) => {
            pulled += 1;
            Some(i)
        }
        RunOut::Error(rec) => {
            queue
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push_back((pulled, *rec));
            None
        }
    });
    let mut done = 0usize;
    let mut count = 0usize;
    let drain = |upto: usize,
                 sink: &mut dyn FnMut(Outcome) -> Result<(), E>,
                 count: &mut usize|
     -> Result<(), E> {
        loop {
            let next = {
                let mut q = pending.lock().unwrap_or_else(|e| e.into_inner());
                match q.front() {
                    Some((before, _)) if *before <= upto => q.pop_front(),
                    _ => None,
                }
            };
            let Some((_, record)) = next else {
                return Ok(());
            };
            *count += 1;
            sink(Outcome {
                record,
                fallback: false,
            })?;
        }
    };
    batch.run_items(items, |o| {
        drain(done, &mut sink, &mut count)?;
        done += 1;
        count += 1;
        sink(o)
    })?;
    drain(usize::MAX, &mut sink, &mut count).map_err(RunError::Sink)?;
    Ok(count)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::engine;
    use crate::BatchOptions;
    use multitrace_check::CheckOptions;
    use multitrace_formats::events::EventOptions;
    #[test]
    fn run_events_in_order_with_cap_and_sorted_mode() {
        let dir = std::env::temp_dir().join(format!("mt-events-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let a = dir.join("a.jsonl");
        let b = dir.join("b.jsonl");
        std::fs::write(&a, "{\"run\":1,\"action\":\"clt1!begin\",\"order\":1}\n{\"run\":2,\"action\":\"bad\",\"order\":1}\n").unwrap();
        std::fs::write(&b, "{\"run\":1,\"action\":\"brok?pub\",\"order\":1}\n{\"run\":3,\"action\":\"clt1!begin\",\"order\":1}\n").unwrap();
        let e = engine();
        let batch = Batch::new(
            &e,
            CheckOptions::default(),
            BatchOptions {
                jobs: 2,
                ..BatchOptions::default()
            },
        );
        let mut got = Vec::new();
        let files = vec![a.clone(), b.clone()];
        let n = batch
            .run_events(&files, &EventOptions::default(), &mut got)
            .unwrap();
        assert_eq!(n, 3);
        let v: Vec<_> = got
            .iter()
            .map(|r: &Record| (r.id.clone().unwrap(), r.verdict.clone()))
            .collect();
        assert_eq!(
            v,
            vec![
                ("1".into(), "Fail".into()),
                ("2".into(), "Error".into()),
                ("3".into(), "WeakPass".into())
            ]
        );
        // Sorted mode, two files each sorted by run: merged by run id, the same records.
        let sorted = EventOptions {
            sorted: true,
            ..EventOptions::default()
        };
        let mut got = Vec::new();
        batch.run_events(&files, &sorted, &mut got).unwrap();
        let w: Vec<_> = got
            .iter()
            .map(|r: &Record| (r.id.clone().unwrap(), r.verdict.clone()))
            .collect();
        assert_eq!(w, v);
        // A file not sorted: run 1 appears again after run 2, an Error for that part.
        let c = dir.join("c.jsonl");
        std::fs::write(&c, "{\"run\":1,\"action\":\"clt1!begin\",\"order\":1}\n{\"run\":2,\"action\":\"clt1!begin\",\"order\":1}\n{\"run\":1,\"action\":\"brok?pub\",\"order\":1}\n").unwrap();
        let mut got = Vec::new();
        batch.run_events(&[c], &sorted, &mut got).unwrap();
        let v: Vec<_> = got.iter().map(|r| r.verdict.clone()).collect();
        assert_eq!(v, vec!["WeakPass", "WeakPass", "Error"]);
        assert!(got[2]
            .explanation
            .as_ref()
            .unwrap()
            .contains("appears again"));
        // The cap.
        let capped = EventOptions {
            max_buffered_events: 3,
            ..EventOptions::default()
        };
        let err = batch
            .run_events(&files, &capped, &mut Vec::new())
            .unwrap_err();
        assert!(err.to_string().contains("--max-buffered-events"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    trait RunAll {
        fn run_events(
            &self,
            files: &[PathBuf],
            opts: &EventOptions,
            out: &mut Vec<Record>,
        ) -> Result<usize, EventsError>;
    }

    impl RunAll for Batch<'_> {
        fn run_events(
            &self,
            files: &[PathBuf],
            opts: &EventOptions,
            out: &mut Vec<Record>,
        ) -> Result<usize, EventsError> {
            run_events(self, files, opts, |o| {
                out.push(o.record);
                Ok::<(), std::convert::Infallible>(())
            })
            .unwrap()
        }
    }
}
