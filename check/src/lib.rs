//! # multitrace-check
//!
//! The check procedures: given a loaded model and a multitrace, a verdict.
//!
//! Invariants: depends on `multitrace-model` only (no reader, no monitor, no batch); an
//! [`Engine`] is immutable and `Send + Sync`, so one engine serves every thread, each thread
//! with its own [`Scratch`]; a budget that runs out gives `Inconclusive`, never a guess; one
//! mapping of front-end options to a check ([`settings`]).
//!
//!
//! - [`ac`]: the centralized procedure on a compiled model (seed 004 Algorithm 1).
//! - [`semi`]: AS, the semi-centralized procedure: local checks, `Inter`, then AC on it.
//! - [`diagnose`]: why a multitrace fails, the same whatever the procedure.
//! - [`mod@explore`]: term exploration of the operational semantics with lifeline removal, partial
//!   order reduction and local analyses (seed 001); the reference oracle for everything else.
//!
//! [`Engine`] ties them to a loaded model: it is immutable and `Send + Sync`, so one engine
//! serves every thread of a batch; each thread keeps its own [`Scratch`]. [`summary`] holds the
//! local summaries of distributed AS (written by a local step, read by the central one).
//!
//! # Example: load a compiled model and check a multitrace
//!
//! ```
//! use multitrace_model::artifact::decode;
//! use multitrace_check::{CheckOptions, Engine};
//! use multitrace_model::verdict::Procedure;
//! use multitrace_formats::parse_htf;
//! use multitrace_model::verdict::{Mode, Reason, VerdictKind};
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

#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod ac;
mod cut;
pub mod diagnose;
mod engine;
mod error;
pub mod explore;
mod local;
mod meter;
mod options;
pub mod semi;
pub mod settings;
pub mod stack;
pub mod summary;

pub use engine::{Engine, Scratch};
pub use error::CheckError;
pub use multitrace_model::verdict::Procedure;
pub use options::{CheckOptions, Choice};
