//! `--expect`: each record of a batch compared with its expected verdict, read from a `gen`
//! manifest or a plain TSV ([`crate::manifest`]), and the count of what matched.
//!
//! Invariants: rows of a `gen` manifest that hold in the other mode than the check's are
//! skipped and counted (a file of such rows only is refused before any check,
//! [`ExpectError::OtherMode`]); a record matches its row when the verdicts
//! are equal, and the reason and location too where the row gives them; the final
//! [`ExpectCheck::report`] also counts the rows never found among the inputs and the inputs
//! without a row.

use crate::manifest::{mode_name, Expectations};
use multitrace_model::record::Record;
use multitrace_model::syntax::{read_text, ModelError, ParseError};
use multitrace_model::tally::{plural, Tally};
use multitrace_model::verdict::Mode;
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
    /// Where it was expected: `FILE:LINE` of the expected verdicts.
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
    /// Manifest rows of the other mode, skipped when read, and that mode.
    skipped: (usize, Mode),
}

fn other_mode(mode: Mode) -> Mode {
    match mode {
        Mode::Complete => Mode::Prefix,
        Mode::Prefix => Mode::Complete,
    }
}

impl ExpectCheck {
    /// Reads the expected verdicts of `path` (a `gen` manifest or a TSV) for a check in `mode`.
    /// A manifest row of the other mode is skipped (a `gen` directory holds both modes' kinds,
    /// and `compare` reads each in its own mode); the report counts them. A file whose rows
    /// are all of the other mode is an error: nothing would be compared.
    pub fn read(path: &Path, mode: Mode) -> Result<Self, ExpectError> {
        let text = read_text(path).map_err(ExpectError::Read)?;
        let mut expect = Expectations::parse(path, &text).map_err(ExpectError::Parse)?;
        let before = expect.rows.len();
        let first_other = expect
            .rows
            .iter()
            .find(|r| r.mode.is_some_and(|m| m != mode))
            .map(|r| r.line);
        expect.rows.retain(|r| r.mode.is_none_or(|m| m == mode));
        let skipped = before - expect.rows.len();
        if let (Some(line), true) = (first_other, expect.rows.is_empty()) {
            return Err(ExpectError::OtherMode {
                file: path.display().to_string(),
                line,
                mode: other_mode(mode),
            });
        }
        let mut check = Self::new(expect);
        check.skipped = (skipped, other_mode(mode));
        Ok(check)
    }

    /// Compares with `expect`.
    pub fn new(expect: Expectations) -> Self {
        ExpectCheck {
            seen: vec![false; expect.rows.len()],
            expect,
            mismatches: 0,
            unexpected: 0,
            skipped: (0, Mode::Prefix),
        }
    }

    /// The exit status of a check with `--expect`: whether the expectations held (0), or not
    /// (1), whatever the verdicts were (an expected Fail is what a regression script wants);
    /// 2 when some input could not be checked (`tally` counted an Error record).
    pub fn exit_code(&self, tally: &Tally) -> u8 {
        if tally.exit_code() == 2 {
            2
        } else if self.failed() {
            1
        } else {
            0
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
            at: format!("{}:{}", self.expect.file.display(), row.line),
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
        let (skipped, other) = self.skipped;
        if skipped > 0 {
            s.push_str(&format!(
                "; {} of {m} mode skipped (check again with --mode {m} for them)",
                plural(skipped, "row", "rows"),
                m = mode_name(other)
            ));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use multitrace_model::record::ErrorRecord;
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
            "MISMATCH dir/a.htf: expected Fail (LocalError at l1) (dir/expect.tsv:1), got Pass"
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

    #[test]
    fn a_manifest_of_both_modes_is_checked_on_the_rows_of_the_check_mode() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("manifest.tsv");
        std::fs::write(
            &path,
            "file\tkind\tlength\tverdict\treason\tmode\n\
             pass-0001.htf\tpass\t4\tPass\t-\tcomplete\n\
             prefix-0001.htf\tprefix\t3\tWeakPass\t-\tprefix\n\
             noise-0001.htf\tnoise\t3\tFail\tLocalError(a)\tprefix\n",
        )
        .unwrap();
        let complete = ExpectCheck::read(&path, Mode::Complete).unwrap();
        assert!(complete.report().ends_with(
            "; 2 rows of prefix mode skipped (check again with --mode prefix for them)"
        ));
        let mut prefix = ExpectCheck::read(&path, Mode::Prefix).unwrap();
        let m = prefix
            .check(&record(
                &dir.path().join("noise-0001.htf").display().to_string(),
                "Pass",
                None,
            ))
            .unwrap();
        // The row is named by the file it is in.
        assert_eq!(m.at, format!("{}:4", path.display()));
        assert!(prefix.report().contains("1 row of complete mode skipped"));
        // Only rows of the other mode: nothing to compare, an error that says which mode.
        std::fs::write(
            &path,
            "file\tkind\tlength\tverdict\treason\tmode\npass-0001.htf\tpass\t4\tPass\t-\tcomplete\n",
        )
        .unwrap();
        let e = ExpectCheck::read(&path, Mode::Prefix).unwrap_err();
        assert!(e.to_string().ends_with("add --mode complete"), "{e}");
    }

    #[test]
    fn with_expectations_the_exit_status_says_whether_they_held() {
        let e = Expectations::parse(Path::new("d/x.tsv"), "a\tFail\nb\tPass\n").unwrap();
        let mut c = ExpectCheck::new(e);
        let mut t = Tally::default();
        for r in [
            record("d/a", "Fail", Some("LocalError")),
            record("d/b", "Pass", None),
        ] {
            assert_eq!(c.check(&r), None);
            t.add(&r, false);
        }
        assert_eq!(t.exit_code(), 1);
        assert_eq!(c.exit_code(&t), 0);
        let r = record("d/b", "Inconclusive", Some("Budget"));
        assert!(c.check(&r).is_some());
        t.add(&r, false);
        assert_eq!(c.exit_code(&t), 1);
        t.add(&record("d/c", "Error", None), false);
        assert_eq!(c.exit_code(&t), 2);
    }
}
