//! The model's NFA as a PNML Petri net (`multitrace draw MODEL --pnml`), for process-mining
//! tools such as pm4py.
//!
//! # Construction
//!
//! For an NFA `A = (Q, Σ, δ, I, F)` the net has
//!
//! - a place `q` for every state `q ∈ Q`;
//! - a labelled transition for every NFA transition `(q, a, q')`, with one input arc from place
//!   `q` and one output arc to place `q'`, labelled by the letter `a` (its action or letter name);
//! - one final place `end`, and a silent transition from every accepting place `f ∈ F` to `end`;
//! - when `A` has one initial state `q0`, the initial marking is one token in `q0`; when it has
//!   several, one token in a fresh place `start` with a silent transition from `start` to every
//!   initial place (tokens in all of them would run them concurrently, which is not an NFA's
//!   choice);
//! - the final marking is one token in `end` (written in the `finalmarkings` element that pm4py
//!   reads).
//!
//! # Why its language is the NFA's
//!
//! Every transition of the net has exactly one input and one output place (a *state machine*
//! net), so every reachable marking holds exactly one token. A firing sequence from the initial
//! to the final marking is therefore a path of single-token moves: possibly a silent move from
//! `start` to an initial place `q0 ∈ I`, then labelled moves along NFA transitions
//! `q0 -a1-> q1 … -an-> qn`, then the silent move from `qn ∈ F` to `end` (the only way into
//! `end`, and `end` has no way out). Erasing the silent transitions leaves `a1 … an`, a word of
//! `L(A)`; conversely every accepting run of `A` gives such a firing sequence. So the net's
//! language (visible labels of the firing sequences that reach the final marking) is `L(A)`,
//! which is `σ(I)` for an interaction: a trace fits the net with alignment cost 0 exactly when
//! its global trace is accepted, i.e. when `check` at one location gives Pass in complete mode.
//!
//! Silent transitions are marked the way ProM and pm4py mark them
//! (`<toolspecific tool="ProM" activity="$invisible$"/>`).

use crate::view::DrawError;
use multitrace_model::model::CompiledModel;
use multitrace_model::nfa::StateId;
use std::fmt::Write as _;

/// Escapes text for XML content and attribute values (the one escaping of the drawings).
use crate::diagram::svg::escape;

/// The PNML text of the model's NFA (see the module docs for the construction).
pub fn pnml(m: &CompiledModel) -> Result<String, DrawError> {
    let Some(a) = m.automata() else {
        return Err(DrawError::TermOnly);
    };
    let nfa = &a.nfa;
    let mut s = String::new();
    s.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<pnml>\n");
    s.push_str(
        "  <net id=\"net\" type=\"http://www.pnml.org/version-2009/grammar/pnmlcoremodel\">\n",
    );
    let _ = writeln!(
        s,
        "    <name><text>{}</text></name>\n    <page id=\"page\">",
        escape(&m.stats.source)
    );
    let single_initial = nfa.initial().len() == 1;
    for q in 0..nfa.states() {
        let name = escape(&nfa.state_name(StateId(q as u32)));
        let marked = single_initial && nfa.initial()[0].0 as usize == q;
        let marking = if marked {
            "<initialMarking><text>1</text></initialMarking>"
        } else {
            ""
        };
        let _ = writeln!(
            s,
            "      <place id=\"q{q}\"><name><text>{name}</text></name>{marking}</place>"
        );
    }
    s.push_str("      <place id=\"end\"><name><text>end</text></name></place>\n");
    let mut arc = 0usize;
    let mut arc_to = |s: &mut String, from: &str, to: &str| {
        let _ = writeln!(
            s,
            "      <arc id=\"a{arc}\" source=\"{from}\" target=\"{to}\"/>"
        );
        arc += 1;
    };
    let silent = |s: &mut String, id: &str| {
        let _ = writeln!(
            s,
            "      <transition id=\"{id}\"><name><text>{id}</text></name>\
             <toolspecific tool=\"ProM\" version=\"6.4\" activity=\"$invisible$\" \
             localNodeID=\"{id}\"/></transition>"
        );
    };
    if !single_initial {
        s.push_str(
            "      <place id=\"start\"><name><text>start</text></name>\
             <initialMarking><text>1</text></initialMarking></place>\n",
        );
        for (i, q0) in nfa.initial().iter().enumerate() {
            let id = format!("init{i}");
            silent(&mut s, &id);
            arc_to(&mut s, "start", &id);
            arc_to(&mut s, &id, &format!("q{}", q0.0));
        }
    }
    for (i, t) in nfa.transitions().iter().enumerate() {
        let _ = writeln!(
            s,
            "      <transition id=\"t{i}\"><name><text>{}</text></name></transition>",
            escape(m.alphabet.name(t.letter))
        );
        arc_to(&mut s, &format!("q{}", t.from.0), &format!("t{i}"));
        arc_to(&mut s, &format!("t{i}"), &format!("q{}", t.to.0));
    }
    for q in 0..nfa.states() {
        if nfa.is_accepting(StateId(q as u32)) {
            let id = format!("final{q}");
            silent(&mut s, &id);
            arc_to(&mut s, &format!("q{q}"), &id);
            arc_to(&mut s, &id, "end");
        }
    }
    s.push_str("    </page>\n");
    s.push_str(
        "    <finalmarkings><marking><place idref=\"end\"><text>1</text></place></marking>\
         </finalmarkings>\n",
    );
    s.push_str("  </net>\n</pnml>\n");
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use multitrace_compiler::source::load_model;

    /// A small reading of the net back: places, labelled and silent transitions, arcs.
    struct Net {
        places: Vec<String>,
        initial: Vec<String>,
        transitions: Vec<(String, Option<String>)>,
        arcs: Vec<(String, String)>,
    }

    fn attr(line: &str, key: &str) -> String {
        let start = line.find(&format!("{key}=\"")).expect(key) + key.len() + 2;
        let end = line[start..].find('"').unwrap() + start;
        line[start..end].to_string()
    }

    fn read(text: &str) -> Net {
        let mut net = Net {
            places: vec![],
            initial: vec![],
            transitions: vec![],
            arcs: vec![],
        };
        for line in text.lines().map(str::trim) {
            if line.starts_with("<place ") {
                let id = attr(line, "id");
                if line.contains("<initialMarking>") {
                    net.initial.push(id.clone());
                }
                net.places.push(id);
            } else if line.starts_with("<transition ") {
                let id = attr(line, "id");
                let label = if line.contains("$invisible$") {
                    None
                } else {
                    let a = line.find("<text>").unwrap() + 6;
                    let b = line.find("</text>").unwrap();
                    Some(line[a..b].to_string())
                };
                net.transitions.push((id, label));
            } else if line.starts_with("<arc ") {
                net.arcs.push((attr(line, "source"), attr(line, "target")));
            }
        }
        net
    }

    /// The net's language, by brute force: visible words of length at most `n` that reach the
    /// final marking (one token in `end`), from the single-token markings.
    fn words(net: &Net, n: usize) -> std::collections::BTreeSet<Vec<String>> {
        use std::collections::BTreeSet;
        let pre = |t: &str| net.arcs.iter().find(|(_, b)| b == t).unwrap().0.clone();
        let post = |t: &str| net.arcs.iter().find(|(a, _)| a == t).unwrap().1.clone();
        let mut out = BTreeSet::new();
        // (place, word), explored with silent closure; a state machine net keeps one token.
        let mut stack: Vec<(String, Vec<String>)> = vec![(net.initial[0].clone(), vec![])];
        let mut seen = BTreeSet::new();
        while let Some((p, w)) = stack.pop() {
            if !seen.insert((p.clone(), w.clone())) {
                continue;
            }
            if p == "end" {
                out.insert(w.clone());
            }
            for (t, label) in &net.transitions {
                if pre(t) != p {
                    continue;
                }
                let mut w2 = w.clone();
                if let Some(l) = label {
                    if w.len() == n {
                        continue;
                    }
                    w2.push(l.clone());
                }
                stack.push((post(t), w2));
            }
        }
        out
    }

    /// The NFA's language by brute force, words of length at most `n`.
    fn nfa_words(m: &CompiledModel, n: usize) -> std::collections::BTreeSet<Vec<String>> {
        use std::collections::BTreeSet;
        let nfa = &m.automata().unwrap().nfa;
        let mut out = BTreeSet::new();
        let mut stack: Vec<(StateId, Vec<String>)> =
            nfa.initial().iter().map(|&q| (q, vec![])).collect();
        while let Some((q, w)) = stack.pop() {
            if nfa.is_accepting(q) {
                out.insert(w.clone());
            }
            if w.len() == n {
                continue;
            }
            for (_, t) in nfa.out(q) {
                let mut w2 = w.clone();
                w2.push(m.alphabet.name(t.letter).to_string());
                stack.push((t.to, w2));
            }
        }
        out
    }

    #[test]
    fn every_fixture_net_is_a_state_machine_with_the_nfa_language() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
        let mut checked = 0;
        for entry in std::fs::read_dir(&root).unwrap() {
            let dir = entry.unwrap().path();
            let Some(model) = ["model.hif", "model.timbuk"]
                .iter()
                .map(|f| dir.join(f))
                .find(|p| p.exists())
            else {
                continue;
            };
            let Ok(m) = load_model(&model, None, &Default::default()) else {
                continue;
            };
            if m.automata().is_none() {
                assert!(matches!(pnml(&m), Err(DrawError::TermOnly)));
                continue;
            }
            let text = pnml(&m).unwrap();
            let net = read(&text);
            assert_eq!(net.initial.len(), 1, "{}", model.display());
            // A state machine: one input and one output arc per transition.
            for (t, _) in &net.transitions {
                assert_eq!(net.arcs.iter().filter(|(_, b)| b == t).count(), 1);
                assert_eq!(net.arcs.iter().filter(|(a, _)| a == t).count(), 1);
            }
            assert_eq!(words(&net, 6), nfa_words(&m, 6), "{}", model.display());
            checked += 1;
        }
        assert!(checked >= 5, "only {checked} fixtures checked");
    }

    #[test]
    fn several_initial_states_start_from_one_place_with_a_silent_choice() {
        let dir = std::env::temp_dir().join(format!("multitrace-pnml-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("two.timbuk");
        std::fs::write(
            &path,
            "Ops a:1 b:1 x:0\nAutomaton A\nStates q0 q1 q2\nFinal States q2\nTransitions\n\
             x -> q0\nx -> q1\na(q0) -> q2\nb(q1) -> q2\na(q2) -> q0\n\
             Systems\n  [l1] a b\n",
        )
        .unwrap();
        let m = load_model(&path, None, &Default::default());
        std::fs::remove_dir_all(&dir).unwrap();
        let m = m.unwrap();
        assert_eq!(m.automata().unwrap().nfa.initial().len(), 2);
        let net = read(&pnml(&m).unwrap());
        assert_eq!(net.initial, vec!["start".to_string()]);
        assert_eq!(words(&net, 5), nfa_words(&m, 5));
    }
}
