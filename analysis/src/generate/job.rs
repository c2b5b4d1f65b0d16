//! The whole of `gen` around [`generate_with`] ([`GenJob`]): the output directory and the time
//! limit checked first, the clock started before the model is loaded (loading counts), the
//! set's format chosen and checked, the generation, then what is written and said for each
//! outcome (a time limit reached, fewer multitraces than asked with `--allow-fewer`).
//!
//! What a skin prints goes through a `say` callback, one line at a time, in the order the
//! command always said it.

use super::driver::generate_with;
#[cfg(feature = "clap")]
use super::kinds::parse_length_range;
use super::kinds::Kind;
use super::output::{write_set, SetError, SetFormat};
use super::spec::{GenError, GenOptions, Generation};
use crate::limits::{nonzero, time_limit, TimeLimitError};
use crate::progress::ProgressFn;
use multitrace_check::Engine;
use multitrace_formats::output::{check_writable_dir, UnwritableOutput};
use multitrace_model::model::CompiledModel;
use std::fmt;
use std::path::PathBuf;
use std::time::{Duration, Instant};

// The struct's documentation is for rustdoc only (`cfg(doc)`): clap would make a doc comment
// the `about` of the (deferred) subcommand. Its fields' docs are the command line's help.
#[cfg_attr(
    doc,
    doc = "What `gen` is asked, as given on its command line (with the `clap` feature, its"
)]
#[cfg_attr(doc, doc = "arguments, `--seed` aside: the model options hold it).")]
#[cfg_attr(not(doc), allow(missing_docs))]
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct GenRequest {
    /// The model: an interaction (.hif), a sequence diagram (.mmd, .md, .puml), a Timbuk automaton (.timbuk) or a compiled model (.mtm).
    pub model: PathBuf,
    /// Category of the multitraces.
    #[cfg_attr(feature = "clap", arg(long, value_parser = kind_parser(), help_heading = "Generation"))]
    pub kind: Kind,
    /// Number of multitraces.
    #[cfg_attr(
        feature = "clap",
        arg(long, default_value_t = 100, help_heading = "Generation")
    )]
    pub count: usize,
    /// Total length (actions over all locations): MIN..MAX, both included, or N.
    #[cfg_attr(feature = "clap", arg(long, default_value = "10..20", value_parser = parse_length_range, help_heading = "Generation"))]
    pub length: (usize, usize),
    /// Output directory (created if needed).
    #[cfg_attr(feature = "clap", arg(short, long, help_heading = "Output"))]
    pub output: PathBuf,
    /// File format (default: htf for interactions, mtf for raw automata).
    #[cfg_attr(feature = "clap", arg(short, long, value_parser = format_parser(), help_heading = "Output"))]
    pub format: Option<SetFormat>,
    /// Most candidates to build and check (default: 100 per multitrace + 1000).
    #[cfg_attr(feature = "clap", arg(long, help_heading = "Limits"))]
    pub max_attempts: Option<usize>,
    /// Search-vertex budget per check (0: none); an Inconclusive candidate is never kept.
    #[cfg_attr(
        feature = "clap",
        arg(long, default_value_t = 5_000_000, help_heading = "Limits")
    )]
    pub max_vertices: u64,
    /// Most time for the whole generation, in seconds (0: none); reaching it exits with status 3.
    #[cfg_attr(
        feature = "clap",
        arg(
            long,
            value_name = "SECONDS",
            default_value_t = 300.0,
            help_heading = "Limits"
        )
    )]
    pub timeout: f64,
    /// Write what was produced when fewer than --count multitraces could be (default: error).
    #[cfg_attr(feature = "clap", arg(long, help_heading = "Generation"))]
    pub allow_fewer: bool,
    /// Seed of the generation (on the command line, the model options' `--seed`).
    #[cfg_attr(feature = "clap", arg(skip))]
    pub seed: u64,
}

/// `--kind`: the kinds, their names and help ([`Kind::ALL`]).
#[cfg(feature = "clap")]
fn kind_parser() -> impl clap::builder::TypedValueParser<Value = Kind> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    let values = Kind::ALL.map(|k| PossibleValue::new(k.name()).help(k.help()));
    PossibleValuesParser::new(values).try_map(|s| s.parse::<Kind>())
}

/// `--format`: the set formats ([`SetFormat::ALL`]).
#[cfg(feature = "clap")]
fn format_parser() -> impl clap::builder::TypedValueParser<Value = SetFormat> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    let values = SetFormat::ALL.map(|f| PossibleValue::new(f.name()).help(f.help()));
    PossibleValuesParser::new(values)
        .try_map(|s| SetFormat::from_name(&s).ok_or_else(|| format!("unknown format `{s}`")))
}

/// Why `gen` could not run (exit status 2), each with the message the command prints.
#[derive(Clone, Debug, PartialEq)]
pub enum GenJobError {
    /// The output directory cannot be written.
    Output(UnwritableOutput),
    /// `--timeout` is not a number of seconds.
    TimeLimit(TimeLimitError),
    /// The format does not fit the model, or a file could not be written.
    Set(SetError),
    /// The generation failed (or fell short without `--allow-fewer`).
    Gen(GenError),
}

impl fmt::Display for GenJobError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GenJobError::Output(e) => e.fmt(f),
            GenJobError::TimeLimit(e) => e.fmt(f),
            GenJobError::Set(e) => e.fmt(f),
            GenJobError::Gen(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for GenJobError {}

impl From<UnwritableOutput> for GenJobError {
    fn from(e: UnwritableOutput) -> Self {
        GenJobError::Output(e)
    }
}

impl From<TimeLimitError> for GenJobError {
    fn from(e: TimeLimitError) -> Self {
        GenJobError::TimeLimit(e)
    }
}

impl From<SetError> for GenJobError {
    fn from(e: SetError) -> Self {
        GenJobError::Set(e)
    }
}

impl From<GenError> for GenJobError {
    fn from(e: GenError) -> Self {
        GenJobError::Gen(e)
    }
}

/// How a generation ended (without an error).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GenEnd {
    /// The set was written (all asked, or fewer with `--allow-fewer`).
    Written,
    /// The time limit was reached (what was produced written with `--allow-fewer`).
    TimedOut,
}

impl GenEnd {
    /// The exit status of `gen`: 0 written, 3 when the time limit was reached.
    pub fn exit_code(self) -> u8 {
        match self {
            GenEnd::Written => 0,
            GenEnd::TimedOut => 3,
        }
    }
}

/// A `gen` run whose request was checked and whose clock runs ([`GenJob::start`]).
#[derive(Clone, Debug)]
pub struct GenJob {
    request: GenRequest,
    start: Instant,
    limit: Option<Duration>,
}

/// A `gen` run with its model loaded and its options set: [`Ready::generate`], then
/// [`Ready::finish`].
pub struct Ready {
    request: GenRequest,
    limit: Option<Duration>,
    engine: Engine,
    format: SetFormat,
    options: GenOptions,
}

impl GenJob {
    /// Checks that the output directory can be written and the time limit, then starts the
    /// clock (before the model is loaded: loading a large model counts).
    pub fn start(request: GenRequest) -> Result<GenJob, GenJobError> {
        check_writable_dir(&request.output, "--output")?;
        let limit = time_limit(request.timeout)?;
        Ok(GenJob {
            request,
            start: Instant::now(),
            limit,
        })
    }

    /// The loaded `model`, ready to generate; `None` when loading it used up the time limit
    /// (which is said).
    pub fn loaded(
        self,
        model: CompiledModel,
        say: &mut dyn FnMut(String),
    ) -> Result<Option<Ready>, GenJobError> {
        let r = self.request;
        let left = self.limit.map(|l| l.saturating_sub(self.start.elapsed()));
        if left.is_some_and(|l| l.is_zero()) {
            say(format!(
                "time limit of {} s reached while loading the model {}; raise --timeout (0: none)",
                r.timeout,
                r.model.display()
            ));
            return Ok(None);
        }
        let format = r.format.unwrap_or_else(|| SetFormat::default_for(&model));
        format.check(&model)?;
        let (min_len, max_len) = r.length;
        let options = GenOptions {
            max_attempts: r.max_attempts,
            max_vertices: nonzero(r.max_vertices),
            timeout: left,
            ..GenOptions::new(r.kind, r.count, min_len, max_len, r.seed)
        };
        Ok(Some(Ready {
            request: r,
            limit: self.limit,
            engine: Engine::new(model),
            format,
            options,
        }))
    }
}

impl Ready {
    /// What the progress bar says while generating: `generating 100 `pass` multitraces`.
    pub fn progress_message(&self) -> String {
        format!(
            "generating {} `{}` multitraces",
            self.request.count, self.request.kind
        )
    }

    /// The generation ([`generate_with`]), reporting to `progress`.
    pub fn generate(&self, progress: Option<ProgressFn>) -> Result<Generation, GenError> {
        generate_with(&self.engine, &self.options, progress)
    }

    /// Writes the set `generated` and says what was written: everything, or with
    /// `--allow-fewer` what a shortfall or the time limit left (the limit named as given,
    /// not what loading left of it).
    pub fn finish(
        &self,
        generated: Result<Generation, GenError>,
        say: &mut dyn FnMut(String),
    ) -> Result<GenEnd, GenJobError> {
        let r = &self.request;
        let (kind, out) = (r.kind, r.output.display());
        let generation = match generated {
            Ok(g) => g,
            Err(GenError::Timeout {
                kind,
                wanted,
                during,
                partial,
                ..
            }) => {
                let limit = self.limit.unwrap_or_default();
                let e = GenError::Timeout {
                    kind,
                    wanted,
                    limit,
                    during,
                    partial,
                };
                say(e.to_string());
                let partial = partial_of(e);
                if r.allow_fewer && !partial.items.is_empty() {
                    self.write(&partial)?;
                    let n = partial.items.len();
                    say(format!(
                        "wrote the {n} `{kind}` multitraces produced to {out} (--allow-fewer)"
                    ));
                }
                return Ok(GenEnd::TimedOut);
            }
            Err(e @ GenError::Shortfall { .. }) if r.allow_fewer => {
                say(format!("warning: {e}"));
                partial_of(e)
            }
            Err(e) => return Err(e.into()),
        };
        self.write(&generation)?;
        say(format!(
            "wrote {} `{kind}` multitraces to {out} ({} candidates; rejected: {})",
            generation.items.len(),
            generation.attempts,
            generation.rejected_summary()
        ));
        Ok(GenEnd::Written)
    }

    fn write(&self, generation: &Generation) -> Result<(), SetError> {
        let r = &self.request;
        write_set(
            self.engine.model(),
            generation,
            r.kind,
            self.format,
            &r.output,
        )
    }
}

/// What a shortfall or a timeout produced (nothing for other errors).
fn partial_of(e: GenError) -> Generation {
    match e {
        GenError::Shortfall { partial, .. } | GenError::Timeout { partial, .. } => *partial,
        _ => Generation::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(output: PathBuf, timeout: f64) -> GenRequest {
        GenRequest {
            model: "m.hif".into(),
            output,
            format: None,
            allow_fewer: false,
            kind: Kind::Pass,
            count: 1,
            length: (1, 2),
            seed: 0,
            max_attempts: None,
            max_vertices: 0,
            timeout,
        }
    }

    #[test]
    fn the_output_is_checked_before_the_time_limit() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, "").unwrap();
        let e = GenJob::start(request(file, -1.0)).unwrap_err();
        assert!(matches!(e, GenJobError::Output(_)), "{e}");
        let e = GenJob::start(request(dir.path().join("out"), -1.0)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "--timeout -1: give a number of seconds (0: no limit)"
        );
        let job = GenJob::start(request(dir.path().join("out"), 0.0)).unwrap();
        assert_eq!(job.limit, None);
    }

    #[test]
    fn the_partial_set_of_a_shortfall_is_kept() {
        let partial = Generation {
            attempts: 3,
            ..Generation::default()
        };
        let e = GenError::Shortfall {
            kind: Kind::Pass,
            wanted: 2,
            partial: Box::new(partial.clone()),
        };
        assert_eq!(partial_of(e), partial);
        assert_eq!(
            partial_of(GenError::Unsupported("x".into())),
            Generation::default()
        );
    }
}
