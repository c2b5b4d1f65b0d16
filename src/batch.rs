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
use multitrace_runtime::tally::{fallback_note, NothingChecked, Tally};
use multitrace_runtime::verdict::VerdictKind;
use std::io::{IsTerminal, Write};

/// Runs `check` on a thread with the checking stack; returns the exit status.
pub fn check(args: CheckArgs) -> Result<u8> {
    check_on(args, false)
}

/// Runs `check` of a compiled model (`.mtm`) on the process's main thread, whose stack is
/// smaller than the checking stack: loading a compiled model does not recurse deeply (its
/// validation refuses the term shapes that would), the automata procedures do not recurse,
/// and term exploration moves to a thread of its own
/// ([`multitrace_runtime::check::stack`]); a term-only model, which every check explores, is
/// checked on one thread with the checking stack. A one-multitrace check then starts no
/// thread (0.07 ms of its start-up).
pub fn check_on_main(args: CheckArgs) -> Result<u8> {
    check_on(args, true)
}

fn check_on(args: CheckArgs, main_thread: bool) -> Result<u8> {
    if args.jobs == Some(0) {
        bail!("--jobs 0: at least one worker thread is needed; give --jobs N with N >= 1, or leave it out for one per core");
    }
    if !args.otel.is_empty() && !cfg!(feature = "otel") {
        bail!("{OTEL_MISSING}");
    }
    // Every output is checked writable before the model or a trace is read.
    if let Some(report) = &args.report {
        multitrace_runtime::output::check_writable(report, "--report")?;
    }
    let model = crate::model_cmd::load(&args.model, &args.model_args)?;
    if main_thread && model.automata().is_none() {
        let stack = multitrace_runtime::check::explore::CHECK_STACK_SIZE;
        return std::thread::scope(|scope| {
            let worker = std::thread::Builder::new().stack_size(stack);
            match worker.spawn_scoped(scope, || check_model(args, model)) {
                Ok(h) => h.join().unwrap_or_else(|_| Err(crate::thread_panicked())),
                Err(e) => Err(anyhow::anyhow!("cannot start: {e}")),
            }
        });
    }
    if main_thread {
        multitrace_runtime::check::stack::mark_small_stack();
    }
    check_model(args, model)
}

/// `check` once the model is loaded.
fn check_model(args: CheckArgs, model: multitrace_runtime::model::CompiledModel) -> Result<u8> {
    let mode = args.mode.mode();
    let mut expect = match &args.expect {
        Some(path) => Some(ExpectCheck::read(path, mode)?),
        None => None,
    };
    let files = collect_traces(&args.traces, &mut |note| {
        eprintln!("multitrace: note: {note}")
    })?;
    if let Some(report) = &args.report {
        // The report must not replace the model, a trace, or any other input.
        let mut inputs: Vec<&std::path::Path> = vec![args.model.as_path()];
        inputs.extend(files.iter().map(|p| p.as_path()));
        inputs.extend(args.traces.iter().map(|p| p.as_path()));
        inputs.extend(args.expect.as_deref());
        inputs.extend(args.events.iter().map(|p| p.as_path()));
        multitrace_runtime::output::refuse_overwrite(report, &inputs)?;
    }
    // One trace file that is not JSON Lines is one task, run on this thread: the core count
    // is then not needed (it is read for the memory budget's default, and only when a search
    // grows past 64 MiB: `DEFERRED_MEMORY`). Reading it and the memory size costs a
    // one-multitrace check 0.07 ms.
    let one_task = args.events.is_empty()
        && args.xes.is_empty()
        && args.otel.is_empty()
        && files.len() == 1
        && !multitrace_runtime::batch::is_streamed(&files[0]);
    let jobs = args.jobs.unwrap_or_else(|| {
        if one_task {
            1
        } else {
            multitrace_runtime::batch::default_jobs()
        }
    });
    // Without --jobs the default memory budget is the runtime's own default, deferred.
    let max_memory_mb = args.max_memory.or_else(|| {
        args.jobs
            .map(|j| multitrace_runtime::budget::default_max_memory(j) >> 20)
    });
    let mut opts = Settings {
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
        max_memory_mb: max_memory_mb.unwrap_or(0),
        diagnosis: !args.no_diagnosis,
        max_diagnosis_vertices: args.max_diagnosis_vertices,
        por: !args.no_por,
        loc: !args.no_loc,
        memo: !args.no_memo,
    }
    .check_options();
    if max_memory_mb.is_none() {
        let deferred = Some(multitrace_runtime::budget::DEFERRED_MEMORY);
        opts.budget.max_memory = deferred;
        opts.explore.budget.max_memory = deferred;
        if let Some(d) = &mut opts.diagnosis {
            d.max_memory = deferred;
        }
    }
    let engine = Engine::new(model);
    let options = BatchOptions {
        jobs,
        max_line_bytes: args.max_line_bytes,
        window_per_job: DEFAULT_WINDOW_PER_JOB,
    };
    let progress = crate::progress::Progress::new(!args.no_progress);
    let progress_shown = progress.shown();
    // This thread has the checking stack, or is marked (`check_on_main`): a batch of one task
    // runs right here and starts no worker (most of a one-multitrace check's start-up).
    let batch = Batch::new(&engine, opts, options)
        .with_caller_stack()
        .with_progress(|p| progress.tick(p.done, p.total));
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
    // An input error is shown once: on standard error when standard output goes elsewhere (a
    // file, a pipe), else the record on the terminal says it.
    let echo_errors = !stdout.is_terminal();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut tally = Tally::default();
    tally.start();
    let model_name = args.model.display().to_string();
    let mut report = crate::report_cmd::open(&args, &batch)?;
    // Said once, at the first error that lists the declared names of the signature.
    let mut signature_note =
        multitrace_compiler::open::signature_note(&args.model, &args.model_args.options());
    let sink = |done: Outcome| {
        if crate::report_cmd::interrupted() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::Interrupted,
                "interrupted",
            ));
        }
        if done.fallback && tally.fallbacks() == 0 {
            eprintln!(
                "multitrace: note: {}",
                fallback_note(&done.record, &model_name)
            );
        }
        tally.add(&done.record, done.fallback);
        if let Some(e) = &done.record.error {
            if e.message.contains("; declared ") || e.message.contains("declared lifelines") {
                if let Some(n) = signature_note.take() {
                    eprintln!("multitrace: note: {n}");
                }
            }
        }
        if let Some(m) = expect.as_mut().and_then(|c| c.check(&done.record)) {
            eprintln!("multitrace: {m}");
        }
        if let Some(r) = &mut report {
            r.add(&done.record).map_err(std::io::Error::other)?;
        }
        // With the bar cleared, and flushed at once: a record never lands on the bar's line.
        progress.suspend(|| {
            print_record(
                &mut out,
                &done.record,
                args.format,
                args.quiet,
                color,
                echo_errors,
            )?;
            if progress_shown {
                out.flush()?;
            }
            Ok::<(), std::io::Error>(())
        })
    };
    // --events: event logs grouped by run (multitrace_runtime::events), one record per run.
    let run = if !args.otel.is_empty() {
        check_otel(&args, &batch, sink)?
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
    progress.clear();
    if crate::report_cmd::interrupted() {
        // The records printed are whole; the report's temporary file goes with `report`.
        out.flush()?;
        drop(report);
        eprintln!("multitrace: interrupted: the report was not written");
        return Ok(130);
    }
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
    Ok(match &expect {
        Some(c) => {
            eprintln!("multitrace: {}", c.report());
            c.exit_code(&tally)
        }
        None => tally.exit_code(),
    })
}

/// Why `--otel` is refused by a build without the `otel` feature.
pub(crate) const OTEL_MISSING: &str = "--otel: this build of multitrace lacks OpenTelemetry support (the `otel` cargo feature); rebuild with default features (`cargo install multitrace`) or `--features otel`";

/// `--otel`: the spans of the files, mapped to events and checked one run at a time.
#[cfg(feature = "otel")]
fn check_otel<E>(
    args: &CheckArgs,
    batch: &Batch<'_>,
    sink: impl FnMut(Outcome) -> Result<(), E>,
) -> Result<Result<(), RunError<E>>> {
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
    Ok(multitrace_runtime::events::check_runs(batch, runs.into_iter(), sink).map(|_| ()))
}

/// `--otel` without the `otel` feature: refused (before any work, in [`check`]).
#[cfg(not(feature = "otel"))]
fn check_otel<E>(
    _args: &CheckArgs,
    _batch: &Batch<'_>,
    _sink: impl FnMut(Outcome) -> Result<(), E>,
) -> Result<Result<(), RunError<E>>> {
    bail!("{OTEL_MISSING}")
}

fn print_record(
    out: &mut impl Write,
    rec: &Record,
    format: FormatArg,
    quiet: bool,
    color: bool,
    echo_errors: bool,
) -> std::io::Result<()> {
    let kind = rec.verdict_kind();
    if let Some(e) = rec.error.as_ref().filter(|_| echo_errors) {
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
