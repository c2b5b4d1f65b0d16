//! `multitrace.Model`'s methods and how one is made: `compile` (a source model, by
//! `multitrace-compiler`) and `load` (a `.mtm`, compared with its recorded source as the
//! command line does).
//!
//! Invariants: a Model is immutable and safe to share between threads (its engine is shared
//! by every check, batch and generation); it pickles as its `.mtm` bytes. Its methods only
//! bind arguments and call the topic modules (`check`, `read`, `generate`, `monitor`), which
//! hold the work; its state is `compiled::Model`.

use crate::check::{self, ResultIterator};
use crate::compiled::Model;
use crate::errors::{error, source_error, At};
use crate::generate;
use crate::options::{choices, Options};
use crate::read;
use crate::result::CheckResult;
use crate::threads::detached;
use multitrace_compiler::compile::{AutomataPolicy, CompileOptions, LocationChoice};
use multitrace_compiler::source::{
    check_recorded_source, compile_source, load_artifact, read_source, record_source, Freshness,
    SourceError,
};
use multitrace_compiler::syntax::parse_locations_spec;
use multitrace_model::artifact::{decode, encode};
use multitrace_model::nfa::LocationId;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};
use std::path::{Path, PathBuf};

#[pymethods]
impl Model {
    /// Names of the locations, in the model's order (the keys of a multitrace dict).
    #[getter]
    fn locations(&self) -> Vec<String> {
        self.engine().model().alphabet.location_names().to_vec()
    }

    /// Letter names (actions such as `l1!m1` for an interaction), in the model's order.
    #[getter]
    fn alphabet(&self) -> Vec<String> {
        self.engine().model().alphabet.names().to_vec()
    }

    /// For each location, its letters: `{location: [letters]}`.
    #[getter]
    fn letters<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let a = &self.engine().model().alphabet;
        let d = PyDict::new(py);
        for (k, name) in a.location_names().iter().enumerate() {
            let letters: Vec<&str> = a
                .letters_of(LocationId(k as u32))
                .iter()
                .map(|&l| a.name(l))
                .collect();
            d.set_item(name, letters)?;
        }
        Ok(d)
    }

    /// `"automata"` (checked by AS by default) or `"term-only"` (checked by term exploration).
    #[getter]
    fn kind(&self) -> &'static str {
        self.engine().model().kind_name()
    }

    /// The model's digest as an int (`int(model.digest_hex, 16)`); summaries and artifacts
    /// are matched by it.
    #[getter]
    fn digest(&self) -> u64 {
        self.engine().model().digest
    }

    /// The model's digest as `multitrace inspect` prints it: 16 lowercase hexadecimal digits.
    #[getter]
    fn digest_hex(&self) -> String {
        format!("{:016x}", self.engine().model().digest)
    }

    /// The source the model was compiled from, as recorded (`inspect`'s `source:`).
    #[getter]
    fn source(&self) -> String {
        self.engine().model().stats.source.clone()
    }

    /// The compiler's notices (what was rewritten, why a model is term-only).
    #[getter]
    fn notices(&self) -> Vec<String> {
        self.engine().model().stats.notices.clone()
    }

    /// The compiled model as `.mtm` bytes (what `multitrace compile` writes).
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let bytes = py.allow_threads(|| encode(self.engine().model()));
        Ok(PyBytes::new(py, &bytes))
    }

    /// Writes the compiled model to a `.mtm` file.
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        let bytes = py.allow_threads(|| encode(self.engine().model()));
        std::fs::write(&path, bytes).map_err(|e| {
            error(
                py,
                "ReadError",
                format!("{}: cannot write: {e}", path.display()),
                At {
                    file: Some(path.display().to_string()),
                    ..At::default()
                },
            )
        })
    }

    fn __reduce__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyBytes>,))> {
        let load = py.import("multitrace")?.getattr("load")?;
        Ok((load, (self.to_bytes(py)?,)))
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let m = self.engine().model();
        // The locations as Python writes a list of str.
        let locations = PyList::new(py, m.alphabet.location_names())?.repr()?;
        Ok(format!(
            "Model(kind='{}', locations={locations}, letters={}, digest=0x{:016x})",
            m.kind_name(),
            m.alphabet.len(),
            m.digest
        ))
    }

    /// Checks one multitrace and returns its Result.
    ///
    /// `traces` maps location names to lists of letter names (for an interaction, actions
    /// such as `l1!m1`); a location not listed has an empty local trace. For an interaction,
    /// keys may also be other groups of lifelines (`"b,c"`): the multitrace is then checked by
    /// term exploration, as its `.htf` file would be. A `{"trace", "id", "traces"}` dict (what
    /// `read` and `generate` return) or an `(id, traces)` pair is accepted too.
    ///
    /// Options (the command line's): `mode` is `"prefix"` (multi-prefixes, the default) or
    /// `"complete"`; `procedure` is `"auto"`, `"ac"`, `"as"` or `"term"`; `witness` rebuilds
    /// one accepted interleaving for a Pass; `timeout_ms` and `max_vertices` bound each check
    /// (0: no bound; a budget that runs out gives Inconclusive); `diagnosis` and
    /// `max_diagnosis_vertices` control the diagnosis of a Fail; `por`, `loc`, `memo` tune term
    /// exploration; `trace` and `id` name the multitrace in the Result.
    ///
    /// Raises CheckError for unknown locations or actions, or a procedure this model cannot
    /// run; ValueError for a wrong option; TypeError when `traces` is not a multitrace.
    #[pyo3(signature = (traces, *args, **kwargs),
        text_signature = "($self, traces, mode='prefix', procedure='auto', witness=False, timeout_ms=10000, max_vertices=5000000, diagnosis=True, max_diagnosis_vertices=1000000, por=True, loc=True, memo=True, trace=None, id=None)")]
    fn check(
        &self,
        py: Python<'_>,
        traces: &Bound<'_, PyAny>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<CheckResult> {
        let options = Options::bind(&check::CHECK, args, kwargs)?;
        check::check(self, py, traces, &options)
    }

    /// Checks many multitraces in parallel and returns an iterator of Results in input order.
    ///
    /// `iterable` yields multitraces as `check` takes them (unnamed ones are named
    /// `<python>:N`, N from 1). Items are taken from it in chunks with the GIL held and checked
    /// on `jobs` threads (default: the number of cores) without the GIL, by the runtime's batch
    /// API; at most `jobs * 128` items are in flight, so memory does not grow with the length
    /// of the iterable. Options are those of `check`. With `errors="record"` (the default) an
    /// item that cannot be checked gives a Result whose verdict is `Error` in its place; with
    /// `errors="raise"` its exception is raised there. An item that is not a multitrace at all
    /// raises TypeError once the results before it have been returned. Stopping early (or
    /// dropping the iterator) stops the workers.
    #[pyo3(signature = (iterable, *args, **kwargs),
        text_signature = "($self, iterable, jobs=None, mode='prefix', procedure='auto', witness=False, timeout_ms=10000, max_vertices=5000000, diagnosis=True, max_diagnosis_vertices=1000000, por=True, loc=True, memo=True, errors='record')")]
    fn check_many(
        &self,
        py: Python<'_>,
        iterable: &Bound<'_, PyAny>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<ResultIterator> {
        let options = Options::bind(&check::CHECK_MANY, args, kwargs)?;
        check::check_many(self, py, iterable, &options)
    }

    /// Checks files and directories as `multitrace check` does; an iterator of Results in
    /// input order.
    ///
    /// `paths` are `.htf`, `.mtf` and `.jsonl` files, `-` (JSON Lines on standard input), or
    /// directories searched recursively (natural order; symbolic-link loops searched once,
    /// with a warning). Files are read by the workers; a JSON line longer than
    /// `max_line_bytes` is an Error. Options and `errors` as in `check_many`. Raises ReadError
    /// for a path that does not exist. The iterator streams (a directory of any size is
    /// checked with bounded memory) and cannot be indexed: take `list(...)` to index.
    #[pyo3(signature = (paths, *args, **kwargs),
        text_signature = "($self, paths, jobs=None, mode='prefix', procedure='auto', witness=False, timeout_ms=10000, max_vertices=5000000, diagnosis=True, max_diagnosis_vertices=1000000, por=True, loc=True, memo=True, errors='record', max_line_bytes=268435456)")]
    fn check_files(
        &self,
        py: Python<'_>,
        paths: Vec<PathBuf>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<ResultIterator> {
        let options = Options::bind(&check::CHECK_FILES, args, kwargs)?;
        check::check_files(self, py, paths, &options)
    }

    /// A live monitor of event streams: the runtime's incremental engine (as `multitrace
    /// monitor` runs it), taking events one at a time (`push`) or by columns (`push_many`)
    /// and returning the records decided.
    ///
    /// Check options as in `check`; `mode` is the question asked when a run ends (events are
    /// checked as prefixes while it is live: a Fail is returned at the first event that makes
    /// it certain). A run ends at an event with action `end_action` (or pushed with
    /// `end=True`), when it is idle for `idle_timeout` (seconds or a timedelta): in event
    /// time when order keys are timestamps (closed by the `push` whose timestamp moves the
    /// clock past its last one by the timeout, before that event), else when `close_idle`
    /// finds it so by the wall clock; or at `close`/`close_all`.
    /// `arrival` says how events may arrive, as `multitrace monitor --arrival`: `"auto"` (an
    /// int order key is the position in the local trace, from `first_position`, and an event
    /// is held until the positions before it came; any other key is held until its run ends),
    /// `"positions"`, `"window"` (held in `reorder_window`), `"in-order"` (an assumption: an
    /// event before one already checked gives its run an Error record), `"end"` or
    /// `"parents"` (spans, below).
    /// `reorder_window` holds events per location to restore their order: an int (events),
    /// seconds or a timedelta (of order keys), or `"unbounded"`; an event later than that
    /// gives its run an Error record (0: `"in-order"`). With a duration window the watermark
    /// (the largest timestamp seen, less the window) moves with the wall clock after
    /// `idleness` (seconds or a timedelta; default: the window's length) without the event
    /// clock moving, when `Monitor.advance` is called (as `multitrace monitor --idleness`).
    /// `otel=True` makes a monitor of OpenTelemetry spans (`Monitor.push_otel`, as `multitrace
    /// monitor --otel`), mapped by the rules of `read_otel` or `otel_map` (a mapping file's
    /// path or a dict of its keys); then `"auto"` is `"parents"`: a service's events wait
    /// while one of its spans' parents in that service has not come (spans are exported
    /// children first). At most `max_live_runs` runs are live (past it the
    /// oldest idle one is closed, its record says so); `max_live_vertices` bounds one run's
    /// product (past it the run is checked from its traces; a Fail then says `late`). Events are named `SOURCE:N` (N from 1).
    /// `state` (bytes of `Monitor.state()`) resumes a monitor with the same options.
    #[pyo3(signature = (*args, **kwargs),
        text_signature = "($self, mode='prefix', procedure='auto', witness=False, timeout_ms=10000, max_vertices=5000000, diagnosis=True, max_diagnosis_vertices=1000000, por=True, loc=True, memo=True, idle_timeout=None, end_action=None, arrival='auto', first_position=0, reorder_window=None, idleness=None, max_live_runs=1000000, max_live_vertices=4096, otel=False, otel_map=None, source='<python>', state=None)")]
    fn monitor(
        slf: &Bound<'_, Self>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<crate::monitor::PyMonitor> {
        let options = Options::bind(&crate::monitor::MONITOR, args, kwargs)?;
        crate::monitor::PyMonitor::new(slf, &options)
    }

    /// Reads a multitrace file (`.htf`, `.mtf`, `.jsonl`) into dicts
    /// `{"trace", "id", "traces": {location: [actions]}}`, in file order.
    // 268435456: 256 MiB, written out so that Python shows it in the signature.
    #[pyo3(signature = (path, max_line_bytes=268435456))]
    fn read<'py>(
        &self,
        py: Python<'py>,
        path: PathBuf,
        max_line_bytes: u64,
    ) -> PyResult<Bound<'py, PyList>> {
        read::read(py, &self.batch, path, max_line_bytes)
    }

    /// Generates multitraces of a category (the `gen` command's): dicts with `trace`, `id`,
    /// `traces`, `verdict`, `reason`, `mode`, `length`.
    #[pyo3(signature = (kind, count=100, length=None, seed=0, max_attempts=None,
        max_vertices=5_000_000, allow_fewer=false))]
    #[allow(clippy::too_many_arguments)]
    fn generate<'py>(
        &self,
        py: Python<'py>,
        kind: &str,
        count: usize,
        length: Option<&Bound<'py, PyAny>>,
        seed: u64,
        max_attempts: Option<usize>,
        max_vertices: u64,
        allow_fewer: bool,
    ) -> PyResult<Bound<'py, PyList>> {
        let opts = generate::options(kind, count, length, seed, max_attempts, max_vertices)?;
        generate::generate(self, py, opts, allow_fewer)
    }
}

fn compile_options(
    locations: Option<&Bound<'_, PyAny>>,
    random_locations: Option<usize>,
    seed: u64,
    state_cap: Option<usize>,
    dfa_cap: Option<usize>,
    area_cap_mb: Option<usize>,
    policy: &str,
) -> PyResult<CompileOptions> {
    let locations = match (locations, random_locations) {
        (Some(_), Some(_)) => {
            return Err(PyValueError::new_err(
                "locations and random_locations: give one of them",
            ))
        }
        (Some(l), None) => {
            if let Ok(spec) = l.downcast::<PyString>() {
                LocationChoice::Groups(
                    parse_locations_spec(&spec.extract::<String>()?)
                        .map_err(|e| PyValueError::new_err(format!("locations: {e}")))?,
                )
            } else {
                let groups: Vec<Vec<String>> = l.extract().map_err(|_| {
                    PyTypeError::new_err(
                        "locations must be a str such as 'l1,l2;l3' or a list of lists of names",
                    )
                })?;
                LocationChoice::Groups(groups)
            }
        }
        (None, Some(count)) => LocationChoice::Random { count, seed },
        (None, None) => LocationChoice::Default,
    };
    let policy = match policy {
        "auto" => AutomataPolicy::Auto,
        "automata" => AutomataPolicy::Require,
        "term-only" => AutomataPolicy::Never,
        _ => {
            return Err(PyValueError::new_err(format!(
                "policy={policy:?}: expected {}",
                choices(&["auto", "automata", "term-only"])
            )))
        }
    };
    let d = CompileOptions::default();
    Ok(CompileOptions {
        locations,
        state_cap: state_cap.unwrap_or(d.state_cap),
        dfa_cap: dfa_cap.unwrap_or(d.dfa_cap),
        area_cap: area_cap_mb.map_or(d.area_cap, |mb| mb.saturating_mul(1 << 20)),
        policy,
    })
}

/// Compiles a source model (`.hif` with its signature, or `.timbuk`).
#[pyfunction]
#[pyo3(signature = (path, signature=None, locations=None, random_locations=None, seed=0,
    state_cap=None, dfa_cap=None, area_cap_mb=None, policy="auto"))]
#[allow(clippy::too_many_arguments)]
fn compile(
    py: Python<'_>,
    path: PathBuf,
    signature: Option<PathBuf>,
    locations: Option<&Bound<'_, PyAny>>,
    random_locations: Option<usize>,
    seed: u64,
    state_cap: Option<usize>,
    dfa_cap: Option<usize>,
    area_cap_mb: Option<usize>,
    policy: &str,
) -> PyResult<Model> {
    let opts = compile_options(
        locations,
        random_locations,
        seed,
        state_cap,
        dfa_cap,
        area_cap_mb,
        policy,
    )?;
    if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("mtm"))
    {
        return Err(error(
            py,
            "LoadError",
            format!(
                "{}: a compiled model; load it with multitrace.load (compile takes a .hif or .timbuk source)",
                path.display()
            ),
            At {
                file: Some(path.display().to_string()),
                ..At::default()
            },
        ));
    }
    let compiled = detached(py, move || {
        let src = read_source(&path, signature.as_deref())?;
        let mut model = compile_source(&src, &opts)?;
        model.stats.source = record_source(&path, signature.as_deref());
        Ok::<_, SourceError>(model)
    })?;
    let model = compiled.map_err(|e| source_error(py, &e))?;
    Model::new(py, model)
}

/// Loads a compiled model: `.mtm` bytes, or the path of a `.mtm` file.
#[pyfunction]
#[pyo3(signature = (path_or_bytes, allow_stale=false))]
fn load(py: Python<'_>, path_or_bytes: &Bound<'_, PyAny>, allow_stale: bool) -> PyResult<Model> {
    if let Ok(b) = path_or_bytes.downcast::<PyBytes>() {
        let bytes = b.as_bytes().to_vec();
        let decoded = detached(py, move || decode(&bytes))?;
        let model =
            decoded.map_err(|e| error(py, "LoadError", format!("<bytes>: {e}"), At::default()))?;
        return Model::new(py, model);
    }
    let path: PathBuf = path_or_bytes.extract().map_err(|_| {
        PyTypeError::new_err(
            "load takes .mtm bytes or the path of a .mtm file (str or os.PathLike)",
        )
    })?;
    let p = path.clone();
    let loaded = detached(py, move || {
        let model = load_artifact(&p)?;
        let fresh = check_recorded_source(&p, &model);
        Ok::<_, SourceError>((model, fresh))
    })?;
    let (model, fresh) = loaded.map_err(|e| source_error(py, &e))?;
    if let Freshness::Stale(m) = fresh {
        if !allow_stale {
            return Err(source_error(py, &SourceError::Stale(m)));
        }
    }
    Model::new(py, model)
}

/// Whether `path` names a compiled model.
#[pyfunction]
fn _is_compiled(path: PathBuf) -> bool {
    Path::new(&path)
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("mtm"))
}

/// Registers the class and functions of this module in the extension.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Model>()?;
    m.add_function(wrap_pyfunction!(compile, m)?)?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(_is_compiled, m)?)?;
    Ok(())
}
