//! Expected verdicts: the `manifest.tsv` that `multitrace gen` writes (read and written here),
//! or a plain TSV of trace and expected verdict, read by `check --expect`.
//!
//! Two layouts, told apart by the first line:
//!
//! - a `gen` manifest ([`Manifest`]): the header `file kind length verdict reason mode`
//!   (tab-separated), then one [`ManifestRow`] per multitrace; `file` is relative to the
//!   manifest's directory (`KIND-0001.mtf`, or `KIND.jsonl#ID` for a JSON Lines multitrace),
//!   `length` the number of actions over all locations, `reason` is `-`,
//!   `LocalError(LOCATION)`, `InterError` or `CentralError`, `mode` the mode the verdict holds
//!   in;
//! - a plain TSV: rows `trace<TAB>verdict[<TAB>reason]`, no header, `#` starts a comment line;
//!   `trace` is a path relative to the TSV's directory, or a JSON Lines `id`.
//!
//! Invariants: [`Manifest::to_text`] writes what [`Manifest::parse`] reads back (the same
//! rows); rows are written sorted by their text, so a directory's manifest does not depend on
//! the order its kinds were generated in; both readers report a bad row as a [`ParseError`] at
//! its line (blank lines and `#` comment lines are skipped, a trailing `\r` is ignored).

use multitrace_model::syntax::{read_text, ModelError, ParseError};
use multitrace_model::verdict::{Mode, VerdictKind};
use std::path::{Path, PathBuf};

/// The header of a `gen` manifest.
pub const MANIFEST_HEADER: &str = "file\tkind\tlength\tverdict\treason\tmode";

/// The file name of a `gen` manifest in the directory of its multitraces.
pub const MANIFEST_FILE: &str = "manifest.tsv";

/// One row of a `gen` manifest: a multitrace and the verdict it was checked to have.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManifestRow {
    /// The multitrace, relative to the manifest's directory: `KIND-0001.htf`, or
    /// `KIND.jsonl#ID`.
    pub file: String,
    /// Its category (`pass`, `local-error`, ...).
    pub kind: String,
    /// Its number of actions, all locations together.
    pub length: usize,
    /// Its verdict.
    pub verdict: VerdictKind,
    /// The reason of a Fail as written: `LocalError(LOCATION)`, `InterError` or
    /// `CentralError`; `None` is written `-`.
    pub reason: Option<String>,
    /// The mode the verdict holds in.
    pub mode: Mode,
}

impl ManifestRow {
    /// The reason as the manifest writes it (`-` when there is none).
    pub fn reason_label(&self) -> &str {
        self.reason.as_deref().unwrap_or("-")
    }

    /// The row as one line of the manifest (no line break).
    pub fn to_line(&self) -> String {
        format!(
            "{}\t{}\t{}\t{}\t{}\t{}",
            self.file,
            self.kind,
            self.length,
            self.verdict.name(),
            self.reason_label(),
            mode_name(self.mode)
        )
    }

    /// Reads one row (`line` is its text without the line break, `at` makes the error of a
    /// column from its message).
    fn parse(line: &str, at: impl Fn(String) -> ParseError) -> Result<Self, ParseError> {
        let cols: Vec<&str> = line.split('\t').collect();
        let [file, kind, length, verdict, reason, mode] = cols[..] else {
            return Err(at(format!(
                "expected 6 tab-separated columns ({}), found {}",
                MANIFEST_HEADER.replace('\t', ", "),
                cols.len()
            )));
        };
        let mode = match mode {
            "complete" => Mode::Complete,
            "prefix" => Mode::Prefix,
            other => {
                return Err(at(format!(
                    "unknown mode `{other}`; expected complete or prefix"
                )))
            }
        };
        let Ok(length) = length.parse::<usize>() else {
            return Err(at(format!("length `{length}` is not a number of actions")));
        };
        Ok(ManifestRow {
            file: file.to_string(),
            kind: kind.to_string(),
            length,
            verdict: verdict_kind(verdict).ok_or_else(|| at(unknown_verdict(verdict)))?,
            reason: match reason {
                "-" | "" => None,
                r => Some(r.to_string()),
            },
            mode,
        })
    }
}

/// The error of a TSV row at `line` of the file `name` (column 1: a row is wrong as a whole),
/// once its message is known.
fn at_line(name: &str, line: usize) -> impl Fn(String) -> ParseError + '_ {
    move |message| ParseError {
        file: name.to_string(),
        line: line as u32,
        column: 1,
        message,
    }
}

/// A `gen` manifest: the rows of one directory of generated multitraces.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Manifest {
    /// The rows, in file order.
    pub rows: Vec<ManifestRow>,
}

impl Manifest {
    /// Parses `text`, the contents of `file`, which must start with [`MANIFEST_HEADER`].
    pub fn parse(file: &Path, text: &str) -> Result<Self, ParseError> {
        let name = file.display().to_string();
        let at = |line: usize| at_line(&name, line);
        let mut lines = text.lines().enumerate();
        if lines.next().map(|(_, l)| l.trim_end_matches('\r')) != Some(MANIFEST_HEADER) {
            return Err(at(1)(format!(
                "not a gen manifest: expected the header `{}`",
                MANIFEST_HEADER.replace('\t', " ")
            )));
        }
        let mut rows = Vec::new();
        for (i, line) in lines {
            let line = line.trim_end_matches('\r');
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            rows.push(ManifestRow::parse(line, at(i + 1))?);
        }
        Ok(Manifest { rows })
    }

    /// Reads the manifest file `path`.
    pub fn read(path: &Path) -> Result<Self, ModelError> {
        let text = read_text(path)?;
        Ok(Manifest::parse(path, &text)?)
    }

    /// The text of the manifest file: the header, then one line per row, in order.
    pub fn to_text(&self) -> String {
        let mut text = String::from(MANIFEST_HEADER);
        text.push('\n');
        for r in &self.rows {
            text.push_str(&r.to_line());
            text.push('\n');
        }
        text
    }

    /// Replaces the rows of category `kind` by `rows`, keeping the rows of other categories,
    /// and sorts the rows by their text.
    pub fn replace_kind(&mut self, kind: &str, rows: impl IntoIterator<Item = ManifestRow>) {
        self.rows.retain(|r| r.kind != kind);
        self.rows.extend(rows);
        self.rows.sort_by_cached_key(ManifestRow::to_line);
    }
}

/// The name of a mode in a manifest (`complete`, `prefix`).
pub fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Complete => "complete",
        Mode::Prefix => "prefix",
    }
}

/// One expected verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expectation {
    /// The trace as written in the file (relative path, `FILE.jsonl#ID`, or an id).
    pub key: String,
    /// `Pass`, `WeakPass`, `Fail` or `Inconclusive`.
    pub verdict: String,
    /// `LocalError`, `InterError` or `CentralError`, when given.
    pub reason: Option<String>,
    /// The location of an expected `LocalError(LOCATION)`, when given.
    pub location: Option<String>,
    /// The mode the verdict holds in, when given.
    pub mode: Option<Mode>,
    /// Line in the file, from 1.
    pub line: u32,
}

/// Expected verdicts read from one file.
#[derive(Clone, Debug, Default)]
pub struct Expectations {
    /// The file they were read from (what a mismatch names, with the row's line).
    pub file: PathBuf,
    /// The directory relative paths are resolved against.
    pub dir: PathBuf,
    /// The rows, in file order.
    pub rows: Vec<Expectation>,
}

const VERDICTS: [VerdictKind; 4] = [
    VerdictKind::Pass,
    VerdictKind::WeakPass,
    VerdictKind::Fail,
    VerdictKind::Inconclusive,
];

/// The verdict of that name.
fn verdict_kind(name: &str) -> Option<VerdictKind> {
    VERDICTS.into_iter().find(|v| v.name() == name)
}

fn unknown_verdict(name: &str) -> String {
    let names: Vec<&str> = VERDICTS.iter().map(|v| v.name()).collect();
    format!(
        "unknown verdict `{name}`; expected one of {}",
        names.join(", ")
    )
}

impl Expectations {
    /// Parses `text`, the contents of `file`: a `gen` manifest (rows as in [`Manifest::parse`])
    /// when it starts with [`MANIFEST_HEADER`], else a plain TSV.
    pub fn parse(file: &Path, text: &str) -> Result<Self, ParseError> {
        let name = file.display().to_string();
        let at = |line: usize| at_line(&name, line);
        let mut lines = text.lines().enumerate().peekable();
        let manifest = lines
            .peek()
            .is_some_and(|(_, l)| l.trim_end_matches('\r') == MANIFEST_HEADER);
        if manifest {
            lines.next();
        }
        let mut rows = Vec::new();
        for (i, line) in lines {
            let line = line.trim_end_matches('\r');
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            let (key, verdict, reason, mode) = if manifest {
                let row = ManifestRow::parse(line, at(i + 1))?;
                let reason = row.reason_label().to_string();
                (row.file, row.verdict, reason, Some(row.mode))
            } else {
                let cols: Vec<&str> = line.split('\t').collect();
                let (trace, verdict, reason) = match cols[..] {
                    [trace, verdict] => (trace, verdict, "-"),
                    [trace, verdict, reason] => (trace, verdict, reason),
                    _ => {
                        return Err(at(i + 1)(format!(
                            "expected `trace<TAB>verdict[<TAB>reason]` (or a gen manifest with the header `{}`), found {} columns",
                            MANIFEST_HEADER.replace('\t', " "),
                            cols.len()
                        )))
                    }
                };
                let verdict =
                    verdict_kind(verdict).ok_or_else(|| at(i + 1)(unknown_verdict(verdict)))?;
                (trace.to_string(), verdict, reason.to_string(), None)
            };
            let (reason, location) = match reason.as_str() {
                "-" | "" => (None, None),
                r => match r.strip_suffix(')').and_then(|r| r.split_once('(')) {
                    Some((r, loc)) => (Some(r.to_string()), Some(loc.to_string())),
                    None => (Some(r.to_string()), None),
                },
            };
            rows.push(Expectation {
                key,
                verdict: verdict.name().to_string(),
                reason,
                location,
                mode,
                line: (i + 1) as u32,
            });
        }
        Ok(Expectations {
            file: file.to_path_buf(),
            dir: file.parent().map(Path::to_path_buf).unwrap_or_default(),
            rows,
        })
    }

    /// The row for a multitrace read from `trace` (a file path, or `FILE:LINE` of a JSON
    /// Lines input) with JSON Lines `id`: by `FILE.jsonl#ID` or `ID`, else by path relative to
    /// the expectations' directory.
    pub fn find(&self, trace: &str, id: Option<&str>) -> Option<usize> {
        self.rows.iter().position(|r| {
            if let Some(id) = id {
                match r.key.split_once('#') {
                    Some((file, rid)) => {
                        let jsonl = trace.rsplit_once(':').map_or(trace, |(f, _)| f);
                        rid == id && same_path(&self.dir.join(file), Path::new(jsonl))
                    }
                    None => r.key == id,
                }
            } else {
                !r.key.contains('#') && same_path(&self.dir.join(&r.key), Path::new(trace))
            }
        })
    }
}

/// Whether two paths name the same file (canonically when both exist).
fn same_path(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_both_layouts() {
        let m = format!("{MANIFEST_HEADER}\na.mtf\tpass\t3\tPass\t-\tcomplete\nb.jsonl#x-1\tlocal-error\t4\tFail\tLocalError(l2)\tcomplete\n");
        let e = Expectations::parse(Path::new("d/manifest.tsv"), &m).unwrap();
        assert_eq!(e.rows.len(), 2);
        assert_eq!(e.rows[1].reason.as_deref(), Some("LocalError"));
        assert_eq!(e.rows[1].location.as_deref(), Some("l2"));
        assert_eq!(e.rows[1].mode, Some(Mode::Complete));
        assert_eq!(e.find("d/b.jsonl:7", Some("x-1")), Some(1));
        assert_eq!(e.find("d/a.mtf", None), Some(0));
        assert_eq!(e.find("d/c.mtf", None), None);
        let t = "# comment\nt1.htf\tPass\nrun-3\tFail\tCentralError\n";
        let e = Expectations::parse(Path::new("exp.tsv"), t).unwrap();
        assert_eq!(e.rows[1].line, 3);
        assert_eq!(e.find("in.jsonl:2", Some("run-3")), Some(1));
        assert_eq!(e.find("t1.htf", None), Some(0));
    }

    fn row(file: &str, kind: &str, length: usize, reason: Option<&str>) -> ManifestRow {
        ManifestRow {
            file: file.into(),
            kind: kind.into(),
            length,
            verdict: if reason.is_some() {
                VerdictKind::Fail
            } else {
                VerdictKind::Pass
            },
            reason: reason.map(String::from),
            mode: Mode::Complete,
        }
    }

    #[test]
    fn manifests_round_trip() {
        let mut m = Manifest::default();
        m.replace_kind(
            "pass",
            [
                row("pass-0002.mtf", "pass", 7, None),
                row("pass-0001.mtf", "pass", 3, None),
            ],
        );
        m.replace_kind(
            "local-error",
            [row(
                "local-error.jsonl#local-error-0001",
                "local-error",
                4,
                Some("LocalError(l2)"),
            )],
        );
        let text = m.to_text();
        assert_eq!(
            text,
            format!(
                "{MANIFEST_HEADER}\n\
                 local-error.jsonl#local-error-0001\tlocal-error\t4\tFail\tLocalError(l2)\tcomplete\n\
                 pass-0001.mtf\tpass\t3\tPass\t-\tcomplete\n\
                 pass-0002.mtf\tpass\t7\tPass\t-\tcomplete\n"
            )
        );
        assert_eq!(Manifest::parse(Path::new("m.tsv"), &text).unwrap(), m);
        // Regenerating a kind replaces its rows only.
        m.replace_kind("pass", [row("pass-0001.mtf", "pass", 5, None)]);
        assert_eq!(m.rows.len(), 2);
        assert_eq!(m.rows[1].length, 5);
        // check --expect reads the same rows.
        let e = Expectations::parse(Path::new("d/manifest.tsv"), &text).unwrap();
        assert_eq!(e.rows.len(), 3);
        assert_eq!(
            (e.rows[0].reason.as_deref(), e.rows[0].location.as_deref()),
            (Some("LocalError"), Some("l2"))
        );
    }

    #[test]
    fn bad_manifests_are_located() {
        let p = Path::new("m.tsv");
        let e = Manifest::parse(p, "a\tPass\n").unwrap_err();
        assert_eq!((e.line, e.column), (1, 1));
        assert!(e.message.contains("not a gen manifest"), "{e}");
        for (row, fragment) in [
            ("a.mtf\tpass\t3\tPass", "expected 6 tab-separated columns"),
            (
                "a.mtf\tpass\tx\tPass\t-\tcomplete",
                "length `x` is not a number",
            ),
            (
                "a.mtf\tpass\t3\tMaybe\t-\tcomplete",
                "unknown verdict `Maybe`",
            ),
            ("a.mtf\tpass\t3\tPass\t-\tfull", "unknown mode `full`"),
        ] {
            let e = Manifest::parse(p, &format!("{MANIFEST_HEADER}\n\n{row}\n")).unwrap_err();
            assert_eq!((e.line, e.column), (3, 1), "{row}");
            assert!(e.message.contains(fragment), "{e}");
        }
    }

    #[test]
    fn bad_rows_are_located() {
        let e = Expectations::parse(Path::new("x.tsv"), "a\tPass\nb\tMaybe\n").unwrap_err();
        assert_eq!((e.line, e.column), (2, 1));
        assert!(e.message.contains("unknown verdict `Maybe`"), "{e}");
        let e = Expectations::parse(Path::new("x.tsv"), "a\n").unwrap_err();
        assert!(e.message.contains("found 1 columns"), "{e}");
    }
}
