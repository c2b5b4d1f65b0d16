//! The exceptions raised to Python: the classes of `multitrace._errors` (`MultitraceError` and
//! its subclasses), made from the libraries' typed errors with the file, line and column when
//! they are known.
//!
//! Invariant: every error of the libraries reaches Python as one of these classes (or as a
//! `ValueError`/`TypeError` for a wrong argument), never as a panic: a panic caught on a
//! worker thread becomes [`internal`].

use multitrace_compiler::source::SourceError;
use multitrace_compiler::syntax::ModelError;
use multitrace_model::record::ErrorRecord;
use pyo3::prelude::*;

/// Where an error is, when known.
#[derive(Default)]
pub(crate) struct At {
    pub file: Option<String>,
    pub line: Option<u32>,
    pub column: Option<u32>,
}

impl At {
    /// A whole file (no line).
    pub fn file(path: impl Into<String>) -> Self {
        At {
            file: Some(path.into()),
            ..At::default()
        }
    }
}

/// An exception of `multitrace._errors` (`MultitraceError`, `ParseError`, ...).
pub(crate) fn error(py: Python<'_>, class: &str, message: impl Into<String>, at: At) -> PyErr {
    let message = message.into();
    let made = py
        .import("multitrace._errors")
        .and_then(|m| m.getattr(class))
        .and_then(|c| c.call1((message.clone(), at.file, at.line, at.column)));
    match made {
        Ok(value) => PyErr::from_value(value),
        Err(e) => e,
    }
}

/// A `MultitraceError` for what should not happen (a panic, a thread that could not start or
/// is gone): the message asks for a report.
pub(crate) fn internal(py: Python<'_>, what: &str) -> PyErr {
    error(
        py,
        "MultitraceError",
        format!("internal error: {what}; please report it"),
        At::default(),
    )
}

/// The text of a caught panic.
pub(crate) fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a thread panicked".into())
}

/// A model that cannot be read: ParseError with its position, or ReadError.
pub(crate) fn model_error(py: Python<'_>, e: &ModelError) -> PyErr {
    match e {
        ModelError::Parse(p) => error(
            py,
            "ParseError",
            p.to_string(),
            At {
                file: Some(p.file.clone()),
                line: Some(p.line),
                column: Some(p.column),
            },
        ),
        ModelError::Io { path, .. } => error(
            py,
            "ReadError",
            e.to_string(),
            At::file(path.display().to_string()),
        ),
    }
}

/// A model that cannot be compiled or loaded.
pub(crate) fn source_error(py: Python<'_>, e: &SourceError) -> PyErr {
    let load = |file: &str| error(py, "LoadError", e.to_string(), At::file(file));
    match e {
        SourceError::Model(m) => model_error(py, m),
        SourceError::Load { path, .. } => load(path),
        SourceError::Compile(_) => error(py, "CompileError", e.to_string(), At::default()),
        SourceError::UnknownKind(p) | SourceError::UnknownSourceKind(p) => load(p),
        SourceError::SourceMismatch(m) | SourceError::Stale(m) => load(&m.artifact),
    }
}

/// The exception for an Error record: a ParseError when the record has a position, else a
/// ReadError for a file that could not be read, else a CheckError.
pub(crate) fn record_error(py: Python<'_>, e: &ErrorRecord) -> PyErr {
    let class = match (e.line, &e.file) {
        (Some(_), _) => "ParseError",
        (None, Some(_)) if e.message.contains(": cannot read") => "ReadError",
        _ => "CheckError",
    };
    error(
        py,
        class,
        e.message.clone(),
        At {
            file: e.file.clone(),
            line: e.line,
            column: e.column,
        },
    )
}

/// The Error of a bad event at `at` (`FILE:LINE`, or a name), of run `run` when known.
pub(crate) fn event_error(
    at: &str,
    run: Option<&str>,
    why: &str,
) -> multitrace_model::record::ErrorRecord {
    let (file, line) = at
        .rsplit_once(':')
        .map_or((at.to_string(), None), |(f, n)| {
            (f.to_string(), n.parse().ok())
        });
    let message = match run {
        Some(run) => format!("{at}: bad event of run {run:?}: {why}"),
        None => format!("{at}: bad event (no run): {why}"),
    };
    multitrace_model::record::ErrorRecord {
        message,
        file: Some(file),
        line,
        column: None,
    }
}
