//! Check procedures.
//!
//! - [`explore`]: term exploration of the operational semantics with lifeline removal, partial
//!   order reduction and local analyses (seed 001); the reference oracle for everything else.

pub mod explore;
