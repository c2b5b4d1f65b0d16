//! The arguments that several commands share (procedure, color, output format; the mode is
//! the verdict's [`Mode`](multitrace_model::verdict::Mode), and the model options are
//! [`ModelOptions`], whose fields are the arguments), and [`load`], which
//! opens the model a command names. Each command's own arguments are in its file.

use clap::ValueEnum;
use multitrace_compiler::open::ModelOptions;
use multitrace_model::model::CompiledModel;
use std::path::Path;

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

/// Opens the model a command names at `path` with `opts` ([`multitrace_compiler::open`]:
/// stale compiled models, options that cannot apply, the names inferred without a signature
/// file), its notes printed.
pub fn load(path: &Path, opts: &ModelOptions) -> anyhow::Result<CompiledModel> {
    Ok(multitrace_compiler::open::open_model(path, opts, &mut note)?)
}

impl ProcedureArg {
    /// The procedure asked of a check (`check` and `monitor` alike).
    pub fn choice(self) -> multitrace_check::Choice {
        use multitrace_check::Choice;
        use multitrace_model::verdict::Procedure;
        match self {
            ProcedureArg::Auto => Choice::Auto,
            ProcedureArg::Ac => Choice::Force(Procedure::Ac),
            ProcedureArg::As => Choice::Force(Procedure::As),
            ProcedureArg::Term => Choice::Force(Procedure::Term),
        }
    }
}

/// Prints a note of the model's opening on standard error.
pub fn note(n: String) {
    eprintln!("multitrace: note: {n}");
}
