//! Outputs never destroy inputs: before a command writes a file it asks [`refuse_overwrite`]
//! whether that file is one of the command's inputs.
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
}
