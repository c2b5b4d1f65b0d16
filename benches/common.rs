//! Models shared by the benchmarks (included with `#[path]`).

use multitrace_compiler::compile::{CompileOptions, LocationChoice};
use std::path::{Path, PathBuf};

/// Seed 004's three locations of the AutomatArk NFAs (`../shared/data/README.md`).
pub fn automatark_locations() -> LocationChoice {
    LocationChoice::Groups(vec![
        ["a0", "a1", "a2", "a3", "a4", "a5", "a16"]
            .map(String::from)
            .to_vec(),
        ["a6", "a7", "a8", "a9", "a10", "a17", "a18"]
            .map(String::from)
            .to_vec(),
        ["a11", "a12", "a13", "a14", "a15"]
            .map(String::from)
            .to_vec(),
    ])
}

/// The four AutomatArk NFAs present under `../shared/data` (name, file, options with the three
/// locations); empty when the data is absent.
pub fn automatark(root: &Path) -> Vec<(String, PathBuf, CompileOptions)> {
    let _ = root;
    let Some(data) = multitrace_model::testdata::data("automatark/NFA", "AutomatArk benchmarks")
    else {
        return Vec::new();
    };
    [
        "Bakery-4P-BinEnc-BwBad/armcNFA_inclTest_12",
        "Bakery-4P-BinEnc-BwBad/armcNFA_inclTest_11",
        "Bakery-4P-BinEnc-BwBad/armcNFA_inclTest_6",
        "IBakery4pBinEnc-FbtOneOne-Nondet/armcNFA_inclTest_10",
    ]
    .iter()
    .map(|nfa| data.join(format!("{nfa}.timbuk")))
    .filter(|p| {
        let there = p.exists();
        if !there {
            eprintln!("benchmark model {} absent, skipped", p.display());
        }
        there
    })
    .map(|p| {
        let name = p
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let opts = CompileOptions {
            locations: automatark_locations(),
            ..CompileOptions::default()
        };
        (name, p, opts)
    })
    .collect()
}
