//! Tests of the Timbuk reader.

use super::*;
use proptest::prelude::*;

const SMALL: &str = "Ops a0:1 a1:1 a2:1 x:0

Automaton A
States q0 q1 q2
Final States q1
Transitions
x -> q0
a1(q0) -> q1
a0(q1) -> q1
";

fn parse(text: &str) -> TimbukAutomaton {
    parse_timbuk("t.timbuk", text).unwrap_or_else(|e| panic!("{e}"))
}

#[track_caller]
fn assert_err(text: &str, line: u32, column: u32, fragment: &str) {
    match parse_timbuk("t.timbuk", text) {
        Ok(a) => panic!("expected an error, got {a:?}"),
        Err(e) => {
            assert!(
                e.message.contains(fragment),
                "message `{}` lacks `{fragment}`",
                e.message
            );
            assert_eq!((e.line, e.column), (line, column), "{e}");
            assert!(e.to_string().starts_with("t.timbuk:"), "{e}");
        }
    }
}

#[test]
fn small_automaton() {
    let a = parse(SMALL);
    assert_eq!(a.letters, ["a0", "a1", "a2"]);
    assert_eq!(a.states, ["q0", "q1", "q2"]);
    assert_eq!(a.initial, [0]);
    assert_eq!(a.accepting, [1]);
    assert_eq!(a.transitions, [(0, 1, 1), (1, 0, 1)]);
    assert_eq!(a.systems, None);
}

#[test]
fn free_form_layout() {
    let a = parse(
        "Ops\na0 : 1\n x:\n0 Automaton\n\tA States q0:0 q1 Final\nStates Transitions x->q0 \
         a0 ( q0\n)\n->\nq1 x -> q0",
    );
    assert_eq!(a.states, ["q0", "q1"]);
    assert_eq!(a.initial, [0]);
    assert!(a.accepting.is_empty());
    assert_eq!(a.transitions, [(0, 0, 1)]);
    // Names are any non-whitespace runs without punctuation.
    let a = parse(
        "Ops é-1:1 a.b:1 x0:0 Automaton my-aut States s>1 s-2 Final States s-2 Transitions \
         x0 -> s>1 é-1(s>1)->s-2 a.b(s-2) -> s>1",
    );
    assert_eq!(a.letters, ["é-1", "a.b"]);
    assert_eq!(a.states, ["s>1", "s-2"]);
    assert_eq!(a.transitions, [(0, 0, 1), (1, 1, 0)]);
    // Windows line ends.
    let a = parse(&SMALL.replace('\n', "\r\n"));
    assert_eq!(a.transitions.len(), 2);
}

#[test]
fn several_initial_states() {
    let a = parse(
        "Ops a:1 x:0 y:0 Automaton A States p q r Final States r p r Transitions \
         x -> q y -> p x -> q a(p) -> r",
    );
    assert_eq!(a.initial, [1, 0]);
    assert_eq!(a.accepting, [2, 0]);
    assert_eq!(a.transitions, [(0, 0, 2)]);
}

#[test]
fn systems_block() {
    let a = parse(&format!("{SMALL}Systems\n    [l1] a0 a1\n    [l2] a2\n"));
    assert_eq!(
        a.systems,
        Some(vec![
            ("l1".to_string(), vec![0, 1]),
            ("l2".to_string(), vec![2])
        ])
    );
    // Commas between letters, locations in any order, a location without letters.
    let a = parse(&format!("{SMALL}Systems [l2] a2, a0 [l0] [l1]a1"));
    assert_eq!(
        a.systems,
        Some(vec![
            ("l2".to_string(), vec![2, 0]),
            ("l0".to_string(), vec![]),
            ("l1".to_string(), vec![1])
        ])
    );
    // No letters at all: an empty block is fine.
    let a = parse("Ops x:0 Automaton A States q Final States Transitions x -> q Systems");
    assert_eq!(a.systems, Some(vec![]));
}

#[test]
fn systems_errors() {
    let base = format!("{SMALL}Systems\n");
    // SMALL has 9 lines; `Systems` is on line 10.
    assert_err(
        &format!("{base}[l1] a0 a1\n[l2] a2 a1"),
        12,
        9,
        "letter `a1` is already in location l1 (at 11:9); each letter belongs to exactly one \
         location",
    );
    assert_err(
        &format!("{base}[l1] a0 a1 a0 [l2] a2"),
        11,
        12,
        "letter `a0` is listed twice in location l1 (first at 11:6)",
    );
    assert_err(
        &format!("{base}[l1] a0 a1\n[l2] a9"),
        12,
        6,
        "unknown letter `a9` in location l2; letters declared in `Ops`: a0, a1, a2",
    );
    assert_err(
        &format!("{base}[l1] a0 x"),
        11,
        9,
        "`x` has arity 0 in `Ops` (an initial marker), it is not a letter",
    );
    assert_err(
        &format!("{base}[l1] a0\n"),
        10,
        1,
        "letters a1, a2 of `Ops` are in no location of `Systems`; each letter belongs to \
         exactly one location: add each to a location, e.g. `[l1] ... a1`",
    );
    assert_err(
        &format!("{base}[l1] a0 a1"),
        10,
        1,
        "letter `a2` of `Ops` is in no location",
    );
    assert_err(
        &format!("{base}[l1] a0 a1 [l1] a2"),
        11,
        13,
        "location `l1` is listed twice in `Systems` (first at 11:2)",
    );
    assert_err(
        &format!("{base}a0 [l1] a0 a1 a2"),
        11,
        1,
        "expected `[` opening a location like `[l1] a0 a1`, found `a0`",
    );
    assert_err(
        &format!("{base}[l1 a0"),
        11,
        5,
        "expected `]` after location name `l1`, found `a0`",
    );
    assert_err(
        &format!("{base}[] a0"),
        11,
        2,
        "expected a location name after `[`, found `]`",
    );
    assert_err(
        &format!("{base}[l1] a0 a1 a2 )"),
        11,
        15,
        "expected a letter, `[` opening the next location or end of input, found `)`",
    );
    assert_err(&format!("{base}["), 11, 2, "unexpected end of input");
}

#[test]
fn rule_errors() {
    let head = "Ops a0:1 a1:1 x:0\nAutomaton A\nStates q0 q1\nFinal States q1\nTransitions\n";
    assert_err(
        &format!("{head}x -> q0\n  a7(q0) -> q1"),
        7,
        3,
        "unknown letter `a7`; letters declared in `Ops`: a0, a1",
    );
    assert_err(
        &format!("{head}x -> q0\na0(q0) -> q9"),
        7,
        11,
        "unknown state `q9`; states declared in `States`: q0, q1",
    );
    assert_err(
        &format!("{head}x -> q0\na0(q5) -> q1"),
        7,
        4,
        "unknown state `q5`",
    );
    assert_err(&format!("{head}x -> q3"), 6, 6, "unknown state `q3`");
    assert_err(
        &format!("{head}x -> q0\nx(q0) -> q1"),
        7,
        1,
        "arity mismatch: `x` has arity 0 in `Ops` (an initial marker)",
    );
    assert_err(
        &format!("{head}a0 -> q0"),
        6,
        1,
        "arity mismatch: `a0` has arity 1 in `Ops` (a letter), write a transition \
         `a0(q) -> q'`",
    );
    assert_err(
        &format!("{head}y -> q0"),
        6,
        1,
        "undeclared symbol `y`: a rule `y -> q` needs `y` declared with arity 0 in `Ops` \
         (`y:0`); symbols of arity 0 in `Ops`: x",
    );
    assert_err(
        &format!("{head}x -> q0\na0 q0 -> q1"),
        7,
        4,
        "expected `(` or `->` after `a0`, found `q0`",
    );
    assert_err(
        &format!("{head}x -> q0\na0(q0 -> q1"),
        7,
        7,
        "expected `)` after the source state, found `->`",
    );
    assert_err(
        &format!("{head}x -> q0\na0(q0) q1"),
        7,
        8,
        "expected `->` after `)`, found `q1`",
    );
    assert_err(
        &format!("{head}x -> q0\na0(q0) ->"),
        7,
        10,
        "unexpected end of input, expected a target state after `->`",
    );
    assert_err(
        &format!("{head}x -> q0\na0() -> q1"),
        7,
        4,
        "expected a state inside `a0(`, found `)`",
    );
    assert_err(
        &format!("{head}x -> q0\n(q0) -> q1"),
        7,
        1,
        "expected a rule `a(q) -> q'` or `x -> q`, `Systems` or end of input, found `(`",
    );
    assert_err(&format!("{head}x -> q0\nStates q2"), 7, 1, "found `States`");
    assert_err(
        &format!("{head}a0(q0) -> q1"),
        5,
        1,
        "no initial state: `Transitions` has no rule `x -> q`",
    );
}

#[test]
fn section_errors() {
    assert_err("", 1, 1, "empty file: expected a Timbuk automaton");
    assert_err(" \n\t\n", 3, 1, "empty file");
    assert_err(
        "Automaton A",
        1,
        1,
        "expected `Ops` opening a Timbuk automaton, found `Automaton`",
    );
    assert_err(
        "Ops a0:1 x:0 States q0",
        1,
        14,
        "`States` is a keyword and cannot name a symbol; expected a symbol `name:arity` or \
         `Automaton`",
    );
    assert_err(
        "Ops a0:1 x:0\nA States q0",
        2,
        3,
        "expected `:` and an arity after symbol `A`, found `States`",
    );
    assert_err(
        "Ops a0:1 x:0",
        1,
        13,
        "unexpected end of input, expected a symbol `name:arity` or `Automaton`",
    );
    assert_err(
        "Ops a0:1 Transitions:1 Automaton",
        1,
        10,
        "`Transitions` is a keyword and cannot name a symbol",
    );
    assert_err(
        "Ops a0 x:0",
        1,
        8,
        "expected `:` and an arity after symbol `a0`, found `x`",
    );
    assert_err(
        "Ops a0:one",
        1,
        8,
        "expected the arity of symbol `a0` (0 or 1), found `one`",
    );
    assert_err(
        "Ops f:2 x:0",
        1,
        7,
        "symbol `f` has arity 2: only word automata are supported",
    );
    assert_err(
        "Ops f:99999999999999999999 x:0",
        1,
        7,
        "has arity 99999999999999999999",
    );
    assert_err(
        "Ops a:1 b:1\n a:1",
        2,
        2,
        "symbol `a` is declared twice in `Ops` (first at 1:5)",
    );
    assert_err(
        "Ops x:0 Automaton States q0",
        1,
        19,
        "expected the automaton's name after `Automaton`, found `States`",
    );
    assert_err(
        "Ops x:0 Automaton A Final States",
        1,
        21,
        "expected `States` after the automaton's name, found `Final`",
    );
    assert_err(
        "Ops x:0 Automaton A States q0 q1\n  q0 Final States",
        2,
        3,
        "duplicate state `q0` (first declared at 1:28)",
    );
    assert_err(
        "Ops x:0 Automaton A States q0:1 Final States",
        1,
        31,
        "expected arity `0` after state `q0:`",
    );
    assert_err(
        "Ops x:0 Automaton A States q0 Transitions x -> q0",
        1,
        31,
        "missing `Final States` section before `Transitions`",
    );
    assert_err(
        "Ops x:0 Automaton A States q0 ( Final States",
        1,
        31,
        "expected a state name or `Final States`, found `(`",
    );
    assert_err(
        "Ops x:0 Automaton A States q0 Final q0",
        1,
        37,
        "expected `States` after `Final`, found `q0`",
    );
    assert_err(
        "Ops x:0 Automaton A States q0 Final States q0",
        1,
        46,
        "unexpected end of input, expected an accepting state or `Transitions`",
    );
    assert_err(
        "Ops x:0 Automaton A States q0 Final States q7 Transitions",
        1,
        44,
        "unknown state `q7`; states declared in `States`: q0",
    );
    assert_err(
        "Ops x:0 Automaton A States q0 Final States Systems [l] ",
        1,
        44,
        "missing `Transitions` section before `Systems`",
    );
    assert_err(
        "Ops x:0 Automaton A States q0 Final States Transitions x -> q0 ] garbage",
        1,
        64,
        "expected a rule `a(q) -> q'` or `x -> q`, `Systems` or end of input, found `]`",
    );
    assert_err(
        "Ops a:1 \u{7}:1",
        1,
        9,
        "expected a symbol `name:arity` or `Automaton`, found character U+0007",
    );
}

#[test]
fn long_words_are_shortened_in_messages() {
    let long = "z".repeat(100);
    let e = parse_timbuk("f", &format!("Ops a:1 b {long}")).unwrap_err();
    assert!(
        e.message.contains(&format!("`{}...`", "z".repeat(40))),
        "{e}"
    );
}

/// The AutomatArk NFAs of seed 004, read from the shared data folder when it exists.
#[test]
fn automatark_files() {
    let Some(root) = multitrace_model::testdata::data("", "automatark_files") else {
        return;
    };
    let nfa = root.join("automatark/NFA");
    let cases = [
        (
            "Bakery-4P-BinEnc-BwBad/armcNFA_inclTest_12.timbuk",
            94,
            320,
            1,
        ),
        (
            "Bakery-4P-BinEnc-BwBad/armcNFA_inclTest_11.timbuk",
            35,
            75,
            1,
        ),
        (
            "Bakery-4P-BinEnc-BwBad/armcNFA_inclTest_6.timbuk",
            15,
            23,
            1,
        ),
        (
            "IBakery4pBinEnc-FbtOneOne-Nondet/armcNFA_inclTest_10.timbuk",
            124,
            348,
            2,
        ),
    ];
    // Seed 004's partition: l1 = a0-a5 and a16, l2 = a6-a10, a17 and a18, l3 = a11-a15.
    let systems = "\nSystems\n  [l1] a0 a1 a2 a3 a4 a5 a16\n  [l2] a6 a7 a8 a9 a10 a17 \
                   a18\n  [l3] a11 a12 a13 a14 a15\n";
    for (path, states, transitions, initial) in cases {
        let path = nfa.join(path);
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let name = path.display().to_string();
        let a = parse_timbuk(&name, &text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(a.states.len(), states, "{name}");
        assert_eq!(a.transitions.len(), transitions, "{name}");
        assert_eq!(a.initial.len(), initial, "{name}");
        assert_eq!(a.letters.len(), 19, "{name}");
        assert_eq!(a.accepting.len(), 1, "{name}");
        assert_eq!(a.systems, None);
        let with =
            parse_timbuk(&name, &format!("{text}{systems}")).unwrap_or_else(|e| panic!("{e}"));
        let locs = with.systems.expect("a Systems block");
        let sizes: Vec<usize> = locs.iter().map(|(_, ls)| ls.len()).collect();
        assert_eq!(sizes, [7, 7, 5]);
    }
}

const TOKENS: &[&str] = &[
    "Ops",
    "Automaton",
    "States",
    "Final",
    "Transitions",
    "Systems",
    "a0",
    "a1",
    "x",
    "q0",
    "q1",
    ":",
    "0",
    "1",
    "2",
    "(",
    ")",
    "->",
    "-",
    ">",
    "[",
    "]",
    ",",
    "l1",
    " ",
    "\n",
    "é",
    "\0",
];

proptest! {
    #[test]
    fn never_panics_on_strings(text in any::<String>()) {
        let _ = parse_timbuk("f", &text);
    }

    #[test]
    fn never_panics_on_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let _ = parse_timbuk("f", &String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn never_panics_on_token_soup(
        toks in proptest::collection::vec(proptest::sample::select(TOKENS), 0..80),
        spaced in any::<bool>(),
    ) {
        let text = toks.join(if spaced { " " } else { "" });
        let _ = parse_timbuk("f", &text);
        let _ = parse_timbuk("f", &format!("{SMALL}{text}"));
        let _ = parse_timbuk("f", &format!("{SMALL}Systems {text}"));
    }

    #[test]
    fn generated_automata_parse(
        n_letters in 1usize..6,
        n_states in 1usize..6,
        rules in proptest::collection::vec((0usize..6, 0usize..6, 0usize..6), 0..20),
    ) {
        let mut text = String::from("Ops");
        for l in 0..n_letters {
            text.push_str(&format!(" a{l}:1"));
        }
        text.push_str(" x:0\nAutomaton A\nStates");
        for s in 0..n_states {
            text.push_str(&format!(" q{s}"));
        }
        text.push_str("\nFinal States q0\nTransitions\nx -> q0\n");
        let rules: Vec<(usize, usize, usize)> = rules
            .into_iter()
            .map(|(f, l, t)| (f % n_states, l % n_letters, t % n_states))
            .collect();
        for &(f, l, t) in &rules {
            text.push_str(&format!("a{l}(q{f}) -> q{t}\n"));
        }
        let a = parse_timbuk("f", &text).unwrap();
        prop_assert_eq!(a.transitions, rules);
        prop_assert_eq!(a.states.len(), n_states);
    }
}
