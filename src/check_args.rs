//! The arguments of `check` (parsed by clap, or by [`crate::plain`] for the plain form).

use crate::args::{ColorArg, FormatArg, ProcedureArg};
use clap::Args;
use multitrace_batch::inputs::InputArgs;
use multitrace_compiler::open::ModelOptions;
use multitrace_model::verdict::Mode;
use std::path::PathBuf;

#[cfg_attr(test, derive(Debug, PartialEq))]
#[derive(Args)]
pub struct CheckArgs {
    /// The model: an interaction (.hif), a sequence diagram (.mmd, .md, .puml), a Timbuk automaton (.timbuk) or a compiled model (.mtm).
    pub(crate) model: PathBuf,
    /// Multitrace files (.htf, .mtf, .jsonl) or directories searched for them; `-` reads JSON
    /// Lines from standard input.
    #[arg(required_unless_present_any = ["events", "xes", "otel"])]
    pub(crate) traces: Vec<PathBuf>,
    #[command(flatten)]
    pub(crate) input: InputArgs,
    /// Whole runs (complete) or beginnings of runs (prefix: logs may stop early).
    ///
    /// complete: Pass or Fail. prefix: Pass, WeakPass (the logs look cut short) or Fail.
    #[arg(short, long, value_enum, default_value = "prefix", help_heading = "Checking")]
    pub(crate) mode: Mode,
    /// How verdicts are computed (all give the same verdicts).
    #[arg(short, long, value_enum, default_value = "auto", help_heading = "Checking")]
    pub(crate) procedure: ProcedureArg,
    /// Expected verdicts: a manifest.tsv written by `gen`, or a TSV of `trace<TAB>verdict`
    /// rows; the exit status then says whether they held.
    ///
    /// Every mismatch is reported on standard error as MISMATCH with the row's FILE:LINE. Rows
    /// of a gen manifest in the other mode are skipped (and counted). Exit status: 0 when every
    /// expectation held (expected Fails included), 1 on a mismatch, 2 on errors.
    #[arg(long, value_name = "FILE", help_heading = "Checking")]
    pub(crate) expect: Option<PathBuf>,
    /// Worker threads (default: the number of cores).
    #[arg(short, long, help_heading = "Checking")]
    pub(crate) jobs: Option<usize>,
    /// Output format (text, or json: one JSON object per line; `jsonl` is the same).
    #[arg(short, long, value_enum, default_value = "text", help_heading = "Output")]
    pub(crate) format: FormatArg,
    /// For a Pass, print one accepted global interleaving.
    #[arg(long, help_heading = "Output")]
    pub(crate) witness: bool,
    /// Print only failures, inconclusive verdicts, errors and the summary.
    #[arg(long, short, help_heading = "Output")]
    pub(crate) quiet: bool,
    /// Color the verdicts of text output (auto: on a terminal, unless NO_COLOR is set).
    #[arg(long, value_enum, default_value = "auto", help_heading = "Output")]
    pub(crate) color: ColorArg,
    /// Never show the progress bar (shown on a terminal by default).
    #[arg(long, help_heading = "Output")]
    pub(crate) no_progress: bool,
    /// Do not explain failures (the reason is then the procedure's own, with no detail).
    #[arg(long, help_heading = "Output")]
    pub(crate) no_diagnosis: bool,
    /// Also write an HTML report of the batch to this file.
    ///
    /// Counts, timing, options, a table filterable by verdict, the first failures drawn in full
    /// (one lane per location, the blocked actions highlighted), the model's diagram.
    /// Self-contained (no network).
    #[arg(long, value_name = "FILE.html", help_heading = "Output")]
    pub(crate) report: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) model_args: ModelOptions,
    /// Time budget per multitrace in milliseconds (0: none); then the verdict is Inconclusive.
    #[arg(long, default_value_t = 10_000, help_heading = "Limits")]
    pub(crate) timeout_ms: u64,
    /// Search-vertex budget per multitrace (0: none); then the verdict is Inconclusive.
    #[arg(long, default_value_t = 5_000_000, help_heading = "Limits")]
    pub(crate) max_vertices: u64,
    /// Memory budget of one check in MiB, per worker (0: none); then the verdict is
    /// Inconclusive.
    ///
    /// The search structures of a check and its diagnosis. Default: half the memory the process
    /// may use (physical memory or `ulimit -v`, the smaller) divided among the workers.
    #[arg(long, value_name = "MIB", help_heading = "Limits")]
    pub(crate) max_memory: Option<u64>,
    /// Search-vertex budget of the explanation of one failure (0: none).
    ///
    /// All its queries together; when it runs out the verdict stands and the explanation is
    /// marked partial.
    #[arg(long, value_name = "N", default_value_t = 1_000_000, help_heading = "Limits")]
    pub(crate) max_diagnosis_vertices: u64,
    /// Longest JSON Lines line in bytes (default 256 MiB).
    ///
    /// A longer line is an input error and its file is not read further.
    #[arg(long, value_name = "N", default_value_t = 256 << 20, help_heading = "Limits")]
    pub(crate) max_line_bytes: u64,
    /// --events: most events held at once (unsorted input), or in one run (sorted input).
    #[arg(long, value_name = "N", default_value_t = 10_000_000, help_heading = "Limits")]
    pub(crate) max_buffered_events: usize,
    /// Term exploration: disable partial order reduction.
    #[arg(long, help_heading = "Tuning (term exploration)")]
    pub(crate) no_por: bool,
    /// Term exploration: disable local analyses.
    #[arg(long, help_heading = "Tuning (term exploration)")]
    pub(crate) no_loc: bool,
    /// Term exploration: disable memoization of visited vertices.
    #[arg(long, help_heading = "Tuning (term exploration)")]
    pub(crate) no_memo: bool,
}
