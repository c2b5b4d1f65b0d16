//! The state of a `multitrace.Model`: the compiled model's engine (shared by every check,
//! batch and generation), its names as Python dicts, and the threads and scratch states of
//! single checks. The class's Python methods are in `model`; the topic modules (`check`,
//! `generate`, `monitor`, `spark`, `otel`) take a Model from here, so that none of them
//! imports `model`, which calls them.

use crate::read::Names;
use crate::threads::Executor;
use multitrace_batch::{Batch, BatchOptions};
use multitrace_check::{CheckOptions, Engine, Scratch};
use multitrace_model::model::CompiledModel;
use pyo3::prelude::*;
use std::sync::{Arc, Mutex};

/// A compiled model, ready to check multitraces (immutable; safe to share between threads).
#[pyclass(frozen, module = "multitrace", name = "Model")]
pub(crate) struct Model {
    pub batch: Batch<'static>,
    /// The model's names as Python dicts (shared with the iterators of `check_many`).
    pub names: Arc<Names>,
    /// Threads of single checks.
    pub executor: Executor,
    /// Scratch states of finished single checks, reused by the next ones.
    pub scratch: Mutex<Vec<Scratch>>,
}

impl Model {
    pub fn new(py: Python<'_>, model: CompiledModel) -> PyResult<Self> {
        let names = Arc::new(Names::new(py, &model)?);
        let engine = Arc::new(Engine::new(model));
        Ok(Model {
            batch: Batch::shared(engine, CheckOptions::default(), BatchOptions::default()),
            names,
            executor: Executor::default(),
            scratch: Mutex::new(Vec::new()),
        })
    }

    pub fn engine(&self) -> &Engine {
        self.batch.engine()
    }

    pub fn shared_engine(&self) -> Batch<'static> {
        self.batch
            .reconfigure(CheckOptions::default(), BatchOptions::default())
    }
}
