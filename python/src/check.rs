//! Checking from Python: `Model.check` (one multitrace, on a kept checking thread),
//! `Model.check_many` (a Python iterable, fed to the runtime's batch in chunks) and
//! `Model.check_files` (files read by the batch's workers), the last two giving a
//! [`ResultIterator`].
//!
//! Invariants: results come in input order, one per input, also for inputs that cannot be
//! checked (an Error result, or its exception with `errors="raise"`); at most
//! `jobs * 2 * window_per_job` items are in flight, so memory does not grow with the input;
//! dropping the iterator stops the batch.

use crate::compiled::Model;
use crate::errors::{error, internal, panic_message, record_error, At};
use crate::options::{cli_defaults, Options, Signature};
use crate::read::{entry_of, Names};
use crate::result::CheckResult;
use crate::threads::detached;
use multitrace_batch::{Batch, Outcome, RunError};
use multitrace_formats::{entry::Entry, input::collect_traces};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyIterator;
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, SyncSender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// `Model.check(traces, <check options>, trace=None, id=None)`.
pub(crate) const CHECK: Signature = Signature {
    name: "Model.check",
    before: &[],
    after: &["trace", "id"],
};

/// `Model.check_many(iterable, jobs=None, <check options>, errors="record")`.
pub(crate) const CHECK_MANY: Signature = Signature {
    name: "Model.check_many",
    before: &["jobs"],
    after: &["errors"],
};

/// `Model.check_files(paths, jobs=None, <check options>, errors="record",
/// max_line_bytes=256 << 20)`.
pub(crate) const CHECK_FILES: Signature = Signature {
    name: "Model.check_files",
    before: &["jobs"],
    after: &["errors", "max_line_bytes"],
};

/// `Model.check`: one multitrace on one of the model's checking threads, with a reused
/// scratch state; an Error record is raised.
pub(crate) fn check(
    model: &Model,
    py: Python<'_>,
    traces: &Bound<'_, PyAny>,
    options: &Options<'_>,
) -> PyResult<CheckResult> {
    let check = options.settings(cli_defaults())?.check_options();
    let trace: Option<String> = options.get::<Option<String>>("trace")?.flatten();
    let id: Option<String> = options.get::<Option<String>>("id")?.flatten();
    let mut entry = entry_of(py, &model.names, traces, || "<python>".to_string())?;
    let (name, ident) = match &mut entry {
        Entry::Names(i) => (&mut i.trace, &mut i.id),
        Entry::Letters(l) => (&mut l.trace, &mut l.id),
    };
    if let Some(t) = trace {
        *name = t;
    }
    if id.is_some() {
        *ident = id;
    }
    let batch = model.batch.reconfigure(check, *model.batch.options());
    let mut scratch = model
        .scratch
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .pop()
        .unwrap_or_else(|| model.engine().scratch());
    let (outcome, scratch) = model.executor.run(py, move || {
        let o = batch.check_entry(&mut scratch, entry);
        (o, scratch)
    })?;
    model
        .scratch
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(scratch);
    if let Some(e) = &outcome.record.error {
        return Err(record_error(py, e));
    }
    Ok(CheckResult {
        record: outcome.record,
        line: None,
    })
}

/// The batch of `check_many` and `check_files`: the model's engine with the options given,
/// validated (a procedure the model cannot run is a CheckError before any input is read);
/// and whether errors are raised.
fn batch(model: &Model, py: Python<'_>, options: &Options<'_>) -> PyResult<(Batch<'static>, bool)> {
    let check = options.settings(cli_defaults())?.check_options();
    let raise = options.raise()?;
    let batch = model.batch.reconfigure(check, options.batch()?);
    let b = batch.reconfigure(check, *batch.options());
    if let Err(e) = detached(py, move || b.validate())? {
        return Err(error(py, "CheckError", e.to_string(), At::default()));
    }
    Ok((batch, raise))
}

/// `Model.check_many`: the iterable's items, pulled in chunks by the iterator.
pub(crate) fn check_many(
    model: &Model,
    py: Python<'_>,
    iterable: &Bound<'_, PyAny>,
    options: &Options<'_>,
) -> PyResult<ResultIterator> {
    let (batch, raise) = batch(model, py, options)?;
    let input = PyIterator::from_object(iterable)?.unbind();
    let limit = batch.options().jobs * 2 * batch.options().window_per_job;
    let (item_tx, item_rx) = std::sync::mpsc::channel::<Entry>();
    let (out_tx, out_rx) = std::sync::mpsc::sync_channel::<Outcome>(limit + 1);
    let worker = spawn_batch(move || batch.run_entries(item_rx, sink(out_tx)))?;
    Ok(ResultIterator {
        input: Some(input),
        feed: Some(item_tx),
        chunk: (limit / 8).max(1),
        ..ResultIterator::new(model, out_rx, limit, raise, worker)
    })
}

/// `Model.check_files`: the files and directories, read by the batch's workers; a path that
/// does not exist is a ReadError, notes (a link loop) are Python warnings.
pub(crate) fn check_files(
    model: &Model,
    py: Python<'_>,
    paths: Vec<PathBuf>,
    options: &Options<'_>,
) -> PyResult<ResultIterator> {
    let (batch, raise) = batch(model, py, options)?;
    let mut notes = Vec::new();
    let files = collect_traces(&paths, &mut |n| notes.push(n)).map_err(|e| {
        let file = e.path.display().to_string();
        error(py, "ReadError", e.to_string(), At::file(file))
    })?;
    if !notes.is_empty() {
        let warn = py.import("warnings")?.getattr("warn")?;
        for n in notes {
            warn.call1((n,))?;
        }
    }
    let limit = batch.options().jobs * 2 * batch.options().window_per_job;
    let (out_tx, out_rx) = std::sync::mpsc::sync_channel::<Outcome>(limit);
    let worker = spawn_batch(move || batch.run(files, sink(out_tx)))?;
    Ok(ResultIterator::new(model, out_rx, limit, raise, worker))
}

/// The sink of a batch feeding a Python iterator: stops the batch when the iterator is gone.
fn sink(tx: SyncSender<Outcome>) -> impl FnMut(Outcome) -> Result<(), ()> {
    move |o| tx.send(o).map_err(|_| ())
}

/// The thread running a batch; its error is a worker thread that could not be started (the
/// sink's error only means the iterator is gone).
type Worker = std::thread::JoinHandle<Result<(), RunError<std::convert::Infallible>>>;

fn spawn_batch(
    run: impl FnOnce() -> Result<(), RunError<()>> + Send + 'static,
) -> PyResult<Worker> {
    std::thread::Builder::new()
        .name("multitrace-batch".into())
        .spawn(move || match run() {
            Ok(()) | Err(RunError::Sink(())) => Ok(()),
            Err(RunError::Spawn(e)) => Err(RunError::Spawn(e)),
        })
        .map_err(|e| PyValueError::new_err(format!("cannot start a thread: {e}")))
}

/// Results of `check_many` / `check_files`, in input order.
#[pyclass(module = "multitrace", name = "ResultIterator")]
pub(crate) struct ResultIterator {
    /// The model's names, to resolve items on the Python thread.
    names: Arc<Names>,
    /// The Python iterable's iterator, until it is exhausted (check_many).
    input: Option<Py<PyIterator>>,
    /// Items to the batch; dropped when the input is exhausted, which ends the batch's source.
    feed: Option<Sender<Entry>>,
    out: Mutex<Receiver<Outcome>>,
    /// Items sent and not yet returned.
    in_flight: usize,
    /// Most items in flight.
    limit: usize,
    /// Items taken from Python at once.
    chunk: usize,
    /// Items taken so far (they are named `<python>:N` from 1).
    pulled: usize,
    /// An exception from the input, raised once the items before it are returned.
    pending: Option<PyErr>,
    /// `errors="raise"`.
    raise: bool,
    worker: Option<Worker>,
}

impl ResultIterator {
    /// An iterator of the results coming out of `out` (no Python input: `check_files`).
    fn new(
        model: &Model,
        out: Receiver<Outcome>,
        limit: usize,
        raise: bool,
        worker: Worker,
    ) -> Self {
        ResultIterator {
            names: Arc::clone(&model.names),
            input: None,
            feed: None,
            out: Mutex::new(out),
            in_flight: 0,
            limit,
            chunk: 1,
            pulled: 0,
            pending: None,
            raise,
            worker: Some(worker),
        }
    }

    /// Takes up to `n` items from the Python iterator and sends them to the batch.
    fn feed(&mut self, py: Python<'_>, n: usize) {
        let (Some(input), Some(feed)) = (&self.input, &self.feed) else {
            return;
        };
        let mut it = input.bind(py).clone();
        for _ in 0..n {
            match it.next() {
                None => {
                    self.input = None;
                    self.feed = None;
                    return;
                }
                Some(Err(e)) => {
                    self.pending = Some(e);
                    self.input = None;
                    self.feed = None;
                    return;
                }
                Some(Ok(obj)) => {
                    let n = self.pulled + 1;
                    match entry_of(py, &self.names, &obj, || format!("<python>:{n}")) {
                        Ok(item) => {
                            self.pulled = n;
                            if feed.send(item).is_err() {
                                self.input = None;
                                self.feed = None;
                                return;
                            }
                            self.in_flight += 1;
                        }
                        Err(e) => {
                            let msg = format!("item {n} of check_many: {}", e.value(py));
                            self.pending = Some(PyTypeError::new_err(msg));
                            self.input = None;
                            self.feed = None;
                            return;
                        }
                    }
                }
            }
        }
    }

    fn finish(&mut self, py: Python<'_>) -> PyResult<()> {
        if let Some(w) = self.worker.take() {
            let joined = py.allow_threads(|| w.join());
            match joined {
                Ok(Ok(())) => {}
                Ok(Err(e)) => {
                    return Err(error(py, "MultitraceError", e.to_string(), At::default()))
                }
                Err(p) => return Err(internal(py, &panic_message(p.as_ref()))),
            }
        }
        Ok(())
    }
}

#[pymethods]
impl ResultIterator {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// Not a list: results stream in input order as they are checked (memory does not grow
    /// with the input), so they cannot be indexed; the TypeError says to take `list(...)`.
    fn __getitem__(&self, _index: &Bound<'_, PyAny>) -> PyResult<()> {
        Err(PyTypeError::new_err(
            "a ResultIterator cannot be indexed: results stream in input order as they are \
             checked; take list(model.check_files(...)) (or list(model.check_many(...))) to index them",
        ))
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<CheckResult>> {
        loop {
            while self.input.is_some() && self.in_flight + self.chunk <= self.limit {
                self.feed(py, self.chunk);
            }
            if self.in_flight == 0 && self.feed.is_none() && self.pending.is_some() {
                // Every item before the bad one was returned.
                return Err(self.pending.take().expect("pending"));
            }
            let got = {
                let out = &self.out;
                // A result already there is taken without releasing the GIL.
                let ready = out
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .try_recv()
                    .ok();
                match ready {
                    Some(o) => Ok(o),
                    None => py.allow_threads(|| {
                        out.lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .recv_timeout(Duration::from_millis(50))
                    }),
                }
            };
            match got {
                Ok(o) => {
                    self.in_flight = self.in_flight.saturating_sub(1);
                    if self.raise {
                        if let Some(e) = &o.record.error {
                            return Err(record_error(py, e));
                        }
                    }
                    return Ok(Some(CheckResult {
                        record: o.record,
                        line: None,
                    }));
                }
                Err(RecvTimeoutError::Timeout) => py.check_signals()?,
                Err(RecvTimeoutError::Disconnected) => {
                    self.finish(py)?;
                    if let Some(e) = self.pending.take() {
                        return Err(e);
                    }
                    if self.in_flight > 0 {
                        self.in_flight = 0;
                        return Err(internal(py, "the batch stopped early"));
                    }
                    return Ok(None);
                }
            }
        }
    }
}

/// Registers the class of this module in the extension.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<ResultIterator>()
}
