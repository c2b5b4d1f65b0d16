//! Local summaries: what a `local` host sends to `central` in distributed AS (seed 004's
//! architecture).
//!
//! A summary is one JSON object ([`LocalSummary`], written by [`write_summary`]):
//!
//! ```json
//! {
//!   "format": "multitrace-local-summary", "version": 1,
//!   "digest": "215e7e4e6b4bda09", "location": "clt1", "mode": "complete",
//!   "trace": ["clt1!begin", "clt1!pub", "clt1!end"],
//!   "verdict": "Pass", "position": null, "expected": [], "area": "0000000000007ef7"
//! }
//! ```
//!
//! `area` (for a `Pass`) is `Area(μi)`: one 16-digit hexadecimal word per 64 transitions of the
//! model's NFA, least significant transition first; `position` (from 0) and `expected` (for a
//! `LocalError`) say where the local verifier rejected the trace and what it could read there.
//!
//! A summary comes from another host, so [`read_summary`] trusts nothing: JSON structure,
//! every field's type, format and version, the digest (the same compiled model), the location,
//! the mode, every letter of the trace and of `expected` (a letter of that location), the
//! verdict and the fields it needs, the position (within the trace), the hexadecimal digits of
//! the area (ASCII only), its number of words and its bits (transitions of the model). Every
//! error is a [`SummaryError`] naming the file and, where possible, the line, column and
//! field. [`SummarySet::new`] then checks that the summaries fit together: one per location,
//! all in the same mode. The central step itself is [`crate::check::semi::central_check`].

use crate::check::semi::{local_check, LocalOutcome};
use crate::model::CompiledModel;
use crate::nfa::{Alphabet, LetterId, LocationId};
use crate::syntax::{describe_char, line_column, name_list};
use crate::verdict::Mode;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The `format` field of every summary.
pub const FORMAT: &str = "multitrace-local-summary";

/// The summary format version this crate writes and reads.
pub const VERSION: u32 = 1;

/// A local summary as written on disk (the wire format; see the module documentation). Read
/// one with [`read_summary`], which validates it against the model.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LocalSummary {
    /// Always [`FORMAT`].
    pub format: String,
    /// Format version ([`VERSION`]).
    pub version: u32,
    /// Digest of the compiled model, as 16 hexadecimal digits.
    pub digest: String,
    /// The location's name.
    pub location: String,
    /// `"complete"` or `"prefix"`.
    pub mode: String,
    /// The local trace, as letter names.
    pub trace: Vec<String>,
    /// `"Pass"` or `"LocalError"`.
    pub verdict: String,
    /// For a LocalError: the first position (from 0) that cannot be read, or the trace length
    /// when the trace ends where it may not.
    pub position: Option<usize>,
    /// For a LocalError: the letters readable there.
    pub expected: Vec<String>,
    /// For a Pass: `Area(μi)` as hexadecimal 64-bit words, least significant transition first.
    pub area: Option<String>,
}

/// The name of a mode in summaries.
pub fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Complete => "complete",
        Mode::Prefix => "prefix",
    }
}

/// The local step of distributed AS: checks `trace` (letters of location `k`) on `k`'s local
/// verifier and returns the summary to send to the central verifier.
pub fn local_summary(
    model: &CompiledModel,
    k: LocationId,
    trace: &[LetterId],
    mode: Mode,
) -> Result<LocalSummary, SummaryError> {
    let automata = model
        .automata()
        .ok_or_else(|| SummaryError::new(SummaryErrorKind::TermOnly))?;
    let alphabet = &model.alphabet;
    let dfa = automata.projections.get(k.index()).ok_or_else(|| {
        SummaryError::new(SummaryErrorKind::LocationOutOfRange {
            index: k.index(),
            locations: alphabet.locations(),
        })
    })?;
    if let Some((index, &l)) = trace
        .iter()
        .enumerate()
        .find(|(_, &l)| l.index() >= alphabet.len() || alphabet.location(l) != k)
    {
        return Err(SummaryError::new(SummaryErrorKind::LetterOutOfLocation {
            index,
            letter: l.index(),
        }));
    }
    let mut area = vec![0u64; automata.areas.words()];
    let mut seen = Vec::new();
    let outcome = local_check(automata, dfa, alphabet, trace, mode, &mut area, &mut seen);
    let names = |ls: &[LetterId]| -> Vec<String> {
        ls.iter().map(|&l| alphabet.name(l).to_string()).collect()
    };
    let mut s = LocalSummary {
        format: FORMAT.into(),
        version: VERSION,
        digest: format!("{:016x}", model.digest),
        location: alphabet.location_name(k).to_string(),
        mode: mode_name(mode).into(),
        trace: names(trace),
        verdict: "Pass".into(),
        position: None,
        expected: Vec::new(),
        area: None,
    };
    match outcome {
        LocalOutcome::Pass { .. } => {
            s.area = Some(area.iter().map(|w| format!("{w:016x}")).collect());
        }
        LocalOutcome::Error { position, expected } => {
            s.verdict = "LocalError".into();
            s.position = Some(position);
            s.expected = names(&expected);
        }
    }
    Ok(s)
}

/// Writes a summary as pretty-printed JSON followed by a newline.
pub fn write_summary(summary: &LocalSummary, out: &mut impl std::io::Write) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, summary).map_err(std::io::Error::other)?;
    out.write_all(b"\n")
}

/// What a local verifier found, validated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LocalResult {
    /// The local trace passes.
    Pass {
        /// `Area(μi)`: one bit per NFA transition, exactly the model's number of words, no
        /// bit past the last transition.
        area: Vec<u64>,
    },
    /// The local trace is rejected (LocalError).
    LocalError {
        /// First position (from 0) that cannot be read, at most the trace's length.
        position: usize,
        /// Letters of the location readable there.
        expected: Vec<LetterId>,
    },
}

/// A summary read and validated against a model by [`read_summary`] (or made from one by
/// [`Summary::from_local`]). Two summaries are equal when they say the same thing from the
/// same file (where the fields stood in it does not count).
#[derive(Clone, Debug)]
pub struct Summary {
    file: String,
    /// Where the `location` and `mode` values are in the file, for errors about the set.
    location_at: Option<(u32, u32)>,
    mode_at: Option<(u32, u32)>,
    digest: u64,
    location: LocationId,
    mode: Mode,
    trace: Vec<LetterId>,
    result: LocalResult,
}

impl PartialEq for Summary {
    fn eq(&self, other: &Self) -> bool {
        (
            &self.file,
            self.digest,
            self.location,
            self.mode,
            &self.trace,
            &self.result,
        ) == (
            &other.file,
            other.digest,
            other.location,
            other.mode,
            &other.trace,
            &other.result,
        )
    }
}

impl Eq for Summary {}

impl Summary {
    /// The file it was read from (as named to [`read_summary`]).
    pub fn file(&self) -> &str {
        &self.file
    }
    /// The model's digest.
    pub fn digest(&self) -> u64 {
        self.digest
    }
    /// The location.
    pub fn location(&self) -> LocationId {
        self.location
    }
    /// The mode the local check ran in.
    pub fn mode(&self) -> Mode {
        self.mode
    }
    /// The local trace (letters of the location).
    pub fn trace(&self) -> &[LetterId] {
        &self.trace
    }
    /// The local verdict.
    pub fn result(&self) -> &LocalResult {
        &self.result
    }
    /// `"Pass"` or `"LocalError"`.
    pub fn verdict_name(&self) -> &'static str {
        match self.result {
            LocalResult::Pass { .. } => "Pass",
            LocalResult::LocalError { .. } => "LocalError",
        }
    }

    /// Validates a summary already in memory (as [`read_summary`] does, without positions).
    pub fn from_local(
        file: &str,
        summary: &LocalSummary,
        model: &CompiledModel,
    ) -> Result<Summary, SummaryError> {
        validate(file, "", &Spans::default(), summary, model)
    }

    /// The wire form of this summary (what [`local_summary`] wrote for it).
    pub fn to_local(&self, model: &CompiledModel) -> LocalSummary {
        let alphabet = &model.alphabet;
        let name = |l: &LetterId| alphabet.names().get(l.index()).cloned().unwrap_or_default();
        let (verdict, position, expected, area) = match &self.result {
            LocalResult::Pass { area } => (
                "Pass",
                None,
                Vec::new(),
                Some(area.iter().map(|w| format!("{w:016x}")).collect()),
            ),
            LocalResult::LocalError { position, expected } => (
                "LocalError",
                Some(*position),
                expected.iter().map(name).collect(),
                None,
            ),
        };
        LocalSummary {
            format: FORMAT.into(),
            version: VERSION,
            digest: format!("{:016x}", self.digest),
            location: alphabet
                .location_names()
                .get(self.location.index())
                .cloned()
                .unwrap_or_default(),
            mode: mode_name(self.mode).into(),
            trace: self.trace.iter().map(name).collect(),
            verdict: verdict.into(),
            position,
            expected,
            area,
        }
    }

    /// Whether this summary fits `model`'s tables (letters of its location, area width): what
    /// [`read_summary`] established, checked again before the central step uses it.
    fn fits(&self, model: &CompiledModel) -> Result<(), SummaryError> {
        let alphabet = &model.alphabet;
        let automata = model
            .automata()
            .ok_or_else(|| SummaryError::new(SummaryErrorKind::TermOnly))?;
        let own =
            |l: &LetterId| l.index() < alphabet.len() && alphabet.location(*l) == self.location;
        let area_ok = match &self.result {
            LocalResult::Pass { area } => area.len() == automata.areas.words(),
            LocalResult::LocalError { position, expected } => {
                *position <= self.trace.len() && expected.iter().all(own)
            }
        };
        if self.digest != model.digest
            || self.location.index() >= alphabet.locations()
            || !area_ok
            || !self.trace.iter().all(own)
        {
            return Err(SummaryError::in_file(
                &self.file,
                SummaryErrorKind::OtherModel {
                    found: self.digest,
                    model: model.digest,
                },
            ));
        }
        Ok(())
    }
}

/// Reads and validates the summary `text` (the contents of `file`) against `model`.
pub fn read_summary(
    file: &str,
    text: &str,
    model: &CompiledModel,
) -> Result<Summary, SummaryError> {
    let spans = Spans::of(text);
    // serde would also take a struct from an array of its fields: only an object is a summary.
    let start = text.len() - text.trim_start().len();
    if !text[start..].is_empty() && !text[start..].starts_with('{') {
        return Err(match serde_json::from_str::<serde_json::Value>(text) {
            Err(_) => {
                let found = text[start..]
                    .chars()
                    .next()
                    .map_or_else(String::new, describe_char);
                let message = format!("found {found}, expected `{{`");
                SummaryError::in_file(file, SummaryErrorKind::Syntax { message })
                    .at(text, Some(start))
            }
            Ok(v) => {
                let found = match v {
                    serde_json::Value::Array(_) => "an array",
                    serde_json::Value::String(_) => "a string",
                    serde_json::Value::Number(_) => "a number",
                    serde_json::Value::Bool(_) => "a boolean",
                    _ => "null",
                };
                let message = format!("found {found}, expected a JSON object");
                SummaryError::in_file(file, SummaryErrorKind::Shape { message })
                    .at(text, Some(start))
            }
        });
    }
    let wire: LocalSummary = match serde_json::from_str(text) {
        Ok(w) => w,
        Err(e) => return Err(json_error(file, text, &spans, &e)),
    };
    validate(file, text, &spans, &wire, model)
}

/// A serde error as a located [`SummaryError`].
fn json_error(file: &str, text: &str, spans: &Spans, e: &serde_json::Error) -> SummaryError {
    use serde_json::error::Category;
    // serde_json counts columns in bytes; locate the byte and count characters instead.
    // At the end of the input, point after its last character (serde points at it).
    let offset = match e.classify() {
        Category::Eof => text.len(),
        _ => byte_offset(text, e.line(), e.column()),
    };
    let message = e.to_string();
    let message = match message.rfind(" at line ") {
        Some(i) if e.line() > 0 => message[..i].to_string(),
        _ => message,
    };
    let kind = match e.classify() {
        Category::Eof if text.trim().is_empty() => SummaryErrorKind::Empty,
        Category::Eof => SummaryErrorKind::Truncated { message },
        Category::Syntax | Category::Io => SummaryErrorKind::Syntax { message },
        Category::Data => {
            // Say which version it is when the shape differs because the version does.
            #[derive(Deserialize)]
            struct Header {
                format: Option<serde_json::Value>,
                version: Option<serde_json::Value>,
            }
            if let Ok(h) = serde_json::from_str::<Header>(text) {
                if let Some(found) = h
                    .format
                    .as_ref()
                    .and_then(|f| f.as_str())
                    .filter(|&f| f != FORMAT)
                {
                    let found = found.to_string();
                    let mut err = SummaryError::in_file(file, SummaryErrorKind::Format { found });
                    err.field = Some("format");
                    return err.at(text, spans.value("format"));
                }
                if let Some(v) = h
                    .version
                    .as_ref()
                    .filter(|v| v.is_number() && v.as_u64() != Some(u64::from(VERSION)))
                {
                    let mut err = SummaryError::in_file(
                        file,
                        SummaryErrorKind::Version {
                            found: v.to_string(),
                        },
                    );
                    err.field = Some("version");
                    return err.at(text, spans.value("version"));
                }
            }
            SummaryErrorKind::Shape { message }
        }
    };
    let mut err = SummaryError::in_file(file, kind);
    if e.line() > 0 {
        err.field = spans.field_at(offset);
        let (line, column) = line_column(text, offset);
        err.position = Some((line, column));
    }
    err
}

/// The byte offset of serde_json's (line, column), both from 1 (column 0: start of line).
fn byte_offset(text: &str, line: usize, column: usize) -> usize {
    let start = if line <= 1 {
        0
    } else {
        text.match_indices('\n')
            .nth(line - 2)
            .map_or(text.len(), |(i, _)| i + 1)
    };
    start
        .saturating_add(column.saturating_sub(1))
        .min(text.len())
}

/// Checks a parsed summary against the model.
fn validate(
    file: &str,
    text: &str,
    spans: &Spans,
    s: &LocalSummary,
    model: &CompiledModel,
) -> Result<Summary, SummaryError> {
    let alphabet = &model.alphabet;
    let fail = |field: &'static str, kind: SummaryErrorKind| {
        let mut e = SummaryError::in_file(file, kind);
        e.field = Some(field);
        e.at(text, spans.value(field))
    };
    let fail_item = |field: &'static str, index: usize, kind: SummaryErrorKind| {
        let mut e = SummaryError::in_file(file, kind);
        e.field = Some(field);
        e.at(text, spans.item(field, index))
    };
    if s.format != FORMAT {
        return Err(fail(
            "format",
            SummaryErrorKind::Format {
                found: s.format.clone(),
            },
        ));
    }
    if s.version != VERSION {
        return Err(fail(
            "version",
            SummaryErrorKind::Version {
                found: s.version.to_string(),
            },
        ));
    }
    let digest = parse_digest(&s.digest).ok_or_else(|| {
        fail(
            "digest",
            SummaryErrorKind::Digest {
                found: s.digest.clone(),
            },
        )
    })?;
    if digest != model.digest {
        return Err(fail(
            "digest",
            SummaryErrorKind::OtherModel {
                found: digest,
                model: model.digest,
            },
        ));
    }
    let automata = model
        .automata()
        .ok_or_else(|| SummaryError::in_file(file, SummaryErrorKind::TermOnly))?;
    let Some(k) = alphabet
        .location_names()
        .iter()
        .position(|n| *n == s.location)
    else {
        return Err(fail(
            "location",
            SummaryErrorKind::UnknownLocation {
                found: s.location.clone(),
                locations: alphabet.location_names().to_vec(),
            },
        ));
    };
    let location = LocationId(k as u32);
    let mode = match s.mode.as_str() {
        "complete" => Mode::Complete,
        "prefix" => Mode::Prefix,
        _ => {
            return Err(fail(
                "mode",
                SummaryErrorKind::Mode {
                    found: s.mode.clone(),
                },
            ))
        }
    };
    let letters = LetterIndex::new(alphabet, location);
    let read_letters = |field: &'static str, names: &[String]| {
        names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                letters
                    .get(i, name)
                    .map_err(|kind| fail_item(field, i, kind))
            })
            .collect::<Result<Vec<LetterId>, SummaryError>>()
    };
    let trace = read_letters("trace", &s.trace)?;
    let result = match s.verdict.as_str() {
        "Pass" => {
            if s.position.is_some() {
                return Err(fail(
                    "position",
                    SummaryErrorKind::UnexpectedField { verdict: "Pass" },
                ));
            }
            if !s.expected.is_empty() {
                return Err(fail(
                    "expected",
                    SummaryErrorKind::UnexpectedField { verdict: "Pass" },
                ));
            }
            let Some(hex) = s.area.as_deref() else {
                return Err(fail(
                    "area",
                    SummaryErrorKind::MissingField { verdict: "Pass" },
                ));
            };
            let words = automata.areas.words();
            let transitions = automata.nfa.transitions().len();
            let area = parse_area(hex, words, transitions).map_err(|kind| {
                let mut e = SummaryError::in_file(file, kind.clone());
                e.field = Some("area");
                match kind {
                    SummaryErrorKind::AreaDigit { index, .. } => {
                        e.at(text, spans.char_in_string(text, "area", index))
                    }
                    _ => e.at(text, spans.value("area")),
                }
            })?;
            LocalResult::Pass { area }
        }
        "LocalError" => {
            if s.area.is_some() {
                return Err(fail(
                    "area",
                    SummaryErrorKind::UnexpectedField {
                        verdict: "LocalError",
                    },
                ));
            }
            let Some(position) = s.position else {
                return Err(fail(
                    "position",
                    SummaryErrorKind::MissingField {
                        verdict: "LocalError",
                    },
                ));
            };
            if position > trace.len() {
                return Err(fail(
                    "position",
                    SummaryErrorKind::PositionOutOfRange {
                        position,
                        len: trace.len(),
                    },
                ));
            }
            let expected = read_letters("expected", &s.expected)?;
            LocalResult::LocalError { position, expected }
        }
        _ => {
            return Err(fail(
                "verdict",
                SummaryErrorKind::Verdict {
                    found: s.verdict.clone(),
                },
            ))
        }
    };
    let at = |field: &str| {
        spans
            .value(field)
            .filter(|_| !text.is_empty())
            .map(|offset| line_column(text, offset))
    };
    Ok(Summary {
        file: file.to_string(),
        location_at: at("location"),
        mode_at: at("mode"),
        digest,
        location,
        mode,
        trace,
        result,
    })
}

/// Exactly 16 ASCII hexadecimal digits (`u64::from_str_radix` alone would take a `+`).
fn parse_digest(s: &str) -> Option<u64> {
    if s.len() != 16 || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u64::from_str_radix(s, 16).ok()
}

/// `words` 16-digit hexadecimal words (ASCII digits only) with no bit at or past
/// `transitions`.
fn parse_area(hex: &str, words: usize, transitions: usize) -> Result<Vec<u64>, SummaryErrorKind> {
    let mut digits = Vec::with_capacity(hex.len());
    for (index, c) in hex.chars().enumerate() {
        match c.to_digit(16).filter(|_| c.is_ascii()) {
            Some(d) => digits.push(d as u64),
            None => {
                return Err(SummaryErrorKind::AreaDigit {
                    index,
                    found: c,
                    len: hex.chars().count(),
                })
            }
        }
    }
    if digits.len() != words.saturating_mul(16) {
        return Err(SummaryErrorKind::AreaLength {
            digits: digits.len(),
            words,
        });
    }
    let area: Vec<u64> = digits
        .chunks(16)
        .map(|w| w.iter().fold(0u64, |acc, &d| acc << 4 | d))
        .collect();
    // Bits past the last transition must be clear (the compiler never sets them).
    for (w, &word) in area.iter().enumerate() {
        let first = w * 64;
        let valid = transitions.saturating_sub(first).min(64);
        let extra = if valid == 64 { 0 } else { word >> valid };
        if extra != 0 {
            return Err(SummaryErrorKind::AreaOutOfRange {
                transition: first + valid + extra.trailing_zeros() as usize,
                transitions,
            });
        }
    }
    Ok(area)
}

/// The letters of one location by name.
struct LetterIndex<'a> {
    alphabet: &'a Alphabet,
    location: LocationId,
    own: FxHashMap<&'a str, LetterId>,
}

impl<'a> LetterIndex<'a> {
    fn new(alphabet: &'a Alphabet, location: LocationId) -> Self {
        let own = alphabet
            .letters_of(location)
            .iter()
            .map(|&l| (alphabet.name(l), l))
            .collect();
        LetterIndex {
            alphabet,
            location,
            own,
        }
    }

    /// The letter `name`, item `index` of its list.
    fn get(&self, index: usize, name: &str) -> Result<LetterId, SummaryErrorKind> {
        if let Some(&l) = self.own.get(name) {
            return Ok(l);
        }
        let alphabet = self.alphabet;
        let location = alphabet.location_name(self.location).to_string();
        let found = name.to_string();
        Err(match alphabet.letter(name) {
            Some(l) => SummaryErrorKind::LetterOfAnotherLocation {
                index,
                found,
                location,
                owner: alphabet.location_name(alphabet.location(l)).to_string(),
            },
            None => SummaryErrorKind::UnknownLetter {
                index,
                found,
                location,
                letters: alphabet
                    .letters_of(self.location)
                    .iter()
                    .map(|&l| alphabet.name(l).to_string())
                    .collect(),
            },
        })
    }
}

/// Where the top-level fields of a JSON object start (byte offsets), and the items of those
/// that are arrays: enough to locate an error in a field that parsed but does not validate.
#[derive(Default)]
struct Spans {
    fields: Vec<FieldSpan>,
}

struct FieldSpan {
    key: String,
    value: usize,
    end: usize,
    items: Vec<usize>,
}

impl Spans {
    /// Scans `text`; stops quietly where it is not JSON (only well-formed parts are located).
    fn of(text: &str) -> Spans {
        let mut s = Scanner {
            b: text.as_bytes(),
            i: 0,
        };
        let mut fields = Vec::new();
        s.ws();
        if !s.eat(b'{') {
            return Spans { fields };
        }
        loop {
            s.ws();
            let key_start = s.i;
            if s.peek() != Some(b'"') || !s.string() {
                break;
            }
            let key = text
                .get(key_start..s.i)
                .and_then(|raw| serde_json::from_str::<String>(raw).ok())
                .unwrap_or_default();
            s.ws();
            if !s.eat(b':') {
                break;
            }
            s.ws();
            let value = s.i;
            let mut items = Vec::new();
            let ok = if s.peek() == Some(b'[') {
                s.i += 1;
                s.ws();
                if s.eat(b']') {
                    true
                } else {
                    loop {
                        s.ws();
                        items.push(s.i);
                        if !s.value() {
                            break false;
                        }
                        s.ws();
                        if s.eat(b']') {
                            break true;
                        }
                        if !s.eat(b',') {
                            break false;
                        }
                    }
                }
            } else {
                s.value()
            };
            fields.push(FieldSpan {
                key,
                value,
                end: s.i,
                items,
            });
            s.ws();
            if !ok || !s.eat(b',') {
                break;
            }
        }
        Spans { fields }
    }

    fn get(&self, key: &str) -> Option<&FieldSpan> {
        self.fields.iter().find(|f| f.key == key)
    }

    /// Where the value of `key` starts.
    fn value(&self, key: &str) -> Option<usize> {
        self.get(key).map(|f| f.value)
    }

    /// Where item `index` of the array `key` starts (else the array).
    fn item(&self, key: &str, index: usize) -> Option<usize> {
        let f = self.get(key)?;
        Some(f.items.get(index).copied().unwrap_or(f.value))
    }

    /// Where character `index` of the string value of `key` is, when the string has no
    /// escapes (else where the string starts).
    fn char_in_string(&self, text: &str, key: &str, index: usize) -> Option<usize> {
        let f = self.get(key)?;
        let raw = text.get(f.value + 1..f.end.saturating_sub(1))?;
        if !text.get(f.value..).is_some_and(|t| t.starts_with('"')) || raw.contains('\\') {
            return Some(f.value);
        }
        Some(
            raw.char_indices()
                .nth(index)
                .map_or(f.value, |(i, _)| f.value + 1 + i),
        )
    }

    /// The field whose value holds byte `offset`.
    fn field_at(&self, offset: usize) -> Option<&'static str> {
        let f = self
            .fields
            .iter()
            .find(|f| f.value <= offset && offset <= f.end)?;
        FIELDS.iter().copied().find(|&k| k == f.key)
    }
}

/// The fields of a summary, in the order written.
const FIELDS: [&str; 10] = [
    "format", "version", "digest", "location", "mode", "trace", "verdict", "position", "expected",
    "area",
];

/// A cursor over JSON bytes that skips values without decoding them.
struct Scanner<'a> {
    b: &'a [u8],
    i: usize,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }
    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            self.i += 1;
        }
    }
    /// A string starting at the cursor (on its `"`); false when it does not end.
    fn string(&mut self) -> bool {
        self.i += 1;
        loop {
            match self.peek() {
                None => return false,
                Some(b'\\') => self.i += 2,
                Some(b'"') => {
                    self.i += 1;
                    return true;
                }
                Some(_) => self.i += 1,
            }
        }
    }
    /// Any value; false when it does not end.
    fn value(&mut self) -> bool {
        match self.peek() {
            None => false,
            Some(b'"') => self.string(),
            Some(b'{' | b'[') => {
                let mut depth = 0usize;
                loop {
                    match self.peek() {
                        None => return false,
                        Some(b'"') => {
                            if !self.string() {
                                return false;
                            }
                            continue;
                        }
                        Some(b'{' | b'[') => depth += 1,
                        Some(b'}' | b']') => {
                            depth = depth.saturating_sub(1);
                            if depth == 0 {
                                self.i += 1;
                                return true;
                            }
                        }
                        Some(_) => {}
                    }
                    self.i += 1;
                }
            }
            Some(_) => {
                let start = self.i;
                while !matches!(
                    self.peek(),
                    None | Some(b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n')
                ) {
                    self.i += 1;
                }
                self.i > start
            }
        }
    }
}

/// Summaries that fit together: one per location of the model, all made in the same mode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SummarySet {
    mode: Mode,
    digest: u64,
    by_location: Vec<Summary>,
}

impl SummarySet {
    /// Checks that `summaries` (each read against `model`) are one per location and in one
    /// mode; orders them by location.
    pub fn new(model: &CompiledModel, summaries: Vec<Summary>) -> Result<Self, SummaryError> {
        let alphabet = &model.alphabet;
        let n = alphabet.locations();
        let mut slots: Vec<Option<Summary>> = vec![None; n];
        let mut first: Option<(Mode, String)> = None;
        for s in summaries {
            s.fits(model)?;
            match &first {
                Some((mode, file)) if *mode != s.mode => {
                    let mut e = SummaryError::in_file(
                        &s.file,
                        SummaryErrorKind::ModeMismatch {
                            found: s.mode,
                            expected: *mode,
                            first: file.clone(),
                        },
                    );
                    e.field = Some("mode");
                    e.position = s.mode_at;
                    return Err(e);
                }
                Some(_) => {}
                None => first = Some((s.mode, s.file.clone())),
            }
            let k = s.location.index();
            let Some(slot) = slots.get_mut(k) else {
                return Err(SummaryError::new(SummaryErrorKind::LocationOutOfRange {
                    index: k,
                    locations: n,
                }));
            };
            if let Some(other) = slot {
                let mut e = SummaryError::in_file(
                    &s.file,
                    SummaryErrorKind::DuplicateLocation {
                        location: alphabet.location_name(s.location).to_string(),
                        first: other.file.clone(),
                    },
                );
                e.field = Some("location");
                e.position = s.location_at;
                return Err(e);
            }
            *slot = Some(s);
        }
        let read: Vec<(String, String)> = slots
            .iter()
            .flatten()
            .map(|s| {
                (
                    alphabet.location_name(s.location).to_string(),
                    s.file.clone(),
                )
            })
            .collect();
        let missing: Vec<String> = slots
            .iter()
            .enumerate()
            .filter(|(_, s)| s.is_none())
            .map(|(k, _)| alphabet.location_name(LocationId(k as u32)).to_string())
            .collect();
        if !missing.is_empty() {
            return Err(SummaryError::new(SummaryErrorKind::MissingLocations {
                missing,
                read,
            }));
        }
        Ok(SummarySet {
            mode: first.map_or(Mode::default(), |(m, _)| m),
            digest: model.digest,
            by_location: slots.into_iter().flatten().collect(),
        })
    }

    /// The mode of every summary.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The summaries, one per location, in location order.
    pub fn summaries(&self) -> &[Summary] {
        &self.by_location
    }

    /// Checks again that the set fits `model` (the central step runs on it).
    pub fn fits(&self, model: &CompiledModel) -> Result<(), SummaryError> {
        if self.by_location.len() != model.alphabet.locations() || self.digest != model.digest {
            return Err(SummaryError::new(SummaryErrorKind::OtherModel {
                found: self.digest,
                model: model.digest,
            }));
        }
        self.by_location.iter().try_for_each(|s| s.fits(model))
    }
}

/// A summary (or a set of summaries) that cannot be used, and where.
///
/// Displayed as `FILE:LINE:COLUMN: field `NAME`: WHAT` (the parts that are known), then how
/// to fix it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SummaryError {
    /// The summary file, when the error is in one.
    pub file: Option<String>,
    /// Line and column (from 1, column in characters) in that file, when known.
    pub position: Option<(u32, u32)>,
    /// The field of the summary, when the error is in one.
    pub field: Option<&'static str>,
    /// What is wrong (boxed: the error stays small on the success path).
    pub kind: Box<SummaryErrorKind>,
}

impl SummaryError {
    fn new(kind: SummaryErrorKind) -> Self {
        SummaryError {
            file: None,
            position: None,
            field: None,
            kind: Box::new(kind),
        }
    }

    fn in_file(file: &str, kind: SummaryErrorKind) -> Self {
        SummaryError {
            file: Some(file.to_string()),
            ..SummaryError::new(kind)
        }
    }

    /// Sets the position from a byte offset of `text`, when there is one.
    fn at(mut self, text: &str, offset: Option<usize>) -> Self {
        if let Some(offset) = offset.filter(|_| !text.is_empty()) {
            self.position = Some(line_column(text, offset));
        }
        self
    }
}

impl fmt::Display for SummaryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.file {
            match self.position {
                Some((line, column)) => write!(f, "{file}:{line}:{column}: ")?,
                None => write!(f, "{file}: ")?,
            }
        }
        if let Some(field) = self.field {
            write!(f, "field `{field}`: ")?;
        }
        write!(f, "{}", self.kind)
    }
}

impl std::error::Error for SummaryError {}

/// What is wrong with a summary or a set of summaries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SummaryErrorKind {
    /// The file is empty.
    Empty,
    /// The file is not JSON.
    Syntax {
        /// The JSON reader's message.
        message: String,
    },
    /// The file ends inside the JSON object.
    Truncated {
        /// The JSON reader's message.
        message: String,
    },
    /// JSON, but not the shape of a summary: a missing, unknown or repeated field, or a
    /// field of the wrong type.
    Shape {
        /// The JSON reader's message.
        message: String,
    },
    /// The `format` field is not [`FORMAT`].
    Format {
        /// The format found.
        found: String,
    },
    /// Another format version.
    Version {
        /// The version found (as written).
        found: String,
    },
    /// The digest is not 16 hexadecimal digits.
    Digest {
        /// The digest found.
        found: String,
    },
    /// The summary (or set) was made with another compiled model.
    OtherModel {
        /// Its digest.
        found: u64,
        /// The model's digest.
        model: u64,
    },
    /// Neither `complete` nor `prefix`.
    Mode {
        /// The mode found.
        found: String,
    },
    /// Not a location of the model.
    UnknownLocation {
        /// The name found.
        found: String,
        /// The model's locations.
        locations: Vec<String>,
    },
    /// A name in `trace` or `expected` that is no letter of the model.
    UnknownLetter {
        /// Its index in the list (from 0).
        index: usize,
        /// The name found.
        found: String,
        /// The summary's location.
        location: String,
        /// The letters of that location.
        letters: Vec<String>,
    },
    /// A letter of another location in `trace` or `expected`.
    LetterOfAnotherLocation {
        /// Its index in the list (from 0).
        index: usize,
        /// The letter.
        found: String,
        /// The summary's location.
        location: String,
        /// The letter's location.
        owner: String,
    },
    /// Neither `Pass` nor `LocalError`.
    Verdict {
        /// The verdict found.
        found: String,
    },
    /// A field the verdict needs is `null` or missing.
    MissingField {
        /// The verdict.
        verdict: &'static str,
    },
    /// A field the verdict does not have is set.
    UnexpectedField {
        /// The verdict.
        verdict: &'static str,
    },
    /// A LocalError position past the end of the trace.
    PositionOutOfRange {
        /// The position.
        position: usize,
        /// The trace's length.
        len: usize,
    },
    /// A character of the area that is not an ASCII hexadecimal digit.
    AreaDigit {
        /// Its index in the string, in characters from 0.
        index: usize,
        /// The character.
        found: char,
        /// The string's length in characters.
        len: usize,
    },
    /// The area does not have one 16-digit word per 64 transitions of the model.
    AreaLength {
        /// Digits found.
        digits: usize,
        /// Words expected.
        words: usize,
    },
    /// The area names a transition the model does not have.
    AreaOutOfRange {
        /// The first such transition (from 0).
        transition: usize,
        /// The model's number of transitions.
        transitions: usize,
    },
    /// A letter id out of the location ([`local_summary`] given a trace of another location).
    LetterOutOfLocation {
        /// Its index in the trace.
        index: usize,
        /// The letter id.
        letter: usize,
    },
    /// A location index out of range.
    LocationOutOfRange {
        /// The index.
        index: usize,
        /// The model's number of locations.
        locations: usize,
    },
    /// Two summaries for one location.
    DuplicateLocation {
        /// The location.
        location: String,
        /// The file of the first one.
        first: String,
    },
    /// Summaries made in different modes.
    ModeMismatch {
        /// This summary's mode.
        found: Mode,
        /// The first summary's mode.
        expected: Mode,
        /// The first summary's file.
        first: String,
    },
    /// Locations without a summary.
    MissingLocations {
        /// Their names.
        missing: Vec<String>,
        /// The summaries given: location and file.
        read: Vec<(String, String)>,
    },
    /// A term-only model has no local verifiers.
    TermOnly,
}

const WRITTEN_BY: &str = "a summary is the JSON object written by `multitrace local ... -o FILE`";

impl fmt::Display for SummaryErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use SummaryErrorKind::*;
        match self {
            Empty => write!(f, "empty file, not a local summary; {WRITTEN_BY}"),
            Syntax { message } => write!(f, "not JSON: {message}; {WRITTEN_BY}"),
            Truncated { message } => write!(
                f,
                "the summary is cut short ({message}); copy the file again or rerun `multitrace local`"
            ),
            Shape { message } => write!(
                f,
                "not a local summary: {message}; {WRITTEN_BY}, with the fields {}",
                FIELDS.join(", ")
            ),
            Format { found } => write!(
                f,
                "`{found}` is not a local summary (format `{FORMAT}`); {WRITTEN_BY}"
            ),
            Version { found } => write!(
                f,
                "summary format version {found}, this multitrace reads version {VERSION}; \
                 rerun `multitrace local` with the same multitrace as `central`"
            ),
            Digest { found } => write!(
                f,
                "`{found}` is not a model digest (16 hexadecimal digits); {WRITTEN_BY}"
            ),
            OtherModel { found, model } => write!(
                f,
                "made with another model (digest {found:016x}, this model {model:016x}); run \
                 `multitrace local` and `multitrace central` with the same compiled model \
                 (compile it once with `multitrace compile` and copy the .mtm to every host)"
            ),
            Mode { found } => write!(
                f,
                "unknown mode `{found}`; expected `complete` or `prefix`"
            ),
            UnknownLocation { found, locations } => write!(
                f,
                "unknown location `{found}`; this model's locations are {}",
                name_list(locations)
            ),
            UnknownLetter {
                index,
                found,
                location,
                letters,
            } => write!(
                f,
                "item {} `{found}` is not a letter of this model; the letters of {location} \
                 are {}",
                index + 1,
                name_list(letters)
            ),
            LetterOfAnotherLocation {
                index,
                found,
                location,
                owner,
            } => write!(
                f,
                "item {} `{found}` is a letter of location {owner}, not of {location}; \
                 give each host's `local` the trace of its own location",
                index + 1
            ),
            Verdict { found } => write!(
                f,
                "unknown verdict `{found}`; expected `Pass` or `LocalError`"
            ),
            MissingField { verdict } => write!(
                f,
                "a `{verdict}` summary needs this field; {WRITTEN_BY}"
            ),
            UnexpectedField { verdict } => write!(
                f,
                "a `{verdict}` summary does not have this field (null or [] expected); \
                 {WRITTEN_BY}"
            ),
            PositionOutOfRange { position, len } => write!(
                f,
                "position {position} is past the end of the trace ({len} actions); \
                 rerun `multitrace local`"
            ),
            AreaDigit { index, found, len } => write!(
                f,
                "character {} of {len}, {}, is not a hexadecimal digit (0-9, a-f); \
                 rerun `multitrace local` or copy the file again",
                index + 1,
                describe_char(*found)
            ),
            AreaLength { digits, words } => {
                write!(f, "{digits} hexadecimal digits")?;
                if digits % 16 != 0 {
                    write!(f, " (not a whole number of 16-digit words)")?;
                }
                write!(
                    f,
                    ", this model's areas take {} ({words} word{} of 16 digits, one bit per \
                     transition); was the summary made with this model?",
                    words * 16,
                    if *words == 1 { "" } else { "s" }
                )
            }
            AreaOutOfRange {
                transition,
                transitions,
            } => write!(
                f,
                "the area names transition {transition}, this model has {transitions} \
                 transitions; rerun `multitrace local` or copy the file again"
            ),
            LetterOutOfLocation { index, letter } => write!(
                f,
                "letter id {letter} (item {} of the trace) is not a letter of the location",
                index + 1
            ),
            LocationOutOfRange { index, locations } => write!(
                f,
                "location index {index} out of range (the model has {locations} locations)"
            ),
            DuplicateLocation { location, first } => write!(
                f,
                "a second summary for location {location} (the first is {first}); give one \
                 summary per location"
            ),
            ModeMismatch {
                found,
                expected,
                first,
            } => write!(
                f,
                "made in {} mode, but {first} was made in {} mode; run every `multitrace \
                 local` with the same --mode",
                mode_name(*found),
                mode_name(*expected)
            ),
            MissingLocations { missing, read } => {
                let read: Vec<String> = read.iter().map(|(l, p)| format!("{l} ({p})")).collect();
                write!(
                    f,
                    "no summary for location(s) {}; summaries given: {}; run `multitrace local \
                     MODEL --location L TRACE -o FILE` for each missing location and give every \
                     summary to `central`",
                    missing.join(", "),
                    name_list(read)
                )
            }
            TermOnly => write!(
                f,
                "this model is term-only: it has no local verifiers, and distributed AS needs \
                 them; use `multitrace check --procedure term`"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::explore::Budget;
    use crate::check::semi::central_check;
    use crate::check::Engine;
    use crate::model::{Automata, CompileStats, ModelKind, Origin};
    use crate::nfa::{Nfa, StateId, Transition};
    use crate::project::{bits, AreaId, AreaTable, ProjDfa, NO_STATE};
    use crate::verdict::{Reason, VerdictKind};

    /// Seed 004's MQTT-like protocol (locations clt1, brok, clt2; 15 transitions: one word).
    fn mqtt() -> CompiledModel {
        crate::artifact::decode(include_bytes!("../../fixtures/golden/seed004-mqtt.v1.mtm"))
            .unwrap()
    }

    /// One location `l` with the letter `a`; the NFA reads `a` exactly `n` times, so that its
    /// areas take `n.div_ceil(64)` words.
    fn chain(n: usize) -> CompiledModel {
        let alphabet =
            Alphabet::new(vec!["a".into()], vec![LocationId(0)], vec!["l".into()]).unwrap();
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
            areas.push(&b)
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
            0x0123_4567_89ab_cdef,
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

    fn central(model: CompiledModel, set: &SummarySet) -> crate::verdict::Verdict {
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
        assert!(
            matches!(&kind, SummaryErrorKind::UnknownLocation { found, .. } if found == "clt9")
        );
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
            crate::artifact::decode(include_bytes!("../../fixtures/golden/loopP.v1.mtm")).unwrap();
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
}
