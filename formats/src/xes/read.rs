//! Reading an XES file: the scanner while the file has the usual shape, the full parser
//! (quick-xml) from the start again when it has not, and the runs of the traces.

use super::options::{XesOptions, XesOrder};
use super::scan;
use crate::entry::Item;
use crate::events::{EventError, Field, Grouper, OrderKey, OrderKeyError, RawEvent, RunOut};
use crate::NameIndex;
use multitrace_model::nfa::{Alphabet, LetterId};
use multitrace_model::record::{ErrorRecord, Record};
use quick_xml::events::{BytesStart, Event};
use quick_xml::XmlVersion;
use std::borrow::Cow;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Counts the lines of what the XML reader consumed, so that events are located.
struct Lines<R> {
    inner: R,
    newlines: u32,
}

impl<R: BufRead> Read for Lines<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.newlines += buf[..n].iter().filter(|&&b| b == b'\n').count() as u32;
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Lines<R> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        self.inner.fill_buf()
    }
    fn consume(&mut self, amt: usize) {
        if let Ok(buf) = self.inner.fill_buf() {
            let end = amt.min(buf.len());
            self.newlines += buf[..end].iter().filter(|&&b| b == b'\n').count() as u32;
        }
        self.inner.consume(amt);
    }
}

/// Opens `path`, decompressing gzip (by extension or magic bytes).
fn open(path: &Path) -> std::io::Result<Box<dyn BufRead + Send>> {
    let mut file = BufReader::new(std::fs::File::open(path)?);
    let gz = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("gz"))
        || file.fill_buf()?.starts_with(&[0x1f, 0x8b]);
    Ok(if gz {
        Box::new(BufReader::new(flate2::bufread::MultiGzDecoder::new(file)))
    } else {
        Box::new(file)
    })
}

/// One event's attributes of interest, as read; the order key is parsed when its attribute
/// is read, so that its text is not kept.
#[derive(Default)]
struct Pending {
    line: u32,
    action: Option<String>,
    lifeline: Option<String>,
    order: Option<Result<OrderKey, OrderKeyError>>,
}

/// The runs of one XES file: an iterator of [`RunOut`], one per trace, then one `Error`
/// record if the file cannot be read to its end.
pub struct XesRuns<'a> {
    ctx: Ctx<'a>,
    path: PathBuf,
    /// The scanner, while the file has the usual shape.
    fast: Option<scan::Scanner>,
    /// The full parser, once the scanner has given up (or from the start without it).
    reader: Option<quick_xml::Reader<Lines<Box<dyn BufRead + Send>>>>,
    buf: Vec<u8>,
    seen_log: bool,
    /// Traces the scanner gave before it gave up, which the full parser skips.
    skip: u32,
    /// Whether the scanner gave up.
    pub(super) bailed: bool,
    /// The trace being read by the full parser: its name once read, and its line.
    open_trace: Option<(Option<String>, u32)>,
}

/// What the runs of a file are built with.
struct Ctx<'a> {
    alphabet: &'a Alphabet,
    grouper: Grouper<'a>,
    index: NameIndex,
    file: String,
    opts: XesOptions,
    /// Traces given so far.
    traces: u32,
    /// Scratch for an action with its lifeline in front.
    name: String,
}

/// The attribute `key` and `value` of an XES attribute element, borrowed from the element
/// when they hold no entity (the usual case: no allocation per attribute). Every attribute is
/// checked, as the XML requires, though only these two are kept.
fn key_value<'e>(e: &'e BytesStart<'_>) -> Result<(Cow<'e, str>, Cow<'e, str>), String> {
    let mut key = None;
    let mut value = None;
    for a in e.attributes() {
        let a = a.map_err(|e| format!("bad attribute: {e}"))?;
        let v = a
            .normalized_value(XmlVersion::Implicit1_0)
            .map_err(|e| format!("bad attribute value: {e}"))?;
        match a.key.as_ref() {
            "key" => key = Some(v),
            "value" => value = Some(v),
            _ => {}
        }
    }
    match (key, value) {
        (Some(k), Some(v)) => Ok((k, v)),
        (Some(k), None) if matches!(e.name().as_ref(), "list" | "container") => {
            Ok((k, Cow::Borrowed("")))
        }
        _ => Err(format!(
            "<{}> needs `key` and `value` attributes",
            e.name().as_ref()
        )),
    }
}

impl<'a> XesRuns<'a> {
    /// Reads `path` over the model's `alphabet`.
    pub fn open(alphabet: &'a Alphabet, path: &Path, opts: &XesOptions) -> Result<Self, RunOut> {
        Self::open_with(alphabet, path, opts, Some(scan::BLOCK))
    }

    /// Reads `path` with the scanner first (reading blocks of `block` bytes), or with the full
    /// parser alone (`None`).
    pub(super) fn open_with(
        alphabet: &'a Alphabet,
        path: &Path,
        opts: &XesOptions,
        block: Option<usize>,
    ) -> Result<Self, RunOut> {
        let file = path.display().to_string();
        let inner =
            open(path).map_err(|e| error_record(&file, None, format!("cannot read: {e}")))?;
        let (fast, reader) = match block {
            Some(b) => (Some(scan::Scanner::with_block(inner, b)), None),
            None => (None, Some(full_reader(inner))),
        };
        Ok(XesRuns {
            ctx: Ctx {
                alphabet,
                grouper: Grouper::new(alphabet),
                index: NameIndex::new(alphabet),
                file,
                opts: opts.clone(),
                traces: 0,
                name: String::new(),
            },
            path: path.to_path_buf(),
            fast,
            reader,
            buf: Vec::new(),
            seen_log: false,
            skip: 0,
            bailed: false,
            open_trace: None,
        })
    }

    /// The next run from the scanner: `None` once it has given up (the full parser then reads
    /// the file from the start, skipping the traces given) or the file ends.
    fn next_fast(&mut self) -> Option<Option<RunOut>> {
        let scanner = self.fast.as_mut()?;
        match scanner.next(&self.ctx.opts) {
            scan::Next::Trace(t) => Some(Some(self.ctx.scanned_run(t))),
            scan::Next::Done => {
                self.fast = None;
                Some(None)
            }
            scan::Next::Bail => {
                self.fast = None;
                self.bailed = true;
                self.skip = self.ctx.traces;
                self.ctx.traces = 0;
                match open(&self.path) {
                    Ok(inner) => self.reader = Some(full_reader(inner)),
                    Err(e) => {
                        let m = format!("cannot read: {e}");
                        return Some(Some(error_record(&self.ctx.file, None, m)));
                    }
                }
                None
            }
        }
    }

    /// Reads the next trace (or the end); `Err` is the file's fatal error: where it is (a byte
    /// offset in quick-xml's count) and what it is.
    ///
    /// The elements are looked at in the reader's buffer (no copy of an element, its name or
    /// its attributes); only the values kept (action, lifeline, trace name) are allocated.
    fn next_trace(&mut self) -> Result<Option<RunOut>, (u64, String)> {
        // Depth of elements inside the current trace: 1 = trace attribute or event, 2 = event
        // attribute; deeper ones (nested attributes) are skipped.
        let mut in_trace = false;
        let mut depth = 0u32;
        let mut trace_name: Option<String> = None;
        let mut events: Vec<Pending> = Vec::new();
        let mut current: Option<Pending> = None;
        let mut trace_line = 0;
        let reader = self.reader.as_mut().expect("an open reader");
        let opts = &self.ctx.opts;
        loop {
            self.buf.clear();
            let ev = match reader.read_event_into(&mut self.buf) {
                Ok(ev) => ev,
                Err(e) => {
                    return Err((reader.error_position(), format!("not well-formed XML: {e}")))
                }
            };
            let line = reader.get_ref().newlines + 1;
            let (s, empty) = match &ev {
                Event::Start(s) => (s, false),
                Event::Empty(s) => (s, true),
                Event::End(e) if in_trace => {
                    if depth == 0 && e.name().as_ref() == "trace" {
                        self.open_trace = None;
                        self.ctx.traces += 1;
                        let id = trace_name.unwrap_or_else(|| format!("trace {}", self.ctx.traces));
                        return Ok(Some(self.ctx.run(id, events)));
                    }
                    if depth == 1 {
                        if let Some(p) = current.take() {
                            events.push(p);
                        }
                    }
                    depth = depth.saturating_sub(1);
                    continue;
                }
                Event::Eof => {
                    let at = reader.buffer_position();
                    if in_trace {
                        return Err((
                            at,
                            format!("the file ends inside the <trace> opened at line {trace_line}"),
                        ));
                    }
                    if !self.seen_log {
                        return Err((at, "not an XES log: no <log> element".into()));
                    }
                    return Ok(None);
                }
                _ => continue,
            };
            // The element's `<`: its text (between `<` and `>` or `/>`) ends where the reader is.
            let at = reader.buffer_position() - s.len() as u64 - if empty { 3 } else { 2 };
            let name = s.name();
            let name = name.as_ref();
            if !self.seen_log {
                if name != "log" {
                    return Err((
                        at,
                        format!("not an XES log: the root element is <{name}>, not <log>"),
                    ));
                }
                self.seen_log = true;
                continue;
            }
            if !in_trace {
                if name == "trace" && !empty {
                    in_trace = true;
                    depth = 0;
                    trace_line = line;
                    self.open_trace = Some((None, line));
                }
                // Log-level elements (extensions, globals, classifiers, attributes) and
                // their children are not needed.
                continue;
            }
            depth += 1;
            match (depth, name) {
                (1, "event") => {
                    if events.len() >= opts.max_trace_events {
                        let m = format!("a trace with more than {} events", opts.max_trace_events);
                        return Err((at, m));
                    }
                    current = Some(Pending {
                        line,
                        ..Pending::default()
                    });
                }
                (1, _) => {
                    let (k, v) = key_value(s).map_err(|m| (at, m))?;
                    if k == "concept:name" {
                        trace_name = Some(v.into_owned());
                        if let Some(open) = &mut self.open_trace {
                            open.0.clone_from(&trace_name);
                        }
                    }
                }
                (2, _) => {
                    if let Some(p) = &mut current {
                        let (k, v) = key_value(s).map_err(|m| (at, m))?;
                        if k == opts.action_key {
                            p.action = Some(v.to_string());
                        }
                        if opts.lifeline_key.as_deref() == Some(&*k) {
                            p.lifeline = Some(v.to_string());
                        }
                        if let XesOrder::Key(o) = &opts.order {
                            if *o == k {
                                p.order = Some(scan::order_key(&v));
                            }
                        }
                    }
                }
                _ => {}
            }
            if empty {
                if depth == 1 {
                    if let Some(p) = current.take() {
                        events.push(p);
                    }
                }
                depth -= 1;
            }
        }
    }
}

impl Ctx<'_> {
    /// The run of a trace the scanner read.
    fn scanned_run(&mut self, t: scan::ScannedTrace<'_>) -> RunOut {
        self.traces += 1;
        let id = match t.name {
            Some(n) => n.into_owned(),
            None => format!("trace {}", self.traces),
        };
        if let Some(item) = self.item(&id, &t.events) {
            return RunOut::Item(item);
        }
        let events = t
            .events
            .into_iter()
            .map(|e| Pending {
                line: e.line,
                action: e.action.map(Cow::into_owned),
                lifeline: e.lifeline.map(Cow::into_owned),
                order: e.order,
            })
            .collect();
        self.run(id, events)
    }

    /// The multitrace of a trace whose events are all good (each action a letter of the
    /// model, every order key present and comparable with the others), built directly: what
    /// [`Ctx::run`] gives for it through the events' grouping, without an event record per
    /// event. `None` for any other trace, which goes through [`Ctx::run`].
    fn item(&mut self, id: &str, events: &[scan::ScannedEvent<'_>]) -> Option<Item> {
        let first = events.first()?;
        let mut per: Vec<Vec<(LetterId, OrderKey)>> = vec![Vec::new(); self.alphabet.locations()];
        let mut time = None;
        for (i, e) in events.iter().enumerate() {
            let action = e.action.as_deref()?;
            let letter = match &e.lifeline {
                Some(l) if action.starts_with(['!', '?']) => {
                    self.name.clear();
                    self.name.push_str(l);
                    self.name.push_str(action);
                    self.index.letter(&self.name)?
                }
                _ => self.index.letter(action)?,
            };
            let key = match &self.opts.order {
                XesOrder::Document => OrderKey::Int(i as i128),
                XesOrder::Key(_) => match &e.order {
                    Some(Ok(k)) => *k,
                    _ => return None,
                },
            };
            let is_time = matches!(key, OrderKey::Time(_));
            if *time.get_or_insert(is_time) != is_time {
                return None;
            }
            per[self.alphabet.location(letter).index()].push((letter, key));
        }
        let traces = per
            .into_iter()
            .zip(self.alphabet.location_names())
            .map(|(mut evs, location)| {
                // As the grouping sorts: stable, by key.
                if !evs.is_sorted_by(|a, b| a.1.cmp_key(&b.1).is_le()) {
                    evs.sort_by(|a, b| a.1.cmp_key(&b.1));
                }
                let names = evs.iter().map(|(l, _)| self.alphabet.name(*l).to_string());
                (location.clone(), names.collect())
            })
            .collect();
        Some(Item {
            trace: format!("{}:{}", self.file, first.line),
            id: Some(id.to_string()),
            traces,
        })
    }

    /// The run of a trace's events.
    fn run(&self, id: String, events: Vec<Pending>) -> RunOut {
        let raw = events.into_iter().enumerate().map(|(i, p)| {
            let body = (|| {
                let action = p.action.ok_or_else(|| EventError::Missing {
                    field: self.opts.action_key.clone(),
                    role: Field::Action,
                })?;
                let action = match (&p.lifeline, action.starts_with(['!', '?'])) {
                    (Some(l), true) => format!("{l}{action}"),
                    _ => action,
                };
                let key = match &self.opts.order {
                    XesOrder::Document => OrderKey::Int(i as i128),
                    XesOrder::Key(k) => {
                        let parsed = p.order.ok_or_else(|| EventError::Missing {
                            field: k.clone(),
                            role: Field::Order,
                        })?;
                        parsed.map_err(|error| EventError::OrderKey {
                            field: Some(k.clone()),
                            error,
                        })?
                    }
                };
                Ok((action, key))
            })();
            RawEvent {
                at: format!("{}:{}", self.file, p.line),
                file: self.file.clone(),
                line: p.line,
                run: Some(id.clone()),
                body,
            }
        });
        let mut out = self.grouper.group(raw);
        match out.pop() {
            Some(r) if out.is_empty() => r,
            // A trace without events: an empty multitrace.
            _ => RunOut::Item(Item {
                trace: format!("{}:trace {}", self.file, self.traces),
                id: Some(id),
                traces: Vec::new(),
            }),
        }
    }
}

impl Iterator for XesRuns<'_> {
    type Item = RunOut;

    fn next(&mut self) -> Option<RunOut> {
        if let Some(r) = self.next_fast() {
            return r;
        }
        loop {
            self.reader.as_ref()?;
            let r = match self.next_trace() {
                // A trace the scanner gave already.
                Ok(Some(_)) if self.skip > 0 => {
                    self.skip -= 1;
                    continue;
                }
                Ok(Some(r)) => Some(r),
                Ok(None) => {
                    self.reader = None;
                    None
                }
                Err((at, m)) => {
                    self.reader = None;
                    let file = &self.ctx.file;
                    let place = locate(&self.path, at);
                    let message = match place {
                        Some((line, column)) => format!("{file}:{line}:{column}: {m}"),
                        None => format!("{file}: {m}"),
                    };
                    // The trace open at the error is not read whole: the record is an Error of
                    // its run, which says the rest of the file is not read (traces closed
                    // before the error are complete and keep their records; one the scanner
                    // gave already has its record).
                    match self.open_trace.take().filter(|_| self.skip == 0) {
                        Some((name, line)) => {
                            let id =
                                name.unwrap_or_else(|| format!("trace {}", self.ctx.traces + 1));
                            Some(open_trace_error(file, place, &message, id, line))
                        }
                        None => Some(error_record(file, place, message)),
                    }
                }
            };
            return r;
        }
    }
}

/// The full parser over a file's bytes.
fn full_reader(
    inner: Box<dyn BufRead + Send>,
) -> quick_xml::Reader<Lines<Box<dyn BufRead + Send>>> {
    quick_xml::Reader::from_reader(Lines { inner, newlines: 0 })
}

/// The line and column (in characters, from 1) of the byte at `at` of a file as quick-xml
/// counts (after a byte order mark), read again: only for the error that ends a file.
fn locate(path: &Path, at: u64) -> Option<(u32, u32)> {
    let mut bytes = Vec::new();
    let bom = 3;
    open(path)
        .ok()?
        .take(at + bom)
        .read_to_end(&mut bytes)
        .ok()?;
    let start = if bytes.starts_with(&[0xef, 0xbb, 0xbf]) {
        bom as usize
    } else {
        0
    };
    let upto = &bytes[start..bytes.len().min(start + at as usize)];
    let line_start = memchr::memrchr(b'\n', upto).map_or(0, |i| i + 1);
    let line = memchr::memchr_iter(b'\n', upto).count() as u32 + 1;
    // Characters, not bytes: UTF-8 continuation bytes are not counted.
    let column = upto[line_start..]
        .iter()
        .filter(|&&b| b & 0xc0 != 0x80)
        .count() as u32
        + 1;
    Some((line, column))
}

/// The `Error` record of run `id`, the trace opened at line `line` and not read whole
/// because of the file's error (`message`, at `place`).
fn open_trace_error(
    file: &str,
    place: Option<(u32, u32)>,
    message: &str,
    id: String,
    line: u32,
) -> RunOut {
    RunOut::Error(Box::new(Record::error(
        format!("{file}:{line}"),
        Some(id),
        ErrorRecord {
            message: format!(
                "{message}; the <trace> opened at line {line} is not read whole, so it gets no \
                 verdict (the traces closed before keep theirs; the rest of the file is not read)"
            ),
            file: Some(file.to_string()),
            line: place.map(|a| a.0),
            column: place.map(|a| a.1),
        },
        Duration::ZERO,
    )))
}

fn error_record(file: &str, at: Option<(u32, u32)>, message: String) -> RunOut {
    let message = if message.starts_with(file) {
        message
    } else {
        format!("{file}: {message}")
    };
    RunOut::Error(Box::new(Record::error(
        file.to_string(),
        None,
        ErrorRecord {
            message,
            file: Some(file.to_string()),
            line: at.map(|a| a.0),
            column: at.map(|a| a.1),
        },
        Duration::ZERO,
    )))
}

/// The runs of XES files, in order: one per trace, and an `Error` record for a file that
/// cannot be read (to its end).
pub fn read_xes_runs<'a>(
    alphabet: &'a Alphabet,
    files: &'a [PathBuf],
    opts: &'a XesOptions,
) -> impl Iterator<Item = RunOut> + Send + 'a {
    files
        .iter()
        .flat_map(move |f| -> Box<dyn Iterator<Item = RunOut> + Send + 'a> {
            match XesRuns::open(alphabet, f, opts) {
                Ok(runs) => Box::new(runs),
                Err(e) => Box::new(std::iter::once(e)),
            }
        })
}
