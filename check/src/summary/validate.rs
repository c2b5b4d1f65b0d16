//! A summary checked against a model ([`Summary`]): every field of the wire form validated,
//! letters resolved to the location's, the area decoded.

use super::error::{SummaryError, SummaryErrorKind};
use super::spans::Spans;
use super::wire::{mode_name, LocalSummary, FORMAT, VERSION};
use multitrace_model::model::CompiledModel;
use multitrace_model::nfa::{Alphabet, LetterId, LocationId};
use multitrace_model::syntax::line_column;
use multitrace_model::verdict::Mode;
use rustc_hash::FxHashMap;

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

/// A summary read and validated against a model by [`read_summary`](super::read_summary) (or made from one by
/// [`Summary::from_local`]). Two summaries are equal when they say the same thing from the
/// same file (where the fields stood in it does not count).
#[derive(Clone, Debug)]
pub struct Summary {
    pub(super) file: String,
    /// Where the `location` and `mode` values are in the file, for errors about the set.
    pub(super) location_at: Option<(u32, u32)>,
    pub(super) mode_at: Option<(u32, u32)>,
    pub(super) digest: u64,
    pub(super) location: LocationId,
    pub(super) mode: Mode,
    pub(super) trace: Vec<LetterId>,
    pub(super) result: LocalResult,
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
    /// The file it was read from (as named to [`read_summary`](super::read_summary)).
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

    /// Validates a summary already in memory (as [`read_summary`](super::read_summary) does, without positions).
    pub fn from_local(
        file: &str,
        summary: &LocalSummary,
        model: &CompiledModel,
    ) -> Result<Summary, SummaryError> {
        validate(file, "", &Spans::default(), summary, model)
    }

    /// The wire form of this summary (what [`local_summary`](crate::semi::local_summary) wrote for it).
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
    /// [`read_summary`](super::read_summary) established, checked again before the central step uses it.
    pub(super) fn fits(&self, model: &CompiledModel) -> Result<(), SummaryError> {
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

/// Checks a parsed summary against the model.
pub(super) fn validate(
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
