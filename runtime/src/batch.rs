//! Batches: many multitraces checked against one model, in parallel, one [`Record`] each,
//! handed out in input order with bounded memory.
//!
//! Every front end checks through a [`Batch`]: the command line's `check` (files, directories,
//! JSON Lines, standard input) and the Python package (multitraces held in memory).
//!
//! - Inputs are streamed. Files are listed first ([`collect_traces`]: directories are searched
//!   recursively in natural order, symbolic-link loops are searched once), and each is read by
//!   the worker that checks it; JSON Lines (files or standard input) are read one line at a
//!   time, a line never held beyond [`BatchOptions::max_line_bytes`]; in-memory multitraces
//!   ([`Item`]) are pulled from an iterator as workers need them.
//! - [`BatchOptions::jobs`] workers, each with its own [`Scratch`], take the next input from
//!   the shared source, but never run more than [`BatchOptions::window_per_job`] inputs per
//!   worker ahead of the sink: memory does not grow with the number of multitraces.
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
//! let bytes = include_bytes!("../../fixtures/golden/seed004-mqtt.v1.mtm");
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

use crate::check::explore::CHECK_STACK_SIZE;
use crate::check::{CheckError, CheckOptions, Choice, Engine, Procedure, Scratch};
use crate::model::CompiledModel;
use crate::nfa::LetterId;
use crate::record::{ErrorRecord, Names, Record};
use crate::syntax::{
    is_ident_continue, parse_htf, parse_jsonl_line, parse_mtf, read_text, ModelError, NameIndex,
    ParseError,
};
use crate::verdict::{Sym, Verdict};
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;
use std::fmt;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Instant;

/// Default longest JSON Lines line: 256 MiB.
pub const DEFAULT_MAX_LINE_BYTES: u64 = 256 << 20;

/// Default inputs a worker may be ahead of the sink.
pub const DEFAULT_WINDOW_PER_JOB: usize = 64;

/// Most worker threads a batch starts.
pub const MAX_JOBS: usize = 256;

/// The number of cores (1 when it cannot be known): the default of [`BatchOptions::jobs`].
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// How a batch runs (what each multitrace is asked is [`CheckOptions`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BatchOptions {
    /// Worker threads (at least 1, at most [`MAX_JOBS`]).
    pub jobs: usize,
    /// Longest JSON Lines line in bytes (without its line break); a longer line is an `Error`
    /// record and the rest of its input is not read.
    pub max_line_bytes: u64,
    /// Inputs each worker may run ahead of the sink: at most `jobs * window_per_job` records
    /// wait for the sink at any time (at least 1).
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

/// A path given as input that cannot be searched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WalkError {
    /// The path.
    pub path: PathBuf,
    /// What is wrong (`no such file or directory`, `cannot read directory: ...`).
    pub message: String,
}

impl fmt::Display for WalkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message)
    }
}

impl std::error::Error for WalkError {}

/// Whether a path is read as JSON Lines: `-` (standard input) or a `.jsonl` file.
pub fn is_streamed(path: &Path) -> bool {
    path.as_os_str() == "-" || path.extension().is_some_and(|e| e == "jsonl")
}

/// Trace files: files as given (and `-`), directories searched recursively for `*.htf`,
/// `*.mtf` and `*.jsonl` (in natural order, [`natural_cmp`]).
///
/// Symbolic links to directories are followed, but a directory already searched (by its
/// canonical path: a link back to an ancestor, a loop, or a second link to the same place) is
/// skipped with a note, so a symbolic-link loop cannot make the walk endless. `note` receives
/// such notes (and one for a directory holding no trace file).
pub fn collect_traces(
    paths: &[PathBuf],
    note: &mut dyn FnMut(String),
) -> Result<Vec<PathBuf>, WalkError> {
    let mut files = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for p in paths {
        if p.as_os_str() == "-" {
            files.push(p.clone());
        } else if p.is_dir() {
            let mut found = Vec::new();
            walk(p, &mut found, &mut seen, note)?;
            if found.is_empty() {
                note(format!(
                    "{} holds no .htf, .mtf or .jsonl file",
                    p.display()
                ));
            }
            files.extend(found);
        } else if p.exists() {
            files.push(p.clone());
        } else {
            return Err(WalkError {
                path: p.clone(),
                message: "no such file or directory".into(),
            });
        }
    }
    Ok(files)
}

fn walk(
    dir: &Path,
    out: &mut Vec<PathBuf>,
    seen: &mut std::collections::HashSet<PathBuf>,
    note: &mut dyn FnMut(String),
) -> Result<(), WalkError> {
    let error = |e: std::io::Error| WalkError {
        path: dir.to_path_buf(),
        message: format!("cannot read directory: {e}"),
    };
    let canonical = std::fs::canonicalize(dir).map_err(error)?;
    if !seen.insert(canonical.clone()) {
        note(format!(
            "{}: already searched (it is {}); a symbolic link loop or a second link, not followed",
            dir.display(),
            canonical.display()
        ));
        return Ok(());
    }
    let mut entries = std::fs::read_dir(dir)
        .and_then(|entries| {
            entries
                .map(|e| e.map(|e| e.path()))
                .collect::<std::io::Result<Vec<_>>>()
        })
        .map_err(error)?;
    // Sorted naturally (`t9` before `t100`), so that the order is the one a person expects
    // and which of two links to one directory is searched does not vary.
    entries.sort_by(|a, b| natural_cmp(&a.to_string_lossy(), &b.to_string_lossy()));
    for path in entries {
        if path.is_dir() {
            walk(&path, out, seen, note)?;
        } else if path
            .extension()
            .is_some_and(|e| e == "htf" || e == "mtf" || e == "jsonl")
        {
            out.push(path);
        }
    }
    Ok(())
}

/// Natural order of names: runs of digits compare as numbers (`trace9` < `trace10`), the
/// rest as text; ties (`t01`, `t1`) are broken by the plain text order, so the order is total.
pub fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let (mut x, mut y) = (a.as_bytes(), b.as_bytes());
    while !x.is_empty() && !y.is_empty() {
        let (dx, dy) = (x[0].is_ascii_digit(), y[0].is_ascii_digit());
        let run = |s: &[u8], digit: bool| {
            s.iter()
                .position(|c| c.is_ascii_digit() != digit)
                .unwrap_or(s.len())
        };
        let (nx, ny) = (run(x, dx), run(y, dy));
        let ord = if dx && dy {
            let (tx, ty) = (&x[..nx], &y[..ny]);
            let (sx, sy) = (
                &tx[tx.iter().position(|&c| c != b'0').unwrap_or(nx)..],
                &ty[ty.iter().position(|&c| c != b'0').unwrap_or(ny)..],
            );
            sx.len().cmp(&sy.len()).then_with(|| sx.cmp(sy))
        } else {
            x[..nx].cmp(&y[..ny])
        };
        if ord != Ordering::Equal {
            return ord;
        }
        (x, y) = (&x[nx..], &y[ny..]);
    }
    x.len().cmp(&y.len()).then_with(|| a.cmp(b))
}

/// What [`read_line_bounded`] read.
#[derive(Debug, PartialEq, Eq)]
pub enum LineRead {
    /// End of input.
    End,
    /// A line (in the buffer, with its line break if any).
    Line,
    /// A line longer than the limit: the buffer holds its first bytes.
    TooLong,
}

/// Reads one line into `buf` (cleared first) without ever holding more than `limit` bytes
/// of it plus one read buffer.
pub fn read_line_bounded(
    reader: &mut dyn BufRead,
    buf: &mut Vec<u8>,
    limit: u64,
) -> std::io::Result<LineRead> {
    buf.clear();
    loop {
        let chunk = match reader.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok(if buf.is_empty() {
                LineRead::End
            } else {
                LineRead::Line
            });
        }
        let (take, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        buf.extend_from_slice(&chunk[..take]);
        reader.consume(take);
        let content = buf.len() - usize::from(buf.last() == Some(&b'\n'));
        let content = content - usize::from(content > 0 && buf[content - 1] == b'\r');
        if content as u64 > limit {
            return Ok(LineRead::TooLong);
        }
        if done {
            return Ok(LineRead::Line);
        }
    }
}

/// One input.
enum Input {
    /// A trace file (`.htf`, `.mtf`).
    File(PathBuf),
    /// One line of a JSON Lines stream.
    Line {
        file: String,
        line: usize,
        text: String,
    },
    /// A multitrace in memory.
    Memory(Item),
    /// A multitrace in memory, as letters.
    Letters(Letters),
    /// An unreadable input: its name and the error (one Error record, in input order).
    Error(String, ErrorRecord),
}

/// Where a batch takes its inputs from, in order.
trait Source: Send {
    fn next(&mut self) -> Option<Input>;
}

/// An open JSON Lines stream: its name, reader and the number of lines read.
struct Lines {
    file: String,
    reader: Box<dyn BufRead + Send>,
    line: usize,
}

/// Trace files, JSON Lines files and standard input, read lazily.
struct FileSource {
    files: std::vec::IntoIter<PathBuf>,
    lines: Option<Lines>,
    /// Longest JSON line accepted (bytes, without its line break).
    max_line: u64,
    buf: Vec<u8>,
}

impl FileSource {
    fn new(files: Vec<PathBuf>, max_line: u64) -> Self {
        FileSource {
            files: files.into_iter(),
            lines: None,
            max_line,
            buf: Vec::new(),
        }
    }
}

impl Source for FileSource {
    fn next(&mut self) -> Option<Input> {
        loop {
            if let Some(Lines { file, reader, line }) = &mut self.lines {
                let read = read_line_bounded(reader.as_mut(), &mut self.buf, self.max_line);
                *line += 1;
                let (file, line) = (file.clone(), *line);
                match read {
                    Ok(LineRead::End) => self.lines = None,
                    Ok(LineRead::TooLong) => {
                        // The rest of the stream cannot be resynchronized cheaply: stop it.
                        self.lines = None;
                        self.buf = Vec::new();
                        let e = ParseError {
                            file: file.clone(),
                            line: line as u32,
                            column: 1,
                            message: format!(
                                "JSON line longer than {} bytes, the limit; raise it with --max-line-bytes N (the rest of this input is not read)",
                                self.max_line
                            ),
                        };
                        return Some(Input::Error(format!("{file}:{line}"), (&e).into()));
                    }
                    Ok(LineRead::Line) => match String::from_utf8(std::mem::take(&mut self.buf)) {
                        Ok(text) if text.trim().is_empty() => continue,
                        Ok(text) => return Some(Input::Line { file, line, text }),
                        Err(e) => {
                            // Not text: stop reading it, as the other readers refuse the file.
                            self.lines = None;
                            let valid = e.utf8_error().valid_up_to();
                            let bytes = e.as_bytes();
                            let column = std::str::from_utf8(&bytes[..valid])
                                .map_or(valid, |t| t.chars().count())
                                + 1;
                            let e = ParseError {
                                file: file.clone(),
                                line: line as u32,
                                column: column as u32,
                                message: format!(
                                    "invalid UTF-8 (byte 0x{:02X}); JSON Lines must be UTF-8 text (the rest of this input is not read)",
                                    bytes.get(valid).copied().unwrap_or(0)
                                ),
                            };
                            return Some(Input::Error(format!("{file}:{line}"), (&e).into()));
                        }
                    },
                    Err(e) => {
                        self.lines = None;
                        let mut r =
                            ErrorRecord::message(format!("{file}:{line}: cannot read: {e}"));
                        r.file = Some(file.clone());
                        r.line = Some(line as u32);
                        return Some(Input::Error(format!("{file}:{line}"), r));
                    }
                }
                continue;
            }
            let path = self.files.next()?;
            if is_streamed(&path) {
                let (name, reader): (String, Box<dyn BufRead + Send>) = if path.as_os_str() == "-" {
                    (
                        "<stdin>".into(),
                        Box::new(std::io::BufReader::new(std::io::stdin())),
                    )
                } else {
                    match std::fs::File::open(&path) {
                        Ok(f) => (
                            path.display().to_string(),
                            Box::new(std::io::BufReader::new(f)),
                        ),
                        Err(e) => {
                            let name = path.display().to_string();
                            let mut r = ErrorRecord::message(format!("{name}: cannot read: {e}"));
                            r.file = Some(name.clone());
                            return Some(Input::Error(name, r));
                        }
                    }
                };
                self.lines = Some(Lines {
                    file: name,
                    reader,
                    line: 0,
                });
                continue;
            }
            return Some(Input::File(path));
        }
    }
}

/// In-memory multitraces from an iterator.
struct ItemSource<I>(I);

impl<I: Iterator<Item = Item> + Send> Source for ItemSource<I> {
    fn next(&mut self) -> Option<Input> {
        self.0.next().map(Input::Memory)
    }
}

/// In-memory multitraces by names or letters from an iterator.
struct EntrySource<I>(I);

impl<I: Iterator<Item = Entry> + Send> Source for EntrySource<I> {
    fn next(&mut self) -> Option<Input> {
        self.0.next().map(|e| match e {
            Entry::Names(item) => Input::Memory(item),
            Entry::Letters(l) => Input::Letters(l),
        })
    }
}

/// The source and the index of its next input.
struct Shared<'s> {
    source: Box<dyn Source + 's>,
    next_index: usize,
}

/// Order-preserving window: workers wait while they are this far ahead of the sink.
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

/// A checked multitrace: verdict, procedure, names of its components, whether it fell back
/// to term exploration.
type Checked = (Verdict, Procedure, Vec<String>, bool);

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
        }
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
        let source = FileSource::new(files, self.options.max_line_bytes);
        self.run_source(Box::new(source), total, sink)
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
        let total = match items.size_hint() {
            (lo, Some(hi)) if lo == hi => Some(lo),
            _ => None,
        };
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
        let total = match entries.size_hint() {
            (lo, Some(hi)) if lo == hi => Some(lo),
            _ => None,
        };
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

    fn run_source<E>(
        &self,
        source: Box<dyn Source + '_>,
        total: Option<usize>,
        mut sink: impl FnMut(Outcome) -> Result<(), E>,
    ) -> Result<(), RunError<E>> {
        let jobs = self.options.jobs.clamp(1, MAX_JOBS);
        let shared = Mutex::new(Shared {
            source,
            next_index: 0,
        });
        let window = Window {
            consumed: Mutex::new(0),
            moved: Condvar::new(),
            size: jobs.saturating_mul(self.options.window_per_job.max(1)),
        };
        let stop = AtomicBool::new(false);
        let (tx, rx) = std::sync::mpsc::channel::<(usize, Outcome)>();
        std::thread::scope(|scope| {
            let mut started = Ok(());
            for _ in 0..jobs {
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
                                let input = s.source.next()?;
                                let i = s.next_index;
                                s.next_index += 1;
                                Some((i, input))
                            });
                            let Some((i, input)) = next else { break };
                            window.wait_for(i);
                            let outcome = self.check_guarded(&mut scratch, input);
                            if tx.send((i, outcome)).is_err() {
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
            let mut expected = 0;
            let mut result = Ok(());
            for (i, outcome) in rx {
                pending.insert(i, outcome);
                while let Some(outcome) = pending.remove(&expected) {
                    if result.is_ok() && started.is_ok() {
                        result = sink(outcome);
                        if result.is_err() {
                            stop.store(true, Ordering::Relaxed);
                        } else if let Some(p) = &self.progress {
                            let mut p = p.lock().unwrap_or_else(|e| e.into_inner());
                            p(Progress {
                                done: expected + 1,
                                total,
                            });
                        }
                    }
                    expected += 1;
                }
                window.advance(expected);
            }
            window.advance(usize::MAX / 2);
            started.map_err(RunError::Spawn)?;
            result.map_err(RunError::Sink)
        })
    }

    /// [`Self::check_input`], with a panic (a bug) turned into an Error record and the
    /// scratch state renewed.
    fn check_guarded(&self, scratch: &mut Scratch, input: Input) -> Outcome {
        let start = Instant::now();
        let name = match &input {
            Input::File(p) => p.display().to_string(),
            Input::Line { file, line, .. } => format!("{file}:{line}"),
            Input::Memory(item) => item.trace.clone(),
            Input::Letters(l) => l.trace.clone(),
            Input::Error(name, _) => name.clone(),
        };
        let id = match &input {
            Input::Memory(item) => item.id.clone(),
            Input::Letters(l) => l.id.clone(),
            _ => None,
        };
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.check_input(scratch, input)
        }));
        match run {
            Ok(outcome) => outcome,
            Err(panic) => {
                *scratch = self.engine().scratch();
                let what = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                let error = ErrorRecord::message(format!(
                    "{name}: internal error while checking this multitrace ({what}); please report it"
                ));
                Outcome {
                    record: Record::error(name, id, error, start.elapsed()),
                    fallback: false,
                }
            }
        }
    }

    fn check_input(&self, scratch: &mut Scratch, input: Input) -> Outcome {
        let start = Instant::now();
        let engine = self.engine();
        let model = engine.model();
        let opts = &self.check;
        let (trace, id, outcome) = match input {
            Input::File(path) => (
                path.display().to_string(),
                None,
                self.check_path(scratch, &path),
            ),
            Input::Error(name, e) => (name, None, Err(e)),
            Input::Line { file, line, text } => {
                let trace = format!("{file}:{line}");
                match parse_jsonl_line(
                    &file,
                    line,
                    text.trim_end(),
                    &model.alphabet,
                    &self.tables.names,
                ) {
                    Ok((id, traces)) => {
                        let r = engine
                            .check_letters(scratch, &traces, opts)
                            .map(|(v, p)| (v, p, model.alphabet.location_names().to_vec(), false))
                            .map_err(|e| ErrorRecord::message(format!("{trace}: {e}")));
                        // The id stands in for the line only when the line gave one.
                        let id = (id != trace).then_some(id);
                        (trace, id, r)
                    }
                    Err(e) => (trace, None, Err((&e).into())),
                }
            }
            Input::Memory(item) => {
                let r = self.check_memory(scratch, &item);
                (item.trace, item.id, r)
            }
            Input::Letters(l) => {
                let r = self.check_letters(scratch, &l.letters, &l.trace);
                (l.trace, l.id, r)
            }
        };
        let time = start.elapsed();
        match outcome {
            Ok((v, p, locations, fallback)) => {
                let render = render(model);
                let names = Names {
                    render: &render,
                    locations: &locations,
                };
                Outcome {
                    record: Record::checked(trace, id, &v, p, &names, time),
                    fallback,
                }
            }
            Err(e) => Outcome {
                record: Record::error(trace, id, e, time),
                fallback: false,
            },
        }
    }

    fn check_path(&self, scratch: &mut Scratch, path: &Path) -> Result<Checked, ErrorRecord> {
        let text = read_text(path).map_err(|e| text_error(&e))?;
        let file = path.display().to_string();
        if path.extension().is_some_and(|e| e == "mtf") {
            let model = self.engine().model();
            let traces =
                parse_mtf(&file, &text, &model.alphabet).map_err(|e| ErrorRecord::from(&e))?;
            return self.check_letters(scratch, &traces, &file);
        }
        self.check_htf(scratch, &file, &text, true)
    }

    fn check_letters(
        &self,
        scratch: &mut Scratch,
        traces: &[Vec<LetterId>],
        file: &str,
    ) -> Result<Checked, ErrorRecord> {
        let model = self.engine().model();
        let (v, p) = self
            .engine()
            .check_letters(scratch, traces, &self.check)
            .map_err(|e| check_error(file, e))?;
        Ok((v, p, model.alphabet.location_names().to_vec(), false))
    }

    /// Checks `.htf` text; `positions`: whether the text is a file (its errors then carry the
    /// position) or was built from an [`Item`].
    fn check_htf(
        &self,
        scratch: &mut Scratch,
        file: &str,
        text: &str,
        positions: bool,
    ) -> Result<Checked, ErrorRecord> {
        let model = self.engine().model();
        let Some(sig) = model.signature() else {
            let mut r = ErrorRecord::message(format!(
                "{file}: this model is a raw automaton; give its multitraces as .mtf or JSON Lines"
            ));
            r.file = Some(file.to_string());
            return Err(r);
        };
        let (mt, htf_names) = parse_htf(file, text, sig).map_err(|e| {
            if positions {
                ErrorRecord::from(&e)
            } else {
                ErrorRecord::message(format!("{file}: {}", e.message))
            }
        })?;
        let matches = self.engine().matches_locations(&mt);
        let (v, p) = self
            .engine()
            .check_multitrace(scratch, &mt, &self.check)
            .map_err(|e| check_error(file, e))?;
        // Verdicts are indexed by compiled location when the components are the locations,
        // else by component of the file.
        let names = if matches {
            model.alphabet.location_names().to_vec()
        } else {
            htf_names
        };
        let fallback = !matches && self.check.choice == Choice::Auto && model.automata().is_some();
        Ok((v, p, names, fallback))
    }

    fn check_memory(&self, scratch: &mut Scratch, item: &Item) -> Result<Checked, ErrorRecord> {
        let model = self.engine().model();
        let alphabet = &model.alphabet;
        let name = &item.trace;
        let error = |message: String| ErrorRecord::message(format!("{name}: {message}"));
        if item
            .traces
            .iter()
            .all(|(loc, _)| self.tables.lookup.locations.contains_key(loc))
        {
            let mut traces = vec![Vec::new(); alphabet.locations()];
            let mut seen = vec![false; alphabet.locations()];
            for (loc, letters) in &item.traces {
                let k = self.tables.lookup.locations[loc];
                if std::mem::replace(&mut seen[k], true) {
                    return Err(error(format!("location `{loc}` listed twice")));
                }
                let trace = &mut traces[k];
                trace.reserve(letters.len());
                for (position, letter) in letters.iter().enumerate() {
                    let Some(&l) = self.tables.lookup.letters.get(letter) else {
                        return Err(error(format!(
                            "unknown {} `{letter}` at position {} of the trace of `{loc}`",
                            if model.signature().is_some() {
                                "action"
                            } else {
                                "letter"
                            },
                            position + 1
                        )));
                    };
                    if alphabet.location(l).index() != k {
                        return Err(error(format!(
                            "`{letter}` at position {} of the trace of `{loc}` belongs to location {}",
                            position + 1,
                            alphabet.location_name(alphabet.location(l))
                        )));
                    }
                    trace.push(l);
                }
            }
            return self.check_letters(scratch, &traces, name);
        }
        // Other components than the compiled locations: as the `.htf` file with these
        // components would be checked.
        let unknown = || {
            let loc = item
                .traces
                .iter()
                .map(|(l, _)| l)
                .find(|l| !self.tables.lookup.locations.contains_key(*l))
                .cloned()
                .unwrap_or_default();
            error(format!(
                "unknown location `{loc}`; locations are {}",
                alphabet.location_names().join(" ")
            ))
        };
        let Some(sig) = model.signature() else {
            return Err(unknown());
        };
        // Each component must be a group of the model's lifelines.
        if item.traces.iter().any(|(loc, _)| {
            loc.split(',')
                .any(|l| !sig.lifelines().iter().any(|x| x == l.trim()))
        }) {
            return Err(unknown());
        }
        let plain = |s: &str, extra: &str| {
            !s.is_empty()
                && s.bytes()
                    .all(|c| is_ident_continue(c) || extra.as_bytes().contains(&c))
        };
        let mut text = String::from("{");
        for (k, (loc, actions)) in item.traces.iter().enumerate() {
            if !plain(loc, ",") {
                return Err(unknown());
            }
            if let Some(a) = actions.iter().find(|a| !plain(a, "!?")) {
                return Err(error(format!(
                    "unknown action `{a}` in the trace of `{loc}`"
                )));
            }
            if k > 0 {
                text.push(';');
            }
            text.push_str(&format!("[{loc}] {}", actions.join(".")));
        }
        text.push('}');
        self.check_htf(scratch, name, &text, false)
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
        while let Some(input) = source.next() {
            match input {
                Input::Error(_, e) => return Err(e),
                Input::Memory(item) => items.push(item),
                Input::Letters(_) => {}
                Input::Line { file, line, text } => {
                    let trace = format!("{file}:{line}");
                    let (id, traces) = parse_jsonl_line(
                        &file,
                        line,
                        text.trim_end(),
                        alphabet,
                        &self.tables.names,
                    )
                    .map_err(|e| ErrorRecord::from(&e))?;
                    let id = (id != trace).then_some(id);
                    items.push(by_location(trace, id, &traces));
                }
                Input::File(path) => {
                    let text = read_text(&path).map_err(|e| text_error(&e))?;
                    let file = path.display().to_string();
                    if path.extension().is_some_and(|e| e == "mtf") {
                        let traces =
                            parse_mtf(&file, &text, alphabet).map_err(|e| ErrorRecord::from(&e))?;
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

/// The error record of a text file that could not be read.
pub fn text_error(e: &ModelError) -> ErrorRecord {
    match e {
        ModelError::Parse(p) => p.into(),
        ModelError::Io { path, .. } => {
            let mut r = ErrorRecord::message(e.to_string());
            r.file = Some(path.display().to_string());
            r
        }
    }
}

fn check_error(file: &str, e: CheckError) -> ErrorRecord {
    let mut r = ErrorRecord::message(format!("{file}: {e}"));
    r.file = Some(file.to_string());
    r
}

/// Renders what a model expected.
fn render(model: &CompiledModel) -> impl Fn(Sym) -> String + '_ {
    move |s| match s {
        Sym::Action(a) => model
            .signature()
            .map(|sig| sig.action_to_string(a))
            .unwrap_or_default(),
        Sym::Letter(l) => model.alphabet.name(l).to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::artifact::decode;

    fn engine() -> Engine {
        let bytes = include_bytes!("../../fixtures/golden/seed004-mqtt.v1.mtm");
        Engine::new(decode(bytes).unwrap())
    }

    fn fixture(rel: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../fixtures")
            .join(rel)
    }

    /// Item `i`: a WeakPass for even `i`, a Fail for odd ones, and an unknown action every
    /// seventh (an Error).
    fn item(i: usize) -> Item {
        let brok = match i % 7 {
            6 => vec!["brok?nothing".to_string()],
            _ if i % 2 == 1 => vec!["brok?pub".to_string()],
            _ => vec![],
        };
        Item {
            trace: format!("item{i}"),
            id: matches!(i % 3, 0).then(|| format!("id{i}")),
            traces: vec![
                ("clt1".into(), vec!["clt1!begin".into()]),
                ("brok".into(), brok),
            ],
        }
    }

    fn expected_verdict(i: usize) -> &'static str {
        match i % 7 {
            6 => "Error",
            _ if i % 2 == 1 => "Fail",
            _ => "WeakPass",
        }
    }

    fn run_items(engine: &Engine, jobs: usize, n: usize) -> Vec<Record> {
        let opts = BatchOptions {
            jobs,
            window_per_job: 2,
            ..BatchOptions::default()
        };
        let batch = Batch::new(engine, CheckOptions::default(), opts);
        let mut out = Vec::new();
        batch
            .run_items((0..n).map(item), |o| {
                out.push(o.record);
                Ok::<(), ()>(())
            })
            .unwrap();
        out
    }

    #[test]
    fn records_come_in_input_order_whatever_the_jobs() {
        let engine = engine();
        let one = run_items(&engine, 1, 300);
        for jobs in [2, 3, 8] {
            let many = run_items(&engine, jobs, 300);
            let strip = |r: &[Record]| -> Vec<(String, Option<String>, String)> {
                r.iter()
                    .map(|r| (r.trace.clone(), r.id.clone(), r.verdict.clone()))
                    .collect()
            };
            assert_eq!(strip(&one), strip(&many), "jobs {jobs}");
        }
        for (i, r) in one.iter().enumerate() {
            assert_eq!(r.trace, format!("item{i}"));
            assert_eq!(r.verdict, expected_verdict(i), "{i}: {r:?}");
            assert_eq!(r.id, matches!(i % 3, 0).then(|| format!("id{i}")));
        }
        // Error records stand in their place, with what was wrong.
        let e = &one[6];
        assert!(e.error.is_some());
        assert!(
            e.explanation
                .as_deref()
                .is_some_and(|x| x.contains("unknown action `brok?nothing` at position 1")),
            "{e:?}"
        );
    }

    #[test]
    fn workers_stay_within_the_window() {
        let engine = engine();
        let (jobs, per_job) = (3, 2);
        let opts = BatchOptions {
            jobs,
            window_per_job: per_job,
            ..BatchOptions::default()
        };
        let batch = Batch::new(&engine, CheckOptions::default(), opts);
        let pulled = std::sync::atomic::AtomicUsize::new(0);
        let items = (0..200).map(|i| {
            pulled.fetch_add(1, Ordering::SeqCst);
            item(i)
        });
        let mut consumed = 0;
        batch
            .run_items(items, |_| {
                // Slow sink: workers must wait for it rather than pile records up.
                std::thread::sleep(std::time::Duration::from_micros(200));
                consumed += 1;
                let ahead = pulled.load(Ordering::SeqCst) - consumed;
                // Each worker holds at most one input past the window.
                assert!(ahead <= jobs * per_job + jobs, "{ahead} ahead");
                Ok::<(), ()>(())
            })
            .unwrap();
        assert_eq!(consumed, 200);
    }

    #[test]
    fn a_sink_error_stops_the_batch() {
        let engine = engine();
        let batch = Batch::new(
            &engine,
            CheckOptions::default(),
            BatchOptions {
                jobs: 2,
                window_per_job: 1,
                ..BatchOptions::default()
            },
        );
        let pulled = std::sync::atomic::AtomicUsize::new(0);
        let items = (0..100_000).map(|i| {
            pulled.fetch_add(1, Ordering::SeqCst);
            item(i)
        });
        let mut n = 0;
        let r = batch.run_items(items, |_| {
            n += 1;
            if n == 5 {
                Err("closed")
            } else {
                Ok(())
            }
        });
        assert!(matches!(r, Err(RunError::Sink("closed"))));
        assert!(pulled.load(Ordering::SeqCst) < 100, "{pulled:?}");
    }

    #[test]
    fn progress_counts_every_record() {
        let engine = engine();
        let seen = Mutex::new(Vec::new());
        let batch = Batch::new(&engine, CheckOptions::default(), BatchOptions::default())
            .with_progress(|p| seen.lock().unwrap().push(p));
        batch
            .run_items((0..10).map(item).collect::<Vec<_>>(), |_| Ok::<(), ()>(()))
            .unwrap();
        drop(batch);
        let seen = seen.into_inner().unwrap();
        assert_eq!(seen.len(), 10);
        assert_eq!(
            seen[9],
            Progress {
                done: 10,
                total: Some(10)
            }
        );
    }

    #[test]
    fn files_lines_and_unreadable_inputs_in_order() {
        let engine = engine();
        let d = std::env::temp_dir().join(format!("multitrace-batch-files-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(
            d.join("a.jsonl"),
            b"{\"id\": \"x\", \"traces\": {\"clt1\": [\"clt1!begin\"]}}\n\n{\"traces\": {\"zz\": []}}\n\xff\n{}\n",
        )
        .unwrap();
        std::fs::write(d.join("bad.htf"), "{ [clt1] clt1!nope }").unwrap();
        let files = vec![
            fixture("seed004-mqtt/traces/example1.htf"),
            d.join("a.jsonl"),
            d.join("bad.htf"),
            d.join("missing.jsonl"),
            fixture("seed004-mqtt/traces/example2.htf"),
        ];
        let mut out = Vec::new();
        let batch = Batch::new(
            &engine,
            CheckOptions::default(),
            BatchOptions {
                jobs: 3,
                ..BatchOptions::default()
            },
        );
        batch
            .run(files, |o| {
                out.push(o.record);
                Ok::<(), ()>(())
            })
            .unwrap();
        let got: Vec<(&str, &str)> = out.iter().map(|r| (r.name(), r.verdict.as_str())).collect();
        let a = d.join("a.jsonl").display().to_string();
        let bad = d.join("bad.htf").display().to_string();
        let missing = d.join("missing.jsonl").display().to_string();
        let ex1 = fixture("seed004-mqtt/traces/example1.htf")
            .display()
            .to_string();
        let ex2 = fixture("seed004-mqtt/traces/example2.htf")
            .display()
            .to_string();
        assert_eq!(
            got,
            vec![
                (ex1.as_str(), "Pass"),
                ("x", "WeakPass"),
                (format!("{a}:3").as_str(), "Error"),
                // Invalid UTF-8 stops the file: its last line is not read.
                (format!("{a}:4").as_str(), "Error"),
                (bad.as_str(), "Error"),
                (missing.as_str(), "Error"),
                (ex2.as_str(), "Fail"),
            ]
        );
        let e = out[2].error.as_ref().unwrap();
        assert_eq!((e.line, e.column), (Some(3), Some(13)));
        let e = out[4].error.as_ref().unwrap();
        assert_eq!(e.file.as_deref(), Some(bad.as_str()));
        assert_eq!(e.line, Some(1));
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn items_match_the_files_they_are_read_from() {
        let engine = engine();
        let batch = Batch::new(&engine, CheckOptions::default(), BatchOptions::default());
        let mut scratch = engine.scratch();
        let dir = fixture("seed004-mqtt/traces");
        let files = collect_traces(&[dir], &mut |_| {}).unwrap();
        assert!(files.len() >= 5);
        for f in files {
            let from_file = batch.check_file(&mut scratch, &f).record;
            let items = batch.read_items(&f).unwrap();
            assert_eq!(items.len(), 1);
            let from_item = batch.check_item(&mut scratch, items[0].clone()).record;
            let same = Record {
                time_us: from_file.time_us,
                ..from_item
            };
            assert_eq!(from_file, same, "{}", f.display());
        }
    }

    #[test]
    fn letters_are_checked_like_names() {
        let engine = engine();
        let batch = Batch::new(&engine, CheckOptions::default(), BatchOptions::default());
        let a = &engine.model().alphabet;
        let letter = |n: &str| LetterId(a.names().iter().position(|x| x == n).unwrap() as u32);
        let entries: Vec<Entry> = (0..50)
            .map(|i| {
                let item = item(i);
                if i % 2 == 0 || i % 7 == 6 {
                    return Entry::Names(item);
                }
                let mut letters = vec![Vec::new(); a.locations()];
                for (loc, names) in &item.traces {
                    let k = a.location_names().iter().position(|x| x == loc).unwrap();
                    letters[k] = names.iter().map(|n| letter(n)).collect();
                }
                Entry::Letters(Letters {
                    trace: item.trace,
                    id: item.id,
                    letters,
                })
            })
            .collect();
        let mut got = Vec::new();
        batch
            .run_entries(entries, |o| {
                got.push(o.record);
                Ok::<(), ()>(())
            })
            .unwrap();
        let want = run_items(&engine, 1, 50);
        let strip = |r: &Record| Record {
            time_us: 0,
            ..r.clone()
        };
        assert_eq!(
            got.iter().map(strip).collect::<Vec<_>>(),
            want.iter().map(strip).collect::<Vec<_>>()
        );
        // A letter of another location is an Error record, not a panic.
        let mut scratch = engine.scratch();
        let mut letters = vec![Vec::new(); a.locations()];
        letters[0].push(letter("brok?pub"));
        let o = batch.check_entry(
            &mut scratch,
            Entry::Letters(Letters {
                trace: "x".into(),
                id: None,
                letters,
            }),
        );
        assert_eq!(o.record.verdict, "Error");
    }

    #[test]
    fn co_localized_items_are_checked_like_their_htf_file() {
        // seed 003 fig. 2 has co-localized components in some of its fixtures; here, a group
        // of the MQTT model's lifelines that is not a compiled location.
        let engine = engine();
        let batch = Batch::new(&engine, CheckOptions::default(), BatchOptions::default());
        let mut scratch = engine.scratch();
        let item = Item {
            trace: "grouped".into(),
            id: None,
            traces: vec![(
                "clt1,brok".into(),
                vec!["clt1!begin".into(), "brok?begin".into()],
            )],
        };
        let o = batch.check_item(&mut scratch, item);
        assert_eq!(o.record.verdict, "WeakPass", "{:?}", o.record);
        assert!(o.fallback);
        assert_eq!(o.record.procedure.as_deref(), Some("term"));
        let bad = Item {
            trace: "bad".into(),
            id: None,
            traces: vec![("x;y]".into(), vec![])],
        };
        let o = batch.check_item(&mut scratch, bad);
        assert_eq!(o.record.verdict, "Error");
        assert!(o
            .record
            .explanation
            .unwrap()
            .contains("unknown location `x;y]`"));
    }

    #[test]
    fn a_usage_error_is_found_before_any_input() {
        let engine = engine();
        let term = CheckOptions {
            choice: Choice::Force(Procedure::Term),
            ..CheckOptions::default()
        };
        assert!(Batch::new(&engine, term, BatchOptions::default())
            .validate()
            .is_ok());
        // A term-only model cannot be checked by AS.
        let bytes = include_bytes!("../../fixtures/golden/loopP.v1.mtm");
        let term_only = Engine::new(decode(bytes).unwrap());
        let forced = CheckOptions {
            choice: Choice::Force(Procedure::As),
            ..CheckOptions::default()
        };
        let e = Batch::new(&term_only, forced, BatchOptions::default())
            .validate()
            .unwrap_err();
        assert!(e.to_string().contains("term-only"), "{e}");
    }

    /// A reader handing out at most `step` bytes per fill, like a pipe.
    struct Trickle<'a> {
        data: &'a [u8],
        step: usize,
    }

    impl std::io::Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.step.min(buf.len()).min(self.data.len());
            buf[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    fn lines(data: &[u8], step: usize, limit: u64) -> Vec<(LineRead, Vec<u8>)> {
        let mut r = std::io::BufReader::with_capacity(4, Trickle { data, step });
        let mut out = Vec::new();
        let mut buf = Vec::new();
        loop {
            let read = read_line_bounded(&mut r, &mut buf, limit).unwrap();
            let stop = read != LineRead::Line;
            out.push((read, buf.clone()));
            if stop {
                return out;
            }
        }
    }

    #[test]
    fn bounded_lines_split_like_read_line_and_stop_past_the_limit() {
        let data = b"ab\r\n\ncdefg\nhi";
        for step in [1, 3, 64] {
            let got = lines(data, step, 5);
            let want: Vec<(LineRead, Vec<u8>)> = vec![
                (LineRead::Line, b"ab\r\n".to_vec()),
                (LineRead::Line, b"\n".to_vec()),
                (LineRead::Line, b"cdefg\n".to_vec()),
                (LineRead::Line, b"hi".to_vec()),
                (LineRead::End, Vec::new()),
            ];
            assert_eq!(got, want, "step {step}");
            // A limit of 4: `cdefg` is too long, and no more than the limit and one read
            // buffer is held.
            let got = lines(data, step, 4);
            assert_eq!(got.len(), 3, "step {step}");
            assert_eq!(got[2].0, LineRead::TooLong);
            assert!(got[2].1.len() <= 4 + 4 && got[2].1.starts_with(b"cde"));
        }
        // An endless line is refused after the limit, not read forever.
        let mut endless = std::io::BufReader::new(std::io::repeat(b'x'));
        let mut buf = Vec::new();
        let read = read_line_bounded(&mut endless, &mut buf, 100_000).unwrap();
        assert_eq!(read, LineRead::TooLong);
        assert!(buf.len() <= 100_000 + 8192, "{}", buf.len());
    }

    #[test]
    fn natural_order_compares_numbers_as_numbers() {
        let mut v = vec!["t100", "t9", "t10", "a", "t09", "t9b", "t", "b2c10", "b2c9"];
        v.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(
            v,
            ["a", "b2c9", "b2c10", "t", "t09", "t9", "t9b", "t10", "t100"]
        );
        assert_eq!(natural_cmp("x1", "x1"), std::cmp::Ordering::Equal);
    }

    #[test]
    fn directories_are_walked_in_natural_order_and_loops_searched_once() {
        let d = std::env::temp_dir().join(format!("multitrace-batch-walk2-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("a/b")).unwrap();
        std::fs::write(d.join("a/b/t.htf"), "{}").unwrap();
        for n in ["t10.mtf", "t9.mtf", "t100.jsonl"] {
            std::fs::write(d.join("a").join(n), "").unwrap();
        }
        std::fs::write(d.join("a/b/ignored.txt"), "").unwrap();
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("..", d.join("a/b/up")).unwrap();
            std::os::unix::fs::symlink(d.join("a/b"), d.join("a/c")).unwrap();
        }
        let mut notes = Vec::new();
        let files = collect_traces(&[d.join("a")], &mut |n| notes.push(n)).unwrap();
        assert_eq!(
            files,
            vec![
                d.join("a/b/t.htf"),
                d.join("a/t9.mtf"),
                d.join("a/t10.mtf"),
                d.join("a/t100.jsonl")
            ]
        );
        #[cfg(unix)]
        assert_eq!(notes.len(), 2, "{notes:?}");
        let e = collect_traces(&[d.join("nothing")], &mut |_| {}).unwrap_err();
        assert!(e
            .to_string()
            .ends_with("nothing: no such file or directory"));
        let _ = std::fs::remove_dir_all(&d);
    }
}
