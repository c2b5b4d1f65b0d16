//! AS with the fast local checks (lanes of four locations) against the reference reading and
//! against AC, on random automata split into up to nine locations (more than one lane).

use multitrace_check::ac::{check_ac, AcTables};
use multitrace_check::explore::Budget;
use multitrace_check::semi::{check_as, check_as_in, AsScratch, LocalTables};
use multitrace_compiler::compile::{compile_automaton, CompileOptions, LocationChoice};
use multitrace_compiler::syntax::parse_timbuk;
use multitrace_model::nfa::{LetterId, LocationId};
use multitrace_model::rng::Rng;
use multitrace_model::verdict::{Mode, Reason};
use std::collections::BTreeMap;

#[test]
fn fast_local_checks_match_the_reference_with_many_locations() {
    let mut rng = Rng::new(5);
    let mut reasons = BTreeMap::new();
    for case in 0..150 {
        let (states, letters) = (3 + rng.below(5), 9 + rng.below(4));
        let mut text = String::from("Ops x:0");
        for l in 0..letters {
            text += &format!(" a{l}:1");
        }
        text += "\nAutomaton R\nStates";
        for s in 0..states {
            text += &format!(" q{s}");
        }
        text += "\nFinal States q0";
        if rng.below(2) == 0 {
            text += &format!(" q{}", rng.below(states));
        }
        text += "\nTransitions\nx -> q0\n";
        for _ in 0..states * letters / 2 + 4 {
            text += &format!(
                "a{}(q{}) -> q{}\n",
                rng.below(letters),
                rng.below(states),
                rng.below(states)
            );
        }
        let aut = parse_timbuk("r.timbuk", &text).unwrap();
        let count = 5 + rng.below(5);
        let opts = CompileOptions {
            locations: LocationChoice::Random {
                count,
                seed: case as u64,
            },
            ..CompileOptions::default()
        };
        let c = compile_automaton(&aut, "r.timbuk", &text, &opts).unwrap();
        let a = c.automata().expect("an automaton");
        let tables = AcTables::new(&a.nfa, &c.alphabet);
        let local = LocalTables::new(a, &c.alphabet).expect("small tables");
        let mut scratch = AsScratch::default();
        let budget = Budget::default();
        let n = c.alphabet.locations();
        for _ in 0..20 {
            // A random run of the automaton (often accepted), projected, sometimes mutated.
            let mut traces = vec![Vec::new(); n];
            let mut s = a.nfa.initial()[0];
            for _ in 0..rng.below(12) {
                let out: Vec<_> = a.nfa.out(s).collect();
                if out.is_empty() {
                    break;
                }
                let (_, t) = out[rng.below(out.len())];
                traces[c.alphabet.location(t.letter).index()].push(t.letter);
                s = t.to;
            }
            if rng.below(2) == 0 {
                let k = rng.below(n);
                let own = c.alphabet.letters_of(c.alphabet.location(LetterId(0)));
                let mine = c.alphabet.letters_of(LocationId(k as u32));
                let pool = if mine.is_empty() { own } else { mine };
                let p = rng.below(traces[k].len() + 1);
                traces[k].insert(p, pool[rng.below(pool.len())]);
            }
            for mode in [Mode::Complete, Mode::Prefix] {
                let reference = check_as(a, &tables, &c.alphabet, &traces, mode, &budget, false);
                let fast = check_as_in(
                    &mut scratch,
                    a,
                    &tables,
                    Some(&local),
                    &c.alphabet,
                    &traces,
                    mode,
                    &budget,
                    false,
                );
                assert_eq!(fast.kind, reference.kind, "case {case}: {traces:?}");
                assert_eq!(
                    format!("{:?}", fast.reason),
                    format!("{:?}", reference.reason),
                    "case {case}: {traces:?}"
                );
                let ac = check_ac(a, &tables, &c.alphabet, &traces, None, mode, &budget, false);
                assert_eq!(ac.verdict.kind, fast.kind, "AC, case {case}: {traces:?}");
                let reason = match &fast.reason {
                    Some(Reason::LocalError { location, .. }) if location.index() >= 4 => {
                        "LocalError beyond the first lane".to_string()
                    }
                    Some(r) => format!("{r:?}")
                        .split([' ', '{', '('])
                        .next()
                        .unwrap_or_default()
                        .to_string(),
                    None => format!("{:?}", fast.kind),
                };
                *reasons.entry(reason).or_insert(0) += 1;
            }
        }
    }
    // The outcomes occur, including LocalErrors beyond the first lane (InterError needs
    // larger automata; the running-example tests cover it).
    for r in [
        "Pass",
        "WeakPass",
        "LocalError",
        "LocalError beyond the first lane",
        "CentralError",
    ] {
        assert!(reasons.get(r).copied().unwrap_or(0) > 10, "{reasons:?}");
    }
}
