//! End-to-end tests of the `multitrace` binary (one test binary, modules by topic), and the
//! data-driven suite of bad inputs (`bad_inputs`, cases in `tests/bad_inputs/cases/`).

mod bad_inputs;
mod bad_lines;
mod check;
mod compressed;
mod conventions;
mod distributed;
mod events;
mod expect;
mod gen;
mod guide;
mod model;
mod monitor;
mod monitor_csv;
mod monitor_otlp;
mod notes;
mod otel;
mod outputs;
mod partition;
mod pictures;
mod startup;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_multitrace"))
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn run(args: &[&str]) -> Output {
    bin().current_dir(root()).args(args).output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A scratch directory, removed when the test ends (also when it fails): a path for what the
/// test writes. `name` only makes a failing test's leftovers easier to read while it runs.
fn scratch(name: &str) -> Scratch {
    Scratch(
        tempfile::Builder::new()
            .prefix(&format!("multitrace-cli-{name}-"))
            .tempdir()
            .unwrap(),
    )
}

/// The directory of [`scratch`]; derefs to its path.
struct Scratch(tempfile::TempDir);

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        self.0.path()
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        self.0.path()
    }
}
