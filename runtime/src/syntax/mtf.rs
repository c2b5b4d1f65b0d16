//! Reader and writer of the multitrace files of seed 004 (`.mtf`): one line per location.
//!
//! ```text
//! # a comment line
//! [l1] a1.a2.a0
//! [l2] a17.a18
//! [l3]
//! ```
//!
//! Each line names a location of an [`Alphabet`] in brackets and gives its local trace: letters
//! of that location joined by `.` (spaces around `.` are allowed), nothing for an empty trace.
//! Blank lines and lines whose first non-blank character is `#` are ignored. Locations may come
//! in any order; a location no line lists has an empty trace. Location names are runs of
//! characters without whitespace, `[` and `]`; letters are runs without whitespace, `.`, `[`
//! and `]` (a letter whose name contains one of these cannot be written in this format).

use super::cursor::Cursor;
use super::error::ParseError;
use super::jsonl::NameIndex;
use super::names::{describe_char, name_list, quote_word};
use crate::nfa::{Alphabet, LetterId, LocationId};

/// Whether `c` ends a location name or a letter (`extra` is the other stop character).
fn stops(c: char, extra: char) -> bool {
    c.is_whitespace() || c.is_control() || c == '[' || c == ']' || c == extra
}

/// "expected WHAT, found X" at the position of `line` (a cursor over one line), X being what
/// is there up to the end of the line.
fn expected(line: &Cursor<'_>, what: &str) -> ParseError {
    let found = match line.peek_char() {
        None => "end of line".to_string(),
        Some(c) if c.is_control() || c.is_whitespace() || c == '\u{feff}' || c == '`' => {
            describe_char(c)
        }
        Some(c) if stops(c, '.') => format!("`{c}`"),
        Some(_) => {
            let mut probe = *line;
            quote_word(probe.take_while(|c| !stops(c, '.')))
        }
    };
    line.expected_found(line.pos(), what, Some(&found))
}

/// A run of characters up to a stop character (`extra` or a common one) and its file offset;
/// `None` (without moving) when there is none.
fn word<'a>(line: &mut Cursor<'a>, extra: u8) -> Option<(usize, &'a str)> {
    let at = line.pos();
    // Runs of visible ASCII first (whitespace and controls are below `!`, DEL is a control),
    // then one non-ASCII character at a time.
    loop {
        line.take_while_ascii(|b| b > b' ' && b != 0x7F && b != b'[' && b != b']' && b != extra);
        match line.peek_char() {
            Some(c) if !c.is_ascii() && !stops(c, char::from(extra)) => {
                line.bump();
            }
            _ => break,
        }
    }
    let word = line.since(at);
    (!word.is_empty()).then_some((at, word))
}

/// Reads a multitrace file (`.mtf`) over `alphabet`.
///
/// Returns one local trace per location of `alphabet`, indexed by [`LocationId`]; locations
/// that no line lists get an empty trace. `file` names the input in errors. Errors (with the
/// line and column of the offending text): an empty file, a malformed line, an unknown
/// location, a location listed twice, an unknown letter and a letter of another location.
/// Never panics.
pub fn parse_mtf(
    file: &str,
    text: &str,
    alphabet: &Alphabet,
) -> Result<Vec<Vec<LetterId>>, ParseError> {
    parse_mtf_indexed(file, text, alphabet, &NameIndex::new(alphabet))
}

/// [`parse_mtf`] with the alphabet's names already indexed (a batch indexes them once, not
/// once per file).
pub fn parse_mtf_indexed(
    file: &str,
    text: &str,
    alphabet: &Alphabet,
    names: &NameIndex,
) -> Result<Vec<Vec<LetterId>>, ParseError> {
    match parse_mtf_fast(text, alphabet, names) {
        Some(traces) => Ok(traces),
        None => parse_mtf_exact(file, text, alphabet, names),
    }
}

/// Whether the byte `b` is a blank the fast path skips (all of them are whitespace for
/// [`Cursor::skip_whitespace`]; `\n` ends the line before).
#[inline]
fn fast_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r')
}

/// Whether the byte `b` may be in a location name or a letter on the fast path: visible
/// ASCII other than `[`, `]` and `extra` (whitespace and controls are below `!`, DEL is a
/// control; non-ASCII is left to the exact path).
#[inline]
fn fast_word_byte(b: u8, extra: u8) -> bool {
    b > b' ' && b < 0x7F && b != b'[' && b != b']' && b != extra
}

/// The end of the blanks of `line` from `i`.
#[inline]
fn fast_skip(line: &[u8], mut i: usize) -> usize {
    while line.get(i).copied().is_some_and(fast_blank) {
        i += 1;
    }
    i
}

/// The common case of [`parse_mtf_indexed`] over bytes, without the [`Cursor`]: lines cut
/// with `memchr`, ASCII names, every name known and every letter of its line's location.
/// `None` on anything else (non-ASCII, other blanks, any error), which the exact path then
/// reads: it alone makes error messages, so they do not depend on this path.
fn parse_mtf_fast(
    text: &str,
    alphabet: &Alphabet,
    names: &NameIndex,
) -> Option<Vec<Vec<LetterId>>> {
    let bytes = text.as_bytes();
    let mut traces: Vec<Vec<LetterId>> = vec![Vec::new(); alphabet.locations()];
    let mut listed = vec![false; alphabet.locations()];
    let mut any = false;
    let mut start = 0;
    while start < bytes.len() {
        let end = memchr::memchr(b'\n', bytes.get(start..)?).map_or(bytes.len(), |n| start + n);
        let line = bytes.get(start..end)?;
        // `text` sliced on ASCII bytes (the separators) stays on char boundaries.
        let base = start;
        let word = move |from: usize, to: usize| text.get(base + from..base + to);
        start = end + 1;
        let mut i = fast_skip(line, 0);
        match line.get(i) {
            None | Some(b'#') => continue,
            Some(b'[') => i += 1,
            Some(_) => return None,
        }
        any = true;
        i = fast_skip(line, i);
        let name_at = i;
        while line.get(i).is_some_and(|&b| fast_word_byte(b, b']')) {
            i += 1;
        }
        let name = word(name_at, i).filter(|n| !n.is_empty())?;
        i = fast_skip(line, i);
        if line.get(i) != Some(&b']') {
            return None;
        }
        let k = names.location(name)?;
        let seen = listed.get_mut(k)?;
        if std::mem::replace(seen, true) {
            return None;
        }
        i = fast_skip(line, i + 1);
        if i == line.len() {
            continue;
        }
        // A letter and a `.` take at least two bytes.
        let mut trace = Vec::with_capacity((line.len() - i) / 2 + 1);
        loop {
            let letter_at = i;
            // The name packed as `pack` does, while scanning it (its bytes are not NUL).
            let mut key = 0u64;
            while let Some(&b) = line.get(i).filter(|&&b| fast_word_byte(b, b'.')) {
                if i - letter_at < 8 {
                    key |= u64::from(b) << (8 * (i - letter_at));
                }
                i += 1;
            }
            let l = match i - letter_at {
                0 => return None,
                1..=8 => names.packed_letter(key)?,
                _ => names.letter(word(letter_at, i)?)?,
            };
            if alphabet.location(l).index() != k {
                return None;
            }
            trace.push(l);
            i = fast_skip(line, i);
            match line.get(i) {
                None => break,
                Some(b'.') => i = fast_skip(line, i + 1),
                Some(_) => return None,
            }
        }
        *traces.get_mut(k)? = trace;
    }
    any.then_some(traces)
}

/// [`parse_mtf_indexed`] on the [`Cursor`], character by character: every input, every
/// error with its position.
fn parse_mtf_exact(
    file: &str,
    text: &str,
    alphabet: &Alphabet,
    names: &NameIndex,
) -> Result<Vec<Vec<LetterId>>, ParseError> {
    let letter_names = |k: LocationId| {
        let of = alphabet.letters_of(k);
        name_list(
            of.iter()
                .map(|l| alphabet.names().get(l.index()).map_or("?", String::as_str)),
        )
    };
    let mut traces: Vec<Vec<LetterId>> = vec![Vec::new(); alphabet.locations()];
    // Byte offset of the name of each location already listed.
    let mut listed_at: Vec<Option<usize>> = vec![None; alphabet.locations()];
    let mut any = false;
    let mut lines = Cursor::new(file, text);
    while let Some(mut lx) = lines.next_line() {
        lx.skip_whitespace();
        if lx.at_end() || lx.starts_with("#") {
            continue;
        }
        any = true;
        if !lx.eat_byte(b'[') {
            return Err(expected(&lx, "`[` opening a location like `[l1] a1.a2`"));
        }
        lx.skip_whitespace();
        let Some((name_at, name)) = word(&mut lx, b']') else {
            return Err(expected(&lx, "a location name after `[`"));
        };
        lx.skip_whitespace();
        if !lx.eat_byte(b']') {
            return Err(expected(&lx, &format!("`]` after location name `{name}`")));
        }
        let Some(k) = names.location(name).map(|k| LocationId(k as u32)) else {
            return Err(lx.error(
                name_at,
                format!(
                    "unknown location `{name}`; {}locations: {}",
                    crate::suggest::did_you_mean(
                        name,
                        alphabet.location_names().iter().map(String::as_str)
                    ),
                    name_list(alphabet.location_names().iter().map(String::as_str))
                ),
            ));
        };
        match listed_at.get(k.index()).copied().flatten() {
            Some(first) => {
                let first = lx.position(first);
                return Err(lx.error(
                    name_at,
                    format!(
                        "location `{name}` is listed twice (first at {first}); write its \
                         whole local trace on one line"
                    ),
                ));
            }
            None => {
                if let Some(slot) = listed_at.get_mut(k.index()) {
                    *slot = Some(name_at);
                }
            }
        }
        let mut trace = Vec::new();
        lx.skip_whitespace();
        if !lx.at_end() {
            loop {
                let Some((letter_at, letter)) = word(&mut lx, b'.') else {
                    return Err(expected(
                        &lx,
                        if trace.is_empty() {
                            "a letter or end of line"
                        } else {
                            "a letter after `.`"
                        },
                    ));
                };
                let Some(l) = names.letter(letter) else {
                    return Err(lx.error(
                        letter_at,
                        format!(
                            "unknown letter `{letter}`; letters of location {name}: {}",
                            letter_names(k)
                        ),
                    ));
                };
                let owner = alphabet.location(l);
                if owner != k {
                    let other = alphabet
                        .location_names()
                        .get(owner.index())
                        .map_or("?", String::as_str);
                    return Err(lx.error(
                        letter_at,
                        format!("letter `{letter}` belongs to location {other}, not {name}"),
                    ));
                }
                trace.push(l);
                lx.skip_whitespace();
                if lx.at_end() {
                    break;
                }
                if !lx.eat_byte(b'.') {
                    return Err(expected(&lx, "`.` and a letter, or end of line"));
                }
                lx.skip_whitespace();
            }
        }
        if let Some(slot) = traces.get_mut(k.index()) {
            *slot = trace;
        }
    }
    if !any {
        return Err(ParseError::at(
            file,
            text,
            text.len(),
            "empty file: expected one line per location like `[l1] a1.a2.a0`",
        ));
    }
    Ok(traces)
}

/// Writes multitraces in the format [`parse_mtf`] reads: one line `[location] a.b.c` per
/// location of `alphabet`, in order, `[location]` alone for an empty trace.
///
/// `traces[k]` is the local trace of location `k`; missing traces are written empty and extra
/// ones are ignored. `parse_mtf` reads the result back to `traces` when each trace holds
/// letters of its own location whose names contain no whitespace, `.`, `[` or `]`. A letter id
/// out of the alphabet is written `?`. Never panics.
pub fn write_mtf(traces: &[Vec<LetterId>], alphabet: &Alphabet) -> String {
    let mut out = String::new();
    for (k, name) in alphabet.location_names().iter().enumerate() {
        out.push('[');
        out.push_str(name);
        out.push(']');
        let trace = traces.get(k).map_or(&[][..], Vec::as_slice);
        for (i, l) in trace.iter().enumerate() {
            out.push(if i == 0 { ' ' } else { '.' });
            out.push_str(alphabet.names().get(l.index()).map_or("?", String::as_str));
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
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
        let t = parse(
            "# header\n\n  [ l3 ]  a11 . a12\t\r\n   # indented comment\n[l1]a16\r\n\n[l2]   ",
        );
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
        "[", "]", ".", "l1", "l2", "l3", "l9", "a0", "a1", "a7", "a12", "a99", " ", "\n", "\r",
        "#", "é", "\0", "\t",
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
            let mutated = super::super::cursor::mutation::mutate(&valid, &edits);
            for text in [valid, mutated, soup.concat()] {
                let exact = parse_mtf_exact("f", &text, &a, &names);
                if let Some(fast) = parse_mtf_fast(&text, &a, &names) {
                    prop_assert_eq!(Ok(fast), exact.clone(), "{:?}", text);
                }
                prop_assert_eq!(parse_mtf_indexed("f", &text, &a, &names), exact);
            }
        }
    }
}
