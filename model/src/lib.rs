//! # multitrace-model
//!
//! The leaf of the workspace: the compiled model and everything it is made of, and the
//! vocabulary every other crate speaks (verdicts, the verdict record, budgets).
//!
//! Invariants of the crate:
//!
//! - it depends on no other crate of the workspace, and never reads nor writes a model's
//!   source: it loads compiled models (the `.mtm` artifact, [`artifact`]), and every other
//!   crate (the readers, the procedures, the monitor, the batch, the compiler, the analyses,
//!   the report, the command line, Python) builds on it;
//! - ids are small `u32` newtypes that index the table that issued them; a loaded model is
//!   validated and then immutable (`Send + Sync`);
//! - a verdict is never a guess: a budget that runs out gives
//!   [`verdict::VerdictKind::Inconclusive`], a stale or mismatched input is refused, a Fail is
//!   a value, not an error;
//! - every input gets an answer: readers never panic on bad input, they return a
//!   [`syntax::ParseError`] with file, line and column, and every front end writes one
//!   [`record`] per input, in input order, also for inputs that cannot be read;
//! - one of each mechanism: one HIBOU lexer ([`syntax`]), one seeded generator ([`rng`]), one
//!   edit distance ([`suggest`]), one verdict record ([`record`]) that every front end writes,
//!   one naming rule of diagram labels ([`label`]);
//! - no `unsafe` code (`forbid`).
//!
//! What it holds: lifelines, actions and locations ([`signature`]), multitraces
//! ([`multitrace`]) over the lexical layer ([`syntax`]), interaction terms and their
//! operational semantics ([`term`]), automata ([`nfa`]), areas ([`area`]) and local
//! verifiers ([`project`]), the compiled model ([`model`]) and its file format
//! ([`artifact`], [`hash`]), verdicts and procedures' names ([`verdict`]), the record every
//! front end writes for one input ([`record`]) and what records add up to ([`tally`]),
//! budgets ([`budget`]). The crates above it: `multitrace-formats` (readers and writers of
//! runs and events), `multitrace-check` (the procedures), `multitrace-monitor` (live runs),
//! `multitrace-batch` (inputs checked in parallel); `docs/layout.md` draws the arrows.
//!
//! Why the record is here and not beside the procedures: readers answer an unreadable run
//! with an `Error` record of their own, and a reader must not depend on an engine.
//!
//! Papers are cited as "seed NNN" (with a definition or algorithm number): the table in
//! `docs/papers.md` of the repository says which paper each one is and what we take from it.

#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod area;
pub mod artifact;
pub mod bits;
pub mod budget;
pub mod hash;
pub mod label;
pub mod model;
pub mod multitrace;
pub mod nfa;
pub mod project;
pub mod record;
pub mod rng;
pub mod signature;
pub mod suggest;
pub mod syntax;
pub mod tally;
pub mod term;
pub mod testdata;
pub mod verdict;
