//! Inputs named on the command line: files as given, directories searched for trace files.

use std::fmt;
use std::path::{Path, PathBuf};

/// A path given as input that cannot be searched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WalkError {
    /// The path.
    pub path: PathBuf,
    /// What is wrong (`no such file or directory`, `cannot read directory: ...`).
    pub message: String,
}

impl fmt::Display for WalkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message)
    }
}

impl std::error::Error for WalkError {}

/// Whether a path is read as JSON Lines: `-` (standard input) or a `.jsonl` file.
/// Compressed JSON Lines (`.jsonl.gz`, `.jsonl.zst`) are streams too.
pub fn is_streamed(path: &Path) -> bool {
    path.as_os_str() == "-" || super::source::content_extension(path) == Some("jsonl")
}

/// Trace files: files as given (and `-`), directories searched recursively for `*.htf`,
/// `*.mtf` and `*.jsonl` (in natural order, [`natural_cmp`]).
///
/// Symbolic links to directories are followed, but a directory already searched (by its
/// canonical path: a link back to an ancestor, a loop, or a second link to the same place) is
/// skipped with a note, so a symbolic-link loop cannot make the walk endless. `note` receives
/// such notes, one for a directory holding no trace file, and one naming the files of other
/// extensions a directory held (count and the first few), which are not read. Hidden files
/// and `gen`'s `manifest.tsv` are not named: they are never inputs.
pub fn collect_traces(
    paths: &[PathBuf],
    note: &mut dyn FnMut(String),
) -> Result<Vec<PathBuf>, WalkError> {
    let mut files = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for p in paths {
        if p.as_os_str() == "-" {
            files.push(p.clone());
        } else if p.is_dir() {
            let mut found = Vec::new();
            let mut skipped = Vec::new();
            walk(p, &mut found, &mut skipped, &mut seen, note)?;
            if let Some(s) = skipped_note(p, &skipped) {
                note(s);
            }
            if found.is_empty() {
                note(format!(
                    "{} holds no .htf, .mtf or .jsonl file",
                    p.display()
                ));
            }
            files.extend(found);
        } else if p.exists() {
            files.push(p.clone());
        } else {
            return Err(WalkError {
                path: p.clone(),
                message: "no such file or directory".into(),
            });
        }
    }
    Ok(files)
}

/// The note for the files of a directory that were not read: `DIR: 2 files skipped (a.txt,
/// b.gz): only .htf, .mtf and .jsonl files are read`.
fn skipped_note(dir: &Path, skipped: &[PathBuf]) -> Option<String> {
    const SHOWN: usize = 3;
    let names: Vec<String> = skipped
        .iter()
        .take(SHOWN)
        .map(|p| p.strip_prefix(dir).unwrap_or(p).display().to_string())
        .collect();
    let more = if skipped.len() > SHOWN { ", ..." } else { "" };
    (!skipped.is_empty()).then(|| {
        format!(
            "{}: {} skipped ({}{more}): only .htf, .mtf and .jsonl files (also compressed: .gz, .zst) are read",
            dir.display(),
            if skipped.len() == 1 {
                "1 file".to_string()
            } else {
                format!("{} files", skipped.len())
            },
            names.join(", ")
        )
    })
}

/// The manifest `gen` writes beside a set (`multitrace_analysis::manifest::MANIFEST_FILE`;
/// the runtime depends on no other crate of the workspace): never an input, so never named
/// as skipped.
const GEN_MANIFEST: &str = "manifest.tsv";

fn walk(
    dir: &Path,
    out: &mut Vec<PathBuf>,
    skipped: &mut Vec<PathBuf>,
    seen: &mut std::collections::HashSet<PathBuf>,
    note: &mut dyn FnMut(String),
) -> Result<(), WalkError> {
    let error = |e: std::io::Error| WalkError {
        path: dir.to_path_buf(),
        message: format!("cannot read directory: {e}"),
    };
    let canonical = std::fs::canonicalize(dir).map_err(error)?;
    if !seen.insert(canonical.clone()) {
        note(format!(
            "{}: already searched (it is {}); a symbolic link loop or a second link, not followed",
            dir.display(),
            canonical.display()
        ));
        return Ok(());
    }
    let mut entries = std::fs::read_dir(dir)
        .and_then(|entries| {
            entries
                .map(|e| e.map(|e| e.path()))
                .collect::<std::io::Result<Vec<_>>>()
        })
        .map_err(error)?;
    // Sorted naturally (`t9` before `t100`), so that the order is the one a person expects
    // and which of two links to one directory is searched does not vary.
    entries.sort_by(|a, b| natural_cmp(&a.to_string_lossy(), &b.to_string_lossy()));
    for path in entries {
        if path.is_dir() {
            walk(&path, out, skipped, seen, note)?;
        } else if matches!(
            super::source::content_extension(&path),
            Some("htf" | "mtf" | "jsonl")
        ) {
            out.push(path);
        } else if path.file_name().is_some_and(|n| {
            let n = n.to_string_lossy();
            !n.starts_with('.') && n != GEN_MANIFEST
        }) {
            skipped.push(path);
        }
    }
    Ok(())
}

/// Natural order of names: runs of digits compare as numbers (`trace9` < `trace10`), the
/// rest as text; ties (`t01`, `t1`) are broken by the plain text order, so the order is total.
pub fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let (mut x, mut y) = (a.as_bytes(), b.as_bytes());
    while !x.is_empty() && !y.is_empty() {
        let (dx, dy) = (x[0].is_ascii_digit(), y[0].is_ascii_digit());
        let run = |s: &[u8], digit: bool| {
            s.iter()
                .position(|c| c.is_ascii_digit() != digit)
                .unwrap_or(s.len())
        };
        let (nx, ny) = (run(x, dx), run(y, dy));
        let ord = if dx && dy {
            let (tx, ty) = (&x[..nx], &y[..ny]);
            let (sx, sy) = (
                &tx[tx.iter().position(|&c| c != b'0').unwrap_or(nx)..],
                &ty[ty.iter().position(|&c| c != b'0').unwrap_or(ny)..],
            );
            sx.len().cmp(&sy.len()).then_with(|| sx.cmp(sy))
        } else {
            x[..nx].cmp(&y[..ny])
        };
        if ord != Ordering::Equal {
            return ord;
        }
        (x, y) = (&x[nx..], &y[ny..]);
    }
    x.len().cmp(&y.len()).then_with(|| a.cmp(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn natural_order_compares_numbers_as_numbers() {
        let mut v = vec!["t100", "t9", "t10", "a", "t09", "t9b", "t", "b2c10", "b2c9"];
        v.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(
            v,
            ["a", "b2c9", "b2c10", "t", "t09", "t9", "t9b", "t10", "t100"]
        );
        assert_eq!(natural_cmp("x1", "x1"), std::cmp::Ordering::Equal);
    }

    #[test]
    fn directories_are_walked_in_natural_order_and_loops_searched_once() {
        let d = std::env::temp_dir().join(format!("multitrace-batch-walk2-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("a/b")).unwrap();
        std::fs::write(d.join("a/b/t.htf"), "{}").unwrap();
        for n in ["t10.mtf", "t9.mtf", "t100.jsonl"] {
            std::fs::write(d.join("a").join(n), "").unwrap();
        }
        std::fs::write(d.join("a/b/ignored.txt"), "").unwrap();
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("..", d.join("a/b/up")).unwrap();
            std::os::unix::fs::symlink(d.join("a/b"), d.join("a/c")).unwrap();
        }
        let mut notes = Vec::new();
        let files = collect_traces(&[d.join("a")], &mut |n| notes.push(n)).unwrap();
        assert_eq!(
            files,
            vec![
                d.join("a/b/t.htf"),
                d.join("a/t9.mtf"),
                d.join("a/t10.mtf"),
                d.join("a/t100.jsonl")
            ]
        );
        #[cfg(unix)]
        assert_eq!(notes.len(), 2, "{notes:?}");
        let e = collect_traces(&[d.join("nothing")], &mut |_| {}).unwrap_err();
        assert!(e
            .to_string()
            .ends_with("nothing: no such file or directory"));
        let _ = std::fs::remove_dir_all(&d);
    }
}
