//! Distributed AS driven from files (seed 004's architecture): the local step reads one
//! location's trace from a multitrace file and makes its summary ([`local_step`]); the central
//! step reads every location's summary, checks that each is what the local verifier gives its
//! own trace, and combines them into the record of `check --procedure as` ([`central_step`]).
//!
//! The summary format, its writer and its validating reader are [`multitrace_check::summary`]; the
//! central search is [`multitrace_check::semi::central_check`]. This module adds what every front
//! end needs around them: the files, the cross-check, the record and the lines that say what
//! was read.

use multitrace_check::explore::Budget;
use multitrace_check::semi::{central_check, local_summary};
use multitrace_check::summary::write_summary;
use multitrace_check::summary::{
    mode_name, read_summary, LocalSummary, Summary, SummaryError, SummarySet,
};
use multitrace_check::{CheckError, CheckOptions, Engine};
use multitrace_formats::output::{
    check_writable, refuse_overwrite, OverwriteError, UnwritableOutput,
};
use multitrace_formats::{parse_htf, parse_mtf};
use multitrace_model::model::{CompiledModel, TraceMismatch};
use multitrace_model::nfa::{LetterId, LocationId};
use multitrace_model::record::{Names, Record};
use multitrace_model::syntax::{read_text, ModelError, ParseError};
use multitrace_model::tally::Tally;
use multitrace_model::verdict::Procedure;
use multitrace_model::verdict::{Mode, Sym, Verdict};
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Why a step of distributed AS could not run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DistributedError {
    /// The location is not one of the model's.
    UnknownLocation {
        /// The name given.
        location: String,
        /// The model, as named by the user.
        model: String,
        /// The model's locations.
        locations: Vec<String>,
    },
    /// A file could not be read.
    Read(ModelError),
    /// A multitrace file is not valid.
    Parse(ParseError),
    /// An `.htf` file given with a raw automaton (which has no signature to read it with).
    NeedsMtf {
        /// The file.
        file: String,
    },
    /// An `.htf` multitrace does not fit the model's locations.
    Letters {
        /// The file.
        file: String,
        /// Why.
        error: TraceMismatch,
    },
    /// The multitrace file has no trace for the location.
    NoTrace {
        /// The file.
        file: String,
        /// The location.
        location: String,
    },
    /// The local verifier could not run on the model.
    Local {
        /// The model, as named by the user.
        model: String,
        /// Why.
        error: SummaryError,
    },
    /// A summary is not valid, or the summaries do not fit together or with the model.
    Summary(SummaryError),
    /// The model has no automata.
    TermOnly {
        /// The model, as named by the user.
        model: String,
    },
    /// A summary's verdict or area is not what the local verifier gives its trace.
    Altered {
        /// The summary file.
        file: String,
        /// Its location.
        location: String,
    },
    /// The diagnosis of a failure could not run.
    Check(CheckError),
}

impl fmt::Display for DistributedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DistributedError::UnknownLocation {
                location,
                model,
                locations,
            } => write!(
                f,
                "--location {location}: not a location of {model}; its locations are {}",
                locations.join(" ")
            ),
            DistributedError::Read(e) => e.fmt(f),
            DistributedError::Parse(e) => e.fmt(f),
            DistributedError::NeedsMtf { file } => {
                write!(f, "{file}: this model is a raw automaton; give an .mtf file")
            }
            DistributedError::Letters { file, error } => write!(f, "{file}: {error}"),
            DistributedError::NoTrace { file, location } => {
                write!(f, "{file}: no trace for location {location}")
            }
            DistributedError::Local { model, error } => write!(f, "{model}: {error}"),
            DistributedError::Summary(e) => e.fmt(f),
            DistributedError::TermOnly { model } => write!(
                f,
                "{model}: this model is term-only: distributed AS needs automata (its local verifiers); use `multitrace check --procedure term`"
            ),
            DistributedError::Altered { file, location } => write!(
                f,
                "{file}: its verdict or area is not what the local verifier of {location} gives its own trace; the summary was altered or written for another model: run `multitrace local` again"
            ),
            DistributedError::Check(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for DistributedError {
    // Transparent: a wrapped error's own causes, not the wrapped error again.
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            DistributedError::Read(e) => e.source(),
            _ => None,
        }
    }
}

impl From<ModelError> for DistributedError {
    fn from(e: ModelError) -> Self {
        DistributedError::Read(e)
    }
}

impl From<ParseError> for DistributedError {
    fn from(e: ParseError) -> Self {
        DistributedError::Parse(e)
    }
}

impl From<SummaryError> for DistributedError {
    fn from(e: SummaryError) -> Self {
        DistributedError::Summary(e)
    }
}

impl From<CheckError> for DistributedError {
    fn from(e: CheckError) -> Self {
        DistributedError::Check(e)
    }
}

/// The result of the local step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocalRun {
    /// The location.
    pub location: String,
    /// The mode checked.
    pub mode: Mode,
    /// The summary to send to the central step.
    pub summary: LocalSummary,
}

impl LocalRun {
    /// Whether the local trace passed (else its verifier found a LocalError).
    pub fn passed(&self) -> bool {
        self.summary.position.is_none()
    }

    /// The exit status of `local`: 0 when the local trace passed, 1 on a LocalError.
    pub fn exit_code(&self) -> u8 {
        if self.passed() {
            0
        } else {
            1
        }
    }

    /// Writes the summary (JSON) to the file `output`, whole or not at all.
    pub fn write(&self, output: &Path) -> Result<(), SummaryOutputError> {
        let fail = |error| SummaryOutputError::Write {
            file: output.display().to_string(),
            error,
        };
        let mut bytes = Vec::new();
        write_summary(&self.summary, &mut bytes).map_err(fail)?;
        std::fs::write(output, bytes).map_err(fail)
    }

    /// A note when the location's trace is empty: the file has no component for it, or an
    /// empty one. The verdict stands (an empty trace is a valid observation), but a wrong file
    /// or `--location` gives the same, so it is said.
    pub fn empty_note(&self, trace_file: &str) -> Option<String> {
        self.summary.trace.is_empty().then(|| {
            format!(
                "{trace_file} holds no action of {loc} (no component for {loc}, or an empty one): its local verdict is that of an empty trace; check the file and --location",
                loc = self.location
            )
        })
    }

    /// What the step found and where its summary went: `l1: local verdict Pass (3 actions,
    /// prefix mode); summary written to s1.json`.
    pub fn message(&self, output: &str) -> String {
        let s = &self.summary;
        let actions = plural(s.trace.len(), "action");
        match s.position {
            Some(p) => {
                let found = s
                    .trace
                    .get(p)
                    .map_or("the end of the trace".to_string(), |a| {
                        format!("action {} `{a}`", p + 1)
                    });
                format!(
                    "{}: local verdict LocalError at {found} ({actions}; its local verifier allowed {}); summary written to {output}",
                    self.location,
                    or_nothing(&s.expected),
                )
            }
            None => format!(
                "{}: local verdict {} ({actions}, {} mode); summary written to {output}",
                self.location,
                s.verdict,
                mode_name(self.mode)
            ),
        }
    }
}

/// Why the summary of the local step cannot be written, each with the message the command
/// prints.
#[derive(Debug)]
pub enum SummaryOutputError {
    /// The output file cannot be written (checked before anything is read).
    Unwritable(UnwritableOutput),
    /// The output file is one of the inputs.
    Overwrite(OverwriteError),
    /// Writing failed: `FILE: cannot write`, caused by `error`.
    Write {
        /// The file, as given.
        file: String,
        /// Why.
        error: std::io::Error,
    },
}

impl fmt::Display for SummaryOutputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SummaryOutputError::Unwritable(e) => e.fmt(f),
            SummaryOutputError::Overwrite(e) => e.fmt(f),
            SummaryOutputError::Write { file, .. } => write!(f, "{file}: cannot write"),
        }
    }
}

impl std::error::Error for SummaryOutputError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SummaryOutputError::Write { error, .. } => Some(error),
            _ => None,
        }
    }
}

/// Checks, before the local step reads anything, that its summary can be written to `output`
/// (`-o`) and would overwrite neither the `model` nor the `trace` file.
pub fn check_summary_output(
    output: &Path,
    model: &Path,
    trace: &Path,
) -> Result<(), SummaryOutputError> {
    check_writable(output, "-o").map_err(SummaryOutputError::Unwritable)?;
    refuse_overwrite(output, &[model, trace]).map_err(SummaryOutputError::Overwrite)
}

/// The budget of the central step: `max_vertices` and `timeout_ms` (milliseconds), `0` being
/// no bound.
pub fn central_budget(max_vertices: u64, timeout_ms: u64) -> Budget {
    Budget {
        max_vertices: (max_vertices > 0).then_some(max_vertices),
        timeout: (timeout_ms > 0).then(|| Duration::from_millis(timeout_ms)),
        ..Budget::default()
    }
}

/// The local step: reads the trace of `location` from `trace` (`.mtf`, or `.htf` for an
/// interaction model) and checks it on its local verifier. `model_name` names the model in
/// messages.
pub fn local_step(
    model: &CompiledModel,
    model_name: &str,
    location: &str,
    trace: &Path,
    mode: Mode,
) -> Result<LocalRun, DistributedError> {
    let locations = model.alphabet.location_names();
    let Some(k) = locations.iter().position(|n| n == location) else {
        return Err(DistributedError::UnknownLocation {
            location: location.to_string(),
            model: model_name.to_string(),
            locations: locations.to_vec(),
        });
    };
    // A compressed trace (`.gz`, `.zst`) is read as `check` reads it.
    let text = multitrace_formats::input::read_input_text(trace)?;
    let file = trace.display().to_string();
    let traces = if trace.extension().is_some_and(|e| e == "mtf") {
        parse_mtf(&file, &text, &model.alphabet)?
    } else {
        let Some(sig) = model.signature() else {
            return Err(DistributedError::NeedsMtf { file });
        };
        let (mt, _) = parse_htf(&file, &text, sig)?;
        match model.letter_traces(&mt) {
            Ok(t) => t,
            Err(error) => return Err(DistributedError::Letters { file, error }),
        }
    };
    let Some(letters) = traces.get(k) else {
        return Err(DistributedError::NoTrace {
            file,
            location: location.to_string(),
        });
    };
    let summary = local_summary(model, LocationId(k as u32), letters, mode).map_err(|error| {
        DistributedError::Local {
            model: model_name.to_string(),
            error,
        }
    })?;
    Ok(LocalRun {
        location: location.to_string(),
        mode,
        summary,
    })
}

/// The result of the central step.
#[derive(Clone, Debug)]
pub struct CentralRun {
    /// The summaries, one per location.
    pub set: SummarySet,
    /// The verdict, diagnosed when it is a Fail.
    pub verdict: Verdict,
    /// Its record (named after the summary files, joined by commas).
    pub record: Record,
    /// What was read: `location clt1: s1.json (local Pass, 3 actions)`, one per summary.
    pub inputs: Vec<String>,
    /// Time from reading the first summary to the diagnosed verdict.
    pub time: Duration,
}

impl CentralRun {
    /// The text output: the inputs, the record without its name, the witness, and a summary
    /// line.
    pub fn text_lines(&self) -> Vec<String> {
        let mut lines = self.inputs.clone();
        let line = self.record.text_line();
        // The record's line without its name: the inputs are listed above.
        lines.push(line[self.record.name().len() + 2..].to_string());
        if let Some(w) = &self.record.witness {
            lines.push(format!("  witness: {}", w.join(" ")));
        }
        let summaries = self.set.summaries();
        let actions: usize = summaries.iter().map(|s| s.trace().len()).sum();
        let v = &self.verdict;
        let verdict = match &v.reason {
            Some(r) => format!("{} ({})", v.kind, r.name()),
            None => v.kind.to_string(),
        };
        lines.push(format!(
            "1 multitrace from {} ({}, {} mode): {verdict}; time {}",
            plural(summaries.len(), "summary"),
            plural(actions, "action"),
            mode_name(self.set.mode()),
            multitrace_model::tally::human(self.time)
        ));
        lines
    }

    /// What goes to standard output, one line break after each line: the text lines, or
    /// (`json`) the record's JSON object (the inputs are then notes on standard error).
    pub fn output(&self, json: bool) -> String {
        let lines = if json {
            vec![self.record.to_json()]
        } else {
            self.text_lines()
        };
        lines.iter().map(|l| format!("{l}\n")).collect()
    }

    /// The exit status of `check` for this verdict.
    pub fn exit_code(&self) -> u8 {
        let mut t = Tally::default();
        t.add(&self.record, false);
        t.exit_code()
    }
}

/// The central step: reads the `summaries` (one per location), checks that each is what the
/// local verifier gives its own trace (else it was altered, or comes from another model), and
/// runs the central search within `budget`, then the diagnosis of a Fail. `model_name` names
/// the model in messages.
pub fn central_step(
    engine: &Engine,
    model_name: &str,
    summaries: &[PathBuf],
    budget: Budget,
    witness: bool,
) -> Result<CentralRun, DistributedError> {
    let Some(tables) = engine.tables() else {
        return Err(DistributedError::TermOnly {
            model: model_name.to_string(),
        });
    };
    let model = engine.model();
    let start = Instant::now();
    let mut read = Vec::new();
    for p in summaries {
        let text = read_text(p)?;
        read.push(read_summary(&p.display().to_string(), &text, model)?);
    }
    let set = SummarySet::new(model, read)?;
    for s in set.summaries() {
        let again = local_summary(model, s.location(), s.trace(), set.mode())?;
        if again != s.to_local(model) {
            return Err(DistributedError::Altered {
                file: s.file().to_string(),
                location: location_name(model, s.location()),
            });
        }
    }
    let mut verdict = central_check(model, tables, &set, &budget, witness)?;
    let traces: Vec<Vec<LetterId>> = set.summaries().iter().map(|s| s.trace().to_vec()).collect();
    let opts = CheckOptions {
        mode: set.mode(),
        budget,
        ..CheckOptions::default()
    };
    engine.explain_letters(&mut engine.scratch(), &traces, &opts, &mut verdict)?;
    let time = start.elapsed();
    let render = |s: Sym| model.sym_name(s);
    let names = model.alphabet.location_names().to_vec();
    let trace = set
        .summaries()
        .iter()
        .map(Summary::file)
        .collect::<Vec<_>>()
        .join(",");
    let record = Record::checked(
        trace,
        None,
        &verdict,
        Procedure::As,
        &Names {
            render: &render,
            locations: &names,
        },
        time,
    );
    let inputs = set
        .summaries()
        .iter()
        .map(|s| {
            format!(
                "location {}: {} (local {}, {})",
                location_name(model, s.location()),
                s.file(),
                s.verdict_name(),
                plural(s.trace().len(), "action")
            )
        })
        .collect();
    Ok(CentralRun {
        set,
        verdict,
        record,
        inputs,
        time,
    })
}

fn location_name(model: &CompiledModel, k: LocationId) -> String {
    model
        .alphabet
        .location_names()
        .get(k.index())
        .cloned()
        .unwrap_or_else(|| format!("#{}", k.index()))
}

/// `1 action`, `3 actions`, `1 summary`, `2 summaries`.
fn plural(n: usize, word: &str) -> String {
    match (n, word.strip_suffix('y')) {
        (1, _) => format!("1 {word}"),
        (_, Some(stem)) => format!("{n} {stem}ies"),
        (_, None) => format!("{n} {word}s"),
    }
}

/// `a, b or c`; `nothing` for none.
fn or_nothing(items: &[String]) -> String {
    match items {
        [] => "nothing".into(),
        [a] => a.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_is_no_bound_and_a_summary_output_is_checked() {
        let b = central_budget(0, 0);
        assert_eq!((b.max_vertices, b.timeout), (None, None));
        let b = central_budget(5, 20);
        assert_eq!(b.max_vertices, Some(5));
        assert_eq!(b.timeout, Some(Duration::from_millis(20)));
        let (m, t) = (Path::new("m.mtm"), Path::new("t.mtf"));
        let e = check_summary_output(Path::new("/"), m, t).unwrap_err();
        assert!(matches!(e, SummaryOutputError::Unwritable(_)), "{e}");
        let e = SummaryOutputError::Write {
            file: "s.json".into(),
            error: std::io::Error::other("full"),
        };
        assert_eq!(e.to_string(), "s.json: cannot write");
        assert!(std::error::Error::source(&e).is_some());
    }

    #[test]
    fn plurals_of_actions_and_summaries() {
        assert_eq!(plural(1, "summary"), "1 summary");
        assert_eq!(plural(2, "summary"), "2 summaries");
        assert_eq!(plural(0, "action"), "0 actions");
        assert_eq!(or_nothing(&[]), "nothing");
        assert_eq!(
            or_nothing(&["a".into(), "b".into(), "c".into()]),
            "a, b or c"
        );
    }
}
