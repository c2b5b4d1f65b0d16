//! # multitrace-formats
//!
//! The readers (and writers) of runs: every format a multitrace or a local trace arrives in,
//! and the formats of other tools turned into events: XES logs ([`xes`]) and OpenTelemetry
//! spans (`otel`, built with the `otel` feature), with [`label_name`] (the model's one rule
//! making names of free text). Below them, [`input`] opens files (decompressed) and reads
//! lines with a bound; [`entry`] holds what readers hand a check (a multitrace by names, a run
//! by letters); [`output`] keeps an output from replacing an input.
//!
//! | reader | format | what it gives |
//! | --- | --- | --- |
//! | [`parse_htf`] | `.htf`, HIBOU multitraces: `{ [l1] l1!m1.l1?m2; [l2,l3] ... }` | a [`Multitrace`](multitrace_model::multitrace::Multitrace) over a [`Signature`](multitrace_model::signature::Signature), one local trace per group of lifelines |
//! | [`parse_mtf`], [`parse_mtf_indexed`] | `.mtf` (seed 004): one line per location, `[l1] a1.a2.a0` | one local trace per location of an [`Alphabet`](multitrace_model::nfa::Alphabet) |
//! | [`parse_jsonl_line`] | JSON Lines: one multitrace per line, `{"id": "...", "traces": {"l1": ["l1!m1"], "l2": []}}` | the same, with the line's `id` |
//!
//! [`write_mtf`] and [`write_jsonl_line`] write the last two back. [`events`]: event logs
//! (JSON Lines or CSV, one event per line), grouped by run.
//!
//! Invariants: every reader takes the whole text of one input (the batch cuts files into
//! lines, [`multitrace_model::syntax::read_text`] reads and checks files), refuses a name the model does
//! not declare, returns a [`ParseError`](multitrace_model::syntax::ParseError) with file, line and column
//! on bad input and never panics; the crate depends on `multitrace-model` only: no reader
//! knows the procedures, the monitor or the batch that consume what it reads. The lexical layer they share ([`multitrace_model::syntax`]) knows no
//! format; the readers depend on it, never the other way.

#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod events;
mod htf;
mod jsonl;
mod mtf;
mod object;

pub use htf::parse_htf;
pub use jsonl::{parse_jsonl_line, write_jsonl_line, NameIndex};
pub use mtf::{parse_mtf, parse_mtf_indexed, unwritable_name, write_mtf};

pub mod entry;
pub mod input;
#[cfg(feature = "otel")]
pub mod otel;
pub mod output;
pub mod xes;

pub use multitrace_model::label::label_name;
