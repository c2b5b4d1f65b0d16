//! Tests of the `.htf` reader: messages, positions, the fast path against the exact one.

use super::*;
use multitrace_model::signature::MessageId;
use proptest::prelude::*;

fn sig() -> Signature {
    let mut s = Signature::new();
    for l in ["l1", "l2", "l3", "l4", "l5"] {
        s.add_lifeline(l).unwrap();
    }
    for m in ["m1", "m2", "m3", "m4", "m5", "m6"] {
        s.add_message(m);
    }
    s
}

fn parse(text: &str) -> (Multitrace, Vec<String>) {
    parse_htf("t.htf", text, &sig()).unwrap_or_else(|e| panic!("{e}"))
}

fn assert_err(text: &str, line: u32, column: u32, fragment: &str) {
    let e = parse_htf("t.htf", text, &sig()).unwrap_err();
    assert_eq!((e.line, e.column), (line, column), "{e}");
    assert!(e.message.contains(fragment), "{e}");
    assert!(e
        .to_string()
        .starts_with(&format!("t.htf:{line}:{column}: ")));
}

fn act(l: u32, kind: ActionKind, m: u32) -> Action {
    Action {
        lifeline: LifelineId(l),
        kind,
        message: MessageId(m),
    }
}

fn set(ls: &[u32]) -> LifelineSet {
    ls.iter().fold(LifelineSet::EMPTY, |s, &l| {
        s.union(LifelineSet::single(LifelineId(l)))
    })
}

#[test]
fn reads_a_real_sample() {
    let text = "{\n[l1] l1?m4.l1?m4;\n[l2] l2!m5.l2?m3.l2?m6;\n[l3] l3!m4.l3!m4;\n[l4] ;\n[l5] l5?m3.l5?m5\n}";
    let (mt, names) = parse(text);
    assert_eq!(names, ["l1", "l2", "l3", "l4", "l5"]);
    assert_eq!(mt.components.len(), 5);
    assert_eq!(
        mt.components[1].trace,
        vec![
            act(1, ActionKind::Emission, 4),
            act(1, ActionKind::Reception, 2),
            act(1, ActionKind::Reception, 5)
        ]
    );
    assert!(mt.components[3].trace.is_empty());
    assert_eq!(mt.len(), 2 + 3 + 2 + 2);
    // The runtime's rendering reads back to the same multitrace.
    let (again, _) = parse(&mt.to_htf(&sig()));
    assert_eq!(again, mt);
}

#[test]
fn groups_comments_and_completion() {
    let text = "/* x */ { [l2, l3] l2!m1 . /* y */ l3?m1 ; [l1]\n}";
    let (mt, names) = parse(text);
    assert_eq!(names, ["l2,l3", "l1", "l4", "l5"]);
    assert_eq!(mt.components[0].lifelines, set(&[1, 2]));
    assert_eq!(
        mt.components[0].trace,
        vec![
            act(1, ActionKind::Emission, 0),
            act(2, ActionKind::Reception, 0)
        ]
    );
    assert_eq!(mt.components[2].lifelines, set(&[3]));
    assert!(mt.components[2].trace.is_empty());
    assert_eq!(mt.lifelines(), sig().all_lifelines());
    // Trailing `;`, empty multitrace.
    let (mt, names) = parse("{[l5] l5!m6;}");
    assert_eq!(names, ["l5", "l1", "l2", "l3", "l4"]);
    assert_eq!(mt.len(), 1);
    let (mt, names) = parse("{}");
    assert_eq!((mt.components.len(), names.len()), (5, 5));
}

#[test]
fn all_lifelines() {
    let (mt, names) = parse("{ [#all] l1!m1.l5?m1 }");
    assert_eq!(names, ["l1,l2,l3,l4,l5"]);
    assert_eq!(mt.components.len(), 1);
    assert_eq!(mt.components[0].lifelines, sig().all_lifelines());
    assert_eq!(mt.len(), 2);
    assert_err(
        "{ [l1] ; [#all] }",
        1,
        11,
        "`#all` includes lifeline `l1`, which is already in component [l1] at 1:3",
    );
    assert_err(
        "{ [#all, l1] }",
        1,
        8,
        "expected `]` after `#all`, found `,`",
    );
    assert_err(
        "{ [#alls] }",
        1,
        4,
        "expected a lifeline name or `#all`, found `#`",
    );
    let e = parse_htf("t", "{[#all]}", &Signature::new()).unwrap_err();
    assert!(e.message.contains("`[#all]` is empty"), "{e}");
    // With no lifelines at all, `{}` is the empty multitrace.
    let (mt, names) = parse_htf("t", "{}", &Signature::new()).unwrap();
    assert!(mt.components.is_empty() && names.is_empty());
}

#[test]
fn name_errors() {
    assert_err(
        "{\n[l1] l1!m1;\n[x9] }",
        3,
        2,
        "unknown lifeline `x9`; declared lifelines: l1, l2, l3, l4, l5",
    );
    assert_err(
        "{ [l1] l1!m1.l1?zz }",
        1,
        17,
        "unknown message `zz`; declared messages: m1, m2, m3",
    );
    assert_err("{ [l1] l7!m1 }", 1, 8, "unknown lifeline `l7`");
    assert_err(
        "{ [l1,l2] l1!m1.\n  l3!m2 }",
        2,
        3,
        "action `l3!m2` is on lifeline l3, which is not in this component [l1,l2]",
    );
    assert_err(
        "{ [l1] ;\n [l2, l1] }",
        2,
        7,
        "lifeline `l1` is already in component [l1] at 1:3",
    );
    assert_err("{ [l1, l1] }", 1, 8, "lifeline `l1` is listed twice");
}

#[test]
fn syntax_errors() {
    assert_err("", 1, 1, "empty file");
    assert_err("  /* c */\n", 2, 1, "empty file");
    assert_err(
        "[l1] l1!m1",
        1,
        1,
        "expected `{` opening the multitrace, found `[`",
    );
    assert_err(
        "{ [l1] l1!m1",
        1,
        13,
        "unexpected end of input, expected `;` or `}`",
    );
    assert_err(
        "{ [l1] l1!m1 }\n}",
        2,
        1,
        "expected end of input after the closing `}`, found `}`",
    );
    assert_err(
        "{ [l1] l1!m1 l1?m2 }",
        1,
        14,
        "expected `.` and an action, `;` or `}`, found `l1`",
    );
    assert_err(
        "{ [l1] l1!m1. }",
        1,
        15,
        "expected an action `l!m` or `l?m`, found `}`",
    );
    assert_err(
        "{ [l1] l1 m1 }",
        1,
        11,
        "expected `!` or `?` after lifeline `l1`, found `m1`",
    );
    assert_err("{ [l1] l1! }", 1, 12, "expected a message name, found `}`");
    assert_err(
        "{ [] }",
        1,
        4,
        "expected a lifeline name or `#all`, found `]`",
    );
    assert_err("{ [l1,] }", 1, 7, "expected a lifeline name, found `]`");
    assert_err("{ [l1 l2] }", 1, 7, "expected `,` or `]`, found `l2`");
    assert_err(
        "{ l1!m1 }",
        1,
        3,
        "expected `[` opening a component or `}`, found `l1`",
    );
    assert_err(
        "{ [l1] ;; }",
        1,
        9,
        "expected `[` opening a component or `}`, found `;`",
    );
    assert_err("{ [l1] 1x }", 1, 8, "expected `;` or `}`, found `1x`");
    assert_err("{ [l1] } /*", 1, 10, "unterminated comment");
    assert_err("{ [l1] \u{7} }", 1, 8, "found character U+0007");
    assert_err("{ [l1] é }", 1, 8, "found `é`");
}

#[test]
fn real_sample_files() {
    let Some(root) =
        multitrace_model::testdata::data("hibou-lfrem-sample", "HIBOU sample .htf files")
    else {
        return;
    };
    let Ok(dirs) = std::fs::read_dir(root.join("gen_ints")) else {
        return;
    };
    // The signature of the sample (this crate has no `.hsf` reader).
    let sig = sig();
    let mut count = 0;
    for dir in dirs.flatten() {
        let Ok(files) = std::fs::read_dir(dir.path()) else {
            continue;
        };
        for f in files.flatten() {
            let path = f.path();
            if path.extension().is_some_and(|e| e == "htf") {
                let text = std::fs::read_to_string(&path).unwrap();
                parse_htf(&path.display().to_string(), &text, &sig)
                    .unwrap_or_else(|e| panic!("{e}"));
                count += 1;
            }
        }
    }
    assert!(count > 0);
}

const TOKENS: &[&str] = &[
    "{", "}", "[", "]", ",", ";", ".", "!", "?", "#all", "#", "l1", "l2", "l9", "m1", "zz", " ",
    "\n", "/*", "*/", "é", "\0", "1",
];

proptest! {
    #[test]
    fn never_panics_on_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let text = String::from_utf8_lossy(&bytes);
        let _ = parse_htf("f", &text, &sig());
    }

    #[test]
    fn never_panics_on_token_soup(
        toks in proptest::collection::vec(proptest::sample::select(TOKENS), 0..80)
    ) {
        let text = toks.concat();
        let _ = parse_htf("f", &text, &sig());
        let _ = parse_htf("f", &text, &Signature::new());
    }

    #[test]
    fn well_formed_inputs_parse(
        comps in proptest::collection::vec(
            proptest::collection::vec((0u32..2, any::<bool>(), 0u32..6), 0..6),
            0..5,
        )
    ) {
        // One component per lifeline l1..lk, actions on its lifeline.
        let s = sig();
        let mut text = String::from("{");
        for (k, acts) in comps.iter().enumerate() {
            let l = &s.lifelines()[k];
            let acts: Vec<String> = acts
                .iter()
                .map(|&(_, e, m)| format!("{l}{}m{}", if e { '!' } else { '?' }, m + 1))
                .collect();
            text.push_str(&format!("[{l}] {};", acts.join(".")));
        }
        text.push('}');
        let (mt, names) = parse_htf("f", &text, &s).unwrap();
        prop_assert_eq!(mt.components.len(), 5);
        prop_assert_eq!(names.len(), 5);
        prop_assert_eq!(mt.len(), comps.iter().map(Vec::len).sum::<usize>());
        // Such files take the fast path.
        prop_assert!(fast::parse(&text, &s).is_some());
    }

    #[test]
    fn fast_path_agrees_with_exact_path(
        comps in proptest::collection::vec(
            proptest::collection::vec((0u32..5, any::<bool>(), 0u32..7), 0..6),
            0..5,
        ),
        edits in proptest::collection::vec(
            (any::<usize>(), any::<u8>(), proptest::sample::select(TOKENS)),
            0..4,
        ),
        soup in proptest::collection::vec(proptest::sample::select(TOKENS), 0..60),
    ) {
        // Components of one or two lifelines; actions mostly on them, some not (`l`
        // out of the component) and some unknown (`m7`).
        let s = sig();
        let mut text = String::from("{\n");
        for (k, acts) in comps.iter().enumerate() {
            let ls = &s.lifelines()[k..(k + 1 + k % 2).min(5)];
            let acts: Vec<String> = acts
                .iter()
                .map(|&(l, e, m)| {
                    let l = if l < 4 { &ls[l as usize % ls.len()] } else { &s.lifelines()[0] };
                    format!("{l}{}m{}", if e { '!' } else { '?' }, m + 1)
                })
                .collect();
            text.push_str(&format!("[{}] {};\n", ls.join(", "), acts.join(" . ")));
        }
        text.push('}');
        let mutated = multitrace_model::syntax::mutation::mutate(&text, &edits);
        for text in [text, mutated, soup.concat()] {
            let exact = parse_htf_exact("f", &text, &s).map(|(mt, n)| complete(mt, n, &s));
            if let Some((mt, n)) = fast::parse(&text, &s) {
                prop_assert_eq!(Ok(complete(mt, n, &s)), exact.clone(), "{:?}", text);
            }
            prop_assert_eq!(parse_htf("f", &text, &s), exact);
        }
    }
}
