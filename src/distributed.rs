//! `local` and `central`: AS split across hosts (seed 004's architecture). Each host that holds
//! a log runs `local` on its location's trace and ships the small summary; one host runs
//! `central` on all summaries. The verdicts are those of `check --procedure as`.
//!
//! Both steps are [`multitrace_runtime::distributed`]; this module maps the arguments, writes
//! the summary and prints.
//!
//! Exit status: `local` 0 when the local trace passes, 1 on a LocalError (the summary is
//! written all the same: `central` needs it), 2 on errors; `central` as `check` (0 Pass or
//! WeakPass, 1 Fail, 3 Inconclusive, 2 on errors, each one located message).

use crate::{FormatArg, ModeArg, ModelArgs};
use anyhow::{Context, Result};
use clap::Args;
use multitrace_runtime::check::explore::Budget;
use multitrace_runtime::check::Engine;
use multitrace_runtime::distributed::{central_step, local_step};
use multitrace_runtime::summary::write_summary;
use std::io::Write as _;
use std::path::PathBuf;
use std::time::Duration;

// Arguments of `local` (a plain comment: see `Command`'s `defer`).
#[derive(Args)]
pub struct LocalArgs {
    /// The model (.mtm, .hif or .timbuk); all hosts must use the same compiled model.
    model: PathBuf,
    /// The location whose trace this host holds (its name, e.g. l1 or l1,l2).
    #[arg(long, help_heading = "Input")]
    location: String,
    /// A multitrace file (.mtf or .htf) holding the location's trace.
    trace: PathBuf,
    /// Complete observation or partial observation (multi-prefixes).
    #[arg(
        short,
        long,
        value_enum,
        default_value = "prefix",
        help_heading = "Checking"
    )]
    mode: ModeArg,
    /// Output file (the summary, JSON).
    #[arg(short, long, help_heading = "Output")]
    output: PathBuf,
    #[command(flatten)]
    model_args: ModelArgs,
}

// Arguments of `central` (a plain comment: see `Command`'s `defer`).
#[derive(Args)]
pub struct CentralArgs {
    /// The model (.mtm, .hif or .timbuk): the same as the local verifiers'.
    model: PathBuf,
    /// One summary per location, written by `local`.
    #[arg(required = true)]
    summaries: Vec<PathBuf>,
    /// Output format (text or json; `jsonl` is the same).
    #[arg(
        short,
        long,
        value_enum,
        default_value = "text",
        help_heading = "Output"
    )]
    format: FormatArg,
    /// For a Pass, print one accepted global interleaving.
    #[arg(long, help_heading = "Output")]
    witness: bool,
    /// Product-state budget of the central search (0: none).
    #[arg(long, default_value_t = 5_000_000, help_heading = "Limits")]
    max_vertices: u64,
    /// Time budget in milliseconds (0: none).
    #[arg(long, default_value_t = 10_000, help_heading = "Limits")]
    timeout_ms: u64,
    #[command(flatten)]
    model_args: ModelArgs,
}

pub fn local(args: LocalArgs) -> Result<u8> {
    multitrace_runtime::output::check_writable(&args.output, "-o")?;
    multitrace_runtime::output::refuse_overwrite(
        &args.output,
        &[args.model.as_path(), args.trace.as_path()],
    )?;
    let model = crate::model_cmd::load(&args.model, &args.model_args)?;
    let name = args.model.display().to_string();
    let run = local_step(&model, &name, &args.location, &args.trace, args.mode.mode())?;
    if let Some(note) = run.empty_note(&args.trace.display().to_string()) {
        eprintln!("multitrace: note: {note}");
    }
    let out = args.output.display();
    let mut bytes = Vec::new();
    write_summary(&run.summary, &mut bytes).with_context(|| format!("{out}: cannot write"))?;
    std::fs::write(&args.output, bytes).with_context(|| format!("{out}: cannot write"))?;
    eprintln!("multitrace: {}", run.message(&out.to_string()));
    Ok(if run.passed() { 0 } else { 1 })
}

pub fn central(args: CentralArgs) -> Result<u8> {
    let engine = Engine::new(crate::model_cmd::load(&args.model, &args.model_args)?);
    let budget = Budget {
        max_vertices: (args.max_vertices > 0).then_some(args.max_vertices),
        timeout: (args.timeout_ms > 0).then(|| Duration::from_millis(args.timeout_ms)),
        ..Budget::default()
    };
    let name = args.model.display().to_string();
    let run = central_step(&engine, &name, &args.summaries, budget, args.witness)?;
    // Written at once, so that a closed standard output is an error (exit 2), not a panic.
    let lines = match args.format {
        FormatArg::Text => run.text_lines(),
        FormatArg::Jsonl => {
            for line in &run.inputs {
                eprintln!("multitrace: note: {line}");
            }
            vec![run.record.to_json()]
        }
    };
    let mut stdout = std::io::stdout().lock();
    lines
        .iter()
        .try_for_each(|l| writeln!(stdout, "{l}"))
        .and_then(|()| stdout.flush())
        .context("standard output: cannot write")?;
    Ok(run.exit_code())
}
