//! # multitrace-analysis
//!
//! The analyses run around the checks: multitraces generated with a known verdict, the
//! procedures compared on them, expected verdicts compared with a batch, and which participants
//! must be monitored together.
//!
//! Invariants of the crate:
//!
//! - it depends on `multitrace-compiler` (to read and compile models) and the crates that
//!   check (`multitrace-check`, `multitrace-batch`); never on `multitrace-report` nor on a skin (the command line, Python), so
//!   nothing here prints: every analysis returns a value that a skin prints or writes;
//! - nothing is labelled by construction: a generated multitrace is checked before it is kept
//!   with its verdict ([`generate`]), a counterexample of the partition analysis is re-checked
//!   by the runtime's own procedures ([`partition::recheck`]);
//! - bounded: every search has a budget, and a budget that runs out is said (a shortfall, an
//!   undecided question), never turned into an answer.
//!
//! Modules:
//!
//! - [`generate`]: reproducible multitraces of a verdict category (seed 004 Sec. 5, seed 001
//!   Sec. 6), each checked before it is labelled, and the files and manifest of a set;
//! - [`manifest`]: the `manifest.tsv` of a generated set, and plain TSVs of expected verdicts;
//! - [`expect`]: `check --expect`, a batch's records compared with their expected verdicts;
//! - [`compare`]: the comparison harness (AC, AS and term exploration timed on such sets);
//! - [`partition`]: which participants must be monitored together (seed 002);
//! - [`limits`]: the limits given as plain numbers (`0`: none, a time limit in seconds);
//! - [`progress`]: how far a long analysis has got, reported to a skin's callback.
//!
//! Papers are cited as "seed NNN": see `docs/papers.md` for the table of the papers.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod compare;
pub mod expect;
pub mod generate;
pub mod limits;
pub mod manifest;
pub mod partition;
pub mod progress;
