//! The reason of a Fail: AS's classification (LocalError / InterError / CentralError) of a
//! failed multitrace of a compiled model, and a LocalError as a blocked entry.
//!
//! Invariants: the classification is AS's, whichever procedure gave the verdict, so the
//! reason does not depend on the procedure.

use crate::semi::{has_accepting_path, local_check, LocalOutcome};
use multitrace_model::model::Automata;
use multitrace_model::nfa::{Alphabet, LetterId, LocationId};
use multitrace_model::verdict::{Blocked, Mode, Reason, Sym};

/// AS's classification of a failed multitrace of a compiled model: the first location (in
/// location order) whose trace its local verifier rejects, else InterError when the local
/// areas have no accepting path in common, else CentralError.
pub fn classify(
    automata: &Automata,
    alphabet: &Alphabet,
    traces: &[Vec<LetterId>],
    mode: Mode,
) -> Reason {
    let words = automata.areas.words();
    let mut inter = vec![!0u64; words];
    let mut area = vec![0u64; words];
    let mut seen = Vec::new();
    for (k, trace) in traces.iter().enumerate() {
        let dfa = &automata.projections[k];
        match local_check(automata, dfa, alphabet, trace, mode, &mut area, &mut seen) {
            LocalOutcome::Error { position, expected } => {
                return Reason::LocalError {
                    location: LocationId(k as u32),
                    position,
                    expected: expected.into_iter().map(Sym::Letter).collect(),
                }
            }
            LocalOutcome::Pass { .. } => {
                for (x, y) in inter.iter_mut().zip(&area) {
                    *x &= *y;
                }
            }
        }
    }
    if has_accepting_path(automata, &inter) {
        Reason::CentralError
    } else {
        Reason::InterError
    }
}

/// The LocalError of `reason`, if it is one, as a [`Blocked`] entry: `action(i, p)` gives the
/// action found (`None` past the end of the trace).
pub(crate) fn local_entry(
    reason: &Reason,
    action: impl Fn(usize, usize) -> Option<Sym>,
) -> Option<Blocked> {
    match reason {
        Reason::LocalError {
            location,
            position,
            expected,
        } => Some(Blocked {
            location: *location,
            position: *position,
            found: action(location.index(), *position),
            allowed: expected.clone(),
        }),
        _ => None,
    }
}
