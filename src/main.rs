//! `multitrace`: offline runtime verification of distributed systems.
//!
//! A thin command line over the `multitrace-compiler` and `multitrace-runtime` libraries.
//! Exit status: 0 when every multitrace is Pass or WeakPass, 1 when any is Fail, 2 on usage or
//! input errors, 3 when none failed but some are Inconclusive.

mod batch;

use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "multitrace",
    version,
    about = "Check multitraces of distributed systems against interaction models"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check multitraces against an interaction.
    Check(CheckArgs),
}

/// Membership question.
#[derive(Clone, Copy, ValueEnum)]
enum ModeArg {
    /// Is the multitrace accepted? (Pass or Fail)
    Complete,
    /// Is it a multi-prefix of an accepted multitrace? (Pass, WeakPass or Fail)
    Prefix,
}

/// Check procedure.
#[derive(Clone, Copy, ValueEnum)]
enum ProcedureArg {
    /// The best available procedure (term exploration for interactions).
    Auto,
    /// Term exploration of the operational semantics.
    Term,
}

/// Output format.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum FormatArg {
    /// One line per multitrace and a summary.
    Text,
    /// One JSON object per multitrace.
    Jsonl,
}

#[derive(clap::Args)]
struct CheckArgs {
    /// The interaction model (.hif).
    model: PathBuf,
    /// Multitrace files (.htf) or directories searched recursively for *.htf.
    #[arg(required = true)]
    traces: Vec<PathBuf>,
    /// Signature file (.hsf); default: `<stem>.hsf` or signature.hsf beside the model, or
    /// signature.hsf in its parent directory, else names are inferred from the interaction.
    #[arg(long)]
    signature: Option<PathBuf>,
    /// Complete observation or partial observation (multi-prefixes).
    #[arg(long, value_enum, default_value = "prefix")]
    mode: ModeArg,
    /// Check procedure.
    #[arg(long, value_enum, default_value = "auto")]
    procedure: ProcedureArg,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: FormatArg,
    /// Disable partial order reduction.
    #[arg(long)]
    no_por: bool,
    /// Disable local analyses.
    #[arg(long)]
    no_loc: bool,
    /// Disable memoization of visited vertices.
    #[arg(long)]
    no_memo: bool,
    /// Time budget per multitrace in milliseconds (0: none); when it runs out the verdict is
    /// Inconclusive.
    #[arg(long, default_value_t = 10_000)]
    timeout_ms: u64,
    /// Search-vertex budget per multitrace (0: none); when it runs out the verdict is
    /// Inconclusive.
    #[arg(long, default_value_t = 5_000_000)]
    max_vertices: u64,
    /// Worker threads (default: the number of cores).
    #[arg(long)]
    jobs: Option<usize>,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let result = match cli.command {
        Command::Check(args) => batch::check(args),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("multitrace: {e:#}");
            ExitCode::from(2)
        }
    }
}
