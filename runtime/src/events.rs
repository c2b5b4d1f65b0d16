//! Event logs to multitraces: raw event records (JSON Lines or CSV) grouped by run into
//! multitraces, one per run, ready for a [`Batch`].
//!
//! An event has a run id, an action (an interaction action `l1!m`/`l1?m`, or an automaton
//! letter) and an order key within its location. The location of an event comes from the
//! model (the location of its letter), never from the event. Within a run, each location's
//! events are sorted by order key; events with equal keys keep their input order (files in the
//! order given, lines in file order).
//!
//! Order keys ([`OrderKey`]) are integers (exact, 128 bits), other numbers, or RFC 3339
//! timestamps (`2024-05-01T12:00:00.25Z`, `2024-05-01 12:00:00+02:00`; without a zone: UTC),
//! given as JSON numbers, JSON strings or CSV fields. Numbers and timestamps compare among
//! themselves; a run mixing both is a bad event.
//!
//! # Memory: how runs are grouped
//!
//! - Unsorted input (the default): every event is held until the end of the input, since a run
//!   is complete only then; at most [`EventOptions::max_buffered_events`] events are held, and
//!   one more is a fatal [`EventsError::TooManyEvents`] naming the cap and the options that
//!   lift it. Records come in the order of each run's first event.
//! - Sorted input ([`EventOptions::sorted`]): the events of a run are contiguous (across file
//!   boundaries too); a run is checked as soon as the next run begins, so memory holds one run
//!   (plus the set of run ids seen, to catch a run that appears again, which is a bad event).
//!
//! # Bad events
//!
//! A line that is not an event (bad JSON or CSV, a missing field, an action the model does not
//! have, an order key that is not a number or a timestamp) is never dropped: when its run is
//! known, that run's record is an `Error` naming the first bad event as `FILE:LINE` (and the
//! number of bad events of the run); when it is not (no run field), the line gets an `Error`
//! record of its own. A file that cannot be read is one `Error` record.

use crate::batch::{read_line_bounded, Batch, Item, LineRead, Outcome, RunError};
use crate::nfa::{Alphabet, LetterId};
use crate::record::{ErrorRecord, Record};
use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::Value;
use std::collections::VecDeque;
use std::fmt;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Default cap on events held at once when grouping unsorted input: 10 million.
pub const DEFAULT_MAX_BUFFERED_EVENTS: usize = 10_000_000;

/// How event files are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventFormat {
    /// One JSON object per line.
    Jsonl,
    /// Comma-separated values with a header row (RFC 4180 quoting).
    Csv,
}

impl EventFormat {
    /// The format a file name says: `.csv` is CSV, anything else JSON Lines.
    pub fn of_path(path: &Path) -> EventFormat {
        match path.extension().and_then(|e| e.to_str()) {
            Some(e) if e.eq_ignore_ascii_case("csv") => EventFormat::Csv,
            _ => EventFormat::Jsonl,
        }
    }
}

/// How events are read and grouped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventOptions {
    /// Field holding the run id (default `run`).
    pub run_field: String,
    /// Field holding the action or letter (default `action`).
    pub action_field: String,
    /// Field holding the order key (default `order`).
    pub order_field: String,
    /// The format of every file; `None`: by extension ([`EventFormat::of_path`]).
    pub format: Option<EventFormat>,
    /// The input is sorted by run (a run's events are contiguous): stream it.
    pub sorted: bool,
    /// Most events held at once (unsorted input; sorted input: in one run).
    pub max_buffered_events: usize,
    /// Longest line in bytes.
    pub max_line_bytes: u64,
}

impl Default for EventOptions {
    fn default() -> Self {
        EventOptions {
            run_field: "run".into(),
            action_field: "action".into(),
            order_field: "order".into(),
            format: None,
            sorted: false,
            max_buffered_events: DEFAULT_MAX_BUFFERED_EVENTS,
            max_line_bytes: crate::batch::DEFAULT_MAX_LINE_BYTES,
        }
    }
}

/// An order key within a location.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum OrderKey {
    /// An integer.
    Int(i128),
    /// A number that is not an integer.
    Float(f64),
    /// A timestamp, in nanoseconds since 1970-01-01T00:00:00Z.
    Time(i128),
}

impl OrderKey {
    /// Whether two keys can be compared (numbers with numbers, timestamps with timestamps).
    pub fn comparable(&self, other: &OrderKey) -> bool {
        matches!(self, OrderKey::Time(_)) == matches!(other, OrderKey::Time(_))
    }

    /// Total order among comparable keys (a timestamp sorts after every number).
    pub fn cmp_key(&self, other: &OrderKey) -> std::cmp::Ordering {
        use OrderKey::*;
        match (self, other) {
            (Int(a), Int(b)) | (Time(a), Time(b)) => a.cmp(b),
            (Float(a), Float(b)) => a.total_cmp(b),
            (Int(a), Float(b)) => (*a as f64).total_cmp(b),
            (Float(a), Int(b)) => a.total_cmp(&(*b as f64)),
            (Time(_), _) => std::cmp::Ordering::Greater,
            (_, Time(_)) => std::cmp::Ordering::Less,
        }
    }

    /// Parses a key written as text: an integer, a number, or an RFC 3339 timestamp.
    pub fn parse(text: &str) -> Result<OrderKey, OrderKeyError> {
        let t = text.trim();
        if let Ok(i) = t.parse::<i128>() {
            return Ok(OrderKey::Int(i));
        }
        if let Ok(f) = t.parse::<f64>() {
            if f.is_finite() {
                return Ok(OrderKey::Float(f));
            }
        }
        parse_timestamp(t)
            .map(OrderKey::Time)
            .ok_or_else(|| OrderKeyError::Text {
                text: t.to_string(),
            })
    }

    fn of_json(v: &Value) -> Result<OrderKey, OrderKeyError> {
        match v {
            Value::Number(n) => {
                if let Some(i) = n.as_i64() {
                    Ok(OrderKey::Int(i.into()))
                } else if let Some(u) = n.as_u64() {
                    Ok(OrderKey::Int(u.into()))
                } else {
                    Ok(OrderKey::Float(n.as_f64().unwrap_or(f64::NAN)))
                }
            }
            Value::String(s) => OrderKey::parse(s),
            other => Err(OrderKeyError::Type {
                value: other.to_string(),
            }),
        }
    }
}

/// Why a value is not an order key.
#[derive(Clone, Debug, PartialEq)]
pub enum OrderKeyError {
    /// Text that is neither a number nor an RFC 3339 timestamp.
    Text {
        /// The text, trimmed.
        text: String,
    },
    /// A value that is neither a number nor text (a JSON `true`, `null`, array or object, or
    /// such a value of a column), as written.
    Type {
        /// The value.
        value: String,
    },
    /// A number that is not finite (infinite or NaN).
    NotFinite {
        /// The number.
        value: f64,
    },
}

impl fmt::Display for OrderKeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OrderKeyError::Text { text } => write!(
                f,
                "order key {text:?} is neither a number nor an RFC 3339 timestamp (such as 2024-05-01T12:00:00.5Z)"
            ),
            OrderKeyError::Type { value } => write!(
                f,
                "order key {value} is neither a number nor an RFC 3339 timestamp"
            ),
            OrderKeyError::NotFinite { value } => {
                write!(f, "order key {value} is not a finite number")
            }
        }
    }
}

impl std::error::Error for OrderKeyError {}

/// A field of an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// The run id.
    Run,
    /// The action (or letter).
    Action,
    /// The order key.
    Order,
}

impl Field {
    /// What the field holds, in messages.
    pub fn what(self) -> &'static str {
        match self {
            Field::Run => "run id",
            Field::Action => "action",
            Field::Order => "order key",
        }
    }

    /// The command-line option that names the field (`--NAME-field`).
    pub fn option(self) -> &'static str {
        match self {
            Field::Run => "run",
            Field::Action => "action",
            Field::Order => "order",
        }
    }
}

/// Why an event is bad: its run gets an `Error` record naming the first one.
#[derive(Clone, Debug, PartialEq)]
pub enum EventError {
    /// A JSON line that does not parse (the parser's explanation).
    NotJson(String),
    /// A JSON line that is not an object.
    NotAnObject,
    /// A field is missing (named `field` in the input).
    Missing {
        /// The field's name in the input.
        field: String,
        /// Which field.
        role: Field,
    },
    /// A value is missing (events given as columns, where fields have no names).
    MissingValue(Field),
    /// The action field holds something other than a string.
    ActionNotString {
        /// The field's name.
        field: String,
        /// Its value, as written.
        value: String,
    },
    /// The order key cannot be read.
    OrderKey {
        /// The field's name (`None` for a column).
        field: Option<String>,
        /// Why.
        error: OrderKeyError,
    },
    /// A CSV record whose quoted field is still open at the end of the file.
    UnclosedQuote,
    /// An action that is not a letter of the model.
    UnknownAction(String),
    /// The run's order keys mix timestamps and numbers.
    MixedKeys,
}

impl fmt::Display for EventError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EventError::NotJson(e) => write!(f, "not a JSON object: {e}"),
            EventError::NotAnObject => f.write_str("not a JSON object"),
            EventError::Missing { field, role } => write!(
                f,
                "missing field {field:?} (the {}; another field name is given with --{}-field)",
                role.what(),
                role.option()
            ),
            EventError::MissingValue(role) => write!(f, "missing {}", role.what()),
            EventError::ActionNotString { field, value } => write!(
                f,
                "field {field:?}: the action must be a string, not {value}"
            ),
            EventError::OrderKey {
                field: Some(field),
                error,
            } => {
                write!(f, "field {field:?}: {error}")
            }
            EventError::OrderKey { field: None, error } => error.fmt(f),
            EventError::UnclosedQuote => {
                f.write_str("a quoted field is not closed before the end of the file")
            }
            EventError::UnknownAction(action) => {
                write!(f, "unknown action {action:?}: not a letter of the model")
            }
            EventError::MixedKeys => f.write_str(
                "this run mixes timestamps and numbers as order keys, which cannot be compared",
            ),
        }
    }
}

impl std::error::Error for EventError {}

/// A file of events that cannot be read further (the events read before it still count).
#[derive(Debug)]
pub enum EventReadError {
    /// The system refused to open or read it.
    Io {
        /// The file.
        file: String,
        /// The system's error.
        error: std::io::Error,
    },
    /// A line longer than [`EventOptions::max_line_bytes`].
    LineTooLong {
        /// The file.
        file: String,
        /// The line, from 1.
        line: u32,
        /// The limit in bytes.
        max: u64,
    },
}

impl fmt::Display for EventReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EventReadError::Io { file, error } => write!(f, "{file}: cannot read: {error}"),
            EventReadError::LineTooLong { file, line, max } => write!(
                f,
                "{file}:{line}: line longer than {max} bytes (--max-line-bytes); the rest of the file is not read"
            ),
        }
    }
}

impl std::error::Error for EventReadError {}

/// `YYYY-MM-DD[T ]HH:MM:SS[.fraction][Z|±HH:MM]` in nanoseconds since the epoch (no zone: UTC).
pub fn parse_timestamp(s: &str) -> Option<i128> {
    let b = s.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<i128> {
        let part = b.get(r)?;
        if part.iter().all(u8::is_ascii_digit) {
            std::str::from_utf8(part).ok()?.parse().ok()
        } else {
            None
        }
    };
    if b.len() < 19 || b[4] != b'-' || b[7] != b'-' || b[13] != b':' || b[16] != b':' {
        return None;
    }
    if !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    let mut i = 19;
    let mut nanos: i128 = 0;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            return None;
        }
        let digits = &s[start..i.min(start + 9)];
        nanos = digits.parse::<i128>().ok()? * 10i128.pow(9 - digits.len() as u32);
    }
    let offset: i128 = match b.get(i) {
        None => 0,
        Some(b'Z' | b'z') if i + 1 == b.len() => 0,
        Some(&sign @ (b'+' | b'-')) if i + 6 == b.len() && b[i + 3] == b':' => {
            let (oh, om) = (num(i + 1..i + 3)?, num(i + 4..i + 6)?);
            let o = oh * 3600 + om * 60;
            if sign == b'+' {
                o
            } else {
                -o
            }
        }
        _ => return None,
    };
    // Days from civil (Howard Hinnant's algorithm).
    let y = if mo <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (mo + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let secs = days * 86_400 + h * 3600 + mi * 60 + sec - offset;
    Some(secs * 1_000_000_000 + nanos)
}

/// A fatal error: the grouping cannot go on (bad events are records, not this).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EventsError {
    /// Unsorted input holds more events than [`EventOptions::max_buffered_events`].
    TooManyEvents {
        /// The cap.
        cap: usize,
        /// Where the event past the cap is.
        at: String,
    },
}

impl fmt::Display for EventsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EventsError::TooManyEvents { cap, at } => write!(
                f,
                "{at}: more than {cap} events to hold at once (the cap of --max-buffered-events, \
                 needed because unsorted input is grouped in memory until its end): sort the \
                 events by run and give --events-sorted, which holds one run at a time, or \
                 raise --max-buffered-events N"
            ),
        }
    }
}

impl std::error::Error for EventsError {}

/// One event as read, before grouping: where it is, and its fields or what is wrong with it.
#[derive(Clone, Debug, PartialEq)]
pub struct RawEvent {
    /// `FILE:LINE`.
    pub at: String,
    /// The file.
    pub file: String,
    /// The line, from 1.
    pub line: u32,
    /// The run id, when the event has one.
    pub run: Option<String>,
    /// The action and the order key, or why the event is bad.
    pub body: Result<(String, OrderKey), EventError>,
}

/// The run id of a JSON value: a string as is, a number or a boolean as written.
fn field_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// Parses one JSON Lines event.
pub fn jsonl_event(
    text: &str,
    opts: &EventOptions,
) -> (Option<String>, Result<(String, OrderKey), EventError>) {
    let v: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => return (None, Err(EventError::NotJson(e.to_string()))),
    };
    let Value::Object(map) = &v else {
        return (None, Err(EventError::NotAnObject));
    };
    let run = map.get(&opts.run_field).and_then(field_text);
    let body = (|| {
        if run.is_none() {
            return Err(missing(&opts.run_field, Field::Run));
        }
        let action = match map.get(&opts.action_field) {
            Some(Value::String(s)) => s.clone(),
            Some(other) => {
                return Err(EventError::ActionNotString {
                    field: opts.action_field.clone(),
                    value: other.to_string(),
                })
            }
            None => return Err(missing(&opts.action_field, Field::Action)),
        };
        let order = match map.get(&opts.order_field) {
            Some(v) => OrderKey::of_json(v).map_err(|e| order_error(&opts.order_field, e))?,
            None => return Err(missing(&opts.order_field, Field::Order)),
        };
        Ok((action, order))
    })();
    (run, body)
}

fn missing(field: &str, role: Field) -> EventError {
    EventError::Missing {
        field: field.to_string(),
        role,
    }
}

fn order_error(field: &str, error: OrderKeyError) -> EventError {
    EventError::OrderKey {
        field: Some(field.to_string()),
        error,
    }
}

/// Splits one CSV record (RFC 4180: `"` quotes, `""` inside quotes); `None` when a quote is
/// still open at the end of `text` (the record goes on on the next line).
pub fn split_csv(text: &str) -> Option<Vec<String>> {
    let mut fields = Vec::new();
    let mut cur = String::new();
    let mut chars = text.chars().peekable();
    let mut quoted = false;
    let mut at_start = true;
    while let Some(c) = chars.next() {
        if quoted {
            if c == '"' {
                if chars.peek() == Some(&'"') {
                    chars.next();
                    cur.push('"');
                } else {
                    quoted = false;
                }
            } else {
                cur.push(c);
            }
        } else if c == '"' && at_start {
            quoted = true;
            at_start = false;
        } else if c == ',' {
            fields.push(std::mem::take(&mut cur));
            at_start = true;
        } else {
            cur.push(c);
            at_start = false;
        }
    }
    if quoted {
        return None;
    }
    fields.push(cur);
    Some(fields)
}

/// Reads the events of one file, one at a time.
pub struct EventReader {
    file: String,
    reader: Box<dyn BufRead + Send>,
    format: EventFormat,
    opts: EventOptions,
    line: u32,
    buf: Vec<u8>,
    /// CSV: the column of each field (run, action, order), from the header.
    columns: Option<[Option<usize>; 3]>,
    done: bool,
}

impl EventReader {
    /// Opens `path` (`-`: standard input).
    pub fn open(path: &Path, opts: &EventOptions) -> std::io::Result<EventReader> {
        let reader: Box<dyn BufRead + Send> = if path.as_os_str() == "-" {
            Box::new(std::io::BufReader::new(std::io::stdin()))
        } else {
            Box::new(std::io::BufReader::new(std::fs::File::open(path)?))
        };
        let name = if path.as_os_str() == "-" {
            "<stdin>".to_string()
        } else {
            path.display().to_string()
        };
        let format = opts.format.unwrap_or_else(|| EventFormat::of_path(path));
        Ok(EventReader::new(name, reader, format, opts))
    }

    /// Reads events from `reader`, named `file` in messages.
    pub fn new(
        file: String,
        reader: Box<dyn BufRead + Send>,
        format: EventFormat,
        opts: &EventOptions,
    ) -> EventReader {
        EventReader {
            file,
            reader,
            format,
            opts: opts.clone(),
            line: 0,
            buf: Vec::new(),
            columns: None,
            done: false,
        }
    }

    /// The next line without its line break; `Err` is a fatal read error.
    fn next_line(&mut self) -> Result<Option<String>, EventReadError> {
        match read_line_bounded(&mut self.reader, &mut self.buf, self.opts.max_line_bytes) {
            Err(error) => Err(EventReadError::Io {
                file: self.file.clone(),
                error,
            }),
            Ok(LineRead::End) => Ok(None),
            Ok(LineRead::TooLong) => Err(EventReadError::LineTooLong {
                file: self.file.clone(),
                line: self.line + 1,
                max: self.opts.max_line_bytes,
            }),
            Ok(LineRead::Line) => {
                self.line += 1;
                let mut text = String::from_utf8_lossy(&self.buf).into_owned();
                while text.ends_with('\n') || text.ends_with('\r') {
                    text.pop();
                }
                Ok(Some(text))
            }
        }
    }

    fn event(
        &self,
        line: u32,
        run: Option<String>,
        body: Result<(String, OrderKey), EventError>,
    ) -> RawEvent {
        RawEvent {
            at: format!("{}:{line}", self.file),
            file: self.file.clone(),
            line,
            run,
            body,
        }
    }

    /// The next event, `Ok(None)` at the end, `Err` on a fatal read error (the message names
    /// the file; the file is not read further).
    pub fn next_event(&mut self) -> Result<Option<RawEvent>, EventReadError> {
        if self.done {
            return Ok(None);
        }
        loop {
            let Some(mut text) = self.next_line().inspect_err(|_| self.done = true)? else {
                self.done = true;
                return Ok(None);
            };
            let line = self.line;
            if text.trim().is_empty() {
                continue;
            }
            match self.format {
                EventFormat::Jsonl => {
                    let (run, body) = jsonl_event(&text, &self.opts);
                    return Ok(Some(self.event(line, run, body)));
                }
                EventFormat::Csv => {
                    let fields = loop {
                        if let Some(f) = split_csv(&text) {
                            break f;
                        }
                        match self.next_line()? {
                            Some(more) => {
                                text.push('\n');
                                text.push_str(&more);
                            }
                            None => {
                                return Ok(Some(self.event(
                                    line,
                                    None,
                                    Err(EventError::UnclosedQuote),
                                )));
                            }
                        }
                    };
                    let Some(cols) = self.columns else {
                        let find = |name: &str| fields.iter().position(|f| f.trim() == name);
                        self.columns = Some([
                            find(&self.opts.run_field),
                            find(&self.opts.action_field),
                            find(&self.opts.order_field),
                        ]);
                        continue;
                    };
                    let get = |i: Option<usize>| {
                        i.and_then(|i| fields.get(i)).map(|s| s.trim().to_string())
                    };
                    let run = get(cols[0]).filter(|r| !r.is_empty());
                    let body = (|| {
                        if run.is_none() {
                            return Err(missing(&self.opts.run_field, Field::Run));
                        }
                        let action = get(cols[1])
                            .filter(|a| !a.is_empty())
                            .ok_or_else(|| missing(&self.opts.action_field, Field::Action))?;
                        let order = get(cols[2])
                            .filter(|o| !o.is_empty())
                            .ok_or_else(|| missing(&self.opts.order_field, Field::Order))?;
                        let key = OrderKey::parse(&order)
                            .map_err(|e| order_error(&self.opts.order_field, e))?;
                        Ok((action, key))
                    })();
                    return Ok(Some(self.event(line, run, body)));
                }
            }
        }
    }
}

/// What grouping gives for one run (or one event that has no run).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunOut {
    /// A multitrace to check: `trace` is `FILE:LINE` of the run's first event, `id` the run id.
    Item(Item),
    /// An `Error` record: a run with a bad event, an event without a run, an unreadable file.
    Error(Box<Record>),
}

/// The events of one run collected so far.
struct Run {
    id: String,
    first_at: String,
    /// (location, letter, order key, input sequence number).
    events: Vec<(u32, LetterId, OrderKey)>,
    bad: Option<(ErrorRecord, usize)>,
}

/// Groups events into runs over a model's alphabet (letter → location).
pub struct Grouper<'a> {
    alphabet: &'a Alphabet,
    letters: FxHashMap<String, LetterId>,
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
        Grouper { alphabet, letters }
    }

    fn new_run(&self, id: String, at: &str) -> Run {
        Run {
            id,
            first_at: at.to_string(),
            events: Vec::new(),
            bad: None,
        }
    }

    /// Adds an event to its run (marking the run bad when the event is).
    fn add(&self, run: &mut Run, ev: &RawEvent) {
        let problem = match &ev.body {
            Err(e) => Some(e.clone()),
            Ok((action, key)) => match self.letters.get(action) {
                None => Some(EventError::UnknownAction(action.clone())),
                Some(&l) => {
                    if run
                        .events
                        .first()
                        .is_some_and(|(_, _, k)| !k.comparable(key))
                    {
                        Some(EventError::MixedKeys)
                    } else {
                        run.events
                            .push((self.alphabet.location(l).index() as u32, l, *key));
                        None
                    }
                }
            },
        };
        if let Some(p) = problem {
            match &mut run.bad {
                Some((_, n)) => *n += 1,
                None => {
                    run.bad = Some((
                        ErrorRecord {
                            message: format!("{}: bad event of run {:?}: {p}", ev.at, run.id),
                            file: Some(ev.file.clone()),
                            line: Some(ev.line),
                            column: None,
                        },
                        1,
                    ))
                }
            }
        }
    }

    /// The multitrace of a complete run (or its Error record).
    fn finish(&self, run: Run) -> RunOut {
        if let Some((mut e, n)) = run.bad {
            if n > 1 {
                e.message
                    .push_str(&format!(" ({n} bad events in this run)"));
            }
            return RunOut::Error(Box::new(Record::error(
                run.first_at,
                Some(run.id),
                e,
                Duration::ZERO,
            )));
        }
        let locations = self.alphabet.locations();
        let mut per: Vec<Vec<(LetterId, OrderKey)>> = vec![Vec::new(); locations];
        for (k, l, key) in run.events {
            per[k as usize].push((l, key));
        }
        let traces = per
            .into_iter()
            .enumerate()
            .map(|(k, mut evs)| {
                // Stable: equal keys keep their input order.
                evs.sort_by(|a, b| a.1.cmp_key(&b.1));
                (
                    self.alphabet.location_names()[k].clone(),
                    evs.into_iter()
                        .map(|(l, _)| self.alphabet.name(l).to_string())
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

fn file_error(file: &Path, error: EventReadError) -> RunOut {
    RunOut::Error(Box::new(Record::error(
        file.display().to_string(),
        None,
        ErrorRecord {
            message: error.to_string(),
            file: Some(file.display().to_string()),
            line: None,
            column: None,
        },
        Duration::ZERO,
    )))
}

/// The runs of event files, in order (unsorted input: read in full first, within the cap).
pub fn read_runs<'a>(
    alphabet: &'a Alphabet,
    files: &[PathBuf],
    opts: &EventOptions,
) -> Result<Box<dyn Iterator<Item = RunOut> + Send + 'a>, EventsError> {
    if opts.sorted {
        return Ok(Box::new(SortedRuns {
            grouper: Grouper::new(alphabet),
            files: files.iter().cloned().collect(),
            opts: opts.clone(),
            reader: None,
            current: None,
            seen: FxHashSet::default(),
            ready: VecDeque::new(),
        }));
    }
    let grouper = Grouper::new(alphabet);
    let mut out: Vec<RunOut> = Vec::new();
    let mut events: Vec<RawEvent> = Vec::new();
    for f in files {
        let mut reader = match EventReader::open(f, opts) {
            Ok(r) => r,
            Err(error) => {
                let file = f.display().to_string();
                out.push(file_error(f, EventReadError::Io { file, error }));
                continue;
            }
        };
        loop {
            match reader.next_event() {
                Ok(Some(ev)) => {
                    if events.len() >= opts.max_buffered_events {
                        return Err(EventsError::TooManyEvents {
                            cap: opts.max_buffered_events,
                            at: ev.at,
                        });
                    }
                    events.push(ev)
                }
                Ok(None) => break,
                Err(m) => {
                    // Read errors come after the runs of the events read before them.
                    out.extend(grouper.group(std::mem::take(&mut events)));
                    out.push(file_error(f, m));
                    break;
                }
            }
        }
    }
    out.extend(grouper.group(events));
    Ok(Box::new(out.into_iter()))
}

/// Streams sorted input: a run is finished when the next one begins.
struct SortedRuns<'a> {
    grouper: Grouper<'a>,
    files: VecDeque<PathBuf>,
    opts: EventOptions,
    reader: Option<EventReader>,
    current: Option<Run>,
    seen: FxHashSet<String>,
    ready: VecDeque<RunOut>,
}

impl Iterator for SortedRuns<'_> {
    type Item = RunOut;

    fn next(&mut self) -> Option<RunOut> {
        loop {
            if let Some(r) = self.ready.pop_front() {
                return Some(r);
            }
            let Some(reader) = &mut self.reader else {
                match self.files.pop_front() {
                    Some(f) => match EventReader::open(&f, &self.opts) {
                        Ok(r) => self.reader = Some(r),
                        Err(error) => {
                            let file = f.display().to_string();
                            return Some(file_error(&f, EventReadError::Io { file, error }));
                        }
                    },
                    None => return self.current.take().map(|r| self.grouper.finish(r)),
                }
                continue;
            };
            match reader.next_event() {
                Ok(None) => self.reader = None,
                Err(m) => {
                    let file = PathBuf::from(&reader.file);
                    self.reader = None;
                    self.ready.push_back(file_error(&file, m));
                }
                Ok(Some(ev)) => {
                    let Some(id) = &ev.run else {
                        self.ready.push_back(RunOut::Error(Box::new(orphan(&ev))));
                        continue;
                    };
                    if self.current.as_ref().is_some_and(|r| &r.id != id) {
                        let done = self.current.take().unwrap();
                        self.ready.push_back(self.grouper.finish(done));
                    }
                    if self.current.is_none() {
                        let mut run = self.grouper.new_run(id.clone(), &ev.at);
                        if !self.seen.insert(id.clone()) {
                            run.bad = Some((
                                ErrorRecord {
                                    message: format!(
                                        "{}: run {id:?} appears again after other runs, yet the input was given as sorted by run (--events-sorted): sort it, or leave out --events-sorted",
                                        ev.at
                                    ),
                                    file: Some(ev.file.clone()),
                                    line: Some(ev.line),
                                    column: None,
                                },
                                1,
                            ));
                        }
                        self.current = Some(run);
                    }
                    let run = self.current.as_mut().unwrap();
                    if run.events.len() >= self.opts.max_buffered_events && run.bad.is_none() {
                        run.bad = Some((
                            ErrorRecord {
                                message: format!(
                                    "{}: run {id:?} has more than {} events (--max-buffered-events)",
                                    ev.at, self.opts.max_buffered_events
                                ),
                                file: Some(ev.file.clone()),
                                line: Some(ev.line),
                                column: None,
                            },
                            1,
                        ));
                    }
                    if run.bad.is_none() || run.events.len() < self.opts.max_buffered_events {
                        self.grouper.add(run, &ev);
                    }
                }
            }
        }
    }
}

/// Checks the runs of event files on `batch` and hands one record per run to `sink`, in the
/// order of each run's first event (an event without a run, or an unreadable file, gets its
/// own Error record in place).
pub fn run_events<E>(
    batch: &Batch<'_>,
    files: &[PathBuf],
    opts: &EventOptions,
    sink: impl FnMut(Outcome) -> Result<(), E>,
) -> Result<Result<usize, EventsError>, RunError<E>> {
    let runs = match read_runs(&batch.engine().model().alphabet, files, opts) {
        Ok(r) => r,
        Err(e) => return Ok(Err(e)),
    };
    check_runs(batch, runs, sink).map(Ok)
}

/// Checks grouped runs ([`Grouper::group`], [`read_runs`]) on `batch` and hands one record per
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
    use crate::artifact::decode;
    use crate::batch::BatchOptions;
    use crate::check::{CheckOptions, Engine};

    fn engine() -> Engine {
        Engine::new(decode(include_bytes!("../../fixtures/golden/seed004-mqtt.v1.mtm")).unwrap())
    }

    fn read(text: &str, format: EventFormat, opts: &EventOptions) -> Vec<RawEvent> {
        let mut r = EventReader::new(
            "ev".into(),
            Box::new(std::io::Cursor::new(text.as_bytes().to_vec())),
            format,
            opts,
        );
        let mut out = Vec::new();
        while let Some(e) = r.next_event().unwrap() {
            out.push(e);
        }
        out
    }

    #[test]
    fn timestamps() {
        assert_eq!(parse_timestamp("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(
            parse_timestamp("1970-01-01T00:00:01.5Z"),
            Some(1_500_000_000)
        );
        assert_eq!(parse_timestamp("1970-01-01 01:00:00+01:00"), Some(0));
        assert_eq!(
            parse_timestamp("2000-03-01T00:00:00"),
            Some(951_868_800_000_000_000)
        );
        assert_eq!(parse_timestamp("2000-13-01T00:00:00"), None);
        assert_eq!(parse_timestamp("yesterday"), None);
        assert!(matches!(OrderKey::parse("12"), Ok(OrderKey::Int(12))));
        assert!(matches!(OrderKey::parse("1.5"), Ok(OrderKey::Float(_))));
        assert_eq!(
            OrderKey::parse(" soon "),
            Err(OrderKeyError::Text {
                text: "soon".into()
            })
        );
    }

    #[test]
    fn bad_events_are_typed() {
        let opts = EventOptions::default();
        let text = "{\"run\":1,\"order\":1}\n{\"run\":1,\"action\":\"a\",\"order\":true}\n[]\n";
        let bodies: Vec<_> = read(text, EventFormat::Jsonl, &opts)
            .into_iter()
            .map(|e| e.body.unwrap_err())
            .collect();
        assert_eq!(
            bodies,
            vec![
                EventError::Missing {
                    field: "action".into(),
                    role: Field::Action
                },
                EventError::OrderKey {
                    field: Some("order".into()),
                    error: OrderKeyError::Type {
                        value: "true".into()
                    }
                },
                EventError::NotAnObject,
            ]
        );
        assert_eq!(
            bodies[1].to_string(),
            "field \"order\": order key true is neither a number nor an RFC 3339 timestamp"
        );
        let csv = read("run,action,order\n1,a,\"x\n", EventFormat::Csv, &opts);
        assert_eq!(csv[0].body, Err(EventError::UnclosedQuote));
    }

    #[test]
    fn csv_split() {
        assert_eq!(
            split_csv("a,\"b,c\",\"d\"\"e\"").unwrap(),
            vec!["a", "b,c", "d\"e"]
        );
        assert_eq!(split_csv("a,\"b"), None);
        assert_eq!(split_csv("").unwrap(), vec![""]);
    }

    #[test]
    fn groups_sorts_and_reports() {
        let e = engine();
        let g = Grouper::new(&e.model().alphabet);
        let opts = EventOptions::default();
        let text = r#"{"run":"r1","action":"brok?begin","order":2}
{"run":"r2","action":"clt1!begin","order":1}
{"run":"r1","action":"clt1!begin","order":1}
{"run":"r1","action":"brok?pub","order":2}
{"run":"r3","action":"nope","order":1}
{"action":"clt1!begin","order":1}
{"run":"r3","action":"clt1!begin","order":"x"}
"#;
        let out = g.group(read(text, EventFormat::Jsonl, &opts));
        assert_eq!(out.len(), 4);
        let RunOut::Item(r1) = &out[0] else { panic!() };
        assert_eq!(r1.trace, "ev:1");
        assert_eq!(r1.id.as_deref(), Some("r1"));
        let brok = r1.traces.iter().find(|(k, _)| k == "brok").unwrap();
        // Equal keys keep input order.
        assert_eq!(brok.1, vec!["brok?begin", "brok?pub"]);
        let RunOut::Error(r3) = &out[2] else { panic!() };
        let err = r3.error.as_ref().unwrap();
        assert_eq!((err.file.as_deref(), err.line), (Some("ev"), Some(5)));
        assert!(
            err.message.contains("unknown action") && err.message.contains("2 bad events"),
            "{}",
            err.message
        );
        let RunOut::Error(orph) = &out[3] else {
            panic!()
        };
        assert!(orph
            .error
            .as_ref()
            .unwrap()
            .message
            .starts_with("ev:6: bad event (no run)"));
    }

    #[test]
    fn csv_with_field_names() {
        let e = engine();
        let g = Grouper::new(&e.model().alphabet);
        let opts = EventOptions {
            run_field: "session".into(),
            action_field: "act".into(),
            order_field: "ts".into(),
            ..EventOptions::default()
        };
        let text = "ts,session,act\n2024-01-01T00:00:02Z,s,clt1!pub\n2024-01-01T00:00:01Z,s,\"clt1!begin\"\n";
        let out = g.group(read(text, EventFormat::Csv, &opts));
        let RunOut::Item(s) = &out[0] else {
            panic!("{out:?}")
        };
        let clt1 = s.traces.iter().find(|(k, _)| k == "clt1").unwrap();
        assert_eq!(clt1.1, vec!["clt1!begin", "clt1!pub"]);
        // Missing field.
        let out = g.group(read("ts,session,act\n1,s,\n", EventFormat::Csv, &opts));
        let RunOut::Error(r) = &out[0] else { panic!() };
        assert!(r
            .error
            .as_ref()
            .unwrap()
            .message
            .contains("missing field \"act\""));
    }

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
        // Sorted mode: run 1 appears again in b after run 2: an Error for that part.
        let sorted = EventOptions {
            sorted: true,
            ..EventOptions::default()
        };
        let mut got = Vec::new();
        batch.run_events(&files, &sorted, &mut got).unwrap();
        let v: Vec<_> = got.iter().map(|r| r.verdict.clone()).collect();
        assert_eq!(v, vec!["WeakPass", "Error", "Error", "WeakPass"]);
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
