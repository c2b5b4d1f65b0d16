//! Batches: many multitraces checked against one model, in parallel, one [`Record`] each,
//! handed out in input order with bounded memory.
//!
//! Every front end checks through a [`Batch`]: the command line's `check` (files, directories,
//! JSON Lines, standard input) and the Python package (multitraces held in memory).
//!
//! - Inputs are streamed. Files are listed first ([`collect_traces`]: directories are searched
//!   recursively in natural order, symbolic-link loops are searched once), and each is read by
//!   the worker that checks it; JSON Lines (files or standard input) are cut into chunks of
//!   whole lines (at most [`CHUNK_LINES`] lines and [`CHUNK_BYTES`] bytes, or one longer
//!   line, never beyond [`BatchOptions::max_line_bytes`]) by the worker that takes the next
//!   task, and each chunk is validated (UTF-8), parsed and checked by one worker, so parsing
//!   runs in parallel; in-memory multitraces ([`Item`]) are pulled from an iterator as
//!   workers need them.
//! - [`BatchOptions::jobs`] workers, each with its own [`Scratch`], take the next task (an
//!   input, or a chunk of lines) from the shared source, but never run more than
//!   [`BatchOptions::window_per_job`] tasks per worker ahead of the sink: memory does not grow
//!   with the number of multitraces. When the first task is the only one (one file, one small
//!   JSON Lines file), one worker is started, whatever `jobs` says.
//! - The sink receives one [`Outcome`] per input, in input order. An input that cannot be read
//!   or checked gives an `Error` record in its place (never a stopped batch); a sink error
//!   stops the batch (workers finish the check in hand and take no more input).
//!
//! # Example
//!
//! ```
//! use multitrace_runtime::artifact::decode;
//! use multitrace_runtime::batch::{Batch, BatchOptions, Item};
//! use multitrace_runtime::check::{CheckOptions, Engine};
//!
//! let bytes = include_bytes!("../../../fixtures/golden/seed004-mqtt.v1.mtm");
//! let engine = Engine::new(decode(bytes)?);
//! let options = BatchOptions { jobs: 2, ..BatchOptions::default() };
//! let batch = Batch::new(&engine, CheckOptions::default(), options);
//! let items = (0..100).map(|i| Item {
//!     trace: format!("item{i}"),
//!     id: None,
//!     traces: vec![
//!         ("clt1".into(), vec!["clt1!begin".into()]),
//!         ("brok".into(), if i % 2 == 0 { vec![] } else { vec!["brok?pub".into()] }),
//!     ],
//! });
//! let mut verdicts = Vec::new();
//! batch.run_items(items, |o| {
//!     verdicts.push((o.record.trace, o.record.verdict));
//!     Ok::<(), std::convert::Infallible>(())
//! })?;
//! assert_eq!(verdicts.len(), 100);
//! assert_eq!(verdicts[0], ("item0".to_string(), "WeakPass".to_string()));
//! assert_eq!(verdicts[1], ("item1".to_string(), "Fail".to_string()));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod check;
mod lines;
mod order;
mod source;
#[cfg(test)]
mod tests;
mod walk;

pub use check::text_error;
pub use lines::{
    lines_of, read_line_bounded, split_chunk, BadText, Cut, Cutter, LineRead, CHUNK_BYTES,
    CHUNK_LINES,
};
pub use walk::{collect_traces, is_streamed, natural_cmp, WalkError};

use crate::check::{CheckError, CheckOptions, Engine, Scratch};
use crate::formats::{parse_htf, parse_jsonl_line, parse_mtf_indexed, NameIndex};
use crate::model::CompiledModel;
use crate::nfa::LetterId;
use crate::record::{ErrorRecord, Record};
use crate::syntax::read_text;

use rustc_hash::FxHashMap;
use source::{EntrySource, FileSource, Input, ItemSource, Source, Task};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// Default longest JSON Lines line: 256 MiB.
pub const DEFAULT_MAX_LINE_BYTES: u64 = 256 << 20;

/// Default inputs a worker may be ahead of the sink.
pub const DEFAULT_WINDOW_PER_JOB: usize = 64;

/// Most worker threads a batch starts.
pub const MAX_JOBS: usize = 256;

/// The number of cores (1 when it cannot be known): the default of [`BatchOptions::jobs`].
/// Asked of the system once (it reads the cgroup files, a tenth of a millisecond).
pub fn default_jobs() -> usize {
    static JOBS: OnceLock<usize> = OnceLock::new();
    *JOBS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// How a batch runs (what each multitrace is asked is [`CheckOptions`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BatchOptions {
    /// Worker threads (at least 1, at most [`MAX_JOBS`]).
    pub jobs: usize,
    /// Longest JSON Lines line in bytes (without its line break); a longer line is an `Error`
    /// record and the rest of its input is not read.
    pub max_line_bytes: u64,
    /// Tasks each worker may run ahead of the sink (at least 1): at most `jobs *
    /// window_per_job` tasks wait for the sink at any time, a task being one input, up to 32
    /// trace files next to each other (when there are many), or a chunk of JSON lines (at
    /// most [`CHUNK_LINES`] records and [`CHUNK_BYTES`] bytes of input, or one longer line).
    pub window_per_job: usize,
}

impl Default for BatchOptions {
    fn default() -> Self {
        BatchOptions {
            jobs: default_jobs(),
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            window_per_job: DEFAULT_WINDOW_PER_JOB,
        }
    }
}

/// A multitrace held in memory: its local traces by location name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Item {
    /// Its name in the record (`trace`): where it came from.
    pub trace: String,
    /// Its id in the record, if any.
    pub id: Option<String>,
    /// Local traces by location name, each a list of letter names (for an interaction, actions
    /// such as `l1!m1`); a location not listed has an empty local trace.
    ///
    /// The names are the model's locations; for an interaction model they may also be other
    /// groups of lifelines (`l1,l2` for two co-localized lifelines, as `.htf` components name
    /// them), in which case the multitrace is checked by term exploration like such an `.htf`
    /// file.
    pub traces: Vec<(String, Vec<String>)>,
}

/// A multitrace held in memory with its letters already resolved: one local trace per
/// location of the model, in location order (what a front end builds when it looks names up
/// itself, e.g. the Python package with a dict of the model's names).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Letters {
    /// Its name in the record (`trace`).
    pub trace: String,
    /// Its id in the record, if any.
    pub id: Option<String>,
    /// One local trace per location; each letter must be one of that location's letters.
    pub letters: Vec<Vec<LetterId>>,
}

/// An in-memory multitrace: by names ([`Item`]) or by letters ([`Letters`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    /// Local traces by location and letter names.
    Names(Item),
    /// Local traces as letters, in location order.
    Letters(Letters),
}

impl From<Item> for Entry {
    fn from(item: Item) -> Self {
        Entry::Names(item)
    }
}

impl From<Letters> for Entry {
    fn from(letters: Letters) -> Self {
        Entry::Letters(letters)
    }
}

/// The record of one input, and whether it was checked by term exploration because its
/// components are not the model's compiled locations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The record.
    pub record: Record,
    /// Whether `auto` fell back to term exploration (the command line notes it).
    pub fallback: bool,
}

/// How far a batch is, given to the progress callback after each record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Records handed to the sink so far.
    pub done: usize,
    /// Number of inputs when known in advance (files only, or an iterator of known length).
    pub total: Option<usize>,
}

/// Why a batch stopped (an input that cannot be read is a record, not this).
#[derive(Debug)]
pub enum RunError<E> {
    /// A worker thread could not be started.
    Spawn(std::io::Error),
    /// The sink returned an error.
    Sink(E),
}

impl<E: fmt::Display> fmt::Display for RunError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Spawn(e) => write!(f, "cannot start a worker thread: {e}"),
            RunError::Sink(e) => e.fmt(f),
        }
    }
}

impl<E: fmt::Debug + fmt::Display> std::error::Error for RunError<E> {}

/// Looks up location and letter names of a model.
struct Lookup {
    locations: FxHashMap<String, usize>,
    letters: FxHashMap<String, LetterId>,
}

impl Lookup {
    fn new(model: &CompiledModel) -> Self {
        let a = &model.alphabet;
        Lookup {
            locations: a
                .location_names()
                .iter()
                .enumerate()
                .map(|(i, n)| (n.clone(), i))
                .collect(),
            letters: a
                .names()
                .iter()
                .enumerate()
                .map(|(i, n)| (n.clone(), LetterId(i as u32)))
                .collect(),
        }
    }
}

/// A progress callback.
type ProgressFn<'a> = Box<dyn FnMut(Progress) + Send + 'a>;

/// The engine of a batch: borrowed, or shared with other owners (a batch that outlives the
/// caller's frame, e.g. on a thread of its own).
enum EngineRef<'a> {
    Borrowed(&'a Engine),
    Shared(Arc<Engine>),
}

/// Name tables of a model, built once and shared by the batches over it.
struct Tables {
    names: NameIndex,
    lookup: Lookup,
}

impl Tables {
    fn new(engine: &Engine) -> Self {
        Tables {
            names: NameIndex::new(&engine.model().alphabet),
            lookup: Lookup::new(engine.model()),
        }
    }
}

/// Checks many multitraces against one model: see the [module documentation](self).
pub struct Batch<'a> {
    engine: EngineRef<'a>,
    check: CheckOptions,
    options: BatchOptions,
    tables: Arc<Tables>,
    progress: Option<Mutex<ProgressFn<'a>>>,
    /// The threads that call `run` have a stack of
    /// [`CHECK_STACK_SIZE`](crate::check::explore::CHECK_STACK_SIZE) or more.
    caller_stack: bool,
}

impl Batch<'static> {
    /// A batch over a shared engine: it borrows nothing, so it can move to another thread.
    pub fn shared(engine: Arc<Engine>, check: CheckOptions, options: BatchOptions) -> Self {
        let tables = Arc::new(Tables::new(&engine));
        Batch {
            engine: EngineRef::Shared(engine),
            check,
            options,
            tables,
            progress: None,
            caller_stack: false,
        }
    }
}

impl<'a> Batch<'a> {
    /// A batch over `engine`'s model, asking each multitrace what `check` says.
    pub fn new(engine: &'a Engine, check: CheckOptions, options: BatchOptions) -> Self {
        Batch {
            engine: EngineRef::Borrowed(engine),
            check,
            options,
            tables: Arc::new(Tables::new(engine)),
            progress: None,
            caller_stack: false,
        }
    }

    /// Another batch over the same engine with other options, sharing this one's name tables
    /// (cheap: the tables are built once per model). The progress callback is not kept.
    pub fn reconfigure(&self, check: CheckOptions, options: BatchOptions) -> Batch<'a> {
        Batch {
            engine: match &self.engine {
                EngineRef::Borrowed(e) => EngineRef::Borrowed(e),
                EngineRef::Shared(e) => EngineRef::Shared(Arc::clone(e)),
            },
            check,
            options,
            tables: Arc::clone(&self.tables),
            progress: None,
            caller_stack: self.caller_stack,
        }
    }

    /// Says that the threads calling [`Batch::run`], [`Batch::run_items`] and
    /// [`Batch::run_entries`] have a stack of at least
    /// [`CHECK_STACK_SIZE`](crate::check::explore::CHECK_STACK_SIZE) (as the
    /// `multitrace` command's main thread): a batch of one task (one file, one small JSON
    /// Lines file, one item) then runs on the calling thread and starts no worker, which is
    /// most of the start-up of a one-multitrace check.
    pub fn with_caller_stack(mut self) -> Self {
        self.caller_stack = true;
        self
    }

    /// Calls `f` after each record handed to the sink (on the thread that runs the batch).
    pub fn with_progress(mut self, f: impl FnMut(Progress) + Send + 'a) -> Self {
        self.progress = Some(Mutex::new(Box::new(f)));
        self
    }

    /// The engine.
    pub fn engine(&self) -> &Engine {
        match &self.engine {
            EngineRef::Borrowed(e) => e,
            EngineRef::Shared(e) => e,
        }
    }

    /// The check options.
    pub fn check_options(&self) -> &CheckOptions {
        &self.check
    }

    /// The batch options.
    pub fn options(&self) -> &BatchOptions {
        &self.options
    }

    /// Whether the check options can run on this model at all (a procedure forced on a model
    /// that does not support it is refused here, before any input is read).
    pub fn validate(&self) -> Result<(), CheckError> {
        let locations = self.engine().model().alphabet.locations();
        self.engine()
            .check_letters(
                &mut self.engine().scratch(),
                &vec![Vec::new(); locations],
                &self.check,
            )
            .map(|_| ())
    }

    /// Checks trace files, JSON Lines files and `-` (JSON Lines on standard input), as listed
    /// by [`collect_traces`], and hands the records to `sink` in input order.
    pub fn run<E>(
        &self,
        files: Vec<PathBuf>,
        sink: impl FnMut(Outcome) -> Result<(), E>,
    ) -> Result<(), RunError<E>> {
        let total = (!files.iter().any(|p| is_streamed(p))).then_some(files.len());
        let source =
            FileSource::new(files, self.options.max_line_bytes).with_jobs(self.options.jobs);
        self.run_source(Box::new(source), total, sink)
    }

    /// [`Batch::run`] with other chunk sizes, or from a reader (`files` empty).
    #[cfg(test)]
    fn run_source_for_test<E>(
        &self,
        source: FileSource,
        sink: impl FnMut(Outcome) -> Result<(), E>,
    ) -> Result<(), RunError<E>> {
        self.run_source(Box::new(source), None, sink)
    }

    /// Checks multitraces held in memory and hands the records to `sink` in input order.
    /// Items are pulled from `items` as the workers need them (at most the window ahead of
    /// the sink).
    pub fn run_items<E, I>(
        &self,
        items: I,
        sink: impl FnMut(Outcome) -> Result<(), E>,
    ) -> Result<(), RunError<E>>
    where
        I: IntoIterator<Item = Item>,
        I::IntoIter: Send,
    {
        let items = items.into_iter();
        let total = exact_len(items.size_hint());
        self.run_source(Box::new(ItemSource(items)), total, sink)
    }

    /// [`Batch::run_items`] for multitraces given by names or by letters.
    pub fn run_entries<E, I>(
        &self,
        entries: I,
        sink: impl FnMut(Outcome) -> Result<(), E>,
    ) -> Result<(), RunError<E>>
    where
        I: IntoIterator<Item = Entry>,
        I::IntoIter: Send,
    {
        let entries = entries.into_iter();
        let total = exact_len(entries.size_hint());
        self.run_source(Box::new(EntrySource(entries)), total, sink)
    }

    /// Checks one in-memory multitrace given by names or letters on this thread.
    pub fn check_entry(&self, scratch: &mut Scratch, entry: Entry) -> Outcome {
        match entry {
            Entry::Names(item) => self.check_input(scratch, Input::Memory(item)),
            Entry::Letters(l) => self.check_input(scratch, Input::Letters(l)),
        }
    }

    /// Checks one in-memory multitrace on this thread with `scratch` (from
    /// [`Engine::scratch`]).
    pub fn check_item(&self, scratch: &mut Scratch, item: Item) -> Outcome {
        self.check_input(scratch, Input::Memory(item))
    }

    /// Checks one trace file (`.htf` or `.mtf`) on this thread with `scratch`.
    pub fn check_file(&self, scratch: &mut Scratch, path: &Path) -> Outcome {
        self.check_input(scratch, Input::File(path.to_path_buf()))
    }

    /// Reads a multitrace file (`.htf`, `.mtf`, `.jsonl`) into items, as this batch would
    /// check them: `trace` and `id` as in the records of [`Batch::run`], local traces by
    /// location name (for an `.htf` file whose components are not the compiled locations,
    /// by component).
    ///
    /// The first input that cannot be read is the error (with its position).
    pub fn read_items(&self, path: &Path) -> Result<Vec<Item>, ErrorRecord> {
        let model = self.engine().model();
        let alphabet = &model.alphabet;
        let by_location = |trace: String, id: Option<String>, traces: &[Vec<LetterId>]| Item {
            trace,
            id,
            traces: alphabet
                .location_names()
                .iter()
                .zip(traces)
                .map(|(n, t)| {
                    (
                        n.clone(),
                        t.iter().map(|&l| alphabet.name(l).to_string()).collect(),
                    )
                })
                .collect(),
        };
        let mut source = FileSource::new(vec![path.to_path_buf()], self.options.max_line_bytes);
        let mut items = Vec::new();
        while let Some(task) = source.next() {
            let input = match task {
                Task::One(input) => input,
                Task::Files(paths) => {
                    // One file was given: never a group, but read them all the same.
                    for p in paths {
                        items.extend(self.read_items(&p)?);
                    }
                    continue;
                }
                Task::End(_, _, e) => return Err(e),
                Task::Lines(chunk) => {
                    let file = chunk.stream.file.as_str();
                    let (text, bad) = split_chunk(&chunk.bytes, chunk.first_line);
                    for (line, text) in lines_of(text, chunk.first_line) {
                        let trace = format!("{file}:{line}");
                        let (id, traces) =
                            parse_jsonl_line(file, line, text, alphabet, &self.tables.names)
                                .map_err(|e| ErrorRecord::from(&e))?;
                        let id = (id != trace).then_some(id);
                        items.push(by_location(trace, id, &traces));
                    }
                    if let Some(bad) = bad {
                        return Err((&check::utf8_error(file, bad)).into());
                    }
                    continue;
                }
            };
            match input {
                Input::Error(_, e) => return Err(e),
                Input::Memory(item) => items.push(item),
                Input::Letters(_) => {}
                Input::File(path) => {
                    let text = read_text(&path).map_err(|e| text_error(&e))?;
                    let file = path.display().to_string();
                    if path.extension().is_some_and(|e| e == "mtf") {
                        let traces = parse_mtf_indexed(&file, &text, alphabet, &self.tables.names)
                            .map_err(|e| ErrorRecord::from(&e))?;
                        items.push(by_location(file, None, &traces));
                        continue;
                    }
                    let Some(sig) = model.signature() else {
                        let mut r = ErrorRecord::message(format!(
                            "{file}: this model is a raw automaton; give its multitraces as .mtf or JSON Lines"
                        ));
                        r.file = Some(file);
                        return Err(r);
                    };
                    let (mt, names) =
                        parse_htf(&file, &text, sig).map_err(|e| ErrorRecord::from(&e))?;
                    if let Ok(traces) = model.letter_traces(&mt) {
                        items.push(by_location(file, None, &traces));
                    } else {
                        let traces = names
                            .into_iter()
                            .zip(&mt.components)
                            .map(|(n, c)| {
                                (
                                    n,
                                    c.trace.iter().map(|&a| sig.action_to_string(a)).collect(),
                                )
                            })
                            .collect();
                        items.push(Item {
                            trace: file,
                            id: None,
                            traces,
                        });
                    }
                }
            }
        }
        Ok(items)
    }
}

/// The number of items an iterator will give, when its size hint says it exactly (for the
/// progress callback's `total`).
fn exact_len(hint: (usize, Option<usize>)) -> Option<usize> {
    match hint {
        (lo, Some(hi)) if lo == hi => Some(lo),
        _ => None,
    }
}
