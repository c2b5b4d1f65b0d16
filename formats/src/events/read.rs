//! One event per line: JSON Lines objects, or CSV records under a header row.

use super::block::Blocks;
use super::entries::{duplicate_column, json_str, raw_integer};
use super::event::{EventError, EventFormat, EventOptions, EventReadError, Field, RawEvent};
use super::key::{OrderKey, OrderKeyError};
use crate::input::{read_line_bounded, LineRead};
use crate::object::AnyValue;
use serde_json::Value;
use std::collections::VecDeque;
use std::io::BufRead;
use std::path::Path;

/// The run id of a JSON value: a string as is, a number or a boolean as written.
fn field_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// Why a line is refused that is not UTF-8 from byte `at` (its first invalid byte): event
/// logs are UTF-8, and a line read lossily would make `r\xff` and `r\xfe` one run.
pub fn not_utf8(line: &[u8], at: usize) -> String {
    format!(
        "invalid UTF-8 (byte 0x{:02x}) at column {}: event logs must be UTF-8",
        line[at],
        at + 1
    )
}

/// Parses one JSON Lines event.
pub fn jsonl_event(
    text: &str,
    opts: &EventOptions,
) -> (Option<String>, Result<(String, OrderKey), EventError>) {
    if let Some(s) =
        super::scan::scan_flat(text, &opts.run_field, &opts.action_field, &opts.order_field)
    {
        return (Some(s.run.to_string()), Ok((s.action.to_string(), s.order)));
    }
    jsonl_event_full(text, opts)
}

/// Parses one JSON Lines event with the full JSON parser (what [`jsonl_event`] falls back to
/// when the fast path ([`super::scan::scan_flat`]) cannot answer).
pub fn jsonl_event_full(
    text: &str,
    opts: &EventOptions,
) -> (Option<String>, Result<(String, OrderKey), EventError>) {
    let v: AnyValue = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            return (
                bad_line_run(text, opts),
                Err(EventError::NotJson(e.to_string())),
            )
        }
    };
    let AnyValue(Some(entries)) = v else {
        return (None, Err(EventError::NotAnObject));
    };
    // A field read twice is refused (a map would keep the last silently), as duplicate
    // `traces` keys are in multitrace files; only the fields read are checked, as the fast
    // path checks them.
    let mut map = serde_json::Map::new();
    for (key, value) in entries {
        let read = [&opts.run_field, &opts.action_field, &opts.order_field];
        if map.contains_key(&key) && read.contains(&&key) {
            let run = if key == opts.run_field {
                None
            } else {
                map.get(&opts.run_field).and_then(field_text)
            };
            let why = format!(
                "duplicate key {}{}",
                json_str(&key),
                duplicate_column(text, &key)
            );
            return (run, Err(EventError::Unreadable(why)));
        }
        map.insert(key, value);
    }
    let map = &map;
    let big = |field: &str| match map.get(field) {
        Some(Value::Number(n)) if !(n.is_i64() || n.is_u64()) => raw_integer(text, field),
        _ => None,
    };
    let big_run = big(&opts.run_field);
    let big_key = big(&opts.order_field);
    let run = match big_run {
        Some(lit) => Some(lit.to_string()),
        None => map.get(&opts.run_field).and_then(field_text),
    };
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
            // Exact, never rounded through `f64`.
            Some(_) if big_key.is_some() => {
                let lit = big_key.unwrap_or_default();
                OrderKey::Int(lit.parse::<i128>().map_err(|_| {
                    EventError::Unreadable(format!(
                        "order key {lit} in field {} is beyond the integers an order key \
                         holds (-2^127 to 2^127-1)",
                        json_str(&opts.order_field)
                    ))
                })?)
            }
            Some(v) => OrderKey::of_json(v).map_err(|e| order_error(&opts.order_field, e))?,
            None => return Err(missing(&opts.order_field, Field::Order)),
        };
        Ok((action, order))
    })();
    (run, body)
}

/// The run of a line that is not JSON (cut short, damaged): the run field its first bytes
/// hold whole ([`json_prefix_field`]), when the line names the field only once. One event a
/// line, so that run is the only one the line touched; a line naming the field twice may be
/// two events run together (a lost line break), whose runs are then not known.
fn bad_line_run(text: &str, opts: &EventOptions) -> Option<String> {
    let key = serde_json::to_string(&opts.run_field).ok()?;
    if text.matches(key.as_str()).count() != 1 {
        return None;
    }
    json_prefix_field(text, &opts.run_field)
}

pub(super) fn missing(field: &str, role: Field) -> EventError {
    EventError::Missing {
        field: field.to_string(),
        role,
    }
}

pub(super) fn order_error(field: &str, error: OrderKeyError) -> EventError {
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

/// The columns of the run, the action and the order key in a CSV header row, or the field
/// that is absent (with its role and the columns present).
#[allow(clippy::type_complexity)]
pub fn csv_columns(
    header: &[String],
    opts: &EventOptions,
) -> Result<[Option<usize>; 3], (String, Field, Vec<String>)> {
    let find = |name: &str| header.iter().position(|f| f.trim() == name);
    let cols = [
        find(&opts.run_field),
        find(&opts.action_field),
        find(&opts.order_field),
    ];
    let present = vec![header.iter().map(|f| f.trim().to_string()).collect()];
    let fields = [
        (opts.run_field.as_str(), Field::Run),
        (opts.action_field.as_str(), Field::Action),
        (opts.order_field.as_str(), Field::Order),
    ];
    match absent_field(fields, &present) {
        Some(absent) => Err(absent),
        None => Ok(cols),
    }
}

/// One CSV event (a record split by [`split_csv`]) by the columns of its header
/// ([`csv_columns`]): its run id (`None` when it has none) and its action and order key.
pub fn csv_event(
    fields: &[String],
    cols: &[Option<usize>; 3],
    opts: &EventOptions,
) -> (Option<String>, Result<(String, OrderKey), EventError>) {
    let get = |i: Option<usize>| i.and_then(|i| fields.get(i)).map(|s| s.trim().to_string());
    let run = get(cols[0]).filter(|r| !r.is_empty());
    let body = (|| {
        if run.is_none() {
            return Err(missing(&opts.run_field, Field::Run));
        }
        let action = get(cols[1])
            .filter(|a| !a.is_empty())
            .ok_or_else(|| missing(&opts.action_field, Field::Action))?;
        let order = get(cols[2])
            .filter(|o| !o.is_empty())
            .ok_or_else(|| missing(&opts.order_field, Field::Order))?;
        let key = OrderKey::parse(&order).map_err(|e| order_error(&opts.order_field, e))?;
        Ok((action, key))
    })();
    (run, body)
}

/// The value of the top-level field `field` of a JSON object of which `prefix` is the first
/// bytes (a line cut at the length limit), when the prefix holds it whole and before any
/// other field of that name; `None` otherwise (the caller then treats the run as unknown).
pub fn json_prefix_field(prefix: &str, field: &str) -> Option<String> {
    let b = prefix.as_bytes();
    let ws = |mut i: usize| {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        i
    };
    // The end (exclusive) of the string starting at `i` (`b[i] == '"'`).
    let string_end = |mut i: usize| {
        i += 1;
        while i < b.len() {
            match b[i] {
                b'\\' => i += 2,
                b'"' => return Some(i + 1),
                _ => i += 1,
            }
        }
        None
    };
    // The end of the value starting at `i`, when it ends within the prefix.
    let value_end = |i: usize| -> Option<usize> {
        match *b.get(i)? {
            b'"' => string_end(i),
            b'{' | b'[' => {
                let (mut depth, mut j) = (0usize, i);
                while j < b.len() {
                    match b[j] {
                        b'"' => {
                            j = string_end(j)?;
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                return Some(j + 1);
                            }
                        }
                        _ => {}
                    }
                    j += 1;
                }
                None
            }
            _ => (i..b.len())
                .find(|&j| matches!(b[j], b',' | b'}' | b']') || b[j].is_ascii_whitespace()),
        }
    };
    let mut i = ws(0);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    loop {
        i = ws(i + 1);
        if b.get(i) != Some(&b'"') {
            return None;
        }
        let key_end = string_end(i)?;
        let key: String = serde_json::from_str(&prefix[i..key_end]).ok()?;
        i = ws(key_end);
        if b.get(i) != Some(&b':') {
            return None;
        }
        i = ws(i + 1);
        let end = value_end(i)?;
        if key == field {
            let v: Value = serde_json::from_str(&prefix[i..end]).ok()?;
            return field_text(&v);
        }
        i = ws(end);
        if b.get(i) != Some(&b',') {
            return None;
        }
    }
}

/// The run id, action and order key of a CSV record without quotes, when they are there,
/// valid UTF-8 and well formed (each trimmed as [`csv_event`] trims it); `None` leaves the
/// line to [`split_csv`] and [`csv_event`] (which also word what is wrong).
fn csv_fast<'a>(
    line: &'a [u8],
    cols: &[Option<usize>; 3],
) -> Option<(&'a [u8], &'a [u8], OrderKey)> {
    if memchr::memchr(b'"', line).is_some() {
        return None;
    }
    let [Some(r), Some(a), Some(o)] = *cols else {
        return None;
    };
    let (mut run, mut action, mut order) = (None, None, None);
    let last = r.max(a).max(o);
    for (i, field) in line.split(|&c| c == b',').enumerate().take(last + 1) {
        // Trimmed as text (Unicode white space, as `str::trim`), not empty.
        let take = || {
            std::str::from_utf8(field)
                .ok()
                .map(str::trim)
                .filter(|t| !t.is_empty())
        };
        if i == r {
            run = take();
        }
        if i == a {
            action = take();
        }
        if i == o {
            order = take();
        }
    }
    let key = OrderKey::parse(order?).ok()?;
    Some((run?.as_bytes(), action?.as_bytes(), key))
}

/// An event of a JSON Lines line the fast scan read, borrowed from the reader.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FastEvent<'r> {
    /// The file's name.
    pub file: &'r str,
    /// The line, from 1.
    pub line: u32,
    /// The run id (valid UTF-8: the scan checked it).
    pub run: &'r [u8],
    /// The action as written (not checked as UTF-8: see [`super::scan::scan_raw_with`]).
    pub action: &'r [u8],
    /// The order key.
    pub key: OrderKey,
}

/// The next event of a reader: borrowed (the fast path), or as read.
pub(crate) enum Next<'r> {
    /// Read by the fast scan.
    Fast(FastEvent<'r>),
    /// Any other.
    Event(RawEvent),
}

/// Reads the events of one file, one at a time.
pub struct EventReader {
    pub(super) file: String,
    reader: Blocks,
    format: EventFormat,
    opts: EventOptions,
    line: u32,
    buf: Vec<u8>,
    /// CSV: the column of each field (run, action, order), from the header.
    columns: Option<[Option<usize>; 3]>,
    done: bool,
    /// Lines read ahead to check the field names (JSON Lines), handed out first.
    ahead: VecDeque<Raw>,
    probed: bool,
    /// The field names, prepared for the fast path's scan.
    fields: super::scan::FlatFields,
    /// Why the last line read is not UTF-8 (set by `next_line`).
    bad_utf8: Option<String>,
}

/// Events looked at to tell a field name absent from the input (a wrong `--run-field`...)
/// from a few bad events.
const PROBE_EVENTS: usize = 8;

/// One line as read, before it is counted.
enum Raw {
    Line(Vec<u8>),
    End,
    TooLong,
    Io(std::io::Error),
}

/// The field (of `fields`: run, action, order) that none of `present` (the field names of
/// each event looked at) has, with the names they have.
fn absent_field(
    fields: [(&str, Field); 3],
    present: &[Vec<String>],
) -> Option<(String, Field, Vec<String>)> {
    if present.is_empty() {
        return None;
    }
    let (name, role) = fields
        .into_iter()
        .find(|(f, _)| present.iter().all(|keys| !keys.iter().any(|k| k == f)))?;
    let mut all: Vec<String> = present.iter().flatten().cloned().collect();
    all.sort();
    all.dedup();
    Some((name.to_string(), role, all))
}

impl EventReader {
    /// Opens `path` (`-`: standard input).
    pub fn open(path: &Path, opts: &EventOptions) -> std::io::Result<EventReader> {
        let reader: Box<dyn BufRead + Send> = if path.as_os_str() == "-" {
            Box::new(std::io::BufReader::new(std::io::stdin()))
        } else {
            // `.gz` and `.zst` files are decompressed while read, as a batch's inputs are.
            Box::new(std::io::BufReader::new(crate::input::open_input(path)?))
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
            reader: Blocks::new(reader),
            format,
            opts: opts.clone(),
            line: 0,
            buf: Vec::new(),
            columns: None,
            done: false,
            ahead: VecDeque::new(),
            probed: false,
            bad_utf8: None,
            fields: super::scan::FlatFields::new(
                &opts.run_field,
                &opts.action_field,
                &opts.order_field,
            ),
        }
    }

    fn read_raw(&mut self) -> Raw {
        match self.ahead.pop_front() {
            Some(r) => r,
            None => self.read_fresh(),
        }
    }

    fn read_fresh(&mut self) -> Raw {
        match read_line_bounded(&mut self.reader, &mut self.buf, self.opts.max_line_bytes) {
            Err(error) => Raw::Io(error),
            Ok(LineRead::End) => Raw::End,
            Ok(LineRead::TooLong) => Raw::TooLong,
            Ok(LineRead::Line) => Raw::Line(std::mem::take(&mut self.buf)),
        }
    }

    fn fields(&self) -> [(&str, Field); 3] {
        [
            (self.opts.run_field.as_str(), Field::Run),
            (self.opts.action_field.as_str(), Field::Action),
            (self.opts.order_field.as_str(), Field::Order),
        ]
    }

    /// Reads the first events of a JSON Lines file ahead: when none of them has one of the
    /// three fields, its name is wrong (one error naming the fields present, rather than one
    /// per event).
    fn probe(&mut self) -> Result<(), EventReadError> {
        self.probed = true;
        let mut present: Vec<Vec<String>> = Vec::new();
        while present.len() < PROBE_EVENTS {
            let raw = self.read_fresh();
            let stop = !matches!(raw, Raw::Line(_));
            if let Raw::Line(bytes) = &raw {
                if let Ok(serde_json::Value::Object(map)) =
                    serde_json::from_slice::<serde_json::Value>(bytes)
                {
                    present.push(map.keys().cloned().collect());
                }
            }
            self.ahead.push_back(raw);
            if stop {
                break;
            }
        }
        match absent_field(self.fields(), &present) {
            Some((field, role, names)) => Err(self.absent(&field, role, names, present.len())),
            None => Ok(()),
        }
    }

    fn absent(
        &self,
        field: &str,
        role: Field,
        present: Vec<String>,
        events: usize,
    ) -> EventReadError {
        EventReadError::FieldAbsent {
            file: self.file.clone(),
            field: field.to_string(),
            role,
            present,
            events,
        }
    }

    /// The next line without its line break; `Err` is a fatal read error.
    fn next_line(&mut self) -> Result<Option<String>, EventReadError> {
        match self.read_raw() {
            Raw::Io(error) => Err(EventReadError::Io {
                file: self.file.clone(),
                error,
            }),
            Raw::End => Ok(None),
            Raw::TooLong => Err(EventReadError::LineTooLong {
                file: self.file.clone(),
                line: self.line + 1,
                max: self.opts.max_line_bytes,
            }),
            Raw::Line(bytes) => {
                self.line += 1;
                // JSON and CSV event logs are UTF-8: a line that is not is refused (never read
                // lossily, which would merge `r\xff` and `r\xfe` into one run).
                let mut text = match String::from_utf8(bytes) {
                    Ok(t) => t,
                    Err(e) => {
                        let at = e.utf8_error().valid_up_to();
                        self.bad_utf8 = Some(not_utf8(e.as_bytes(), at));
                        String::from_utf8_lossy(e.as_bytes()).into_owned()
                    }
                };
                while text.ends_with('\n') || text.ends_with('\r') {
                    text.pop();
                }
                Ok(Some(text))
            }
        }
    }

    /// After a line longer than the limit: the run its first bytes name (`None` when they do
    /// not name it whole), with the rest of the line skipped, without holding it.
    fn cut_line_run(&mut self) -> std::io::Result<Option<String>> {
        let prefix = String::from_utf8_lossy(&self.buf).into_owned();
        if self.buf.last() != Some(&b'\n') {
            loop {
                let chunk = match self.reader.fill_buf() {
                    Ok(c) => c,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(e),
                };
                if chunk.is_empty() {
                    break;
                }
                match chunk.iter().position(|&b| b == b'\n') {
                    Some(i) => {
                        self.reader.consume(i + 1);
                        break;
                    }
                    None => {
                        let n = chunk.len();
                        self.reader.consume(n);
                    }
                }
            }
        }
        Ok(match self.format {
            EventFormat::Jsonl => json_prefix_field(&prefix, &self.opts.run_field),
            EventFormat::Csv => {
                let col = self.columns.and_then(|c| c[0]);
                // Only the fields before the last one are whole.
                split_csv(&prefix).and_then(|f| {
                    col.filter(|&c| c + 1 < f.len())
                        .map(|c| f[c].trim().to_string())
                        .filter(|r| !r.is_empty())
                })
            }
        })
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

    /// [`EventReader::next_event`], with an event the fast scan reads ([`super::scan`], or a
    /// CSV record without quotes) borrowed from the reader's block rather than copied (no
    /// allocation per event, no UTF-8 check of the whole line); any other line (blank, too
    /// long, the last one without a line break, an event the scan does not answer for) as
    /// `next_event` gives it.
    pub(crate) fn next_fast(&mut self) -> Result<Option<Next<'_>>, EventReadError> {
        let csv = match self.format {
            EventFormat::Jsonl => false,
            EventFormat::Csv => true,
        };
        if self.done
            || !self.ahead.is_empty()
            || (csv && self.columns.is_none())
            || !(csv || self.probed)
        {
            return self.next_event().map(|e| e.map(Next::Event));
        }
        if let Some(range) = self.reader.take_line(self.opts.max_line_bytes) {
            let bytes = &self.reader.block()[range.clone()];
            let mut n = bytes.len();
            while n > 0 && matches!(bytes[n - 1], b'\n' | b'\r') {
                n -= 1;
            }
            let line = &bytes[..n];
            let scanned = if csv {
                self.columns
                    .filter(|_| std::str::from_utf8(line).is_ok())
                    .and_then(|cols| csv_fast(line, &cols))
            } else {
                // A line that is not UTF-8 anywhere is refused by `next_event`.
                std::str::from_utf8(line)
                    .ok()
                    .and_then(|_| super::scan::scan_raw_with(line, &self.fields))
                    .map(|s| (s.run, s.action, s.order))
            };
            // Where the fields are in the block (their bytes are borrowed again below).
            let base = bytes.as_ptr() as usize - range.start;
            let span = |t: &[u8]| t.as_ptr() as usize - base..t.as_ptr() as usize - base + t.len();
            match scanned.map(|(r, a, k)| (span(r), span(a), k)) {
                Some((run, action, key)) => {
                    self.line += 1;
                    let b = self.reader.block();
                    return Ok(Some(Next::Fast(FastEvent {
                        file: &self.file,
                        line: self.line,
                        run: &b[run],
                        action: &b[action],
                        key,
                    })));
                }
                // Handed to `next_event` as read.
                None => self.ahead.push_back(Raw::Line(bytes.to_vec())),
            }
        }
        self.next_event().map(|e| e.map(Next::Event))
    }

    /// The next event, `Ok(None)` at the end, `Err` on a fatal read error (the message names
    /// the file; the file is not read further).
    pub fn next_event(&mut self) -> Result<Option<RawEvent>, EventReadError> {
        if self.done {
            return Ok(None);
        }
        if !self.probed && self.format == EventFormat::Jsonl {
            self.probe().inspect_err(|_| self.done = true)?;
        }
        loop {
            let next = match self.next_line() {
                Err(EventReadError::LineTooLong { file, line, max }) => {
                    match self.cut_line_run() {
                        // The run of the cut line is known: that run gets an Error record,
                        // the lines after the cut are read on.
                        Ok(Some(run)) => {
                            self.line += 1;
                            let line = self.line;
                            return Ok(Some(self.event(
                                line,
                                Some(run),
                                Err(EventError::LineTooLong(max)),
                            )));
                        }
                        // Unknown: the file is not read further, and no run it could belong
                        // to gets a verdict (see [`super::lost`]).
                        _ => {
                            self.done = true;
                            return Err(EventReadError::LineTooLong { file, line, max });
                        }
                    }
                }
                other => other,
            };
            let Some(mut text) = next.inspect_err(|_| self.done = true)? else {
                self.done = true;
                return Ok(None);
            };
            let line = self.line;
            if let Some(why) = self.bad_utf8.take() {
                // The run is known only when its id holds no replaced byte.
                let run = match self.format {
                    EventFormat::Jsonl => bad_line_run(&text, &self.opts),
                    EventFormat::Csv => None,
                }
                .filter(|r| !r.contains('\u{FFFD}'));
                return Ok(Some(self.event(
                    line,
                    run,
                    Err(EventError::Unreadable(why)),
                )));
            }
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
                        match csv_columns(&fields, &self.opts) {
                            Ok(cols) => self.columns = Some(cols),
                            Err((field, role, present)) => {
                                self.done = true;
                                return Err(self.absent(&field, role, present, 0));
                            }
                        }
                        continue;
                    };
                    let (run, body) = csv_event(&fields, &cols, &self.opts);
                    return Ok(Some(self.event(line, run, body)));
                }
            }
        }
    }
}
