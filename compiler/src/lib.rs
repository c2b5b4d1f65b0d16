//! # multitrace-compiler
//!
//! Turns models into what the runtime checks:
//!
//! - [`syntax`]: front ends for signatures (`.hsf`) and interactions (`.hif`) in HIBOU syntax,
//!   and raw automata (Timbuk);
//! - [`rewrite`]: multitrace-equivalent strengthening of weak sequencing, and the regularity
//!   check that sends non-regular models to term exploration;
//! - [`nfa`]: NFA synthesis from an interaction (states are normalized terms);
//! - [`project`]: the local verifiers `Proj(A, Σi)` with their areas;
//! - [`compile`]: the pipeline producing a [`multitrace_runtime::model::CompiledModel`];
//! - [`source`]: models named by path (`.hif`, `.timbuk`, `.mtm`), read and compiled as needed;
//! - [`open`]: models named by a user, with their options, refusals and notes (every front end);
//! - [`shown`]: a check's options as a user would write them (the report's table);
//! - [`view`]: the text of `inspect` and Graphviz drawings of the automata.
//! - [`diagram`]: sequence diagrams of interactions (layout, then SVG).
//! - [`diagrams`]: Mermaid and PlantUML sequence diagrams read as interactions, and written back.
//! - [`report`]: the HTML report of a batch (counts, a filterable table, failures drawn
//!   as lanes per location, the model's diagram).
//! - [`generate`]: reproducible multitraces of a verdict category (seed 004 Sec. 5, seed 001
//!   Sec. 6), each checked before it is labelled, and the files and manifest of a set;
//! - [`compare`]: the comparison harness (AC, AS and term exploration timed on such sets).
//!
//! Like the runtime's readers, the front ends never panic on bad input: they return a
//! [`syntax::ParseError`] with file, line and column, or a [`syntax::ModelError`] when a file
//! cannot be read.
//!
//! Papers are cited as "seed NNN": see `docs/papers.md` for the table of the papers.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod compare;
pub mod compile;
pub mod diagram;
pub mod diagrams;
pub mod generate;
pub mod nfa;
pub mod open;
pub mod partition;
pub mod pnml;
pub mod project;
pub mod report;
pub mod rewrite;
pub mod shown;
pub mod source;
pub mod syntax;
pub mod view;
