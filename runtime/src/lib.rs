//! # multitrace-runtime
//!
//! The leaf and the engine of the workspace.
//!
//! Invariants of the crate:
//!
//! - it depends on no other crate of the workspace, and never reads nor writes a model's
//!   source: it loads compiled models (the `.mtm` artifact, [`artifact`]), and every front end
//!   (the compiler, the analyses, the report, the command line, Python) builds on it;
//! - ids are small `u32` newtypes that index the table that issued them; a loaded model is
//!   validated and then immutable (`Send + Sync`): one [`check::Engine`] serves every thread of
//!   a batch, each thread with its own scratch buffers;
//! - a verdict is never a guess: a budget that runs out gives
//!   [`verdict::VerdictKind::Inconclusive`], a stale or mismatched input is refused, a Fail is
//!   a value, not an error;
//! - every input gets an answer: readers never panic on bad input, they return a
//!   [`syntax::ParseError`] with file, line and column, and a batch gives one [`record`] per
//!   input, in input order, also for inputs that cannot be read;
//! - one of each mechanism: one HIBOU lexer ([`syntax`]), one seeded generator ([`rng`]), one
//!   edit distance ([`suggest`]), one mapping of front-end options to a check
//!   ([`check::settings`]), one verdict record ([`record`]) that every front end writes;
//! - no `unsafe` code (`forbid`).
//!
//! Everything a checking process needs: lifelines, actions and locations ([`signature`]),
//! multitraces ([`multitrace`]) and their readers ([`formats`]) over the lexical layer
//! ([`syntax`]), interaction terms and their
//! operational semantics ([`term`]), automata ([`nfa`]) and local verifiers ([`project`]),
//! the compiled model ([`model`]) and its file format ([`artifact`]), the check procedures
//! ([`check`]) and their results ([`verdict`]), the record every front end writes for one
//! multitrace ([`record`]), batches of inputs checked in parallel ([`batch`]) and what they add
//! up to ([`tally`]), distributed AS ([`summary`], [`distributed`]), live runs checked as their
//! events arrive ([`monitor`]), and the rule that an output never replaces an input
//! ([`output`]).
//!
//! # Example: load a compiled model and check a multitrace
//!
//! ```
//! use multitrace_runtime::artifact::decode;
//! use multitrace_runtime::check::{CheckOptions, Engine, Procedure};
//! use multitrace_runtime::formats::parse_htf;
//! use multitrace_runtime::verdict::{Mode, Reason, VerdictKind};
//!
//! // A model compiled once by `multitrace compile` (seed 004's MQTT-like protocol).
//! let bytes = include_bytes!("../../fixtures/golden/seed004-mqtt.v2.mtm");
//! let engine = Engine::new(decode(bytes)?);
//! let mut scratch = engine.scratch(); // one per thread
//! let signature = engine.model().signature().expect("an interaction model");
//!
//! // Example 1 of seed 004: accepted.
//! let text = "{ [clt1] clt1!begin.clt1!pub.clt1!end; \
//!               [brok] brok?begin.brok?pub.brok?end; [clt2] }";
//! let (mt, _) = parse_htf("example1.htf", text, signature)?;
//! let opts = CheckOptions { mode: Mode::Complete, ..CheckOptions::default() };
//! let (verdict, procedure) = engine.check_multitrace(&mut scratch, &mt, &opts)?;
//! assert_eq!((verdict.kind, procedure), (VerdictKind::Pass, Procedure::As));
//!
//! // Partial observation: the logs stopped early, yet the broker received a publication
//! // before the topic began. A Fail is a value, not an error, and says where the error is.
//! let text = "{ [clt1] clt1!begin; [brok] brok?pub; [clt2] }";
//! let (mt, _) = parse_htf("bad.htf", text, signature)?;
//! let prefix = CheckOptions { mode: Mode::Prefix, ..CheckOptions::default() };
//! let (verdict, _) = engine.check_multitrace(&mut scratch, &mt, &prefix)?;
//! assert_eq!(verdict.kind, VerdictKind::Fail);
//! let Some(Reason::LocalError { location, position, .. }) = verdict.reason else { panic!() };
//! assert_eq!((engine.model().alphabet.location_name(location), position), ("brok", 0));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Papers are cited as "seed NNN" (with a definition or algorithm number): the table in
//! `docs/papers.md` of the repository says which paper each one is and what we take from it.

#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod area;
pub mod artifact;
pub mod batch;
pub mod bits;
pub mod budget;
pub mod check;
pub mod distributed;
/// Event logs: [`formats::events`] (kept at this path for the front ends).
pub use formats::events;
pub mod formats;
pub mod hash;
pub mod model;
pub mod monitor;
pub mod multitrace;
pub mod nfa;
pub mod output;
pub mod project;
pub mod record;
pub mod rng;
pub mod signature;
pub mod suggest;
pub mod summary;
pub mod syntax;
pub mod tally;
pub mod term;
pub mod testdata;
pub mod verdict;
