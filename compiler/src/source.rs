//! Models named by path: an interaction (`.hif`), a raw automaton (`.timbuk`), or a compiled
//! model (`.mtm`), read and compiled as needed.

use crate::compile::{
    automaton_digest, compile_automaton, compile_interaction, interaction_digest, CompileError,
    CompileOptions,
};
use crate::syntax::{
    find_signature, interaction_text_digest, parse_timbuk, read_interaction, read_text,
    InteractionModel, ModelError, TimbukAutomaton,
};
use multitrace_runtime::artifact::{decode, LoadError, MAX_ARTIFACT_BYTES};
use multitrace_runtime::model::CompiledModel;
use multitrace_runtime::model::Origin;
use std::fmt;
use std::path::Path;

/// A source model.
#[derive(Clone, Debug)]
pub enum Source {
    /// An interaction and its signature.
    Interaction(Box<InteractionModel>),
    /// A Timbuk automaton.
    Automaton {
        /// The automaton.
        aut: TimbukAutomaton,
        /// Its file.
        file: String,
        /// The file's text (for the digest).
        text: String,
    },
}

/// A compiled model and a source it was not compiled from (see [`check_source`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// The compiled model's file.
    pub artifact: String,
    /// The source file named with it.
    pub source: String,
    /// The signature file read with an interaction source, if any.
    pub signature: Option<String>,
    /// The compiled model's digest.
    pub artifact_digest: u64,
    /// The digest the source gives with the compiled model's locations.
    pub source_digest: u64,
    /// The source file the compiled model records.
    pub recorded: String,
    /// The command that compiles the source again.
    pub recompile: String,
}

/// Why a model could not be obtained.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SourceError {
    /// A source file could not be read or parsed.
    Model(ModelError),
    /// A compiled model could not be loaded.
    Load {
        /// The file.
        path: String,
        /// Why.
        error: LoadError,
    },
    /// The model could not be compiled.
    Compile(CompileError),
    /// The file's kind is unknown.
    UnknownKind(String),
    /// The `--source` of a compiled model is not a source model.
    UnknownSourceKind(String),
    /// A compiled model was not compiled from the source named with it ([`check_source`]).
    SourceMismatch(Box<Mismatch>),
}

impl fmt::Display for SourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SourceError::Model(e) => e.fmt(f),
            SourceError::Load { path, error } => write!(f, "{path}: {error}"),
            SourceError::Compile(e) => e.fmt(f),
            SourceError::UnknownKind(p) => write!(
                f,
                "{p}: unknown model kind; expected an interaction (.hif), a Timbuk automaton (.timbuk) or a compiled model (.mtm)"
            ),
            SourceError::UnknownSourceKind(p) => write!(
                f,
                "{p}: unknown kind of source model (--source); expected the interaction (.hif) or Timbuk automaton (.timbuk) the compiled model was compiled from"
            ),
            SourceError::SourceMismatch(m) => {
                let Mismatch {
                    artifact,
                    source,
                    signature,
                    artifact_digest,
                    source_digest,
                    recorded,
                    recompile,
                } = m.as_ref();
                let with = match signature {
                    Some(s) => format!(" with signature {s}"),
                    None if source.ends_with(".hif") => " with no signature file".to_string(),
                    None => String::new(),
                };
                write!(
                    f,
                    "{artifact}: compiled from another model than {source}{with} (digest {artifact_digest:016x}, the source gives {source_digest:016x}; the compiled model records its source as `{recorded}`); compile it again: `{recompile}`"
                )
            }
        }
    }
}

impl std::error::Error for SourceError {}

impl From<ModelError> for SourceError {
    fn from(e: ModelError) -> Self {
        SourceError::Model(e)
    }
}

impl From<CompileError> for SourceError {
    fn from(e: CompileError) -> Self {
        SourceError::Compile(e)
    }
}

fn extension(path: &Path) -> String {
    path.extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default()
}

/// Reads a source model (`.hif` or `.timbuk`).
pub fn read_source(path: &Path, signature: Option<&Path>) -> Result<Source, SourceError> {
    match extension(path).as_str() {
        "hif" => Ok(Source::Interaction(Box::new(read_interaction(
            path, signature,
        )?))),
        "timbuk" | "tbk" => {
            let text = read_text(path)?;
            let file = path.display().to_string();
            let aut = parse_timbuk(&file, &text).map_err(ModelError::Parse)?;
            Ok(Source::Automaton { aut, file, text })
        }
        _ => Err(SourceError::UnknownKind(path.display().to_string())),
    }
}

/// Compiles a source model.
pub fn compile_source(src: &Source, opts: &CompileOptions) -> Result<CompiledModel, SourceError> {
    Ok(match src {
        Source::Interaction(m) => compile_interaction(m, opts)?,
        Source::Automaton { aut, file, text } => compile_automaton(aut, file, text, opts)?,
    })
}

/// Loads a compiled model (`.mtm`).
///
/// A file larger than [`MAX_ARTIFACT_BYTES`] (a header, the largest payload and a checksum)
/// is refused without being read whole; reading stops one byte past the limit.
pub fn load_artifact(path: &Path) -> Result<CompiledModel, SourceError> {
    load_artifact_limited(path, MAX_ARTIFACT_BYTES)
}

fn load_artifact_limited(path: &Path, limit: u64) -> Result<CompiledModel, SourceError> {
    use std::io::Read;
    let io = |message: String| {
        SourceError::Model(ModelError::Io {
            path: path.to_path_buf(),
            message,
        })
    };
    let file = std::fs::File::open(path).map_err(|e| io(e.to_string()))?;
    let size = file.metadata().map_or(0, |m| m.len());
    let too_large = || {
        io(format!(
            "larger than {limit} bytes, the largest compiled model multitrace reads; is this a compiled model (.mtm)?"
        ))
    };
    if size > limit {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| io(e.to_string()))?;
    if bytes.len() as u64 > limit {
        return Err(too_large());
    }
    decode(&bytes).map_err(|error| SourceError::Load {
        path: path.display().to_string(),
        error,
    })
}

/// Checks that `model`, loaded from the compiled model file `artifact`, was compiled from the
/// source model `source` (`.hif` with its signature, or `.timbuk`).
///
/// The source's digest is computed as the compiler computes it, from the source's text (and,
/// for an interaction, its signature file's text: `signature`, else the file
/// [`find_signature`] finds, else none) and the compiled model's own locations, so the
/// comparison holds whatever options the model was compiled with (`--locations`, caps,
/// `--term-only`): it tells whether the source text changed or is another file. The source is
/// read, not parsed.
pub fn check_source(
    artifact: &Path,
    model: &CompiledModel,
    source: &Path,
    signature: Option<&Path>,
) -> Result<(), SourceError> {
    let quote = |p: &Path| {
        let s = p.display().to_string();
        if s.contains(|c: char| c.is_whitespace() || c == '\'') {
            format!("'{}'", s.replace('\'', "'\\''"))
        } else {
            s
        }
    };
    let mut recompile = format!("multitrace compile {}", quote(source));
    let (source_digest, signature_file) = match extension(source).as_str() {
        "hif" => {
            let signature_file = signature
                .map(Path::to_path_buf)
                .or_else(|| find_signature(source));
            let sig_text = match &signature_file {
                Some(p) => read_text(p)?,
                None => String::new(),
            };
            let text = read_text(source)?;
            if let Some(s) = signature {
                recompile += &format!(" --signature {}", quote(s));
            }
            let names = model.alphabet.location_names();
            if matches!(model.origin, Origin::Interaction { .. })
                && names.iter().any(|n| n.contains(','))
            {
                recompile += &format!(" --locations '{}'", names.join(";"));
            }
            (
                interaction_digest(interaction_text_digest(&text, &sig_text), &model.alphabet),
                signature_file.map(|p| p.display().to_string()),
            )
        }
        "timbuk" | "tbk" => {
            let text = read_text(source)?;
            (automaton_digest(&text, &model.alphabet), None)
        }
        _ => return Err(SourceError::UnknownSourceKind(source.display().to_string())),
    };
    if source_digest == model.digest {
        return Ok(());
    }
    recompile += &format!(" -o {}", quote(artifact));
    Err(SourceError::SourceMismatch(Box::new(Mismatch {
        artifact: artifact.display().to_string(),
        source: source.display().to_string(),
        signature: signature_file,
        artifact_digest: model.digest,
        source_digest,
        recorded: model.stats.source.clone(),
        recompile,
    })))
}

/// A model named by path: compiled (`.mtm`), or read and compiled in memory.
pub fn load_model(
    path: &Path,
    signature: Option<&Path>,
    opts: &CompileOptions,
) -> Result<CompiledModel, SourceError> {
    if extension(path) == "mtm" {
        return load_artifact(path);
    }
    compile_source(&read_source(path, signature)?, opts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::LocationChoice;
    use std::path::PathBuf;

    fn fixture(rel: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../fixtures")
            .join(rel)
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "multitrace-compiler-source-{}-{name}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
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
}
