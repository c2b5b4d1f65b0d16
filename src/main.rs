//! `multitrace`: offline runtime verification of distributed systems.
//!
//! A thin command line over the libraries by role (`docs/layout.md`).
//! Exit status: 0 when every multitrace is Pass or WeakPass, 1 when any is Fail, 2 on usage or
//! input errors, 3 when none failed but some are Inconclusive.

/// The allocator (see the README's dependencies: measured on the monitor).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod args;
mod batch;
mod check_args;
mod distributed;
mod exit;
mod gen_cmd;
mod model_cmd;
mod monitor_cmd;
mod partition_cmd;
mod plain;
mod progress;
mod report_cmd;

use check_args::CheckArgs;
use clap::{Parser, Subcommand};
use exit::thread_panicked;
use model_cmd::{CompileArgs, DrawArgs, InspectArgs, VerifyArgs};
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

fn main() -> ExitCode {
    // A closed standard error (`2>&1 | head`) makes `eprintln!` panic, in any thread: stop
    // quietly as on a closed standard output, not with a panic's status 101.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if info.payload_as_str().is_some_and(|m| m.starts_with("failed printing to std")) {
            std::process::exit(141);
        }
        default_hook(info);
    }));
    let result = match plain::plain_check(std::env::args_os()) {
        // `check MODEL.mtm TRACE...`: no clap, and no thread (see `batch::check`).
        Some(args)
            if multitrace_compiler::open::is_artifact(&args.model) && main_stack_suffices() =>
        {
            let here = std::panic::AssertUnwindSafe(|| batch::check(args, true));
            std::panic::catch_unwind(here).unwrap_or_else(|_| Err(thread_panicked()))
        }
        Some(args) => on_checking_stack(move || batch::check(args, false)),
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
        .stack_size(multitrace_check::explore::CHECK_STACK_SIZE)
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
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit only writes one `rlimit` through the pointer, which points to a live,
    // writable, properly aligned local of that type. Measured reason: the main thread saves
    // a one-multitrace check the checking thread's 0.07 ms (docs/performance.md, "Start-up"),
    // and std has no way to ask the limit.
    let asked = unsafe { libc::getrlimit(libc::RLIMIT_STACK, &mut limit) };
    asked == 0 && (limit.rlim_cur == libc::RLIM_INFINITY || limit.rlim_cur >= 1 << 20)
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
        Command::Check(args) => batch::check(*args, false),
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
