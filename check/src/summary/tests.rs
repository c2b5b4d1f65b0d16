//! Tests of reading, validating and writing summaries, and of the steps around them.

use super::*;
use crate::explore::Budget;
use crate::semi::central_check;
use crate::semi::local_summary;
use crate::Engine;
use multitrace_model::model::CompiledModel;
use multitrace_model::model::{Automata, CompileStats, ModelKind, Origin};
use multitrace_model::nfa::{Alphabet, LetterId, LocationId};
use multitrace_model::nfa::{Nfa, StateId, Transition};
use multitrace_model::project::{bits, AreaId, AreaTable, ProjDfa, NO_STATE};
use multitrace_model::syntax::line_column;
use multitrace_model::verdict::Mode;
use multitrace_model::verdict::{Reason, VerdictKind};

/// Seed 004's MQTT-like protocol (locations clt1, brok, clt2; 15 transitions: one word).
fn mqtt() -> CompiledModel {
    multitrace_model::artifact::decode(include_bytes!(
        "../../../fixtures/golden/seed004-mqtt.v2.mtm"
    ))
    .unwrap()
}

/// One location `l` with the letter `a`; the NFA reads `a` exactly `n` times, so that its
/// areas take `n.div_ceil(64)` words.
fn chain(n: usize) -> CompiledModel {
    let alphabet = Alphabet::new(vec!["a".into()], vec![LocationId(0)], vec!["l".into()]).unwrap();
    let transitions = (0..n as u32)
        .map(|i| Transition {
            from: StateId(i),
            letter: LetterId(0),
            to: StateId(i + 1),
        })
        .collect();
    let accepting = (0..=n).map(|s| s == n).collect();
    let nfa = Nfa::new(n as u32 + 1, vec![StateId(0)], accepting, transitions, 1).unwrap();
    let mut areas = AreaTable::new(n);
    let words = areas.words();
    let mut push = |ts: std::ops::Range<usize>| {
        let mut b = vec![0u64; words];
        ts.for_each(|t| bits::set(&mut b, t));
        areas.push_bits(&b)
    };
    let empty = push(0..0);
    let single: Vec<AreaId> = (0..n).map(|t| push(t..t + 1)).collect();
    let tail: Vec<AreaId> = (0..=n).map(|s| push(s..n)).collect();
    let dfa = ProjDfa {
        location: LocationId(0),
        states: n as u32 + 1,
        letters: 1,
        next: (0..=n as u32)
            .map(|s| if (s as usize) < n { s + 1 } else { NO_STATE })
            .collect(),
        area: (0..=n)
            .map(|s| single.get(s).copied().unwrap_or(empty))
            .collect(),
        accepting: (0..=n).map(|s| s == n).collect(),
        live: vec![true; n + 1],
        init_area: empty,
        tail,
        subsets: (0..=n as u32).map(|s| vec![StateId(s)]).collect(),
    };
    let automata = Automata {
        nfa,
        projections: vec![dfa],
        areas,
    };
    CompiledModel::new(
        alphabet,
        Origin::Automaton,
        ModelKind::Automata(automata),
        CompileStats::default(),
        {
            let mut h = [0u8; 32];
            h[..8].copy_from_slice(&0x0123_4567_89ab_cdef_u64.to_be_bytes());
            multitrace_model::hash::SourceHash(h)
        },
    )
    .unwrap()
}

fn letters(model: &CompiledModel, names: &[&str]) -> Vec<LetterId> {
    names
        .iter()
        .map(|n| model.alphabet.letter(n).unwrap())
        .collect()
}

fn location(model: &CompiledModel, name: &str) -> LocationId {
    let k = model
        .alphabet
        .location_names()
        .iter()
        .position(|n| n == name);
    LocationId(k.unwrap() as u32)
}

/// The summary text `local` writes.
fn text_of(s: &LocalSummary) -> String {
    let mut out = Vec::new();
    write_summary(s, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

/// The summary of `trace` on location `loc` of `model`, as text.
fn summary_text(model: &CompiledModel, loc: &str, trace: &[&str], mode: Mode) -> String {
    let s = local_summary(model, location(model, loc), &letters(model, trace), mode).unwrap();
    text_of(&s)
}

/// Seed 004's example 1, one summary text per location.
fn example1(model: &CompiledModel, mode: Mode) -> Vec<(String, String)> {
    [
        ("clt1", &["clt1!begin", "clt1!pub", "clt1!end"][..]),
        ("brok", &["brok?begin", "brok?pub", "brok?end"][..]),
        ("clt2", &[][..]),
    ]
    .iter()
    .map(|(l, t)| (format!("{l}.json"), summary_text(model, l, t, mode)))
    .collect()
}

fn read_all(model: &CompiledModel, files: &[(String, String)]) -> Vec<Summary> {
    files
        .iter()
        .map(|(f, t)| read_summary(f, t, model).unwrap())
        .collect()
}

fn central(model: CompiledModel, set: &SummarySet) -> multitrace_model::verdict::Verdict {
    let engine = Engine::new(model);
    central_check(
        engine.model(),
        engine.tables().unwrap(),
        set,
        &Budget::default(),
        false,
    )
    .unwrap()
}

/// Reads `text` as `s.json` of the MQTT model and returns the error.
fn error(model: &CompiledModel, text: &str) -> SummaryError {
    match read_summary("s.json", text, model) {
        Ok(s) => panic!("accepted: {s:?}\n{text}"),
        Err(e) => e,
    }
}

/// Line and column (from 1, characters) of the first occurrence of `needle` in `text`.
fn position_of(text: &str, needle: &str) -> (u32, u32) {
    line_column(text, text.find(needle).unwrap())
}

/// clt1's summary of example 1 with `from` replaced by `to` (exactly once).
fn edited(model: &CompiledModel, from: &str, to: &str) -> String {
    let text = &example1(model, Mode::Complete)[0].1;
    assert_eq!(text.matches(from).count(), 1, "{from} in {text}");
    text.replacen(from, to, 1)
}

#[test]
fn written_summaries_read_back_and_give_the_verdicts_of_as() {
    let model = mqtt();
    for mode in [Mode::Complete, Mode::Prefix] {
        let files = example1(&model, mode);
        let summaries = read_all(&model, &files);
        for (s, (file, text)) in summaries.iter().zip(&files) {
            assert_eq!(s.file(), file);
            assert_eq!(s.mode(), mode);
            assert_eq!(s.digest(), model.digest);
            assert!(matches!(s.result(), LocalResult::Pass { area } if area.len() == 1));
            // The wire form round-trips exactly.
            assert_eq!(text_of(&s.to_local(&model)), *text);
            let wire: LocalSummary = serde_json::from_str(text).unwrap();
            let mem = Summary::from_local(file, &wire, &model).unwrap();
            assert_eq!(
                (mem.location(), mem.mode(), mem.trace(), mem.result()),
                (s.location(), s.mode(), s.trace(), s.result())
            );
        }
        let set = SummarySet::new(&model, summaries).unwrap();
        assert_eq!(set.mode(), mode);
        let names: Vec<String> = set
            .summaries()
            .iter()
            .map(|s| model.alphabet.location_name(s.location()).to_string())
            .collect();
        assert_eq!(names, model.alphabet.location_names());
        assert_eq!(central(model.clone(), &set).kind, VerdictKind::Pass);
    }
}

#[test]
fn a_local_error_travels_to_the_central_verdict() {
    let model = mqtt();
    let mut files = example1(&model, Mode::Prefix);
    // The broker receives a publication before the topic began.
    files[1].1 = summary_text(&model, "brok", &["brok?pub"], Mode::Prefix);
    let summaries = read_all(&model, &files);
    let LocalResult::LocalError { position, expected } = summaries[1].result() else {
        panic!("{:?}", summaries[1]);
    };
    assert_eq!(*position, 0);
    assert_eq!(*expected, letters(&model, &["brok?begin"]));
    let set = SummarySet::new(&model, summaries).unwrap();
    let v = central(model.clone(), &set);
    assert_eq!(v.kind, VerdictKind::Fail);
    assert!(matches!(
        v.reason,
        Some(Reason::LocalError { location, position: 0, .. }) if location == LocationId(1)
    ));
}

#[test]
fn areas_of_several_words_round_trip_and_pass() {
    let model = chain(70);
    let trace = vec![LetterId(0); 70];
    let s = local_summary(&model, LocationId(0), &trace, Mode::Complete).unwrap();
    let area = s.area.clone().unwrap();
    assert_eq!(area.len(), 32);
    // Transitions 0..70: the first word full, six bits of the second.
    assert_eq!(area, "ffffffffffffffff000000000000003f");
    let read = read_summary("l.json", &text_of(&s), &model).unwrap();
    let set = SummarySet::new(&model, vec![read]).unwrap();
    assert_eq!(central(model.clone(), &set).kind, VerdictKind::Pass);
    // One action short: a LocalError in complete mode, at the end of the trace.
    let s = local_summary(&model, LocationId(0), &trace[1..], Mode::Complete).unwrap();
    assert_eq!((s.verdict.as_str(), s.position), ("LocalError", Some(69)));
    let read = read_summary("l.json", &text_of(&s), &model).unwrap();
    let set = SummarySet::new(&model, vec![read]).unwrap();
    assert_eq!(central(model, &set).kind, VerdictKind::Fail);
}

/// Regression (issue 10): a non-ASCII character in `area` where the old reader sliced the
/// string by bytes at a word boundary panicked `central`.
#[test]
fn non_ascii_character_in_area_is_a_located_error() {
    let model = chain(70);
    let s = local_summary(&model, LocationId(0), &[LetterId(0); 70], Mode::Complete).unwrap();
    let text = text_of(&s);
    // 32 bytes, as the old length check wanted: `é` straddles bytes 15-16.
    let hostile = "fffffffffffffffé00000000000003f";
    assert_eq!(hostile.len(), 32);
    let text = text.replace("ffffffffffffffff000000000000003f", hostile);
    let e = read_summary("l.json", &text, &model).unwrap_err();
    assert_eq!(
        *e.kind,
        SummaryErrorKind::AreaDigit {
            index: 15,
            found: 'é',
            len: 31
        }
    );
    assert_eq!(e.field, Some("area"));
    assert_eq!(e.position, Some(position_of(&text, "é")));
    let shown = e.to_string();
    assert!(shown.starts_with("l.json:"), "{shown}");
    assert!(
        shown.contains("field `area`: character 16 of 31, `é`, is not a hexadecimal digit"),
        "{shown}"
    );
    // The same on the one-word MQTT model, anywhere in the word.
    let model = mqtt();
    for at in 0..16 {
        let area = example1_area(&model);
        let mut hostile: Vec<char> = area.chars().collect();
        hostile[at] = 'é';
        let hostile: String = hostile.into_iter().collect();
        let e = error(&model, &edited(&model, &area, &hostile));
        assert!(
            matches!(*e.kind, SummaryErrorKind::AreaDigit { index, found: 'é', .. } if index == at),
            "{e}"
        );
    }
}

fn example1_area(model: &CompiledModel) -> String {
    let text = &example1(model, Mode::Complete)[0].1;
    let s: LocalSummary = serde_json::from_str(text).unwrap();
    s.area.unwrap()
}

#[test]
fn areas_of_the_wrong_length_digits_or_bits_are_refused() {
    let model = mqtt();
    let area = example1_area(&model);
    let located = |hostile: &str| {
        let text = edited(&model, &area, hostile);
        let e = error(&model, &text);
        assert_eq!(e.field, Some("area"), "{e}");
        assert!(e.position.is_some(), "{e}");
        *e.kind
    };
    // Odd length, half a word, two words for a one-word model.
    assert!(matches!(
        located(&area[..15]),
        SummaryErrorKind::AreaLength {
            digits: 15,
            words: 1
        }
    ));
    assert!(matches!(
        located(&format!("{area}{area}")),
        SummaryErrorKind::AreaLength {
            digits: 32,
            words: 1
        }
    ));
    assert!(matches!(
        located(""),
        SummaryErrorKind::AreaLength {
            digits: 0,
            words: 1
        }
    ));
    assert!(error(&model, &edited(&model, &area, &area[..15]))
        .to_string()
        .contains("not a whole number of 16-digit words"),);
    // What `u64::from_str_radix` would take, and other non-digits.
    for (bad, index) in [("+", 0), (" ", 3), ("g", 15), ("x", 1), ("٣", 2)] {
        let mut hostile: Vec<char> = area.chars().collect();
        hostile[index] = bad.chars().next().unwrap();
        let hostile: String = hostile.into_iter().collect();
        let text = edited(&model, &area, &hostile);
        let e = error(&model, &text);
        assert!(
            matches!(*e.kind, SummaryErrorKind::AreaDigit { index: i, .. } if i == index),
            "{e}"
        );
        let (line, column) = position_of(&text, &hostile);
        assert_eq!(e.position, Some((line, column + index as u32)));
    }
    // Bit 15 and above: transitions the model does not have (it has 15).
    let e = located("0000000000008000");
    assert_eq!(
        e,
        SummaryErrorKind::AreaOutOfRange {
            transition: 15,
            transitions: 15
        }
    );
    // Upper-case digits are digits.
    let text = edited(&model, &area, &area.to_uppercase());
    assert!(read_summary("s.json", &text, &model).is_ok());
}

#[test]
fn bad_json_is_located() {
    let model = mqtt();
    let good = &example1(&model, Mode::Complete)[0].1;
    // Empty, not JSON, truncated.
    assert_eq!(*error(&model, "").kind, SummaryErrorKind::Empty);
    assert_eq!(*error(&model, " \n").kind, SummaryErrorKind::Empty);
    let e = error(&model, "not json");
    assert!(matches!(*e.kind, SummaryErrorKind::Syntax { .. }), "{e}");
    assert!(
        e.to_string()
            .starts_with("s.json:1:1: not JSON: found `n`, expected `{`"),
        "{e}"
    );
    let e = error(&model, "{\"format\" 1}");
    assert!(matches!(*e.kind, SummaryErrorKind::Syntax { .. }), "{e}");
    assert_eq!(e.position, Some((1, 11)), "{e}");
    let cut = &good[..good.find("\"mode\"").unwrap()];
    let e = error(&model, cut);
    assert!(matches!(*e.kind, SummaryErrorKind::Truncated { .. }), "{e}");
    // At the end of the text.
    assert_eq!(e.position, Some(line_column(cut, cut.len())), "{e}");
    // A non-ASCII character before the error counts as one column.
    let e = error(&model, "{\"format\": \"é\" x}");
    assert!(matches!(*e.kind, SummaryErrorKind::Syntax { .. }), "{e}");
    assert_eq!(e.position, Some((1, 16)), "{e}");
    // Not an object.
    let e = error(&model, "[1, 2]");
    assert!(matches!(*e.kind, SummaryErrorKind::Shape { .. }), "{e}");
    assert!(e
        .to_string()
        .starts_with("s.json:1:1: not a local summary: found an array"));
    // Not even the fields of a summary as an array (serde alone would take them).
    let wire: LocalSummary = serde_json::from_str(good).unwrap();
    let fields = serde_json::json!([
        wire.format,
        wire.version,
        wire.digest,
        wire.location,
        wire.mode,
        wire.trace,
        wire.verdict,
        wire.position,
        wire.expected,
        wire.area
    ]);
    assert!(serde_json::from_value::<LocalSummary>(fields.clone()).is_ok());
    let e = error(&model, &format!("\n {fields}"));
    assert_eq!(e.position, Some((2, 2)), "{e}");
    // Trailing garbage.
    let e = error(&model, &format!("{good} x"));
    assert!(matches!(*e.kind, SummaryErrorKind::Syntax { .. }), "{e}");
}

#[test]
fn fields_of_the_wrong_type_missing_unknown_or_repeated_are_located() {
    let model = mqtt();
    // Wrong type: the field is named from where serde stopped.
    let text = edited(&model, "\"location\": \"clt1\"", "\"location\": 7");
    let e = error(&model, &text);
    assert!(matches!(*e.kind, SummaryErrorKind::Shape { .. }), "{e}");
    assert_eq!(e.field, Some("location"), "{e}");
    assert_eq!(
        e.position.map(|p| p.0),
        Some(position_of(&text, "\"location\"").0)
    );
    let text = edited(&model, "\"version\": 1", "\"version\": -1");
    assert_eq!(error(&model, &text).field, Some("version"));
    let text = edited(&model, "\"position\": null", "\"position\": 1.5");
    assert_eq!(error(&model, &text).field, Some("position"));
    let text = edited(&model, "\"clt1!pub\"", "null");
    assert_eq!(error(&model, &text).field, Some("trace"));
    // Missing, unknown and repeated fields.
    let text = edited(&model, "\"mode\": \"complete\",", "");
    let e = error(&model, &text);
    assert!(e.to_string().contains("missing field `mode`"), "{e}");
    let text = edited(&model, "\"mode\": \"complete\",", "\"mood\": \"complete\",");
    let e = error(&model, &text);
    assert!(e.to_string().contains("unknown field `mood`"), "{e}");
    assert_eq!(e.position.map(|p| p.0), Some(position_of(&text, "mood").0));
    let text = edited(
        &model,
        "\"mode\": \"complete\",",
        "\"mode\": \"complete\", \"mode\": \"complete\",",
    );
    let e = error(&model, &text);
    assert!(e.to_string().contains("duplicate field `mode`"), "{e}");
}

#[test]
fn header_fields_are_checked() {
    let model = mqtt();
    let check = |from: &str, to: &str, field: &str| {
        let text = edited(&model, from, to);
        let e = error(&model, &text);
        assert_eq!(e.field, Some(field), "{e}");
        // Located at the field's value.
        let needle = to.split_once(": ").unwrap().1;
        assert_eq!(e.position, Some(position_of(&text, needle)), "{e}");
        *e.kind
    };
    let format = "\"format\": \"multitrace-local-summary\"";
    assert!(matches!(
        check(format, "\"format\": \"something-else\"", "format"),
        SummaryErrorKind::Format { found } if found == "something-else"
    ));
    assert!(matches!(
        check("\"version\": 1", "\"version\": 2", "version"),
        SummaryErrorKind::Version { found } if found == "2"
    ));
    let digest = format!("\"digest\": \"{:016x}\"", model.digest);
    for bad in [
        "+15e7e4e6b4bda09",
        "215e7e4e6b4bda0",
        "215e7e4e6b4bda099",
        "215e7e4e6b4bdaé",
    ] {
        assert!(
            matches!(
                check(&digest, &format!("\"digest\": \"{bad}\""), "digest"),
                SummaryErrorKind::Digest { found } if found == bad
            ),
            "{bad}"
        );
    }
    let e = check(&digest, "\"digest\": \"0000000000000001\"", "digest");
    assert_eq!(
        e,
        SummaryErrorKind::OtherModel {
            found: 1,
            model: model.digest
        }
    );
    assert!(e.to_string().contains("same compiled model"));
    assert!(matches!(
        check("\"mode\": \"complete\"", "\"mode\": \"Complete\"", "mode"),
        SummaryErrorKind::Mode { found } if found == "Complete"
    ));
    let kind = check(
        "\"location\": \"clt1\"",
        "\"location\": \"clt9\"",
        "location",
    );
    assert!(matches!(&kind, SummaryErrorKind::UnknownLocation { found, .. } if found == "clt9"));
    assert!(kind.to_string().contains("clt1, brok, clt2"), "{kind}");
    assert!(matches!(
        check("\"verdict\": \"Pass\"", "\"verdict\": \"pass\"", "verdict"),
        SummaryErrorKind::Verdict { found } if found == "pass"
    ));
}

#[test]
fn letters_are_checked_and_located_at_their_item() {
    let model = mqtt();
    let check = |from: &str, to: &str| {
        let text = edited(&model, from, to);
        let e = error(&model, &text);
        assert_eq!(e.field, Some("trace"), "{e}");
        assert_eq!(e.position, Some(position_of(&text, to)), "{e}");
        *e.kind
    };
    let kind = check("\"clt1!pub\"", "\"clt1!pib\"");
    assert!(
        matches!(&kind, SummaryErrorKind::UnknownLetter { index: 1, found, .. } if found == "clt1!pib"),
        "{kind}"
    );
    assert!(kind.to_string().starts_with("item 2 `clt1!pib`"), "{kind}");
    let kind = check("\"clt1!end\"", "\"brok?end\"");
    assert!(
        matches!(&kind, SummaryErrorKind::LetterOfAnotherLocation { index: 2, owner, .. } if owner == "brok"),
        "{kind}"
    );
    // The letters of `expected` too.
    let text = summary_text(&model, "brok", &["brok?pub"], Mode::Prefix);
    let text = text.replacen("\"brok?begin\"", "\"clt1!begin\"", 1);
    let e = error(&model, &text);
    assert_eq!(e.field, Some("expected"));
    assert!(matches!(
        *e.kind,
        SummaryErrorKind::LetterOfAnotherLocation { index: 0, .. }
    ));
}

#[test]
fn verdict_fields_are_consistent() {
    let model = mqtt();
    let area = example1_area(&model);
    let field = |text: &str| {
        let e = error(&model, text);
        (e.field, *e.kind)
    };
    // A Pass with a position, with expected letters, without its area.
    let (f, k) = field(&edited(&model, "\"position\": null", "\"position\": 0"));
    assert_eq!(
        (f, k),
        (
            Some("position"),
            SummaryErrorKind::UnexpectedField { verdict: "Pass" }
        )
    );
    let (f, _) = field(&edited(
        &model,
        "\"expected\": []",
        "\"expected\": [\"clt1!pub\"]",
    ));
    assert_eq!(f, Some("expected"));
    let (f, k) = field(&edited(&model, &format!("\"{area}\""), "null"));
    assert_eq!(
        (f, k),
        (
            Some("area"),
            SummaryErrorKind::MissingField { verdict: "Pass" }
        )
    );
    // A LocalError without a position, past the trace, with an area.
    let bad = summary_text(&model, "brok", &["brok?pub"], Mode::Prefix);
    let (f, k) = field(&bad.replace("\"position\": 0", "\"position\": null"));
    assert_eq!(
        (f, k),
        (
            Some("position"),
            SummaryErrorKind::MissingField {
                verdict: "LocalError"
            }
        )
    );
    let (f, k) = field(&bad.replace("\"position\": 0", "\"position\": 2"));
    assert_eq!(
        (f, k),
        (
            Some("position"),
            SummaryErrorKind::PositionOutOfRange {
                position: 2,
                len: 1
            }
        )
    );
    // At the end of the trace is a position (complete mode: the trace may not stop there).
    let ok = bad.replace("\"position\": 0", "\"position\": 1");
    assert!(read_summary("s.json", &ok, &model).is_ok());
    let (f, _) = field(&bad.replace("\"area\": null", &format!("\"area\": \"{area}\"")));
    assert_eq!(f, Some("area"));
}

#[test]
fn sets_need_one_summary_per_location_in_one_mode() {
    let model = mqtt();
    let complete = read_all(&model, &example1(&model, Mode::Complete));
    let prefix = read_all(&model, &example1(&model, Mode::Prefix));
    // Missing locations: named, with the files given.
    let e = SummarySet::new(&model, complete[..1].to_vec()).unwrap_err();
    assert!(
        matches!(&*e.kind, SummaryErrorKind::MissingLocations { missing, .. } if missing == &["brok", "clt2"])
    );
    let shown = e.to_string();
    assert!(
        shown.contains("no summary for location(s) brok, clt2"),
        "{shown}"
    );
    assert!(shown.contains("clt1 (clt1.json)"), "{shown}");
    // Twice the same location.
    let mut twice = complete.clone();
    let mut copy = complete[0].clone();
    copy.file = "again.json".into();
    twice.push(copy);
    let e = SummarySet::new(&model, twice).unwrap_err();
    assert_eq!(e.file.as_deref(), Some("again.json"));
    assert_eq!(e.position, Some((5, 15)), "{e}");
    assert_eq!(
        *e.kind,
        SummaryErrorKind::DuplicateLocation {
            location: "clt1".into(),
            first: "clt1.json".into()
        }
    );
    // Two modes.
    let mixed = vec![complete[0].clone(), prefix[1].clone(), complete[2].clone()];
    let e = SummarySet::new(&model, mixed).unwrap_err();
    assert_eq!(e.file.as_deref(), Some("brok.json"));
    assert_eq!(e.position, Some((6, 11)), "{e}");
    assert!(matches!(
        *e.kind,
        SummaryErrorKind::ModeMismatch {
            found: Mode::Prefix,
            ..
        }
    ));
    assert!(
        e.to_string()
            .contains("clt1.json was made in complete mode"),
        "{e}"
    );
    // Summaries of another model (the same names would not make them fit).
    let other = chain(70);
    let e = SummarySet::new(&other, complete).unwrap_err();
    assert!(
        matches!(*e.kind, SummaryErrorKind::OtherModel { .. }),
        "{e}"
    );
}

#[test]
fn term_only_models_have_no_summaries() {
    let model =
        multitrace_model::artifact::decode(include_bytes!("../../../fixtures/golden/loopP.v2.mtm"))
            .unwrap();
    let e = local_summary(&model, LocationId(0), &[], Mode::Prefix).unwrap_err();
    assert_eq!(*e.kind, SummaryErrorKind::TermOnly);
    let text = summary_text(&mqtt(), "clt1", &[], Mode::Prefix)
        .replace(
            &format!("{:016x}", mqtt().digest),
            &format!("{:016x}", model.digest),
        )
        .replace("\"clt1\"", "\"l1\"");
    let e = read_summary("s.json", &text, &model).unwrap_err();
    assert_eq!(*e.kind, SummaryErrorKind::TermOnly);
    // A trace of another location is refused by the local step.
    let model = mqtt();
    let e = local_summary(
        &model,
        LocationId(0),
        &letters(&model, &["brok?pub"]),
        Mode::Prefix,
    )
    .unwrap_err();
    assert!(matches!(
        *e.kind,
        SummaryErrorKind::LetterOutOfLocation { index: 0, .. }
    ));
    let e = local_summary(&model, LocationId(9), &[], Mode::Prefix).unwrap_err();
    assert!(matches!(
        *e.kind,
        SummaryErrorKind::LocationOutOfRange { index: 9, .. }
    ));
}

/// Every prefix of a summary and every single-byte edit is read without a panic, and what
/// is accepted is consistent (a small deterministic fuzz, beside the cargo-fuzz target).
#[test]
fn truncations_and_byte_edits_never_panic() {
    let model = mqtt();
    let text = summary_text(&model, "brok", &["brok?begin", "brok?pub"], Mode::Prefix);
    let bytes = text.as_bytes();
    let mut accepted = 0;
    for cut in 0..text.trim_end().len() {
        let t = String::from_utf8_lossy(&bytes[..cut]);
        assert!(read_summary("s.json", &t, &model).is_err(), "{t}");
    }
    for i in 0..bytes.len() {
        for b in [
            b'"', b'0', b'f', b'g', b'\\', b'{', b'}', b'[', b',', b' ', 0xc3, 0xa9,
        ] {
            let mut edited = bytes.to_vec();
            edited[i] = b;
            let t = String::from_utf8_lossy(&edited);
            match read_summary("s.json", &t, &model) {
                Ok(s) => {
                    accepted += 1;
                    assert_eq!(s.location(), LocationId(1));
                    let again = text_of(&s.to_local(&model));
                    assert_eq!(read_summary("s.json", &again, &model).unwrap(), s);
                }
                Err(e) => assert!(e.file.is_some() && !e.to_string().is_empty()),
            }
        }
    }
    assert!(accepted > 0);
}
