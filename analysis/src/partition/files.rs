//! The counterexample files: each counterexample of an [`Analysis`] written as a multitrace
//! file that `multitrace check` accepts (`.htf` for interactions, `.mtf` for raw automata), with
//! the command that re-checks it and the verdict to expect.

use super::central::Central;
use super::inclusion::Inclusion;
use super::options::RunOptions;
use super::report::{Analysis, Written};
use super::{Partition, PartitionError, Problem};
use crate::generate::{render_htf, render_mtf};
use crate::manifest::mode_name;
use multitrace_model::model::CompiledModel;
use multitrace_model::nfa::LetterId;
use std::fmt::{self, Write as _};
use std::path::{Path, PathBuf};

/// Why a counterexample file could not be written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileError {
    /// The directory could not be created.
    CreateDir {
        /// The directory.
        path: PathBuf,
        /// The system's explanation.
        message: String,
    },
    /// A file could not be written.
    Write {
        /// The file.
        path: PathBuf,
        /// The system's explanation.
        message: String,
    },
    /// The multitrace could not be rendered with another partition's letters.
    Render(PartitionError),
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileError::CreateDir { path, message } => {
                write!(f, "{}: cannot create: {message}", path.display())
            }
            FileError::Write { path, message } => {
                write!(f, "{}: cannot write: {message}", path.display())
            }
            FileError::Render(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for FileError {}

impl From<PartitionError> for FileError {
    fn from(e: PartitionError) -> Self {
        FileError::Render(e)
    }
}

/// A shell word, quoted when needed.
pub fn quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-,=".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// `multitrace check MODEL [--signature SIG] --mode MODE`.
fn model_command(options: &RunOptions) -> String {
    let mut c = format!(
        "multitrace check {}",
        quote(&options.model.display().to_string())
    );
    if let Some(s) = &options.signature {
        let _ = write!(c, " --signature {}", quote(&s.display().to_string()));
    }
    let _ = write!(c, " --mode {}", mode_name(options.mode));
    c
}

/// The text of a multitrace file of `model` (`.htf` for interactions, `.mtf` otherwise).
fn render(
    problem: &Problem,
    model: &CompiledModel,
    traces: &[Vec<LetterId>],
) -> Result<String, PartitionError> {
    let t: Vec<Vec<LetterId>> = traces
        .iter()
        .map(|t| problem.translate(model, t))
        .collect::<Result<_, _>>()?;
    Ok(match render_htf(model, &t) {
        Some(s) => s,
        None => render_mtf(model, &t),
    })
}

/// Writes the counterexamples of `a` into `dir` (created if needed): `a-global` (the global
/// trace, one location holding everything), `a-multitrace` (its projection) and
/// `b-multitrace`.
pub fn write(
    dir: &Path,
    problem: &Problem,
    a: &Analysis,
    options: &RunOptions,
) -> Result<Vec<Written>, FileError> {
    std::fs::create_dir_all(dir).map_err(|e| FileError::CreateDir {
        path: dir.to_path_buf(),
        message: e.to_string(),
    })?;
    let ext = if problem.is_interaction() {
        "htf"
    } else {
        "mtf"
    };
    let spec = problem.locations_spec(&a.partition);
    let base = model_command(options);
    let mut out = Vec::new();
    let mut write = |name: &str, text: String, command: String, expect: String| {
        let path = dir.join(format!("{name}.{ext}"));
        std::fs::write(&path, text).map_err(|e| FileError::Write {
            path: path.clone(),
            message: e.to_string(),
        })?;
        out.push(Written {
            command: format!("{command} {}", quote(&path.display().to_string())),
            path,
            expect,
        });
        Ok::<(), FileError>(())
    };
    if let Inclusion::Counterexample(c) = &a.inclusion {
        let single = Partition::single(problem.atoms());
        // One location holding everything (the model compiled with it may be term-only).
        let one = if problem.is_interaction() {
            problem.global().clone()
        } else {
            problem.compile(&single)?
        };
        let procedure = if problem.exact() { "ac" } else { "term" };
        write(
            "a-global",
            render(problem, &one, std::slice::from_ref(&c.word))?,
            format!(
                "{base} --locations {} --procedure {procedure}",
                quote(&problem.locations_spec(&single))
            ),
            "Fail: A rejects the global trace".into(),
        )?;
        let traces = problem.project(&a.partition, &c.word);
        let verdict = a
            .inclusion_check
            .as_ref()
            .map(|r| r.multitrace.kind.name())
            .unwrap_or("?");
        write(
            "a-multitrace",
            render(problem, &a.model, &traces)?,
            format!("{base} --locations {} --procedure as", quote(&spec)),
            format!("{verdict}, not a LocalError: every local verifier accepts its trace"),
        )?;
    }
    if let Central::Counterexample(c, _) = &a.central {
        write(
            "b-multitrace",
            render(problem, &a.model, &c.traces)?,
            format!("{base} --locations {} --procedure as", quote(&spec)),
            "Fail (InterError or CentralError): every local verifier accepts its trace, the central step rejects the multitrace".into(),
        )?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words_are_quoted_only_when_needed() {
        assert_eq!(quote("fixtures/a-b_c.hif"), "fixtures/a-b_c.hif");
        assert_eq!(quote("A;B,C"), "'A;B,C'");
        assert_eq!(quote("it's"), "'it'\\''s'");
        assert_eq!(quote(""), "''");
    }
}
