//! Integration tests of the compiler crate, one binary: the fixture suite, seed 004's running
//! example, synthesis against the oracle, artifacts and many locations.
//!
//! `cargo test -p multitrace-compiler --test compiler MODULE::` runs one module's tests.

use std::path::{Path, PathBuf};

mod artifacts;
mod differential;
mod fixtures;
mod long_runs;
mod many_locations;
mod monitor;
#[path = "../../../check/tests/oracle/mod.rs"]
mod oracle;
mod running_example;

/// The repository's `fixtures/` directory.
fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures")
}
