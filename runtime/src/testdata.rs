//! Where tests and benchmarks find the external data sets (the AutomatArk NFAs and the HIBOU
//! benchmark sample): the directory named by the environment variable `MULTITRACE_DATA`,
//! default `../shared/data` beside the workspace root. The data are never copied into the
//! project; a test that needs them and does not find them says so on standard error
//! (`skipped: ...`) instead of passing silently.
//!
//! [`scratch_dir`] gives a test its own empty directory for the files it writes.

use std::path::PathBuf;

/// The environment variable naming the data directory.
pub const DATA_VAR: &str = "MULTITRACE_DATA";

/// `sub` inside the data directory, if it exists; otherwise prints `skipped: WHAT (DIR is
/// absent; set MULTITRACE_DATA)` on standard error and returns `None`.
pub fn data(sub: &str, what: &str) -> Option<PathBuf> {
    let root = match std::env::var_os(DATA_VAR) {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        // The runtime crate's directory is `<workspace>/runtime`.
        _ => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data"),
    };
    let path = root.join(sub);
    if path.exists() {
        Some(path)
    } else {
        eprintln!(
            "skipped: {what} ({} is absent; set {DATA_VAR} to the data directory)",
            path.display()
        );
        None
    }
}

/// A fresh, empty directory `multitrace-TAG-PID-NAME` under the system's temporary directory,
/// for the files one test writes: the process id keeps concurrent runs apart, and a directory
/// a previous run left behind is removed first. Panics when it cannot be made (tests only).
pub fn scratch_dir(tag: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("multitrace-{tag}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory under the temporary directory");
    dir
}
