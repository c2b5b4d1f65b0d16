//! `gen` and `compare`: argument parsing, printing and exit statuses; the runs are the
//! library's (`multitrace_analysis::generate::GenJob`, `multitrace_analysis::compare`).
//!
//! `gen` exits with 3 when its time limit is reached; `compare` with 1 for a disagreement or a
//! mismatch, 3 when a check was Inconclusive, else 0.

use crate::args::load;
use crate::exit::print_out;
use crate::progress::with_bar;
use anyhow::Result;
use clap::{Args, ValueEnum};
use multitrace_analysis::compare::{compare_with, CompareOptions};
use multitrace_analysis::generate::{GenJob, GenRequest};
use multitrace_check::Engine;
use multitrace_compiler::open::ModelOptions;
use multitrace_model::verdict::Mode;
use std::path::PathBuf;

// Arguments of `gen` (a plain comment: see `Command`'s `defer`).
#[derive(Args)]
#[command(
    after_help = "--seed S seeds the generation as well as --random-locations. The same model, options and seed give byte-identical files."
)]
pub struct GenArgs {
    #[command(flatten)]
    request: GenRequest,
    #[command(flatten)]
    model_args: ModelOptions,
}

/// Output format of `compare`.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum CompareFormat {
    /// A Markdown table and notes.
    Text,
    /// One JSON array of rows.
    #[value(alias = "jsonl")]
    Json,
}

// Arguments of `compare` (a plain comment: see `Command`'s `defer`).
#[derive(Args)]
pub struct CompareArgs {
    /// The model the sets were generated for (with the same location options).
    model: PathBuf,
    /// Directories of multitraces: generated sets (with a manifest.tsv) or any directory of
    /// .htf, .mtf and .jsonl files.
    #[arg(required = true)]
    dirs: Vec<PathBuf>,
    /// Runs per multitrace and procedure; times are medians over the runs.
    #[arg(long, default_value_t = 3, help_heading = "Checking")]
    runs: usize,
    /// Output format (text or json; `jsonl` is the same).
    #[arg(short, long, value_enum, default_value = "text", help_heading = "Output")]
    format: CompareFormat,
    /// Also time term exploration (interaction models).
    #[arg(long, help_heading = "Checking")]
    with_term: bool,
    /// Check every multitrace in this mode (default: the manifest's mode, else complete).
    #[arg(short, long, value_enum, help_heading = "Checking")]
    mode: Option<Mode>,
    /// Search-vertex budget per check (0: none).
    #[arg(long, default_value_t = 5_000_000, help_heading = "Limits")]
    max_vertices: u64,
    #[command(flatten)]
    model_args: ModelOptions,
}

/// Runs `gen`; returns the exit status.
pub fn gen(args: GenArgs) -> Result<u8> {
    let say = &mut |line: String| eprintln!("multitrace: {line}");
    let model_path = args.request.model.clone();
    let request = GenRequest { seed: args.model_args.seed, ..args.request };
    let job = GenJob::start(request)?;

    let model = load(&model_path, &args.model_args)?;
    let Some(ready) = job.loaded(model, say)? else {
        return Ok(3);
    };
    // A large automaton can take minutes before its first multitrace: show it is working.
    let generated = with_bar(&ready.progress_message(), |p| ready.generate(p));
    Ok(ready.finish(generated, say)?.exit_code())
}

/// Runs `compare`; returns the exit status.
pub fn compare(args: CompareArgs) -> Result<u8> {
    let model = load(&args.model, &args.model_args)?;
    let mode = args.mode;
    let opts = CompareOptions::new(args.runs, args.with_term, mode, args.max_vertices);
    if let Some(note) = opts.with_term_note(&model) {
        eprintln!("multitrace: note: {note}");
    }
    let engine = Engine::new(model);
    let c = with_bar("reading the sets", |p| compare_with(&engine, &args.dirs, &opts, p))?;
    for m in c.messages() {
        eprintln!("multitrace: {m}");
    }
    print_out(&c.output(&args.model, args.format == CompareFormat::Json))?;
    if let Some(m) = c.problems_message() {
        eprintln!("multitrace: {m}");
    }
    Ok(c.exit_code())
}
