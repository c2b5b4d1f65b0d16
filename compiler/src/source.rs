//! Models named by path: an interaction (`.hif`), a raw automaton (`.timbuk`), or a compiled
//! model (`.mtm`), read and compiled as needed.

use crate::compile::{
    automaton_digest, compile_automaton, compile_interaction, interaction_digest, CompileError,
    CompileOptions, TERM_ONLY_BY_OPTION,
};
use crate::diagrams::{read_diagram, Dialect};
use crate::syntax::{
    find_signature, interaction_text_digest, parse_timbuk, read_interaction, read_text,
    InteractionModel, ModelError, TimbukAutomaton,
};
use multitrace_model::artifact::{decode, LoadError, SourceHash, MAX_ARTIFACT_BYTES};
use multitrace_model::model::{CompiledModel, ModelKind, Origin};
use multitrace_model::nfa::LocationId;
use std::fmt;
use std::path::{Path, PathBuf};

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
    /// The compiled model's source hash (SHA-256).
    pub artifact_digest: SourceHash,
    /// The hash the source gives with the compiled model's locations.
    pub source_digest: SourceHash,
    /// The source file the compiled model records.
    pub recorded: String,
    /// The command that compiles the source again.
    pub recompile: String,
}

impl Mismatch {
    /// ` with signature FILE`, ` with no signature file` (an interaction whose names are
    /// inferred) or nothing (a Timbuk file).
    pub fn with_signature(&self) -> String {
        match &self.signature {
            Some(s) => format!(" with signature {s}"),
            None if extension(Path::new(&self.source)) == "hif" => {
                " with no signature file".to_string()
            }
            None => String::new(),
        }
    }
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
    /// The source a compiled model records has changed since it was compiled
    /// ([`check_recorded_source`]).
    Stale(Box<Mismatch>),
}

impl fmt::Display for SourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SourceError::Model(e) => e.fmt(f),
            SourceError::Load { path, error } => write!(f, "{path}: {error}"),
            SourceError::Compile(e) => e.fmt(f),
            SourceError::UnknownKind(p) => write!(
                f,
                "{p}: unknown model kind; expected an interaction (.hif), a sequence diagram (Mermaid .mmd or .md, PlantUML .puml), a Timbuk automaton (.timbuk) or a compiled model (.mtm)"
            ),
            SourceError::UnknownSourceKind(p) => write!(
                f,
                "{p}: unknown kind of source model (--source); expected the interaction (.hif), sequence diagram (.mmd, .md, .puml) or Timbuk automaton (.timbuk) the compiled model was compiled from"
            ),
            SourceError::SourceMismatch(m) => {
                let Mismatch {
                    artifact,
                    source,
                    artifact_digest,
                    source_digest,
                    recorded,
                    recompile,
                    ..
                } = m.as_ref();
                let with = m.with_signature();
                write!(
                    f,
                    "{artifact}: compiled from another model than {source}{with} (SHA-256 {artifact_digest}, the source gives {source_digest}; the compiled model records its source as `{recorded}`); compile it again: `{recompile}`"
                )
            }
            SourceError::Stale(m) => {
                let Mismatch {
                    artifact,
                    source,
                    artifact_digest,
                    source_digest,
                    recompile,
                    ..
                } = m.as_ref();
                write!(
                    f,
                    "{artifact}: stale compiled model: its source {source}{} has changed since it was compiled (SHA-256 {artifact_digest}, the source now gives {source_digest}); compile it again: `{recompile}`, or pass --allow-stale to use it as it is",
                    m.with_signature()
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
        _ if Dialect::of_path(path).is_some() => {
            let dialect = Dialect::of_path(path).expect("a diagram");
            Ok(Source::Interaction(Box::new(read_diagram(
                path, dialect, signature,
            )?)))
        }
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

/// Quotes a path or word for a POSIX shell when it needs it.
fn shell_quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+,:=@%".contains(c));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// The options that rebuild `model`'s locations (and `--term-only`) from a source, for the
/// `multitrace compile` command of a message: nothing when the source's default locations
/// are the model's.
///
/// An interaction's default is one location per lifeline in signature order; a Timbuk file's
/// is its `Systems` block (`source_text`, when it parses), and a model whose locations are
/// named `l1`, `l2`, ... (`--locations` or `--random-locations`) gets its letter groups.
fn location_options(model: &CompiledModel, source_text: Option<&str>) -> String {
    let names = model.alphabet.location_names();
    let groups = || -> Vec<String> {
        (0..model.alphabet.locations())
            .map(|k| {
                model
                    .alphabet
                    .letters_of(LocationId(k as u32))
                    .iter()
                    .map(|&l| model.alphabet.name(l).to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            })
            .collect()
    };
    let mut out = String::new();
    match &model.origin {
        Origin::Interaction { signature, .. } => {
            if names != signature.lifelines() {
                out += &format!(" --locations {}", shell_quote(&names.join(";")));
            }
        }
        Origin::Automaton => {
            let systems = source_text
                .and_then(|t| parse_timbuk("", t).ok())
                .and_then(|a| a.systems)
                .map(|s| s.into_iter().map(|(n, _)| n).collect::<Vec<_>>());
            let numbered = names
                .iter()
                .enumerate()
                .all(|(k, n)| *n == format!("l{}", k + 1));
            if numbered && systems.as_deref() != Some(names) {
                out += &format!(" --locations {}", shell_quote(&groups().join(";")));
            }
        }
    }
    if matches!(&model.kind, ModelKind::TermOnly(why) if why == TERM_ONLY_BY_OPTION) {
        out += " --term-only";
    }
    out
}

/// What a source gives with a compiled model's locations.
struct SourceDigest {
    /// The source hash the compiler computes.
    digest: SourceHash,
    /// The signature file read with an interaction, if any.
    signature: Option<String>,
    /// `multitrace compile SOURCE [--signature S] [--locations ...]`, without `-o`.
    recompile: String,
}

/// The digest `source` gives (`.hif` with `signature` or the one [`find_signature`] finds, or
/// `.timbuk`) with `model`'s locations, as the compiler computes it. The source is read, not
/// parsed (but for the `Systems` block of a Timbuk file, to say how to recompile).
fn source_digest(
    model: &CompiledModel,
    source: &Path,
    signature: Option<&Path>,
) -> Result<SourceDigest, SourceError> {
    let mut recompile = format!(
        "multitrace compile {}",
        shell_quote(&source.display().to_string())
    );
    match extension(source).as_str() {
        ext if ext == "hif" || Dialect::of_path(source).is_some() => {
            // A `.hif` reads the signature it is given or the one found beside it; a diagram
            // reads only the signature it is given (never one found beside it).
            let signature_file = match signature {
                Some(p) => Some(p.to_path_buf()),
                None if ext == "hif" => find_signature(source),
                None => None,
            };
            let sig_text = match &signature_file {
                Some(p) => read_text(p)?,
                None => String::new(),
            };
            let text = read_text(source)?;
            if let Some(s) = signature {
                recompile += &format!(" --signature {}", shell_quote(&s.display().to_string()));
            }
            recompile += &location_options(model, None);
            Ok(SourceDigest {
                digest: interaction_digest(
                    interaction_text_digest(&text, &sig_text),
                    &model.alphabet,
                ),
                signature: signature_file.map(|p| p.display().to_string()),
                recompile,
            })
        }
        "timbuk" | "tbk" => {
            let text = read_text(source)?;
            recompile += &location_options(model, Some(&text));
            Ok(SourceDigest {
                digest: automaton_digest(&text, &model.alphabet),
                signature: None,
                recompile,
            })
        }
        _ => Err(SourceError::UnknownSourceKind(source.display().to_string())),
    }
}

/// Compares `model` (loaded from `artifact`) with what `source` gives: `None` when the
/// digests are equal, else what differs.
fn compare_with_source(
    artifact: &Path,
    model: &CompiledModel,
    source: &Path,
    signature: Option<&Path>,
) -> Result<Option<Mismatch>, SourceError> {
    let got = source_digest(model, source, signature)?;
    if got.digest == model.source_hash {
        return Ok(None);
    }
    Ok(Some(Mismatch {
        artifact: artifact.display().to_string(),
        source: source.display().to_string(),
        signature: got.signature,
        artifact_digest: model.source_hash,
        source_digest: got.digest,
        recorded: model.stats.source.clone(),
        recompile: format!(
            "{} -o {}",
            got.recompile,
            shell_quote(&artifact.display().to_string())
        ),
    }))
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
    match compare_with_source(artifact, model, source, signature)? {
        None => Ok(()),
        Some(m) => Err(SourceError::SourceMismatch(Box::new(m))),
    }
}

/// Separates the source and its explicit signature in a recorded source ([`record_source`]).
const WITH_SIGNATURE: &str = " with signature ";

/// The text `multitrace compile` records as a compiled model's source
/// (`CompileStats::source`, shown by `inspect`): the absolute path of the source model `path`
/// and, when a signature file was named explicitly (`--signature`), ` with signature ` and its
/// absolute path. A signature found beside the model (or none) is not recorded: it is found
/// again the same way when the source is compared ([`check_recorded_source`]).
///
/// Absolute paths (made absolute against the current directory, symbolic links kept) let the
/// compiled model be used from any directory. Models written by earlier versions, and by the
/// library functions that compile without this step, record the path as given, which may be
/// relative ([`RecordedSource::candidates`]).
pub fn record_source(path: &Path, signature: Option<&Path>) -> String {
    let absolute = |p: &Path| {
        std::path::absolute(p)
            .unwrap_or_else(|_| p.to_path_buf())
            .display()
            .to_string()
    };
    match signature {
        Some(s) => format!("{}{WITH_SIGNATURE}{}", absolute(path), absolute(s)),
        None => absolute(path),
    }
}

/// The files a compiled model records as its source ([`record_source`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordedSource {
    /// The source model (`.hif` or `.timbuk`).
    pub model: PathBuf,
    /// The signature file named explicitly when compiling, if any.
    pub signature: Option<PathBuf>,
}

impl RecordedSource {
    /// Reads a recorded source: `MODEL` or `MODEL with signature SIGNATURE`; `None` when
    /// nothing is recorded.
    pub fn parse(recorded: &str) -> Option<RecordedSource> {
        if recorded.is_empty() {
            return None;
        }
        Some(match recorded.split_once(WITH_SIGNATURE) {
            Some((model, signature)) => RecordedSource {
                model: PathBuf::from(model),
                signature: Some(PathBuf::from(signature)),
            },
            None => RecordedSource {
                model: PathBuf::from(recorded),
                signature: None,
            },
        })
    }

    /// Where the recorded source model may be, in order: an absolute path as it is; a
    /// relative one (recorded by earlier versions, relative to the directory `compile` ran
    /// in) from the current directory, then from the directory of the compiled model
    /// `artifact`.
    pub fn candidates(&self, artifact: &Path) -> Vec<PathBuf> {
        if self.model.is_absolute() {
            return vec![self.model.clone()];
        }
        let mut v = vec![self.model.clone()];
        if let Some(dir) = artifact.parent().filter(|d| !d.as_os_str().is_empty()) {
            let beside = dir.join(&self.model);
            if beside != self.model {
                v.push(beside);
            }
        }
        v
    }
}

/// What [`check_recorded_source`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Freshness {
    /// The recorded source exists and gives the compiled model's digest.
    Fresh {
        /// The source file compared.
        source: PathBuf,
    },
    /// The recorded source model has changed since the model was compiled (or a signature
    /// file appeared, disappeared or changed beside it).
    Stale(Box<Mismatch>),
    /// Nothing recorded, or an absolute path that does not exist (the source was removed, or
    /// the compiled model was copied to another host): nothing to compare with.
    Gone,
    /// A relative recorded path found at none of its [`RecordedSource::candidates`]: the
    /// compiled model was not compared with its source.
    NotFound {
        /// The recorded source.
        recorded: String,
        /// The paths tried.
        tried: Vec<PathBuf>,
    },
    /// The recorded source exists but could not be compared: its explicit signature file is
    /// gone, or a file could not be read.
    Unchecked {
        /// The recorded source.
        recorded: String,
        /// Why.
        reason: String,
    },
}

/// Compares a compiled model (loaded from `artifact`) with the source it records
/// (`CompileStats::source`, see [`record_source`]), when that source still exists: its digest
/// is computed as the compiler computes it ([`check_source`]: the recorded signature, else
/// the one [`find_signature`] finds beside the source, else none; the compiled model's own
/// locations).
///
/// A relative recorded path is tried at each of [`RecordedSource::candidates`]: the model is
/// fresh when one of them gives its digest, stale when some exist and none does (the first
/// existing one is named).
pub fn check_recorded_source(artifact: &Path, model: &CompiledModel) -> Freshness {
    let Some(recorded) = RecordedSource::parse(&model.stats.source) else {
        return Freshness::Gone;
    };
    let candidates = recorded.candidates(artifact);
    let existing: Vec<&PathBuf> = candidates.iter().filter(|p| p.is_file()).collect();
    if existing.is_empty() {
        return if recorded.model.is_absolute() {
            Freshness::Gone
        } else {
            Freshness::NotFound {
                recorded: model.stats.source.clone(),
                tried: candidates,
            }
        };
    }
    if let Some(sig) = &recorded.signature {
        if !sig.is_file() {
            return Freshness::Unchecked {
                recorded: model.stats.source.clone(),
                reason: format!("its signature file {} no longer exists", sig.display()),
            };
        }
    }
    let mut first_stale = None;
    for source in existing {
        match compare_with_source(artifact, model, source, recorded.signature.as_deref()) {
            Ok(None) => {
                return Freshness::Fresh {
                    source: source.clone(),
                }
            }
            Ok(Some(m)) => {
                first_stale.get_or_insert(m);
            }
            Err(e) => {
                return Freshness::Unchecked {
                    recorded: model.stats.source.clone(),
                    reason: e.to_string(),
                }
            }
        }
    }
    match first_stale {
        Some(m) => Freshness::Stale(Box::new(m)),
        None => Freshness::Gone,
    }
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
mod tests;
