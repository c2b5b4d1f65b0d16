//! Where a batch takes its inputs from, in order: trace files, JSON Lines streams (cut into
//! chunks, [`multitrace_formats::input`]) and multitraces held in memory.

use multitrace_formats::entry::{Entry, Item, Letters};
use multitrace_formats::entry::{OfflineOut, OfflineRun};
use multitrace_formats::input::{is_streamed, open_input, Cut, Cutter, CHUNK_BYTES, CHUNK_LINES};
use multitrace_model::record::{ErrorRecord, Record};
use multitrace_model::syntax::ParseError;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// One input of one record.
pub(super) enum Input {
    /// A trace file (`.htf`, `.mtf`).
    File(PathBuf),
    /// A multitrace in memory.
    Memory(Item),
    /// A multitrace in memory, as letters.
    Letters(Letters),
    /// An unreadable input: its name and the error (one Error record, in input order).
    Error(String, ErrorRecord),
    /// A whole run of an event log (`check --events`), checked on the monitor's offline path.
    Run(OfflineRun),
    /// A record decided before any check (a run with a bad event), written as it is.
    Record(Box<Record>),
}

/// A JSON Lines stream being read: its name, and whether it was stopped (a line that is not
/// UTF-8: nothing after it is checked).
pub(super) struct Stream {
    pub file: String,
    pub stopped: AtomicBool,
}

/// Whole lines of a stream, checked by one worker.
pub(super) struct Chunk {
    pub stream: Arc<Stream>,
    pub first_line: usize,
    pub bytes: Vec<u8>,
}

/// One unit of work: its records come out together, in input order.
pub(super) enum Task {
    /// One input, one record.
    One(Input),
    /// Trace files next to each other in the input, one record each (grouped so that a
    /// batch of many small files does not pay a hand-over between threads per file).
    Files(Vec<PathBuf>),
    /// Inputs next to each other, one record each (runs of an event log, grouped so that
    /// many short runs do not pay a hand-over between threads each).
    Many(Vec<Input>),
    /// Lines of a stream, one record per line that is not blank.
    Lines(Chunk),
    /// The error that ends a stream (a line too long, a read that failed): one Error record,
    /// unless the stream was stopped before.
    End(Arc<Stream>, String, ErrorRecord),
}

/// Where a batch takes its tasks from, in order.
pub(super) trait Source: Send {
    /// The next task.
    fn next(&mut self) -> Option<Task>;
    /// Whether another task may follow (`false` only when it is known that none will).
    fn has_more(&self) -> bool {
        true
    }
}

/// An open JSON Lines stream.
struct Open {
    stream: Arc<Stream>,
    cutter: Cutter,
}

/// Trace files, JSON Lines files and standard input, read lazily.
pub(super) struct FileSource {
    files: std::vec::IntoIter<PathBuf>,
    open: Option<Open>,
    /// Longest JSON line accepted (bytes, without its line break).
    max_line: u64,
    /// Most lines and bytes of a chunk.
    chunks: (usize, usize),
    /// The workers of the batch: trace files are grouped by up to `files / (4 * jobs)`.
    jobs: usize,
}

/// Most trace files in one task.
const MAX_FILES_PER_TASK: usize = 32;

impl FileSource {
    pub fn new(files: Vec<PathBuf>, max_line: u64) -> Self {
        FileSource {
            files: files.into_iter(),
            open: None,
            max_line,
            chunks: (CHUNK_LINES, CHUNK_BYTES),
            jobs: 1,
        }
    }

    /// The same source for `jobs` workers (groups of trace files leave each worker about
    /// four tasks or more).
    pub fn with_jobs(mut self, jobs: usize) -> Self {
        self.jobs = jobs.max(1);
        self
    }

    /// The same source with other chunk sizes (tests cut small inputs into many chunks).
    #[cfg(test)]
    pub fn with_chunks(mut self, lines: usize, bytes: usize) -> Self {
        self.chunks = (lines, bytes);
        self
    }

    /// A source of one JSON Lines stream read from `reader`.
    #[cfg(test)]
    pub fn reader(name: &str, reader: Box<dyn std::io::Read + Send>, max_line: u64) -> Self {
        let mut source = FileSource::new(Vec::new(), max_line);
        source.open = Some(Open {
            stream: Arc::new(Stream {
                file: name.to_string(),
                stopped: AtomicBool::new(false),
            }),
            cutter: Cutter::new(reader, true, max_line),
        });
        source
    }

    /// Opens a JSON Lines stream, or says why it cannot be read.
    fn open(&self, path: &std::path::Path) -> Result<Open, Task> {
        let (file, cutter) = if path.as_os_str() == "-" {
            let cutter = Cutter::new(Box::new(std::io::stdin()), true, self.max_line);
            ("<stdin>".to_string(), cutter)
        } else {
            let name = multitrace_model::record::path_text(path);
            let regular = std::fs::metadata(path).is_ok_and(|m| m.is_file());
            match open_input(path) {
                Ok(f) => (name, Cutter::new(f, !regular, self.max_line)),
                Err(e) => {
                    let mut r = ErrorRecord::message(format!("{name}: cannot read: {e}"));
                    r.file = Some(name.clone());
                    return Err(Task::One(Input::Error(name, r)));
                }
            }
        };
        let stream = Arc::new(Stream {
            file,
            stopped: AtomicBool::new(false),
        });
        let cutter = cutter.with_chunks(self.chunks.0, self.chunks.1);
        Ok(Open { stream, cutter })
    }
}

impl Source for FileSource {
    fn next(&mut self) -> Option<Task> {
        loop {
            if let Some(Open { stream, cutter }) = &mut self.open {
                if stream.stopped.load(Ordering::Relaxed) {
                    // A worker found a line that is not text: nothing more is read.
                    self.open = None;
                    continue;
                }
                let stream = Arc::clone(stream);
                let file = &stream.file;
                let (line, message) = match cutter.next_cut() {
                    Cut::Lines { first_line, bytes } => {
                        return Some(Task::Lines(Chunk {
                            stream,
                            first_line,
                            bytes,
                        }))
                    }
                    Cut::End => {
                        self.open = None;
                        continue;
                    }
                    // The rest of the stream cannot be resynchronized cheaply: stop it.
                    Cut::TooLong { line } => (
                        line,
                        format!(
                            "JSON line longer than {} bytes, the limit; raise it with --max-line-bytes N (the rest of this input is not read)",
                            self.max_line
                        ),
                    ),
                    Cut::Failed { line, error } => {
                        self.open = None;
                        let mut r =
                            ErrorRecord::message(format!("{file}:{line}: cannot read: {error}"));
                        r.file = Some(file.clone());
                        r.line = Some(line as u32);
                        let name = format!("{file}:{line}");
                        return Some(Task::End(stream, name, r));
                    }
                };
                self.open = None;
                let e = ParseError {
                    file: file.clone(),
                    line: line as u32,
                    column: 1,
                    message,
                };
                let name = format!("{file}:{line}");
                return Some(Task::End(stream, name, (&e).into()));
            }
            let path = self.files.next()?;
            if !is_streamed(&path) {
                let group = (self.files.len() / (4 * self.jobs)).clamp(1, MAX_FILES_PER_TASK);
                if group == 1 {
                    return Some(Task::One(Input::File(path)));
                }
                let mut paths = vec![path];
                while paths.len() < group {
                    match self.files.as_slice().first() {
                        Some(p) if !is_streamed(p) => paths.extend(self.files.next()),
                        _ => break,
                    }
                }
                return Some(Task::Files(paths));
            }
            match self.open(&path) {
                Ok(open) => self.open = Some(open),
                Err(task) => return Some(task),
            }
        }
    }

    fn has_more(&self) -> bool {
        self.files.len() > 0 || self.open.as_ref().is_some_and(|o| !o.cutter.finished())
    }
}

/// In-memory multitraces from an iterator.
pub(super) struct ItemSource<I>(pub I);

impl<I: Iterator<Item = Item> + Send> Source for ItemSource<I> {
    fn next(&mut self) -> Option<Task> {
        self.0.next().map(|i| Task::One(Input::Memory(i)))
    }

    fn has_more(&self) -> bool {
        self.0.size_hint().1 != Some(0)
    }
}

/// In-memory multitraces by names or letters from an iterator.
pub(super) struct EntrySource<I>(pub I);

impl<I: Iterator<Item = Entry> + Send> Source for EntrySource<I> {
    fn next(&mut self) -> Option<Task> {
        self.0.next().map(|e| {
            Task::One(match e {
                Entry::Names(item) => Input::Memory(item),
                Entry::Letters(l) => Input::Letters(l),
            })
        })
    }

    fn has_more(&self) -> bool {
        self.0.size_hint().1 != Some(0)
    }
}

/// The runs of event logs, from an iterator ([`crate::offline`]).
pub(super) struct OfflineSource<I>(pub I);

/// Most runs of a task of [`OfflineSource`], and most events: a hand-over between threads
/// costs a few microseconds here (a wake-up), as much as checking a short run; a group of
/// runs keeps tasks small enough for the workers to share a batch evenly.
const RUNS_PER_TASK: usize = 64;
const EVENTS_PER_TASK: usize = 8192;

impl<I: Iterator<Item = OfflineOut> + Send> Source for OfflineSource<I> {
    fn next(&mut self) -> Option<Task> {
        let mut inputs = Vec::new();
        let mut events = 0;
        while inputs.len() < RUNS_PER_TASK && events < EVENTS_PER_TASK {
            let Some(o) = self.0.next() else { break };
            inputs.push(match o {
                OfflineOut::Run(run) => {
                    events += run.arrivals.len();
                    Input::Run(run)
                }
                OfflineOut::Record(r) => Input::Record(r),
            });
        }
        match inputs.len() {
            0 => None,
            1 => inputs.pop().map(Task::One),
            _ => Some(Task::Many(inputs)),
        }
    }

    fn has_more(&self) -> bool {
        self.0.size_hint().1 != Some(0)
    }
}
