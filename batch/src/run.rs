//! The batch itself: an engine, the options and the name tables of its model, and the ways to
//! run it (trace files, items, entries, one input on the calling thread).

use super::options::BatchOptions;
use super::outcome::{Outcome, Progress, RunError};
use super::source::{EntrySource, FileSource, Input, ItemSource, OfflineSource};
use multitrace_check::{CheckError, CheckOptions, Engine, Scratch};
use multitrace_formats::entry::OfflineOut;
use multitrace_formats::entry::{Entry, Item};
use multitrace_formats::input::is_streamed;
use multitrace_formats::NameIndex;
use multitrace_model::model::CompiledModel;
use multitrace_model::nfa::LetterId;
use rustc_hash::FxHashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Looks up location and letter names of a model.
pub(super) struct Lookup {
    pub(super) locations: FxHashMap<String, usize>,
    pub(super) letters: FxHashMap<String, LetterId>,
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
pub(super) type ProgressFn<'a> = Box<dyn FnMut(Progress) + Send + 'a>;

/// The engine of a batch: borrowed, or shared with other owners (a batch that outlives the
/// caller's frame, e.g. on a thread of its own).
pub(super) enum EngineRef<'a> {
    Borrowed(&'a Engine),
    Shared(Arc<Engine>),
}

/// Name tables of a model, built once and shared by the batches over it.
pub(super) struct Tables {
    pub(super) names: NameIndex,
    pub(super) lookup: Lookup,
}

impl Tables {
    fn new(engine: &Engine) -> Self {
        Tables {
            names: NameIndex::new(&engine.model().alphabet),
            lookup: Lookup::new(engine.model()),
        }
    }
}

/// Checks many multitraces against one model: see the [module documentation](crate).
pub struct Batch<'a> {
    pub(super) engine: EngineRef<'a>,
    pub(super) check: CheckOptions,
    pub(super) options: BatchOptions,
    pub(super) tables: Arc<Tables>,
    pub(super) progress: Option<Mutex<ProgressFn<'a>>>,
    /// The threads that call `run` have a stack of
    /// [`CHECK_STACK_SIZE`](multitrace_check::explore::CHECK_STACK_SIZE) or more.
    pub(super) caller_stack: bool,
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
    /// [`CHECK_STACK_SIZE`](multitrace_check::explore::CHECK_STACK_SIZE) (as the
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
    /// by `collect_traces`, and hands the records to `sink` in input
    /// order.
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
    pub(super) fn run_source_for_test<E>(
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

    /// Checks the runs of event logs ([`crate::offline`]: each whole run, a Fail
    /// diagnosed knowing the cut the monitor decides it at) and hands the records to `sink`
    /// in their order (records given as such in place); returns the number of records.
    pub fn run_offline<E, I>(
        &self,
        runs: I,
        mut sink: impl FnMut(Outcome) -> Result<(), E>,
    ) -> Result<usize, RunError<E>>
    where
        I: IntoIterator<Item = OfflineOut>,
        I::IntoIter: Send,
    {
        let runs = runs.into_iter();
        let total = exact_len(runs.size_hint());
        let mut count = 0usize;
        self.run_source(Box::new(OfflineSource(runs)), total, |o| {
            count += 1;
            sink(o)
        })?;
        Ok(count)
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
}

/// The number of items an iterator will give, when its size hint says it exactly (for the
/// progress callback's `total`).
fn exact_len(hint: (usize, Option<usize>)) -> Option<usize> {
    match hint {
        (lo, Some(hi)) if lo == hi => Some(lo),
        _ => None,
    }
}
