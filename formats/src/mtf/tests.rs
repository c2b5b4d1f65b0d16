//! Tests of the `.mtf` reader and writer.

use super::*;
use proptest::prelude::*;

/// Seed 004's partition of the AutomatArk letters a0..a18: l1 = a0-a5 and a16, l2 = a6-a10,
/// a17 and a18, l3 = a11-a15.
fn alphabet() -> Alphabet {
    let names = (0..19).map(|i| format!("a{i}")).collect();
    let location = (0..19)
        .map(|i| match i {
            0..=5 | 16 => LocationId(0),
            6..=10 | 17 | 18 => LocationId(1),
            _ => LocationId(2),
        })
        .collect();
    Alphabet::new(names, location, vec!["l1".into(), "l2".into(), "l3".into()]).unwrap()
}

fn ids(a: &Alphabet, names: &[&str]) -> Vec<LetterId> {
    names.iter().map(|n| a.letter(n).unwrap()).collect()
}

fn parse(text: &str) -> Vec<Vec<LetterId>> {
    parse_mtf("t.mtf", text, &alphabet()).unwrap_or_else(|e| panic!("{e}"))
}

#[track_caller]
fn assert_err(text: &str, line: u32, column: u32, fragment: &str) {
    match parse_mtf("t.mtf", text, &alphabet()) {
        Ok(t) => panic!("expected an error, got {t:?}"),
        Err(e) => {
            assert!(
                e.message.contains(fragment),
                "message `{}` lacks `{fragment}`",
                e.message
            );
            assert_eq!((e.line, e.column), (line, column), "{e}");
            assert!(e.to_string().starts_with("t.mtf:"), "{e}");
        }
    }
}

#[test]
fn reads_one_line_per_location() {
    let a = alphabet();
    let t = parse("[l1] a1.a2.a0\n[l2] a17.a18\n[l3]\n");
    assert_eq!(
        t,
        [
            ids(&a, &["a1", "a2", "a0"]),
            ids(&a, &["a17", "a18"]),
            vec![]
        ]
    );
    // Any order, missing locations, comments, blank lines, spaces, CRLF, no final newline.
    let t =
        parse("# header\n\n  [ l3 ]  a11 . a12\t\r\n   # indented comment\n[l1]a16\r\n\n[l2]   ");
    assert_eq!(t, [ids(&a, &["a16"]), vec![], ids(&a, &["a11", "a12"])]);
    let t = parse("[l2] a6");
    assert_eq!(t, [vec![], ids(&a, &["a6"]), vec![]]);
    let t = parse("[l1]\n[l2]\n[l3]");
    assert_eq!(t, [vec![], vec![], vec![]]);
}

#[test]
fn name_errors() {
    assert_err(
        "[l1] a1\n  [l9] a1",
        2,
        4,
        "unknown location `l9`; locations: l1, l2, l3",
    );
    assert_err(
        "[l1] a1\n[l2]\n[l1] a2",
        3,
        2,
        "location `l1` is listed twice (first at 1:2)",
    );
    assert_err(
        "[l1] a1.a99",
        1,
        9,
        "unknown letter `a99`; letters of location l1: a0, a1, a2, a3, a4, a5, a16",
    );
    assert_err(
        "[l1] a1.a7.a0",
        1,
        9,
        "letter `a7` belongs to location l2, not l1",
    );
    assert_err(
        "\n[l3] a12 . a0",
        2,
        12,
        "letter `a0` belongs to location l1, not l3",
    );
}

#[test]
fn syntax_errors() {
    assert_err("", 1, 1, "empty file: expected one line per location");
    assert_err("\n  \n# only comments\n", 4, 1, "empty file");
    assert_err(
        "[l1] a1\na2",
        2,
        1,
        "expected `[` opening a location like `[l1] a1.a2`, found `a2`",
    );
    assert_err(
        "[l1 a1",
        1,
        5,
        "expected `]` after location name `l1`, found `a1`",
    );
    assert_err(
        "[l1",
        1,
        4,
        "expected `]` after location name `l1`, found end of line",
    );
    assert_err(
        "[] a1",
        1,
        2,
        "expected a location name after `[`, found `]`",
    );
    assert_err(
        "[",
        1,
        2,
        "expected a location name after `[`, found end of line",
    );
    assert_err(
        "[l1] a1..a2",
        1,
        9,
        "expected a letter after `.`, found `.`",
    );
    assert_err(
        "[l1] a1.",
        1,
        9,
        "expected a letter after `.`, found end of line",
    );
    assert_err(
        "[l1] .a1",
        1,
        6,
        "expected a letter or end of line, found `.`",
    );
    assert_err(
        "[l1] a1 a2",
        1,
        9,
        "expected `.` and a letter, or end of line, found `a2`",
    );
    assert_err(
        "[l1] a1 [l2] a6",
        1,
        9,
        "expected `.` and a letter, or end of line, found `[`",
    );
    assert_err("[l1] a1]", 1, 8, "found `]`");
    assert_err("[l1] a1\u{7}", 1, 8, "found character U+0007");
    assert_err("[l1] a1 # no trailing comments", 1, 9, "found `#`");
    assert_err("[l1] é∅", 1, 6, "unknown letter `é∅`");
}

#[test]
fn long_words_are_shortened_in_messages() {
    let long = "z".repeat(100);
    let e = parse_mtf("f", &format!("{long} [l1]"), &alphabet()).unwrap_err();
    assert!(
        e.message.contains(&format!("`{}...`", "z".repeat(40))),
        "{e}"
    );
}

#[test]
fn writes_and_reads_back() {
    let a = alphabet();
    let traces = vec![
        ids(&a, &["a1", "a2", "a0"]),
        ids(&a, &["a17", "a18"]),
        vec![],
    ];
    let text = write_mtf(&traces, &a);
    assert_eq!(text, "[l1] a1.a2.a0\n[l2] a17.a18\n[l3]\n");
    assert_eq!(parse_mtf("w", &text, &a).unwrap(), traces);
    // Missing traces are written empty, extra ones ignored, bad ids never panic.
    assert_eq!(write_mtf(&[], &a), "[l1]\n[l2]\n[l3]\n");
    assert_eq!(
        write_mtf(&[vec![LetterId(99)], vec![], vec![], vec![LetterId(0)]], &a),
        "[l1] ?\n[l2]\n[l3]\n"
    );
}

#[test]
fn alphabets_without_locations() {
    let empty = Alphabet::new(vec![], vec![], vec![]).unwrap();
    assert_eq!(write_mtf(&[], &empty), "");
    let e = parse_mtf("f", "[l1]", &empty).unwrap_err();
    assert!(
        e.message.contains("unknown location `l1`; locations: none"),
        "{e}"
    );
}

const TOKENS: &[&str] = &[
    "[", "]", ".", "l1", "l2", "l3", "l9", "a0", "a1", "a7", "a12", "a99", " ", "\n", "\r", "#",
    "é", "\0", "\t",
];

/// One trace per location from arbitrary picks among its own letters.
fn picked(picks: &[Vec<u32>], a: &Alphabet) -> Vec<Vec<LetterId>> {
    picks
        .iter()
        .enumerate()
        .map(|(k, ps)| {
            let own = a.letters_of(LocationId(k as u32));
            ps.iter().map(|&p| own[p as usize % own.len()]).collect()
        })
        .collect()
}

proptest! {
    #[test]
    fn never_panics_on_strings(text in any::<String>()) {
        let _ = parse_mtf("f", &text, &alphabet());
    }

    #[test]
    fn never_panics_on_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let _ = parse_mtf("f", &String::from_utf8_lossy(&bytes), &alphabet());
    }

    #[test]
    fn never_panics_on_token_soup(
        toks in proptest::collection::vec(proptest::sample::select(TOKENS), 0..60)
    ) {
        let text = toks.concat();
        if let Ok(traces) = parse_mtf("f", &text, &alphabet()) {
            prop_assert_eq!(traces.len(), 3);
        }
    }

    #[test]
    fn round_trip(
        picks in proptest::collection::vec(proptest::collection::vec(any::<u32>(), 0..8), 3)
    ) {
        let a = alphabet();
        let traces = picked(&picks, &a);
        let text = write_mtf(&traces, &a);
        prop_assert_eq!(parse_mtf("f", &text, &a).unwrap(), traces);
        // Written files take the fast path.
        prop_assert!(parse_mtf_fast(&text, &a, &NameIndex::new(&a)).is_some());
    }

    #[test]
    fn fast_path_agrees_with_exact_path(
        picks in proptest::collection::vec(proptest::collection::vec(any::<u32>(), 0..8), 3),
        edits in proptest::collection::vec(
            (any::<usize>(), any::<u8>(), proptest::sample::select(TOKENS)),
            0..4,
        ),
        soup in proptest::collection::vec(proptest::sample::select(TOKENS), 0..40),
    ) {
        let a = alphabet();
        let names = NameIndex::new(&a);
        let traces = picked(&picks, &a);
        let valid = write_mtf(&traces, &a).replace(' ', "  ").replace('.', " . ");
        let mutated = multitrace_model::syntax::mutation::mutate(&valid, &edits);
        for text in [valid, mutated, soup.concat()] {
            let exact = parse_mtf_exact("f", &text, &a, &names);
            if let Some(fast) = parse_mtf_fast(&text, &a, &names) {
                prop_assert_eq!(Ok(fast), exact.clone(), "{:?}", text);
            }
            prop_assert_eq!(parse_mtf_indexed("f", &text, &a, &names), exact);
        }
    }
}
