//! # multitrace-report
//!
//! Everything that presents a model or a batch to a person: the HTML report of a batch, the
//! sequence diagram of an interaction, the drawings of the automata (Graphviz, PNML), the text
//! of `inspect`, and the option table a report shows.
//!
//! Invariants of the crate:
//!
//! - it only presents: it reads models through `multitrace-compiler` and records through
//!   `multitrace-model` and `multitrace-batch`, and decides no verdict (a verdict drawn is the
//!   record's); it never depends on a skin (the command line, Python), nor on
//!   `multitrace-analysis`;
//! - what it writes is self-contained and needs no external program: the report is one page
//!   with no network access, a diagram is SVG written here; only the Graphviz text (`.dot`) is
//!   meant for an external program, and the skin decides whether to run it;
//! - deterministic: the same model and records give the same bytes (apart from the timings a
//!   report shows).
//!
//! Modules:
//!
//! - [`html`]: the HTML report of a batch (counts, a filterable table, failures drawn as lanes
//!   per location, the model's diagram);
//! - [`diagram`]: sequence diagrams of interactions (layout, then SVG);
//! - [`view`]: the text of `inspect` and Graphviz drawings of the automata;
//! - [`pnml`]: the NFA as a PNML Petri net;
//! - [`shown`]: a check's options as a user would write them (the report's table).
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod diagram;
pub mod html;
pub mod pnml;
pub mod shown;
pub mod view;
