//! `local` and `central`: AS split across hosts (seed 004's architecture). Each host that holds
//! a log runs `local` on its location's trace and ships the small summary; one host runs
//! `central` on all summaries. Both steps are [`multitrace_batch::distributed`]; this module
//! maps the arguments and prints.
//!
//! Exit status: `local` 0 when the local trace passes, 1 on a LocalError (the summary is
//! written all the same: `central` needs it), 2 on errors; `central` as `check` (0 Pass or
//! WeakPass, 1 Fail, 3 Inconclusive, 2 on errors, each one located message).

use crate::args::{load, FormatArg};
use crate::exit::print_out;
use anyhow::{Context, Result};
use clap::Args;
use multitrace_batch::distributed::{
    central_budget, central_step, check_summary_output, local_step,
};
use multitrace_check::Engine;
use multitrace_compiler::open::ModelOptions;
use multitrace_model::verdict::Mode;
use std::path::PathBuf;

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
    #[arg(short, long, value_enum, default_value = "prefix", help_heading = "Checking")]
    mode: Mode,
    /// Output file (the summary, JSON).
    #[arg(short, long, help_heading = "Output")]
    output: PathBuf,
    #[command(flatten)]
    model_args: ModelOptions,
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
    #[arg(short, long, value_enum, default_value = "text", help_heading = "Output")]
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
    model_args: ModelOptions,
}

pub fn local(args: LocalArgs) -> Result<u8> {
    check_summary_output(&args.output, &args.model, &args.trace)?;
    let model = load(&args.model, &args.model_args)?;
    let name = args.model.display().to_string();
    let run = local_step(&model, &name, &args.location, &args.trace, args.mode)?;
    if let Some(note) = run.empty_note(&args.trace.display().to_string()) {
        eprintln!("multitrace: note: {note}");
    }
    run.write(&args.output)?;
    eprintln!("multitrace: {}", run.message(&args.output.display().to_string()));
    Ok(run.exit_code())
}

pub fn central(args: CentralArgs) -> Result<u8> {
    let engine = Engine::new(load(&args.model, &args.model_args)?);
    let budget = central_budget(args.max_vertices, args.timeout_ms);
    let name = args.model.display().to_string();
    let run = central_step(&engine, &name, &args.summaries, budget, args.witness)?;
    let json = args.format == FormatArg::Jsonl;
    if json {
        run.inputs.iter().for_each(|l| eprintln!("multitrace: note: {l}"));
    }
    // Written at once, so that a closed standard output is an error (exit 2), not a panic.
    print_out(&run.output(json)).context("standard output: cannot write")?;
    Ok(run.exit_code())
}
