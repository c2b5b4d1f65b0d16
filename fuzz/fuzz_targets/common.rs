//! Shared fixtures of the fuzz targets (included with `#[path]`, not a module of its own).
#![allow(dead_code)]

use multitrace_model::nfa::{Alphabet, LocationId};
use multitrace_model::signature::Signature;

/// Input bytes as text: valid UTF-8 as is, anything else through lossy conversion (the
/// readers take `&str`; `read_text` refuses invalid UTF-8 before them).
pub fn text(data: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(data)
}

/// The lifelines and messages of the fixtures and of the HIBOU sample (`l1..l5`, `m1..m6`).
pub fn signature() -> Signature {
    let mut s = Signature::new();
    for l in [
        "l1", "l2", "l3", "l4", "l5", "clt1", "brok", "clt2", "l_p", "l_b", "l_s", "a", "b", "c",
    ] {
        s.add_lifeline(l).expect("few lifelines");
    }
    for m in [
        "m", "m1", "m2", "m3", "m4", "m5", "m6", "begin", "pub", "sub", "end",
    ] {
        s.add_message(m);
    }
    s
}

/// Seed 004's running example partition (`[l1] a e`, `[l2] c d`, `[l3] b`) and a few
/// AutomatArk-like letters, one with a non-ASCII name.
pub fn alphabet() -> Alphabet {
    let letters = [
        ("a", 0),
        ("e", 0),
        ("c", 1),
        ("d", 1),
        ("b", 2),
        ("a0", 0),
        ("a17", 1),
        ("x∅y", 2),
    ];
    Alphabet::new(
        letters.iter().map(|(n, _)| n.to_string()).collect(),
        letters.iter().map(|&(_, k)| LocationId(k)).collect(),
        vec!["l1".into(), "l2".into(), "l3".into()],
    )
    .expect("valid alphabet")
}
