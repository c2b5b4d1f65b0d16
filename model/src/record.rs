//! The verdict record: one per input multitrace, written the same by every front end.
//!
//! A [`Record`] is what a user builds on: the command line prints it as one text line
//! ([`Record::text_line`]) or as one JSON object per line ([`Record::to_json`]); the Python
//! package returns the same fields. The JSON layout is a versioned contract
//! ([`RECORD_SCHEMA`]): keys always present, always in the order of the fields below, `null`
//! where a field does not apply. Positions count from 1, like the positions of parse errors.
//!
//! Invariants: `verdict` is `Error` exactly when `error` is set (the input could not be read or
//! checked); `diagnosis` is set for a Fail, and for a WeakPass (the diagnosis of the same
//! multitrace in complete mode: every action consumed, and what each location could still
//! do), else `null`; `local_error` only for a LocalError;
//! `budget` only for Inconclusive.

use crate::syntax::ParseError;
use crate::verdict::Procedure;
use crate::verdict::{Blocked, Diagnosis, Reason, Sym, Verdict, VerdictKind};
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use std::time::Duration;

/// Version of the record layout; bumped when a key changes meaning or disappears.
pub const RECORD_SCHEMA: u32 = 1;

/// One multitrace's result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Record {
    /// Always [`RECORD_SCHEMA`].
    pub schema: u32,
    /// Where the multitrace was read: a file path, or `FILE:LINE` for a JSON Lines input.
    pub trace: String,
    /// The `id` of a JSON Lines multitrace (`null` for files and lines without one).
    pub id: Option<String>,
    /// `Pass`, `WeakPass`, `Fail`, `Inconclusive`, or `Error` (unreadable input).
    pub verdict: String,
    /// `ac`, `as` or `term` (`null` for an Error).
    pub procedure: Option<String>,
    /// For a Fail: `LocalError`, `InterError` or `CentralError` (AS's classification); for
    /// Inconclusive: `Budget`.
    pub reason: Option<String>,
    /// One human-readable sentence: why it failed, which budget ran out, or the error.
    pub explanation: Option<String>,
    /// For a LocalError: where the location's local verifier rejected its trace alone.
    pub local_error: Option<BlockedRecord>,
    /// For a Fail: the diagnosis (the same for every procedure); for a WeakPass: what each
    /// location could still do (the complete-mode diagnosis).
    pub diagnosis: Option<DiagnosisRecord>,
    /// For Inconclusive: the budget that ran out.
    pub budget: Option<BudgetRecord>,
    /// For an Error: what could not be read and where.
    pub error: Option<ErrorRecord>,
    /// With `--witness`, for a Pass: one accepted global interleaving.
    pub witness: Option<Vec<String>>,
    /// Search vertices of the check (the diagnosis counts its own).
    pub vertices: u64,
    /// Wall-clock time of reading and checking this multitrace, in microseconds.
    pub time_us: u64,
}

/// A location's action that cannot happen (or the end of its trace).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BlockedRecord {
    /// The location's name.
    pub location: String,
    /// Position of the action, from 1 (for the end of the trace: its length + 1).
    pub position: usize,
    /// The action found; `null` at the end of the trace.
    pub found: Option<String>,
    /// What the model (or, for `local_error`, the local verifier) allowed there.
    pub allowed: Vec<String>,
}

/// The diagnosis of a Fail.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DiagnosisRecord {
    /// Actions consumed per location at the furthest consistent point (an object whose keys
    /// are the location names, in location order).
    pub consumed: Consumed,
    /// Each location blocked there.
    pub blocked: Vec<BlockedRecord>,
    /// Whether the model allows nothing more at all there.
    pub ended: bool,
    /// Whether the diagnosis budget ran out (the point may then not be the furthest).
    pub partial: bool,
}

/// Location name to count, serialized as a JSON object in location order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Consumed(pub Vec<(String, usize)>);

impl Serialize for Consumed {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

/// The budget that ran out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BudgetRecord {
    /// `vertices`, `time`, `term depth`, `size`, ...
    pub limit: String,
    /// What was established before, e.g. `accepted as a multi-prefix`.
    pub established: Option<String>,
}

/// An input that could not be read or checked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ErrorRecord {
    /// The whole message (`FILE:LINE:COLUMN: ...` when the position is known).
    pub message: String,
    /// The file, when known.
    pub file: Option<String>,
    /// Line, from 1, when known.
    pub line: Option<u32>,
    /// Column in characters, from 1, when known.
    pub column: Option<u32>,
}

impl ErrorRecord {
    /// An error without a known position.
    pub fn message(message: impl Into<String>) -> Self {
        ErrorRecord {
            message: message.into(),
            file: None,
            line: None,
            column: None,
        }
    }
}

impl From<&ParseError> for ErrorRecord {
    fn from(e: &ParseError) -> Self {
        ErrorRecord {
            message: e.to_string(),
            file: Some(e.file.clone()),
            line: Some(e.line),
            column: Some(e.column),
        }
    }
}

/// How a record names things: actions or letters, and locations.
pub struct Names<'a> {
    /// Renders an action or a letter.
    pub render: &'a dyn Fn(Sym) -> String,
    /// Location (component) names, by index.
    pub locations: &'a [String],
}

impl Names<'_> {
    fn location(&self, i: usize) -> String {
        self.locations
            .get(i)
            .cloned()
            .unwrap_or_else(|| format!("#{i}"))
    }

    fn blocked(&self, b: &Blocked) -> BlockedRecord {
        BlockedRecord {
            location: self.location(b.location.index()),
            position: b.position + 1,
            found: b.found.map(self.render),
            allowed: b.allowed.iter().map(|&a| (self.render)(a)).collect(),
        }
    }
}

impl Record {
    fn empty(trace: String, id: Option<String>, verdict: &str, time: Duration) -> Self {
        Record {
            schema: RECORD_SCHEMA,
            trace,
            id,
            verdict: verdict.into(),
            procedure: None,
            reason: None,
            explanation: None,
            local_error: None,
            diagnosis: None,
            budget: None,
            error: None,
            witness: None,
            vertices: 0,
            time_us: time.as_micros().min(u64::MAX as u128) as u64,
        }
    }

    /// The record of a checked multitrace.
    pub fn checked(
        trace: String,
        id: Option<String>,
        verdict: &Verdict,
        procedure: Procedure,
        names: &Names<'_>,
        time: Duration,
    ) -> Self {
        let mut r = Record::empty(trace, id, verdict.kind.name(), time);
        r.procedure = Some(procedure.name().into());
        r.reason = verdict.reason.as_ref().map(|x| x.name().to_string());
        r.vertices = verdict.vertices;
        if let Some(Reason::Budget { limit, established }) = &verdict.reason {
            r.budget = Some(BudgetRecord {
                limit: limit.clone(),
                established: established.clone(),
            });
        }
        if verdict.kind == VerdictKind::Fail {
            r.local_error = verdict
                .diagnosis
                .as_ref()
                .and_then(|d| d.local.as_ref())
                .map(|b| names.blocked(b));
            r.diagnosis = verdict.diagnosis.as_ref().map(|d| DiagnosisRecord {
                consumed: Consumed(
                    d.consumed
                        .iter()
                        .enumerate()
                        .map(|(i, &n)| (names.location(i), n))
                        .collect(),
                ),
                blocked: d.blocked.iter().map(|b| names.blocked(b)).collect(),
                ended: d.ended,
                partial: d.partial,
            });
        }
        r.witness = verdict
            .witness
            .as_ref()
            .map(|w| w.iter().map(|&(_, s)| (names.render)(s)).collect());
        r.explanation = explain(verdict, names);
        r
    }

    /// Names in the explanation the value of the memory budget that ran out (the record of
    /// a verdict does not hold the check's options): `the memory budget of 1.5 GiB
    /// (--max-memory) ran out`. Called by every front end that knows the budget (the batch).
    pub fn name_memory_budget(&mut self, budget: &crate::budget::Budget) {
        let note = "its memory budget (--max-memory) ran out";
        let partial = self.explanation.as_ref().is_some_and(|e| e.contains(note));
        let ran_out = self.budget.as_ref().is_some_and(|b| b.limit == "memory");
        // Asked only when it is named: a deferred default reads the system.
        if !partial && !ran_out {
            return;
        }
        let Some(max) = budget.memory_limit() else {
            return;
        };
        // A diagnosis that ran out of memory (its partial note).
        if let Some(e) = &mut self.explanation {
            if e.contains(note) {
                *e = e.replace(
                    note,
                    &format!(
                        "its memory budget of {} (--max-memory) ran out",
                        bytes_shown(max)
                    ),
                );
            }
        }
        let Some(b) = &self.budget else {
            return;
        };
        if b.limit != "memory" {
            return;
        }
        let ran_out = budget_sentence(&b.limit, self.vertices, Some(max));
        self.explanation = Some(match &b.established {
            Some(e) => format!("{ran_out} ({e})"),
            None => ran_out,
        });
    }

    /// The record of an input that could not be read or checked.
    pub fn error(trace: String, id: Option<String>, error: ErrorRecord, time: Duration) -> Self {
        let mut r = Record::empty(trace, id, "Error", time);
        r.explanation = Some(error.message.clone());
        r.error = Some(error);
        r
    }

    /// The verdict, or `None` for an Error.
    pub fn verdict_kind(&self) -> Option<VerdictKind> {
        [
            VerdictKind::Pass,
            VerdictKind::WeakPass,
            VerdictKind::Fail,
            VerdictKind::Inconclusive,
        ]
        .into_iter()
        .find(|k| k.name() == self.verdict)
    }

    /// The name shown for this multitrace: its file, or for a JSON line its `id` if any.
    pub fn name(&self) -> &str {
        self.id.as_deref().unwrap_or(&self.trace)
    }

    /// One line of JSON (no line break).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a record always serializes")
    }

    /// One line of text (no line break): `NAME: VERDICT`, and for a Fail, an Inconclusive or
    /// an Error, why.
    ///
    /// Control characters of the name and the explanation (which quote ids, file names and
    /// actions from the input) are escaped (`\n`, `\u{1b}`): an id holding a line break
    /// cannot forge a record line, nor an escape sequence reach the terminal.
    pub fn text_line(&self) -> String {
        let mut s = format!("{}: {}", escape_controls(self.name()), self.verdict);
        if let Some(r) = &self.reason {
            s.push_str(&format!(" ({r})"));
        }
        if let Some(e) = &self.explanation {
            s.push_str(": ");
            s.push_str(&escape_controls(e));
        }
        s
    }

    /// [`Self::text_line`] with the verdict word in color for a terminal (ANSI): Pass green,
    /// WeakPass yellow, Fail red, Inconclusive magenta, an Error bold red.
    pub fn colored_text_line(&self) -> String {
        let line = self.text_line();
        let code = match self.verdict_kind() {
            Some(VerdictKind::Pass) => "32",
            Some(VerdictKind::WeakPass) => "33",
            Some(VerdictKind::Fail) => "31",
            Some(VerdictKind::Inconclusive) => "35",
            None => "1;31",
        };
        let name = self.name();
        let rest = &line[name.len() + 2 + self.verdict.len()..];
        format!("{name}: \x1b[{code}m{}\x1b[0m{rest}", self.verdict)
    }
}

/// How a record is written as lines: JSON, or text (with the verdict in color for a terminal).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineStyle {
    /// [`Record::to_json`].
    Json,
    /// [`Record::text_line`].
    Text,
    /// [`Record::colored_text_line`].
    ColoredText,
}

impl Record {
    /// Writes the record as one line in `style`, and after a text line a Pass's witness on a
    /// line of its own (`  witness: ACTIONS`), as `check` prints them.
    pub fn write_lines(
        &self,
        out: &mut impl std::io::Write,
        style: LineStyle,
    ) -> std::io::Result<()> {
        let line = match style {
            LineStyle::Json => return writeln!(out, "{}", self.to_json()),
            LineStyle::Text => self.text_line(),
            LineStyle::ColoredText => self.colored_text_line(),
        };
        writeln!(out, "{line}")?;
        if let Some(w) = &self.witness {
            writeln!(out, "  witness: {}", w.join(" "))?;
        }
        Ok(())
    }
}

/// A path as records and messages show it: as `Path::display` does for valid UTF-8, but the
/// bytes of a name that is not UTF-8 are written `\xNN` instead of being replaced by `�`
/// (two different files never show the same name).
pub fn path_text(path: &std::path::Path) -> String {
    let bytes = path.as_os_str().as_encoded_bytes();
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}

/// `s` with its control characters (C0, DEL, C1) escaped as Rust writes them (`\n`, `\t`,
/// `\u{1b}`); other characters as they are.
pub fn escape_controls(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.chars().any(char::is_control) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// `a, b and c`; `nothing` for none.
fn list(items: &[String]) -> String {
    match items {
        [] => "nothing".into(),
        [a] => a.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// Which limit ran out and how to raise it: the option of the command line (the Python
/// keyword is the same name with `_`), or the fixed limit and why it exists. `memory`: the
/// memory budget in bytes, when known, is named.
fn budget_sentence(limit: &str, vertices: u64, memory: Option<u64>) -> String {
    match limit {
        "memory" if memory.is_some() => format!(
            "the memory budget of {} (--max-memory) ran out: give a larger --max-memory MIB, or 0 for no limit",
            bytes_shown(memory.unwrap_or_default())
        ),
        "vertices" => format!(
            "the search-vertex budget (--max-vertices) ran out after {vertices} vertices: give a larger --max-vertices N, or 0 for no limit"
        ),
        "time" => "the time budget (--timeout-ms) ran out: give a larger --timeout-ms N, or 0 for no limit"
            .to_string(),
        "memory" => "the memory budget (--max-memory) ran out: give a larger --max-memory MIB, or 0 for no limit".to_string(),
        "silent moves" => "the limit on silent moves along one path ran out (a fixed limit: 2 x term depth + 8; check in complete mode, or report the model)".to_string(),
        other => format!("the {other} budget ran out"),
    }
}

/// A size as people read it: `1.5 GiB`, `16 MiB`, `3 KiB`, `100 bytes` (one decimal at most,
/// `.0` left out).
pub fn bytes_shown(b: u64) -> String {
    const UNITS: [(u64, &str); 3] = [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
    for (size, unit) in UNITS {
        if b >= size {
            let tenths = (b as u128 * 10 + size as u128 / 2) / size as u128;
            return if tenths.is_multiple_of(10) {
                format!("{} {unit}", tenths / 10)
            } else {
                format!("{}.{} {unit}", tenths / 10, tenths % 10)
            };
        }
    }
    format!("{b} bytes")
}

/// One sentence for a Fail, an Inconclusive or a WeakPass (`None` for a Pass).
fn explain(v: &Verdict, names: &Names<'_>) -> Option<String> {
    match (&v.reason, &v.diagnosis) {
        (Some(Reason::Budget { limit, established }), _) => {
            let ran_out = budget_sentence(limit, v.vertices, None);
            Some(match established {
                Some(e) => format!("{ran_out} ({e})"),
                None => ran_out,
            })
        }
        (_, Some(d)) if v.kind == VerdictKind::Fail => Some(explain_diagnosis(d, names)),
        (_, Some(d)) if v.kind == VerdictKind::WeakPass => explain_cut_short(d, names),
        (Some(Reason::LocalError { location, .. }), None) => Some(format!(
            "the trace of {} is rejected on its own",
            names.location(location.index())
        )),
        _ => None,
    }
}

/// `brok action 2 'brok?pub'`, `the end of brok's trace (after action 3)`, or `the end of
/// brok's empty trace`.
fn what(b: &BlockedRecord) -> String {
    match &b.found {
        Some(a) => format!("{} action {} '{a}'", b.location, b.position),
        None if b.position <= 1 => format!("the end of {}'s empty trace", b.location),
        None => format!(
            "the end of {}'s trace (after action {})",
            b.location,
            b.position - 1
        ),
    }
}

/// A WeakPass: which locations look cut short and what each could still do (from the
/// complete-mode diagnosis, where every action is consumed).
fn explain_cut_short(d: &Diagnosis, names: &Names<'_>) -> Option<String> {
    let go: Vec<String> = d
        .blocked
        .iter()
        .map(|b| names.blocked(b))
        .filter(|b| b.found.is_none())
        .map(|b| format!("{} could still do {}", b.location, list(&b.allowed)))
        .collect();
    (!go.is_empty()).then(|| format!("looks cut short: {}", go.join("; ")))
}

/// ` (diagnosis partial: ...)`: which budget of the diagnosis ran out, and its option.
fn partial_note(d: &Diagnosis) -> String {
    match d
        .ran_out
        .as_deref()
        .and_then(|l| Some((l, crate::budget::option_of(l)?)))
    {
        Some((limit, option)) => {
            format!(" (diagnosis partial: its {limit} budget ({option}) ran out)")
        }
        None => " (diagnosis partial: its budget ran out)".to_string(),
    }
}

fn explain_diagnosis(d: &Diagnosis, names: &Names<'_>) -> String {
    let mut s = String::new();
    if let Some(l) = &d.local {
        let b = names.blocked(l);
        s = match &b.found {
            Some(_) if b.allowed.is_empty() => format!(
                "{} is not allowed by {}'s local verifier: {} can do nothing more there",
                what(&b),
                b.location,
                b.location
            ),
            Some(_) => format!(
                "{} is not allowed by {}'s local verifier, which allows {} there",
                what(&b),
                b.location,
                list(&b.allowed)
            ),
            None if b.position <= 1 => format!(
                "{}'s trace is empty and cannot end empty: {} must start with {}",
                b.location,
                b.location,
                list(&b.allowed)
            ),
            None => format!(
                "{}'s trace cannot end after action {}: {} must go on with {}",
                b.location,
                b.position - 1,
                b.location,
                list(&b.allowed)
            ),
        };
        if d.partial {
            s.push_str(&partial_note(d));
        }
        return s;
    }
    let consumed: Vec<String> = d
        .consumed
        .iter()
        .enumerate()
        .map(|(i, n)| format!("{}:{n}", names.location(i)))
        .collect();
    let blocked: Vec<BlockedRecord> = d.blocked.iter().map(|b| names.blocked(b)).collect();
    if !blocked.is_empty() && blocked.iter().all(|b| b.found.is_none()) {
        let go: Vec<String> = blocked
            .iter()
            .map(|b| format!("{} with {}", b.location, list(&b.allowed)))
            .collect();
        s.push_str(&format!(
            "every action is consumed but the run cannot end there; it must go on: {}",
            go.join("; ")
        ));
    } else {
        s.push_str(&format!("consistent up to [{}]", consumed.join(" ")));
        for b in &blocked {
            s.push_str(&format!("; {} is not allowed there", what(b)));
            if !d.ended {
                if b.allowed.is_empty() {
                    s.push_str(&format!(" ({} can do nothing more)", b.location));
                } else {
                    s.push_str(&format!(" ({} could do {})", b.location, list(&b.allowed)));
                }
            }
        }
        if d.ended {
            s.push_str("; the interaction has ended there");
        }
    }
    if d.partial {
        s.push_str(&partial_note(d));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::escape_controls;

    #[test]
    fn sizes_are_shown_in_binary_units() {
        use super::bytes_shown;
        assert_eq!(bytes_shown(100), "100 bytes");
        assert_eq!(bytes_shown(3 << 10), "3 KiB");
        assert_eq!(bytes_shown(16 << 20), "16 MiB");
        assert_eq!(bytes_shown(3 << 29), "1.5 GiB");
        assert_eq!(bytes_shown((1 << 30) + 1), "1 GiB");
    }

    #[test]
    fn a_memory_inconclusive_and_a_partial_diagnosis_name_the_budget_value() {
        use super::{Names, Record};
        use crate::budget::Budget;
        use crate::verdict::Procedure;
        use crate::verdict::{Diagnosis, Reason, Verdict, VerdictKind};
        let render = |s: crate::verdict::Sym| format!("{s:?}");
        let names = Names {
            render: &render,
            locations: &[],
        };
        let budget = Budget {
            max_memory: Some(3 << 29),
            ..Budget::default()
        };
        let mut v = Verdict::new(VerdictKind::Inconclusive);
        v.reason = Some(Reason::Budget {
            limit: "memory".into(),
            established: Some("accepted as a multi-prefix".into()),
        });
        let t = std::time::Duration::ZERO;
        let mut r = Record::checked("t".into(), None, &v, Procedure::Ac, &names, t);
        r.name_memory_budget(&budget);
        assert_eq!(
            r.explanation.as_deref(),
            Some("the memory budget of 1.5 GiB (--max-memory) ran out: give a larger --max-memory MIB, or 0 for no limit (accepted as a multi-prefix)")
        );
        // Another limit is left as it was.
        v.reason = Some(Reason::Budget {
            limit: "time".into(),
            established: None,
        });
        let mut r = Record::checked("t".into(), None, &v, Procedure::Ac, &names, t);
        let before = r.explanation.clone();
        r.name_memory_budget(&budget);
        assert_eq!(r.explanation, before);
        // A Fail whose diagnosis ran out of memory.
        let mut v = Verdict::new(VerdictKind::Fail);
        v.reason = Some(Reason::InterError);
        v.diagnosis = Some(Diagnosis {
            consumed: vec![],
            blocked: vec![],
            ended: false,
            local: None,
            partial: true,
            ran_out: Some("memory".into()),
            vertices: 0,
        });
        let mut r = Record::checked("t".into(), None, &v, Procedure::Ac, &names, t);
        r.name_memory_budget(&budget);
        let e = r.explanation.unwrap();
        assert!(
            e.ends_with("(diagnosis partial: its memory budget of 1.5 GiB (--max-memory) ran out)"),
            "{e}"
        );
        // The deferred default is named by its value, read from the system then.
        let deferred = Budget {
            max_memory: Some(crate::budget::DEFERRED_MEMORY),
            ..Budget::default()
        };
        let mut r = Record::checked("t".into(), None, &v, Procedure::Ac, &names, t);
        r.name_memory_budget(&deferred);
        let default = super::bytes_shown(Budget::default().max_memory.unwrap());
        let e = r.explanation.unwrap();
        assert!(
            e.ends_with(&format!(
                "its memory budget of {default} (--max-memory) ran out)"
            )),
            "{e}"
        );
    }

    #[test]
    fn control_characters_are_escaped_and_the_rest_kept() {
        assert_eq!(escape_controls("plain ünï 😀"), "plain ünï 😀");
        assert_eq!(
            escape_controls("evil\nforged.htf: Pass"),
            "evil\\nforged.htf: Pass"
        );
        assert_eq!(escape_controls("\u{1b}]0;x\u{7}"), "\\u{1b}]0;x\\u{7}");
        assert_eq!(escape_controls("a\u{85}b\u{7f}"), "a\\u{85}b\\u{7f}");
    }

    #[cfg(unix)]
    #[test]
    fn non_utf8_names_are_shown_escaped_not_lossily() {
        use std::os::unix::ffi::OsStrExt;
        let p = std::path::Path::new(std::ffi::OsStr::from_bytes(b"dir/t\xff\xfe.htf"));
        assert_eq!(super::path_text(p), "dir/t\\xff\\xfe.htf");
        assert_eq!(
            super::path_text(std::path::Path::new("ok/é.htf")),
            "ok/é.htf"
        );
    }
}
