//! What a `check` reads, each kind on its own path to one record per multitrace: trace files
//! and JSON Lines ([`Batch::run`]), event logs grouped by run ([`crate::events::run_events`]),
//! XES logs and OpenTelemetry spans (their runs, [`crate::events::check_runs`]).

use crate::events::{check_runs, run_events};
use crate::{Batch, Outcome, RunError};
use multitrace_formats::events::{EventFormat, EventOptions, EventsError};
use multitrace_formats::input::is_streamed;
use multitrace_formats::xes::{read_xes_runs, XesOptions};
use std::fmt;
use std::path::PathBuf;

/// The inputs of a check.
pub enum Inputs {
    /// Trace files (`.htf`, `.mtf`, JSON Lines), listed (directories walked) beforehand.
    Traces(Vec<PathBuf>),
    /// Event logs (JSON Lines or CSV, one event per line), grouped by run.
    Events(Vec<PathBuf>, EventOptions),
    /// XES event logs, one run per trace.
    Xes(Vec<PathBuf>, XesOptions),
    /// OpenTelemetry spans, one run per trace.
    #[cfg(feature = "otel")]
    Otel(Vec<PathBuf>, multitrace_formats::otel::OtelMap),
}

impl Inputs {
    /// Whether the inputs are one task: one trace file that is not JSON Lines (checked on the
    /// calling thread, with no worker started).
    pub fn one_task(&self) -> bool {
        matches!(self, Inputs::Traces(files) if files.len() == 1 && !is_streamed(&files[0]))
    }
}

// The struct's documentation is for rustdoc only (`cfg(doc)`): clap would make a doc comment
// the `about` of the (deferred) subcommand that flattens it. Its fields' docs are the help.
#[cfg_attr(
    doc,
    doc = "The inputs of a check other than multitrace files, as a command line names them: event"
)]
#[cfg_attr(
    doc,
    doc = "logs, XES logs or OpenTelemetry spans and the fields they are read by (with the `clap`"
)]
#[cfg_attr(
    doc,
    doc = "feature, `check`'s arguments); [`InputArgs::inputs`] makes them [`Inputs`]."
)]
#[cfg_attr(not(doc), allow(missing_docs))]
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct InputArgs {
    /// Event logs instead of multitraces (JSON Lines or CSV, `-`: standard input).
    ///
    /// Events are grouped by run, each location's events sorted by order key (the location of
    /// an action comes from the model); one record per run.
    #[cfg_attr(feature = "clap", arg(long, value_name = "FILE", num_args = 1.., conflicts_with = "traces", help_heading = "Input"))]
    pub events: Vec<PathBuf>,
    /// XES event logs (IEEE 1849, `.xes` or `.xes.gz`) instead of multitraces: a trace is a
    /// run; the action is the event's concept:name (--action-field), the order its
    /// time:timestamp (--order-field; `document`: the order in the trace).
    #[cfg_attr(feature = "clap", arg(long, value_name = "FILE", num_args = 1.., conflicts_with_all = ["traces", "events"], help_heading = "Input"))]
    pub xes: Vec<PathBuf>,
    /// OpenTelemetry spans instead of multitraces: OTLP JSON (the Collector's file exporter,
    /// one ExportTraceServiceRequest per line) or OTLP protobuf. service.name is the
    /// lifeline, the span kind says emission or reception, the trace is the run.
    #[cfg_attr(feature = "clap", arg(long, value_name = "FILE", num_args = 1.., conflicts_with_all = ["traces", "events", "xes"], help_heading = "Input"))]
    pub otel: Vec<PathBuf>,
    /// --otel: a mapping file overriding the rules (`lifeline = ATTR`, `run = ATTR`,
    /// `message = ATTR`, `reply_suffix = TEXT`).
    #[cfg_attr(
        feature = "clap",
        arg(long, value_name = "FILE", requires = "otel", help_heading = "Input")
    )]
    pub otel_map: Option<PathBuf>,
    /// --xes: the event attribute naming the lifeline of actions written `!m` or `?m` (e.g.
    /// org:resource).
    #[cfg_attr(
        feature = "clap",
        arg(long, value_name = "KEY", help_heading = "Input")
    )]
    pub lifeline_field: Option<String>,
    /// --events: the field holding the run id.
    #[cfg_attr(
        feature = "clap",
        arg(long, value_name = "F", default_value = "run", help_heading = "Input")
    )]
    pub run_field: String,
    /// --events: the field holding the action (or automaton letter).
    #[cfg_attr(
        feature = "clap",
        arg(
            long,
            value_name = "F",
            default_value = "action",
            help_heading = "Input"
        )
    )]
    pub action_field: String,
    /// --events: the field holding the order key (integer, number or RFC 3339 timestamp).
    #[cfg_attr(
        feature = "clap",
        arg(
            long,
            value_name = "F",
            default_value = "order",
            help_heading = "Input"
        )
    )]
    pub order_field: String,
    /// --events: the format of every file (default: .csv is CSV, anything else JSON Lines).
    #[cfg_attr(feature = "clap", arg(long, value_parser = ["jsonl", "csv"], help_heading = "Input"))]
    pub events_format: Option<String>,
    /// --events: the events of a run are contiguous (sorted by run): stream, one run in memory.
    #[cfg_attr(feature = "clap", arg(long, help_heading = "Input"))]
    pub events_sorted: bool,
}

impl Default for InputArgs {
    /// No inputs but multitrace files; the fields `run`, `action` and `order` (the command
    /// line's defaults).
    fn default() -> Self {
        InputArgs {
            events: Vec::new(),
            xes: Vec::new(),
            otel: Vec::new(),
            otel_map: None,
            lifeline_field: None,
            run_field: "run".into(),
            action_field: "action".into(),
            order_field: "order".into(),
            events_format: None,
            events_sorted: false,
        }
    }
}

/// Why `--otel` is refused by a build without the `otel` feature.
pub const OTEL_MISSING: &str = "--otel: this build of multitrace lacks OpenTelemetry support (the `otel` cargo feature); rebuild with default features (`cargo install multitrace`) or `--features otel`";

/// Why [`InputArgs::inputs`] cannot make the inputs.
#[derive(Debug)]
pub enum InputArgsError {
    /// The `--otel-map` file cannot be read or parsed.
    OtelMap(multitrace_model::syntax::ModelError),
    /// `--otel` given to a build without the `otel` feature ([`OTEL_MISSING`]).
    NoOtel,
}

impl fmt::Display for InputArgsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputArgsError::OtelMap(e) => e.fmt(f),
            InputArgsError::NoOtel => f.write_str(OTEL_MISSING),
        }
    }
}

impl std::error::Error for InputArgsError {
    // Transparent, as the errors it holds.
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            InputArgsError::OtelMap(e) => e.source(),
            InputArgsError::NoOtel => None,
        }
    }
}

impl InputArgs {
    /// Whether only multitrace files are checked (no event, XES or OTel input).
    pub fn traces_only(&self) -> bool {
        self.events.is_empty() && self.xes.is_empty() && self.otel.is_empty()
    }

    /// The inputs these arguments name, else `files` (the multitrace files listed);
    /// `max_buffered_events` bounds the events held, `max_line_bytes` a line of an event log.
    pub fn inputs(
        &self,
        files: Vec<PathBuf>,
        max_buffered_events: usize,
        max_line_bytes: u64,
    ) -> Result<Inputs, InputArgsError> {
        if !self.otel.is_empty() {
            return self.otel_inputs(max_buffered_events);
        }
        if !self.xes.is_empty() {
            // The --events field options name XES attributes, with XES's defaults.
            let opts = XesOptions::from_event_fields(
                &self.action_field,
                self.lifeline_field.as_deref(),
                &self.order_field,
                max_buffered_events,
            );
            return Ok(Inputs::Xes(self.xes.clone(), opts));
        }
        if self.events.is_empty() {
            return Ok(Inputs::Traces(files));
        }
        let opts = EventOptions {
            run_field: self.run_field.clone(),
            action_field: self.action_field.clone(),
            order_field: self.order_field.clone(),
            format: self
                .events_format
                .as_deref()
                .and_then(EventFormat::from_name),
            sorted: self.events_sorted,
            max_buffered_events,
            max_line_bytes,
        };
        Ok(Inputs::Events(self.events.clone(), opts))
    }

    /// `--otel`: the spans of the files, mapped by the default rules or `--otel-map`'s.
    #[cfg(feature = "otel")]
    fn otel_inputs(&self, max_buffered_events: usize) -> Result<Inputs, InputArgsError> {
        let map = multitrace_formats::otel::read_otel_map(self.otel_map.as_deref());
        let mut map = map.map_err(InputArgsError::OtelMap)?;
        map.max_events = max_buffered_events;
        Ok(Inputs::Otel(self.otel.clone(), map))
    }

    /// `--otel` without the `otel` feature: refused.
    #[cfg(not(feature = "otel"))]
    fn otel_inputs(&self, _max_buffered_events: usize) -> Result<Inputs, InputArgsError> {
        Err(InputArgsError::NoOtel)
    }
}

/// Why a check of inputs stopped.
#[derive(Debug)]
pub enum InputsError<E> {
    /// The event logs cannot be grouped (a file that cannot be read, a missing field).
    Events(EventsError),
    /// The batch stopped (the sink's error, or a worker's).
    Run(RunError<E>),
}

impl<E: fmt::Display> fmt::Display for InputsError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputsError::Events(e) => e.fmt(f),
            InputsError::Run(e) => e.fmt(f),
        }
    }
}

impl<E: fmt::Debug + fmt::Display> std::error::Error for InputsError<E> {}

impl Batch<'_> {
    /// Checks `inputs` and hands one record per multitrace (or run) to `sink`, in input order.
    pub fn run_inputs<E>(
        &self,
        inputs: Inputs,
        sink: impl FnMut(Outcome) -> Result<(), E>,
    ) -> Result<(), InputsError<E>> {
        let alphabet = &self.engine().model().alphabet;
        match inputs {
            Inputs::Traces(files) => self.run(files, sink).map_err(InputsError::Run),
            Inputs::Events(files, opts) => match run_events(self, &files, &opts, sink) {
                Ok(Err(e)) => Err(InputsError::Events(e)),
                Ok(Ok(_)) => Ok(()),
                Err(e) => Err(InputsError::Run(e)),
            },
            Inputs::Xes(files, opts) => {
                let runs = read_xes_runs(alphabet, &files, &opts);
                check_runs(self, runs, sink)
                    .map(|_| ())
                    .map_err(InputsError::Run)
            }
            #[cfg(feature = "otel")]
            Inputs::Otel(files, map) => {
                let runs = multitrace_formats::otel::read_otel_runs(alphabet, &files, &map);
                check_runs(self, runs.into_iter(), sink)
                    .map(|_| ())
                    .map_err(InputsError::Run)
            }
        }
    }
}
