//! End-to-end tests of the `multitrace` binary (one test binary, modules by topic), and the
//! data-driven suite of bad inputs (`bad_inputs`, cases in `tests/bad_inputs/cases/`).

mod bad_inputs;
mod check;
mod distributed;
mod events;
mod gen;
mod model;
mod monitor;
mod partition;
mod pictures;

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

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("multitrace-cli-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}
