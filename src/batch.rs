//! `multitrace check`: loads (or compiles) the model once, then checks every multitrace on the
//! runtime's batch API ([`multitrace_batch`]: parallel, streamed, bounded memory,
//! records in input order) and prints the records, the summary and the `--expect` report.
//!
//! This module maps the arguments, prints and chooses the exit status; reading inputs and
//! checking them is the library's.

use crate::args::{load, ColorArg, FormatArg};
use crate::check_args::CheckArgs;
use crate::exit::thread_panicked;
use anyhow::{bail, Result};
use multitrace_analysis::expect::ExpectCheck;
use multitrace_batch::inputs::OTEL_MISSING;
use multitrace_batch::{
    Batch, BatchOptions, InputsError, Outcome, Plan, RunError, DEFAULT_WINDOW_PER_JOB,
};
use multitrace_check::settings::Settings;
use multitrace_check::Engine;
use multitrace_formats::input::collect_traces;
use multitrace_model::record::{LineStyle, Record};
use multitrace_model::tally::{fallback_note, NothingChecked, Tally};
use multitrace_model::verdict::VerdictKind;
use std::io::{IsTerminal, Write};

/// Runs `check`, on a thread with the checking stack, or, for a compiled model (`.mtm`), on
/// the process's `main_thread` if asked, whose stack is smaller: loading a compiled model does
/// not recurse deeply (its validation refuses the term shapes that would), the automata
/// procedures do not recurse, and term exploration moves to a thread of its own
/// ([`multitrace_check::stack`]); a term-only model, which every check explores, is checked
/// on one thread with the checking stack. A one-multitrace check then starts no thread (0.07
/// ms of its start-up). Returns the exit status.
pub fn check(args: CheckArgs, main_thread: bool) -> Result<u8> {
    if args.jobs == Some(0) {
        bail!("--jobs 0: at least one worker thread is needed; give --jobs N with N >= 1, or leave it out for one per core");
    }
    if !args.input.otel.is_empty() && !cfg!(feature = "otel") {
        bail!("{OTEL_MISSING}");
    }
    // Every output is checked writable before the model or a trace is read.
    if let Some(report) = &args.report {
        multitrace_formats::output::check_writable(report, "--report")?;
    }
    let model = load(&args.model, &args.model_args)?;
    if main_thread && model.automata().is_none() {
        let stack = multitrace_check::explore::CHECK_STACK_SIZE;
        return std::thread::scope(|scope| {
            let worker = std::thread::Builder::new().stack_size(stack);
            match worker.spawn_scoped(scope, || check_model(args, model)) {
                Ok(h) => h.join().unwrap_or_else(|_| Err(thread_panicked())),
                Err(e) => Err(anyhow::anyhow!("cannot start: {e}")),
            }
        });
    }
    if main_thread {
        multitrace_check::stack::mark_small_stack();
    }
    check_model(args, model)
}

/// `check` once the model is loaded.
fn check_model(args: CheckArgs, model: multitrace_model::model::CompiledModel) -> Result<u8> {
    let mode = args.mode;
    let mut expect = match &args.expect {
        Some(path) => Some(ExpectCheck::read(path, mode)?),
        None => None,
    };
    let files = collect_traces(&args.traces, &mut |note| eprintln!("multitrace: note: {note}"))?;
    if let Some(report) = &args.report {
        // The report must not replace the model, a trace, or any other input.
        let mut inputs: Vec<&std::path::Path> = vec![args.model.as_path()];
        inputs.extend(files.iter().map(|p| p.as_path()));
        inputs.extend(args.traces.iter().map(|p| p.as_path()));
        inputs.extend(args.expect.as_deref());
        inputs.extend(args.input.events.iter().map(|p| p.as_path()));
        multitrace_formats::output::refuse_overwrite(report, &inputs)?;
    }
    // One trace file that is not JSON Lines is one task, run on this thread: the core count
    // is then not needed (it is read for the memory budget's default, and only when a search
    // grows past 64 MiB: `DEFERRED_MEMORY`). Reading it and the memory size costs a
    // one-multitrace check 0.07 ms.
    let one_task = args.input.traces_only()
        && files.len() == 1
        && !multitrace_formats::input::is_streamed(&files[0]);
    let settings = Settings {
        mode,
        choice: args.procedure.choice(),
        witness: args.witness,
        timeout_ms: args.timeout_ms,
        max_vertices: args.max_vertices,
        max_memory_mb: 0,
        diagnosis: !args.no_diagnosis,
        max_diagnosis_vertices: args.max_diagnosis_vertices,
        por: !args.no_por,
        loc: !args.no_loc,
        memo: !args.no_memo,
    };
    let plan = Plan::new(settings, args.jobs, args.max_memory, one_task);
    let engine = Engine::new(model);
    let options = BatchOptions {
        jobs: plan.jobs,
        max_line_bytes: args.max_line_bytes,
        window_per_job: DEFAULT_WINDOW_PER_JOB,
    };
    let progress = crate::progress::Progress::new(!args.no_progress);
    let progress_shown = progress.shown();
    // This thread has the checking stack, or is marked (`check_on_main`): a batch of one task
    // runs right here and starts no worker (most of a one-multitrace check's start-up).
    let batch = Batch::new(&engine, plan.options, options)
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
    let style = match args.format {
        FormatArg::Jsonl => LineStyle::Json,
        FormatArg::Text if color => LineStyle::ColoredText,
        FormatArg::Text => LineStyle::Text,
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
        multitrace_compiler::open::signature_note(&args.model, &args.model_args);
    let sink = |done: Outcome| {
        if crate::report_cmd::interrupted() {
            return Err(std::io::Error::new(std::io::ErrorKind::Interrupted, "interrupted"));
        }
        if done.fallback && tally.fallbacks() == 0 {
            eprintln!("multitrace: note: {}", fallback_note(&done.record, &model_name));
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
            print_record(&mut out, &done.record, style, args.quiet, echo_errors)?;
            if progress_shown {
                out.flush()?;
            }
            Ok::<(), std::io::Error>(())
        })
    };
    let inputs = args.input.inputs(files, args.max_buffered_events, args.max_line_bytes)?;
    let run = batch.run_inputs(inputs, sink);
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
        Err(InputsError::Run(RunError::Sink(e))) => return Err(e.into()),
        Err(e) => bail!("{e}"),
    }
    if tally.count() == 0 {
        let (i, traces) = (&args.input, args.traces.iter());
        let inputs = traces.chain(&i.events).chain(&i.xes);
        let inputs = inputs.chain(&i.otel);
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

fn print_record(
    out: &mut impl Write,
    rec: &Record,
    style: LineStyle,
    quiet: bool,
    echo_errors: bool,
) -> std::io::Result<()> {
    if let Some(e) = rec.error.as_ref().filter(|_| echo_errors) {
        // Also where scripts look for input errors (the record keeps the stream complete).
        eprintln!("multitrace: {}", e.message);
    }
    if quiet && matches!(rec.verdict_kind(), Some(VerdictKind::Pass | VerdictKind::WeakPass)) {
        return Ok(());
    }
    rec.write_lines(out, style)
}
