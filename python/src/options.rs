//! The options of the entry points, read in one place.
//!
//! `Model.check`, `check_many` and `check_files` (and the Spark functions) take the same check
//! options: [`SETTINGS`], the command line's, with its defaults ([`cli_defaults`]); each entry
//! point also takes options of its own before and after them ([`Signature`]). [`Options::bind`]
//! binds positional and keyword arguments as Python binds them to a signature (positions in
//! order, then names; an unknown or repeated name, or too many positions, is a TypeError; a
//! value of the wrong type is a TypeError naming the argument, as PyO3 says it), and
//! [`Options::settings`] turns them into the runtime's [`Settings`], whose
//! [`Settings::check_options`] is the one mapping to the check options (the command line's
//! too). So no entry point lists or converts the check options itself.

use multitrace_batch::BatchOptions;
use multitrace_check::settings::Settings;
use multitrace_check::Choice;
use multitrace_model::budget::default_jobs;
use multitrace_model::verdict::Mode;
use multitrace_model::verdict::Procedure;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};

/// The check options, in their positional order (after the entry point's own leading ones).
pub(crate) const SETTINGS: [&str; 10] = [
    "mode",
    "procedure",
    "witness",
    "timeout_ms",
    "max_vertices",
    "diagnosis",
    "max_diagnosis_vertices",
    "por",
    "loc",
    "memo",
];

/// The defaults of the Python entry points: the command line's (`multitrace check`), which
/// differ from the runtime's ([`Settings::default`]) by a 10 s time limit and a smaller
/// diagnosis budget.
pub(crate) fn cli_defaults() -> Settings {
    Settings {
        mode: Mode::Prefix,
        choice: Choice::Auto,
        witness: false,
        timeout_ms: 10_000,
        max_vertices: 5_000_000,
        // The runtime's default memory budget (no keyword argument yet).
        max_memory_mb: Settings::default().max_memory_mb,
        diagnosis: true,
        max_diagnosis_vertices: 1_000_000,
        por: true,
        loc: true,
        memo: true,
    }
}

/// The parameters of an entry point beyond its first (named by the PyO3 signature): `before`
/// the check options, then [`SETTINGS`], then `after`. Its `text_signature` states the same
/// order and the defaults (tested against the type stub in `tests/test_options.py`).
pub(crate) struct Signature {
    /// The name in messages, as Python writes it (`Model.check`).
    pub name: &'static str,
    pub before: &'static [&'static str],
    pub after: &'static [&'static str],
}

impl Signature {
    /// The parameters in positional order.
    fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.before
            .iter()
            .chain(&SETTINGS)
            .chain(self.after)
            .copied()
    }
}

/// The arguments given to an entry point, bound to its parameters (None: not given).
pub(crate) struct Options<'py> {
    signature: &'static Signature,
    values: Vec<Option<Bound<'py, PyAny>>>,
}

impl<'py> Options<'py> {
    /// Binds `args` (the positions after the first parameter) and `kwargs` to `signature`.
    pub fn bind(
        signature: &'static Signature,
        args: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Self> {
        let count = signature.names().count();
        if args.len() > count {
            return Err(PyTypeError::new_err(format!(
                "{}() takes at most {} positional arguments ({} given)",
                signature.name,
                count + 1,
                args.len() + 1
            )));
        }
        let mut values: Vec<Option<Bound<'py, PyAny>>> = vec![None; count];
        for (slot, a) in values.iter_mut().zip(args.iter()) {
            *slot = Some(a);
        }
        for (k, v) in kwargs.into_iter().flat_map(|d| d.iter()) {
            let key = k.downcast::<PyString>()?.to_cow()?;
            let Some(i) = signature.names().position(|n| n == key) else {
                return Err(PyTypeError::new_err(format!(
                    "{}() got an unexpected keyword argument '{key}'",
                    signature.name
                )));
            };
            if values[i].replace(v).is_some() {
                return Err(PyTypeError::new_err(format!(
                    "{}() got multiple values for argument '{key}'",
                    signature.name
                )));
            }
        }
        Ok(Options { signature, values })
    }

    /// The value of parameter `name` when it was given, converted as PyO3 converts arguments
    /// (None when it was not given, or the entry point has no such parameter).
    pub fn get<T: FromPyObject<'py>>(&self, name: &str) -> PyResult<Option<T>> {
        let at = self.signature.names().position(|n| n == name);
        let Some(v) = at.and_then(|i| self.values[i].as_ref()) else {
            return Ok(None);
        };
        v.extract().map(Some).map_err(|e| {
            // PyO3's own wording for an argument of the wrong type; other errors (an
            // OverflowError for a negative count) pass unchanged.
            let py = v.py();
            if e.is_instance_of::<PyTypeError>(py) {
                let t = PyTypeError::new_err(format!("argument '{name}': {}", e.value(py)));
                t.set_cause(py, Some(e));
                t
            } else {
                e
            }
        })
    }

    /// The options given, by name (to bind them again later, as when unpickling).
    pub fn given(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (name, v) in self.signature.names().zip(&self.values) {
            if let Some(v) = v {
                d.set_item(name, v)?;
            }
        }
        Ok(d)
    }

    /// The check options given, the others from `defaults`; a ValueError names a wrong
    /// `mode` or `procedure`.
    pub fn settings(&self, defaults: Settings) -> PyResult<Settings> {
        let d = defaults;
        let mode = match self.get::<String>("mode")? {
            Some(m) => parse_mode(&m)?,
            None => d.mode,
        };
        let choice = match self.get::<String>("procedure")? {
            Some(p) => parse_procedure(&p)?,
            None => d.choice,
        };
        Ok(Settings {
            mode,
            choice,
            witness: self.get("witness")?.unwrap_or(d.witness),
            timeout_ms: self.get("timeout_ms")?.unwrap_or(d.timeout_ms),
            max_vertices: self.get("max_vertices")?.unwrap_or(d.max_vertices),
            max_memory_mb: d.max_memory_mb,
            diagnosis: self.get("diagnosis")?.unwrap_or(d.diagnosis),
            max_diagnosis_vertices: self
                .get("max_diagnosis_vertices")?
                .unwrap_or(d.max_diagnosis_vertices),
            por: self.get("por")?.unwrap_or(d.por),
            loc: self.get("loc")?.unwrap_or(d.loc),
            memo: self.get("memo")?.unwrap_or(d.memo),
        })
    }

    /// `errors="record"` (false, the default) or `"raise"` (true).
    pub fn raise(&self) -> PyResult<bool> {
        match self.get::<String>("errors")?.as_deref() {
            None | Some("record") => Ok(false),
            Some("raise") => Ok(true),
            Some(other) => Err(PyValueError::new_err(format!(
                "errors={other:?}: expected {} (\"record\": an Error result in its place)",
                choices(&["record", "raise"])
            ))),
        }
    }

    /// The batch options: `jobs` (None: one per core) and `max_line_bytes` (the runtime's
    /// default when the entry point does not take it).
    pub fn batch(&self) -> PyResult<BatchOptions> {
        let d = BatchOptions::default();
        let jobs = self.get::<Option<usize>>("jobs")?.flatten();
        if jobs == Some(0) {
            return Err(PyValueError::new_err(
                "jobs=0: at least one worker thread is needed; give jobs >= 1, or None for one per core",
            ));
        }
        Ok(BatchOptions {
            jobs: jobs.unwrap_or_else(default_jobs),
            max_line_bytes: self.get("max_line_bytes")?.unwrap_or(d.max_line_bytes),
            ..d
        })
    }
}

/// The values an option accepts, in the one style of the package's messages: `"a", "b" or
/// "c"` (each as Python writes the str).
pub(crate) fn choices(values: &[&str]) -> String {
    let quoted: Vec<String> = values.iter().map(|v| format!("{v:?}")).collect();
    match quoted.split_last() {
        None => "nothing".into(),
        Some((last, [])) => last.clone(),
        Some((last, init)) => format!("{} or {last}", init.join(", ")),
    }
}

/// `"prefix"` or `"complete"`.
pub(crate) fn parse_mode(mode: &str) -> PyResult<Mode> {
    match mode {
        "prefix" => Ok(Mode::Prefix),
        "complete" => Ok(Mode::Complete),
        _ => Err(PyValueError::new_err(format!(
            "mode={mode:?}: expected {}",
            choices(&["prefix", "complete"])
        ))),
    }
}

fn parse_procedure(procedure: &str) -> PyResult<Choice> {
    Ok(match procedure {
        "auto" => Choice::Auto,
        "ac" => Choice::Force(Procedure::Ac),
        "as" => Choice::Force(Procedure::As),
        "term" => Choice::Force(Procedure::Term),
        _ => {
            return Err(PyValueError::new_err(format!(
                "procedure={procedure:?}: expected {}",
                choices(&["auto", "ac", "as", "term"])
            )))
        }
    })
}
