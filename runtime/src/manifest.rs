//! Expected verdicts: the `manifest.tsv` that `multitrace gen` writes, or a plain TSV of trace
//! and expected verdict, read by `check --expect`.
//!
//! Two layouts, told apart by the first line:
//!
//! - a `gen` manifest: the header `file kind length verdict reason mode` (tab-separated), then
//!   one row per multitrace; `file` is relative to the manifest's directory (`KIND-0001.mtf`,
//!   or `KIND.jsonl#ID` for a JSON Lines multitrace), `reason` is `-`, `LocalError(LOCATION)`,
//!   `InterError` or `CentralError`, `mode` the mode the verdict holds in;
//! - a plain TSV: rows `trace<TAB>verdict[<TAB>reason]`, no header, `#` starts a comment line;
//!   `trace` is a path relative to the TSV's directory, or a JSON Lines `id`.

use crate::syntax::ParseError;
use crate::verdict::Mode;
use std::path::{Path, PathBuf};

/// The header of a `gen` manifest.
pub const MANIFEST_HEADER: &str = "file\tkind\tlength\tverdict\treason\tmode";

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
    /// The directory relative paths are resolved against.
    pub dir: PathBuf,
    /// The rows, in file order.
    pub rows: Vec<Expectation>,
}

const VERDICTS: [&str; 4] = ["Pass", "WeakPass", "Fail", "Inconclusive"];

impl Expectations {
    /// Parses `text`, the contents of `file`.
    pub fn parse(file: &Path, text: &str) -> Result<Self, ParseError> {
        let name = file.display().to_string();
        let at = |line: usize, message: String| ParseError {
            file: name.clone(),
            line: line as u32,
            column: 1,
            message,
        };
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
            let cols: Vec<&str> = line.split('\t').collect();
            let (key, verdict, reason, mode) = if manifest {
                let [file, _kind, _len, verdict, reason, mode] = cols[..] else {
                    return Err(at(
                        i + 1,
                        format!(
                            "expected 6 tab-separated columns ({}), found {}",
                            MANIFEST_HEADER.replace('\t', ", "),
                            cols.len()
                        ),
                    ));
                };
                let mode = match mode {
                    "complete" => Mode::Complete,
                    "prefix" => Mode::Prefix,
                    other => {
                        return Err(at(
                            i + 1,
                            format!("unknown mode `{other}`; expected complete or prefix"),
                        ))
                    }
                };
                (file, verdict, reason, Some(mode))
            } else {
                match cols[..] {
                    [trace, verdict] => (trace, verdict, "-", None),
                    [trace, verdict, reason] => (trace, verdict, reason, None),
                    _ => {
                        return Err(at(
                            i + 1,
                            format!(
                                "expected `trace<TAB>verdict[<TAB>reason]` (or a gen manifest with the header `{}`), found {} columns",
                                MANIFEST_HEADER.replace('\t', " "),
                                cols.len()
                            ),
                        ))
                    }
                }
            };
            if !VERDICTS.contains(&verdict) {
                return Err(at(
                    i + 1,
                    format!(
                        "unknown verdict `{verdict}`; expected one of {}",
                        VERDICTS.join(", ")
                    ),
                ));
            }
            let (reason, location) = match reason {
                "-" | "" => (None, None),
                r => match r.strip_suffix(')').and_then(|r| r.split_once('(')) {
                    Some((r, loc)) => (Some(r.to_string()), Some(loc.to_string())),
                    None => (Some(r.to_string()), None),
                },
            };
            rows.push(Expectation {
                key: key.to_string(),
                verdict: verdict.to_string(),
                reason,
                location,
                mode,
                line: (i + 1) as u32,
            });
        }
        Ok(Expectations {
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

    #[test]
    fn bad_rows_are_located() {
        let e = Expectations::parse(Path::new("x.tsv"), "a\tPass\nb\tMaybe\n").unwrap_err();
        assert_eq!((e.line, e.column), (2, 1));
        assert!(e.message.contains("unknown verdict `Maybe`"), "{e}");
        let e = Expectations::parse(Path::new("x.tsv"), "a\n").unwrap_err();
        assert!(e.message.contains("found 1 columns"), "{e}");
    }
}
