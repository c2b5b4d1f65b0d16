//! `--expect`: each record of a batch compared with its expected verdict, read from a `gen`
//! manifest or a plain TSV ([`crate::manifest`]), and the count of what matched.
//!
//! Invariants: a file with a row that holds in the other mode than the check's is refused
//! before any check ([`ExpectError::OtherMode`]); a record matches its row when the verdicts
//! are equal, and the reason and location too where the row gives them; the final
//! [`ExpectCheck::report`] also counts the rows never found among the inputs and the inputs
//! without a row.

use crate::manifest::{mode_name, Expectations};
use multitrace_runtime::record::Record;
use multitrace_runtime::syntax::{read_text, ModelError, ParseError};
use multitrace_runtime::tally::plural;
use multitrace_runtime::verdict::Mode;
use std::fmt;
use std::path::Path;

/// Why expected verdicts cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExpectError {
    /// The file could not be read.
    Read(ModelError),
    /// The file is not a manifest nor a TSV of expected verdicts.
    Parse(ParseError),
    /// A row holds in the other mode than the check's.
    OtherMode {
        /// The file.
        file: String,
        /// The row's line, from 1.
        line: u32,
        /// The row's mode.
        mode: Mode,
    },
}

impl fmt::Display for ExpectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExpectError::Read(e) => e.fmt(f),
            ExpectError::Parse(e) => e.fmt(f),
            ExpectError::OtherMode { file, line, mode } => write!(
                f,
                "{file}:{line}: this expected verdict holds in {m} mode, and the check runs in the other one; add --mode {m}",
                m = mode_name(*mode)
            ),
        }
    }
}

impl std::error::Error for ExpectError {
    // Transparent: the wrapped error's own causes, not the wrapped error again.
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ExpectError::Read(e) => e.source(),
            ExpectError::Parse(e) => e.source(),
            ExpectError::OtherMode { .. } => None,
        }
    }
}

/// A record whose verdict is not the expected one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// The multitrace's name ([`Record::name`]).
    pub name: String,
    /// What was expected: `Fail (LocalError at l1)`.
    pub expected: String,
    /// Where it was expected: `DIR/:LINE`.
    pub at: String,
    /// What the check gave, written like `expected`.
    pub got: String,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "MISMATCH {}: expected {} ({}), got {}",
            self.name, self.expected, self.at, self.got
        )
    }
}

/// `--expect`: compares each record with its expected verdict, and counts.
#[derive(Clone, Debug)]
pub struct ExpectCheck {
    expect: Expectations,
    seen: Vec<bool>,
    mismatches: usize,
    unexpected: usize,
}

impl ExpectCheck {
    /// Reads the expected verdicts of `path` (a `gen` manifest or a TSV) for a check in `mode`;
    /// a row for the other mode is an error.
    pub fn read(path: &Path, mode: Mode) -> Result<Self, ExpectError> {
        let text = read_text(path).map_err(ExpectError::Read)?;
        let expect = Expectations::parse(path, &text).map_err(ExpectError::Parse)?;
        if let Some(row) = expect
            .rows
            .iter()
            .find(|r| r.mode.is_some_and(|m| m != mode))
        {
            return Err(ExpectError::OtherMode {
                file: path.display().to_string(),
                line: row.line,
                mode: if mode == Mode::Complete {
                    Mode::Prefix
                } else {
                    Mode::Complete
                },
            });
        }
        Ok(Self::new(expect))
    }

    /// Compares with `expect`.
    pub fn new(expect: Expectations) -> Self {
        ExpectCheck {
            seen: vec![false; expect.rows.len()],
            expect,
            mismatches: 0,
            unexpected: 0,
        }
    }

    /// Compares one record with its row, if it has one.
    pub fn check(&mut self, r: &Record) -> Option<Mismatch> {
        let Some(i) = self.expect.find(&r.trace, r.id.as_deref()) else {
            self.unexpected += 1;
            return None;
        };
        self.seen[i] = true;
        let row = &self.expect.rows[i];
        let location = r.local_error.as_ref().map(|b| b.location.as_str());
        let ok = row.verdict == r.verdict
            && row
                .reason
                .as_ref()
                .is_none_or(|x| r.reason.as_ref() == Some(x))
            && row
                .location
                .as_ref()
                .is_none_or(|x| location == Some(x.as_str()));
        if ok {
            return None;
        }
        self.mismatches += 1;
        let show = |verdict: &str, reason: Option<&String>, location: Option<&str>| match (
            reason, location,
        ) {
            (Some(r), Some(l)) => format!("{verdict} ({r} at {l})"),
            (Some(r), None) => format!("{verdict} ({r})"),
            _ => verdict.to_string(),
        };
        Some(Mismatch {
            name: r.name().to_string(),
            expected: show(&row.verdict, row.reason.as_ref(), row.location.as_deref()),
            at: format!("{}:{}", self.expect.dir.join("").display(), row.line),
            got: show(&r.verdict, r.reason.as_ref(), location),
        })
    }

    /// Whether any record mismatched.
    pub fn failed(&self) -> bool {
        self.mismatches > 0
    }

    /// The totals: `--expect: 9 of 10 multitraces checked against an expected verdict, 1
    /// mismatch; ...`.
    pub fn report(&self) -> String {
        let missing = self.seen.iter().filter(|s| !**s).count();
        let found = self.seen.len() - missing;
        let mut s = format!(
            "--expect: {found} of {} checked against an expected verdict, {}",
            plural(found + self.unexpected, "multitrace", "multitraces"),
            plural(self.mismatches, "mismatch", "mismatches"),
        );
        if missing > 0 {
            s.push_str(&format!(
                "; {} not found among the inputs",
                plural(missing, "expected row", "expected rows")
            ));
        }
        if self.unexpected > 0 {
            s.push_str(&format!(
                "; {} without an expected verdict",
                plural(self.unexpected, "input", "inputs")
            ));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use multitrace_runtime::record::ErrorRecord;
    use std::time::Duration;

    fn record(name: &str, verdict: &str, reason: Option<&str>) -> Record {
        let mut r = Record::error(
            name.into(),
            None,
            ErrorRecord::message("x"),
            Duration::from_micros(10),
        );
        r.verdict = verdict.into();
        r.reason = reason.map(Into::into);
        r
    }

    #[test]
    fn mismatches_name_both_verdicts_and_the_row() {
        let text = "a.htf\tFail\tLocalError(l1)\nb.htf\tPass\nc.htf\tPass\n";
        let e = Expectations::parse(Path::new("dir/expect.tsv"), text).unwrap();
        let mut c = ExpectCheck::new(e);
        let m = c.check(&record("dir/a.htf", "Pass", None)).unwrap();
        assert_eq!(
            m.to_string(),
            "MISMATCH dir/a.htf: expected Fail (LocalError at l1) (dir/:1), got Pass"
        );
        assert_eq!(c.check(&record("dir/b.htf", "Pass", None)), None);
        assert_eq!(c.check(&record("dir/z.htf", "Pass", None)), None);
        assert!(c.failed());
        assert_eq!(
            c.report(),
            "--expect: 2 of 3 multitraces checked against an expected verdict, 1 mismatch; \
             1 expected row not found among the inputs; 1 input without an expected verdict"
        );
    }
}
