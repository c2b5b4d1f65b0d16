//! # multitrace-compiler
//!
//! Turns models into what the runtime checks: the front ends read signatures (`.hsf`) and
//! interactions (`.hif`) in HIBOU syntax into a [`multitrace_runtime::signature::Signature`]
//! and interaction terms of a [`multitrace_runtime::term::TermStore`] ([`syntax`]).
//!
//! Like the runtime's readers, the front ends never panic on bad input: they return a
//! [`syntax::ParseError`] with file, line and column, or a [`syntax::ModelError`] when a file
//! cannot be read.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod syntax;
