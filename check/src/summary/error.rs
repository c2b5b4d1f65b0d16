//! What can be wrong with a summary or a set of summaries, and where: [`SummaryError`].

use super::spans::FIELDS;
use super::wire::{mode_name, FORMAT, VERSION};
use multitrace_model::syntax::{describe_char, line_column, name_list};
use multitrace_model::verdict::Mode;
use std::fmt;

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
    pub(crate) fn new(kind: SummaryErrorKind) -> Self {
        SummaryError {
            file: None,
            position: None,
            field: None,
            kind: Box::new(kind),
        }
    }

    pub(crate) fn in_file(file: &str, kind: SummaryErrorKind) -> Self {
        SummaryError {
            file: Some(file.to_string()),
            ..SummaryError::new(kind)
        }
    }

    /// Sets the position from a byte offset of `text`, when there is one.
    pub(crate) fn at(mut self, text: &str, offset: Option<usize>) -> Self {
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
    /// A letter id out of the location ([`local_summary`](crate::semi::local_summary) given a trace of another location).
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
