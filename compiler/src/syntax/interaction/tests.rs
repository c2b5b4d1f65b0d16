//! Tests of the `.hif` reader: terms, trees, loops, messages and positions.

use super::*;
use multitrace_model::term::TermDisplay;
use proptest::prelude::*;

const REAL: &str = "strict(\n\tl2 -- m5 ->|,\n\tseq(\n\t\tm3 -> l2,\n\t\tloopW(seq(l1 -- m4 -> l3, m6 -> (l2,l5))),\n\t\tcoreg(l1)(l1 -- m1 ->|, m2 -> l1)\n\t)\n)";

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

fn parse(text: &str, store: &mut TermStore) -> TermId {
    let mut s = sig();
    parse_interaction("i.hif", text, &mut s, false, store).unwrap_or_else(|e| panic!("{e}"))
}

fn err(text: &str) -> ParseError {
    let mut s = sig();
    parse_interaction("i.hif", text, &mut s, false, &mut TermStore::new()).unwrap_err()
}

fn assert_err(text: &str, line: u32, column: u32, fragment: &str) {
    let e = err(text);
    assert_eq!((e.line, e.column), (line, column), "{e}");
    assert!(e.message.contains(fragment), "{e}");
}

fn em(s: &mut TermStore, l: u32, m: u32) -> TermId {
    s.act(Action {
        lifeline: LifelineId(l),
        kind: ActionKind::Emission,
        message: MessageId(m),
    })
}

fn rc(s: &mut TermStore, l: u32, m: u32) -> TermId {
    s.act(Action {
        lifeline: LifelineId(l),
        kind: ActionKind::Reception,
        message: MessageId(m),
    })
}

#[test]
fn leaves() {
    let mut s = TermStore::new();
    assert_eq!(parse("o", &mut s), TermId::EMPTY);
    assert_eq!(parse(" ∅ ", &mut s), TermId::EMPTY);
    let e = em(&mut s, 1, 4);
    assert_eq!(parse("l2 -- m5 ->|", &mut s), e);
    assert_eq!(parse("l2--m5->|", &mut s), e);
    assert_eq!(parse("l2 -- m5 -> /* env */ |", &mut s), e);
    let r = rc(&mut s, 0, 2);
    assert_eq!(parse("m3 -> l1", &mut s), r);
    let (a, b) = (em(&mut s, 0, 0), rc(&mut s, 2, 0));
    let pass = s.strict(a, b);
    assert_eq!(parse("l1 -- m1 -> l3", &mut s), pass);
}

#[test]
fn broadcasts_fold_par_to_the_right() {
    let mut s = TermStore::new();
    let a = em(&mut s, 0, 0);
    let (b, c, d) = (rc(&mut s, 1, 0), rc(&mut s, 2, 0), rc(&mut s, 3, 0));
    let cd = s.par(c, d);
    let bcd = s.par(b, cd);
    let expected = s.strict(a, bcd);
    assert_eq!(parse("l1 -- m1 -> (l2, l3, l4)", &mut s), expected);
    assert_eq!(parse("m1 -> (l2,l3,l4)", &mut s), bcd);
    assert_eq!(parse("m1 -> (l2)", &mut s), b);
}

#[test]
fn nary_operators_fold_to_the_right() {
    let mut s = TermStore::new();
    let (a, b, c) = (em(&mut s, 0, 0), em(&mut s, 1, 1), em(&mut s, 2, 2));
    let text = "OP(l1 -- m1 ->|, l2 -- m2 ->|, l3 -- m3 ->|)";
    let bc = s.strict(b, c);
    let want = s.strict(a, bc);
    assert_eq!(parse(&text.replace("OP", "strict"), &mut s), want);
    let bc = s.seq(b, c);
    let want = s.seq(a, bc);
    assert_eq!(parse(&text.replace("OP", "seq"), &mut s), want);
    let bc = s.par(b, c);
    let want = s.par(a, bc);
    assert_eq!(parse(&text.replace("OP", "par"), &mut s), want);
    let bc = s.alt(b, c);
    let want = s.alt(a, bc);
    assert_eq!(parse(&text.replace("OP", "alt"), &mut s), want);
    // The store flattens and sorts alt operands: any grouping gives the same term.
    let ab = s.alt(a, b);
    let left = s.alt(ab, c);
    assert_eq!(left, want);
    let set = LifelineSet::single(LifelineId(0)).union(LifelineSet::single(LifelineId(1)));
    let (x, y) = (em(&mut s, 0, 0), rc(&mut s, 0, 1));
    let z = em(&mut s, 1, 2);
    let yz = s.coreg(set, y, z);
    let want = s.coreg(set, x, yz);
    assert_eq!(
        parse(
            "coreg(l1, l2)(l1 -- m1 ->|, m2 -> l1, l2 -- m3 ->|)",
            &mut s
        ),
        want
    );
}

#[test]
fn loops() {
    let mut s = TermStore::new();
    let a = em(&mut s, 0, 0);
    for (kw, kind) in [
        ("loopS", LoopKind::Strict),
        ("loopH", LoopKind::Head),
        ("loopW", LoopKind::Weak),
        ("loopP", LoopKind::Par),
    ] {
        let want = s.repeat(kind, a);
        assert_eq!(parse(&format!("{kw}( l1 -- m1 ->| )"), &mut s), want);
    }
    assert_eq!(parse("loopW(o)", &mut s), TermId::EMPTY);
}

#[test]
fn real_example() {
    let mut s = TermStore::new();
    let got = parse(REAL, &mut s);
    let e25 = em(&mut s, 1, 4);
    let r23 = rc(&mut s, 1, 2);
    let (e14, r34) = (em(&mut s, 0, 3), rc(&mut s, 2, 3));
    let pass = s.strict(e14, r34);
    let (r26, r56) = (rc(&mut s, 1, 5), rc(&mut s, 4, 5));
    let bcast = s.par(r26, r56);
    let inner = s.seq(pass, bcast);
    let lp = s.repeat(LoopKind::Weak, inner);
    let (e11, r12) = (em(&mut s, 0, 0), rc(&mut s, 0, 1));
    let co = s.coreg(LifelineSet::single(LifelineId(0)), e11, r12);
    let tail = s.seq(lp, co);
    let sq = s.seq(r23, tail);
    let want = s.strict(e25, sq);
    assert_eq!(got, want);
    // The store's rendering reads back to the same term.
    let sg = sig();
    let shown = TermDisplay {
        store: &s,
        signature: &sg,
        term: got,
    }
    .to_string();
    assert_eq!(parse(&shown, &mut s), got);
}

#[test]
fn inference_adds_names_in_order() {
    let mut s = TermStore::new();
    let mut sig = Signature::new();
    let t =
        parse_interaction("i", "seq(b -- x -> a, y -> (c, a))", &mut sig, true, &mut s).unwrap();
    assert_eq!(sig.lifelines(), ["b", "a", "c"]);
    assert_eq!(sig.messages(), ["x", "y"]);
    assert_eq!(s.lifelines(t).len(), 3);
    // Keywords are names where an action expects one.
    let mut sig = Signature::new();
    parse_interaction("i", "seq -- o -> coreg", &mut sig, true, &mut s).unwrap();
    assert_eq!(sig.lifelines(), ["seq", "coreg"]);
    assert_eq!(sig.messages(), ["o"]);
    // Too many lifelines.
    let mut sig = Signature::new();
    let names: Vec<String> = (0..65).map(|i| format!("m -> l{i}")).collect();
    let text = format!("par({})", names.join(", "));
    let e = parse_interaction("i", &text, &mut sig, true, &mut s).unwrap_err();
    assert!(
        e.message.contains("lifeline `l64`: too many lifelines"),
        "{e}"
    );
}

#[test]
fn unknown_names() {
    assert_err(
        "seq(l1 -- m1 ->|,\n  x -- m1 ->|)",
        2,
        3,
        "unknown lifeline `x`; declared lifelines: l1, l2, l3, l4, l5",
    );
    assert_err(
        "l1 -- zz ->|",
        1,
        7,
        "unknown message `zz`; declared messages: m1, m2",
    );
    assert_err("m1 -> (l1, q)", 1, 12, "unknown lifeline `q`");
    assert_err("coreg(l9)(o, o)", 1, 7, "unknown lifeline `l9`");
}

#[test]
fn arity_errors() {
    assert_err(
        "seq(l1 -- m1 ->|)",
        1,
        1,
        "`seq` needs two or more interactions, found 1",
    );
    assert_err(
        "strict()",
        1,
        1,
        "`strict` needs two or more interactions, found none",
    );
    assert_err("o /* */ ,", 1, 9, "expected end of input, found `,`");
    assert_err(
        "coreg(l1)(o)",
        1,
        1,
        "`coreg` needs two or more interactions, found 1",
    );
    assert_err(
        "loopW(o, o)",
        1,
        8,
        "expected `)` (`loopW` takes exactly one interaction), found `,`",
    );
    assert_err(
        "loopP()",
        1,
        1,
        "`loopP` needs exactly one interaction, found none",
    );
}

#[test]
fn unsupported_constructs() {
    assert_err(
        "seq(o,\n  sync(o, o))",
        2,
        3,
        "unsupported construct `sync`",
    );
    assert_err("and(o, o)", 1, 1, "unsupported construct `and`");
    assert_err("seq(o, <synch>)", 1, 8, "unsupported construct `<synch>`");
    assert_err(
        "l1 -- m1 -> <synch> l2",
        1,
        13,
        "unsupported construct `<synch>`",
    );
}

#[test]
fn syntax_errors() {
    assert_err("seq(o, o x)", 1, 10, "expected `,` or `)`, found `x`");
    assert_err(
        "seq(o, o",
        1,
        9,
        "unexpected end of input, expected `,` or `)`",
    );
    assert_err("", 1, 1, "unexpected end of input, expected an interaction");
    assert_err("seq(o,)", 1, 7, "expected an interaction, found `)`");
    assert_err(
        "l1 m1",
        1,
        4,
        "expected `--` or `->` after `l1`, found `m1`",
    );
    assert_err("seq o", 1, 5, "expected `(` after `seq`, found `o`");
    assert_err(
        "l1 -- ->|",
        1,
        7,
        "expected a message name after `--`, found `->`",
    );
    assert_err(
        "l1 -- m1 l2",
        1,
        10,
        "expected `->` after the message, found `l2`",
    );
    assert_err(
        "l1 -- m1 -> ,",
        1,
        13,
        "expected a lifeline name, `(` or `|` after `->`, found `,`",
    );
    assert_err(
        "m1 -> |",
        1,
        7,
        "expected a lifeline name or `(` after `->`, found `|`",
    );
    assert_err("m1 -> (l1 l2)", 1, 11, "expected `,` or `)`, found `l2`");
    assert_err("m1 -> ()", 1, 8, "expected a lifeline name, found `)`");
    assert_err("coreg l1", 1, 7, "expected `(` after `coreg`, found `l1`");
    assert_err(
        "coreg(l1) o",
        1,
        11,
        "expected `(` opening the interactions of `coreg(...)`, found `o`",
    );
    assert_err("coreg()(o, o)", 1, 7, "expected a lifeline name, found `)`");
    assert_err(
        "l1 - m1 ->|",
        1,
        4,
        "expected `--` or `->` after `l1`, found `-`",
    );
    assert_err("seq(o, o)\n/* unterminated", 2, 1, "unterminated comment");
    assert_err("∅∅", 1, 2, "expected end of input, found `∅`");
    assert_err(
        "\u{1}",
        1,
        1,
        "expected an interaction, found character U+0001",
    );
    assert_err("é", 1, 1, "expected an interaction, found `é`");
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let text = "seq(".repeat(100_000);
    let e = err(&text);
    assert_eq!((e.line, e.column), (1, 4 * 10_000 + 1));
    assert_eq!(e.message, "nesting deeper than 10000 levels");
    let text = format!("{}o{}", "loopW(".repeat(10_001), ")".repeat(10_001));
    assert!(err(&text).message.contains("nesting deeper"));
    // Exactly the limit is fine.
    let text = format!(
        "{}l1 -- m1 ->|{}",
        "loopW(".repeat(10_000),
        ")".repeat(10_000)
    );
    let mut s = TermStore::new();
    parse(&text, &mut s);
}

#[test]
fn deep_left_nested_sequences_do_not_recurse() {
    // seq(seq(seq(a, a), a), a)...: right-associating this in the store would recurse as
    // deep as the input.
    let n = 3_000;
    let text = format!(
        "{}l1 -- m1 ->|{}",
        "seq(".repeat(n),
        ", m1 -> l2)".repeat(n)
    );
    let mut s = TermStore::new();
    let t = parse(&text, &mut s);
    assert_eq!(s.depth(t) as usize, n + 1);
    let small = "seq(seq(seq(l1 -- m1 ->|, m1 -> l2), m2 -> l2), m3 -> l3)";
    let flat = "seq(l1 -- m1 ->|, m1 -> l2, m2 -> l2, m3 -> l3)";
    assert_eq!(parse(small, &mut s), parse(flat, &mut s));
}

#[test]
fn real_sample_files() {
    let Some(dir) = multitrace_model::testdata::data(
        "hibou-lfrem-sample/gen_ints",
        "HIBOU sample interactions",
    ) else {
        return;
    };
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return;
    };
    let sig_text = std::fs::read_to_string(dir.join("../signature.hsf")).expect("signature.hsf");
    let sig0 = super::super::parse_signature("signature.hsf", &sig_text).unwrap();
    let mut count = 0;
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "hif") {
            let text = std::fs::read_to_string(&path).unwrap();
            let mut sig = sig0.clone();
            let mut store = TermStore::new();
            parse_interaction(
                &path.display().to_string(),
                &text,
                &mut sig,
                false,
                &mut store,
            )
            .unwrap_or_else(|e| panic!("{e}"));
            count += 1;
        }
    }
    assert!(count > 0);
}

#[test]
fn the_tree_keeps_the_text_as_written() {
    let mut s = sig();
    let text = "seq(seq(l1 -- m1 ->|, o),\n  /* é */ m2 -> (l2, l3), loopW(∅), l1 -- m3 -> l2)";
    let (_, tree) =
        parse_interaction_tree("i.hif", text, &mut s, false, &mut TermStore::new()).unwrap();
    let (l, m) = (LifelineId, MessageId);
    assert_eq!(
        tree.nodes,
        vec![
            SyntaxNode::Message {
                sender: Some(l(0)),
                receivers: vec![],
                message: m(0)
            },
            SyntaxNode::Empty,
            // The inner `seq` stays (the store splices it into the outer one).
            SyntaxNode::Nary {
                op: Operator::Seq,
                children: vec![0, 1]
            },
            SyntaxNode::Message {
                sender: None,
                receivers: vec![l(1), l(2)],
                message: m(1)
            },
            SyntaxNode::Empty,
            SyntaxNode::Loop {
                kind: LoopKind::Weak,
                body: 4
            },
            SyntaxNode::Message {
                sender: Some(l(0)),
                receivers: vec![l(1)],
                message: m(2)
            },
            SyntaxNode::Nary {
                op: Operator::Seq,
                children: vec![2, 3, 5, 6]
            },
        ]
    );
    // Columns count characters (`é` is two bytes).
    assert_eq!(
        tree.positions,
        vec![
            (1, 9),
            (1, 23),
            (1, 5),
            (2, 11),
            (2, 33),
            (2, 27),
            (2, 37),
            (1, 1)
        ]
    );
}

const TOKENS: &[&str] = &[
    "seq(", "strict(", "par(", "alt(", "coreg(", "loopS(", "loopH(", "loopW(", "loopP(", "sync(",
    "(", ")", ",", "--", "->", "->|", "|", "-", "<synch>", "<", "o", "∅", "l1", "l2", "m1", "m2",
    "zz", " ", "\n", "/*", "*/", "é", "\0",
];

type Build = fn(&mut TermStore, TermId, TermId) -> TermId;

/// Random interaction texts over the test signature, rich in ∅ and loops so that the
/// store's normalizations apply.
fn interaction_text() -> impl Strategy<Value = String> {
    let leaf = proptest::sample::select(vec![
        "o",
        "l1 -- m1 ->|",
        "m1 -> l2",
        "l2 -- m2 -> (l3, l1)",
        "loopW(l1 -- m1 ->|)",
        "loopS(l1 -- m1 ->|)",
        "loopP(m2 -> l3)",
    ])
    .prop_map(str::to_string);
    leaf.prop_recursive(4, 24, 3, |inner| {
        (
            proptest::sample::select(vec![
                "strict",
                "seq",
                "par",
                "alt",
                "coreg(l1)",
                "loopW",
                "loopS",
                "loopP",
            ]),
            proptest::collection::vec(inner, 2..4),
        )
            .prop_map(|(op, kids)| {
                if op.starts_with("loop") {
                    format!("{op}({})", kids[0])
                } else {
                    format!("{op}({})", kids.join(", "))
                }
            })
    })
}

proptest! {
    #[test]
    fn nested_sequencing_matches_bottom_up_construction(
        x in interaction_text(),
        y in interaction_text(),
        z in interaction_text(),
        op in 0usize..3,
    ) {
        let (kw, build): (&str, Build) = match op {
            0 => ("strict", TermStore::strict),
            1 => ("seq", TermStore::seq),
            _ => ("par", TermStore::par),
        };
        let mut s = TermStore::new();
        let (px, py, pz) = (parse(&x, &mut s), parse(&y, &mut s), parse(&z, &mut s));
        let xy = build(&mut s, px, py);
        let left = build(&mut s, xy, pz);
        let yz = build(&mut s, py, pz);
        let right = build(&mut s, px, yz);
        prop_assert_eq!(parse(&format!("{kw}({kw}({x}, {y}), {z})"), &mut s), left);
        prop_assert_eq!(parse(&format!("{kw}({x}, {kw}({y}, {z}))"), &mut s), right);
        prop_assert_eq!(parse(&format!("{kw}({x}, {y}, {z})"), &mut s), right);
    }

    #[test]
    fn never_panics_on_mutations(
        at in 0usize..200,
        cut in 0usize..4,
        insert in proptest::sample::select(TOKENS),
        infer in any::<bool>(),
    ) {
        // The real example with a few characters replaced by a token.
        let chars: Vec<char> = REAL.chars().collect();
        let at = at.min(chars.len());
        let end = (at + cut).min(chars.len());
        let text: String = chars[..at]
            .iter()
            .chain(insert.chars().collect::<Vec<_>>().iter())
            .chain(chars[end..].iter())
            .collect();
        let mut s = sig();
        let _ = parse_interaction("f", &text, &mut s, infer, &mut TermStore::new());
    }

    #[test]
    fn the_tree_reader_reads_as_the_plain_reader(
        x in interaction_text(),
        at in 0usize..200,
        insert in proptest::sample::select(TOKENS),
    ) {
        // The same term, names and errors with and without the tree, on valid texts and on
        // texts with a token inserted.
        let chars: Vec<char> = x.chars().collect();
        let at = at.min(chars.len());
        let bad: String = chars[..at].iter().copied().chain(insert.chars()).chain(chars[at..].iter().copied()).collect();
        for text in [x.as_str(), bad.as_str()] {
            let (mut s1, mut s2) = (sig(), sig());
            let (mut t1, mut t2) = (TermStore::new(), TermStore::new());
            let plain = parse_interaction("f", text, &mut s1, true, &mut t1);
            let tree = parse_interaction_tree("f", text, &mut s2, true, &mut t2);
            prop_assert_eq!(plain, tree.as_ref().map(|(t, _)| *t).map_err(Clone::clone));
            prop_assert_eq!(s1.lifelines(), s2.lifelines());
            if let Ok((_, tree)) = tree {
                prop_assert_eq!(tree.nodes.len(), tree.positions.len());
                prop_assert!(!tree.nodes.is_empty());
            }
        }
    }

    #[test]
    fn never_panics_on_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..200), infer in any::<bool>()) {
        let text = String::from_utf8_lossy(&bytes);
        let mut s = sig();
        let _ = parse_interaction("f", &text, &mut s, infer, &mut TermStore::new());
    }

    #[test]
    fn never_panics_on_token_soup(
        toks in proptest::collection::vec(proptest::sample::select(TOKENS), 0..80),
        infer in any::<bool>(),
    ) {
        let text = toks.concat();
        let mut s = sig();
        let _ = parse_interaction("f", &text, &mut s, infer, &mut TermStore::new());
    }
}
