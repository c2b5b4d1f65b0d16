//! `multitrace monitor`: live verdicts on event streams (the runtime's
//! [`multitrace_monitor`]); this module parses arguments, polls the sources, prints
//! records and writes checkpoints.

use crate::args::{load, FormatArg, ProcedureArg};
use anyhow::{bail, Result};
use clap::Args;
use multitrace_check::Engine;
use multitrace_compiler::open::ModelOptions;
use multitrace_formats::events::{EventFormat, EventOptions};
use multitrace_formats::output::{check_writable, check_writable_dir, refuse_overwrite};
use multitrace_model::verdict::Mode;
use multitrace_monitor::drive::{drive, otel_map, parse_duration, parse_window, Arrival};
use multitrace_monitor::drive::{live_check_options, DriveOptions, LineFormat, Start, Status};
use multitrace_monitor::receive::{Endpoints, Inbox, Limits};
use multitrace_monitor::session::{Reorder, SessionOptions};
use multitrace_monitor::{Monitor, MonitorOptions};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

// Arguments of `monitor` (a plain comment: see `Command`'s `defer`).
#[derive(Args)]
#[command(group(clap::ArgGroup::new("spans").multiple(true)))]
pub struct MonitorArgs {
    /// The model: an interaction (.hif), a Timbuk automaton (.timbuk) or a compiled model (.mtm).
    model: PathBuf,
    /// Event sources (JSON Lines, CSV with a header row, OTLP JSON spans with --otel): files,
    /// directories (new files are picked up), `-` for standard input (the default); followed.
    sources: Vec<PathBuf>,
    /// The format of every source (default: .csv files are CSV, anything else JSON Lines). CSV:
    /// a header row first, one record per line (no quoted field across lines when followed).
    #[arg(long, value_parser = ["jsonl", "csv"], conflicts_with = "spans", help_heading = "Input")]
    events_format: Option<String>,
    /// The field holding the run id.
    #[arg(long, value_name = "F", default_value = "run", help_heading = "Input")]
    run_field: String,
    /// The field holding the action (or automaton letter).
    #[arg(long, value_name = "F", default_value = "action", help_heading = "Input")]
    action_field: String,
    /// The field holding the order key (integer, number or RFC 3339 timestamp).
    #[arg(long, value_name = "F", default_value = "order", help_heading = "Input")]
    order_field: String,
    /// A run ends after an event with this action.
    #[arg(long, value_name = "NAME", help_heading = "Input")]
    end_action: Option<String>,
    /// A run ends after an event whose field F is true.
    #[arg(long, value_name = "F", help_heading = "Input")]
    end_field: Option<String>,
    /// A run ends after this long without events (e.g. 30s, 500ms, 2m).
    ///
    /// In event time when order keys are timestamps, else wall-clock time.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, help_heading = "Input")]
    idle_timeout: Option<Duration>,
    /// How events may arrive, and so when one is fed (the guide's "Arrival order").
    #[arg(long, value_enum, default_value = "auto", help_heading = "Input")]
    arrival: Arrival,
    /// The first position of a local trace (--arrival positions or auto).
    #[arg(long, value_name = "N", default_value_t = 0, help_heading = "Input")]
    first_position: i64,
    /// Events held per location to restore their order: N events, or a duration of order keys
    /// (5s; numbers are seconds). A later event is an Error of its run. Implies --arrival window.
    #[arg(long, value_name = "N|DURATION", value_parser = parse_window, help_heading = "Input")]
    reorder_window: Option<Reorder>,
    /// After this long without the event clock moving, it moves with the wall clock (default: the window).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, help_heading = "Input")]
    idleness: Option<Duration>,
    /// The question asked when a run ends (events are always checked as prefixes).
    #[arg(short, long, value_enum, default_value = "prefix", help_heading = "Checking")]
    mode: Mode,
    /// Check procedure.
    #[arg(short, long, value_enum, default_value = "auto", help_heading = "Checking")]
    procedure: ProcedureArg,
    /// Output format.
    #[arg(short, long, value_enum, default_value = "text", help_heading = "Output")]
    format: FormatArg,
    /// Most live runs; past it the oldest idle run is closed (its record says so).
    #[arg(long, value_name = "N", default_value_t = 1_000_000, help_heading = "Limits")]
    max_live_runs: usize,
    /// Most product vertices of one run; past it the run is checked from its traces.
    ///
    /// Many vertices come from a location lagging far behind; past the bound a Fail may come
    /// late (its record's `monitor.late` says since when).
    #[arg(long, value_name = "N", default_value_t = multitrace_monitor::DEFAULT_MAX_LIVE_VERTICES, help_heading = "Limits")]
    max_live_vertices: usize,
    /// Read files to their end and stop (instead of following them).
    #[arg(long, help_heading = "Input")]
    no_follow: bool,
    /// The sources hold OpenTelemetry spans: OTLP JSON, one ExportTraceServiceRequest per
    /// line (the Collector's file exporter), mapped to events as `check --otel` does.
    ///
    /// service.name is the lifeline, the span kind says emission or reception, the trace is
    /// the run, span timestamps order each service's events (the events of one line are
    /// taken in timestamp order; across lines --reorder-window restores it).
    #[arg(long, group = "spans", conflicts_with_all = ["run_field", "action_field", "order_field", "end_field"], help_heading = "Input")]
    otel: bool,
    #[command(flatten)]
    otlp: Endpoints,
    /// --otel: a mapping file overriding the rules (`lifeline = ATTR`, `run = ATTR`,
    /// `message = ATTR`, `reply_suffix = TEXT`).
    #[arg(long, value_name = "FILE", requires = "spans", help_heading = "Input")]
    otel_map: Option<PathBuf>,
    /// Checkpoint directory: a restart with it goes on where the last checkpoint was.
    ///
    /// Read positions, live runs and the output length, written atomically. Needs --output,
    /// which a restart truncates to the checkpoint's length.
    #[arg(long, value_name = "DIR", requires = "output", help_heading = "Output")]
    state: Option<PathBuf>,
    /// Milliseconds between checkpoints (--state).
    #[arg(long, value_name = "MS", default_value_t = 1000, help_heading = "Output")]
    checkpoint_ms: u64,
    /// Write records to this file (appended) instead of standard output.
    #[arg(short, long, value_name = "FILE", help_heading = "Output")]
    output: Option<PathBuf>,
    /// Time budget per check in milliseconds (0: none).
    #[arg(long, default_value_t = 10_000, help_heading = "Limits")]
    timeout_ms: u64,
    /// Search-vertex budget per check (0: none).
    #[arg(long, default_value_t = 5_000_000, help_heading = "Limits")]
    max_vertices: u64,
    /// Do not diagnose failures.
    #[arg(long, help_heading = "Checking")]
    no_diagnosis: bool,
    #[command(flatten)]
    model_args: ModelOptions,
}

pub fn monitor(args: MonitorArgs) -> Result<u8> {
    // Many small live runs: memory faulted in 2 MiB pages (the allocator asks for them where
    // the system allows) is zeroed whole and compacted for, in the kernel's time: on 100,000
    // NFA12 runs 700 to 1,230 ms of it against 340 to 540 with 4 KiB pages, user time alike.
    // (Inherited by nothing we start; failing leaves the system's setting, which is correct.)
    #[cfg(target_os = "linux")]
    let _ = rustix::thread::disable_transparent_huge_pages(true);
    let spans = args.otel || args.otlp.any();
    let otel = otel_map(spans, args.otel_map.as_deref())?;
    // Outputs first, before any work: writable, and never one of the inputs (records
    // appended to a followed source would be read again as events).
    if let Some(path) = &args.output {
        check_writable(path, "--output")?;
        let inputs: Vec<&Path> =
            std::iter::once(&args.model).chain(&args.sources).map(PathBuf::as_path).collect();
        refuse_overwrite(path, &inputs)?;
    }
    args.state.as_deref().map(|dir| check_writable_dir(dir, "--state")).transpose()?;
    let model = load(&args.model, &args.model_args)?;
    let check = live_check_options(
        args.mode,
        args.procedure.choice(),
        args.timeout_ms,
        args.max_vertices,
        !args.no_diagnosis,
    );
    let engine = Engine::new(model);
    let m = Monitor::new(&engine, MonitorOptions { check, max_vertices: args.max_live_vertices })?;
    // Actions to letters by hash lookup, without allocation.
    let letters = multitrace_formats::NameIndex::new(&engine.model().alphabet);
    let end_letter = match args.end_action.as_deref().map(|a| (a, letters.letter(a))) {
        Some((a, None)) => bail!("--end-action {a}: not an action of the model"),
        given => given.and_then(|(_, l)| l),
    };
    let (reorder, parents) = (args.arrival)
        .reorder(args.first_position, args.reorder_window, spans)
        .map_err(anyhow::Error::msg)?;
    let sopts = SessionOptions {
        end_letter,
        idle_timeout: args.idle_timeout,
        reorder,
        idleness: args.idleness,
        max_live_runs: args.max_live_runs,
        ..SessionOptions::default()
    };
    let (state, digest, output) =
        (args.state.as_deref(), engine.model().digest, args.output.as_deref());
    let sources = (&args.sources[..], !args.no_follow, !args.otlp.any());
    let Start { mut session, mut follower, totals, mut out, lock: _lock } =
        Start::open(state, sopts, digest, output, sources)?;
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(sig, Arc::clone(&stop))?;
    }
    let opts = DriveOptions {
        events: EventOptions {
            run_field: args.run_field.clone(),
            action_field: args.action_field.clone(),
            order_field: args.order_field.clone(),
            ..EventOptions::default()
        },
        format: args.events_format.as_deref().and_then(EventFormat::from_name),
        end_field: args.end_field.clone(),
        idle_timeout: args.idle_timeout,
        otel,
        parents,
        output: match args.format {
            FormatArg::Text => LineFormat::Text,
            FormatArg::Jsonl => LineFormat::Jsonl,
        },
        state: args.state.clone(),
        checkpoint_ms: args.checkpoint_ms,
        inbox: Inbox::listen(args.otlp, Limits::default())?,
    };
    for line in opts.inbox.iter().flat_map(Inbox::listening) {
        eprintln!("multitrace monitor: {line}");
    }
    let status = std::io::stderr().is_terminal();
    let mut show = |s: Status| eprint!("\r{}   ", s.line());
    let show: Option<&mut dyn FnMut(Status)> = if status { Some(&mut show) } else { None };
    let totals = drive(&m, &mut session, &mut follower, &mut out, &opts, &stop, totals, show)?;
    if status {
        eprintln!();
    }
    Ok(totals.exit_code())
}
