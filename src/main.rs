//! `multitrace`: offline runtime verification of distributed systems.
//!
//! A thin command line over the `multitrace-compiler` and `multitrace-runtime` libraries.
//! Exit status: 0 when every multitrace is Pass or WeakPass, 1 when any is Fail, 2 on usage or
//! input errors, 3 when none failed but some are Inconclusive.

mod batch;
mod distributed;
mod gen_cmd;
mod model_cmd;
mod partition_cmd;
mod report_cmd;

use clap::{Args, Parser, Subcommand, ValueEnum};
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
    /// Check multitraces against a model (.hif, .mmd, .puml, .timbuk or compiled .mtm).
    Check(Box<CheckArgs>),
    /// Compile a model (.hif or .timbuk) into a .mtm artifact.
    Compile(CompileArgs),
    /// Describe a model: kind, locations, automata sizes, compile time.
    Inspect(InspectArgs),
    /// Draw a model's interaction as a sequence diagram (SVG), or its NFA or one location's
    /// local verifier as Graphviz.
    Draw(DrawArgs),
    /// Distributed AS, local step: check one location's trace, write its summary.
    Local(distributed::LocalArgs),
    /// Distributed AS, central step: combine the local summaries into a verdict.
    Central(distributed::CentralArgs),
    /// Generate multitraces of a verdict category (checked, labelled, reproducible).
    Gen(gen_cmd::GenArgs),
    /// Compare AC and AS (and term exploration) on sets of multitraces.
    Compare(gen_cmd::CompareArgs),
    /// Which participants must be monitored together: is a partition into locations
    /// faithful (seed 002), and the finest faithful partitions.
    Partition(partition_cmd::PartitionArgs),
}

/// Membership question.
#[derive(Clone, Copy, ValueEnum)]
pub enum ModeArg {
    /// Is the multitrace accepted? (Pass or Fail)
    Complete,
    /// Is it a multi-prefix of an accepted multitrace? (Pass, WeakPass or Fail)
    Prefix,
}

/// Check procedure.
#[derive(Clone, Copy, ValueEnum)]
enum ProcedureArg {
    /// AS on automata models, term exploration on term-only models.
    Auto,
    /// Centralized search of Central(A, μ) (seed 004 Algorithm 1).
    Ac,
    /// Semi-centralized: local checks, Inter, then AC on Inter (seed 004 Algorithms 2-3).
    As,
    /// Term exploration of the operational semantics (seed 001).
    Term,
}

/// When to color the verdicts of text output.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum ColorArg {
    /// On a terminal, unless NO_COLOR is set.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// Output format.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum FormatArg {
    /// One line per multitrace and a summary.
    Text,
    /// One JSON object per multitrace.
    Jsonl,
}

/// How a source model is compiled, and how a compiled model is checked against its source.
#[derive(Args, Clone)]
pub struct ModelArgs {
    /// Signature file (.hsf); default: `<stem>.hsf` or signature.hsf beside the model, or
    /// signature.hsf in its parent directory, else names are inferred from the interaction.
    /// With a compiled model (.mtm): only with --source, the signature of that source.
    #[arg(long)]
    signature: Option<PathBuf>,
    /// Locations: groups of lifelines (interactions) or letters (Timbuk), e.g. 'l1,l2;l3'.
    /// Default: one per lifeline, or the Timbuk file's Systems block. Source models only.
    #[arg(long)]
    locations: Option<String>,
    /// A random partition into N locations (with --seed). Source models only.
    #[arg(long, value_name = "N", conflicts_with = "locations")]
    random_locations: Option<usize>,
    /// Seed of --random-locations (and of `gen`).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Largest NFA synthesized from an interaction; above it the model is term-only. Source
    /// models only. [default: 200000]
    #[arg(long, value_name = "STATE_CAP")]
    state_cap: Option<usize>,
    /// Largest local verifier (DFA states per location); above it an interaction is
    /// term-only and a raw automaton is refused. Source models only. [default: 200000]
    #[arg(long, value_name = "DFA_CAP")]
    dfa_cap: Option<usize>,
    /// Largest table of areas of the local verifiers, all locations together, in MiB (each
    /// area is a bitset over the NFA's transitions); above it an interaction is term-only and a
    /// raw automaton is refused. Source models only. [default: 256]
    #[arg(long, value_name = "MIB")]
    area_cap_mb: Option<usize>,
    /// With a compiled model (.mtm): the source it was compiled from (.hif, with the signature
    /// given or found as for compiling, or .timbuk); a model compiled from anything else is
    /// refused (compile it again). Without it, the source the model records is compared.
    #[arg(long, value_name = "FILE")]
    source: Option<PathBuf>,
    /// With a compiled model (.mtm): use it even when the source it records has changed since
    /// it was compiled (a note instead of an error).
    #[arg(long, conflicts_with = "source")]
    allow_stale: bool,
}

impl ModelArgs {
    /// The library's model options (the same fields).
    fn options(&self) -> multitrace_compiler::open::ModelOptions {
        multitrace_compiler::open::ModelOptions {
            signature: self.signature.clone(),
            locations: self.locations.clone(),
            random_locations: self.random_locations,
            seed: self.seed,
            state_cap: self.state_cap,
            dfa_cap: self.dfa_cap,
            area_cap_mb: self.area_cap_mb,
            source: self.source.clone(),
            allow_stale: self.allow_stale,
        }
    }
}

impl ModeArg {
    fn mode(self) -> multitrace_runtime::verdict::Mode {
        match self {
            ModeArg::Complete => multitrace_runtime::verdict::Mode::Complete,
            ModeArg::Prefix => multitrace_runtime::verdict::Mode::Prefix,
        }
    }
}

#[derive(Args)]
struct CheckArgs {
    /// The model: an interaction (.hif), a sequence diagram (.mmd, .md, .puml), a Timbuk automaton (.timbuk) or a compiled model (.mtm).
    model: PathBuf,
    /// Multitrace files (.htf, .mtf, .jsonl) or directories searched recursively for them;
    /// `-` reads JSON Lines from standard input.
    #[arg(required_unless_present_any = ["events", "xes", "otel"])]
    traces: Vec<PathBuf>,
    #[command(flatten)]
    model_args: ModelArgs,
    /// Complete observation or partial observation (multi-prefixes).
    #[arg(long, value_enum, default_value = "prefix")]
    mode: ModeArg,
    /// Check procedure.
    #[arg(long, value_enum, default_value = "auto")]
    procedure: ProcedureArg,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: FormatArg,
    /// Term exploration: disable partial order reduction.
    #[arg(long)]
    no_por: bool,
    /// Term exploration: disable local analyses.
    #[arg(long)]
    no_loc: bool,
    /// Term exploration: disable memoization of visited vertices.
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
    /// For a Pass, print one accepted global interleaving.
    #[arg(long)]
    witness: bool,
    /// Never show the progress line (shown on a terminal by default).
    #[arg(long)]
    no_progress: bool,
    /// Longest JSON Lines line in bytes (default 256 MiB); a longer line is an input error
    /// and its file is not read further.
    #[arg(long, value_name = "N", default_value_t = 256 << 20)]
    max_line_bytes: u64,
    /// Print only failures, inconclusive verdicts, errors and the summary.
    #[arg(long, short)]
    quiet: bool,
    /// Expected verdicts: a manifest.tsv written by `gen`, or a TSV of `trace<TAB>verdict`
    /// rows; every mismatch is reported and makes the exit status 1.
    #[arg(long, value_name = "FILE")]
    expect: Option<PathBuf>,
    /// Color the verdicts of text output (auto: on a terminal, unless NO_COLOR is set).
    #[arg(long, value_enum, default_value = "auto")]
    color: ColorArg,
    /// Do not diagnose failures (the reason is then the procedure's own, with no detail).
    #[arg(long)]
    no_diagnosis: bool,
    /// Search-vertex budget of the diagnosis of one failure, all its queries together (0:
    /// none); when it runs out the verdict stands and the diagnosis is marked partial.
    #[arg(long, value_name = "N", default_value_t = 1_000_000)]
    max_diagnosis_vertices: u64,
    /// Also write an HTML report of the batch to this file: counts, timing, options, a table
    /// filterable by verdict, the first failures drawn in full (one lane per location, the
    /// blocked actions highlighted), the model's diagram. Self-contained (no network).
    #[arg(long, value_name = "FILE.html")]
    report: Option<PathBuf>,
    /// Event logs instead of multitraces (JSON Lines or CSV, `-`: standard input): events are
    /// grouped by run, each location's events sorted by order key (the location of an action
    /// comes from the model); one record per run.
    #[arg(long, value_name = "FILE", num_args = 1.., conflicts_with = "traces")]
    events: Vec<PathBuf>,
    /// XES event logs (IEEE 1849, `.xes` or `.xes.gz`) instead of multitraces: a trace is a
    /// run; the action is the event's concept:name (--action-field), the order its
    /// time:timestamp (--order-field; `document`: the order in the trace).
    #[arg(long, value_name = "FILE", num_args = 1.., conflicts_with_all = ["traces", "events"])]
    xes: Vec<PathBuf>,
    /// OpenTelemetry spans instead of multitraces: OTLP JSON (the Collector's file exporter,
    /// one ExportTraceServiceRequest per line) or OTLP protobuf. service.name is the
    /// lifeline, the span kind says emission or reception, the trace is the run.
    #[arg(long, value_name = "FILE", num_args = 1.., conflicts_with_all = ["traces", "events", "xes"])]
    otel: Vec<PathBuf>,
    /// --otel: a mapping file overriding the rules (`lifeline = ATTR`, `run = ATTR`,
    /// `message = ATTR`, `reply_suffix = TEXT`).
    #[arg(long, value_name = "FILE", requires = "otel")]
    otel_map: Option<PathBuf>,
    /// --xes: the event attribute naming the lifeline of actions written `!m` or `?m` (e.g.
    /// org:resource).
    #[arg(long, value_name = "KEY")]
    lifeline_field: Option<String>,
    /// --events: the field holding the run id.
    #[arg(long, value_name = "F", default_value = "run")]
    run_field: String,
    /// --events: the field holding the action (or automaton letter).
    #[arg(long, value_name = "F", default_value = "action")]
    action_field: String,
    /// --events: the field holding the order key (integer, number or RFC 3339 timestamp).
    #[arg(long, value_name = "F", default_value = "order")]
    order_field: String,
    /// --events: the format of every file (default: .csv is CSV, anything else JSON Lines).
    #[arg(long, value_parser = ["jsonl", "csv"])]
    events_format: Option<String>,
    /// --events: the events of a run are contiguous (sorted by run): stream, one run in memory.
    #[arg(long)]
    events_sorted: bool,
    /// --events: most events held at once (unsorted input), or in one run (sorted input).
    #[arg(long, value_name = "N", default_value_t = 10_000_000)]
    max_buffered_events: usize,
}

#[derive(Args)]
struct CompileArgs {
    /// The model (.hif or .timbuk).
    model: PathBuf,
    #[command(flatten)]
    model_args: ModelArgs,
    /// Fail unless the model compiles to automata.
    #[arg(long, conflicts_with = "term_only")]
    automata: bool,
    /// Store the interaction only (checked by term exploration).
    #[arg(long)]
    term_only: bool,
    /// Output file (.mtm).
    #[arg(short, long)]
    output: PathBuf,
}

#[derive(Args)]
struct InspectArgs {
    /// The model (.mtm, .hif or .timbuk).
    model: PathBuf,
    #[command(flatten)]
    model_args: ModelArgs,
}

#[derive(Args)]
struct DrawArgs {
    /// The model (.mtm, .hif, .mmd, .md, .puml or .timbuk).
    model: PathBuf,
    #[command(flatten)]
    model_args: ModelArgs,
    /// Draw the NFA A.
    #[arg(long, conflicts_with_all = ["dfa", "diagram", "pnml", "mermaid", "plantuml"], required_unless_present_any = ["dfa", "diagram", "pnml", "mermaid", "plantuml"])]
    nfa: bool,
    /// Draw the local verifier Proj(A, Σi) of this location (its name, e.g. l1 or l1,l2).
    #[arg(long, value_name = "LOCATION", conflicts_with = "diagram")]
    dfa: Option<String>,
    /// Draw the interaction as a sequence diagram (SVG, written without external programs;
    /// term-only models too).
    #[arg(long, conflicts_with = "pnml")]
    diagram: bool,
    /// Write the NFA as a PNML Petri net (a place per state, a labelled transition per NFA
    /// transition, a silent transition from each accepting state to one final place), for
    /// process-mining tools such as pm4py.
    #[arg(long, conflicts_with = "dfa")]
    pnml: bool,
    /// Write the interaction as a Mermaid sequenceDiagram (weak loops, alt, opt, par and
    /// messages; other operators are refused with what to do instead).
    #[arg(long, conflicts_with_all = ["dfa", "diagram", "pnml", "plantuml"])]
    mermaid: bool,
    /// Write the interaction as a PlantUML sequence diagram (as --mermaid, and messages to or
    /// from the environment cross the border).
    #[arg(long, conflicts_with_all = ["dfa", "diagram", "pnml"])]
    plantuml: bool,
    /// Output file (.dot, or .svg with --diagram); `-` writes to standard output. Without
    /// --diagram, a .svg is written beside the .dot when a `dot` program is present.
    #[arg(short, long)]
    output: PathBuf,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    // Deep interactions recurse in the semantic functions: run on a thread with a large stack.
    let worker = std::thread::Builder::new()
        .stack_size(multitrace_runtime::check::explore::CHECK_STACK_SIZE)
        .spawn(move || match cli.command {
            Command::Check(args) => batch::check(*args),
            Command::Compile(args) => model_cmd::compile(args),
            Command::Inspect(args) => model_cmd::inspect(args),
            Command::Draw(args) => model_cmd::draw(args),
            Command::Local(args) => distributed::local(args),
            Command::Central(args) => distributed::central(args),
            Command::Gen(args) => gen_cmd::gen(args),
            Command::Compare(args) => gen_cmd::compare(args),
            Command::Partition(args) => partition_cmd::partition(args),
        });
    let result = match worker.map(|h| h.join()) {
        Ok(Ok(r)) => r,
        Ok(Err(_)) => Err(anyhow::anyhow!(
            "internal error (a thread panicked); please report it"
        )),
        Err(e) => Err(anyhow::anyhow!("cannot start: {e}")),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("multitrace: {e:#}");
            ExitCode::from(2)
        }
    }
}
