//! Sequence diagrams: golden SVG files for the fixtures, well-formed XML, the layout of large
//! random interactions measured (no overlaps), and every interaction of the HIBOU sample drawn
//! (term-only ones included).
//!
//! `UPDATE_GOLDEN=1 cargo test -p multitrace-report --test report diagram::` rewrites the
//! golden files (`fixtures/golden/diagrams/*.svg`); look at the diff before committing it.

use multitrace_compiler::compile::{compile_interaction, AutomataPolicy, CompileOptions};
use multitrace_compiler::source::{compile_source, read_source};
use multitrace_compiler::syntax::read_interaction;
use multitrace_model::rng::Rng;
use multitrace_model::signature::{
    Action, ActionKind, LifelineId, LifelineSet, MessageId, Signature,
};
use multitrace_model::term::{LoopKind, Term, TermId, TermStore};
use multitrace_report::diagram::layout::{ArrowKind, Layout, Rect};
use multitrace_report::diagram::tree::{tree, Node, MAX_DIAGRAM_NESTING};
use multitrace_report::diagram::{
    interaction_layout, interaction_svg, model_svg, svg::to_svg, DiagramError,
};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Parses an SVG document, failing the test with the parser's message when it is not
/// well-formed XML; returns the number of elements of each kind that matter.
fn parse_svg(svg: &str, what: &str) -> SvgCounts {
    let doc = roxmltree::Document::parse(svg)
        .unwrap_or_else(|e| panic!("{what}: not well-formed XML: {e}"));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg", "{what}");
    assert_eq!(
        root.tag_name().namespace(),
        Some("http://www.w3.org/2000/svg"),
        "{what}"
    );
    let class = |n: &roxmltree::Node, c: &str| n.attribute("class") == Some(c);
    let mut counts = SvgCounts::default();
    for n in doc.descendants().filter(|n| n.is_element()) {
        if class(&n, "mt-arrow") {
            counts.arrow_lines += 1;
        }
        if class(&n, "mt-frag") {
            counts.boxes += 1;
        }
        if class(&n, "mt-label") {
            counts.labels.push(n.text().unwrap_or_default().to_string());
        }
        if class(&n, "mt-tagtext") {
            counts.tags.push(n.text().unwrap_or_default().to_string());
        }
    }
    counts
}

#[derive(Default, Debug)]
struct SvgCounts {
    arrow_lines: usize,
    boxes: usize,
    labels: Vec<String>,
    tags: Vec<String>,
}

fn fixtures_with_interactions() -> Vec<(String, PathBuf)> {
    let mut v: Vec<(String, PathBuf)> = std::fs::read_dir(root().join("fixtures"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("model.hif").is_file())
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                p.join("model.hif"),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn fixture_diagrams_match_their_golden_files() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| !v.is_empty());
    let golden_dir = root().join("fixtures/golden/diagrams");
    let fixtures = fixtures_with_interactions();
    assert!(fixtures.len() >= 8, "{fixtures:?}");
    let mut stale = Vec::new();
    let mut missing = Vec::new();
    for (name, hif) in &fixtures {
        let m = read_interaction(hif, None).unwrap();
        let title = format!("fixtures/{name}/model.hif");
        let svg = interaction_svg(&m.signature, &m.store, m.root, &title).unwrap();
        parse_svg(&svg, name);
        let golden = golden_dir.join(format!("{name}.svg"));
        if update {
            std::fs::create_dir_all(&golden_dir).unwrap();
            std::fs::write(&golden, &svg).unwrap();
            continue;
        }
        // A fixture added since has no golden file yet: it must still draw (above).
        let Ok(want) = std::fs::read_to_string(&golden) else {
            eprintln!(
                "note: {} has no golden diagram; UPDATE_GOLDEN=1 writes it",
                hif.display()
            );
            missing.push(name.clone());
            continue;
        };
        // The golden file parses too (it is what the README and users see).
        parse_svg(&want, &golden.display().to_string());
        if want != svg {
            stale.push(name.clone());
        }
    }
    // The fixtures of the papers this issue drew are all there.
    for name in [
        "loopP",
        "seed001-fig1",
        "seed001-fig7",
        "seed001-sec52",
        "seed001-sec52-alt",
        "seed003-fig1",
        "seed003-fig2",
        "seed004-mqtt",
    ] {
        assert!(!missing.contains(&name.to_string()), "{name}");
    }
    assert!(
        stale.is_empty(),
        "diagrams differ from fixtures/golden/diagrams for {stale:?}; if the change is intended, run with UPDATE_GOLDEN=1 and review the diff"
    );
}

#[test]
fn the_mqtt_diagram_shows_its_messages_and_fragments() {
    let m = read_interaction(&root().join("fixtures/seed004-mqtt/model.hif"), None).unwrap();
    let svg = interaction_svg(&m.signature, &m.store, m.root, "mqtt").unwrap();
    let c = parse_svg(&svg, "mqtt");
    // begin, sub, pub (clt1 to brok), pub (brok to clt2), pub (second branch), end.
    let mut labels = c.labels.clone();
    labels.sort();
    assert_eq!(labels, ["begin", "end", "pub", "pub", "pub", "sub"]);
    assert_eq!(c.arrow_lines, 6);
    let mut tags = c.tags.clone();
    tags.sort();
    // The outer seq is the diagram's own vertical order (no box); the strict inside loopS is.
    assert_eq!(tags, ["alt", "loopS", "loopS", "strict"]);
    assert_eq!(c.boxes, 4);
    let l = interaction_layout(&m.signature, &m.store, m.root).unwrap();
    let names: Vec<&str> = l.lifelines.iter().map(|x| x.name.as_str()).collect();
    assert_eq!(names, m.signature.lifelines());
    // Each arrow goes between the right columns: begin from clt1 to brok.
    let x = |n: &str| l.lifelines.iter().find(|x| x.name == n).unwrap().x;
    let begin = l.arrows.iter().find(|a| a.label.text == "begin").unwrap();
    assert_eq!(
        (begin.from_x, begin.to_x.clone()),
        (x("clt1"), vec![x("brok")])
    );
    assert_eq!(begin.kind, ArrowKind::Message);
    check_layout(&l, "mqtt");
}

/// Every property the layout promises; panics with what is wrong.
fn check_layout(l: &Layout, what: &str) {
    let canvas = Rect {
        x: 0.0,
        y: 0.0,
        w: l.width,
        h: l.height,
    };
    // Columns strictly increasing, name boxes apart.
    for w in l.lifelines.windows(2) {
        assert!(w[0].x < w[1].x, "{what}: columns out of order");
        assert!(
            !w[0].head.overlaps(&w[1].head),
            "{what}: name boxes overlap"
        );
    }
    // Every text box: no two overlap, all inside the canvas.
    let mut texts: Vec<(String, Rect)> = Vec::new();
    for life in &l.lifelines {
        texts.push((format!("head {}", life.name), life.head));
        texts.push((format!("foot {}", life.name), life.foot));
    }
    for (i, a) in l.arrows.iter().enumerate() {
        texts.push((format!("label {i} {}", a.label.text), a.label.rect));
    }
    for (i, f) in l.fragments.iter().enumerate() {
        texts.push((format!("tag {i} {}", f.tag.text), f.tag.rect));
    }
    for (i, e) in l.empties.iter().enumerate() {
        texts.push((format!("empty {i}"), e.rect));
    }
    for (n, r) in &texts {
        assert!(
            canvas.contains(r),
            "{what}: {n} {r:?} outside the canvas {canvas:?}"
        );
    }
    let mut sorted = texts.clone();
    sorted.sort_by(|a, b| a.1.y.total_cmp(&b.1.y));
    for (i, (n1, r1)) in sorted.iter().enumerate() {
        for (n2, r2) in &sorted[i + 1..] {
            if r2.y >= r1.bottom() {
                break;
            }
            assert!(!r1.overlaps(r2), "{what}: {n1} {r1:?} overlaps {n2} {r2:?}");
        }
    }
    // Arrows: each has a row of its own; no text box overlaps another arrow's line.
    for (i, a) in l.arrows.iter().enumerate() {
        assert!(
            canvas.contains(&a.ink),
            "{what}: arrow {i} outside the canvas"
        );
        assert!(
            a.label.rect.bottom() <= a.ink.y || a.kind == ArrowKind::SelfMessage,
            "{what}: label {i} not above its line"
        );
        for (j, b) in l.arrows.iter().enumerate() {
            if i != j {
                assert!(
                    !a.ink.overlaps(&b.ink),
                    "{what}: arrows {i} and {j} overlap"
                );
            }
        }
        for (n, r) in &texts {
            if !n.starts_with(&format!("label {i} ")) {
                assert!(
                    !a.ink.overlaps(r),
                    "{what}: arrow {i} ({}) crosses {n}",
                    a.label.text
                );
            }
        }
        // A message's label is centred between its emitter and one receiver (the nearest
        // by column), and fits between them.
        if matches!(a.kind, ArrowKind::Message | ArrowKind::Broadcast) {
            let center = a.label.rect.x + a.label.rect.w / 2.0;
            let fits = a.to_x.iter().any(|&r| {
                let (lo, hi) = (a.from_x.min(r), a.from_x.max(r));
                (center - (lo + hi) / 2.0).abs() < 1e-6
                    && a.label.rect.x >= lo
                    && a.label.rect.right() <= hi
            });
            assert!(
                fits,
                "{what}: label {i} ({}) not between its emitter and a receiver: {a:?}",
                a.label.text
            );
        }
        // Arrows end on columns (or gates).
        let on_column = |x: f64| l.lifelines.iter().any(|c| c.x == x);
        match a.kind {
            ArrowKind::FromEnvironment => assert!(a.to_x.iter().all(|&x| on_column(x))),
            ArrowKind::ToEnvironment => assert!(on_column(a.from_x)),
            _ => assert!(on_column(a.from_x) && a.to_x.iter().all(|&x| on_column(x))),
        }
    }
    // Boxes: nested or apart, never crossing; a tag inside its box and outside the boxes
    // its box contains; separators cross no inner box and no text.
    for (i, f) in l.fragments.iter().enumerate() {
        assert!(
            canvas.contains(&f.rect),
            "{what}: box {i} outside the canvas"
        );
        assert!(
            f.rect.contains(&f.tag.rect),
            "{what}: tag {i} outside its box"
        );
        for b in &f.bands {
            assert!(f.rect.contains(b), "{what}: band of box {i} outside it");
        }
        for (j, g) in l.fragments.iter().enumerate() {
            if i == j {
                continue;
            }
            let nested = f.rect.contains(&g.rect) || g.rect.contains(&f.rect);
            assert!(
                nested || !f.rect.overlaps(&g.rect),
                "{what}: boxes {i} {:?} and {j} {:?} cross",
                f.rect,
                g.rect
            );
            if f.rect.contains(&g.rect) {
                assert!(
                    g.depth > f.depth,
                    "{what}: box {j} inside {i} is not deeper"
                );
                assert!(
                    !f.tag.rect.overlaps(&g.rect),
                    "{what}: tag {i} over box {j}"
                );
                for &y in &f.separators {
                    assert!(
                        y <= g.rect.y || y >= g.rect.bottom(),
                        "{what}: separator of box {i} crosses box {j}"
                    );
                }
            }
        }
        for &y in &f.separators {
            assert!(y > f.rect.y && y < f.rect.bottom());
            for (n, r) in &texts {
                assert!(
                    y <= r.y || y >= r.bottom() || !(r.x < f.rect.right() && f.rect.x < r.right()),
                    "{what}: separator of box {i} crosses {n}"
                );
            }
        }
        // Everything drawn at the height of a box is inside it (rows are never shared).
        for (k, a) in l.arrows.iter().enumerate() {
            if a.ink.y >= f.rect.y && a.ink.bottom() <= f.rect.bottom() {
                assert!(
                    f.rect.contains(&a.ink) && f.rect.contains(&a.label.rect),
                    "{what}: arrow {k} at the height of box {i} but outside it"
                );
            }
        }
    }
}

fn act(l: usize, kind: ActionKind, m: usize) -> Action {
    Action {
        lifeline: LifelineId(l as u32),
        kind,
        message: MessageId(m as u32),
    }
}

/// A random interaction with exactly `actions` actions (before normalization) over the
/// signature's lifelines: every arrow kind and every operator, nested.
fn random_term(
    store: &mut TermStore,
    rng: &mut Rng,
    sig: &Signature,
    actions: usize,
    depth: usize,
) -> TermId {
    let nl = sig.lifelines().len();
    let nm = sig.messages().len();
    if actions <= 3 || depth > 12 {
        let mut acc = Vec::new();
        let mut left = actions;
        while left > 0 {
            let m = rng.below(nm);
            let a = rng.below(nl);
            let t = match (rng.below(6), left) {
                (0, _) => store.act(act(a, ActionKind::Emission, m)),
                (1, _) => store.act(act(a, ActionKind::Reception, m)),
                (2, 2..) => {
                    let s = store.act(act(a, ActionKind::Emission, m));
                    let r = store.act(act(a, ActionKind::Reception, m));
                    store.strict(s, r)
                }
                (3, 3..) => {
                    let b = (a + 1 + rng.below(nl - 1)) % nl;
                    let c = (b + 1 + rng.below(nl - 2)) % nl;
                    let c = if c == a { (c + 1) % nl } else { c };
                    let s = store.act(act(a, ActionKind::Emission, m));
                    let r1 = store.act(act(b, ActionKind::Reception, m));
                    let r2 = store.act(act(c, ActionKind::Reception, m));
                    let p = store.par(r1, r2);
                    store.strict(s, p)
                }
                (_, 2..) => {
                    let b = (a + 1 + rng.below(nl - 1)) % nl;
                    let s = store.act(act(a, ActionKind::Emission, m));
                    let r = store.act(act(b, ActionKind::Reception, m));
                    store.strict(s, r)
                }
                _ => store.act(act(a, ActionKind::Emission, m)),
            };
            left -= count_actions(store, t);
            acc.push(t);
        }
        let mut t = acc.pop().unwrap_or(TermId::EMPTY);
        while let Some(x) = acc.pop() {
            t = if rng.below(2) == 0 {
                store.seq(x, t)
            } else {
                store.strict(x, t)
            };
        }
        return t;
    }
    let op = rng.below(8);
    if op >= 6 {
        let kind = [
            LoopKind::Strict,
            LoopKind::Head,
            LoopKind::Weak,
            LoopKind::Par,
        ][rng.below(4)];
        let body = random_term(store, rng, sig, actions, depth + 1);
        return store.repeat(kind, body);
    }
    let k = 2 + rng.below(3.min(actions - 1));
    let mut parts = Vec::new();
    let mut left = actions;
    for i in 0..k {
        let share = if i + 1 == k {
            left
        } else {
            (left / (k - i)).max(1)
        };
        left -= share;
        parts.push(random_term(store, rng, sig, share, depth + 1));
    }
    let mut t = parts.pop().unwrap();
    while let Some(x) = parts.pop() {
        t = match op {
            0 => store.strict(x, t),
            1 => store.seq(x, t),
            2 => store.par(x, t),
            3 => store.alt(x, t),
            4 => {
                let mut s = LifelineSet::EMPTY;
                s.insert(LifelineId(rng.below(nl) as u32));
                s.insert(LifelineId(rng.below(nl) as u32));
                store.coreg(s, x, t)
            }
            _ => store.seq(x, t),
        };
    }
    t
}

/// Actions of a term, counted along every path of its tree (a shared subterm counts each
/// time it occurs).
fn count_actions(store: &TermStore, t: TermId) -> usize {
    let mut stack = vec![t];
    let mut n = 0;
    while let Some(t) = stack.pop() {
        match store.get(t) {
            Term::Empty => {}
            Term::Act(_) => n += 1,
            Term::Strict(a, b)
            | Term::Seq(a, b)
            | Term::Par(a, b)
            | Term::Alt(a, b)
            | Term::Coreg(_, a, b) => {
                stack.push(a);
                stack.push(b);
            }
            Term::Loop(_, a) => stack.push(a),
        }
    }
    n
}

fn big_signature(lifelines: usize) -> Signature {
    let mut sig = Signature::new();
    for i in 0..lifelines {
        // Names of varied widths, as real systems have.
        let name = match i % 5 {
            0 => format!("l{i}"),
            1 => format!("service_{i}"),
            2 => format!("db{i}"),
            3 => format!("gateway_frontend_{i}"),
            _ => format!("w{i}"),
        };
        sig.add_lifeline(&name).unwrap();
    }
    for name in [
        "m",
        "ack",
        "request_with_a_long_name",
        "x",
        "publish",
        "unsubscribe_all_topics",
    ] {
        sig.add_message(name);
    }
    sig
}

#[test]
fn fifty_lifelines_and_five_hundred_actions_are_laid_out_without_overlaps() {
    let sig = big_signature(50);
    let mut widths = Vec::new();
    for seed in 0..12u64 {
        let mut store = TermStore::new();
        let mut rng = Rng::new(seed);
        let t = random_term(&mut store, &mut rng, &sig, 500, 0);
        let drawn = tree(&store, t).unwrap();
        // Every action of the interaction is drawn once.
        assert_eq!(drawn.actions(), count_actions(&store, t), "seed {seed}");
        assert!(drawn.actions() >= 400, "seed {seed}: {}", drawn.actions());
        let l = interaction_layout(&sig, &store, t).unwrap();
        assert_eq!(l.lifelines.len(), 50);
        check_layout(&l, &format!("seed {seed}"));
        let svg = to_svg(&l, "random");
        let c = parse_svg(&svg, &format!("seed {seed}"));
        assert_eq!(c.labels.len(), l.arrows.len());
        widths.push((
            l.width,
            l.height,
            l.arrows.len(),
            l.fragments.len(),
            svg.len(),
        ));
    }
    // Readable: bounded size (a few screens wide, one row per arrow or box edge).
    for (w, h, arrows, boxes, bytes) in &widths {
        assert!(*w < 12_000.0, "{widths:?}");
        assert!(
            *h < 40.0 * (*arrows as f64) + 40.0 * (*boxes as f64) + 200.0,
            "{widths:?}"
        );
        assert!(*bytes < 400_000, "{widths:?}");
    }
    eprintln!("50 lifelines, 500 actions: (width, height, arrows, boxes, SVG bytes) = {widths:?}");
}

#[test]
fn small_random_interactions_are_laid_out_without_overlaps() {
    for seed in 100..400u64 {
        let mut rng = Rng::new(seed);
        let sig = big_signature(3 + rng.below(6));
        let mut store = TermStore::new();
        let n = 1 + rng.below(40);
        let t = random_term(&mut store, &mut rng, &sig, n, 0);
        let drawn = tree(&store, t).unwrap();
        assert_eq!(drawn.actions(), count_actions(&store, t), "seed {seed}");
        let l = interaction_layout(&sig, &store, t).unwrap();
        check_layout(&l, &format!("seed {seed}"));
        parse_svg(&to_svg(&l, "small"), &format!("seed {seed}"));
    }
}

#[test]
fn too_deep_a_nesting_is_refused_not_overflowed() {
    let sig = big_signature(3);
    let mut store = TermStore::new();
    let mut t = store.act(act(0, ActionKind::Emission, 0));
    // par(a, strict(b, par(c, strict(...)))): every level is a box.
    for i in 0..MAX_DIAGRAM_NESTING + 10 {
        let x = store.act(act(i % 3, ActionKind::Reception, i % 6));
        t = if i % 2 == 0 {
            store.strict(x, t)
        } else {
            store.par(x, t)
        };
    }
    assert_eq!(
        interaction_layout(&sig, &store, t).err(),
        Some(DiagramError::TooDeep {
            limit: MAX_DIAGRAM_NESTING
        })
    );
    // A long sequence is a chain, not nesting: 20,000 actions draw.
    let mut store = TermStore::new();
    let mut t = TermId::EMPTY;
    for i in 0..10_000 {
        let s = store.act(act(i % 3, ActionKind::Emission, 1));
        let r = store.act(act((i + 1) % 3, ActionKind::Reception, 1));
        let m = store.strict(s, r);
        t = store.seq(m, t);
    }
    let l = interaction_layout(&sig, &store, t).unwrap();
    assert_eq!(l.arrows.len(), 10_000);
}

#[test]
fn message_shapes_are_recognized() {
    let mut sig = Signature::new();
    let mut store = TermStore::new();
    let text = "seq(a -- m -> b, a -- m -> (b, c), a -- m ->|, m -> (b, c), m -> a, a -- m -> a, strict(a -- m ->|, b -- n ->|, m -> c))";
    let t =
        multitrace_compiler::syntax::parse_interaction("t.hif", text, &mut sig, true, &mut store)
            .unwrap();
    let Node::Sequence(items) = tree(&store, t).unwrap() else {
        panic!()
    };
    let l = interaction_layout(&sig, &store, t).unwrap();
    let kinds: Vec<ArrowKind> = l.arrows.iter().map(|a| a.kind).collect();
    assert_eq!(
        kinds,
        [
            ArrowKind::Message,
            ArrowKind::Broadcast,
            ArrowKind::ToEnvironment,
            ArrowKind::FromEnvironment,
            ArrowKind::FromEnvironment,
            ArrowKind::SelfMessage,
            // a!m then b!n: no reception follows a!m, so both go to the environment, and
            // c?m comes from it; strict keeps them in a box.
            ArrowKind::ToEnvironment,
            ArrowKind::ToEnvironment,
            ArrowKind::FromEnvironment,
        ]
    );
    assert_eq!(items.len(), 7);
    assert!(matches!(&items[6], Node::Fragment(f) if f.operands.len() == 3));
    assert_eq!(l.arrows[1].to_x.len(), 2);
    assert_eq!(l.arrows[3].to_x.len(), 2);
    check_layout(&l, "shapes");
}

#[test]
fn raw_automata_have_no_diagram_and_term_only_models_have_one() {
    let timbuk = root().join("fixtures/seed004-fig3/model.timbuk");
    let src = read_source(&timbuk, None).unwrap();
    let model = compile_source(&src, &CompileOptions::default()).unwrap();
    assert_eq!(
        model_svg(&model, "x").err(),
        Some(DiagramError::NotAnInteraction)
    );
    for (name, hif) in fixtures_with_interactions() {
        let m = read_interaction(&hif, None).unwrap();
        let direct = interaction_svg(&m.signature, &m.store, m.root, "t").unwrap();
        for policy in [AutomataPolicy::Auto, AutomataPolicy::Never] {
            let opts = CompileOptions {
                policy,
                ..CompileOptions::default()
            };
            let model = compile_interaction(&m, &opts).unwrap();
            let svg = model_svg(&model, "t").unwrap();
            // The compiled model keeps the interaction as read: the same picture.
            assert_eq!(svg, direct, "{name} {policy:?}");
        }
    }
}

#[test]
fn every_interaction_of_the_hibou_sample_draws_to_valid_svg() {
    let Some(dir) = multitrace_model::testdata::data(
        "hibou-lfrem-sample/gen_ints",
        "the HIBOU sample diagrams",
    ) else {
        return;
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "hif"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 10);
    let mut term_only = 0;
    for hif in &files {
        let m = read_interaction(hif, None).unwrap();
        let what = hif.display().to_string();
        let svg = interaction_svg(&m.signature, &m.store, m.root, &what).unwrap();
        let c = parse_svg(&svg, &what);
        let l = interaction_layout(&m.signature, &m.store, m.root).unwrap();
        check_layout(&l, &what);
        assert_eq!(c.labels.len(), l.arrows.len());
        assert_eq!(
            tree(&m.store, m.root).unwrap().actions(),
            count_actions(&m.store, m.root),
            "{what}"
        );
        // Through the compiled model, as `draw MODEL.mtm --diagram` does.
        let model = compile_interaction(&m, &CompileOptions::default()).unwrap();
        term_only += usize::from(model.automata().is_none());
        assert_eq!(model_svg(&model, &what).unwrap(), svg, "{what}");
    }
    // i2 and i3 are term-only (README): they draw too.
    assert_eq!(term_only, 2);
}
