//! `partition`: which participants must be monitored together (seed 002).
//!
//! The analysis is the library's ([`multitrace_analysis::partition::run`]): this command maps
//! its arguments to the library's options, prints the report (text or JSON) and exits with the
//! report's outcome: 0 faithful (question (a), or (b) with `--question b`), 1 counterexample, 3
//! undecided within the bounds, 2 usage or input errors. With `--check-local`, the status of
//! the local checks: 1 when one fails, 3 when one is undecided, else 0.

use crate::ModeArg;
use anyhow::Result;
use clap::{Args, ValueEnum};
use multitrace_analysis::partition::central::CentralLimits;
use multitrace_analysis::partition::deadline::Deadline;
use multitrace_analysis::partition::inclusion::InclusionLimits;
use multitrace_analysis::partition::options::{Question, RunOptions};
use multitrace_analysis::partition::run;
use multitrace_analysis::partition::search::SearchLimits;
use multitrace_compiler::compile::CompileOptions;
use multitrace_compiler::source::Source;
use multitrace_runtime::verdict::Mode;
use std::path::PathBuf;

/// Which question decides the exit status.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum QuestionArg {
    /// (a) global traces: can a violation escape every local verifier?
    A,
    /// (b) multitraces: is the central step needed?
    B,
}

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
    /// The model: an interaction (.hif) or a Timbuk automaton (.timbuk).
    ///
    /// A compiled model (.mtm) is refused: other partitions are compiled from the source.
    model: PathBuf,
    /// Signature file (.hsf); default as for the other commands.
    #[arg(long, help_heading = "Model")]
    signature: Option<PathBuf>,
    /// The partition to analyze, e.g. 'A;B,C;D'.
    ///
    /// Groups of lifelines (interactions) or letters (Timbuk). Default: one location per
    /// lifeline, or the Timbuk file's Systems block. Coarsenings are searched from it.
    #[arg(long, help_heading = "Model")]
    locations: Option<String>,
    /// Complete observation or partial observation (multi-prefixes).
    #[arg(
        short,
        long,
        value_enum,
        default_value = "prefix",
        help_heading = "Analysis"
    )]
    mode: ModeArg,
    /// The question that decides the exit status.
    #[arg(long, value_enum, default_value = "a", help_heading = "Analysis")]
    question: QuestionArg,
    /// (b): multitraces of at most N actions are searched exhaustively.
    #[arg(long, value_name = "N", default_value_t = 8, help_heading = "Limits")]
    max_length: usize,
    /// (b): most multitraces checked by the exhaustive search.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 200_000,
        help_heading = "Limits"
    )]
    max_multitraces: u64,
    /// (b): random mixes of accepted runs tried after the exhaustive search.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 2_000,
        help_heading = "Limits"
    )]
    samples: u64,
    /// Seed of the random mixes.
    #[arg(long, default_value_t = 0, help_heading = "Analysis")]
    seed: u64,
    /// (a): most messages in flight per channel counted exactly.
    ///
    /// Beyond it the counter is abstracted: a proof still holds for every trace.
    #[arg(long, value_name = "K", default_value_t = 3, help_heading = "Limits")]
    max_in_flight: u32,
    /// (a): most product states per search.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 1_000_000,
        help_heading = "Limits"
    )]
    max_states: usize,
    /// Memory budget of the searches in MiB (0: none); then the question is undecided.
    ///
    /// (a): the product's states and the determinized automata built for it (or the traces
    /// enumerated, when the global language is not regular); (a) and (b): each check.
    /// Default: half the memory the process may use (physical memory or `ulimit -v`, the
    /// smaller).
    #[arg(long, value_name = "MIB", help_heading = "Limits")]
    max_memory: Option<u64>,
    /// Time limit of the whole command in seconds (0: none); then the question is undecided.
    ///
    /// Checked inside every search ((a), (b), the finest faithful partitions); each check by
    /// the runtime gets the time left. Compiling a model is not interrupted.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 10.0,
        help_heading = "Limits"
    )]
    timeout: f64,
    /// Finest faithful partitions: most partitions enumerated (B(10) = 115,975).
    #[arg(
        long,
        value_name = "N",
        default_value_t = 200_000,
        help_heading = "Limits"
    )]
    max_partitions: usize,
    /// Finest faithful partitions: most product searches.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 2_000,
        help_heading = "Limits"
    )]
    max_searches: usize,
    /// Analyze the given partition only (no search of the finest faithful partitions).
    #[arg(long, help_heading = "Analysis")]
    no_search: bool,
    /// Write the counterexamples into DIR as files `check` accepts.
    #[arg(short, long, value_name = "DIR", help_heading = "Output")]
    output: Option<PathBuf>,
    /// Output format (text or json; `jsonl` is the same).
    #[arg(
        short,
        long,
        value_enum,
        default_value = "text",
        help_heading = "Output"
    )]
    format: PartitionFormat,
    /// Check these multitraces (.htf, .mtf or directories) with the local verifiers only.
    ///
    /// A LocalError is a Fail, and "every local check passes" is a Pass (or WeakPass) only
    /// where (b) is proven; otherwise the verdict says why it is undecided.
    #[arg(long, value_name = "TRACES", num_args = 1.., help_heading = "Analysis")]
    check_local: Vec<PathBuf>,
    /// Largest NFA synthesized from an interaction. [default: 200000]
    #[arg(long, value_name = "N", help_heading = "Model")]
    state_cap: Option<usize>,
    /// Largest local verifier (DFA states per location). [default: 200000]
    #[arg(long, value_name = "N", help_heading = "Model")]
    dfa_cap: Option<usize>,
    /// Largest table of areas of the local verifiers, in MiB. [default: 256]
    #[arg(long, value_name = "MIB", help_heading = "Model")]
    area_cap_mb: Option<usize>,
}

/// The multitraces of `--check-local`, found by `check`'s walk (skipped files named in a
/// note; compressed files kept); JSON Lines files are named and skipped (one multitrace a file).
fn check_local_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    if paths.is_empty() {
        return Ok(Vec::new());
    }
    let note = |n: String| eprintln!("multitrace: note: {n}");
    let files = multitrace_runtime::batch::collect_traces(paths, &mut |n| note(n))?;
    let (jsonl, files): (Vec<PathBuf>, Vec<PathBuf>) = files
        .into_iter()
        .partition(|f| multitrace_runtime::batch::content_extension(f) == Some("jsonl"));
    if let Some(first) = jsonl.first() {
        note(format!(
            "--check-local reads .htf and .mtf files (also compressed); {} JSON Lines file(s) skipped, the first {}",
            jsonl.len(),
            first.display()
        ));
    }
    Ok(files)
}

pub fn partition(args: PartitionArgs) -> Result<u8> {
    if !(args.timeout >= 0.0 && args.timeout.is_finite()) {
        anyhow::bail!(
            "--timeout {}: give a number of seconds (0: no limit)",
            args.timeout
        );
    }
    // The time bound covers the whole command, from here (the model's compilation counts).
    let deadline = Deadline::after(
        (args.timeout > 0.0).then(|| std::time::Duration::from_secs_f64(args.timeout)),
    );
    if let Some(dir) = &args.output {
        multitrace_runtime::output::check_writable_dir(dir, "--output")?;
    }
    let mode = match args.mode {
        ModeArg::Complete => Mode::Complete,
        ModeArg::Prefix => Mode::Prefix,
    };
    let defaults = CompileOptions::default();
    let compile = CompileOptions {
        state_cap: args.state_cap.unwrap_or(defaults.state_cap),
        dfa_cap: args.dfa_cap.unwrap_or(defaults.dfa_cap),
        area_cap: args
            .area_cap_mb
            .map_or(defaults.area_cap, |mb| mb.saturating_mul(1 << 20)),
        ..defaults
    };
    let (source, given) = run::open(
        &args.model,
        args.signature.as_deref(),
        args.locations.as_deref(),
    )?;
    if let Source::Interaction(m) = &source {
        if m.signature_file.is_none() {
            let mut l: Vec<&str> = m.signature.lifelines().iter().map(String::as_str).collect();
            let mut ms: Vec<&str> = m.signature.messages().iter().map(String::as_str).collect();
            l.sort_unstable();
            ms.sort_unstable();
            eprintln!(
                "multitrace: note: no signature file for {}; inferred lifelines ({}) and messages ({}) from the interaction; a typo shows up here as an extra name",
                args.model.display(),
                l.join(", "),
                ms.join(", ")
            );
        }
    }
    let max_memory = match args.max_memory {
        Some(0) => None,
        Some(mb) => Some(mb.saturating_mul(1 << 20)),
        None => Some(multitrace_runtime::budget::default_max_memory(1)),
    };
    let options = RunOptions {
        locations_given: args.locations.is_some(),
        mode,
        question: match args.question {
            QuestionArg::A => Question::A,
            QuestionArg::B => Question::B,
        },
        inclusion: InclusionLimits {
            max_states: args.max_states,
            max_in_flight: args.max_in_flight,
            max_length: args.max_length,
            max_words: args.max_multitraces,
            max_memory,
            deadline,
        },
        central: CentralLimits {
            max_length: args.max_length,
            max_multitraces: args.max_multitraces,
            samples: args.samples,
            seed: args.seed,
            max_memory,
            deadline,
        },
        search: SearchLimits {
            max_partitions: args.max_partitions,
            max_searches: args.max_searches,
        },
        no_search: args.no_search,
        output: args.output,
        check_local: check_local_files(&args.check_local)?,
        model: args.model,
        signature: args.signature,
    };
    let bar = crate::progress::Progress::analysis("analysing the partitions");
    let report = run::run_with(source, given, &compile, options, Some(&|p| bar.report(p)));
    bar.clear();
    let report = report?;
    match args.format {
        PartitionFormat::Json => crate::print_out(&format!("{}\n", report.json()))?,
        PartitionFormat::Text => crate::print_out(&report.text())?,
    }
    Ok(report.outcome().exit_code())
}
