//! `--locations` option reader: never panics; groups it returns are non-empty, names are
//! non-empty, without whitespace and unique.
#![no_main]

use libfuzzer_sys::fuzz_target;
use multitrace_compiler::syntax::parse_locations_spec;

fuzz_target!(|data: &[u8]| {
    let spec = String::from_utf8_lossy(data);
    if let Ok(groups) = parse_locations_spec(&spec) {
        let mut all: Vec<&String> = groups.iter().flatten().collect();
        assert!(groups.iter().all(|g| !g.is_empty()));
        assert!(all
            .iter()
            .all(|n| !n.is_empty() && !n.chars().any(char::is_whitespace)));
        let n = all.len();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), n);
    } else if let Err(e) = parse_locations_spec(&spec) {
        assert!(e.to_string().starts_with("--locations:"));
    }
});
