//! What `partition` does before and around [`run_with`]: the request as given on the command
//! line ([`PartitionRequest`]: plain numbers, `0` for none), checked and turned into the
//! source, the partition, the compile options and the [`RunOptions`] of the analysis
//! ([`PartitionJob::prepare`]), with the notes the command prints (a signature inferred, the
//! files `--check-local` skips).

use super::central::CentralLimits;
use super::deadline::Deadline;
use super::inclusion::InclusionLimits;
use super::options::{Question, RunOptions};
use super::report::Report;
use super::run::{open, run_with, RunError};
use super::search::SearchLimits;
use crate::limits::{time_limit, TimeLimitError};
use crate::progress::ProgressFn;
use multitrace_compiler::compile::{CompileOptions, LocationChoice};
use multitrace_compiler::source::Source;
use multitrace_formats::input::{collect_traces, content_extension, WalkError};
use multitrace_formats::output::{check_writable_dir, UnwritableOutput};
use multitrace_model::verdict::Mode;
use std::fmt;
use std::path::{Path, PathBuf};

// The struct's documentation is for rustdoc only (`cfg(doc)`): clap would make a doc comment
// the `about` of the (deferred) subcommand. Its fields' docs are the command line's help.
#[cfg_attr(
    doc,
    doc = "What `partition` is asked, as given on its command line (plain numbers, `0` for none;"
)]
#[cfg_attr(doc, doc = "with the `clap` feature, its arguments).")]
#[cfg_attr(not(doc), allow(missing_docs))]
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct PartitionRequest {
    /// The model: an interaction (.hif) or a Timbuk automaton (.timbuk).
    ///
    /// A compiled model (.mtm) is refused: other partitions are compiled from the source.
    pub model: PathBuf,
    /// Signature file (.hsf); default as for the other commands.
    #[cfg_attr(feature = "clap", arg(long, help_heading = "Model"))]
    pub signature: Option<PathBuf>,
    /// The partition to analyze, e.g. 'A;B,C;D'.
    ///
    /// Groups of lifelines (interactions) or letters (Timbuk). Default: one location per
    /// lifeline, or the Timbuk file's Systems block. Coarsenings are searched from it.
    #[cfg_attr(feature = "clap", arg(long, help_heading = "Model"))]
    pub locations: Option<String>,
    /// Complete observation or partial observation (multi-prefixes).
    #[cfg_attr(
        feature = "clap",
        arg(
            short,
            long,
            value_enum,
            default_value = "prefix",
            help_heading = "Analysis"
        )
    )]
    pub mode: Mode,
    /// The question that decides the exit status.
    #[cfg_attr(
        feature = "clap",
        arg(long, value_enum, default_value = "a", help_heading = "Analysis")
    )]
    pub question: Question,
    /// (b): multitraces of at most N actions are searched exhaustively.
    #[cfg_attr(
        feature = "clap",
        arg(long, value_name = "N", default_value_t = 8, help_heading = "Limits")
    )]
    pub max_length: usize,
    /// (b): most multitraces checked by the exhaustive search.
    #[cfg_attr(
        feature = "clap",
        arg(
            long,
            value_name = "N",
            default_value_t = 200_000,
            help_heading = "Limits"
        )
    )]
    pub max_multitraces: u64,
    /// (b): random mixes of accepted runs tried after the exhaustive search.
    #[cfg_attr(
        feature = "clap",
        arg(
            long,
            value_name = "N",
            default_value_t = 2_000,
            help_heading = "Limits"
        )
    )]
    pub samples: u64,
    /// Seed of the random mixes.
    #[cfg_attr(
        feature = "clap",
        arg(long, default_value_t = 0, help_heading = "Analysis")
    )]
    pub seed: u64,
    /// (a): most messages in flight per channel counted exactly.
    ///
    /// Beyond it the counter is abstracted: a proof still holds for every trace.
    #[cfg_attr(
        feature = "clap",
        arg(long, value_name = "K", default_value_t = 3, help_heading = "Limits")
    )]
    pub max_in_flight: u32,
    /// (a): most product states per search.
    #[cfg_attr(
        feature = "clap",
        arg(
            long,
            value_name = "N",
            default_value_t = 1_000_000,
            help_heading = "Limits"
        )
    )]
    pub max_states: usize,
    /// Memory budget of the searches in MiB (0: none); then the question is undecided.
    ///
    /// (a): the product's states and the determinized automata built for it (or the traces
    /// enumerated, when the global language is not regular); (a) and (b): each check.
    /// Default: half the memory the process may use (physical memory or `ulimit -v`, the
    /// smaller).
    #[cfg_attr(
        feature = "clap",
        arg(long, value_name = "MIB", help_heading = "Limits")
    )]
    pub max_memory: Option<u64>,
    /// Time limit of the whole command in seconds (0: none); then the question is undecided.
    ///
    /// Checked inside every search ((a), (b), the finest faithful partitions); each check by
    /// the runtime gets the time left. Compiling a model is not interrupted.
    #[cfg_attr(
        feature = "clap",
        arg(
            long,
            value_name = "SECONDS",
            default_value_t = 10.0,
            help_heading = "Limits"
        )
    )]
    pub timeout: f64,
    /// Finest faithful partitions: most partitions enumerated (B(10) = 115,975).
    #[cfg_attr(
        feature = "clap",
        arg(
            long,
            value_name = "N",
            default_value_t = 200_000,
            help_heading = "Limits"
        )
    )]
    pub max_partitions: usize,
    /// Finest faithful partitions: most product searches.
    #[cfg_attr(
        feature = "clap",
        arg(
            long,
            value_name = "N",
            default_value_t = 2_000,
            help_heading = "Limits"
        )
    )]
    pub max_searches: usize,
    /// Analyze the given partition only (no search of the finest faithful partitions).
    #[cfg_attr(feature = "clap", arg(long, help_heading = "Analysis"))]
    pub no_search: bool,
    /// Write the counterexamples into DIR as files `check` accepts.
    #[cfg_attr(
        feature = "clap",
        arg(short, long, value_name = "DIR", help_heading = "Output")
    )]
    pub output: Option<PathBuf>,
    /// Check these multitraces (.htf, .mtf or directories) with the local verifiers only.
    ///
    /// A LocalError is a Fail, and "every local check passes" is a Pass (or WeakPass) only
    /// where (b) is proven; otherwise the verdict says why it is undecided.
    #[cfg_attr(feature = "clap", arg(long, value_name = "TRACES", num_args = 1.., help_heading = "Analysis"))]
    pub check_local: Vec<PathBuf>,
    /// Largest NFA synthesized from an interaction. [default: 200000]
    #[cfg_attr(feature = "clap", arg(long, value_name = "N", help_heading = "Model"))]
    pub state_cap: Option<usize>,
    /// Largest local verifier (DFA states per location). [default: 200000]
    #[cfg_attr(feature = "clap", arg(long, value_name = "N", help_heading = "Model"))]
    pub dfa_cap: Option<usize>,
    /// Largest table of areas of the local verifiers, in MiB. [default: 256]
    #[cfg_attr(
        feature = "clap",
        arg(long, value_name = "MIB", help_heading = "Model")
    )]
    pub area_cap_mb: Option<usize>,
}

/// Why `partition` could not run (exit status 2), each with the message the command prints.
#[derive(Clone, Debug, PartialEq)]
pub enum RequestError {
    /// `--timeout` is not a number of seconds.
    TimeLimit(TimeLimitError),
    /// The output directory cannot be written.
    Output(UnwritableOutput),
    /// The model or the partition could not be read.
    Run(RunError),
    /// The files of `--check-local` could not be listed.
    Walk(WalkError),
}

impl fmt::Display for RequestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestError::TimeLimit(e) => e.fmt(f),
            RequestError::Output(e) => e.fmt(f),
            RequestError::Run(e) => e.fmt(f),
            RequestError::Walk(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for RequestError {
    // Transparent: the wrapped error's own cause, so that a printed chain is unchanged.
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RequestError::Run(e) => std::error::Error::source(e),
            _ => None,
        }
    }
}

impl From<TimeLimitError> for RequestError {
    fn from(e: TimeLimitError) -> Self {
        RequestError::TimeLimit(e)
    }
}

impl From<UnwritableOutput> for RequestError {
    fn from(e: UnwritableOutput) -> Self {
        RequestError::Output(e)
    }
}

impl From<RunError> for RequestError {
    fn from(e: RunError) -> Self {
        RequestError::Run(e)
    }
}

impl From<WalkError> for RequestError {
    fn from(e: WalkError) -> Self {
        RequestError::Walk(e)
    }
}

/// A checked request, with its model read: [`PartitionJob::run`] runs the analysis.
pub struct PartitionJob {
    source: Source,
    given: LocationChoice,
    compile: CompileOptions,
    options: RunOptions,
}

impl PartitionJob {
    /// Checks the time limit (and starts it: the model's compilation counts) and the output
    /// directory, reads the model and the partition, and lists the files of `--check-local`;
    /// `note` gets the notes (the signature inferred from the interaction, the files skipped).
    pub fn prepare(
        r: PartitionRequest,
        note: &mut dyn FnMut(String),
    ) -> Result<PartitionJob, RequestError> {
        let deadline = Deadline::after(time_limit(r.timeout)?);
        if let Some(dir) = &r.output {
            check_writable_dir(dir, "--output")?;
        }
        let defaults = CompileOptions::default();
        let compile = CompileOptions {
            state_cap: r.state_cap.unwrap_or(defaults.state_cap),
            dfa_cap: r.dfa_cap.unwrap_or(defaults.dfa_cap),
            area_cap: r
                .area_cap_mb
                .map_or(defaults.area_cap, |mb| mb.saturating_mul(1 << 20)),
            ..defaults
        };
        let (source, given) = open(&r.model, r.signature.as_deref(), r.locations.as_deref())?;
        if let Some(n) = inferred_signature_note(&source, &r.model) {
            note(n);
        }
        let max_memory = match r.max_memory {
            Some(0) => None,
            Some(mb) => Some(mb.saturating_mul(1 << 20)),
            None => Some(multitrace_model::budget::default_max_memory(1)),
        };
        let options = RunOptions {
            locations_given: r.locations.is_some(),
            mode: r.mode,
            question: r.question,
            inclusion: InclusionLimits {
                max_states: r.max_states,
                max_in_flight: r.max_in_flight,
                max_length: r.max_length,
                max_words: r.max_multitraces,
                max_memory,
                deadline,
            },
            central: CentralLimits {
                max_length: r.max_length,
                max_multitraces: r.max_multitraces,
                samples: r.samples,
                seed: r.seed,
                max_memory,
                deadline,
            },
            search: SearchLimits {
                max_partitions: r.max_partitions,
                max_searches: r.max_searches,
            },
            no_search: r.no_search,
            output: r.output,
            check_local: check_local_files(&r.check_local, note)?,
            model: r.model,
            signature: r.signature,
        };
        Ok(PartitionJob {
            source,
            given,
            compile,
            options,
        })
    }

    /// The analysis ([`run_with`]), reporting to `progress`.
    pub fn run(self, progress: Option<ProgressFn>) -> Result<Report, RunError> {
        run_with(
            self.source,
            self.given,
            &self.compile,
            self.options,
            progress,
        )
    }
}

impl Report {
    /// What `partition` prints: the text for people, or (`json`) one JSON object and a line
    /// break.
    pub fn output(&self, json: bool) -> String {
        if json {
            format!("{}\n", self.json())
        } else {
            self.text()
        }
    }
}

/// The note that an interaction read without a signature file had its names inferred (a typo
/// shows up as an extra name); `None` otherwise.
pub fn inferred_signature_note(source: &Source, model: &Path) -> Option<String> {
    let Source::Interaction(m) = source else {
        return None;
    };
    if m.signature_file.is_some() {
        return None;
    }
    let mut l: Vec<&str> = m.signature.lifelines().iter().map(String::as_str).collect();
    let mut ms: Vec<&str> = m.signature.messages().iter().map(String::as_str).collect();
    l.sort_unstable();
    ms.sort_unstable();
    Some(format!(
        "no signature file for {}; inferred lifelines ({}) and messages ({}) from the interaction; a typo shows up here as an extra name",
        model.display(),
        l.join(", "),
        ms.join(", ")
    ))
}

/// The multitraces of `--check-local`, found by `check`'s walk (skipped files named in a
/// note; compressed files kept); JSON Lines files are named in a note and skipped (one
/// multitrace a file).
pub fn check_local_files(
    paths: &[PathBuf],
    note: &mut dyn FnMut(String),
) -> Result<Vec<PathBuf>, WalkError> {
    if paths.is_empty() {
        return Ok(Vec::new());
    }
    let files = collect_traces(paths, note)?;
    let (jsonl, files): (Vec<PathBuf>, Vec<PathBuf>) = files
        .into_iter()
        .partition(|f| content_extension(f) == Some("jsonl"));
    if let Some(first) = jsonl.first() {
        note(format!(
            "--check-local reads .htf and .mtf files (also compressed); {} JSON Lines file(s) skipped, the first {}",
            jsonl.len(),
            first.display()
        ));
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_local_skips_json_lines_with_a_note() {
        let dir = tempfile::tempdir().unwrap();
        for f in ["a.htf", "b.jsonl", "c.mtf"] {
            std::fs::write(dir.path().join(f), "").unwrap();
        }
        let mut notes = Vec::new();
        let files = check_local_files(&[dir.path().to_path_buf()], &mut |n| notes.push(n)).unwrap();
        let names: Vec<_> = files.iter().map(|f| f.file_name().unwrap()).collect();
        assert_eq!(names, ["a.htf", "c.mtf"]);
        assert_eq!(notes.len(), 1);
        assert!(
            notes[0].contains("1 JSON Lines file(s) skipped, the first"),
            "{notes:?}"
        );
        assert!(check_local_files(&[], &mut |_| panic!())
            .unwrap()
            .is_empty());
    }
}
