//! Compiled-model artifacts (`.mtm`): round trips, golden files, hostile bytes.

use super::fixtures_dir;
use multitrace_compiler::compile::{compile_interaction, CompileOptions};
use multitrace_compiler::syntax::read_interaction;
use multitrace_model::artifact::{decode, encode, LoadError, FORMAT_VERSION};
use multitrace_model::model::CompiledModel;

/// A fixture compiled with its variable facts (compile time) zeroed, for byte comparisons.
fn compiled(name: &str) -> CompiledModel {
    // A relative path (tests run in the crate's directory): notices quote the model's path,
    // and the bytes must not depend on where the repository is checked out.
    let dir = std::path::Path::new("../fixtures").join(name);
    let model = read_interaction(&dir.join("model.hif"), None).unwrap();
    let mut m = compile_interaction(&model, &CompileOptions::default()).unwrap();
    m.stats.compile_time_us = 0;
    m.stats.source = format!("fixtures/{name}/model.hif");
    m
}

#[test]
fn round_trip_preserves_the_model() {
    for name in ["seed004-mqtt", "loopP", "seed001-fig1"] {
        let m = compiled(name);
        let back = decode(&encode(&m)).unwrap();
        assert_eq!(back, m, "{name}");
    }
}

/// Golden artifacts catch format drift: the bytes of today's compiler must be those
/// committed in `fixtures/golden`. After an intended change of the format or of the payload,
/// bump FORMAT_VERSION if old files must be refused, and regenerate them with
/// `bash tests/bless-golden.sh` (`MULTITRACE_BLESS=1 cargo test -p multitrace-compiler
/// --test compiler golden`), which writes every committed `.mtm` built by the compiler.
#[test]
fn golden_artifacts_are_stable() {
    let golden = fixtures_dir().join("golden");
    for (name, kind) in [("seed004-mqtt", "automata"), ("loopP", "term-only")] {
        let m = compiled(name);
        assert_eq!(m.kind_name(), kind);
        let path = golden.join(format!("{name}.v{FORMAT_VERSION}.mtm"));
        let stored = bless_or_read(&path, &encode(&m));
        assert_eq!(decode(&stored).unwrap(), m);
    }
}

/// The hostile artifact of the bad-input case `mtm-hostile-alphabet` (found by the `mtm` fuzz
/// target): a correct header and checksum around loopP's model whose first location lists a
/// letter id out of range. Built here, so that it follows the payload when it changes.
#[test]
fn golden_hostile_artifact_is_stable() {
    let m = compiled("loopP");
    let mut json = serde_json::to_value(&m).unwrap();
    json["alphabet"]["location_letters"][0]
        .as_array_mut()
        .unwrap()
        .push(5.into());
    let hostile: CompiledModel = serde_json::from_value(json).unwrap();
    let path = fixtures_dir().join("../tests/bad_inputs/cases/mtm-hostile-alphabet.mtm");
    let stored = bless_or_read(&path, &encode(&hostile));
    match decode(&stored) {
        Err(LoadError::Invalid(e)) => {
            assert!(e.to_string().contains("letters of each location"), "{e}")
        }
        other => panic!("{other:?}"),
    }
}

/// Writes `bytes` to `path` under `MULTITRACE_BLESS`, then reads `path` and asserts it holds
/// `bytes`.
fn bless_or_read(path: &std::path::Path, bytes: &[u8]) -> Vec<u8> {
    if std::env::var_os("MULTITRACE_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
    let stored = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(
        stored == bytes,
        "{} differs from what the compiler writes now; after an intended change run `bash tests/bless-golden.sh`",
        path.display()
    );
    stored
}

#[test]
fn every_truncation_and_bit_flip_is_an_error() {
    let bytes = encode(&compiled("seed004-mqtt"));
    for len in 0..bytes.len() {
        let err = decode(&bytes[..len]).unwrap_err();
        assert!(
            matches!(err, LoadError::Truncated { .. } | LoadError::BadMagic),
            "{len}: {err:?}"
        );
    }
    for i in 0..bytes.len() {
        for bit in [0, 3, 7] {
            let mut b = bytes.clone();
            b[i] ^= 1 << bit;
            assert!(decode(&b).is_err(), "flip at byte {i} bit {bit} accepted");
        }
    }
    let mut wrong_version = bytes.clone();
    wrong_version[8] = 99;
    assert_eq!(
        decode(&wrong_version).unwrap_err(),
        LoadError::Version { found: 99 }
    );
    assert_eq!(
        decode(b"not a model at all, definitely").unwrap_err(),
        LoadError::BadMagic
    );
}

#[test]
fn a_payload_with_a_valid_checksum_but_bad_ids_is_rejected() {
    // Re-frame a payload whose NFA names a state out of range: the checksum is right, the
    // validation after decoding must catch it.
    let mut m = compiled("seed004-mqtt");
    if let multitrace_model::model::ModelKind::Automata(a) = &mut m.kind {
        a.projections[0].init_area = multitrace_model::project::AreaId(9_999);
    }
    let bytes = encode(&m);
    match decode(&bytes) {
        Err(LoadError::Invalid(e)) => assert_eq!(
            e,
            multitrace_model::model::InvalidModel::Verifier {
                location: 0,
                error: multitrace_model::project::TableError::Area
            }
        ),
        other => panic!("{other:?}"),
    }
}
