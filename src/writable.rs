//! Output paths checked before any work (`gen -o DIR`, `partition -o DIR`), so that a long
//! analysis never ends on "cannot write": a directory that exists must be a directory we can
//! create files in; one that does not exist must have a nearest existing ancestor that is a
//! directory we can create files in (it is created when the results are written). The test is
//! the real one: a temporary file is created in the directory (and removed at once), since
//! permission bits do not tell the whole story (read-only mounts, ACLs, root).

use anyhow::{bail, Result};
use std::path::Path;

/// Checks that the output directory `dir`, given with `option`, can be written (see the module
/// documentation); the error names the path and the option (exit status 2).
pub fn output_dir(dir: &Path, option: &str) -> Result<()> {
    let shown = dir.display();
    if dir.exists() && !dir.is_dir() {
        bail!("{shown}: {option} names an output directory, but this is a file; give a directory (it is created if needed)");
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
            bail!(
                "{shown}: cannot create the output directory of {option}: {} is not a directory",
                existing.display()
            );
        }
    }
    if let Err(e) = probe(existing) {
        if existing == dir {
            bail!("{shown}: the output directory of {option} is not writable ({e}); give another with {option}");
        }
        bail!(
            "{shown}: cannot create the output directory of {option}: {} is not writable ({e}); give another with {option}",
            existing.display()
        );
    }
    Ok(())
}

/// Creates and removes a file in `dir`.
fn probe(dir: &Path) -> std::io::Result<()> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let name = dir.join(format!(
        ".multitrace-write-test-{}-{nanos}",
        std::process::id()
    ));
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&name)?;
    std::fs::remove_file(&name)
}
