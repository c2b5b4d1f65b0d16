//! Models named by path: an interaction (`.hif`), a raw automaton (`.timbuk`), or a compiled
//! model (`.mtm`), read and compiled as needed.

use crate::compile::{compile_automaton, compile_interaction, CompileError, CompileOptions};
use crate::syntax::{
    parse_timbuk, read_interaction, read_text, InteractionModel, ModelError, TimbukAutomaton,
};
use multitrace_runtime::artifact::{decode, LoadError};
use multitrace_runtime::model::CompiledModel;
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
pub fn load_artifact(path: &Path) -> Result<CompiledModel, SourceError> {
    let bytes = std::fs::read(path).map_err(|e| {
        SourceError::Model(ModelError::Io {
            path: path.to_path_buf(),
            message: e.to_string(),
        })
    })?;
    decode(&bytes).map_err(|error| SourceError::Load {
        path: path.display().to_string(),
        error,
    })
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
