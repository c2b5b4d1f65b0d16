//! PlantUML as people write it: each construct read as PlantUML means it (the expected
//! interactions written by hand in `.hif`), and refused at its place when it has no meaning.

use super::super::{parse_diagram, write_plantuml, Dialect};
use crate::syntax::{parse_interaction, ParseError};
use multitrace_model::signature::Signature;
use multitrace_model::term::{TermId, TermStore};

fn read(text: &str) -> Result<(Signature, TermStore, TermId), ParseError> {
    let mut sig = Signature::new();
    let mut store = TermStore::new();
    let (root, _) = parse_diagram(
        Dialect::PlantUml,
        "d.puml",
        text,
        &mut sig,
        true,
        &mut store,
    )?;
    Ok((sig, store, root))
}

/// `puml` reads to the interaction `expected` (`.hif`, over the diagram's names).
fn assert_means(puml: &str, expected: &str) {
    let (mut sig, mut store, root) = read(puml).unwrap_or_else(|e| panic!("{puml:?}: {e}"));
    let want = parse_interaction("x.hif", expected, &mut sig, false, &mut store)
        .unwrap_or_else(|e| panic!("{expected}: {e}"));
    assert_eq!(root, want, "{puml:?} is not {expected}");
}

/// `puml` is refused at `at` with a message containing `needle`.
fn assert_refused(puml: &str, at: (u32, u32), needle: &str) {
    let e = read(puml).unwrap_err();
    assert_eq!((e.line, e.column), at, "{puml:?}: {e}");
    assert!(e.message.contains(needle), "{puml:?}: {e}");
    assert_eq!(e.file, "d.puml");
}

#[test]
fn a_lost_message_is_its_emission_alone() {
    // Formerly read as emission and reception.
    for puml in [
        "A ->x B : m\n",
        "A -->x B : m\n",
        "A ->>x B : m\n",
        "A -x B : m\n",
        "A -\\x B : m\n",
        "B x<- A : m\n",
        "B x<<-- A : m\n",
        "A -[#red]>x B : m\n",
    ] {
        assert_means(puml, "A -- m ->|");
        let (sig, ..) = read(puml).unwrap();
        assert!(sig.lifeline("B").is_some(), "{puml:?}: B is drawn");
    }
    assert_means("A ->x] : m\n", "A -- m ->|");
    // A circle is only a decoration.
    assert_means(
        "A ->o B : m\nA o\\\\-- B : n\n",
        "seq(A -- m -> B, B -- n -> A)",
    );
}

#[test]
fn a_lost_message_round_trips() {
    let (sig, mut store, root) = read("A -> B : m\nA ->x B : lost\nB x<- A : again\n").unwrap();
    let text = write_plantuml(&store, &sig, root).unwrap();
    assert!(text.contains("A ->] : lost"), "{text}");
    let mut sig2 = sig.clone();
    let (back, _) =
        parse_diagram(Dialect::PlantUml, "w", &text, &mut sig2, false, &mut store).unwrap();
    assert_eq!(back, root, "{text}");
}

#[test]
fn hidden_arrows_are_not_messages() {
    // Formerly a real message.
    assert_means(
        "A -[hidden]> B : spacer\nA -> B : m\nA -[hidden]-> B\nB -[#red,hidden]>> A : s\n",
        "A -- m -> B",
    );
}

#[test]
fn participants_may_be_named_as_keywords() {
    // Formerly skipped: lines starting with these words were taken for layout statements.
    assert_means(
        "Scale -> B : m\nShow -> Hide : n\nNote -> B : o\nTitle --> Autonumber : p\nB <- Skinparam : q\n",
        "seq(Scale -- m -> B, Show -- n -> Hide, Note -- o -> B, Title -- p -> Autonumber, Skinparam -- q -> B)",
    );
    // The keywords themselves still are.
    assert_means(
        "scale 1.5\nshow footbox\nhide unlinked\nnote over A : n\nnote left of A\n  text -> x : y\nend note\nA -> B : m\n",
        "A -- m -> B",
    );
    assert_means(
        "participant Scale\nparticipant Note\nScale -> Note : m\n",
        "Scale -- m -> Note",
    );
}

#[test]
fn drawing_blocks_are_skipped() {
    let puml = "@startuml\nsprite $bug [15x15/16z] {\n  FFFF0000\n  00FF00FF\n}\nsprite $one [8x8/4] AAAA\nsprite $svg <svg viewBox=\"0 0 10 10\">\n<circle r=\"5\"/>\n</svg>\n<style>\nsequenceDiagram {\n  LineColor red\n}\n</style>\nskinparam sequence {\n  ArrowColor red\n  Participant {\n    FontSize 9\n  }\n}\nskinparam monochrome true\nlegend right\n  A -> B : not a message\nendlegend\ntitle\n  two lines\nend title\nleft header\n  h\nendheader\n!theme plain\n|||\n||45||\n== phase ==\n...5 minutes later...\nautonumber\nA -> B : m\n@enduml\n";
    assert_means(puml, "A -- m -> B");
    assert_refused(
        "A -> B : m\nnote over A\n  never closed\n",
        (2, 1),
        "`note` is not closed",
    );
    assert_refused(
        "sprite $x [8x8/4] {\n  AA\n@enduml\n",
        (1, 1),
        "`sprite` is not closed",
    );
}

#[test]
fn continuations_are_joined() {
    assert_means("A -> B : hello \\\n   world\n", "A -- hello_world -> B");
    assert_means("A -> \\\n  B \\\n  : m\n", "A -- m -> B");
    // As PlantUML joins them: the next line's indentation is kept (`hel   lo`).
    assert_means("A -> B : hel\\\n   lo\n", "A -- hel_lo -> B");
    // Positions stay those of the file.
    assert_refused("A -> \\\n  B C : x\n", (2, 5), "unexpected `C`");
}

#[test]
fn fragments_as_people_write_them() {
    assert_means(
        "group setup\nA -> B : a\nend group\nalt#Gold #LightBlue ok\nA -> B : b\nelse #Pink failed\nB -> A : c\nend alt\nloop 3 times\nA -> B : d\nend loop\npar2\nA -> B : e\nelse\nB -> A : f\nend par2\n",
        "seq(A -- a -> B, alt(A -- b -> B, B -- c -> A), loopW(A -- d -> B), par(A -- e -> B, B -- f -> A))",
    );
}

#[test]
fn colours_and_styles_of_arrows_only_draw() {
    assert_means(
        "A [#gray]-> B : a\nA -[#red]> B : b\nA -[#red,bold]> B : c\nA -[dashed]-> B : d\nA -[#blue]->> B ++ #gold : e\nB -[thickness=2]-> A -- : f\n",
        "seq(A -- a -> B, A -- b -> B, A -- c -> B, A -- d -> B, A -- e -> B, B -- f -> A)",
    );
}

#[test]
fn a_break_replaces_the_rest_of_its_operand() {
    assert_means(
        "alt ok\nA -> B : a\nbreak failed\nB -> A : e\nend\nA -> B : c\nelse\nB -> A : d\nend\nA -> B : after\n",
        "seq(alt(seq(A -- a -> B, alt(B -- e -> A, A -- c -> B)), B -- d -> A), A -- after -> B)",
    );
    assert_means(
        "opt\nbreak\nA -> B : e\nend\nA -> B : c\nend\n",
        "alt(alt(A -- e -> B, A -- c -> B), o)",
    );
    assert_refused(
        "loop\nA -> B : a\ngroup g\nbreak\nB -> A : e\nend\nend\nend\n",
        (4, 1),
        "`opt` holding one last iteration",
    );
}

#[test]
fn what_has_no_meaning_is_refused_at_its_place() {
    assert_refused("A -> B : m\nref over A, B : init\n", (2, 1), "inline it");
    assert_refused(
        "A -> B : m\nref over A\n  long\nend ref\n",
        (2, 1),
        "interaction use",
    );
    assert_refused("A <-> B : m\n", (1, 3), "two messages");
    assert_refused("A <->> B : m\n", (1, 3), "two-headed");
    assert_refused("A x-> B : m\n", (1, 3), "sender's end");
    assert_refused("A x->x B : m\n", (1, 3), "cross at each end");
    assert_refused("[->x A : m\n", (1, 2), "lost message from the border");
    for directive in [
        "!include common.puml",
        "!define X Y",
        "!procedure $p()",
        "!if %true()",
        "!$x = 1",
    ] {
        let puml = format!("A -> B : m\n  {directive}\n");
        assert_refused(&puml, (2, 3), "plantuml -preproc FILE");
    }
    // In file order: the preprocessor line before a block left open.
    assert_refused("!include x\nnote over A\n", (1, 1), "preprocessor");
    assert_refused("A -> B & C : m\n", (1, 8), "one receiver");
    assert_refused(
        "A -> B : m\n& B -> C : n\n",
        (2, 1),
        "teoz parallel message",
    );
    assert_refused("frobnicate A\n", (1, 1), "unknown statement `frobnicate`");
}

#[test]
fn arrow_shapes_keep_plantuml_directions() {
    assert_means(
        "participant \"I have a\\nlong name\" as L #99FF99\nactor Bob #red\nAlice -\\ Bob : a\nAlice \\\\- Bob : b\nAlice //-- Bob : c\nAlice ->(10) Bob : d\nAlice <<-- Bob : e\nAlice -> \"I have a\\nlong name\" : f\nAlice -> Alice : g\nL -> Bob --++ : h\n",
        "seq(Alice -- a -> Bob, Bob -- b -> Alice, Bob -- c -> Alice, Alice -- d -> Bob, Bob -- e -> Alice, Alice -- f -> L, Alice -- g -> Alice, L -- h -> Bob)",
    );
    // Guards that look a little like arrows stay guards.
    assert_means(
        "alt x-ray\nA -> B : a\nelse x-ray-2\nA -> B : b\nend\n",
        "alt(A -- a -> B, A -- b -> B)",
    );
}

#[test]
fn a_file_as_people_write_it() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/diagrams/plantuml-as-written.puml");
    let model = super::super::read_diagram(&path, Dialect::PlantUml, None)
        .unwrap_or_else(|e| panic!("{e}"));
    let (mut sig, mut store) = (model.signature.clone(), model.store.clone());
    let expected = "seq(C -- add_to_cart -> Shop, Shop -- reserve_item -> Stock, alt(seq(Stock -- ok -> Shop, Shop -- weigh -> Scale, Scale -- weight -> Shop), seq(Stock -- timeout ->|, alt(Shop -- sorry -> C, Shop -- later -> C))), par(Shop -- ship -> Stock, Shop -- notify -> C), Shop -- audit ->|)";
    let want = parse_interaction("x.hif", expected, &mut sig, false, &mut store).unwrap();
    assert_eq!(model.root, want);
    assert_eq!(sig.lifelines(), ["C", "Shop", "Scale", "Stock"]);
    // Written back, it reads to the same interaction.
    let text = write_plantuml(&store, &sig, model.root).unwrap();
    let mut sig2 = sig.clone();
    let (back, _) =
        parse_diagram(Dialect::PlantUml, "w", &text, &mut sig2, false, &mut store).unwrap();
    assert_eq!(back, model.root, "{text}");
}

#[test]
fn a_multi_line_participant_display_is_skipped() {
    assert_means(
        "participant Foo [\n  =Title\n  ----\n  \"\"sub\"\"\n]\nFoo -> B : m\n",
        "Foo -- m -> B",
    );
    assert_refused(
        "participant Foo [\n  =Title\n",
        (1, 1),
        "`participant` is not closed: add `]`",
    );
}
