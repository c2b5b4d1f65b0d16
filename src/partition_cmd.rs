//! `partition`: which participants must be monitored together (seed 002).
//!
//! The analysis is the library's ([`multitrace_analysis::partition::request`]): this command
//! maps its arguments, prints the report (text or JSON) and exits with the report's outcome:
//! 0 faithful (question (a), or (b) with `--question b`), 1 counterexample, 3 undecided within
//! the bounds, 2 usage or input errors. With `--check-local`, the status of the local checks:
//! 1 when one fails, 3 when one is undecided, else 0.

use crate::exit::print_out;
use crate::progress::with_bar;
use anyhow::Result;
use clap::{Args, ValueEnum};
use multitrace_analysis::partition::request::{PartitionJob, PartitionRequest};

/// Output format.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum PartitionFormat {
    /// Text for people.
    Text,
    /// One JSON object.
    #[value(alias = "jsonl")]
    Json,
}

// The arguments of `multitrace partition` (a plain comment: see `Command`'s `defer`).
#[derive(Args)]
pub struct PartitionArgs {
    #[command(flatten)]
    request: PartitionRequest,
    /// Output format (text or json; `jsonl` is the same).
    #[arg(short, long, value_enum, default_value = "text", help_heading = "Output")]
    format: PartitionFormat,
}

pub fn partition(args: PartitionArgs) -> Result<u8> {
    let job = PartitionJob::prepare(args.request, &mut |n| eprintln!("multitrace: note: {n}"))?;
    let report = with_bar("analysing the partitions", |p| job.run(p))?;
    print_out(&report.output(args.format == PartitionFormat::Json))?;
    Ok(report.outcome().exit_code())
}
