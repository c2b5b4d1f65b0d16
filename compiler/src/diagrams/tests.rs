use super::*;
use crate::syntax::parse_interaction;
use multitrace_model::signature::{Action, ActionKind, LifelineId, MessageId};
use multitrace_model::term::LoopKind;
use proptest::prelude::*;
use std::path::PathBuf;

fn docs_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/diagrams/mermaid-docs")
}

/// Reads `text` as `dialect` into a fresh store.
fn read(dialect: Dialect, text: &str) -> Result<(Signature, TermStore, TermId), ParseError> {
    let mut sig = Signature::new();
    let mut store = TermStore::new();
    let (root, _) = parse_diagram(dialect, "d", text, &mut sig, true, &mut store)?;
    Ok((sig, store, root))
}

/// The `.hif` text read into the diagram's store and names: equal ids are equal terms.
fn hif(sig: &mut Signature, store: &mut TermStore, text: &str) -> TermId {
    parse_interaction("x.hif", text, sig, false, store).unwrap_or_else(|e| panic!("{e}"))
}

/// Writes in both dialects and reads back into the same store: the same term.
fn assert_round_trip(sig: &Signature, store: &mut TermStore, root: TermId, what: &str) {
    assert_round_trip_in(
        &[Dialect::Mermaid, Dialect::PlantUml],
        sig,
        store,
        root,
        what,
    )
}

fn assert_round_trip_in(
    dialects: &[Dialect],
    sig: &Signature,
    store: &mut TermStore,
    root: TermId,
    what: &str,
) {
    for &dialect in dialects {
        let text = match dialect {
            Dialect::PlantUml => write_plantuml(store, sig, root),
            _ => write_mermaid(store, sig, root),
        };
        let text = text.unwrap_or_else(|e| panic!("{what}: {e}"));
        let mut sig2 = sig.clone();
        let (back, _) = parse_diagram(dialect, "w", &text, &mut sig2, false, store)
            .unwrap_or_else(|e| panic!("{what}: {e}\n{text}"));
        assert_eq!(back, root, "{what} as {dialect:?}:\n{text}");
        assert_eq!(sig2.lifelines(), sig.lifelines());
    }
}

#[test]
fn every_example_of_the_mermaid_documentation_reads_and_round_trips() {
    let mut count = 0;
    let mut entries: Vec<_> = std::fs::read_dir(docs_dir())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for path in entries {
        if path.extension().is_none_or(|e| e != "mmd") {
            continue;
        }
        let model = read_diagram(&path, Dialect::Mermaid, None).unwrap_or_else(|e| panic!("{e}"));
        let mut store = model.store.clone();
        assert_round_trip(
            &model.signature,
            &mut store,
            model.root,
            &path.display().to_string(),
        );
        count += 1;
    }
    assert_eq!(count, 35);
}

#[test]
fn fragments_map_to_the_operators_of_the_table() {
    let docs = docs_dir();
    let cases = [
        (
            "example23.mmd",
            "seq(Alice -- Hello_John_how_are_you -> John, loopW(John -- Great -> Alice))",
        ),
        (
            "example24.mmd",
            "seq(Alice -- Hello_Bob_how_are_you -> Bob, alt(Bob -- Not_so_good -> Alice, Bob -- Feeling_fresh_like_a_daisy -> Alice), alt(Bob -- Thanks_for_asking -> Alice, o))",
        ),
        (
            "example25.mmd",
            "seq(par(Alice -- Hello_guys -> Bob, Alice -- Hello_guys -> John), Bob -- Hi_Alice -> Alice, John -- Hi_Alice -> Alice)",
        ),
        (
            "example27.mmd",
            "alt(Service -- connect -> DB, Service -- Log_error -> Service, Service -- Log_different_error -> Service)",
        ),
        (
            "example29.mmd",
            "seq(Consumer -- Book_something -> API, API -- Start_booking_process -> BookingService, alt(API -- show_failure -> Consumer, API -- Start_billing_process -> BillingService))",
        ),
        (
            "example13.mmd",
            "seq(Alice -- Hello_Bob_how_are_you -> Bob, Bob -- Fine_thank_you_And_you -> Alice, Alice -- Hi_Carl -> Carl, Carl -- Hi -> D, Alice -- We_are_too_many -> Carl, Bob -- I_agree -> Alice)",
        ),
    ];
    for (file, expected) in cases {
        let model = read_diagram(&docs.join(file), Dialect::Mermaid, None).unwrap();
        let (mut sig, mut store) = (model.signature.clone(), model.store.clone());
        assert_eq!(model.root, hif(&mut sig, &mut store, expected), "{file}");
    }
    // Loops are recorded at their keyword.
    let model = read_diagram(&docs.join("example23.mmd"), Dialect::Mermaid, None).unwrap();
    assert_eq!(
        model.loops.iter().map(|l| (l.1, l.2)).collect::<Vec<_>>(),
        [(3, 5)]
    );
}

#[test]
fn plantuml_reads_as_mermaid_does() {
    let puml = "@startuml\n' a comment\nparticipant \"Alice A.\" as Alice\nactor Bob #red\nAlice -> Bob : Hello Bob, how are you?\nalt is sick\n  Bob --> Alice : Not so good :(\nelse is well\n  Alice <- Bob : Feeling fresh like a daisy\nend\nnote over Alice\n  multi-line\nend note\nopt\n  Bob ->> Alice ++ : Thanks for asking\nend\n@enduml\nignored after enduml\n";
    let (mut sig, mut store, root) = read(Dialect::PlantUml, puml).unwrap();
    let expected = "seq(Alice -- Hello_Bob_how_are_you -> Bob, alt(Bob -- Not_so_good -> Alice, Bob -- Feeling_fresh_like_a_daisy -> Alice), alt(Bob -- Thanks_for_asking -> Alice, o))";
    assert_eq!(root, hif(&mut sig, &mut store, expected));
    // The border is the environment; PlantUML's par separates with `else`.
    let puml = "[-> A : in\nA ->] : out\npar\nA -> B : x\nelse\n[<- B : y\nend\nloop\nA -[#red]> B : z\nend\n";
    let (mut sig, mut store, root) = read(Dialect::PlantUml, puml).unwrap();
    let expected = "seq(in -> A, A -- out ->|, par(A -- x -> B, B -- y ->|), loopW(A -- z -> B))";
    assert_eq!(root, hif(&mut sig, &mut store, expected));
    assert_round_trip_in(&[Dialect::PlantUml], &sig, &mut store, root, "border");
    assert!(write_mermaid(&store, &sig, root)
        .unwrap_err()
        .to_string()
        .contains("--plantuml"));
}

#[test]
fn markdown_reads_its_first_mermaid_block_with_the_file_lines() {
    let md = "# Protocol\n\n```text\nnot this\n```\n\n```mermaid\nsequenceDiagram\n  A->>B: req\n  loop\n```\n";
    let e = read(Dialect::MarkdownMermaid, md).unwrap_err();
    assert_eq!((e.line, e.column), (10, 3), "{e}");
    assert!(e.message.contains("`loop` is not closed"), "{e}");
    let e = read(Dialect::MarkdownMermaid, "no block\n").unwrap_err();
    assert!(e.message.contains("no closed ```mermaid block"), "{e}");
}

#[test]
fn what_cannot_be_mapped_is_an_error_at_its_place() {
    let m = |body: &str| format!("sequenceDiagram\n{body}");
    let cases: &[(Dialect, String, (u32, u32), &str)] = &[
        (
            Dialect::Mermaid,
            "flowchart LR\n".into(),
            (1, 1),
            "expected `sequenceDiagram`, found `flowchart`",
        ),
        (
            Dialect::Mermaid,
            m("  A->>B: x\n  else\n"),
            (3, 3),
            "`else` outside any fragment",
        ),
        (
            Dialect::Mermaid,
            m("loop\n  par\n  end\n"),
            (2, 1),
            "`loop` is not closed",
        ),
        (
            Dialect::Mermaid,
            m("loop\n  break x\n  end\nend\n"),
            (3, 3),
            "write `alt`",
        ),
        (
            Dialect::Mermaid,
            m("par\n critical\n end\nend\n"),
            (3, 2),
            "no atomic region",
        ),
        (Dialect::Mermaid, m("A<<->>B: x\n"), (2, 2), "two messages"),
        (Dialect::Mermaid, m("A->>B\n"), (2, 1), "needs a label"),
        (
            Dialect::Mermaid,
            m("A->>B: a b\nA->>B: a_b\n"),
            (3, 8),
            "both give the name `a_b`",
        ),
        (
            Dialect::Mermaid,
            m("A->>B: ?!\n"),
            (2, 8),
            "no letter or digit",
        ),
        (
            Dialect::Mermaid,
            m("frobnicate A\n"),
            (2, 1),
            "unknown statement `frobnicate`",
        ),
        (
            Dialect::Mermaid,
            m("end\n"),
            (2, 1),
            "`end` without an open fragment",
        ),
        (
            Dialect::Mermaid,
            m("alt\nand\nend\n"),
            (3, 1),
            "separates the branches of `par`",
        ),
        (
            Dialect::Mermaid,
            m("box\nA->>B: x\nend\n"),
            (3, 1),
            "a box holds participant declarations only",
        ),
        (
            Dialect::PlantUml,
            "A -> B : x\nreturn y\n".into(),
            (2, 1),
            "`return` cannot be read",
        ),
        (
            Dialect::PlantUml,
            "ref over A : x\n".into(),
            (1, 1),
            "interaction use",
        ),
        (
            Dialect::PlantUml,
            "A <-> B : x\n".into(),
            (1, 3),
            "two messages",
        ),
        (
            Dialect::PlantUml,
            "A -> B : x y\nA -> B : x  y\n".into(),
            (2, 10),
            "both give the name `x_y`",
        ),
        (
            Dialect::PlantUml,
            "!include foo.puml\n".into(),
            (1, 1),
            "preprocessor",
        ),
        (
            Dialect::PlantUml,
            "A -> B C : x\n".into(),
            (1, 8),
            "unexpected `C`",
        ),
    ];
    for (dialect, text, at, needle) in cases {
        let e = read(*dialect, text).unwrap_err();
        assert_eq!((e.line, e.column), *at, "{text:?}: {e}");
        assert!(e.message.contains(needle), "{text:?}: {e}");
    }
}

#[test]
fn a_signature_checks_the_diagrams_names() {
    let mut sig = Signature::new();
    sig.add_lifeline("A").unwrap();
    sig.add_message("m");
    let mut store = TermStore::new();
    let e = parse_diagram(
        Dialect::Mermaid,
        "d",
        "sequenceDiagram\nA->>B: m\n",
        &mut sig,
        false,
        &mut store,
    )
    .unwrap_err();
    assert!(e.message.contains("unknown lifeline `B`"), "{e}");
}

#[test]
fn what_a_diagram_cannot_show_is_refused() {
    let cases = [
        ("strict(a -- m -> b, b -- n -> a)", "strict sequencing"),
        ("coreg(a)(a -- m -> b, a -- n -> b)", "co-region"),
        ("loopS(a -- m -> b)", "`loopS` loop"),
        ("a -- m -> (b, c)", "broadcast"),
    ];
    for (text, needle) in cases {
        let mut sig = Signature::new();
        let mut store = TermStore::new();
        let root = parse_interaction("x.hif", text, &mut sig, true, &mut store).unwrap();
        for e in [
            write_mermaid(&store, &sig, root),
            write_plantuml(&store, &sig, root),
        ] {
            let e = e.unwrap_err().to_string();
            assert!(e.contains(needle), "{text}: {e}");
        }
    }
    let mut sig = Signature::new();
    let mut store = TermStore::new();
    let root = parse_interaction("x.hif", "end -- m -> b", &mut sig, true, &mut store).unwrap();
    assert!(write_mermaid(&store, &sig, root)
        .unwrap_err()
        .to_string()
        .contains("lifeline `end`"));
}

/// Terms a diagram can show, over lifelines 0..3 and messages 0..3.
fn drawable() -> impl Strategy<Value = Vec<Op>> {
    prop::collection::vec(
        prop_oneof![
            4 => (0u32..3, 0u32..3, 0u32..3).prop_map(|(a, b, m)| Op::Msg(a, b, m)),
            2 => Just(Op::Seq),
            2 => Just(Op::Alt),
            1 => Just(Op::Par),
            1 => Just(Op::Loop),
            1 => Just(Op::Opt),
        ],
        1..24,
    )
}

/// A term in postfix form: messages push, operators combine the top of the stack.
#[derive(Clone, Debug)]
enum Op {
    Msg(u32, u32, u32),
    Seq,
    Alt,
    Par,
    Loop,
    Opt,
}

fn build(ops: &[Op], store: &mut TermStore) -> TermId {
    let mut stack: Vec<TermId> = Vec::new();
    for op in ops {
        let t = match *op {
            Op::Msg(a, b, m) => {
                let act = |l, kind| Action {
                    lifeline: LifelineId(l),
                    kind,
                    message: MessageId(m),
                };
                let e = store.act(act(a, ActionKind::Emission));
                let r = store.act(act(b, ActionKind::Reception));
                store.strict(e, r)
            }
            Op::Loop | Op::Opt => {
                let Some(x) = stack.pop() else { continue };
                if matches!(op, Op::Loop) {
                    store.repeat(LoopKind::Weak, x)
                } else {
                    store.alt(x, TermId::EMPTY)
                }
            }
            _ => {
                if stack.len() < 2 {
                    continue;
                }
                let y = stack.pop().unwrap();
                let x = stack.pop().unwrap();
                match op {
                    Op::Seq => store.seq(x, y),
                    Op::Alt => store.alt(x, y),
                    _ => store.par(x, y),
                }
            }
        };
        stack.push(t);
    }
    let mut acc = TermId::EMPTY;
    while let Some(t) = stack.pop() {
        acc = store.seq(t, acc);
    }
    acc
}

proptest! {
    /// Whatever a diagram can show is written and read back to the same term, in both dialects.
    #[test]
    fn written_diagrams_read_back_to_the_same_term(ops in drawable()) {
        let mut sig = Signature::new();
        for l in ["a", "b", "c"] {
            sig.add_lifeline(l).unwrap();
        }
        for m in ["m0", "m1", "m2"] {
            sig.add_message(m);
        }
        let mut store = TermStore::new();
        let root = build(&ops, &mut store);
        assert_round_trip(&sig, &mut store, root, &format!("{ops:?}"));
    }
}
