//! Where Rust work runs: off the GIL, on threads with the runtime's checking stack size.
//!
//! Invariants: the GIL is released whenever Rust works (checking, compiling, reading); Ctrl-C
//! is seen while a single check runs; no panic crosses into Python (each is caught and raised
//! as an internal `MultitraceError`).

use crate::errors::{internal, panic_message};
use multitrace_check::explore::CHECK_STACK_SIZE;
use pyo3::prelude::*;
use std::sync::mpsc::{RecvTimeoutError, Sender};
use std::sync::Mutex;
use std::time::Duration;

/// Runs `f` without the GIL on a thread with the checking stack size; a panic becomes a
/// `MultitraceError`.
pub(crate) fn detached<T: Send>(py: Python<'_>, f: impl FnOnce() -> T + Send) -> PyResult<T> {
    let run = py.allow_threads(|| {
        std::thread::scope(|scope| {
            let handle = std::thread::Builder::new()
                .stack_size(CHECK_STACK_SIZE)
                .spawn_scoped(scope, f)
                .map_err(|e| format!("cannot start a thread: {e}"))?;
            handle.join().map_err(|p| panic_message(p.as_ref()))
        })
    });
    run.map_err(|m| internal(py, &m))
}

/// A job for a checking thread.
type Job = Box<dyn FnOnce() + Send + 'static>;

/// Threads with the checking stack size kept for single checks: starting one per call would
/// cost more than most checks. A thread ends when its sender is dropped (with its model).
#[derive(Default)]
pub(crate) struct Executor {
    idle: Mutex<Vec<Sender<Job>>>,
}

impl Executor {
    /// Runs `f` on an idle checking thread (a new one when none is idle) without the GIL;
    /// Ctrl-C is seen while waiting; a panic becomes a `MultitraceError`.
    pub fn run<T: Send + 'static>(
        &self,
        py: Python<'_>,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> PyResult<T> {
        let idle = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let worker = match idle {
            Some(w) => w,
            None => {
                let (tx, rx) = std::sync::mpsc::channel::<Job>();
                std::thread::Builder::new()
                    .name("multitrace-check".into())
                    .stack_size(CHECK_STACK_SIZE)
                    .spawn(move || {
                        for job in rx {
                            job();
                        }
                    })
                    .map_err(|e| internal(py, &format!("cannot start a thread: {e}")))?;
                tx
            }
        };
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        let rx = Mutex::new(rx);
        let job: Job = Box::new(move || {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
                .map_err(|p| panic_message(p.as_ref()));
            let _ = tx.send(r);
        });
        if worker.send(job).is_err() {
            return Err(internal(py, "a checking thread is gone"));
        }
        loop {
            let got = py.allow_threads(|| {
                rx.lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .recv_timeout(Duration::from_millis(50))
            });
            match got {
                Ok(r) => {
                    self.idle
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push(worker);
                    return r.map_err(|m| internal(py, &m));
                }
                // On Ctrl-C the thread finishes the check alone, then ends.
                Err(RecvTimeoutError::Timeout) => py.check_signals()?,
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(internal(py, "a checking thread is gone"))
                }
            }
        }
    }
}
