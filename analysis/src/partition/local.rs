//! The local verifiers alone on multitraces (`--check-local`), with a verdict only where it is
//! never a guess: a LocalError is a Fail (exact); when every local check passes, a Pass or
//! WeakPass only where (b) is proven for the partition, otherwise Inconclusive with the reason.

use super::report::{Analysis, LocalVerdict};
use super::Problem;
use multitrace_check::semi::{local_check, LocalOutcome};
use multitrace_formats::{parse_htf, parse_mtf};
use multitrace_model::model::TraceMismatch;
use multitrace_model::nfa::{LetterId, LocationId};
use multitrace_model::syntax::{ModelError, ParseError};
use multitrace_model::verdict::{Mode, VerdictKind};
use std::fmt;
use std::path::{Path, PathBuf};

/// Why the local checks could not run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LocalError {
    /// A directory could not be listed.
    ReadDir {
        /// The directory.
        path: PathBuf,
        /// The system's explanation.
        message: String,
    },
    /// The paths hold no multitrace file.
    NoFiles,
    /// The partition's model has no automata.
    TermOnly,
    /// A multitrace file could not be read.
    Read(ModelError),
    /// A multitrace file is not valid.
    Parse(ParseError),
    /// A multitrace whose components are not the partition's locations.
    Locations {
        /// The file.
        file: String,
        /// What does not fit.
        mismatch: TraceMismatch,
        /// The partition's name (`[A] [B,C]`).
        partition: String,
    },
    /// A letter of the partition's model that the analysed model lacks (a bug).
    LetterMissing {
        /// The letter.
        letter: String,
    },
}

impl fmt::Display for LocalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LocalError::ReadDir { path, message } => {
                write!(f, "{}: cannot read: {message}", path.display())
            }
            LocalError::NoFiles => {
                f.write_str("--check-local: no multitrace files (.htf, .mtf) found")
            }
            LocalError::TermOnly => f.write_str("the partition's model has no automata"),
            LocalError::Read(e) => e.fmt(f),
            LocalError::Parse(e) => e.fmt(f),
            LocalError::Locations {
                file,
                mismatch,
                partition,
            } => write!(
                f,
                "{file}: {mismatch} (give the multitrace with the locations {partition})"
            ),
            LocalError::LetterMissing { .. } => {
                f.write_str("letter missing from the analysed model")
            }
        }
    }
}

impl std::error::Error for LocalError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        // Transparent: the read error's own cause.
        match self {
            LocalError::Read(e) => std::error::Error::source(e),
            _ => None,
        }
    }
}

/// Multitrace files under `paths`: files as given, directories searched recursively for
/// `*.htf` and `*.mtf` (sorted by path).
pub fn trace_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, LocalError> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), LocalError> {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(|e| LocalError::ReadDir {
                path: dir.to_path_buf(),
                message: e.to_string(),
            })?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out)?;
            } else if matches!(p.extension().and_then(|e| e.to_str()), Some("htf" | "mtf")) {
                out.push(p);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            walk(p, &mut out)?;
        } else {
            out.push(p.clone());
        }
    }
    if out.is_empty() {
        return Err(LocalError::NoFiles);
    }
    Ok(out)
}

/// Checks each multitrace of `files` with the local verifiers of `main`'s partition in `mode`;
/// `complete` is the analysis of the same partition in complete mode (prefix mode only: a
/// multitrace whose traces also pass complete local checks is a Pass where (b) is proven for
/// complete mode).
pub fn check(
    problem: &Problem,
    main: &Analysis,
    complete: Option<&Analysis>,
    mode: Mode,
    files: &[PathBuf],
) -> Result<Vec<LocalVerdict>, LocalError> {
    let model = &main.model;
    let automata = model.automata().ok_or(LocalError::TermOnly)?;
    let name = problem.partition_name(&main.partition);
    let mut out = Vec::new();
    for f in files {
        // Compressed files (`.gz`, `.zst`) are read as `check` reads them.
        let text = multitrace_formats::input::read_input_text(f).map_err(LocalError::Read)?;
        let file = f.display().to_string();
        let traces = match model.signature() {
            Some(sig) => {
                let (mt, _) = parse_htf(&file, &text, sig).map_err(LocalError::Parse)?;
                model
                    .letter_traces(&mt)
                    .map_err(|mismatch| LocalError::Locations {
                        file: file.clone(),
                        mismatch,
                        partition: name.clone(),
                    })?
            }
            None => parse_mtf(&file, &text, &model.alphabet).map_err(LocalError::Parse)?,
        };
        let mut area = vec![0u64; automata.areas.words()];
        let mut seen = Vec::new();
        let mut passes = |m: Mode| -> Option<(usize, usize, Vec<LetterId>)> {
            for (k, (t, dfa)) in traces.iter().zip(&automata.projections).enumerate() {
                if let LocalOutcome::Error { position, expected } =
                    local_check(automata, dfa, &model.alphabet, t, m, &mut area, &mut seen)
                {
                    return Some((k, position, expected));
                }
            }
            None
        };
        if let Some((k, position, expected)) = passes(mode) {
            let loc = model.alphabet.location_name(LocationId(k as u32));
            let allowed: Vec<&str> = expected.iter().map(|&l| model.alphabet.name(l)).collect();
            let allowed = if allowed.is_empty() {
                "nothing".to_string()
            } else {
                allowed.join(" or ")
            };
            let why = match traces[k].get(position) {
                Some(&l) => format!(
                    "LocalError: {loc} action {} '{}' is not allowed by {loc}'s local verifier, which allows {allowed} there",
                    position + 1,
                    model.alphabet.name(l)
                ),
                None => format!(
                    "LocalError: {loc}'s trace cannot end after action {position}: {loc}'s local verifier allows {allowed} there"
                ),
            };
            out.push(LocalVerdict {
                file,
                verdict: VerdictKind::Fail,
                why,
            });
            continue;
        }
        // Every local check passes. Causally possible? (global letters, by name)
        let global: Vec<Vec<LetterId>> = traces
            .iter()
            .map(|t| {
                t.iter()
                    .map(|&l| {
                        let letter = model.alphabet.name(l);
                        problem.analysis().alphabet.letter(letter).ok_or_else(|| {
                            LocalError::LetterMissing {
                                letter: letter.to_string(),
                            }
                        })
                    })
                    .collect::<Result<Vec<_>, _>>()
            })
            .collect::<Result<_, _>>()?;
        if problem.causality().interleave(&global).is_none() {
            out.push(LocalVerdict {
                file,
                verdict: VerdictKind::Inconclusive,
                why: "every local check passes, but no interleaving has each reception after its emission: the local verifiers' guarantee covers only what the network can produce; run the central step".into(),
            });
            continue;
        }
        let complete_ok = mode == Mode::Complete || passes(Mode::Complete).is_none();
        let proven = main.central_proven();
        let (verdict, why) = match mode {
            Mode::Complete if proven => (
                VerdictKind::Pass,
                format!("every local check passes, and the central step is proven unnecessary for {name} in complete mode"),
            ),
            Mode::Complete => (
                VerdictKind::Inconclusive,
                format!("every local check passes, but the central step is not proven unnecessary for {name} in complete mode: run it"),
            ),
            _ => {
                let complete_proven = complete.is_some_and(Analysis::central_proven);
                if complete_ok && complete_proven {
                    (
                        VerdictKind::Pass,
                        format!("every local check passes in complete mode, and the central step is proven unnecessary for {name} in complete mode"),
                    )
                } else if !complete_ok && proven {
                    (
                        VerdictKind::WeakPass,
                        format!("every local check passes in prefix mode (not in complete mode), and the central step is proven unnecessary for {name} in prefix mode"),
                    )
                } else if proven {
                    (
                        VerdictKind::Inconclusive,
                        format!("a multi-prefix of an accepted multitrace (proven for {name} in prefix mode); whether it is accepted needs the central step"),
                    )
                } else {
                    (
                        VerdictKind::Inconclusive,
                        format!("every local check passes, but the central step is not proven unnecessary for {name} in prefix mode: run it"),
                    )
                }
            }
        };
        out.push(LocalVerdict { file, verdict, why });
    }
    Ok(out)
}
