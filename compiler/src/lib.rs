//! # multitrace-compiler
//!
//! Turns models into what the runtime checks, and nothing else: it reads models and synthesizes
//! the compiled model ([`multitrace_model::model::CompiledModel`]), up to the artifact.
//!
//! Invariants of the crate:
//!
//! - it depends on the runtime only; generation, comparison and the partition analysis live in
//!   `multitrace-analysis`, every drawing and report in `multitrace-report`, and both depend on
//!   this crate, never the reverse;
//! - a model is never approximated silently: a model that is not regular, or whose automata
//!   exceed a cap, falls back to term exploration with a note, or is refused;
//! - like the runtime's readers, the front ends never panic on bad input: they return a
//!   [`syntax::ParseError`] with file, line and column, or a [`syntax::ModelError`] when a file
//!   cannot be read.
//!
//! Its modules, in the order a model goes through them:
//!
//! - [`syntax`]: front ends for signatures (`.hsf`) and interactions (`.hif`) in HIBOU syntax,
//!   and raw automata (Timbuk);
//! - [`rewrite`]: multitrace-equivalent strengthening of weak sequencing, and the regularity
//!   check that sends non-regular models to term exploration;
//! - [`nfa`]: NFA synthesis from an interaction (states are normalized terms);
//! - [`project`]: the local verifiers `Proj(A, Σi)` with their areas;
//! - [`compile`]: the pipeline producing a [`multitrace_model::model::CompiledModel`];
//! - [`source`]: models named by path (`.hif`, `.timbuk`, `.mtm`), read and compiled as needed;
//! - [`open`]: models named by a user, with their options, refusals and notes (every front end);
//! - [`diagrams`]: Mermaid and PlantUML sequence diagrams read as interactions, and written back.
//! - [`verify`]: whether a compiled model is exactly what its source compiles to
//!   (`multitrace verify`).
//!
//! Papers are cited as "seed NNN": see `docs/papers.md` for the table of the papers.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod compile;
pub mod diagrams;
pub mod nfa;
pub mod open;
pub mod project;
pub mod rewrite;
pub mod source;
pub mod syntax;
pub mod verify;
