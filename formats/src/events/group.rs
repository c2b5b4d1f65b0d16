//! Events grouped into runs (in memory, or streamed when sorted by run), and the runs checked
//! on a `Batch`.

use super::event::{EventError, EventOptions, EventReadError, EventsError, RawEvent};
use super::intern::ByteIds;
use super::key::OrderKey;
use super::lost::{withhold_run, Lost};
use super::read::{EventReader, FastEvent, Next};
use super::runs::Run;
use crate::entry::{OfflineOut, OfflineRun};
use crate::{entry::Item, input::natural_cmp};
use multitrace_model::nfa::{Alphabet, LetterId};
use multitrace_model::record::{ErrorRecord, Record};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::VecDeque;
use std::path::{Path, PathBuf};

use std::time::Duration;

/// What grouping gives for one run (or one event that has no run).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunOut {
    /// A multitrace to check: `trace` is `FILE:LINE` of the run's first event, `id` the run id.
    Item(Item),
    /// An `Error` record: a run with a bad event, an event without a run, an unreadable file.
    Error(Box<Record>),
}

/// Groups events into runs over a model's alphabet (letter → location).
pub struct Grouper<'a> {
    alphabet: &'a Alphabet,
    /// The letters by name (their order of iteration is the suggestions' order).
    letters: FxHashMap<String, LetterId>,
    /// The letters by the bytes of their names (one look-up per event).
    by_bytes: ByteIds,
    /// The location of each letter.
    location: Vec<u32>,
}

impl<'a> Grouper<'a> {
    /// A grouper over `alphabet`.
    pub fn new(alphabet: &'a Alphabet) -> Self {
        let letters = alphabet
            .names()
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), LetterId(i as u32)))
            .collect();
        let mut by_bytes = ByteIds::default();
        let mut location = Vec::new();
        for (i, n) in alphabet.names().iter().enumerate() {
            by_bytes.insert(n.as_bytes(), i as u32);
            location.push(alphabet.location(LetterId(i as u32)).index() as u32);
        }
        Grouper {
            alphabet,
            letters,
            by_bytes,
            location,
        }
    }

    fn new_run(&self, id: String, at: &str) -> Run {
        Run::new(id, at.to_string())
    }

    /// Adds an event to its run (marking the run bad when the event is).
    fn add(&self, run: &mut Run, ev: &RawEvent) {
        let body = match &ev.body {
            Err(e) => Err(e.clone()),
            Ok((action, key)) => Ok((action.as_str(), *key)),
        };
        self.add_parts(run, body, &ev.file, ev.line, || ev.at.clone());
    }

    /// [`Grouper::add`] of an event given by its parts (`at`: its `FILE:LINE`, made only for
    /// a bad event).
    fn add_parts(
        &self,
        run: &mut Run,
        body: Result<(&str, OrderKey), EventError>,
        file: &str,
        line: u32,
        at: impl FnOnce() -> String,
    ) {
        let problem = match body {
            Err(e) => Some(e),
            Ok((action, key)) => self.add_letter(run, action.as_bytes(), key),
        };
        if let Some(p) = problem {
            Self::mark_bad(run, p, file, line, at);
        }
    }

    /// Adds an event given by its action (bytes of valid UTF-8) and key to its run, or says
    /// why it is bad.
    #[inline]
    fn add_letter(&self, run: &mut Run, action: &[u8], key: OrderKey) -> Option<EventError> {
        match self.by_bytes.get(action) {
            None => {
                let action = String::from_utf8_lossy(action);
                let names = self.letters.keys().map(String::as_str);
                let closest =
                    multitrace_model::suggest::closest(&action, names).map(str::to_string);
                Some(EventError::UnknownAction(action.into_owned(), closest))
            }
            Some(l) => {
                if run.comparable(&key) {
                    run.push(LetterId(l), key);
                    None
                } else {
                    Some(EventError::MixedKeys)
                }
            }
        }
    }

    /// Marks `run` bad for `p` (the first bad event is named, the others counted).
    #[cold]
    fn mark_bad(run: &mut Run, p: EventError, file: &str, line: u32, at: impl FnOnce() -> String) {
        match &mut run.bad {
            Some((_, n)) => *n += 1,
            None => {
                run.bad = Some((
                    ErrorRecord {
                        message: format!("{}: bad event of run {:?}: {p}", at(), run.id),
                        file: Some(file.to_string()),
                        line: Some(line),
                        column: None,
                    },
                    1,
                ))
            }
        }
    }

    /// The Error record of a run with a bad event.
    fn bad_record(first_at: String, id: String, bad: (ErrorRecord, usize)) -> Box<Record> {
        let (mut e, n) = bad;
        if n > 1 {
            e.message
                .push_str(&format!(" ({n} bad events in this run)"));
        }
        Box::new(Record::error(first_at, Some(id), e, Duration::ZERO))
    }

    /// A complete run as letters, for the offline path of the monitor (or its Error record).
    fn finish_letters(&self, run: Run) -> OfflineOut {
        if let Some(bad) = run.bad {
            return OfflineOut::Record(Self::bad_record(run.first_at, run.id, bad));
        }
        let (letters, arrivals) = run.traces(&self.location, self.alphabet.locations());
        OfflineOut::Run(OfflineRun {
            trace: run.first_at,
            id: Some(run.id),
            letters,
            arrivals,
        })
    }

    /// The multitrace of a complete run (or its Error record).
    fn finish(&self, run: Run) -> RunOut {
        if let Some(bad) = run.bad {
            return RunOut::Error(Self::bad_record(run.first_at, run.id, bad));
        }
        let (letters, _) = run.traces(&self.location, self.alphabet.locations());
        let traces = letters
            .into_iter()
            .enumerate()
            .map(|(k, trace)| {
                (
                    self.alphabet.location_names()[k].clone(),
                    trace
                        .into_iter()
                        .map(|l| self.alphabet.name(l).to_string())
                        .collect(),
                )
            })
            .collect();
        RunOut::Item(Item {
            trace: run.first_at,
            id: Some(run.id),
            traces,
        })
    }

    /// Groups events held in memory (any order of runs): one output per run in the order of
    /// its first event, and one per event without a run, in place.
    pub fn group(&self, events: impl IntoIterator<Item = RawEvent>) -> Vec<RunOut> {
        let mut slots: Vec<Result<Run, Record>> = Vec::new();
        let mut index: FxHashMap<String, usize> = FxHashMap::default();
        for ev in events {
            match &ev.run {
                None => slots.push(Err(orphan(&ev))),
                Some(id) => {
                    // The id is cloned once per run, not per event.
                    let i = match index.get(id.as_str()) {
                        Some(&i) => i,
                        None => {
                            slots.push(Ok(self.new_run(id.clone(), &ev.at)));
                            index.insert(id.clone(), slots.len() - 1);
                            slots.len() - 1
                        }
                    };
                    if let Ok(run) = &mut slots[i] {
                        self.add(run, &ev);
                    }
                }
            }
        }
        slots
            .into_iter()
            .map(|s| match s {
                Ok(run) => self.finish(run),
                Err(r) => RunOut::Error(Box::new(r)),
            })
            .collect()
    }
}

/// The Error record of an event without a run id.
fn orphan(ev: &RawEvent) -> Record {
    let why = match &ev.body {
        Err(e) => e.to_string(),
        Ok(_) => "no run id".into(),
    };
    Record::error(
        ev.at.clone(),
        None,
        ErrorRecord {
            message: format!("{}: bad event (no run): {why}", ev.at),
            file: Some(ev.file.clone()),
            line: Some(ev.line),
            column: None,
        },
        Duration::ZERO,
    )
}

fn file_error(file: &Path, error: EventReadError) -> Box<Record> {
    Box::new(Record::error(
        file.display().to_string(),
        None,
        ErrorRecord {
            message: error.to_string(),
            file: Some(file.display().to_string()),
            line: None,
            column: None,
        },
        Duration::ZERO,
    ))
}

/// Unsorted input grouped while it is read: the runs in the order of their first event, an
/// event without a run in place. Only the runs are held (their letters and keys), never the
/// events as read.
struct Streamed<'g, 'a> {
    grouper: &'g Grouper<'a>,
    slots: Vec<Result<Run, Record>>,
    /// The slot of each run id (by its bytes).
    index: ByteIds,
    /// Events taken (the cap of `--max-buffered-events`).
    held: usize,
    /// The parts of the input not read whose runs are not known (see [`super::lost`]).
    lost: Vec<Lost>,
}

impl<'g, 'a> Streamed<'g, 'a> {
    fn new(grouper: &'g Grouper<'a>) -> Self {
        Streamed {
            grouper,
            slots: Vec::new(),
            index: ByteIds::default(),
            held: 0,
            lost: Vec::new(),
        }
    }

    fn add(&mut self, ev: &RawEvent) {
        self.held += 1;
        let Some(id) = &ev.run else {
            // An event of some run: which one is not known.
            self.lost.push(Lost::of_orphan(ev));
            self.slots.push(Err(orphan(ev)));
            return;
        };
        // The id is cloned once per run, not per event.
        let i = match self.index.get(id.as_bytes()) {
            Some(i) => i as usize,
            None => {
                self.slots
                    .push(Ok(self.grouper.new_run(id.clone(), &ev.at)));
                self.index
                    .insert(id.as_bytes(), (self.slots.len() - 1) as u32);
                self.slots.len() - 1
            }
        };
        if let Ok(run) = &mut self.slots[i] {
            self.grouper.add(run, ev);
        }
    }

    /// [`Streamed::add`] of an event the fast scan read.
    #[inline]
    fn add_fast(&mut self, ev: &FastEvent<'_>) {
        self.held += 1;
        let i = match self.index.get(ev.run) {
            Some(i) => i as usize,
            None => self.new_slot(ev),
        };
        if let Ok(run) = &mut self.slots[i] {
            if let Some(p) = self.grouper.add_letter(run, ev.action, ev.key) {
                let at = || format!("{}:{}", ev.file, ev.line);
                Grouper::mark_bad(run, p, ev.file, ev.line, at);
            }
        }
    }

    /// The slot of the new run of a fast event.
    fn new_slot(&mut self, ev: &FastEvent<'_>) -> usize {
        let at = format!("{}:{}", ev.file, ev.line);
        let id = String::from_utf8_lossy(ev.run).into_owned();
        self.slots.push(Ok(self.grouper.new_run(id, &at)));
        self.index.insert(ev.run, (self.slots.len() - 1) as u32);
        self.slots.len() - 1
    }

    /// Every run grouped is marked bad when a part of the input was not read whose runs
    /// are not known: it may have held events of any of them.
    fn withhold(&mut self) {
        let Some(first) = self.lost.first() else {
            return;
        };
        for run in self.slots.iter_mut().flatten() {
            withhold_run(run, first, self.lost.len() - 1);
        }
    }

    /// The runs grouped so far, finished by `finish`, in order; the grouping starts afresh.
    fn flush<T>(
        &mut self,
        out: &mut Vec<T>,
        finish: &impl Fn(&Grouper<'a>, Run) -> T,
        record: &impl Fn(Box<Record>) -> T,
    ) {
        self.index.clear();
        self.held = 0;
        for s in self.slots.drain(..) {
            out.push(match s {
                Ok(run) => finish(self.grouper, run),
                Err(r) => record(Box::new(r)),
            });
        }
    }
}

/// Unsorted input read in full, grouped while it is read (within the cap), each run finished
/// by `finish` and each record by `record`.
fn read_unsorted<T>(
    alphabet: &Alphabet,
    files: &[PathBuf],
    opts: &EventOptions,
    finish: impl Fn(&Grouper<'_>, Run) -> T,
    record: impl Fn(Box<Record>) -> T,
) -> Result<Vec<T>, EventsError> {
    let grouper = Grouper::new(alphabet);
    let mut out: Vec<T> = Vec::new();
    let mut runs = Streamed::new(&grouper);
    // The records of files that cannot be read (further), after the runs.
    let mut unread = Vec::new();
    for f in files {
        let mut reader = match EventReader::open(f, opts) {
            Ok(r) => r,
            Err(error) => {
                let file = f.display().to_string();
                let e = EventReadError::Io { file, error };
                runs.lost.push(Lost::of_read_error(&e));
                unread.push(file_error(f, e));
                continue;
            }
        };
        loop {
            match reader.next_fast() {
                Ok(Some(next)) => {
                    if runs.held >= opts.max_buffered_events {
                        let at = match next {
                            Next::Fast(ev) => format!("{}:{}", ev.file, ev.line),
                            Next::Event(ev) => ev.at,
                        };
                        return Err(EventsError::TooManyEvents {
                            cap: opts.max_buffered_events,
                            at,
                        });
                    }
                    match next {
                        Next::Fast(ev) => runs.add_fast(&ev),
                        Next::Event(ev) => runs.add(&ev),
                    }
                }
                Ok(None) => break,
                Err(m) => {
                    // What is not read could hold events of any run (runs gather events from
                    // every file): none gets a verdict.
                    runs.lost.push(Lost::of_read_error(&m));
                    unread.push(file_error(f, m));
                    break;
                }
            }
        }
    }
    runs.withhold();
    runs.flush(&mut out, &finish, &record);
    out.extend(unread.into_iter().map(record));
    Ok(out)
}

/// The runs of event files, in order (unsorted input: read in full first, within the cap).
pub fn read_runs<'a>(
    alphabet: &'a Alphabet,
    files: &[PathBuf],
    opts: &EventOptions,
) -> Result<Box<dyn Iterator<Item = RunOut> + Send + 'a>, EventsError> {
    if opts.sorted {
        return Ok(Box::new(SortedRuns::new(alphabet, files, opts)));
    }
    let out = read_unsorted(alphabet, files, opts, |g, run| g.finish(run), RunOut::Error)?;
    Ok(Box::new(out.into_iter()))
}

/// The runs of event files as letters, in order, for the offline path of the monitor
/// (`multitrace_batch::offline`); as [`read_runs`] groups them.
pub fn read_offline_runs<'a>(
    alphabet: &'a Alphabet,
    files: &[PathBuf],
    opts: &EventOptions,
) -> Result<Box<dyn Iterator<Item = OfflineOut> + Send + 'a>, EventsError> {
    if opts.sorted {
        let mut sorted = SortedRuns::new(alphabet, files, opts);
        return Ok(Box::new(std::iter::from_fn(move || {
            Some(match sorted.next_slot()? {
                Ok(run) => sorted.grouper.finish_letters(run),
                Err(r) => OfflineOut::Record(r),
            })
        })));
    }
    let out = read_unsorted(
        alphabet,
        files,
        opts,
        |g, run| g.finish_letters(run),
        OfflineOut::Record,
    )?;
    Ok(Box::new(out.into_iter()))
}

/// One file of sorted input, with its next event read ahead.
struct Source {
    reader: EventReader,
    head: Option<RawEvent>,
}

/// Streams sorted input: a k-way merge of the files by run id (each file sorted by run, in
/// natural order when there are several: `r2` before `r10`). The run with the smallest run id
/// at the files' heads takes its events from every file where it is at the head (files in the
/// order given), and is finished then; a run id that comes again later (a file not sorted)
/// gets an Error record, never a verdict on part of its events. One file: its runs in file
/// order, contiguous.
struct SortedRuns<'a> {
    grouper: Grouper<'a>,
    opts: EventOptions,
    sources: Vec<Source>,
    seen: FxHashSet<String>,
    ready: VecDeque<Box<Record>>,
    several: bool,
    /// The first part of a file not read whose run is not known (a line cut at the length
    /// limit or not JSON, the rest after a read error, a file not read): it comes after the
    /// events of the run being merged in its file, which is sorted, so it may belong to that
    /// run or any later one: each of them gets an Error record (the runs before keep theirs).
    cut: Option<Lost>,
}

impl<'a> SortedRuns<'a> {
    fn new(alphabet: &'a Alphabet, files: &[PathBuf], opts: &EventOptions) -> Self {
        let mut s = SortedRuns {
            grouper: Grouper::new(alphabet),
            opts: opts.clone(),
            sources: Vec::new(),
            seen: FxHashSet::default(),
            ready: VecDeque::new(),
            several: files.len() > 1,
            cut: None,
        };
        for f in files {
            match EventReader::open(f, opts) {
                Ok(reader) => {
                    let mut src = Source { reader, head: None };
                    s.advance(&mut src);
                    if src.head.is_some() {
                        s.sources.push(src);
                    }
                }
                Err(error) => {
                    let file = f.display().to_string();
                    let e = EventReadError::Io { file, error };
                    s.cut.get_or_insert(Lost::of_read_error(&e));
                    s.ready.push_back(file_error(f, e));
                }
            }
        }
        s
    }

    /// Reads `src`'s next event with a run id into its head (events without one, and read
    /// errors, are records in place).
    fn advance(&mut self, src: &mut Source) {
        src.head = None;
        loop {
            // An event read in place is made owned here (the head outlives the next read).
            let next = src.reader.next_fast().map(|n| {
                n.map(|n| match n {
                    Next::Event(ev) => ev,
                    Next::Fast(ev) => RawEvent {
                        at: format!("{}:{}", ev.file, ev.line),
                        file: ev.file.to_string(),
                        line: ev.line,
                        run: Some(String::from_utf8_lossy(ev.run).into_owned()),
                        body: Ok((String::from_utf8_lossy(ev.action).into_owned(), ev.key)),
                    },
                })
            });
            match next {
                Ok(None) => return,
                Err(m) => {
                    let file = PathBuf::from(&src.reader.file);
                    self.cut.get_or_insert(Lost::of_read_error(&m));
                    self.ready.push_back(file_error(&file, m));
                    return;
                }
                Ok(Some(ev)) if ev.run.is_none() => {
                    self.cut.get_or_insert(Lost::of_orphan(&ev));
                    self.ready.push_back(Box::new(orphan(&ev)));
                }
                Ok(Some(ev)) => {
                    src.head = Some(ev);
                    return;
                }
            }
        }
    }

    fn add(&self, run: &mut Run, ev: &RawEvent) {
        let cap = self.opts.max_buffered_events;
        if run.len() >= cap && run.bad.is_none() {
            run.bad = Some((
                ErrorRecord {
                    message: format!(
                        "{}: run {:?} has more than {cap} events (--max-buffered-events)",
                        ev.at, run.id
                    ),
                    file: Some(ev.file.clone()),
                    line: Some(ev.line),
                    column: None,
                },
                1,
            ));
        }
        if run.bad.is_none() || run.len() < cap {
            self.grouper.add(run, ev);
        }
    }

    /// The next run: the smallest run id at the heads, with its events from every file.
    fn next_run(&mut self) -> Option<Run> {
        let head_id = |s: &Source| s.head.as_ref().and_then(|e| e.run.clone());
        let mut best: Option<(usize, String)> = None;
        for (i, s) in self.sources.iter().enumerate() {
            if let Some(id) = head_id(s) {
                if best
                    .as_ref()
                    .is_none_or(|(_, b)| natural_cmp(&id, b) == std::cmp::Ordering::Less)
                {
                    best = Some((i, id));
                }
            }
        }
        let (first, id) = best?;
        let at = self.sources[first]
            .head
            .as_ref()
            .map(|e| (e.at.clone(), e.file.clone(), e.line))?;
        let mut run = self.grouper.new_run(id.clone(), &at.0);
        if !self.seen.insert(id.clone()) {
            let how = if self.several {
                "each file must be sorted by run id (in natural order, as `sort -V` sorts: r2 \
                 before r10) for several files to be merged"
            } else {
                "a run's events must be contiguous"
            };
            run.bad = Some((
                ErrorRecord {
                    message: format!(
                        "{}: run {id:?} appears again after other runs, yet the input was given as sorted by run (--events-sorted; {how}): sort it, or leave out --events-sorted",
                        at.0
                    ),
                    file: Some(at.1),
                    line: Some(at.2),
                    column: None,
                },
                1,
            ));
        }
        let mut sources = std::mem::take(&mut self.sources);
        for src in &mut sources {
            while src.head.as_ref().and_then(|e| e.run.as_deref()) == Some(id.as_str()) {
                let ev = src.head.take().expect("a head");
                self.add(&mut run, &ev);
                self.advance(src);
            }
        }
        sources.retain(|s| s.head.is_some());
        self.sources = sources;
        if let Some(lost) = &self.cut {
            withhold_run(&mut run, lost, 0);
        }
        Some(run)
    }
}

impl SortedRuns<'_> {
    /// The next run to finish, or a record.
    fn next_slot(&mut self) -> Option<Result<Run, Box<Record>>> {
        if let Some(r) = self.ready.pop_front() {
            return Some(Err(r));
        }
        // Records of events read ahead (no run id, a read error) come after this run's: they
        // wait in `ready`.
        self.next_run().map(Ok)
    }
}

impl Iterator for SortedRuns<'_> {
    type Item = RunOut;

    fn next(&mut self) -> Option<RunOut> {
        Some(match self.next_slot()? {
            Ok(run) => self.grouper.finish(run),
            Err(r) => RunOut::Error(r),
        })
    }
}
