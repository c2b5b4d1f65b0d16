//! `multitrace monitor`: live verdicts on event streams (the runtime's
//! [`multitrace_runtime::monitor`]); this module parses arguments, polls the sources, prints
//! records and writes checkpoints.

use crate::{FormatArg, ModeArg, ProcedureArg};
use anyhow::{bail, Context, Result};
use clap::Args;
use multitrace_runtime::check::settings::Settings;
use multitrace_runtime::check::{Choice, Engine, Procedure};
use multitrace_runtime::events::{
    csv_columns, csv_event, jsonl_event, scan_flat_with, split_csv, EventFormat, EventOptions,
    EventReadError, FlatFields,
};
use multitrace_runtime::monitor::follow::Follower;
use multitrace_runtime::monitor::session::{
    end_flag, At, Checkpoint, Closed, Decision, LiveEvent, Reorder, Round, Session, SessionOptions,
};
use multitrace_runtime::monitor::{Monitor, MonitorOptions};
use multitrace_runtime::record::{ErrorRecord, Record};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

mod otel;

// Arguments of `monitor` (a plain comment: see `Command`'s `defer`).
#[derive(Args)]
pub struct MonitorArgs {
    /// The model: an interaction (.hif), a Timbuk automaton (.timbuk) or a compiled model (.mtm).
    model: PathBuf,
    /// Event sources (JSON Lines, CSV with a header row, OTLP JSON spans with --otel): files,
    /// directories, `-` for standard input (the default).
    ///
    /// Files are followed as they grow (like tail -F); in directories new files are picked
    /// up.
    sources: Vec<PathBuf>,
    /// The format of every source (default: .csv files are CSV, anything else JSON Lines).
    ///
    /// CSV: the first line of each file (or of standard input) is its header row; one
    /// record per line (a quoted field cannot span lines in a followed file).
    #[arg(long, value_parser = ["jsonl", "csv"], conflicts_with = "otel", help_heading = "Input")]
    events_format: Option<String>,
    /// The field holding the run id.
    #[arg(long, value_name = "F", default_value = "run", help_heading = "Input")]
    run_field: String,
    /// The field holding the action (or automaton letter).
    #[arg(
        long,
        value_name = "F",
        default_value = "action",
        help_heading = "Input"
    )]
    action_field: String,
    /// The field holding the order key (integer, number or RFC 3339 timestamp).
    #[arg(
        long,
        value_name = "F",
        default_value = "order",
        help_heading = "Input"
    )]
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
    /// Events held per location to restore their order: N events, or a duration (5s).
    ///
    /// A duration is of order keys (numbers are read as seconds); an event later than that is
    /// an Error of its run.
    #[arg(long, value_name = "N|DURATION", default_value = "0", value_parser = parse_window, help_heading = "Input")]
    reorder_window: Reorder,
    /// The question asked when a run ends (events are always checked as prefixes).
    #[arg(
        short,
        long,
        value_enum,
        default_value = "prefix",
        help_heading = "Checking"
    )]
    mode: ModeArg,
    /// Check procedure.
    #[arg(
        short,
        long,
        value_enum,
        default_value = "auto",
        help_heading = "Checking"
    )]
    procedure: ProcedureArg,
    /// Output format.
    #[arg(
        short,
        long,
        value_enum,
        default_value = "text",
        help_heading = "Output"
    )]
    format: FormatArg,
    /// Most live runs; past it the oldest idle run is closed (its record says so).
    #[arg(
        long,
        value_name = "N",
        default_value_t = 1_000_000,
        help_heading = "Limits"
    )]
    max_live_runs: usize,
    /// Most product vertices of one run; past it the run is Inconclusive.
    ///
    /// Many vertices come from a location lagging far behind the others.
    #[arg(long, value_name = "N", default_value_t = multitrace_runtime::monitor::DEFAULT_MAX_LIVE_VERTICES, help_heading = "Limits")]
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
    #[arg(long, conflicts_with_all = ["run_field", "action_field", "order_field", "end_field"], help_heading = "Input")]
    otel: bool,
    /// --otel: a mapping file overriding the rules (`lifeline = ATTR`, `run = ATTR`,
    /// `message = ATTR`, `reply_suffix = TEXT`).
    #[arg(long, value_name = "FILE", requires = "otel", help_heading = "Input")]
    otel_map: Option<PathBuf>,
    /// Checkpoint directory: a restart with it goes on where the last checkpoint was.
    ///
    /// Read positions, live runs and the output length, written atomically. Needs --output,
    /// which a restart truncates to the checkpoint's length.
    #[arg(long, value_name = "DIR", requires = "output", help_heading = "Output")]
    state: Option<PathBuf>,
    /// Milliseconds between checkpoints (--state).
    #[arg(
        long,
        value_name = "MS",
        default_value_t = 1000,
        help_heading = "Output"
    )]
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
    model_args: crate::ModelArgs,
}

fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let (num, unit) = s.split_at(
        s.find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(s.len()),
    );
    let x: f64 = num
        .parse()
        .map_err(|_| format!("`{s}` is not a duration such as 30s, 500ms or 2m"))?;
    let secs = match unit {
        "ms" => x / 1e3,
        "s" | "" => x,
        "m" => x * 60.0,
        "h" => x * 3600.0,
        _ => return Err(format!("`{s}`: unknown unit `{unit}` (ms, s, m or h)")),
    };
    Ok(Duration::from_secs_f64(secs))
}

fn parse_window(s: &str) -> Result<Reorder, String> {
    if let Ok(n) = s.trim().parse::<usize>() {
        return Ok(Reorder::Events(n));
    }
    parse_duration(s).map(|d| Reorder::Span(d.as_nanos() as u64))
}

/// Runs `monitor`; returns the exit status (0, or 1 when some run failed, 2 on bad input).
pub fn monitor(args: MonitorArgs) -> Result<u8> {
    // Many small live runs: memory faulted in 2 MiB pages (the allocator asks for them where
    // the system allows) is zeroed whole and compacted for, in the kernel's time: on 100,000
    // NFA12 runs 700 to 1,230 ms of it against 340 to 540 with 4 KiB pages, user time alike.
    // (Inherited by nothing we start; failing leaves the system's setting, which is correct.)
    #[cfg(target_os = "linux")]
    let _ = rustix::thread::disable_transparent_huge_pages(true);
    if args.otel && !cfg!(feature = "otel") {
        bail!("{}", crate::batch::OTEL_MISSING);
    }
    let otel = if args.otel {
        Some(otel::read_map(args.otel_map.as_deref())?)
    } else {
        None
    };
    // Outputs first, before any work: writable, and never one of the inputs (records
    // appended to a followed source would be read again as events).
    if let Some(path) = &args.output {
        multitrace_runtime::output::check_writable(path, "--output")?;
        let mut inputs: Vec<&Path> = vec![args.model.as_path()];
        inputs.extend(args.sources.iter().map(PathBuf::as_path));
        multitrace_runtime::output::refuse_overwrite(path, &inputs)?;
    }
    if let Some(dir) = &args.state {
        multitrace_runtime::output::check_writable_dir(dir, "--state")?;
    }
    let model = crate::model_cmd::load(&args.model, &args.model_args)?;
    let check = Settings {
        mode: args.mode.mode(),
        choice: match args.procedure {
            ProcedureArg::Auto => Choice::Auto,
            ProcedureArg::Ac => Choice::Force(Procedure::Ac),
            ProcedureArg::As => Choice::Force(Procedure::As),
            ProcedureArg::Term => Choice::Force(Procedure::Term),
        },
        witness: false,
        timeout_ms: args.timeout_ms,
        max_vertices: args.max_vertices,
        diagnosis: !args.no_diagnosis,
        max_diagnosis_vertices: 1_000_000,
        // One thread checks every live run.
        max_memory_mb: multitrace_runtime::budget::default_max_memory(1) >> 20,
        por: true,
        loc: true,
        memo: true,
    }
    .check_options();
    let engine = Engine::new(model);
    let m = Monitor::new(
        &engine,
        MonitorOptions {
            check,
            max_vertices: args.max_live_vertices,
        },
    )?;
    let alphabet = &engine.model().alphabet;
    // Actions to letters by hash lookup, without allocation.
    let letters = multitrace_runtime::formats::NameIndex::new(alphabet);
    let end_letter = match &args.end_action {
        Some(a) => match letters.letter(a) {
            Some(l) => Some(l),
            None => bail!("--end-action {a}: not an action of the model"),
        },
        None => None,
    };
    let sopts = SessionOptions {
        end_letter,
        idle_timeout: args.idle_timeout,
        reorder: args.reorder_window,
        max_live_runs: args.max_live_runs,
        ..SessionOptions::default()
    };
    // Resume from a checkpoint.
    let (mut session, positions, output_len) = match &args.state {
        Some(dir) => {
            std::fs::create_dir_all(dir).with_context(|| format!("--state {}", dir.display()))?;
            match Checkpoint::read(dir).with_context(|| format!("--state {}", dir.display()))? {
                Some(c) => (
                    Session::from_bytes(&c.session, sopts)?,
                    c.positions,
                    c.output_len,
                ),
                None => (Session::new(sopts), Vec::new(), 0),
            }
        }
        None => (Session::new(sopts), Vec::new(), 0),
    };
    let sources = if args.sources.is_empty() {
        vec![PathBuf::from("-")]
    } else {
        args.sources.clone()
    };
    let mut follower = Follower::new(&sources, !args.no_follow, &positions);
    let mut out: Box<dyn Write> = match &args.output {
        Some(path) => {
            let f = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)?;
            if args.state.is_some() {
                // Drop what was written after the last checkpoint: it is written again.
                f.set_len(output_len)?;
            }
            Box::new(std::io::BufWriter::new(f))
        }
        None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
    };
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(sig, Arc::clone(&stop))?;
    }
    let ev_opts = EventOptions {
        run_field: args.run_field.clone(),
        action_field: args.action_field.clone(),
        order_field: args.order_field.clone(),
        ..EventOptions::default()
    };
    let status = std::io::stderr().is_terminal();
    let mut scratch = engine.scratch();
    let started = Instant::now();
    let mut events = 0u64;
    let mut tally = Tally {
        written: output_len,
        ..Tally::default()
    };
    let mut last_status = Instant::now();
    let mut last_idle = Instant::now();
    let mut last_checkpoint = Instant::now();
    let mut lines = Vec::new();
    let mut decided: Vec<Decision> = Vec::new();
    // The fast path's events of a round, fed together grouped by run (the same records).
    let mut round = Round::new();
    // Records of lines with no run to give them to, keyed by the arrivals before them: a round's
    // records are written together, in the order of the events that decided them.
    let mut loose: Vec<(u64, Record)> = Vec::new();
    let mut bad = false;
    // --otel: the events of one line, and the lines' Error records (no run to give them to).
    let mut raw: Vec<otel::Raw> = Vec::new();
    // The field names, prepared once for the scan of every line.
    let fields = FlatFields::new(&args.run_field, &args.action_field, &args.order_field);
    let mut line_errors = Vec::new();
    let forced = args.events_format.as_deref().map(|f| match f {
        "csv" => EventFormat::Csv,
        _ => EventFormat::Jsonl,
    });
    // CSV sources by name: the columns of their header row.
    let mut csv = Csv::default();
    // The place of a line read (`FILE:LINE`), written for the lines the fast path does not
    // take, in one buffer for every line.
    let mut at = String::new();
    loop {
        let stopping = stop.load(Ordering::Relaxed);
        // With checkpoints, smaller rounds: a checkpoint can follow any round.
        let budget = if args.state.is_some() {
            64 << 10
        } else {
            1 << 20
        };
        let mut idle_round = true;
        let mut handed = 0;
        while !stopping && handed < budget {
            // A round is read a piece at a time, each checked as soon as it is read: the
            // kernel copies into a buffer still in the cache (on 100,000 runs a round's checks
            // evict a whole round's buffer, and the copy took a tenth of the time).
            lines.clear();
            if handed == 0 {
                follower.poll(PIECE, &mut lines);
            } else {
                follower.read(PIECE, &mut lines);
            }
            if lines.is_empty() {
                break;
            }
            idle_round = false;
            handed += lines
                .iter()
                .map(|l| l.as_ref().map_or(1, |b| b.len()))
                .sum::<usize>();
            let wall = started.elapsed().as_nanos() as u64;
            for l in &lines {
                let block = match l {
                    Ok(block) => block,
                    Err(message) => {
                        bad = true;
                        let r = Record::error(
                            String::new(),
                            None,
                            ErrorRecord::message(message.clone()),
                            Duration::ZERO,
                        );
                        tally.written += print(&mut out, &r, None, args.format)?;
                        continue;
                    }
                };
                let source = block.source();
                // A source's format is found once per block, not per line (its path's extension
                // cost a twentieth of the monitor's time).
                let is_csv = match forced {
                    Some(f) => f == EventFormat::Csv,
                    None => {
                        source != "<stdin>"
                            && EventFormat::of_path(source.as_ref()) == EventFormat::Csv
                    }
                };
                for (number, text) in block.iter() {
                    if text.chars().all(char::is_whitespace) {
                        continue;
                    }
                    if let Some(map) = &otel {
                        // (Every other path feeds the events before it first: they keep their order.)
                        session.push_round(&m, &mut scratch, &mut round, &mut decided);
                        block.place(number, &mut at);
                        // The status line counts span events, not lines.
                        events += otel::push_line(
                            otel::Line {
                                text,
                                at: &at,
                                wall,
                                map,
                            },
                            &m,
                            &mut scratch,
                            &mut session,
                            &letters,
                            &mut raw,
                            &mut line_errors,
                            &mut decided,
                        );
                        loose.extend(line_errors.drain(..).map(|r| (session.arrivals(), r)));
                        continue;
                    }
                    let (end, run, body) = if is_csv {
                        session.push_round(&m, &mut scratch, &mut round, &mut decided);
                        let Some(cols) = csv.columns(
                            source,
                            Some(number),
                            text,
                            &ev_opts,
                            &mut loose,
                            session.arrivals(),
                        ) else {
                            // The header row (or a source whose header cannot be read: one Error).
                            continue;
                        };
                        events += 1;
                        let (run, body) = match split_csv(text) {
                            Some(fields) => csv_event(&fields, &cols, &ev_opts),
                            None => (
                                None,
                                Err(multitrace_runtime::events::EventError::UnclosedQuote),
                            ),
                        };
                        let end = args
                            .end_field
                            .as_ref()
                            .is_some_and(|f| csv.end_flag(source, text, f));
                        (end, run, body)
                    } else {
                        events += 1;
                        let end = args.end_field.as_ref().is_some_and(|f| end_flag(text, f));
                        // The fast path: a flat event read in place (the full parser words what it
                        // cannot read, and reads the unusual).
                        let fast = scan_flat_with(text, &fields)
                            .and_then(|s| letters.letter(s.action).map(|l| (s, l)));
                        if let Some((s, letter)) = fast {
                            // Fed with the round's other events, grouped by run, and checked
                            // by the `settle` after this round's lines: one check per run and
                            // round (the same decisions, at the same events).
                            round.push(LiveEvent {
                                run: s.run,
                                letter,
                                key: s.order,
                                // The place as the file's index and the number: `FILE:LINE`
                                // is written only when a record names it.
                                at: At::Line {
                                    file: source,
                                    line: number,
                                },
                                wall,
                                end,
                            });
                            continue;
                        }
                        session.push_round(&m, &mut scratch, &mut round, &mut decided);
                        let (run, body) = jsonl_event(text, &ev_opts);
                        (end, run, body)
                    };
                    block.place(number, &mut at);
                    bad |= push_slow(
                        &m,
                        &mut scratch,
                        &mut session,
                        &letters,
                        &at,
                        wall,
                        end,
                        run,
                        body,
                        &mut decided,
                        &mut loose,
                    );
                }
            }
            // The blocks' buffers take the next piece's lines.
            follower.recycle(&mut lines);
        }
        let wall = started.elapsed().as_nanos() as u64;
        session.push_round(&m, &mut scratch, &mut round, &mut decided);
        session.settle(&m, &mut scratch, &mut decided);
        if args.idle_timeout.is_some() && last_idle.elapsed() > Duration::from_millis(100) {
            session.close_idle(&m, &mut scratch, wall, &mut decided);
            last_idle = Instant::now();
        }
        let finished = follower.finished();
        if stopping || finished {
            let why = if stopping {
                Closed::Stop
            } else {
                Closed::EndOfInput
            };
            // Written a part at a time: the records of every live run are never all in
            // memory at once.
            session.close_all_by(&m, &mut scratch, why, 4096, &mut decided, |decided| {
                tally.write(&mut out, &m, decided, &mut loose, args.format)
            })?;
        }
        tally.write(&mut out, &m, &mut decided, &mut loose, args.format)?;
        out.flush()?;
        if let Some(dir) = &args.state {
            if stopping
                || finished
                || last_checkpoint.elapsed() >= Duration::from_millis(args.checkpoint_ms)
            {
                Checkpoint {
                    positions: follower.positions(),
                    session: session.to_bytes(),
                    output_len: tally.written,
                }
                .write(dir)?;
                last_checkpoint = Instant::now();
            }
        }
        if status && last_status.elapsed() > Duration::from_secs(1) {
            let secs = started.elapsed().as_secs_f64().max(1e-9);
            eprint!(
                "\r{} live runs, {events} events ({:.0}/s), {} records, {} Fail   ",
                session.live_runs(),
                events as f64 / secs,
                tally.records,
                tally.fails
            );
            last_status = Instant::now();
        }
        if stopping || finished {
            break;
        }
        if idle_round {
            // 1 ms: an event that arrives on an idle input is checked within about a
            // millisecond (a poll costs a few microseconds per source).
            std::thread::sleep(Duration::from_millis(1));
        }
    }
    if status {
        eprintln!();
    }
    Ok(if bad || tally.bad {
        2
    } else if tally.fails > 0 {
        1
    } else {
        0
    })
}

/// Bytes of lines read and checked at a time within a round (about the cache a read's copy
/// and the checks of its lines share).
const PIECE: usize = 64 << 10;

/// What was written: records, Fails among them, whether any is an Error, bytes.
#[derive(Default)]
struct Tally {
    records: u64,
    fails: u64,
    bad: bool,
    written: u64,
}

impl Tally {
    /// Writes a round's records in the order of their deciding events (a run decided at once
    /// and one decided when settled keep the order of their events), then the closes, with
    /// the Error records of lines without a run where they were read; empties both lists.
    fn write(
        &mut self,
        out: &mut dyn Write,
        m: &Monitor<'_>,
        decided: &mut Vec<Decision>,
        loose: &mut Vec<(u64, Record)>,
        format: FormatArg,
    ) -> Result<()> {
        decided.sort_by_key(|d| d.arrival);
        let mut loose_records = loose.drain(..).peekable();
        for d in decided.drain(..) {
            while let Some((_, r)) = loose_records.next_if(|(k, _)| *k < d.arrival) {
                self.bad = true;
                self.written += print(out, &r, None, format)?;
            }
            self.records += 1;
            self.fails += u64::from(
                matches!(&d.verdict, Ok(v) if v.kind == multitrace_runtime::verdict::VerdictKind::Fail),
            );
            self.bad |= d.verdict.is_err();
            self.written += print(out, &d.record(m), Some(&d), format)?;
        }
        for (_, r) in loose_records {
            self.bad = true;
            self.written += print(out, &r, None, format)?;
        }
        Ok(())
    }
}

/// An event read by the full parser (JSON) or from CSV: pushed to its run, or its run's
/// Error; returns whether it had no run (an Error record of its own, in `loose`).
#[allow(clippy::too_many_arguments)]
fn push_slow(
    m: &Monitor<'_>,
    scratch: &mut multitrace_runtime::check::Scratch,
    session: &mut Session,
    letters: &multitrace_runtime::formats::NameIndex,
    at: &str,
    wall: u64,
    end: bool,
    run: Option<String>,
    body: Result<
        (String, multitrace_runtime::events::OrderKey),
        multitrace_runtime::events::EventError,
    >,
    decided: &mut Vec<Decision>,
    loose: &mut Vec<(u64, Record)>,
) -> bool {
    match (run, body) {
        // Deferred as the fast path's events are (the same decisions, at the same events).
        (Some(run), Ok((action, key))) => match letters.letter(&action) {
            Some(letter) => session.push_deferred(
                m,
                scratch,
                LiveEvent {
                    run: &run,
                    letter,
                    key,
                    at: At::Text(at),
                    wall,
                    end,
                },
                decided,
            ),
            None => {
                let e = event_error(
                    at,
                    &run,
                    &format!("unknown action {action:?}: not a letter of the model"),
                );
                session.fail_run(m, &run, at, e, decided);
            }
        },
        (Some(run), Err(e)) => {
            let e = event_error(at, &run, &e.to_string());
            session.fail_run(m, &run, at, e, decided);
        }
        (None, body) => {
            let why = body
                .err()
                .map_or("no run id".to_string(), |e| e.to_string());
            let (file, no) = split_place(at);
            let e = ErrorRecord {
                message: format!("{at}: bad event (no run): {why}"),
                file: Some(file.to_string()),
                line: no,
                column: None,
            };
            let r = Record::error(at.to_string(), None, e, Duration::ZERO);
            loose.push((session.arrivals(), r));
            return true;
        }
    }
    false
}

/// `FILE:LINE` split.
fn split_place(at: &str) -> (&str, Option<u32>) {
    at.rsplit_once(':')
        .map_or((at, None), |(f, n)| (f, n.parse().ok()))
}

/// A CSV header row: the columns of the run, the action and the order key, and its names.
type Header = ([Option<usize>; 3], Vec<String>);

/// The header rows of the CSV sources, by source name.
#[derive(Default)]
struct Csv {
    /// `None`: a header that cannot be read (the source's lines are skipped until a new
    /// first line).
    sources: std::collections::HashMap<String, Option<Header>>,
}

impl Csv {
    /// The columns for line `line_no` of `source` (`text`), or `None` when the line is the
    /// header row (line 1: a new file, also after a rotation) or the source's header is bad
    /// (its Error record, once, in `loose`). After a restart from a checkpoint the header is
    /// read from the file's first line.
    fn columns(
        &mut self,
        source: &str,
        line_no: Option<u32>,
        text: &str,
        opts: &EventOptions,
        loose: &mut Vec<(u64, Record)>,
        arrivals: u64,
    ) -> Option<[Option<usize>; 3]> {
        let header = if line_no == Some(1) {
            Some(text.to_string())
        } else if !self.sources.contains_key(source) {
            // Resumed mid-file: its header is its first line.
            let first = std::fs::File::open(source).ok().and_then(|f| {
                let mut l = String::new();
                std::io::BufRead::read_line(&mut std::io::BufReader::new(f), &mut l).ok()?;
                Some(l.trim_end_matches(['\n', '\r']).to_string())
            });
            Some(first.unwrap_or_default())
        } else {
            None
        };
        if let Some(h) = header {
            let fields = split_csv(&h).unwrap_or_default();
            let entry = match csv_columns(&fields, opts) {
                Ok(cols) => Some((cols, fields.iter().map(|f| f.trim().to_string()).collect())),
                Err((field, role, present)) => {
                    let error = EventReadError::FieldAbsent {
                        file: source.to_string(),
                        field,
                        role,
                        present,
                        events: 0,
                    };
                    let e = ErrorRecord {
                        message: error.to_string(),
                        file: Some(source.to_string()),
                        line: Some(1),
                        column: None,
                    };
                    loose.push((
                        arrivals,
                        Record::error(source.to_string(), None, e, Duration::ZERO),
                    ));
                    None
                }
            };
            self.sources.insert(source.to_string(), entry);
            if line_no == Some(1) {
                return None;
            }
        }
        self.sources.get(source)?.as_ref().map(|(c, _)| *c)
    }

    /// Whether the CSV event `text` of `source` has column `field` set to `true`.
    fn end_flag(&self, source: &str, text: &str, field: &str) -> bool {
        let Some(Some((_, names))) = self.sources.get(source) else {
            return false;
        };
        let Some(i) = names.iter().position(|n| n == field) else {
            return false;
        };
        split_csv(text)
            .and_then(|f| f.get(i).map(|v| v.trim() == "true"))
            .unwrap_or(false)
    }
}

fn event_error(at: &str, run: &str, why: &str) -> ErrorRecord {
    let (file, line) = at
        .rsplit_once(':')
        .map_or((at.to_string(), None), |(f, n)| {
            (f.to_string(), n.parse().ok())
        });
    ErrorRecord {
        message: format!("{at}: bad event of run {run:?}: {why}"),
        file: Some(file),
        line,
        column: None,
    }
}

/// Prints a record (with the monitor's additions); returns the bytes written.
fn print(out: &mut dyn Write, r: &Record, d: Option<&Decision>, format: FormatArg) -> Result<u64> {
    let line = match (format, d) {
        (FormatArg::Jsonl, Some(d)) => d.to_json(r),
        (FormatArg::Jsonl, None) => r.to_json(),
        (FormatArg::Text, Some(d)) => d.text_line(r),
        (FormatArg::Text, None) => r.text_line(),
    };
    writeln!(out, "{line}")?;
    Ok(line.len() as u64 + 1)
}
