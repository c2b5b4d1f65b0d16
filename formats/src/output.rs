//! Outputs never destroy inputs: before a command writes a file it asks [`refuse_overwrite`]
//! whether that file is one of the command's inputs. And an output that cannot be written is
//! said before any work ([`check_writable`]): a missing directory, a directory named as the
//! file, an unwritable place.
//!
//! Two paths name the same file when they resolve to the same device and inode (on Unix;
//! elsewhere, the same canonical path): through a symbolic link, a hard link, `./` or `..`,
//! an output is recognized as the input it would replace. A path that does not exist yet is
//! no input.

use std::fmt;
use std::path::{Path, PathBuf};

/// An output path that is one of the inputs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OverwriteError {
    /// The output as given.
    pub output: PathBuf,
    /// The input it is, as given.
    pub input: PathBuf,
}

impl fmt::Display for OverwriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (o, i) = (self.output.display(), self.input.display());
        if self.output == self.input {
            write!(
                f,
                "{o}: refusing to write over an input of this command; choose another output file"
            )
        } else {
            write!(f, "{o}: refusing to write over the input {i} (the same file); choose another output file")
        }
    }
}

impl std::error::Error for OverwriteError {}

/// `Err` when `output` is the same file as one of `inputs` (`-`, standard input or output, is
/// never a file).
pub fn refuse_overwrite(output: &Path, inputs: &[&Path]) -> Result<(), OverwriteError> {
    if output.as_os_str() == "-" {
        return Ok(());
    }
    let Some(out) = identity(output) else {
        return Ok(());
    };
    for input in inputs {
        if input.as_os_str() != "-" && identity(input).as_ref() == Some(&out) {
            return Err(OverwriteError {
                output: output.to_path_buf(),
                input: input.to_path_buf(),
            });
        }
    }
    Ok(())
}

/// Why an output path cannot be written (found before any work by [`check_writable`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnwritableOutput {
    /// The output as given.
    pub path: PathBuf,
    /// The option that names it (`-o`, `--report`).
    pub option: String,
    /// What is wrong, with the way out.
    pub reason: String,
}

impl fmt::Display for UnwritableOutput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: cannot write the output of {}: {}; nothing was read or written",
            self.path.display(),
            self.option,
            self.reason
        )
    }
}

impl std::error::Error for UnwritableOutput {}

/// `Err` when the file `path`, named by `option`, cannot be written: it ends with `/` or names
/// an existing directory, its directory does not exist or is not a directory, or a file cannot
/// be created there (tried with a probe file, created exclusively and removed at once), or it
/// exists and cannot be opened for writing (opened without truncating: nothing changes). `-`
/// (standard output) is always writable. Commands call it first, before reading the model or
/// any trace, so a bad output costs no work.
pub fn check_writable(path: &Path, option: &str) -> Result<(), UnwritableOutput> {
    if path.as_os_str() == "-" {
        return Ok(());
    }
    let fail = |reason: String| UnwritableOutput {
        path: path.to_path_buf(),
        option: option.to_string(),
        reason,
    };
    let text = path.as_os_str().to_string_lossy();
    if text.ends_with('/') || path.is_dir() {
        let (what, example) = example_name(option);
        return Err(fail(format!(
            "is a directory; {option} names the {what} to write (e.g. {}/{example})",
            text.trim_end_matches('/'),
        )));
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    match std::fs::metadata(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(fail(format!(
                "the directory {} does not exist; create it first (`mkdir -p {}`)",
                dir.display(),
                dir.display()
            )))
        }
        Err(e) => return Err(fail(format!("the directory {}: {e}", dir.display()))),
        Ok(m) if !m.is_dir() => return Err(fail(format!("{} is not a directory", dir.display()))),
        Ok(_) => {}
    }
    if path.exists() {
        std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(|e| fail(format!("the file cannot be opened for writing: {e}")))?;
    }
    probe(dir).map_err(|e| {
        fail(format!(
            "no file can be created in {}: {e}; choose a writable directory",
            dir.display()
        ))
    })
}

/// `Err` when the output directory `dir`, named by `option` (`gen -o DIR`, `partition -o
/// DIR`), cannot receive files: it is a file, or the nearest existing ancestor (where the
/// missing directories are created when the results are written) is not a directory or no
/// file can be created in it (tried with a probe file: permission bits do not tell read-only
/// mounts, ACLs nor root). Commands call it before any work, as [`check_writable`].
pub fn check_writable_dir(dir: &Path, option: &str) -> Result<(), UnwritableOutput> {
    let fail = |reason: String| UnwritableOutput {
        path: dir.to_path_buf(),
        option: option.to_string(),
        reason,
    };
    if dir.exists() && !dir.is_dir() {
        return Err(fail(format!(
            "{option} names an output directory, but this is a file; give a directory (it is created if needed)"
        )));
    }
    // The nearest directory that exists: where a file (or the missing directories) is created.
    let mut existing = dir;
    while !existing.is_dir() {
        match existing.parent() {
            Some(p) if !p.as_os_str().is_empty() => existing = p,
            Some(_) | None => {
                existing = Path::new(".");
                break;
            }
        }
        if existing.exists() && !existing.is_dir() {
            return Err(fail(format!(
                "cannot create the directory: {} is not a directory",
                existing.display()
            )));
        }
    }
    probe(existing).map_err(|e| {
        if existing == dir {
            fail(format!(
                "the directory is not writable ({e}); give another with {option}"
            ))
        } else {
            fail(format!(
                "cannot create the directory: {} is not writable ({e}); give another with {option}",
                existing.display()
            ))
        }
    })
}

/// What `option` writes, and a file name to suggest inside a directory given as its output.
fn example_name(option: &str) -> (&'static str, &'static str) {
    if option == "--report" {
        ("HTML file", "report.html")
    } else {
        ("file", "FILE")
    }
}

/// Creates (exclusively) and removes a file in `dir`.
fn probe(dir: &Path) -> std::io::Result<()> {
    let name = format!(".multitrace-probe-{}", std::process::id());
    let p = dir.join(name);
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&p)?;
    std::fs::remove_file(&p)
}

#[cfg(unix)]
fn identity(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn identity(path: &Path) -> Option<PathBuf> {
    std::fs::canonicalize(path).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_input_is_recognized_through_links_and_dots() {
        let d = std::env::temp_dir().join(format!("multitrace-output-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("sub")).unwrap();
        let input = d.join("m.hif");
        std::fs::write(&input, "x").unwrap();
        assert!(refuse_overwrite(&input, &[&input]).is_err());
        assert!(refuse_overwrite(&d.join("sub/../m.hif"), &[&input]).is_err());
        assert!(refuse_overwrite(&d.join("other.mtm"), &[&input]).is_ok());
        assert!(refuse_overwrite(Path::new("-"), &[Path::new("-")]).is_ok());
        std::fs::write(d.join("other.mtm"), "y").unwrap();
        assert!(refuse_overwrite(&d.join("other.mtm"), &[&input]).is_ok());
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&input, d.join("link.hif")).unwrap();
            std::fs::hard_link(&input, d.join("hard.hif")).unwrap();
            let e = refuse_overwrite(&d.join("link.hif"), &[&input]).unwrap_err();
            assert!(e.to_string().contains("the same file"), "{e}");
            assert!(refuse_overwrite(&d.join("hard.hif"), &[&input]).is_err());
        }
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn output_directories_are_checked_before_any_work() {
        let d = tempfile::tempdir().unwrap();
        assert_eq!(check_writable_dir(d.path(), "-o"), Ok(()));
        // Missing directories are created later: their nearest existing ancestor counts.
        assert_eq!(check_writable_dir(&d.path().join("a/b"), "-o"), Ok(()));
        let file = d.path().join("f");
        std::fs::write(&file, "x").unwrap();
        let e = check_writable_dir(&file, "--output").unwrap_err();
        assert!(e.to_string().contains("this is a file"), "{e}");
        let e = check_writable_dir(&file.join("sub"), "--output").unwrap_err();
        assert!(e.to_string().contains("is not a directory"), "{e}");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "x");
        assert_eq!(
            std::fs::read_dir(d.path()).unwrap().count(),
            1,
            "no probe file is left"
        );
    }

    #[test]
    fn unwritable_outputs_are_named_with_their_option() {
        let d = tempfile::tempdir().unwrap();
        let ok = d.path().join("out.mtm");
        assert_eq!(check_writable(&ok, "-o"), Ok(()));
        assert!(!ok.exists(), "the probe leaves nothing");
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);
        std::fs::write(&ok, "keep").unwrap();
        assert_eq!(check_writable(&ok, "-o"), Ok(()));
        assert_eq!(std::fs::read_to_string(&ok).unwrap(), "keep");
        assert_eq!(check_writable(Path::new("-"), "-o"), Ok(()));
        let cases = [
            (
                d.path().to_path_buf(),
                "is a directory; --report names the HTML file",
            ),
            (d.path().join("new/"), "is a directory"),
            (d.path().join("missing/r.html"), "does not exist"),
            (ok.join("r.html"), "is not a directory"),
        ];
        for (path, want) in cases {
            let e = check_writable(&path, "--report").unwrap_err();
            let m = e.to_string();
            assert!(m.contains(want), "{m}");
            assert!(m.starts_with(&path.display().to_string()), "{m}");
            assert!(m.contains("--report"), "{m}");
        }
        // Nothing can be created in /proc, not even by root.
        #[cfg(target_os = "linux")]
        {
            let e = check_writable(Path::new("/proc/multitrace.html"), "-o").unwrap_err();
            assert!(
                e.to_string().contains("no file can be created in /proc"),
                "{e}"
            );
        }
    }
}
