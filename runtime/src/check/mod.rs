//! Check procedures.
//!
//! - [`ac`]: the centralized procedure on a compiled model (seed 004 Algorithm 1).
//! - [`semi`]: AS, the semi-centralized procedure: local checks, `Inter`, then AC on it.
//! - [`diagnose`]: why a multitrace fails, the same whatever the procedure.
//! - [`mod@explore`]: term exploration of the operational semantics with lifeline removal, partial
//!   order reduction and local analyses (seed 001); the reference oracle for everything else.
//!
//! [`Engine`] ties them to a loaded model: it is immutable and `Send + Sync`, so one engine
//! serves every thread of a batch; each thread keeps its own [`Scratch`].

pub mod ac;
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

pub use engine::{Engine, Scratch};
pub use error::CheckError;
pub use options::{CheckOptions, Choice, Procedure};
