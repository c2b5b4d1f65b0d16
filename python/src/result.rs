//! `multitrace.Result`: the result of checking one multitrace, which is the runtime's verdict
//! record ([`Record`]) with its fields as attributes.
//!
//! Invariant: a Result is its record and nothing else: `to_json()` is the line
//! `multitrace check --format jsonl` writes, `to_dict()` has its keys in its order, equality
//! and hashing are the record's, and pickling goes through the JSON line.

use multitrace_model::record::{
    BlockedRecord, BudgetRecord, Consumed, DiagnosisRecord, ErrorRecord, Record,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use serde_json::Value;

/// The result of checking one multitrace: the fields of the JSON record, as attributes.
#[pyclass(frozen, module = "multitrace", name = "Result")]
pub(crate) struct CheckResult {
    pub record: Record,
    /// For a record of a live monitor: its JSON line, the record with the `monitor` object
    /// (`multitrace monitor --format jsonl`'s line).
    pub line: Option<String>,
}

pub(crate) fn to_py<'py, T: serde::Serialize + ?Sized>(
    py: Python<'py>,
    v: &T,
) -> PyResult<Bound<'py, PyAny>> {
    pythonize::pythonize(py, v).map_err(|e| PyValueError::new_err(e.to_string()))
}

#[pymethods]
impl CheckResult {
    /// Version of the record layout (1).
    #[getter]
    fn schema(&self) -> u32 {
        self.record.schema
    }
    /// Where the multitrace came from: a file, `FILE:LINE` of a JSON Lines input, or the name
    /// given in Python (`<python>:N` by default).
    #[getter]
    fn trace(&self) -> &str {
        &self.record.trace
    }
    /// The multitrace's id, if it has one.
    #[getter]
    fn id(&self) -> Option<&str> {
        self.record.id.as_deref()
    }
    /// `Pass`, `WeakPass`, `Fail`, `Inconclusive`, or `Error` (unreadable input).
    #[getter]
    fn verdict(&self) -> &str {
        &self.record.verdict
    }
    /// `ac`, `as` or `term` (None for an Error).
    #[getter]
    fn procedure(&self) -> Option<&str> {
        self.record.procedure.as_deref()
    }
    /// For a Fail: `LocalError`, `InterError` or `CentralError`; for Inconclusive: `Budget`.
    #[getter]
    fn reason(&self) -> Option<&str> {
        self.record.reason.as_deref()
    }
    /// One sentence: why it failed, which budget ran out, or the error.
    #[getter]
    fn explanation(&self) -> Option<&str> {
        self.record.explanation.as_deref()
    }
    /// For a LocalError: `{"location", "position", "found", "allowed"}`.
    #[getter]
    fn local_error<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.record.local_error)
    }
    /// For a Fail: `{"consumed", "blocked", "ended", "partial"}`.
    #[getter]
    fn diagnosis<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.record.diagnosis)
    }
    /// For Inconclusive: `{"limit", "established"}`.
    #[getter]
    fn budget<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.record.budget)
    }
    /// For an Error: `{"message", "file", "line", "column"}`.
    #[getter]
    fn error<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.record.error)
    }
    /// With `witness=True`, for a Pass: one accepted global interleaving.
    #[getter]
    fn witness(&self) -> Option<Vec<String>> {
        self.record.witness.clone()
    }
    /// Search vertices of the check.
    #[getter]
    fn vertices(&self) -> u64 {
        self.record.vertices
    }
    /// Wall-clock time of reading and checking, in microseconds.
    #[getter]
    fn time_us(&self) -> u64 {
        self.record.time_us
    }
    /// For a record of a live monitor (`Model.monitor`): `{"closed", "cut", "at", "order",
    /// "events", "state_bytes"}`, why and where the run's record was written (as `multitrace
    /// monitor` writes it); None for the records of the check functions.
    #[getter]
    fn monitor<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match &self.line {
            None => Ok(py.None().into_bound(py)),
            Some(line) => {
                let v: Value =
                    serde_json::from_str(line).map_err(|e| PyValueError::new_err(e.to_string()))?;
                to_py(py, &v["monitor"])
            }
        }
    }
    /// The record as a dict (the keys and order of the JSON record; a live monitor's record
    /// has its `monitor` object last).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match &self.line {
            None => to_py(py, &self.record),
            Some(line) => {
                let v: Value =
                    serde_json::from_str(line).map_err(|e| PyValueError::new_err(e.to_string()))?;
                to_py(py, &v)
            }
        }
    }
    /// The record as one line of JSON, exactly as `multitrace check --format jsonl` writes it
    /// (`multitrace monitor --format jsonl` for a live monitor's record).
    fn to_json(&self) -> String {
        self.line.clone().unwrap_or_else(|| self.record.to_json())
    }
    fn __str__(&self) -> String {
        self.record.text_line()
    }
    fn __repr__(&self) -> String {
        format!(
            "Result(trace={:?}, verdict={:?}, reason={})",
            self.record.trace,
            self.record.verdict,
            self.record
                .reason
                .as_ref()
                .map_or("None".to_string(), |r| format!("{r:?}"))
        )
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .downcast::<CheckResult>()
            .is_ok_and(|o| o.get().record == self.record)
    }
    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.record.to_json().hash(&mut h);
        h.finish()
    }
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        let f = py
            .import("multitrace._native")?
            .getattr("_result_from_json")?;
        Ok((f, (self.to_json(),)))
    }
}

/// Rebuilds a Result from its JSON record (unpickling).
#[pyfunction]
pub(crate) fn _result_from_json(json: &str) -> PyResult<CheckResult> {
    let v: Value = serde_json::from_str(json).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let line = v.get("monitor").map(|_| json.to_string());
    record_from_value(&v)
        .map(|record| CheckResult { record, line })
        .ok_or_else(|| PyValueError::new_err("not a verdict record"))
}

fn record_from_value(v: &Value) -> Option<Record> {
    let s = |v: &Value| v.as_str().map(str::to_string);
    let opt_s = |v: &Value| {
        if v.is_null() {
            Some(None)
        } else {
            s(v).map(Some)
        }
    };
    let blocked = |v: &Value| -> Option<BlockedRecord> {
        Some(BlockedRecord {
            location: s(&v["location"])?,
            position: v["position"].as_u64()? as usize,
            found: opt_s(&v["found"])?,
            allowed: v["allowed"]
                .as_array()?
                .iter()
                .map(s)
                .collect::<Option<_>>()?,
        })
    };
    let opt = |v: &Value, f: &dyn Fn(&Value) -> Option<_>| -> Option<Option<_>> {
        if v.is_null() {
            Some(None)
        } else {
            f(v).map(Some)
        }
    };
    let local_error = opt(&v["local_error"], &|v| blocked(v))?;
    let diagnosis = if v["diagnosis"].is_null() {
        None
    } else {
        let d = &v["diagnosis"];
        Some(DiagnosisRecord {
            consumed: Consumed(
                d["consumed"]
                    .as_object()?
                    .iter()
                    .map(|(k, n)| Some((k.clone(), n.as_u64()? as usize)))
                    .collect::<Option<_>>()?,
            ),
            blocked: d["blocked"]
                .as_array()?
                .iter()
                .map(blocked)
                .collect::<Option<_>>()?,
            ended: d["ended"].as_bool()?,
            partial: d["partial"].as_bool()?,
        })
    };
    let budget = if v["budget"].is_null() {
        None
    } else {
        Some(BudgetRecord {
            limit: s(&v["budget"]["limit"])?,
            established: opt_s(&v["budget"]["established"])?,
        })
    };
    let error = if v["error"].is_null() {
        None
    } else {
        let e = &v["error"];
        let n = |x: &Value| -> Option<Option<u32>> {
            if x.is_null() {
                Some(None)
            } else {
                x.as_u64().map(|n| Some(n as u32))
            }
        };
        Some(ErrorRecord {
            message: s(&e["message"])?,
            file: opt_s(&e["file"])?,
            line: n(&e["line"])?,
            column: n(&e["column"])?,
        })
    };
    let witness = if v["witness"].is_null() {
        None
    } else {
        Some(
            v["witness"]
                .as_array()?
                .iter()
                .map(s)
                .collect::<Option<_>>()?,
        )
    };
    Some(Record {
        schema: v["schema"].as_u64()? as u32,
        trace: s(&v["trace"])?,
        id: opt_s(&v["id"])?,
        verdict: s(&v["verdict"])?,
        procedure: opt_s(&v["procedure"])?,
        reason: opt_s(&v["reason"])?,
        explanation: opt_s(&v["explanation"])?,
        local_error,
        diagnosis,
        budget,
        error,
        witness,
        vertices: v["vertices"].as_u64()?,
        time_us: v["time_us"].as_u64()?,
    })
}

/// Registers the class and function of this module in the extension.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<CheckResult>()?;
    m.add_function(wrap_pyfunction!(_result_from_json, m)?)
}
