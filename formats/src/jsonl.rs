//! JSON Lines multitraces: one multitrace per line,
//! `{"id": "...", "traces": {"l1": ["l1!m1", "l1?m2"], "l2": []}}`.
//!
//! Keys of `traces` are location names of the model's alphabet, values its letter names (for
//! interactions, actions such as `l1!m1`). Locations not listed have an empty local trace. The
//! `id` is optional (the line number stands in).

use super::events::intern::ByteIds;
use multitrace_model::nfa::{Alphabet, LetterId};
use multitrace_model::syntax::ParseError;
use rustc_hash::FxHashMap;
use serde::Deserialize;

/// Looks up letter and location names of an alphabet (built once per batch; the JSON Lines
/// and `.mtf` readers use it).
pub struct NameIndex {
    /// The letters by name (most names are short, `a12`, `clt1!begin`: looked up without a
    /// string hash or comparison).
    letters: ByteIds,
    locations: FxHashMap<String, usize>,
}

/// A name of 1 to 8 bytes without NUL as a nonzero integer (distinct names, distinct
/// integers: the padding is NUL); `None` for other names.
#[inline]
pub(super) fn pack(name: &[u8]) -> Option<u64> {
    if name.is_empty() || name.len() > 8 {
        return None;
    }
    let mut w = 0u64;
    for (i, &c) in name.iter().enumerate() {
        if c == 0 {
            return None;
        }
        w |= u64::from(c) << (8 * i);
    }
    Some(w)
}

impl NameIndex {
    /// The index of the location named `name`.
    pub fn location(&self, name: &str) -> Option<usize> {
        self.locations.get(name).copied()
    }

    /// Indexes an alphabet's names.
    pub fn new(alphabet: &Alphabet) -> Self {
        let mut letters = ByteIds::default();
        for (i, n) in alphabet.names().iter().enumerate() {
            // (Names of an alphabet are distinct.)
            if letters.get(n.as_bytes()).is_none() {
                letters.insert(n.as_bytes(), i as u32);
            }
        }
        NameIndex {
            letters,
            locations: alphabet
                .location_names()
                .iter()
                .enumerate()
                .map(|(i, n)| (n.clone(), i))
                .collect(),
        }
    }

    /// The letter named `name`.
    #[inline]
    pub fn letter(&self, name: &str) -> Option<LetterId> {
        self.letters.get(name.as_bytes()).map(LetterId)
    }

    /// The letter whose name [`pack`]s to `key` (for a scanner that packs while it reads).
    #[inline]
    pub(super) fn packed_letter(&self, key: u64) -> Option<LetterId> {
        self.letters.get_word(key).map(LetterId)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    #[serde(default)]
    id: Option<serde_json::Value>,
    #[serde(deserialize_with = "crate::object::object")]
    traces: crate::object::Entries,
}

/// Parses one line (`line_no` from 1) into its id and one local trace per location.
pub fn parse_jsonl_line(
    file: &str,
    line_no: usize,
    text: &str,
    alphabet: &Alphabet,
    names: &NameIndex,
) -> Result<(String, Vec<Vec<LetterId>>), ParseError> {
    // A byte order mark opens the first line of some editors' files: it is not part of it.
    let text = match text.strip_prefix('\u{feff}') {
        Some(rest) if line_no == 1 => rest,
        _ => text,
    };
    // The common shape, scanned without building a JSON value; anything else (escapes,
    // unknown keys, bad names, malformed JSON) takes the full path, which gives the errors.
    if let Some(ok) = fast_line(text, alphabet, names) {
        let (id, traces) = ok;
        return Ok((id.unwrap_or_else(|| format!("{file}:{line_no}")), traces));
    }
    let err = |column: usize, message: String| ParseError {
        file: file.to_string(),
        line: line_no as u32,
        column: column as u32,
        message,
    };
    let parsed: Line = serde_json::from_str(text).map_err(|e| {
        err(
            e.column().max(1),
            format!(
                "{e}; expected {{\"id\": \"...\", \"traces\": {{\"LOCATION\": [\"LETTER\", ...]}}}}"
            ),
        )
    })?;
    // Columns of keys, for precise messages (first occurrence of the quoted key).
    let col_of = |needle: &str| {
        text.find(&format!("\"{needle}\""))
            .map_or(1, |i| text[..i].chars().count() + 1)
    };
    let mut traces = vec![Vec::new(); alphabet.locations()];
    let mut seen = vec![false; alphabet.locations()];
    for (loc, value) in &parsed.traces {
        let Some(&k) = names.locations.get(loc) else {
            return Err(err(
                col_of(loc),
                format!(
                    "unknown location `{loc}`; {}locations are {}",
                    multitrace_model::suggest::did_you_mean(
                        loc,
                        alphabet.location_names().iter().map(String::as_str)
                    ),
                    alphabet.location_names().join(" ")
                ),
            ));
        };
        if seen[k] {
            // The column of the second occurrence of the key.
            let needle = format!("\"{loc}\"");
            let column = text
                .match_indices(&needle)
                .nth(1)
                .map_or_else(|| col_of(loc), |(i, _)| text[..i].chars().count() + 1);
            return Err(err(
                column,
                format!("location `{loc}` is listed twice in `traces`; write its local trace once"),
            ));
        }
        seen[k] = true;
        let Some(items) = value.as_array() else {
            return Err(err(
                col_of(loc),
                format!("the trace of `{loc}` must be an array of letter names"),
            ));
        };
        for item in items {
            let Some(name) = item.as_str() else {
                return Err(err(
                    col_of(loc),
                    format!("the trace of `{loc}` must hold strings"),
                ));
            };
            let Some(letter) = names.letter(name) else {
                return Err(err(col_of(name), format!("unknown letter `{name}`")));
            };
            if alphabet.location(letter).index() != k {
                return Err(err(
                    col_of(name),
                    format!(
                        "letter `{name}` belongs to location {}, not {loc}",
                        alphabet.location_name(alphabet.location(letter))
                    ),
                ));
            }
            traces[k].push(letter);
        }
    }
    let id = match parsed.id {
        Some(serde_json::Value::String(s)) => s,
        Some(v) => v.to_string(),
        None => format!("{file}:{line_no}"),
    };
    Ok((id, traces))
}

/// A byte scanner for [`fast_line`]: JSON punctuation, whitespace and plain strings.
struct Scan<'a> {
    text: &'a str,
    b: &'a [u8],
    i: usize,
}

impl<'a> Scan<'a> {
    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\r' | b'\n') = self.b.get(self.i) {
            self.i += 1;
        }
    }
    /// Skips whitespace, then consumes `c` if it is next.
    fn eat(&mut self, c: u8) -> bool {
        self.ws();
        if self.b.get(self.i) == Some(&c) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    /// A string without escapes or control characters (`None` otherwise: the full path
    /// decides). Its quotes are ASCII, so the slice between them is on character boundaries
    /// of the text (no second UTF-8 validation).
    fn string(&mut self) -> Option<&'a str> {
        self.ws();
        if self.b.get(self.i) != Some(&b'"') {
            return None;
        }
        let start = self.i + 1;
        let len = self.b[start..]
            .iter()
            .position(|&c| c == b'"' || c == b'\\' || c < 0x20)?;
        if self.b[start + len] != b'"' {
            return None;
        }
        self.i = start + len + 1;
        self.text.get(start..start + len)
    }
    /// A letter name (a string as [`Scan::string`] reads it) looked up in `names`: a name of
    /// up to 8 bytes is packed while it is scanned (no second pass, no string hash).
    fn letter(&mut self, names: &NameIndex) -> Option<LetterId> {
        self.ws();
        if self.b.get(self.i) != Some(&b'"') {
            return None;
        }
        let start = self.i + 1;
        let (mut key, mut j) = (0u64, start);
        while let Some(&c) = self.b.get(j) {
            if c == b'"' || j - start == 8 {
                break;
            }
            if c == b'\\' || c < 0x20 {
                return None;
            }
            key |= u64::from(c) << (8 * (j - start));
            j += 1;
        }
        if j > start && self.b.get(j) == Some(&b'"') {
            // 1 to 8 bytes, no NUL (control characters were refused): [`pack`]'s key.
            self.i = j + 1;
            return names.packed_letter(key);
        }
        let name = self.string()?;
        names.letter(name)
    }
}

/// Reads `{"id": "...", "traces": {"LOCATION": ["LETTER", ...], ...}}` (keys in any order, `id`
/// optional and a plain string) when every name is known and on its location; `None` for
/// anything else, which [`parse_jsonl_line`] then reads with serde and explains.
fn fast_line(
    text: &str,
    alphabet: &Alphabet,
    names: &NameIndex,
) -> Option<(Option<String>, Vec<Vec<LetterId>>)> {
    let mut s = Scan {
        text,
        b: text.as_bytes(),
        i: 0,
    };
    let mut id = None;
    let mut traces: Option<Vec<Vec<LetterId>>> = None;
    if !s.eat(b'{') {
        return None;
    }
    loop {
        let key = s.string()?;
        if !s.eat(b':') {
            return None;
        }
        match key {
            "id" if id.is_none() => id = Some(s.string()?.to_string()),
            "traces" if traces.is_none() => {
                let mut t = vec![Vec::new(); alphabet.locations()];
                let mut seen = vec![false; alphabet.locations()];
                if !s.eat(b'{') {
                    return None;
                }
                if !s.eat(b'}') {
                    loop {
                        let loc = s.string()?;
                        let &k = names.locations.get(loc)?;
                        if std::mem::replace(&mut seen[k], true) || !s.eat(b':') || !s.eat(b'[') {
                            return None;
                        }
                        if !s.eat(b']') {
                            // Room for the letters left on the line (a letter takes 4 bytes
                            // or more: `"x",`), capped: one allocation per trace in general.
                            t[k].reserve(((s.b.len() - s.i) / 4).min(1 << 12));
                            loop {
                                let letter = s.letter(names)?;
                                if alphabet.location(letter).index() != k {
                                    return None;
                                }
                                t[k].push(letter);
                                if s.eat(b']') {
                                    break;
                                }
                                if !s.eat(b',') {
                                    return None;
                                }
                            }
                        }
                        if s.eat(b'}') {
                            break;
                        }
                        if !s.eat(b',') {
                            return None;
                        }
                    }
                }
                traces = Some(t);
            }
            _ => return None,
        }
        if s.eat(b'}') {
            break;
        }
        if !s.eat(b',') {
            return None;
        }
    }
    s.ws();
    (s.i == s.b.len()).then_some(())?;
    Some((id, traces?))
}

/// Writes one multitrace as a JSON Lines line (without the line break) that
/// [`parse_jsonl_line`] reads back: `{"id": "ID", "traces": {"l1": ["a", ...], "l2": []}}`,
/// every location of `alphabet` in order (`traces[k]` is the local trace of location `k`).
pub fn write_jsonl_line(id: &str, traces: &[Vec<LetterId>], alphabet: &Alphabet) -> String {
    let q = |s: &str| serde_json::Value::from(s).to_string();
    let mut s = format!("{{\"id\": {}, \"traces\": {{", q(id));
    for (k, name) in alphabet.location_names().iter().enumerate() {
        if k > 0 {
            s.push_str(", ");
        }
        let letters: Vec<String> = traces
            .get(k)
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .map(|&l| q(alphabet.name(l)))
            .collect();
        s.push_str(&format!("{}: [{}]", q(name), letters.join(", ")));
    }
    s.push_str("}}");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use multitrace_model::nfa::LocationId;

    fn alphabet() -> Alphabet {
        Alphabet::new(
            vec!["a".into(), "b".into(), "c".into()],
            vec![LocationId(0), LocationId(0), LocationId(1)],
            vec!["l1".into(), "l2".into()],
        )
        .unwrap()
    }

    #[test]
    fn reads_lines_and_reports_positions() {
        let a = alphabet();
        let n = NameIndex::new(&a);
        let (id, t) = parse_jsonl_line(
            "-",
            3,
            r#"{"id": "x", "traces": {"l1": ["a", "b"], "l2": []}}"#,
            &a,
            &n,
        )
        .unwrap();
        assert_eq!(id, "x");
        assert_eq!(t, vec![vec![LetterId(0), LetterId(1)], vec![]]);
        let (id, t) = parse_jsonl_line("-", 4, r#"{"traces": {"l2": ["c"]}}"#, &a, &n).unwrap();
        assert_eq!(id, "-:4");
        assert_eq!(t, vec![vec![], vec![LetterId(2)]]);
        let e = parse_jsonl_line("-", 5, r#"{"traces": {"l1": ["c"]}}"#, &a, &n).unwrap_err();
        assert_eq!((e.line, e.column), (5, 20));
        assert!(
            e.message.contains("belongs to location l2"),
            "{}",
            e.message
        );
        let e = parse_jsonl_line("-", 6, r#"{"traces": {"zz": []}}"#, &a, &n).unwrap_err();
        assert!(e.message.contains("unknown location `zz`"));
        let e = parse_jsonl_line("-", 7, r#"{"traces": "#, &a, &n).unwrap_err();
        assert_eq!(e.line, 7);
        let e = parse_jsonl_line("-", 8, r#"{"traces": {}, "extra": 1}"#, &a, &n).unwrap_err();
        assert!(e.message.contains("unknown field"), "{}", e.message);
    }

    /// Issue 22: a location given twice is refused at its second key, not one trace dropped;
    /// a byte order mark before the first line is skipped (only there).
    #[test]
    fn a_duplicate_location_is_refused_and_a_bom_is_skipped() {
        let a = alphabet();
        let n = NameIndex::new(&a);
        let line = r#"{"traces": {"l1": ["a"], "l1": ["b"]}}"#;
        let e = parse_jsonl_line("f", 2, line, &a, &n).unwrap_err();
        assert!(e.message.contains("`l1` is listed twice"), "{}", e.message);
        assert_eq!((e.line, e.column), (2, 26));
        let line = "\u{feff}{\"id\": \"x\", \"traces\": {\"l1\": [\"a\"]}}";
        let (id, t) = parse_jsonl_line("f", 1, line, &a, &n).unwrap();
        assert_eq!((id.as_str(), &t[0]), ("x", &vec![LetterId(0)]));
        assert!(parse_jsonl_line("f", 2, line, &a, &n).is_err());
    }

    #[test]
    fn written_lines_read_back() {
        let a = alphabet();
        let traces = vec![vec![LetterId(1), LetterId(0)], vec![]];
        let line = write_jsonl_line("pass-0001", &traces, &a);
        assert_eq!(
            line,
            r#"{"id": "pass-0001", "traces": {"l1": ["b", "a"], "l2": []}}"#
        );
        let back = parse_jsonl_line("-", 1, &line, &a, &NameIndex::new(&a)).unwrap();
        assert_eq!(back, ("pass-0001".to_string(), traces));
        // Ids are quoted as JSON strings.
        let line = write_jsonl_line("a \"b\"", &[], &a);
        assert!(line.starts_with(r#"{"id": "a \"b\"", "#), "{line}");
    }

    /// The fast scanner and serde read the same lines the same way, and every line the fast
    /// scanner declines is still read (or refused) by serde.
    #[test]
    fn the_fast_path_agrees_with_serde() {
        let a = alphabet();
        let n = NameIndex::new(&a);
        let lines = [
            r#"{"id": "x", "traces": {"l1": ["a", "b"], "l2": []}}"#,
            r#"{"traces": {"l2": ["c"], "l1": []}, "id": "y"}"#,
            r#"  {"traces":{}}  "#,
            r#"{"traces": {"l1": ["a"]}}"#,
            r#"{"id": 7, "traces": {"l1": ["a"]}}"#,
            r#"{"id": "e\u0078", "traces": {"l1": ["a"]}}"#,
            r#"{"id": "x", "traces": {"l1": ["c"]}}"#,
            r#"{"id": "x", "traces": {"l3": []}}"#,
            r#"{"id": "x", "traces": {"l1": [], "l1": []}}"#,
            r#"{"id": "x", "traces": {"l1": ["a",]}}"#,
            r#"{"id": "x", "traces": {"l1": ["a"]}} x"#,
            r#"{"id": "x", "traces": {"l1": ["a"]}, "more": 1}"#,
            r#"{"id": "x"}"#,
            r#"{"id": "x", "traces": {"l1": ["zz"]}}"#,
            r#"{"id": "x", "id": "y", "traces": {}}"#,
        ];
        for line in lines {
            let fast = fast_line(line, &a, &n);
            let full = parse_jsonl_line("f", 1, line, &a, &n);
            if let Some((id, t)) = &fast {
                let (fid, ft) = full.clone().unwrap();
                assert_eq!(&ft, t, "{line}");
                assert_eq!(id.clone().unwrap_or_else(|| "f:1".into()), fid, "{line}");
            }
            // Without the fast path: serde's reading of the line.
            let slow: Option<Line> = serde_json::from_str(line).ok();
            if fast.is_none() {
                assert!(full.is_err() || slow.is_some(), "{line}: declined by both");
            }
        }
        // A few lines the fast path must take.
        assert!(fast_line(lines[0], &a, &n).is_some());
        assert!(fast_line(lines[1], &a, &n).is_some());
        assert!(fast_line(lines[2], &a, &n).is_some());
        // And some it must leave to serde (which explains them).
        for l in [6, 7, 9, 10, 11, 13] {
            assert!(fast_line(lines[l], &a, &n).is_none(), "{}", lines[l]);
            assert!(
                parse_jsonl_line("f", 1, lines[l], &a, &n).is_err(),
                "{}",
                lines[l]
            );
        }
    }

    /// Short names (packed, open addressing) and long names (string map) are found, and
    /// nothing else is: names of 1 to 17 bytes, non-ASCII, prefixes and extensions of names.
    #[test]
    fn letter_names_are_found_exactly() {
        let names: Vec<String> = [
            "a",
            "ab",
            "abcdefgh",
            "abcdefghi",
            "clt1!begin",
            "abcdefghijklmnop",
            "abcdefghijklmnopq",
            "\u{e9}",
            "l1!m1",
            "x\0y",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain((0..300).map(|i| format!("a{i}")))
        .collect();
        let n = names.len();
        let a = Alphabet::new(names.clone(), vec![LocationId(0); n], vec!["l".into()]).unwrap();
        let index = NameIndex::new(&a);
        for (i, name) in names.iter().enumerate() {
            assert_eq!(index.letter(name), Some(LetterId(i as u32)), "{name}");
        }
        for absent in [
            "",
            "b",
            "abc",
            "abcdefg",
            "abcdefghij",
            "clt1!begi",
            "clt1!begin\0",
            "abcdefghijklmno",
            "abcdefghijklmnopqr",
            "e",
            "a300",
            "x",
            "x\0",
            "a1000",
        ] {
            assert_eq!(index.letter(absent), None, "{absent}");
        }
        // The scanner packs names while it reads them: the same letters.
        for (i, name) in names.iter().enumerate().filter(|(_, n)| !n.contains('\0')) {
            let line = format!(r#"{{"traces": {{"l": ["{name}", "a7"]}}}}"#);
            let (_, t) = fast_line(&line, &a, &index).unwrap();
            assert_eq!(
                t[0],
                [LetterId(i as u32), index.letter("a7").unwrap()],
                "{line}"
            );
        }
        for absent in ["", "b", "abcdefg", "abcdefghij", "a300", "x"] {
            let line = format!(r#"{{"traces": {{"l": ["{absent}"]}}}}"#);
            assert!(fast_line(&line, &a, &index).is_none(), "{line}");
        }
    }
}
