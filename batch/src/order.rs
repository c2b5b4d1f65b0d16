//! Running a batch: workers take tasks from the source, check them, and the calling thread
//! hands the records to the sink in input order, with at most a window of tasks in flight.

use super::options::MAX_JOBS;
use super::outcome::{Outcome, Progress, RunError};
use super::run::Batch;
use super::source::{Source, Stream, Task};
use multitrace_check::explore::CHECK_STACK_SIZE;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};

/// The records of one task, in order, and whether they end their stream (nothing after them
/// from the same stream is handed to the sink).
pub(super) struct Done {
    pub outcomes: Vec<Outcome>,
    pub stream: Option<Arc<Stream>>,
    pub stops: bool,
}

/// The source, a task read ahead of it (the first, read before the workers start), and the
/// index of the next task.
struct Shared<'s> {
    ahead: Option<Task>,
    source: Box<dyn Source + 's>,
    next_index: usize,
}

/// Order-preserving window: workers wait while they are this many tasks ahead of the sink.
struct Window {
    consumed: Mutex<usize>,
    moved: Condvar,
    size: usize,
}

impl Window {
    fn wait_for(&self, i: usize) {
        let mut consumed = self.consumed.lock().unwrap_or_else(|e| e.into_inner());
        while i >= *consumed + self.size {
            consumed = self.moved.wait(consumed).unwrap_or_else(|e| e.into_inner());
        }
    }
    fn advance(&self, to: usize) {
        *self.consumed.lock().unwrap_or_else(|e| e.into_inner()) = to;
        self.moved.notify_all();
    }
}

impl Batch<'_> {
    pub(super) fn run_source<E>(
        &self,
        mut source: Box<dyn Source + '_>,
        total: Option<usize>,
        mut sink: impl FnMut(Outcome) -> Result<(), E>,
    ) -> Result<(), RunError<E>> {
        let jobs = self.options.jobs.clamp(1, MAX_JOBS);
        // The first task is read here: when it is the only one, one worker is started, not
        // `jobs` (a one-multitrace check starts one thread).
        let Some(first) = source.next() else {
            return Ok(());
        };
        let only = !source.has_more();
        let workers = if only { 1 } else { jobs };
        if only && self.caller_stack {
            // One task, and this thread can run any check: no worker thread at all.
            let done = self.run_task(&mut self.engine().scratch(), first);
            for (k, outcome) in done.outcomes.into_iter().enumerate() {
                sink(outcome).map_err(RunError::Sink)?;
                if let Some(p) = &self.progress {
                    let mut p = p.lock().unwrap_or_else(|e| e.into_inner());
                    p(Progress { done: k + 1, total });
                }
            }
            return Ok(());
        }
        let shared = Mutex::new(Shared {
            ahead: Some(first),
            source,
            next_index: 0,
        });
        let window = Window {
            consumed: Mutex::new(0),
            moved: Condvar::new(),
            size: jobs.saturating_mul(self.options.window_per_job.max(1)),
        };
        let stop = AtomicBool::new(false);
        let (tx, rx) = std::sync::mpsc::channel::<(usize, Done)>();
        std::thread::scope(|scope| {
            let mut started = Ok(());
            for _ in 0..workers {
                let tx = tx.clone();
                let (window, shared, stop) = (&window, &shared, &stop);
                let spawned = std::thread::Builder::new()
                    .stack_size(CHECK_STACK_SIZE)
                    .spawn_scoped(scope, move || {
                        let mut scratch = self.engine().scratch();
                        loop {
                            if stop.load(Ordering::Relaxed) {
                                break;
                            }
                            let next = shared.lock().ok().and_then(|mut s| {
                                let task = match s.ahead.take() {
                                    Some(t) => t,
                                    None => s.source.next()?,
                                };
                                let i = s.next_index;
                                s.next_index += 1;
                                Some((i, task))
                            });
                            let Some((i, task)) = next else { break };
                            window.wait_for(i);
                            let done = self.run_task(&mut scratch, task);
                            if tx.send((i, done)).is_err() {
                                break;
                            }
                        }
                    });
                if let Err(e) = spawned {
                    started = Err(e);
                    stop.store(true, Ordering::Relaxed);
                    break;
                }
            }
            drop(tx);
            let mut pending = BTreeMap::new();
            let (mut expected, mut handed) = (0, 0);
            // A stream stopped by a line that is not text: its later tasks are dropped.
            let mut stopped: Option<Arc<Stream>> = None;
            let mut result = Ok(());
            for (i, done) in rx {
                pending.insert(i, done);
                while let Some(done) = pending.remove(&expected) {
                    expected += 1;
                    let dropped = match (&done.stream, &stopped) {
                        (Some(s), Some(x)) => Arc::ptr_eq(s, x),
                        _ => false,
                    };
                    if dropped {
                        continue;
                    }
                    if done.stops {
                        stopped.clone_from(&done.stream);
                    }
                    for outcome in done.outcomes {
                        if result.is_err() || started.is_err() {
                            break;
                        }
                        result = sink(outcome);
                        handed += 1;
                        if result.is_err() {
                            stop.store(true, Ordering::Relaxed);
                        } else if let Some(p) = &self.progress {
                            let mut p = p.lock().unwrap_or_else(|e| e.into_inner());
                            p(Progress {
                                done: handed,
                                total,
                            });
                        }
                    }
                }
                window.advance(expected);
            }
            window.advance(usize::MAX / 2);
            started.map_err(RunError::Spawn)?;
            result.map_err(RunError::Sink)
        })
    }
}
