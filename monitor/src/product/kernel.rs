//! The automaton a product steps on ([`Kernel`]): AC's tables, the automaton, the alphabet
//! (letter → location) and the closure rows, borrowed from the loaded model.
//!
//! Invariant: read only; one kernel serves every run of a model.

use multitrace_check::ac::AcTables;
use multitrace_model::nfa::{Alphabet, Nfa};

/// The automaton a product steps on, with the letter → location map.
#[derive(Clone, Copy)]
pub struct Kernel<'a> {
    /// AC's tables of the model.
    pub tables: &'a AcTables,
    /// The model's automaton.
    pub nfa: &'a Nfa,
    /// The model's alphabet.
    pub alphabet: &'a Alphabet,
    /// The model's closure rows ([`closure_rows`](super::closure_rows)): the states each state reaches by letters
    /// of one location alone, then, for a small model, by letters of each subset of the
    /// locations.
    pub closure: &'a [u64],
}
