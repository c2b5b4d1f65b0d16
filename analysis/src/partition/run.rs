//! The whole analysis of one model, as the `partition` command runs it: question (a) and (b) for
//! the given partition, each counterexample re-checked by the runtime; the static analysis and
//! the finest faithful partitions, with the partitions seed 002 derives and those our static
//! conditions predict judged against them; the counterexample files ([`super::files`]); and the
//! local verifiers alone on multitraces ([`super::local`]).
//!
//! [`run`] gives a [`Report`], which the command prints as text or JSON ([`Report::text`],
//! [`Report::json`]) and whose [`super::report::Outcome`] is the exit status.

use super::central::{self, Central};
use super::files::{self, FileError};
use super::inclusion::{self, GlobalCounterexample, Inclusion};
use super::local::{self, LocalError};
use super::options::{Question, RunOptions, MAX_SHOWN};
use super::recheck::{recheck, Recheck};
use super::report::{Analysed, Analysis, Derived, Judged, NoAutomata, Outcome, Report};
use super::search::{self, SearchOutcome, Status};
use super::{Analyzer, Partition, PartitionError, Problem};
use crate::progress::ProgressFn;
use multitrace_check::Engine;
use multitrace_compiler::compile::{CompileOptions, LocationChoice};
use multitrace_compiler::source::{read_source, Source, SourceError};
use multitrace_compiler::syntax::parse_locations_spec;
use multitrace_model::nfa::LetterId;
use multitrace_model::signature::LifelineId;
use multitrace_model::verdict::{Mode, VerdictKind};
use std::fmt;
use std::path::{Path, PathBuf};

/// Why the analysis could not run (input errors; exit status 2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunError {
    /// A compiled model (`.mtm`) was given: other partitions are compiled from the source.
    CompiledModel {
        /// The file.
        path: PathBuf,
    },
    /// The partition given is not valid (`--locations`).
    Locations {
        /// What is wrong, with the option's name.
        message: String,
    },
    /// The model could not be read.
    Source(SourceError),
    /// The analysis could not run on the model.
    Partition(PartitionError),
    /// A counterexample that the runtime does not confirm (a bug: the analysis and the
    /// runtime disagree).
    Unconfirmed {
        /// The question it answers (`None`: a partition judged during the search).
        question: Option<Question>,
        /// The word.
        word: String,
        /// The partition's name.
        partition: String,
        /// The runtime's re-check, when it is shown.
        recheck: Option<String>,
    },
    /// A counterexample the search recorded could not be found again (a bug).
    Vanished {
        /// The partition's name.
        partition: String,
    },
    /// A counterexample file could not be written.
    File(FileError),
    /// The local checks could not run.
    Local(LocalError),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::CompiledModel { path } => write!(
                f,
                "{}: partition needs the source model (.hif or .timbuk), since it compiles the model with other locations; give the interaction or Timbuk file this compiled model was compiled from (`multitrace inspect` shows it as `source:`)",
                path.display()
            ),
            RunError::Locations { message } => f.write_str(message),
            RunError::Source(e) => e.fmt(f),
            RunError::Partition(e) => e.fmt(f),
            RunError::Unconfirmed {
                question,
                word,
                partition,
                recheck,
            } => {
                write!(f, "internal error: the counterexample {word}")?;
                if let Some(q) = question {
                    write!(f, " to ({})", q.name())?;
                }
                write!(f, " for {partition} is not confirmed by the runtime")?;
                if let Some(r) = recheck {
                    write!(f, " ({r})")?;
                }
                f.write_str("; please report it")
            }
            RunError::Vanished { .. } => f.write_str("internal error: a counterexample vanished"),
            RunError::File(e) => e.fmt(f),
            RunError::Local(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for RunError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        // Transparent: the wrapped error's own cause, so that a printed chain is unchanged.
        match self {
            RunError::Local(e) => e.source(),
            _ => None,
        }
    }
}

impl From<PartitionError> for RunError {
    fn from(e: PartitionError) -> Self {
        RunError::Partition(e)
    }
}

impl From<FileError> for RunError {
    fn from(e: FileError) -> Self {
        RunError::File(e)
    }
}

impl From<LocalError> for RunError {
    fn from(e: LocalError) -> Self {
        RunError::Local(e)
    }
}

/// Reads the source model at `model` (with `signature`, as the other commands do) and the
/// partition to analyze (`locations`: groups of lifelines or letters, as `--locations` takes
/// them; `None`: the default). A compiled model is refused, since the analysis compiles the
/// source with other locations.
pub fn open(
    model: &Path,
    signature: Option<&Path>,
    locations: Option<&str>,
) -> Result<(Source, LocationChoice), RunError> {
    if model
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("mtm"))
    {
        return Err(RunError::CompiledModel {
            path: model.to_path_buf(),
        });
    }
    let given = match locations {
        Some(spec) => {
            LocationChoice::Groups(parse_locations_spec(spec).map_err(|e| RunError::Locations {
                message: e.to_string(),
            })?)
        }
        None => LocationChoice::Default,
    };
    let source = read_source(model, signature).map_err(RunError::Source)?;
    Ok((source, given))
}

/// Runs the analysis of `source` for the partition `given` (the caps of `compile` apply to
/// every partition compiled), writing the counterexample files and running the local checks
/// that `options` ask for.
pub fn run(
    source: Source,
    given: LocationChoice,
    compile: &CompileOptions,
    options: RunOptions,
) -> Result<Report, RunError> {
    run_with(source, given, compile, options, None)
}

/// [`run`], reporting the product states the searches of (a) build to `progress` (no total:
/// a search ends when it decides).
pub fn run_with(
    source: Source,
    given: LocationChoice,
    compile: &CompileOptions,
    options: RunOptions,
    progress: Option<ProgressFn>,
) -> Result<Report, RunError> {
    let problem = match Problem::new(source, given, compile, None) {
        Ok(p) => p,
        Err(reason @ PartitionError::NotAutomata { .. }) => {
            return Ok(Report::NoAutomata(Box::new(NoAutomata { options, reason })))
        }
        Err(e) => return Err(e.into()),
    };
    let mode = options.mode;
    let mut an = Analyzer::with_progress(&problem, progress);
    let given_p = Partition::finest(problem.atoms());
    let main = analyze(&mut an, &problem, &given_p, mode, &options)?;
    let complete = if !options.check_local.is_empty() && mode == Mode::Prefix {
        Some(analyze(
            &mut an,
            &problem,
            &given_p,
            Mode::Complete,
            &options,
        )?)
    } else {
        None
    };
    let written = match &options.output {
        Some(dir) => files::write(dir, &problem, &main, &options)?,
        None => Vec::new(),
    };

    // The finest faithful partitions, guided by seed 002's derivation and our static
    // prediction (decided first: their counterexamples are re-used, and the coarsenings of a
    // faithful one skipped).
    let atom_of = |l: LifelineId| problem.atom_of_lifeline(l.index()).unwrap_or(0);
    let cap = options.search.max_partitions.saturating_mul(10);
    let derived = problem.statics().map(|st| Derived {
        seed002: st.minimal_partitions(true, mode, problem.atoms(), &atom_of, cap),
        ours: st.minimal_partitions(false, mode, problem.atoms(), &atom_of, cap),
    });
    let shown = |list: &Option<Vec<Partition>>| -> Vec<Partition> {
        list.iter().flatten().take(MAX_SHOWN).cloned().collect()
    };
    let hints: Vec<Partition> = derived
        .iter()
        .flat_map(|d| shown(&d.ours).into_iter().chain(shown(&d.seed002)))
        .collect();
    let search = (!options.no_search && problem.exact()).then(|| {
        search::finest_faithful(
            &mut an,
            mode,
            &options.search,
            &options.inclusion,
            Some(&main.inclusion),
            &hints,
        )
    });
    let mut finest = Vec::new();
    let mut seed002_judged = Vec::new();
    let mut ours_judged = Vec::new();
    if let Some(out) = &search {
        finest = out
            .minimal()
            .into_iter()
            .map(|(i, certain)| (out.records[i].partition.clone(), certain))
            .collect();
        if let Some(d) = &derived {
            for p in shown(&d.seed002) {
                seed002_judged.push(judge(&mut an, &problem, out, &p, &options)?);
            }
            for p in shown(&d.ours) {
                ours_judged.push(judge(&mut an, &problem, out, &p, &options)?);
            }
        }
    }
    let local = if options.check_local.is_empty() {
        None
    } else {
        let paths = local::trace_files(&options.check_local)?;
        Some(local::check(
            &problem,
            &main,
            complete.as_ref(),
            mode,
            &paths,
        )?)
    };
    let outcome = match &local {
        Some(l) if l.iter().any(|v| v.verdict == VerdictKind::Fail) => Outcome::Refuted,
        Some(l) if l.iter().any(|v| v.verdict == VerdictKind::Inconclusive) => Outcome::Undecided,
        Some(_) => Outcome::Holds,
        None => main.outcome(options.question),
    };
    an.progress.finish(an.states_built);
    Ok(Report::Analysed(Box::new(Analysed {
        options,
        problem,
        main,
        search,
        finest,
        derived,
        seed002_judged,
        ours_judged,
        written,
        local,
        outcome,
    })))
}

/// (a), (b) and their re-checks for `p` in `mode`.
fn analyze(
    an: &mut Analyzer<'_>,
    problem: &Problem,
    p: &Partition,
    mode: Mode,
    options: &RunOptions,
) -> Result<Analysis, RunError> {
    let unconfirmed = |question: Question, w: &[LetterId], r: &Recheck| RunError::Unconfirmed {
        question: Some(question),
        word: problem.word(w),
        partition: problem.partition_name(p),
        recheck: Some(format!("{r:?}")),
    };
    let model = problem.compile(p)?;
    let (incl, _) = inclusion::check(an, p, mode, &options.inclusion);
    let inclusion_check = match &incl {
        Inclusion::Counterexample(c) => {
            let r = recheck(problem, &model, p, &c.word, mode)?;
            if !r.confirms_inclusion() {
                return Err(unconfirmed(Question::A, &c.word, &r));
            }
            Some(r)
        }
        _ => None,
    };
    let engine = Engine::new(model.clone());
    let cen = central::check(an, p, mode, &incl, &engine, &options.central)?;
    let central_check = match &cen {
        Central::Counterexample(c, _) => {
            let r = recheck(problem, &model, p, &c.interleaving, mode)?;
            if !r.confirms_central() || !r.confirms_inclusion() {
                return Err(unconfirmed(Question::B, &c.interleaving, &r));
            }
            Some(r)
        }
        _ => None,
    };
    // A counterexample to (b) interleaves into one to (a) (proven in `central`): it settles an
    // undecided (a).
    let (incl, inclusion_check) = match (&incl, &cen) {
        (Inclusion::Undecided(u), Central::Counterexample(c, _)) => (
            Inclusion::Counterexample(GlobalCounterexample::from_central(
                u,
                &c.interleaving,
                problem.causality(),
            )),
            central_check.clone(),
        ),
        _ => (incl, inclusion_check),
    };
    Ok(Analysis {
        partition: p.clone(),
        model,
        inclusion: incl,
        inclusion_check,
        central: cen,
        central_check,
    })
}

/// The status of a derived partition: as the search met it, or decided now when the search
/// stopped before it; a counterexample is re-checked by the runtime.
fn judge(
    an: &mut Analyzer<'_>,
    problem: &Problem,
    outcome: &SearchOutcome,
    p: &Partition,
    options: &RunOptions,
) -> Result<Judged, RunError> {
    let mode = options.mode;
    let mut status = outcome.status_of(p, &mut |q, w| an.locally_accepted(q, w, mode));
    if status.is_none() {
        status = Some(match inclusion::check(an, p, mode, &options.inclusion).0 {
            Inclusion::Faithful { in_flight } => Status::Faithful { in_flight },
            Inclusion::Counterexample(_) => Status::Refuted {
                index: usize::MAX,
                reused: false,
            },
            Inclusion::Undecided(u) => Status::Undecided(u),
        });
    }
    let counterexample = match &status {
        Some(Status::Refuted { index, .. }) => {
            let w = match outcome.counterexamples.get(*index) {
                Some(w) => w.clone(),
                None => match inclusion::check(an, p, mode, &options.inclusion).0 {
                    Inclusion::Counterexample(c) => c.word,
                    _ => {
                        return Err(RunError::Vanished {
                            partition: problem.partition_name(p),
                        })
                    }
                },
            };
            let model = problem.compile(p)?;
            let r = recheck(problem, &model, p, &w, mode)?;
            if !r.confirms_inclusion() {
                return Err(RunError::Unconfirmed {
                    question: None,
                    word: problem.word(&w),
                    partition: problem.partition_name(p),
                    recheck: None,
                });
            }
            Some(w)
        }
        _ => None,
    };
    Ok(Judged {
        partition: p.clone(),
        status,
        counterexample,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::partition::central::CentralLimits;
    use crate::partition::inclusion::InclusionLimits;
    use crate::partition::search::SearchLimits;

    fn options(model: PathBuf, mode: Mode, question: Question) -> RunOptions {
        RunOptions {
            model,
            signature: None,
            locations_given: false,
            mode,
            question,
            inclusion: InclusionLimits::default(),
            central: CentralLimits::default(),
            search: SearchLimits::default(),
            no_search: false,
            output: None,
            check_local: Vec::new(),
        }
    }

    /// Seed 002's ping/pong through the library alone: the finest faithful partition, the
    /// files written, and the file of (a)'s counterexample passing every local verifier.
    #[test]
    fn ping_pong_through_the_library() {
        let dir = std::env::temp_dir().join(format!("multitrace-run-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let model = dir.join("pp.hif");
        std::fs::write(&model, "strict(A -- ping -> B, C -- pong -> D)").unwrap();
        let (source, given) = open(&model, None, None).unwrap();
        let mut o = options(model.clone(), Mode::Complete, Question::A);
        o.output = Some(dir.join("out"));
        let report = run(source, given, &CompileOptions::default(), o).unwrap();
        assert_eq!(report.outcome(), Outcome::Refuted);
        let Report::Analysed(a) = &report else {
            panic!("not analysed")
        };
        let names: Vec<String> = a
            .finest
            .iter()
            .map(|(p, _)| a.problem.partition_name(p))
            .collect();
        assert_eq!(names, ["[A] [B,C] [D]"]);
        assert_eq!(a.seed002_judged.len(), 4);
        assert!(a.main.central_proven());
        assert_eq!(a.main.outcome(Question::B), Outcome::Holds);
        let files: Vec<&str> = a
            .written
            .iter()
            .filter_map(|w| w.path.file_name()?.to_str())
            .collect();
        assert_eq!(files, ["a-global.htf", "a-multitrace.htf"]);
        assert!(report.text().contains("(a) global traces: not faithful"));
        let v: serde_json::Value = serde_json::from_str(&report.json()).unwrap();
        assert_eq!(v["exit"], 1);
        // The projection of (a)'s counterexample passes every local verifier, and (b) is
        // proven: a Pass from the local verifiers alone.
        let (source, given) = open(&model, None, None).unwrap();
        let mut o = options(model.clone(), Mode::Complete, Question::A);
        o.no_search = true;
        o.check_local = vec![dir.join("out/a-multitrace.htf")];
        let report = run(source, given, &CompileOptions::default(), o).unwrap();
        let Report::Analysed(a) = &report else {
            panic!("not analysed")
        };
        let local = a.local.as_ref().unwrap();
        assert_eq!(local[0].verdict, VerdictKind::Pass, "{}", local[0].why);
        assert_eq!(report.outcome(), Outcome::Holds);
        // Input errors are typed.
        assert!(matches!(
            open(&dir.join("m.mtm"), None, None),
            Err(RunError::CompiledModel { .. })
        ));
        assert!(matches!(
            open(&model, None, Some(" ")),
            Err(RunError::Locations { .. })
        ));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
