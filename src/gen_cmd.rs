//! `gen` and `compare`: argument parsing, printing and exit statuses.
//!
//! `gen` writes checked multitraces of one category (`multitrace_analysis::generate`: the
//! generation, the files and the `manifest.tsv` rows, merged with the rows of other
//! categories) and says what it wrote. `--seed` seeds both the generation and
//! `--random-locations`.
//!
//! `compare` runs the harness (`multitrace_analysis::compare`) on generated sets and prints
//! its disagreements and mismatches on standard error, then a table shaped like seed 004's
//! Table 1 (or JSON rows); the exit status is 1 for a disagreement or a mismatch, 3 when a
//! check was Inconclusive, else 0.

use crate::{ModeArg, ModelArgs};
use anyhow::Result;
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Args, ValueEnum};
use multitrace_analysis::compare::{compare_with, CompareOptions};
use multitrace_analysis::generate::{
    generate_with, parse_length_range, write_set, GenError, GenOptions, Kind, SetFormat,
};
use multitrace_runtime::check::Engine;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// `--kind`: the library's kinds, their names and help ([`Kind::ALL`]).
fn kind_parser() -> impl clap::builder::TypedValueParser<Value = Kind> {
    let values = Kind::ALL.map(|k| PossibleValue::new(k.name()).help(k.help()));
    PossibleValuesParser::new(values).try_map(|s| s.parse::<Kind>())
}

/// `--format`: the library's set formats ([`SetFormat::ALL`]).
fn format_parser() -> impl clap::builder::TypedValueParser<Value = SetFormat> {
    let values = SetFormat::ALL.map(|f| PossibleValue::new(f.name()).help(f.help()));
    PossibleValuesParser::new(values)
        .try_map(|s| SetFormat::from_name(&s).ok_or_else(|| format!("unknown format `{s}`")))
}

// Arguments of `gen` (a plain comment: see `Command`'s `defer`).
#[derive(Args)]
#[command(
    after_help = "--seed S seeds the generation as well as --random-locations. The same model, options and seed give byte-identical files."
)]
pub struct GenArgs {
    /// The model: an interaction (.hif), a sequence diagram (.mmd, .md, .puml), a Timbuk automaton (.timbuk) or a compiled model (.mtm).
    model: PathBuf,
    /// Category of the multitraces.
    #[arg(long, value_parser = kind_parser(), help_heading = "Generation")]
    kind: Kind,
    /// Number of multitraces.
    #[arg(long, default_value_t = 100, help_heading = "Generation")]
    count: usize,
    /// Total length (actions over all locations): MIN..MAX, both included, or N.
    #[arg(long, default_value = "10..20", value_parser = parse_length_range, help_heading = "Generation")]
    length: (usize, usize),
    /// Output directory (created if needed).
    #[arg(short, long, help_heading = "Output")]
    output: PathBuf,
    /// File format (default: htf for interactions, mtf for raw automata).
    #[arg(short, long, value_parser = format_parser(), help_heading = "Output")]
    format: Option<SetFormat>,
    /// Most candidates to build and check (default: 100 per multitrace + 1000).
    #[arg(long, help_heading = "Limits")]
    max_attempts: Option<usize>,
    /// Search-vertex budget per check (0: none); an Inconclusive candidate is never kept.
    #[arg(long, default_value_t = 5_000_000, help_heading = "Limits")]
    max_vertices: u64,
    /// Most time for the whole generation, in seconds (0: none); reaching it exits with status 3.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 300.0,
        help_heading = "Limits"
    )]
    timeout: f64,
    /// Write what was produced when fewer than --count multitraces could be (default: error).
    #[arg(long, help_heading = "Generation")]
    allow_fewer: bool,
    #[command(flatten)]
    model_args: ModelArgs,
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
    #[arg(
        short,
        long,
        value_enum,
        default_value = "text",
        help_heading = "Output"
    )]
    format: CompareFormat,
    /// Also time term exploration (interaction models).
    #[arg(long, help_heading = "Checking")]
    with_term: bool,
    /// Check every multitrace in this mode (default: the manifest's mode, else complete).
    #[arg(short, long, value_enum, help_heading = "Checking")]
    mode: Option<ModeArg>,
    /// Search-vertex budget per check (0: none).
    #[arg(long, default_value_t = 5_000_000, help_heading = "Limits")]
    max_vertices: u64,
    #[command(flatten)]
    model_args: ModelArgs,
}

/// Runs `gen`; returns the exit status.
pub fn gen(args: GenArgs) -> Result<u8> {
    multitrace_runtime::output::check_writable_dir(&args.output, "--output")?;
    if !(args.timeout >= 0.0 && args.timeout.is_finite()) {
        anyhow::bail!(
            "--timeout {}: give a number of seconds (0: no limit)",
            args.timeout
        );
    }
    // The time bound covers the whole command: loading a large model counts.
    let start = Instant::now();
    let limit = (args.timeout > 0.0).then(|| Duration::from_secs_f64(args.timeout));
    let model = crate::model_cmd::load(&args.model, &args.model_args)?;
    let left = limit.map(|l| l.saturating_sub(start.elapsed()));
    if left.is_some_and(|l| l.is_zero()) {
        eprintln!(
            "multitrace: time limit of {} s reached while loading the model {}; raise --timeout (0: none)",
            args.timeout,
            args.model.display()
        );
        return Ok(3);
    }
    let format = args
        .format
        .unwrap_or_else(|| SetFormat::default_for(&model));
    format.check(&model)?;
    let kind = args.kind;
    let (min_len, max_len) = args.length;
    let opts = GenOptions {
        max_attempts: args.max_attempts,
        max_vertices: (args.max_vertices > 0).then_some(args.max_vertices),
        timeout: left,
        ..GenOptions::new(kind, args.count, min_len, max_len, args.model_args.seed)
    };
    let engine = Engine::new(model);
    // A large automaton can take minutes before its first multitrace: show it is working.
    let bar = crate::progress::Progress::analysis(&format!(
        "generating {} `{kind}` multitraces",
        args.count
    ));
    let generated = generate_with(&engine, &opts, Some(&|p| bar.report(p)));
    bar.clear();
    let generation = match generated {
        Ok(g) => g,
        Err(GenError::Timeout {
            kind,
            wanted,
            during,
            partial,
            ..
        }) => {
            // The limit as given (the library was given what the loading left of it).
            let e = GenError::Timeout {
                kind,
                wanted,
                limit: limit.unwrap_or_default(),
                during,
                partial,
            };
            eprintln!("multitrace: {e}");
            let GenError::Timeout { partial, .. } = e else {
                unreachable!()
            };
            if args.allow_fewer && !partial.items.is_empty() {
                write_set(engine.model(), &partial, kind, format, &args.output)?;
                eprintln!(
                    "multitrace: wrote the {} `{kind}` multitraces produced to {} (--allow-fewer)",
                    partial.items.len(),
                    args.output.display()
                );
            }
            return Ok(3);
        }
        Err(e @ GenError::Shortfall { .. }) if args.allow_fewer => {
            eprintln!("multitrace: warning: {e}");
            let GenError::Shortfall { partial, .. } = e else {
                unreachable!()
            };
            *partial
        }
        Err(e) => return Err(e.into()),
    };
    write_set(engine.model(), &generation, kind, format, &args.output)?;
    eprintln!(
        "multitrace: wrote {} `{kind}` multitraces to {} ({} candidates; rejected: {})",
        generation.items.len(),
        args.output.display(),
        generation.attempts,
        generation.rejected_summary()
    );
    Ok(0)
}

/// Runs `compare`; returns the exit status.
pub fn compare(args: CompareArgs) -> Result<u8> {
    let model = crate::model_cmd::load(&args.model, &args.model_args)?;
    if args.with_term && model.term().is_none() {
        eprintln!("multitrace: note: the model has no interaction: --with-term ignored");
    }
    let opts = CompareOptions {
        runs: args.runs,
        with_term: args.with_term,
        mode: args.mode.map(ModeArg::mode),
        max_vertices: (args.max_vertices > 0).then_some(args.max_vertices),
    };
    let engine = Engine::new(model);
    let bar = crate::progress::Progress::analysis("reading the sets");
    let c = compare_with(&engine, &args.dirs, &opts, Some(&|p| bar.report(p)));
    bar.clear();
    let c = c?;
    for n in &c.notes {
        eprintln!("multitrace: note: {n}");
    }
    for finding in c.rows.iter().flat_map(|r| &r.findings) {
        eprintln!("multitrace: {finding}");
    }
    match args.format {
        CompareFormat::Text => {
            let stem = args
                .model
                .file_stem()
                .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
            crate::print_out(&c.markdown(&format!("{stem} ({}, {})", c.states, c.transitions)))?;
        }
        CompareFormat::Json => {
            crate::print_out(&format!("{}\n", c.json(&args.model.display().to_string())))?;
        }
    }
    if c.problems() > 0 {
        eprintln!(
            "multitrace: {} multitrace(s) with disagreeing verdicts (see above): the procedures are inconsistent",
            c.problems()
        );
        return Ok(1);
    }
    Ok(if c.inconclusive() { 3 } else { 0 })
}
