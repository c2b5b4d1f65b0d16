//! `multitrace check`: loads (or compiles) the model once, then checks every multitrace on the
//! runtime's batch API ([`multitrace_runtime::batch`]: parallel, streamed, bounded memory,
//! records in input order) and prints the records, the summary and the `--expect` report.
//!
//! This module maps the arguments, prints and chooses the exit status; reading inputs and
//! checking them is the library's.

use crate::{CheckArgs, ColorArg, FormatArg, ProcedureArg};
use anyhow::{bail, Result};
use multitrace_analysis::expect::ExpectCheck;
use multitrace_runtime::batch::{
    collect_traces, Batch, BatchOptions, Outcome, RunError, DEFAULT_WINDOW_PER_JOB,
};
use multitrace_runtime::check::settings::Settings;
use multitrace_runtime::check::{Choice, Engine, Procedure};
use multitrace_runtime::record::Record;
use multitrace_runtime::tally::{fallback_note, NothingChecked, ProgressLine, Tally};
use multitrace_runtime::verdict::VerdictKind;
use std::io::{IsTerminal, Write};
use std::sync::Mutex;

/// Runs `check`; returns the exit status.
pub fn check(args: CheckArgs) -> Result<u8> {
    if args.jobs == Some(0) {
        bail!("--jobs 0: at least one worker thread is needed; give --jobs N with N >= 1, or leave it out for one per core");
    }
    let model = crate::model_cmd::load(&args.model, &args.model_args)?;
    let mode = args.mode.mode();
    let mut expect = match &args.expect {
        Some(path) => Some(ExpectCheck::read(path, mode)?),
        None => None,
    };
    let files = collect_traces(&args.traces, &mut |note| {
        eprintln!("multitrace: note: {note}")
    })?;
    let opts = Settings {
        mode,
        choice: match args.procedure {
            ProcedureArg::Auto => Choice::Auto,
            ProcedureArg::Ac => Choice::Force(Procedure::Ac),
            ProcedureArg::As => Choice::Force(Procedure::As),
            ProcedureArg::Term => Choice::Force(Procedure::Term),
        },
        witness: args.witness,
        timeout_ms: args.timeout_ms,
        max_vertices: args.max_vertices,
        diagnosis: !args.no_diagnosis,
        max_diagnosis_vertices: args.max_diagnosis_vertices,
        por: !args.no_por,
        loc: !args.no_loc,
        memo: !args.no_memo,
    }
    .check_options();
    let engine = Engine::new(model);
    let jobs = args
        .jobs
        .unwrap_or_else(multitrace_runtime::batch::default_jobs);
    let options = BatchOptions {
        jobs,
        max_line_bytes: args.max_line_bytes,
        window_per_job: DEFAULT_WINDOW_PER_JOB,
    };
    let progress = Mutex::new(
        (!args.no_progress && std::io::stderr().is_terminal()).then(ProgressLine::default),
    );
    // main() runs every command on a thread with the checking stack: a batch of one task runs
    // right here and starts no worker (most of a one-multitrace check's start-up).
    let batch = Batch::new(&engine, opts, options)
        .with_caller_stack()
        .with_progress(|p| {
            let mut bar = progress.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(line) = bar.as_mut().and_then(|b| b.tick(p.done, p.total)) {
                eprint!("\r{line}");
            }
        });
    // A procedure that cannot run on this model is a usage error, before any trace is read.
    if let Err(e) = batch.validate() {
        bail!("{e}");
    }
    let stdout = std::io::stdout();
    let color = match args.color {
        ColorArg::Always => true,
        ColorArg::Never => false,
        ColorArg::Auto => {
            std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && stdout.is_terminal()
        }
    };
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut tally = Tally::default();
    let model_name = args.model.display().to_string();
    let mut report = crate::report_cmd::open(&args, &batch)?;
    let sink = |done: Outcome| {
        if done.fallback && tally.fallbacks() == 0 {
            eprintln!(
                "multitrace: note: {}",
                fallback_note(&done.record, &model_name)
            );
        }
        tally.add(&done.record, done.fallback);
        if let Some(m) = expect.as_mut().and_then(|c| c.check(&done.record)) {
            eprintln!("multitrace: {m}");
        }
        if let Some(r) = &mut report {
            r.add(&done.record).map_err(std::io::Error::other)?;
        }
        print_record(&mut out, &done.record, args.format, args.quiet, color)
    };
    // --events: event logs grouped by run (multitrace_runtime::events), one record per run.
    let run = if !args.otel.is_empty() {
        use multitrace_runtime::formats::otel::{parse_otel_map, read_otel_runs, OtelMap};
        let mut map = match &args.otel_map {
            Some(p) => {
                let text = multitrace_runtime::syntax::read_text(p)?;
                parse_otel_map(&p.display().to_string(), &text)?
            }
            None => OtelMap::default(),
        };
        map.max_events = args.max_buffered_events;
        let runs = read_otel_runs(&batch.engine().model().alphabet, &args.otel, &map);
        multitrace_runtime::events::check_runs(&batch, runs.into_iter(), sink).map(|_| ())
    } else if !args.xes.is_empty() {
        use multitrace_runtime::formats::xes::{read_xes_runs, XesOptions, XesOrder};
        // The --events field options name XES attributes, with XES's defaults.
        let opts = XesOptions {
            action_key: match args.action_field.as_str() {
                "action" => "concept:name".to_string(),
                k => k.to_string(),
            },
            lifeline_key: args.lifeline_field.clone(),
            order: match args.order_field.as_str() {
                "order" => XesOrder::Key("time:timestamp".into()),
                "document" => XesOrder::Document,
                k => XesOrder::Key(k.to_string()),
            },
            max_trace_events: args.max_buffered_events,
        };
        let runs = read_xes_runs(&batch.engine().model().alphabet, &args.xes, &opts);
        multitrace_runtime::events::check_runs(&batch, runs, sink).map(|_| ())
    } else if args.events.is_empty() {
        batch.run(files, sink)
    } else {
        use multitrace_runtime::events::{run_events, EventFormat, EventOptions};
        let opts = EventOptions {
            run_field: args.run_field.clone(),
            action_field: args.action_field.clone(),
            order_field: args.order_field.clone(),
            format: args.events_format.as_deref().map(|f| match f {
                "csv" => EventFormat::Csv,
                _ => EventFormat::Jsonl,
            }),
            sorted: args.events_sorted,
            max_buffered_events: args.max_buffered_events,
            max_line_bytes: args.max_line_bytes,
        };
        match run_events(&batch, &args.events, &opts, sink) {
            Ok(Err(e)) => bail!("{e}"),
            Ok(Ok(_)) => Ok(()),
            Err(e) => Err(e),
        }
    };
    let clear = progress
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .as_ref()
        .and_then(ProgressLine::clear);
    eprint!("{}", clear.unwrap_or_default());
    match run {
        Ok(()) => {}
        Err(RunError::Sink(e)) => return Err(e.into()),
        Err(e) => bail!("{e}"),
    }
    if tally.count() == 0 {
        let inputs = args.traces.iter().chain(&args.events).chain(&args.xes);
        let inputs = inputs.chain(&args.otel);
        let inputs = inputs.map(|p| p.display().to_string()).collect();
        return Err(NothingChecked { inputs }.into());
    }
    if args.format == FormatArg::Text {
        writeln!(out, "{}", tally.line())?;
    }
    out.flush()?;
    crate::report_cmd::finish(report, &batch)?;
    let mut code = tally.exit_code();
    if let Some(c) = &expect {
        eprintln!("multitrace: {}", c.report());
        if c.failed() && code != 2 {
            code = 1;
        }
    }
    Ok(code)
}

fn print_record(
    out: &mut impl Write,
    rec: &Record,
    format: FormatArg,
    quiet: bool,
    color: bool,
) -> std::io::Result<()> {
    let kind = rec.verdict_kind();
    if let Some(e) = &rec.error {
        // Also where scripts look for input errors (the record keeps the stream complete).
        eprintln!("multitrace: {}", e.message);
    }
    if quiet && matches!(kind, Some(VerdictKind::Pass | VerdictKind::WeakPass)) {
        return Ok(());
    }
    match format {
        FormatArg::Jsonl => writeln!(out, "{}", rec.to_json()),
        FormatArg::Text => {
            let line = rec.text_line();
            if color {
                // The verdict word only: green, yellow, red, magenta; errors bold red.
                let code = match kind {
                    Some(VerdictKind::Pass) => "32",
                    Some(VerdictKind::WeakPass) => "33",
                    Some(VerdictKind::Fail) => "31",
                    Some(VerdictKind::Inconclusive) => "35",
                    None => "1;31",
                };
                let name = rec.name();
                let rest = &line[name.len() + 2 + rec.verdict.len()..];
                writeln!(out, "{name}: \x1b[{code}m{}\x1b[0m{rest}", rec.verdict)?;
            } else {
                writeln!(out, "{line}")?;
            }
            if let Some(w) = &rec.witness {
                writeln!(out, "  witness: {}", w.join(" "))?;
            }
            Ok(())
        }
    }
}
