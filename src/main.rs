//! `multitrace`: offline runtime verification of distributed systems.
//!
//! A thin command line over the `multitrace-compiler` and `multitrace-runtime` libraries.
//! Exit status: 0 when every multitrace is Pass or WeakPass, 1 when any is Fail, 2 on usage or
//! input errors, 3 when none failed but some are Inconclusive.

/// The allocator (see the README's dependencies: measured on the monitor).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod batch;
mod distributed;
mod gen_cmd;
mod model_cmd;
mod monitor_cmd;
mod partition_cmd;
mod plain;
mod progress;
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

// Deferred: only the subcommand used is built (building all eleven touched 70 more pages
// and cost 0.4 ms of CPU per start). A deferred subcommand's arguments are added after its
// doc comment, so the `Args` structs carry no doc comment (it would replace the `about`).
#[derive(Subcommand)]
#[command(defer = true)]
enum Command {
    /// Check multitraces against a model (.hif, .mmd, .puml, .timbuk or compiled .mtm).
    Check(Box<CheckArgs>),
    /// Compile a model (.hif or .timbuk) into a .mtm artifact.
    Compile(CompileArgs),
    /// Describe a model: kind, locations, automata sizes, compile time.
    Inspect(InspectArgs),
    /// Compile a compiled model's source again and compare byte for byte (exit 0: identical,
    /// 1: different): the check that detects a stale, mismatched or forged .mtm.
    Verify(VerifyArgs),
    /// Draw a model: its interaction as a sequence diagram, or its NFA or one location's local
    /// verifier (SVG, Graphviz, ...: the output's extension says which).
    Draw(DrawArgs),
    /// Distributed AS, local step: check one location's trace, write its summary.
    Local(distributed::LocalArgs),
    /// Distributed AS, central step: combine the local summaries into a verdict.
    Central(distributed::CentralArgs),
    /// Generate multitraces of a verdict category (checked, labelled, reproducible).
    Gen(gen_cmd::GenArgs),
    /// Compare AC and AS (and term exploration) on sets of multitraces.
    Compare(gen_cmd::CompareArgs),
    /// Which participants must be monitored together: whether local checks alone miss
    /// violations for a partition into locations, and the finest partitions where they do not.
    Partition(partition_cmd::PartitionArgs),
    /// Live verdicts on event streams: one record per run as soon as it is final (a Fail at
    /// the event that makes it certain), files followed as they grow.
    Monitor(Box<monitor_cmd::MonitorArgs>),
}

/// Membership question.
#[cfg_attr(test, derive(Debug, PartialEq))]
#[derive(Clone, Copy, ValueEnum)]
pub enum ModeArg {
    /// Is the multitrace accepted? (Pass or Fail)
    Complete,
    /// Is it a multi-prefix of an accepted multitrace? (Pass, WeakPass or Fail)
    Prefix,
}

/// Check procedure.
#[cfg_attr(test, derive(Debug, PartialEq))]
#[derive(Clone, Copy, ValueEnum)]
pub enum ProcedureArg {
    /// AS on automata models, term exploration on term-only models.
    Auto,
    /// Central check: one search over the interleavings of the local traces.
    Ac,
    /// Semi-distributed: each location's trace checked alone, then one central search on
    /// what they all allow.
    As,
    /// Term exploration: follows the interaction's own semantics (any model with one).
    Term,
}

/// When to color the verdicts of text output.
#[cfg_attr(test, derive(Debug))]
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum ColorArg {
    /// On a terminal, unless NO_COLOR is set.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// Output format: `text` or `json` in every command (`jsonl` is the same: JSON output, one
/// object per record where there are records).
#[cfg_attr(test, derive(Debug))]
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum FormatArg {
    /// One line per multitrace and a summary.
    Text,
    /// One JSON object per multitrace (JSON Lines).
    #[value(name = "json", alias = "jsonl")]
    Jsonl,
}

// How a source model is compiled, and how a compiled model is checked against its source (a
// plain comment: as a doc comment it would be the `about` of every deferred subcommand that
// flattens it).
#[cfg_attr(test, derive(Debug, PartialEq))]
#[derive(Args, Clone)]
#[command(next_help_heading = "Model")]
pub struct ModelArgs {
    /// Signature file (.hsf).
    ///
    /// Default: `<stem>.hsf` or signature.hsf beside the model, or signature.hsf in its parent
    /// directory, else names are inferred from the interaction. With a compiled model (.mtm):
    /// only with --source, the signature of that source.
    #[arg(long)]
    signature: Option<PathBuf>,
    /// Locations: groups of lifelines or letters, e.g. 'l1,l2;l3'.
    ///
    /// Groups of lifelines (interactions) or letters (Timbuk). Default: one per lifeline, or
    /// the Timbuk file's Systems block. Source models only.
    #[arg(long)]
    locations: Option<String>,
    /// A random partition into N locations (with --seed). Source models only.
    #[arg(long, value_name = "N", conflicts_with = "locations")]
    random_locations: Option<usize>,
    /// Seed of --random-locations (and of `gen`).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Largest NFA synthesized from an interaction [default: 200000].
    ///
    /// Above it the model is term-only (checked by term exploration). Source models only.
    #[arg(long, value_name = "STATE_CAP")]
    state_cap: Option<usize>,
    /// Largest local verifier, in DFA states per location [default: 200000].
    ///
    /// Above it an interaction is term-only and a raw automaton is refused. Source models
    /// only.
    #[arg(long, value_name = "DFA_CAP")]
    dfa_cap: Option<usize>,
    /// Largest table of areas of the local verifiers, in MiB [default: 256].
    ///
    /// All locations together (a sparse area costs 4 bytes per transition, a dense one a bit
    /// per NFA transition); above it an interaction is term-only and a raw automaton is
    /// refused. Source models only.
    #[arg(long, value_name = "MIB")]
    area_cap_mb: Option<usize>,
    /// With a compiled model (.mtm): the source it was compiled from.
    ///
    /// A .hif (with the signature given or found as for compiling) or .timbuk; a model
    /// compiled from anything else is refused (compile it again). Without it, the source the
    /// model records is compared.
    #[arg(long, value_name = "FILE")]
    source: Option<PathBuf>,
    /// With a compiled model (.mtm): use it even when its source has changed.
    ///
    /// The change is then a note instead of an error.
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
    pub fn mode(self) -> multitrace_runtime::verdict::Mode {
        match self {
            ModeArg::Complete => multitrace_runtime::verdict::Mode::Complete,
            ModeArg::Prefix => multitrace_runtime::verdict::Mode::Prefix,
        }
    }
}

#[cfg_attr(test, derive(Debug, PartialEq))]
#[derive(Args)]
struct CheckArgs {
    /// The model: an interaction (.hif), a sequence diagram (.mmd, .md, .puml), a Timbuk automaton (.timbuk) or a compiled model (.mtm).
    model: PathBuf,
    /// Multitrace files (.htf, .mtf, .jsonl) or directories searched for them; `-` reads JSON
    /// Lines from standard input.
    #[arg(required_unless_present_any = ["events", "xes", "otel"])]
    traces: Vec<PathBuf>,
    /// Event logs instead of multitraces (JSON Lines or CSV, `-`: standard input).
    ///
    /// Events are grouped by run, each location's events sorted by order key (the location of
    /// an action comes from the model); one record per run.
    #[arg(long, value_name = "FILE", num_args = 1.., conflicts_with = "traces", help_heading = "Input")]
    events: Vec<PathBuf>,
    /// XES event logs (IEEE 1849, `.xes` or `.xes.gz`) instead of multitraces: a trace is a
    /// run; the action is the event's concept:name (--action-field), the order its
    /// time:timestamp (--order-field; `document`: the order in the trace).
    #[arg(long, value_name = "FILE", num_args = 1.., conflicts_with_all = ["traces", "events"], help_heading = "Input")]
    xes: Vec<PathBuf>,
    /// OpenTelemetry spans instead of multitraces: OTLP JSON (the Collector's file exporter,
    /// one ExportTraceServiceRequest per line) or OTLP protobuf. service.name is the
    /// lifeline, the span kind says emission or reception, the trace is the run.
    #[arg(long, value_name = "FILE", num_args = 1.., conflicts_with_all = ["traces", "events", "xes"], help_heading = "Input")]
    otel: Vec<PathBuf>,
    /// --otel: a mapping file overriding the rules (`lifeline = ATTR`, `run = ATTR`,
    /// `message = ATTR`, `reply_suffix = TEXT`).
    #[arg(long, value_name = "FILE", requires = "otel", help_heading = "Input")]
    otel_map: Option<PathBuf>,
    /// --xes: the event attribute naming the lifeline of actions written `!m` or `?m` (e.g.
    /// org:resource).
    #[arg(long, value_name = "KEY", help_heading = "Input")]
    lifeline_field: Option<String>,
    /// --events: the field holding the run id.
    #[arg(long, value_name = "F", default_value = "run", help_heading = "Input")]
    run_field: String,
    /// --events: the field holding the action (or automaton letter).
    #[arg(
        long,
        value_name = "F",
        default_value = "action",
        help_heading = "Input"
    )]
    action_field: String,
    /// --events: the field holding the order key (integer, number or RFC 3339 timestamp).
    #[arg(
        long,
        value_name = "F",
        default_value = "order",
        help_heading = "Input"
    )]
    order_field: String,
    /// --events: the format of every file (default: .csv is CSV, anything else JSON Lines).
    #[arg(long, value_parser = ["jsonl", "csv"], help_heading = "Input")]
    events_format: Option<String>,
    /// --events: the events of a run are contiguous (sorted by run): stream, one run in memory.
    #[arg(long, help_heading = "Input")]
    events_sorted: bool,
    /// Whole runs (complete) or beginnings of runs (prefix: logs may stop early).
    ///
    /// complete: Pass or Fail. prefix: Pass, WeakPass (the logs look cut short) or Fail.
    #[arg(
        short,
        long,
        value_enum,
        default_value = "prefix",
        help_heading = "Checking"
    )]
    mode: ModeArg,
    /// How verdicts are computed (all give the same verdicts).
    #[arg(
        short,
        long,
        value_enum,
        default_value = "auto",
        help_heading = "Checking"
    )]
    procedure: ProcedureArg,
    /// Expected verdicts: a manifest.tsv written by `gen`, or a TSV of `trace<TAB>verdict`
    /// rows; the exit status then says whether they held.
    ///
    /// Every mismatch is reported on standard error as MISMATCH with the row's FILE:LINE. Rows
    /// of a gen manifest in the other mode are skipped (and counted). Exit status: 0 when every
    /// expectation held (expected Fails included), 1 on a mismatch, 2 on errors.
    #[arg(long, value_name = "FILE", help_heading = "Checking")]
    expect: Option<PathBuf>,
    /// Worker threads (default: the number of cores).
    #[arg(short, long, help_heading = "Checking")]
    jobs: Option<usize>,
    /// Output format (text, or json: one JSON object per line; `jsonl` is the same).
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
    /// Print only failures, inconclusive verdicts, errors and the summary.
    #[arg(long, short, help_heading = "Output")]
    quiet: bool,
    /// Color the verdicts of text output (auto: on a terminal, unless NO_COLOR is set).
    #[arg(long, value_enum, default_value = "auto", help_heading = "Output")]
    color: ColorArg,
    /// Never show the progress bar (shown on a terminal by default).
    #[arg(long, help_heading = "Output")]
    no_progress: bool,
    /// Do not explain failures (the reason is then the procedure's own, with no detail).
    #[arg(long, help_heading = "Output")]
    no_diagnosis: bool,
    /// Also write an HTML report of the batch to this file.
    ///
    /// Counts, timing, options, a table filterable by verdict, the first failures drawn in full
    /// (one lane per location, the blocked actions highlighted), the model's diagram.
    /// Self-contained (no network).
    #[arg(long, value_name = "FILE.html", help_heading = "Output")]
    report: Option<PathBuf>,
    #[command(flatten)]
    model_args: ModelArgs,
    /// Time budget per multitrace in milliseconds (0: none); then the verdict is Inconclusive.
    #[arg(long, default_value_t = 10_000, help_heading = "Limits")]
    timeout_ms: u64,
    /// Search-vertex budget per multitrace (0: none); then the verdict is Inconclusive.
    #[arg(long, default_value_t = 5_000_000, help_heading = "Limits")]
    max_vertices: u64,
    /// Memory budget of one check in MiB, per worker (0: none); then the verdict is
    /// Inconclusive.
    ///
    /// The search structures of a check and its diagnosis. Default: half the memory the process
    /// may use (physical memory or `ulimit -v`, the smaller) divided among the workers.
    #[arg(long, value_name = "MIB", help_heading = "Limits")]
    max_memory: Option<u64>,
    /// Search-vertex budget of the explanation of one failure (0: none).
    ///
    /// All its queries together; when it runs out the verdict stands and the explanation is
    /// marked partial.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 1_000_000,
        help_heading = "Limits"
    )]
    max_diagnosis_vertices: u64,
    /// Longest JSON Lines line in bytes (default 256 MiB).
    ///
    /// A longer line is an input error and its file is not read further.
    #[arg(long, value_name = "N", default_value_t = 256 << 20, help_heading = "Limits")]
    max_line_bytes: u64,
    /// --events: most events held at once (unsorted input), or in one run (sorted input).
    #[arg(
        long,
        value_name = "N",
        default_value_t = 10_000_000,
        help_heading = "Limits"
    )]
    max_buffered_events: usize,
    /// Term exploration: disable partial order reduction.
    #[arg(long, help_heading = "Tuning (term exploration)")]
    no_por: bool,
    /// Term exploration: disable local analyses.
    #[arg(long, help_heading = "Tuning (term exploration)")]
    no_loc: bool,
    /// Term exploration: disable memoization of visited vertices.
    #[arg(long, help_heading = "Tuning (term exploration)")]
    no_memo: bool,
}

#[derive(Args)]
struct CompileArgs {
    /// The model (.hif or .timbuk).
    model: PathBuf,
    /// Fail unless the model compiles to automata.
    #[arg(long, conflicts_with = "term_only", help_heading = "Compiling")]
    automata: bool,
    /// Store the interaction only (checked by term exploration).
    #[arg(long, help_heading = "Compiling")]
    term_only: bool,
    /// Output file (.mtm).
    #[arg(short, long, help_heading = "Output")]
    output: PathBuf,
    #[command(flatten)]
    model_args: ModelArgs,
}

#[derive(Args)]
struct VerifyArgs {
    /// The compiled model (.mtm).
    model: PathBuf,
    /// Source and compile options: `--source FILE` (default: the source the model records),
    /// `--signature`, and the options it was compiled with (default: its own locations and
    /// the default caps).
    #[command(flatten)]
    model_args: ModelArgs,
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
    /// Draw the NFA of the model.
    #[arg(long, conflicts_with_all = ["dfa", "diagram", "pnml", "mermaid", "plantuml"], required_unless_present_any = ["dfa", "diagram", "pnml", "mermaid", "plantuml"], help_heading = "Drawing")]
    nfa: bool,
    /// Draw the local verifier of this location (its name, e.g. l1 or l1,l2).
    ///
    /// The automaton that checks the location's own trace: its states are sets of states of
    /// the NFA, its transitions carry area ids.
    #[arg(
        long,
        value_name = "LOCATION",
        conflicts_with = "diagram",
        help_heading = "Drawing"
    )]
    dfa: Option<String>,
    /// Draw the interaction as a sequence diagram (SVG, written without external programs;
    /// term-only models too).
    #[arg(long, conflicts_with = "pnml", help_heading = "Drawing")]
    diagram: bool,
    /// Write the NFA as a PNML Petri net, for process-mining tools such as pm4py.
    ///
    /// A place per state, a labelled transition per NFA transition, a silent transition from
    /// each accepting state to one final place.
    #[arg(long, conflicts_with = "dfa", help_heading = "Drawing")]
    pnml: bool,
    /// Write the interaction as a Mermaid sequenceDiagram.
    ///
    /// Weak loops, alt, opt, par and messages; other operators are refused with what to do
    /// instead.
    #[arg(long, conflicts_with_all = ["dfa", "diagram", "pnml", "plantuml"], help_heading = "Drawing")]
    mermaid: bool,
    /// Write the interaction as a PlantUML sequence diagram.
    ///
    /// As --mermaid, and messages to or from the environment cross the border.
    #[arg(long, conflicts_with_all = ["dfa", "diagram", "pnml"], help_heading = "Drawing")]
    plantuml: bool,
    /// Output file; its extension names the format: .svg (drawn without external programs),
    /// .dot (Graphviz text), .png, .pdf, ... (with Graphviz installed); `-` for standard output.
    ///
    /// --nfa and --dfa: .svg is drawn here with a layered layout; .dot or .gv is Graphviz
    /// text, with a .svg beside it when a `dot` program is present; .png, .pdf, .jpg, .gif,
    /// .ps, .eps, ... are rendered by `dot` and refused without it. --diagram writes .svg,
    /// --pnml .pnml, --mermaid .mmd, --plantuml .puml. Any other extension is refused before
    /// anything is written.
    #[arg(short, long, help_heading = "Output")]
    output: PathBuf,
    #[command(flatten)]
    model_args: ModelArgs,
}

fn main() -> ExitCode {
    // A closed standard error (`2>&1 | head`) makes `eprintln!` panic, in any thread: stop
    // quietly as on a closed standard output, not with a panic's status 101.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if info
            .payload_as_str()
            .is_some_and(|m| m.starts_with("failed printing to std"))
        {
            std::process::exit(141);
        }
        default_hook(info);
    }));
    let result = match plain::plain_check(std::env::args_os()) {
        // `check MODEL.mtm TRACE...`: no clap, and no thread (see `batch::check_on_main`).
        Some(args)
            if multitrace_compiler::open::is_artifact(&args.model) && main_stack_suffices() =>
        {
            let here = std::panic::AssertUnwindSafe(|| batch::check_on_main(args));
            std::panic::catch_unwind(here).unwrap_or_else(|_| Err(thread_panicked()))
        }
        Some(args) => on_checking_stack(move || batch::check(args)),
        None => on_checking_stack(run),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        // The reader went away (`| head`): stop quietly, with the status a process killed by
        // SIGPIPE has (128 + 13), as grep does; Rust ignores the signal, so it is an error here.
        Err(e) if closed_pipe(&e) => ExitCode::from(141),
        Err(e) => {
            eprintln!("multitrace: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// Runs `f` on a thread with a large stack (deep interactions recurse in the semantic
/// functions). The arguments are parsed there too, so that one heap (the thread's) serves the
/// whole command: what clap frees is reused by the check instead of new pages being touched.
fn on_checking_stack(
    f: impl FnOnce() -> anyhow::Result<u8> + Send + 'static,
) -> anyhow::Result<u8> {
    let worker = std::thread::Builder::new()
        .stack_size(multitrace_runtime::check::explore::CHECK_STACK_SIZE)
        .spawn(f);
    match worker.map(|h| h.join()) {
        Ok(Ok(r)) => r,
        Ok(Err(_)) => Err(thread_panicked()),
        Err(e) => Err(anyhow::anyhow!("cannot start: {e}")),
    }
}

/// Whether the main thread's stack may grow to 1 MiB (`ulimit -s`, its soft limit), 30 times
/// what a check of a compiled model needs on it (it overflows below 32 KiB; term exploration
/// runs elsewhere). A process started with less checks on the checking-stack thread.
fn main_stack_suffices() -> bool {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit only writes one `rlimit` through the pointer, which points to a live,
    // writable, properly aligned local of that type. Measured reason: the main thread saves
    // a one-multitrace check the checking thread's 0.07 ms (docs/performance.md, "Start-up"),
    // and std has no way to ask the limit.
    let asked = unsafe { libc::getrlimit(libc::RLIMIT_STACK, &mut limit) };
    asked == 0 && (limit.rlim_cur == libc::RLIM_INFINITY || limit.rlim_cur >= 1 << 20)
}

/// The error of a command that panicked (after the panic's own message).
fn thread_panicked() -> anyhow::Error {
    anyhow::anyhow!("internal error (a thread panicked); please report it")
}

/// Parses the arguments and runs the command; the exit status.
fn run() -> anyhow::Result<u8> {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return Ok(if e.use_stderr() { 2 } else { 0 });
        }
    };
    match cli.command {
        Command::Check(args) => batch::check(*args),
        Command::Compile(args) => model_cmd::compile(args),
        Command::Inspect(args) => model_cmd::inspect(args),
        Command::Verify(args) => model_cmd::verify(args),
        Command::Draw(args) => model_cmd::draw(args),
        Command::Local(args) => distributed::local(args),
        Command::Central(args) => distributed::central(args),
        Command::Gen(args) => gen_cmd::gen(args),
        Command::Compare(args) => gen_cmd::compare(args),
        Command::Partition(args) => partition_cmd::partition(args),
        Command::Monitor(args) => monitor_cmd::monitor(*args),
    }
}

/// Whether `e` comes from writing to a pipe whose reader closed it.
fn closed_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Writes `text` to standard output; an error (a closed pipe) is returned, not a panic as
/// with `print!`.
fn print_out(text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()
}
