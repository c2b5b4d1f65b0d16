//! Tests of models by path: sources, artifacts and their staleness.

use super::*;
use crate::compile::LocationChoice;
use std::path::PathBuf;

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures")
        .join(rel)
}

fn scratch(name: &str) -> PathBuf {
    multitrace_model::testdata::scratch_dir("compiler-source", name)
}

#[test]
fn source_digest_matches_whatever_the_locations() {
    let hif = fixture("seed004-mqtt/model.hif");
    let art = Path::new("m.mtm");
    for locations in [
        LocationChoice::Default,
        LocationChoice::Groups(vec![vec!["clt1".into(), "brok".into()]]),
    ] {
        let opts = CompileOptions {
            locations,
            ..CompileOptions::default()
        };
        let model = load_model(&hif, None, &opts).unwrap();
        assert_eq!(check_source(art, &model, &hif, None), Ok(()));
        // Another interaction is refused, naming both files and how to recompile.
        let other = fixture("seed001-fig1/model.hif");
        let e = check_source(art, &model, &other, None).unwrap_err();
        let text = e.to_string();
        assert!(matches!(e, SourceError::SourceMismatch(_)), "{text}");
        assert!(
            text.starts_with("m.mtm: compiled from another model than "),
            "{text}"
        );
        assert!(text.contains("seed001-fig1/model.hif"), "{text}");
        assert!(text.contains("multitrace compile "), "{text}");
        assert!(text.ends_with("-o m.mtm`"), "{text}");
    }
    // With the grouped locations, the command to recompile keeps them.
    let opts = CompileOptions {
        locations: LocationChoice::Groups(vec![vec!["clt1".into(), "brok".into()]]),
        ..CompileOptions::default()
    };
    let model = load_model(&hif, None, &opts).unwrap();
    let e = check_source(art, &model, &fixture("seed001-fig1/model.hif"), None).unwrap_err();
    assert!(e.to_string().contains("--locations 'clt1,brok;"), "{e}");
}

#[test]
fn one_changed_byte_or_another_signature_is_a_mismatch() {
    let dir = scratch("changed");
    let hif = fixture("seed004-mqtt/model.hif");
    let sig = fixture("seed004-mqtt/signature.hsf");
    let text = std::fs::read_to_string(&hif).unwrap();
    std::fs::write(dir.join("model.hif"), &text).unwrap();
    std::fs::write(dir.join("signature.hsf"), std::fs::read(&sig).unwrap()).unwrap();
    let copy = dir.join("model.hif");
    let model = load_model(&copy, None, &CompileOptions::default()).unwrap();
    let art = dir.join("m.mtm");
    assert_eq!(check_source(&art, &model, &copy, None), Ok(()));
    assert_eq!(check_source(&art, &model, &copy, Some(&sig)), Ok(()));
    // A comment added: another text, another digest.
    std::fs::write(&copy, format!("{text}/* */")).unwrap();
    assert!(matches!(
        check_source(&art, &model, &copy, None),
        Err(SourceError::SourceMismatch(_))
    ));
    std::fs::write(&copy, &text).unwrap();
    // The same interaction with its signature inferred (no signature file).
    std::fs::remove_file(dir.join("signature.hsf")).unwrap();
    let e = check_source(&art, &model, &copy, None).unwrap_err();
    assert!(e.to_string().contains("with no signature file"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn timbuk_sources_and_unknown_kinds() {
    let dir = scratch("timbuk");
    let tbk = dir.join("a.timbuk");
    let text = "Ops a0:1 a1:1 x:0\nAutomaton A\nStates q0 q1\nFinal States q1\nTransitions\nx -> q0\na0(q0) -> q1\na1(q1) -> q1\n";
    std::fs::write(&tbk, text).unwrap();
    let opts = CompileOptions {
        locations: LocationChoice::Groups(vec![vec!["a0".into()], vec!["a1".into()]]),
        ..CompileOptions::default()
    };
    let model = load_model(&tbk, None, &opts).unwrap();
    let art = dir.join("a.mtm");
    assert_eq!(check_source(&art, &model, &tbk, None), Ok(()));
    // An interaction is not the Timbuk file it was compiled from.
    let hif = fixture("seed004-mqtt/model.hif");
    let e = check_source(&art, &model, &hif, None).unwrap_err();
    assert!(e.to_string().contains("records its source as"), "{e}");
    // A compiled model is not a source.
    let e = check_source(&art, &model, &art, None).unwrap_err();
    assert_eq!(e, SourceError::UnknownSourceKind(art.display().to_string()));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn recorded_sources_are_absolute_and_read_back() {
    let r = record_source(Path::new("a/model.hif"), None);
    let parsed = RecordedSource::parse(&r).unwrap();
    assert!(parsed.model.is_absolute(), "{r}");
    assert!(parsed.model.ends_with("a/model.hif"), "{r}");
    assert_eq!(parsed.signature, None);
    let r = record_source(Path::new("model.hif"), Some(Path::new("sigs/s.hsf")));
    let parsed = RecordedSource::parse(&r).unwrap();
    assert!(
        parsed.model.is_absolute() && parsed.model.ends_with("model.hif"),
        "{r}"
    );
    let sig = parsed.signature.unwrap();
    assert!(sig.is_absolute() && sig.ends_with("sigs/s.hsf"), "{r}");
    assert_eq!(RecordedSource::parse(""), None);
    // A relative path (earlier versions) is tried from the current directory, then beside
    // the compiled model.
    let old = RecordedSource::parse("fixtures/m.hif").unwrap();
    assert_eq!(
        old.candidates(Path::new("out/m.mtm")),
        vec![
            PathBuf::from("fixtures/m.hif"),
            PathBuf::from("out/fixtures/m.hif")
        ]
    );
    assert_eq!(
        old.candidates(Path::new("m.mtm")),
        vec![PathBuf::from("fixtures/m.hif")]
    );
}

/// A copy of the MQTT interaction and its signature in a scratch directory, compiled as
/// `multitrace compile` does (the source recorded by [`record_source`]).
fn compiled_copy(dir: &Path, signature: Option<&Path>) -> (PathBuf, String, CompiledModel) {
    let text = std::fs::read_to_string(fixture("seed004-mqtt/model.hif")).unwrap();
    let hif = dir.join("model.hif");
    std::fs::write(&hif, &text).unwrap();
    let mut model = load_model(&hif, signature, &CompileOptions::default()).unwrap();
    model.stats.source = record_source(&hif, signature);
    (hif, text, model)
}

#[test]
fn an_edited_recorded_source_makes_the_model_stale() {
    let dir = scratch("stale");
    std::fs::copy(
        fixture("seed004-mqtt/signature.hsf"),
        dir.join("signature.hsf"),
    )
    .unwrap();
    let (hif, text, model) = compiled_copy(&dir, None);
    let art = dir.join("m.mtm");
    assert_eq!(
        check_recorded_source(&art, &model),
        Freshness::Fresh {
            source: std::path::absolute(&hif).unwrap()
        }
    );
    // One byte more in the interaction: stale, naming both files and the command.
    std::fs::write(&hif, format!("{text} ")).unwrap();
    let Freshness::Stale(m) = check_recorded_source(&art, &model) else {
        panic!("not stale")
    };
    assert_ne!(m.source_digest, m.artifact_digest);
    let e = SourceError::Stale(m).to_string();
    let abs = std::path::absolute(&hif).unwrap().display().to_string();
    assert!(
        e.starts_with(&format!(
            "{}: stale compiled model: its source {abs} with signature ",
            art.display()
        )),
        "{e}"
    );
    assert!(
        e.contains(&format!("`multitrace compile {abs} -o {}`", art.display())),
        "{e}"
    );
    assert!(e.contains("--allow-stale"), "{e}");
    // The text back: fresh again. The signature file edited: stale.
    std::fs::write(&hif, &text).unwrap();
    assert!(matches!(
        check_recorded_source(&art, &model),
        Freshness::Fresh { .. }
    ));
    std::fs::write(
        dir.join("signature.hsf"),
        "@lifeline{clt1;brok;clt2}\n@message{begin;end;pub;sub;x}",
    )
    .unwrap();
    assert!(matches!(
        check_recorded_source(&art, &model),
        Freshness::Stale(_)
    ));
    // The source removed (or the model moved to another host): nothing to compare.
    std::fs::remove_file(&hif).unwrap();
    assert_eq!(check_recorded_source(&art, &model), Freshness::Gone);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_explicit_signature_is_recorded_and_compared() {
    let dir = scratch("explicit-signature");
    let sigs = dir.join("sigs");
    std::fs::create_dir_all(&sigs).unwrap();
    let sig = sigs.join("mqtt.hsf");
    std::fs::copy(fixture("seed004-mqtt/signature.hsf"), &sig).unwrap();
    let (_, _, model) = compiled_copy(&dir, Some(&sig));
    let art = dir.join("m.mtm");
    // No signature beside the interaction: only the recorded one gives the digest.
    assert!(matches!(
        check_recorded_source(&art, &model),
        Freshness::Fresh { .. }
    ));
    std::fs::write(
        &sig,
        "@lifeline{clt1;brok;clt2}\n@message{begin;end;pub;sub;x}",
    )
    .unwrap();
    let Freshness::Stale(m) = check_recorded_source(&art, &model) else {
        panic!("not stale")
    };
    let abs_sig = std::path::absolute(&sig).unwrap().display().to_string();
    assert_eq!(m.signature.as_deref(), Some(abs_sig.as_str()));
    assert!(
        m.recompile.contains(&format!(" --signature {abs_sig} -o ")),
        "{}",
        m.recompile
    );
    // The signature file gone: the source cannot be compared (a note, not an error).
    std::fs::remove_file(&sig).unwrap();
    let Freshness::Unchecked { reason, .. } = check_recorded_source(&art, &model) else {
        panic!("not unchecked")
    };
    assert!(reason.contains("mqtt.hsf no longer exists"), "{reason}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn relative_recorded_sources_are_found_beside_the_model_or_reported() {
    let dir = scratch("relative");
    std::fs::copy(
        fixture("seed004-mqtt/signature.hsf"),
        dir.join("signature.hsf"),
    )
    .unwrap();
    let (hif, text, mut model) = compiled_copy(&dir, None);
    let art = dir.join("m.mtm");
    // As an earlier version recorded it: the name given to `compile` run in `dir`.
    let name = format!("model-{}.hif", std::process::id());
    std::fs::rename(&hif, dir.join(&name)).unwrap();
    model.stats.source = name.clone();
    assert_eq!(
        check_recorded_source(&art, &model),
        Freshness::Fresh {
            source: dir.join(&name)
        }
    );
    std::fs::write(dir.join(&name), format!("{text}/* */")).unwrap();
    assert!(matches!(
        check_recorded_source(&art, &model),
        Freshness::Stale(_)
    ));
    std::fs::remove_file(dir.join(&name)).unwrap();
    let Freshness::NotFound { recorded, tried } = check_recorded_source(&art, &model) else {
        panic!("found")
    };
    assert_eq!(recorded, name);
    assert_eq!(tried, vec![PathBuf::from(&name), dir.join(&name)]);
    // Nothing recorded: nothing to compare.
    model.stats.source.clear();
    assert_eq!(check_recorded_source(&art, &model), Freshness::Gone);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_recompile_command_keeps_locations_and_term_only() {
    let dir = scratch("recompile");
    // Timbuk without `Systems`, compiled with --locations: they are given back.
    let tbk = dir.join("a.timbuk");
    let text = "Ops a0:1 a1:1 x:0\nAutomaton A\nStates q0 q1\nFinal States q1\nTransitions\nx -> q0\na0(q0) -> q1\na1(q1) -> q1\n";
    std::fs::write(&tbk, text).unwrap();
    let opts = CompileOptions {
        locations: LocationChoice::Groups(vec![vec!["a1".into()], vec!["a0".into()]]),
        ..CompileOptions::default()
    };
    let mut model = load_model(&tbk, None, &opts).unwrap();
    model.stats.source = record_source(&tbk, None);
    std::fs::write(&tbk, format!("{text}\n")).unwrap();
    let Freshness::Stale(m) = check_recorded_source(&dir.join("a.mtm"), &model) else {
        panic!("not stale")
    };
    assert!(
        m.recompile.contains(" --locations 'a1;a0' -o "),
        "{}",
        m.recompile
    );
    assert_eq!(m.with_signature(), "");
    // With its `Systems` block, the default locations are not repeated.
    let with_systems = format!("{text}Systems\n  [p] a0\n  [q] a1\n");
    std::fs::write(&tbk, &with_systems).unwrap();
    let mut model = load_model(&tbk, None, &CompileOptions::default()).unwrap();
    model.stats.source = record_source(&tbk, None);
    std::fs::write(&tbk, format!("{with_systems}\n")).unwrap();
    let Freshness::Stale(m) = check_recorded_source(&dir.join("a.mtm"), &model) else {
        panic!("not stale")
    };
    assert!(!m.recompile.contains("--locations"), "{}", m.recompile);
    // An interaction compiled term-only on singleton locations in another order than the
    // signature's.
    std::fs::copy(
        fixture("seed004-mqtt/signature.hsf"),
        dir.join("signature.hsf"),
    )
    .unwrap();
    let (hif, text, _) = compiled_copy(&dir, None);
    let opts = CompileOptions {
        locations: LocationChoice::Groups(vec![vec!["clt2".into()]]),
        policy: crate::compile::AutomataPolicy::Never,
        ..CompileOptions::default()
    };
    let model = load_model(&hif, None, &opts).unwrap();
    std::fs::write(&hif, format!("{text} ")).unwrap();
    let e = check_source(Path::new("m.mtm"), &model, &hif, None).unwrap_err();
    assert!(
        e.to_string()
            .contains(" --locations 'clt2;clt1;brok' --term-only -o m.mtm`"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn oversized_artifacts_are_refused_before_reading() {
    let dir = scratch("oversized");
    let path = dir.join("big.mtm");
    std::fs::write(&path, vec![0u8; 100]).unwrap();
    let e = load_artifact_limited(&path, 99).unwrap_err();
    assert!(
        e.to_string()
            .contains("larger than 99 bytes, the largest compiled model"),
        "{e}"
    );
    // At the limit, the bytes are read and decoded (and refused as garbage).
    let e = load_artifact_limited(&path, 100).unwrap_err();
    assert!(matches!(e, SourceError::Load { .. }), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}
