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

use super::jsonl::NameIndex;
use multitrace_model::nfa::{Alphabet, LetterId, LocationId};
use multitrace_model::syntax::{describe_char, name_list, quote_word, Cursor, ParseError};

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
                    multitrace_model::suggest::did_you_mean(
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
/// The first name of `alphabet` that [`write_mtf`] cannot write so that [`parse_mtf`] reads
/// it back (a letter with whitespace, `.`, `[` or `]`, a location with whitespace, `[` or
/// `]`, or an empty name), as `(what, name)`: `("letter", "a.b")`; `None` when all can be.
pub fn unwritable_name(alphabet: &Alphabet) -> Option<(&'static str, &str)> {
    let bad = |name: &str, dot: bool| {
        name.is_empty()
            || name
                .chars()
                .any(|c| c.is_whitespace() || c == '[' || c == ']' || (dot && c == '.'))
    };
    let location = alphabet.location_names().iter().find(|n| bad(n, false));
    let letter = alphabet.names().iter().find(|n| bad(n, true));
    location
        .map(|n| ("location", n.as_str()))
        .or(letter.map(|n| ("letter", n.as_str())))
}

/// Writes a multitrace as `.mtf` text; every name must be writable ([`unwritable_name`]).
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
mod tests;
