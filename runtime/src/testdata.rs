//! Where tests and benchmarks find the external data sets (the AutomatArk NFAs and the HIBOU
//! benchmark sample): the directory named by the environment variable `MULTITRACE_DATA`,
//! default `../shared/data` beside the workspace root. The data are never copied into the
//! project; a test that needs them and does not find them says so on standard error
//! (`skipped: ...`) instead of passing silently.

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
