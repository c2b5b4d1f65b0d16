//! # multitrace-runtime
//!
//! Everything a checking process needs: lifelines, actions and locations ([`signature`]),
//! multitraces ([`multitrace`]) and their readers ([`syntax`]), interaction terms and their
//! operational semantics ([`term`]), automata ([`nfa`]) and local verifiers ([`project`]),
//! the compiled model ([`model`]) and its file format ([`artifact`]), the check procedures
//! ([`check`]) and their results ([`verdict`]).
//!
//! Invariants kept across the crate: ids are small `u32` newtypes that index the table that
//! issued them; a loaded model is validated and then immutable (`Send + Sync`); a verdict is
//! never a guess (a budget that runs out gives [`verdict::VerdictKind::Inconclusive`]); readers
//! never panic on bad input, they return a [`syntax::ParseError`] with file, line and column.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod artifact;
pub mod check;
pub mod model;
pub mod multitrace;
pub mod nfa;
pub mod project;
pub mod signature;
pub mod syntax;
pub mod term;
pub mod verdict;
