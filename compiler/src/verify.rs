//! `multitrace verify`: is a compiled model exactly what its source compiles to?
//!
//! The source hash in a `.mtm` header (SHA-256 of the source texts and locations) detects a
//! stale or mismatched file, an accident; the header is not signed, and anyone who can write
//! the file can give it any header. `verify` is the check a user can trust against both: it
//! compiles the source again, with the model's own locations, and compares the two artifacts
//! byte for byte. Compilation is deterministic (tested on every fixture), so any difference is
//! a change of the source, of the options, of the compiler, or of the file.
//!
//! Only the compile statistics are taken from the file before comparing (compile time, the
//! source path as recorded, the notices, which quote paths as they were typed): they describe
//! how the model was built, not what it decides.

use crate::compile::{AutomataPolicy, TERM_ONLY_BY_OPTION};
use crate::open::{ModelOptions, OpenError};
use crate::source::{compile_source, load_artifact, read_source, RecordedSource, SourceError};
use multitrace_model::artifact::encode;
use multitrace_model::model::{CompiledModel, ModelKind, Origin};
use multitrace_model::nfa::LocationId;
use multitrace_model::syntax::ModelError;
use std::path::{Path, PathBuf};

/// What [`verify`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verification {
    /// The source compiled again.
    pub source: PathBuf,
    /// Bytes of the compiled model file.
    pub artifact_bytes: usize,
    /// Bytes of the model compiled again.
    pub rebuilt_bytes: usize,
    /// The first byte where they differ; `None` when identical.
    pub first_difference: Option<usize>,
}

impl Verification {
    /// What `verify` prints of the compiled model `artifact`: identical, or where it differs
    /// and how to rebuild it.
    pub fn message(&self, artifact: &Path) -> String {
        let (model, source) = (artifact.display(), self.source.display());
        match self.first_difference {
            None => format!(
                "{model}: verified: identical to what {source} compiles to ({} bytes)",
                self.artifact_bytes
            ),
            Some(at) => format!(
                "{model}: differs from what {source} compiles to (first difference at byte {at}; \
                 {} bytes against {}): stale, compiled with other options, or altered; \
                 `multitrace compile {source} -o {model}` rebuilds it",
                self.artifact_bytes, self.rebuilt_bytes
            ),
        }
    }
}

/// Compiles again the source of the compiled model `artifact` (`opts.source`, else the source
/// it records, with the signature given or recorded) with `opts`' compile options and the
/// model's own locations (unless `opts` names others), and compares the two artifacts.
pub fn verify(artifact: &Path, opts: &ModelOptions) -> Result<Verification, OpenError> {
    let model = load_artifact(artifact)?;
    let bytes = std::fs::read(artifact).map_err(|e| {
        SourceError::Model(ModelError::Io {
            path: artifact.to_path_buf(),
            message: e.to_string(),
        })
    })?;
    let (source, signature) = source_of(artifact, &model, opts)?;
    let mut options = ModelOptions {
        source: None,
        allow_stale: false,
        signature: None,
        ..opts.clone()
    };
    if options.locations.is_none() && options.random_locations.is_none() {
        options.locations = Some(locations_spec(&model));
    }
    let by_option = matches!(&model.kind, ModelKind::TermOnly(r) if r == TERM_ONLY_BY_OPTION);
    let policy = if by_option {
        AutomataPolicy::Never
    } else {
        AutomataPolicy::Auto
    };
    let src = read_source(&source, signature.as_deref())?;
    let mut rebuilt = compile_source(&src, &options.compile_options(policy)?)?;
    rebuilt.stats = model.stats.clone();
    let again = encode(&rebuilt);
    let first_difference = bytes
        .iter()
        .zip(&again)
        .position(|(a, b)| a != b)
        .or((bytes.len() != again.len()).then(|| bytes.len().min(again.len())));
    Ok(Verification {
        source,
        artifact_bytes: bytes.len(),
        rebuilt_bytes: again.len(),
        first_difference,
    })
}

/// The source to compile again and its signature: the ones given, else the recorded ones.
fn source_of(
    artifact: &Path,
    model: &CompiledModel,
    opts: &ModelOptions,
) -> Result<(PathBuf, Option<PathBuf>), OpenError> {
    if let Some(s) = &opts.source {
        return Ok((s.clone(), opts.signature.clone()));
    }
    let recorded = RecordedSource::parse(&model.stats.source).ok_or_else(|| {
        SourceError::Model(ModelError::Io {
            path: artifact.to_path_buf(),
            message: "it records no source; give --source FILE".into(),
        })
    })?;
    let candidates = recorded.candidates(artifact);
    let found = candidates.iter().find(|p| p.is_file()).ok_or_else(|| {
        SourceError::Model(ModelError::Io {
            path: artifact.to_path_buf(),
            message: format!(
                "its source `{}` is not found; give --source FILE",
                recorded.model.display()
            ),
        })
    })?;
    Ok((found.clone(), opts.signature.clone().or(recorded.signature)))
}

/// The model's locations as `--locations` takes them: lifelines of each location for an
/// interaction, letters for an automaton.
fn locations_spec(model: &CompiledModel) -> String {
    let a = &model.alphabet;
    match &model.origin {
        Origin::Interaction { .. } => a.location_names().join(";"),
        _ => (0..a.locations())
            .map(|k| {
                a.letters_of(LocationId(k as u32))
                    .iter()
                    .map(|&l| a.name(l))
                    .collect::<Vec<_>>()
                    .join(",")
            })
            .collect::<Vec<_>>()
            .join(";"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::open::compile_model;
    use multitrace_model::nfa::{Nfa, StateId};

    fn fixture(rel: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../fixtures")
            .join(rel)
    }

    /// Compiles `source` with `opts` into `out` as `multitrace compile` does.
    fn compile_to(source: &Path, opts: &ModelOptions, out: &Path) -> Vec<u8> {
        let m = compile_model(source, opts, AutomataPolicy::Auto, &mut |_| {}).unwrap();
        let bytes = encode(&m);
        std::fs::write(out, &bytes).unwrap();
        bytes
    }

    #[test]
    fn compilation_is_deterministic_on_every_fixture() {
        let dir = fixture("");
        let mut sources = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let d = entry.unwrap().path();
            for name in ["model.hif", "model.timbuk"] {
                let src = d.join(name);
                if !src.is_file() {
                    continue;
                }
                let compile = || {
                    let mut m = compile_model(
                        &src,
                        &ModelOptions::default(),
                        AutomataPolicy::Auto,
                        &mut |_| {},
                    )
                    .unwrap();
                    m.stats.compile_time_us = 0;
                    encode(&m)
                };
                let (first, second) = (compile(), compile());
                assert!(
                    first == second,
                    "{}: two compilations differ",
                    src.display()
                );
                sources += 1;
            }
        }
        assert!(sources >= 8, "{sources} fixtures");
    }

    #[test]
    fn a_faithful_model_verifies_and_a_tampered_one_does_not() {
        let tmp = std::env::temp_dir().join(format!("multitrace-verify-{}", std::process::id()));
        std::fs::create_dir_all(&tmp).unwrap();
        let src = fixture("seed004-mqtt/model.hif");
        let out = tmp.join("m.mtm");
        // With other locations than the default: they are taken from the model.
        let opts = ModelOptions {
            locations: Some("clt1,brok;clt2".into()),
            ..ModelOptions::default()
        };
        let bytes = compile_to(&src, &opts, &out);
        let v = verify(&out, &ModelOptions::default()).unwrap();
        assert_eq!(v.first_difference, None, "{v:?}");
        assert_eq!(v.artifact_bytes, bytes.len());
        assert_eq!(v.source, std::path::absolute(&src).unwrap());
        // Another source given: the models differ.
        let other = ModelOptions {
            source: Some(fixture("seed001-fig1/model.hif")),
            ..ModelOptions::default()
        };
        assert!(verify(&out, &other).map_or(true, |v| v.first_difference.is_some()));
        // A model forged with a correct header and checksum: the initial state made accepting
        // or not (another language under the same header digest).
        let mut m = load_artifact(&out).unwrap();
        let ModelKind::Automata(a) = &mut m.kind else {
            panic!("the MQTT fixture compiles to automata");
        };
        let nfa = &a.nfa;
        a.nfa = Nfa::new(
            nfa.states() as u32,
            nfa.initial().to_vec(),
            (0..nfa.states())
                .map(|s| nfa.is_accepting(StateId(s as u32)) != (s == 0))
                .collect(),
            nfa.transitions().to_vec(),
            m.alphabet.len(),
        )
        .unwrap();
        std::fs::write(&out, encode(&m)).unwrap();
        let v = verify(&out, &ModelOptions::default()).unwrap();
        assert!(v.first_difference.is_some(), "{v:?}");
        let _ = std::fs::remove_dir_all(&tmp);
    }
}
