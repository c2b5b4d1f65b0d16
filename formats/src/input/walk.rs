//! Inputs named on the command line: files as given, directories searched for trace files.

use std::collections::HashSet;
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

/// Trace files: files as given (and `-`), directories searched recursively for regular files
/// named `*.htf`, `*.mtf` and `*.jsonl` (in natural order, [`natural_cmp`]).
///
/// Symbolic links are followed, but a directory already searched (by device and inode: a link
/// back to an ancestor, a loop, or a second link to the same place) is skipped with a note, so
/// a symbolic-link loop cannot make the walk endless. A trace name that is not a regular file
/// (a FIFO, a socket, a device, a dangling link) is skipped with a note: reading a FIFO would
/// wait for a writer forever. A path named explicitly is read whatever it is (a FIFO given on
/// the command line has a writer on purpose). `note` receives these notes (and one for a
/// directory holding no trace file, and one naming the files of other extensions a directory
/// held (count and the first few), which are not read; hidden files and `gen`'s
/// `manifest.tsv` are not named: they are never inputs).
///
/// The walk is [`walkdir`]'s: each directory is opened once and entries are not
/// canonicalized, so its cost is linear in the entries (plus the kernel's lookup of each
/// path), not cubic in the depth.
pub fn collect_traces(
    paths: &[PathBuf],
    note: &mut dyn FnMut(String),
) -> Result<Vec<PathBuf>, WalkError> {
    let mut files = Vec::new();
    let mut seen = HashSet::new();
    for p in paths {
        if p.as_os_str() == "-" {
            files.push(p.clone());
        } else if p.is_dir() {
            let before = files.len();
            let mut skipped = Vec::new();
            walk(p, &mut files, &mut skipped, &mut seen, note)?;
            if let Some(s) = skipped_note(p, &skipped) {
                note(s);
            }
            if files.len() == before {
                note(format!(
                    "{} holds no .htf, .mtf or .jsonl file",
                    p.display()
                ));
            }
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

/// Identity of a directory: device and inode on Unix, the canonical path elsewhere.
#[cfg(unix)]
type DirId = (u64, u64);
#[cfg(not(unix))]
type DirId = PathBuf;

#[cfg(unix)]
fn dir_id(path: &Path, meta: &std::fs::Metadata) -> std::io::Result<DirId> {
    use std::os::unix::fs::MetadataExt;
    let _ = path;
    Ok((meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn dir_id(path: &Path, _: &std::fs::Metadata) -> std::io::Result<DirId> {
    std::fs::canonicalize(path)
}

fn is_trace_name(path: &Path) -> bool {
    matches!(
        super::open::content_extension(path),
        Some("htf" | "mtf" | "jsonl")
    )
}

fn walk(
    root: &Path,
    out: &mut Vec<PathBuf>,
    skipped: &mut Vec<PathBuf>,
    seen: &mut HashSet<DirId>,
    note: &mut dyn FnMut(String),
) -> Result<(), WalkError> {
    let error = |path: &Path, e: &dyn fmt::Display| WalkError {
        path: path.to_path_buf(),
        message: format!("cannot read directory: {e}"),
    };
    // Sorted naturally (`t9` before `t100`), so that the order is the one a person expects
    // and which of two links to one directory is searched does not vary.
    let mut it = walkdir::WalkDir::new(root)
        .follow_links(true)
        .sort_by(|a, b| {
            natural_cmp(
                &a.file_name().to_string_lossy(),
                &b.file_name().to_string_lossy(),
            )
            .then_with(|| a.file_name().cmp(b.file_name()))
        })
        .into_iter();
    while let Some(entry) = it.next() {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                let path = e.path().unwrap_or(root).to_path_buf();
                if let Some(ancestor) = e.loop_ancestor() {
                    note(format!(
                        "{}: already searched (it is {}); a symbolic link loop, not followed",
                        path.display(),
                        ancestor.display()
                    ));
                    continue;
                }
                let gone = e
                    .io_error()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::NotFound);
                if e.depth() > 0 && !gone && is_trace_name(&path) && path.is_symlink() {
                    // A link loop between files (ELOOP): the file is still an input, so that
                    // its read fails into an Error record instead of ending the whole walk.
                    out.push(path);
                    continue;
                }
                if e.depth() > 0 && gone {
                    // A dangling link, or an entry removed during the walk: not a trace.
                    if is_trace_name(&path) {
                        note(format!("{}: skipped: {e}", path.display()));
                    }
                    continue;
                }
                return Err(error(&path, &e));
            }
        };
        let path = entry.path();
        if entry.file_type().is_dir() {
            let id = entry
                .metadata()
                .map_err(|e| error(path, &e))
                .and_then(|m| dir_id(path, &m).map_err(|e| error(path, &e)))?;
            if !seen.insert(id) {
                note(format!(
                    "{}: already searched; a symbolic link loop or a second link, not followed",
                    path.display()
                ));
                it.skip_current_dir();
            }
        } else if is_trace_name(path) {
            if entry.file_type().is_file() {
                out.push(entry.into_path());
            } else {
                note(format!(
                    "{}: skipped: not a regular file (a FIFO, socket or device is read only when named explicitly)",
                    path.display()
                ));
            }
        } else if entry.file_type().is_file()
            && path.file_name().is_some_and(|n| {
                let n = n.to_string_lossy();
                !n.starts_with('.') && n != GEN_MANIFEST
            })
        {
            skipped.push(entry.into_path());
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

    #[cfg(unix)]
    #[test]
    fn a_link_loop_between_files_is_an_input_not_the_end_of_the_walk() {
        let d = std::env::temp_dir().join(format!("multitrace-walk-loop-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("c.htf"), "{}").unwrap();
        std::os::unix::fs::symlink("b.htf", d.join("a.htf")).unwrap();
        std::os::unix::fs::symlink("a.htf", d.join("b.htf")).unwrap();
        let files = collect_traces(std::slice::from_ref(&d), &mut |_| {}).unwrap();
        assert_eq!(
            files,
            vec![d.join("a.htf"), d.join("b.htf"), d.join("c.htf")]
        );
        let _ = std::fs::remove_dir_all(&d);
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
        {
            // Two links searched once, and the file of another extension named as skipped.
            assert_eq!(notes.len(), 3, "{notes:?}");
            assert_eq!(
                notes
                    .iter()
                    .filter(|n| n.contains("already searched"))
                    .count(),
                2,
                "{notes:?}"
            );
            assert!(
                notes
                    .iter()
                    .any(|n| n.contains("1 file skipped (b/ignored.txt)")),
                "{notes:?}"
            );
        }
        let e = collect_traces(&[d.join("nothing")], &mut |_| {}).unwrap_err();
        assert!(e
            .to_string()
            .ends_with("nothing: no such file or directory"));
        let _ = std::fs::remove_dir_all(&d);
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_skipped_in_a_directory_and_read_when_named() {
        let d = std::env::temp_dir().join(format!("multitrace-walk-fifo-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("a.htf"), "{}").unwrap();
        let fifo = d.join("b.htf");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if !made.is_ok_and(|s| s.success()) {
            eprintln!("no mkfifo: skipped");
            return;
        }
        let mut notes = Vec::new();
        let files = collect_traces(std::slice::from_ref(&d), &mut |n| notes.push(n)).unwrap();
        assert_eq!(files, vec![d.join("a.htf")]);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].contains("b.htf: skipped: not a regular file"));
        // Named explicitly, it is an input like any other.
        let files = collect_traces(std::slice::from_ref(&fifo), &mut |_| {}).unwrap();
        assert_eq!(files, vec![fifo]);
        let _ = std::fs::remove_dir_all(&d);
    }
}
