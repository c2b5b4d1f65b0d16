//! The consistent cut a Fail's diagnosis starts from: a function of the letters alone.
//!
//! The diagnosis of a Fail asks, cut after cut, whether the multitrace cut there is a
//! multi-prefix. A cut known to be one spares every question below it (downward closure), so
//! a few prefix checks made first make most diagnoses cheap. The cut is found here from the
//! local traces only, never from the order the events arrived in: every input path (`check`
//! on files, `check --events`, a run the monitor checks whole at its end) then asks the same
//! questions under the same budget, and a diagnosis budget that runs out stops every path at
//! the same place, with the same record.
//!
//! The cut, in steps:
//! 1. each location's *local bound*: the longest prefix of its trace its local verifier (the
//!    DFA `Proj(A, Σi)`) reads into live states; no consistent cut goes further there. When the
//!    cut of the bounds is consistent (one prefix check), it is the answer: half the MQTT Fails;
//! 2. else the cut an interleaving read greedily on `A` reaches, without a search
//!    ([`AcTables::read_greedily`]);
//! 3. then each location's trace extended as far as the cut stays a multi-prefix, the others
//!    fixed (galloping from the cut, then bisection; up to the bound first, the usual answer).
//!
//! Invariant: every cut returned is a multi-prefix a check established (or the empty cut,
//! nothing known); a wrong known cut would give a wrong diagnosis.

use crate::ac::AcTables;
use multitrace_model::model::Automata;
use multitrace_model::nfa::{Alphabet, LetterId};

/// A consistent cut of `traces` (empty when none is established), for the diagnosis of a
/// Fail; `consistent` is the prefix check of a cut (true when a check established it is a
/// multi-prefix), `whole_known_bad` says the whole multitrace is known not to be one (a Fail
/// in prefix mode).
pub(crate) fn consistent_cut(
    automata: &Automata,
    tables: &AcTables,
    alphabet: &Alphabet,
    traces: &[Vec<LetterId>],
    whole_known_bad: bool,
    consistent: &mut dyn FnMut(&[Vec<LetterId>]) -> bool,
) -> Vec<usize> {
    let mut cut: Vec<Vec<LetterId>> = vec![Vec::new(); traces.len()];
    let mut ask = |at: &[usize]| {
        for ((c, t), &m) in cut.iter_mut().zip(traces).zip(at) {
            c.clear();
            c.extend_from_slice(&t[..m]);
        }
        consistent(&cut)
    };
    let whole: Vec<usize> = traces.iter().map(Vec::len).collect();
    let bound: Vec<usize> = traces
        .iter()
        .zip(&automata.projections)
        .map(|(trace, dfa)| {
            dfa.read_live(trace.iter().map(|&l| alphabet.local_index(l)))
                .1
        })
        .collect();
    let bad = whole_known_bad && bound == whole;
    if bound.iter().any(|&m| m > 0) && !bad && ask(&bound) {
        // No location can go past its bound: the largest cut there is.
        return bound;
    }
    let mut at = tables.read_greedily(&automata.nfa, traces);
    let mut proven = at.iter().any(|&m| m > 0);
    for i in 0..at.len() {
        if bound[i] <= at[i] {
            continue;
        }
        let keep = std::mem::replace(&mut at[i], bound[i]);
        let ok = ask(&at);
        at[i] = keep;
        if ok {
            at[i] = bound[i];
            proven = true;
            continue;
        }
        // Galloping from the cut (the extension is then usually short), then bisection.
        let (mut lo, mut hi) = (at[i], bound[i]);
        let mut step = 1;
        while lo + step < hi {
            let keep = std::mem::replace(&mut at[i], lo + step);
            let ok = ask(&at);
            at[i] = keep;
            if ok {
                lo += step;
                proven = true;
                step *= 2;
            } else {
                hi = lo + step;
                break;
            }
        }
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            let keep = std::mem::replace(&mut at[i], mid);
            if ask(&at) {
                lo = mid;
                proven = true;
            } else {
                hi = mid;
            }
            at[i] = keep;
        }
        at[i] = lo;
    }
    if !proven {
        return Vec::new();
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ac::{is_multi_prefix_in, AcScratch};
    use crate::diagnose;
    use multitrace_model::budget::Budget;
    use multitrace_model::model::CompiledModel;
    use multitrace_model::rng::Rng;
    use multitrace_model::testdata::random_events;

    fn mqtt() -> CompiledModel {
        multitrace_model::artifact::decode(include_bytes!(
            "../../fixtures/golden/seed004-mqtt.v2.mtm"
        ))
        .unwrap()
    }

    /// Random runs of the model, cut into local traces, with random letters inserted (so
    /// that most fail).
    fn runs(model: &CompiledModel, rng: &mut Rng, n: usize) -> Vec<Vec<Vec<LetterId>>> {
        let alphabet = &model.alphabet;
        (0..n)
            .map(|_| {
                let steps = 1 + rng.below(40);
                let mut events = random_events(model, rng, steps);
                for _ in 0..rng.below(3) {
                    let at = rng.below(events.len() + 1);
                    events.insert(at, LetterId(rng.below(alphabet.len()) as u32));
                }
                let mut traces = vec![Vec::new(); alphabet.locations()];
                for a in events {
                    traces[alphabet.location(a).index()].push(a);
                }
                traces
            })
            .collect()
    }

    fn prefix(traces: &[Vec<LetterId>], at: &[usize]) -> Vec<Vec<LetterId>> {
        traces
            .iter()
            .zip(at)
            .map(|(t, &n)| t[..n].to_vec())
            .collect()
    }

    /// The cut is a multi-prefix by an independent check (term exploration of the
    /// interaction, prefix mode); so is the greedy reading's; the local bounds bound every
    /// consistent cut; and a diagnosis knowing the cut is the diagnosis knowing nothing.
    #[test]
    fn the_cut_is_consistent_and_spares_only_questions() {
        let model = mqtt();
        let engine = crate::Engine::new(model.clone());
        let mut scratch = engine.scratch();
        let (a, alphabet) = (model.automata().unwrap(), &model.alphabet);
        let t = AcTables::new(&a.nfa, alphabet);
        let (mut ac, mut ac_d) = (AcScratch::default(), AcScratch::default());
        let term = crate::CheckOptions {
            mode: multitrace_model::verdict::Mode::Prefix,
            choice: crate::Choice::Force(crate::Procedure::Term),
            diagnosis: None,
            ..Default::default()
        };
        let mut by_term = |c: &[Vec<LetterId>]| {
            let v = engine.check_letters(&mut scratch, c, &term).unwrap().0;
            v.kind != multitrace_model::verdict::VerdictKind::Fail
        };
        let budget = Budget::default();
        let mut rng = Rng::new(31);
        let (mut cuts, mut greedy) = (0, 0);
        for traces in runs(&model, &mut rng, 300) {
            let mut ask = |c: &[Vec<LetterId>]| {
                is_multi_prefix_in(&mut ac, a, &t, alphabet, c, &budget).0 == Ok(true)
            };
            for bad in [false, true] {
                if bad && ask(&traces) {
                    continue;
                }
                let cut = consistent_cut(a, &t, alphabet, &traces, bad, &mut ask);
                if !cut.is_empty() {
                    cuts += 1;
                    assert!(by_term(&prefix(&traces, &cut)), "{traces:?}: cut {cut:?}");
                }
                let whole = bad.then_some(false);
                let d = |known: &[usize], ac: &mut AcScratch| {
                    let mut d = diagnose::diagnose_letters(
                        a, &t, alphabet, &traces, ac, whole, &budget, known, None,
                    );
                    d.vertices = 0;
                    d
                };
                assert_eq!(d(&cut, &mut ac_d), d(&[], &mut ac_d), "{traces:?}: {cut:?}");
            }
            let g = t.read_greedily(&a.nfa, &traces);
            greedy += usize::from(g.iter().any(|&n| n > 0));
            assert!(by_term(&prefix(&traces, &g)), "{traces:?}: greedy {g:?}");
            let bound: Vec<usize> = traces
                .iter()
                .zip(&a.projections)
                .map(|(tr, dfa)| dfa.read_live(tr.iter().map(|&l| alphabet.local_index(l))).1)
                .collect();
            for _ in 0..4 {
                let at: Vec<usize> = traces.iter().map(|tr| rng.below(tr.len() + 1)).collect();
                if by_term(&prefix(&traces, &at)) {
                    assert!(
                        at.iter().zip(&bound).all(|(x, b)| x <= b),
                        "{at:?} past {bound:?}"
                    );
                }
            }
        }
        assert!(
            cuts > 100 && greedy > 100,
            "{cuts} cuts, {greedy} greedy cuts"
        );
    }
}
