//! Check procedures.
//!
//! - [`ac`]: the centralized procedure on a compiled model (seed 004 Algorithm 1).
//! - [`semi`]: AS, the semi-centralized procedure: local checks, `Inter`, then AC on it.
//! - [`explore`]: term exploration of the operational semantics with lifeline removal, partial
//!   order reduction and local analyses (seed 001); the reference oracle for everything else.

pub mod ac;
pub mod explore;
pub mod semi;
