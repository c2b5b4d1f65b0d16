//! One event as read: how events are read (options, formats), its fields, and what can be
//! wrong with it (a bad event, a file that cannot be read, a fatal error of grouping).

use super::key::{OrderKey, OrderKeyError};
use std::fmt;
use std::path::Path;

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
    /// The format named `jsonl` or `csv` (as `--events-format` takes them).
    pub fn from_name(name: &str) -> Option<EventFormat> {
        match name {
            "jsonl" => Some(EventFormat::Jsonl),
            "csv" => Some(EventFormat::Csv),
            _ => None,
        }
    }

    /// The format a file name says: `.csv` (also `.csv.gz`, `.csv.zst`) is CSV, anything else
    /// JSON Lines.
    pub fn of_path(path: &Path) -> EventFormat {
        // The extension before `.gz`/`.zst` for a compressed file (`events.csv.gz`).
        match crate::input::content_extension(path) {
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
            max_line_bytes: crate::input::DEFAULT_MAX_LINE_BYTES,
        }
    }
}

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
    /// An action that is not a letter of the model, with the closest letter when one is
    /// close ("did you mean").
    UnknownAction(String, Option<String>),
    /// The run's order keys mix timestamps and numbers.
    MixedKeys,
    /// A line longer than the limit (`--max-line-bytes`, in bytes): its event is not known,
    /// so its run gets no verdict.
    LineTooLong(u64),
    /// The event's line cannot be read (why, without the place), though its run is known:
    /// the run's events there are lost, so it gets no verdict.
    Unreadable(String),
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
            EventError::UnknownAction(action, closest) => {
                write!(f, "unknown action {action:?}: not a letter of the model")?;
                match closest {
                    Some(c) => write!(f, "; did you mean `{c}`?"),
                    None => Ok(()),
                }
            }
            EventError::MixedKeys => f.write_str(
                "this run mixes timestamps and numbers as order keys, which cannot be compared",
            ),
            EventError::LineTooLong(max) => write!(
                f,
                "line longer than {max} bytes (--max-line-bytes): its event is not read, so \
                 this run gets no verdict; raise --max-line-bytes"
            ),
            EventError::Unreadable(why) => write!(
                f,
                "its line cannot be read ({why}), so this run's events there are lost and it \
                 gets no verdict; mend or remove the line and check again"
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
    /// None of the first events has a field (its name is wrong): one error, not one per event.
    FieldAbsent {
        /// The file.
        file: String,
        /// The field's name as given.
        field: String,
        /// Which field.
        role: Field,
        /// The field names the first events have (or the CSV header's).
        present: Vec<String>,
        /// Events looked at (0: a CSV header).
        events: usize,
    },
}

impl fmt::Display for EventReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EventReadError::Io { file, error } => write!(f, "{file}: cannot read: {error}"),
            EventReadError::LineTooLong { file, line, max } => write!(
                f,
                "{file}:{line}: line longer than {max} bytes (--max-line-bytes), whose run is not \
                 known; the rest of the file is not read, and no run it could belong to gets a verdict"
            ),
            EventReadError::FieldAbsent {
                file,
                field,
                role,
                present,
                events,
            } => {
                let names: Vec<String> = present.iter().map(|p| format!("{p:?}")).collect();
                let seen = match events {
                    0 => "the header has the fields".to_string(),
                    1 => "the first event has the fields".to_string(),
                    n => format!("the first {n} events have the fields"),
                };
                write!(
                    f,
                    "{file}: no event has the field {field:?} (the {}): {seen} {}; {}give the \
                     right name with --{}-field; the file is not read",
                    role.what(),
                    names.join(", "),
                    multitrace_model::suggest::did_you_mean(
                        field,
                        present.iter().map(String::as_str)
                    ),
                    role.option()
                )
            }
        }
    }
}

impl std::error::Error for EventReadError {}

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
