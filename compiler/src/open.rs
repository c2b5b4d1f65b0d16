//! Models named by a user, as every front end opens them: the model options
//! ([`ModelOptions`]: how a source is compiled, how a compiled model is compared with its
//! source), the refusal of options that cannot apply, the staleness check of a compiled model,
//! and the notes a user should see (names inferred without a signature file, a stale model
//! used anyway, models that fell back to term exploration).
//!
//! Notes are handed to a callback, one sentence each, for the front end to print.

use crate::compile::{AutomataPolicy, CompileOptions, LocationChoice};
use crate::diagrams::{write_mermaid, write_plantuml, DrawError};
use crate::source::{
    check_recorded_source, check_source, compile_source, load_artifact, read_source, record_source,
    Freshness, Source, SourceError,
};
use crate::syntax::parse_locations_spec;
use multitrace_model::model::CompiledModel;
use multitrace_model::model::Origin;
use multitrace_model::signature::Signature;
use multitrace_model::term::{TermId, TermStore};
use std::fmt;
use std::path::{Path, PathBuf};

// The struct's documentation is for rustdoc only (`cfg(doc)`): clap would make a doc comment
// the `about` of every (deferred) subcommand that flattens these options. Its fields' docs are
// the command line's help.
#[cfg_attr(
    doc,
    doc = "How a source model is compiled, and how a compiled model is checked against its source"
)]
#[cfg_attr(
    doc,
    doc = "(the options of every command that opens a model; with the `clap` feature, its arguments)."
)]
#[cfg_attr(not(doc), allow(missing_docs))]
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[cfg_attr(feature = "clap", command(next_help_heading = "Model"))]
pub struct ModelOptions {
    /// Signature file (.hsf).
    ///
    /// Default: `<stem>.hsf` or signature.hsf beside the model, or signature.hsf in its parent
    /// directory, else names are inferred from the interaction. With a compiled model (.mtm):
    /// only with --source, the signature of that source.
    #[cfg_attr(feature = "clap", arg(long))]
    pub signature: Option<PathBuf>,
    /// Locations: groups of lifelines or letters, e.g. 'l1,l2;l3'.
    ///
    /// Groups of lifelines (interactions) or letters (Timbuk). Default: one per lifeline, or
    /// the Timbuk file's Systems block. Source models only.
    #[cfg_attr(feature = "clap", arg(long))]
    pub locations: Option<String>,
    /// A random partition into N locations (with --seed). Source models only.
    #[cfg_attr(
        feature = "clap",
        arg(long, value_name = "N", conflicts_with = "locations")
    )]
    pub random_locations: Option<usize>,
    /// Seed of --random-locations (and of `gen`).
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 0))]
    pub seed: u64,
    /// Largest NFA synthesized from an interaction [default: 200000].
    ///
    /// Above it the model is term-only (checked by term exploration). Source models only.
    #[cfg_attr(feature = "clap", arg(long, value_name = "STATE_CAP"))]
    pub state_cap: Option<usize>,
    /// Largest local verifier, in DFA states per location [default: 200000].
    ///
    /// Above it an interaction is term-only and a raw automaton is refused. Source models
    /// only.
    #[cfg_attr(feature = "clap", arg(long, value_name = "DFA_CAP"))]
    pub dfa_cap: Option<usize>,
    /// Largest table of areas of the local verifiers, in MiB [default: 256].
    ///
    /// All locations together (a sparse area costs 4 bytes per transition, a dense one a bit
    /// per NFA transition); above it an interaction is term-only and a raw automaton is
    /// refused. Source models only.
    #[cfg_attr(feature = "clap", arg(long, value_name = "MIB"))]
    pub area_cap_mb: Option<usize>,
    /// With a compiled model (.mtm): the source it was compiled from.
    ///
    /// A .hif (with the signature given or found as for compiling) or .timbuk; a model
    /// compiled from anything else is refused (compile it again). Without it, the source the
    /// model records is compared.
    #[cfg_attr(feature = "clap", arg(long, value_name = "FILE"))]
    pub source: Option<PathBuf>,
    /// With a compiled model (.mtm): use it even when its source has changed.
    ///
    /// The change is then a note instead of an error.
    #[cfg_attr(feature = "clap", arg(long, conflicts_with = "source"))]
    pub allow_stale: bool,
}

/// Why a model named by a user could not be opened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OpenError {
    /// The locations given are not a partition spec.
    Locations(crate::syntax::LocationsError),
    /// The model could not be read, loaded or compiled.
    Source(SourceError),
    /// Options that only apply when compiling, given with a compiled model.
    CompileOptions {
        /// The compiled model.
        path: String,
        /// Each option given and its value, as written on the command line.
        given: Vec<(String, String)>,
    },
    /// An option that applies to compiled models only, given with a source model.
    CompiledOnly {
        /// The option.
        option: String,
        /// The source model.
        path: String,
    },
    /// An option that applies to compiled models only, given to `compile`.
    NotWhenCompiling {
        /// The option.
        option: String,
    },
    /// The model cannot be written as a Mermaid or PlantUML diagram.
    Text(DrawError),
}

impl fmt::Display for OpenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpenError::Locations(e) => e.fmt(f),
            OpenError::Source(e) => e.fmt(f),
            OpenError::CompileOptions { path, given } => {
                let names: Vec<&str> = given.iter().map(|(o, _)| o.as_str()).collect();
                let (verb, them) = if given.len() == 1 {
                    ("does", "it")
                } else {
                    ("do", "them")
                };
                let with: Vec<String> = given.iter().map(|(o, v)| format!("{o} {v}")).collect();
                let signature = if names.contains(&"--signature") {
                    "; with a compiled model, --signature only names the signature of the --source given"
                } else {
                    ""
                };
                write!(
                    f,
                    "{}: {verb} not apply to the compiled model {path} (its locations, signature and caps were fixed when it was compiled){signature}; drop {them}, or compile the source again with {them}: `multitrace compile SOURCE {} -o {path}`",
                    names.join(", "),
                    with.join(" "),
                )
            }
            OpenError::CompiledOnly { option, path } => write!(
                f,
                "{option}: applies to a compiled model (.mtm), and {path} is a source model; drop {option}"
            ),
            OpenError::NotWhenCompiling { option } => write!(
                f,
                "{option}: applies to commands that read a compiled model (.mtm), not to compile"
            ),
            OpenError::Text(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for OpenError {}

impl From<SourceError> for OpenError {
    fn from(e: SourceError) -> Self {
        OpenError::Source(e)
    }
}

/// Whether `path` names a compiled model (`.mtm`, any case).
pub fn is_artifact(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("mtm"))
}

impl ModelOptions {
    /// The compile options (the caps' defaults are the compiler's).
    pub fn compile_options(&self, policy: AutomataPolicy) -> Result<CompileOptions, OpenError> {
        let locations = if let Some(spec) = &self.locations {
            LocationChoice::Groups(parse_locations_spec(spec).map_err(OpenError::Locations)?)
        } else if let Some(count) = self.random_locations {
            LocationChoice::Random {
                count,
                seed: self.seed,
            }
        } else {
            LocationChoice::Default
        };
        let defaults = CompileOptions::default();
        Ok(CompileOptions {
            locations,
            state_cap: self.state_cap.unwrap_or(defaults.state_cap),
            dfa_cap: self.dfa_cap.unwrap_or(defaults.dfa_cap),
            area_cap: self
                .area_cap_mb
                .map_or(defaults.area_cap, |mb| mb.saturating_mul(1 << 20)),
            policy,
        })
    }

    /// Refuses the options that only apply when compiling, given with the compiled model
    /// `path`: each is named, with how to apply it (compile the source again).
    fn refuse_compile_options(&self, path: &Path) -> Result<(), OpenError> {
        let quote = |s: &str| {
            if !s.is_empty()
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "/._-,".contains(c))
            {
                s.to_string()
            } else {
                format!("'{}'", s.replace('\'', "'\\''"))
            }
        };
        let mut given: Vec<(String, String)> = Vec::new();
        if let Some(spec) = &self.locations {
            given.push(("--locations".into(), quote(spec)));
        }
        if let Some(n) = self.random_locations {
            given.push((
                "--random-locations".into(),
                format!("{n} --seed {}", self.seed),
            ));
        }
        if let (Some(sig), None) = (&self.signature, &self.source) {
            given.push(("--signature".into(), quote(&sig.display().to_string())));
        }
        for (option, value) in [
            ("--state-cap", self.state_cap),
            ("--dfa-cap", self.dfa_cap),
            ("--area-cap-mb", self.area_cap_mb),
        ] {
            if let Some(v) = value {
                given.push((option.into(), v.to_string()));
            }
        }
        if given.is_empty() {
            return Ok(());
        }
        Err(OpenError::CompileOptions {
            path: path.display().to_string(),
            given,
        })
    }

    /// The compiled-model options given (`--source`, `--allow-stale`), by name.
    fn compiled_only(&self) -> Option<&'static str> {
        if self.source.is_some() {
            Some("--source")
        } else if self.allow_stale {
            Some("--allow-stale")
        } else {
            None
        }
    }
}

/// The note listing the names inferred for an interaction read without a signature file, so
/// that a typo (which becomes one more lifeline or message) can be seen.
pub fn inferred_names_note(path: &Path, src: &Source, model: &CompiledModel) -> Option<String> {
    let Source::Interaction(m) = src else {
        return None;
    };
    if m.signature_file.is_some() {
        return None;
    }
    let sig = model.signature()?;
    let list = |names: &[String], one: &str, many: &str| {
        let mut sorted: Vec<&str> = names.iter().map(String::as_str).collect();
        sorted.sort_unstable();
        format!(
            "{} {} ({})",
            sorted.len(),
            if sorted.len() == 1 { one } else { many },
            sorted.join(", ")
        )
    };
    Some(format!(
        "no signature file for {}; inferred {} and {} from the interaction; a typo shows up here as an extra name",
        path.display(),
        list(sig.lifelines(), "lifeline", "lifelines"),
        list(sig.messages(), "message", "messages"),
    ))
}

/// The note naming a signature file found beside an interaction rather than given with
/// `--signature` (`<stem>.hsf`, `signature.hsf` beside it or in its parent directory): a file
/// picked up silently could declare names the user never meant (or a million messages).
pub fn found_signature_note(path: &Path, src: &Source, given: bool) -> Option<String> {
    let Source::Interaction(m) = src else {
        return None;
    };
    let found = m.signature_file.as_ref().filter(|_| !given)?;
    Some(format!(
        "{}: using the signature {} found beside it ({} lifelines, {} messages); --signature FILE names another",
        path.display(),
        found.display(),
        m.signature.lifelines().len(),
        m.signature.messages().len()
    ))
}

/// Loads a compiled model and compares it with its source: the one named by
/// [`ModelOptions::source`], else the one it records (refused when that source has changed
/// since, unless [`ModelOptions::allow_stale`]).
fn open_compiled(
    path: &Path,
    opts: &ModelOptions,
    note: &mut dyn FnMut(String),
) -> Result<CompiledModel, OpenError> {
    opts.refuse_compile_options(path)?;
    let model = load_artifact(path)?;
    if let Some(source) = &opts.source {
        check_source(path, &model, source, opts.signature.as_deref())?;
        return Ok(model);
    }
    match check_recorded_source(path, &model) {
        Freshness::Fresh { .. } | Freshness::Gone => {}
        Freshness::Stale(m) if !opts.allow_stale => return Err(SourceError::Stale(m).into()),
        Freshness::Stale(m) => note(format!(
            "{}: used as it is (--allow-stale), although its source {}{} has changed since it was compiled; `{}` rebuilds it",
            m.artifact,
            m.source,
            m.with_signature(),
            m.recompile
        )),
        Freshness::NotFound { recorded, tried } => note(format!(
            "{}: not compared with its source: it records `{recorded}`, a relative path found at none of {}; give --source FILE to compare, or compile it again to record an absolute path",
            path.display(),
            tried
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )),
        Freshness::Unchecked { recorded, reason } => note(format!(
            "{}: not compared with its source `{recorded}`: {reason}",
            path.display()
        )),
    }
    Ok(model)
}

/// The note that names the signature file whose names an error listed ("declared
/// lifelines: ..."): the one given with `--signature`, or the one found beside the
/// interaction `path` (which a user may not know is read). `None` for other models, or an
/// interaction without a signature file (its names were inferred, and a note said so).
pub fn signature_note(path: &Path, opts: &ModelOptions) -> Option<String> {
    if is_artifact(path) || path.extension().is_none_or(|e| e != "hif") {
        return None;
    }
    match &opts.signature {
        Some(s) => Some(format!(
            "the declared names are those of the signature {} (--signature)",
            s.display()
        )),
        None => crate::syntax::find_signature(path).map(|s| {
            format!(
                "the declared names are those of the signature {}, found beside {} (give --signature to use another)",
                s.display(),
                path.display()
            )
        }),
    }
}

/// Opens a model named by a user, for checking.
///
/// A compiled model (`.mtm`) refuses the options that only apply when compiling and is
/// compared with its source; a source model (`.hif`, `.timbuk`) is compiled in memory, with a
/// note listing the names inferred for an interaction without a signature file, and the
/// compile notices that change how it is checked (term-only).
pub fn open_model(
    path: &Path,
    opts: &ModelOptions,
    note: &mut dyn FnMut(String),
) -> Result<CompiledModel, OpenError> {
    if is_artifact(path) {
        return open_compiled(path, opts, note);
    }
    if let Some(option) = opts.compiled_only() {
        return Err(OpenError::CompiledOnly {
            option: option.into(),
            path: path.display().to_string(),
        });
    }
    let compile = opts.compile_options(AutomataPolicy::Auto)?;
    let src = read_source(path, opts.signature.as_deref())?;
    if let Some(n) = found_signature_note(path, &src, opts.signature.is_some()) {
        note(n);
    }
    let model = compile_source(&src, &compile)?;
    if let Some(n) = inferred_names_note(path, &src, &model) {
        note(n);
    }
    // Only what changes how the model is checked; `inspect` shows every notice.
    for n in model
        .stats
        .notices
        .iter()
        .filter(|n| n.contains("term-only"))
    {
        note(n.clone());
    }
    Ok(model)
}

/// Compiles the source model `path` to be written as a compiled model: every compile notice is
/// a note, and the model records the absolute paths of its source (so that any later use can
/// compare it with its source).
pub fn compile_model(
    path: &Path,
    opts: &ModelOptions,
    policy: AutomataPolicy,
    note: &mut dyn FnMut(String),
) -> Result<CompiledModel, OpenError> {
    if let Some(option) = opts.compiled_only() {
        return Err(OpenError::NotWhenCompiling {
            option: option.into(),
        });
    }
    let compile = opts.compile_options(policy)?;
    let src = read_source(path, opts.signature.as_deref())?;
    if let Some(n) = found_signature_note(path, &src, opts.signature.is_some()) {
        note(n);
    }
    let mut model = compile_source(&src, &compile)?;
    if let Some(n) = inferred_names_note(path, &src, &model) {
        note(n);
    }
    for n in &model.stats.notices {
        note(n.clone());
    }
    model.stats.source = record_source(path, opts.signature.as_deref());
    Ok(model)
}

/// Opens a model to look at (`inspect`, `draw`): as [`open_model`], except that a Timbuk file
/// without `Systems` and without location options is shown with one location holding every
/// letter.
pub fn open_for_viewing(
    path: &Path,
    opts: &ModelOptions,
    note: &mut dyn FnMut(String),
) -> Result<CompiledModel, OpenError> {
    let unpartitioned = !is_artifact(path)
        && opts.compiled_only().is_none()
        && opts.locations.is_none()
        && opts.random_locations.is_none()
        && matches!(
            read_source(path, opts.signature.as_deref()),
            Ok(Source::Automaton { ref aut, .. }) if aut.systems.is_none()
        );
    if !unpartitioned {
        return open_model(path, opts, note);
    }
    note(format!(
        "{} has no `Systems` block and no --locations: shown with one location",
        path.display()
    ));
    let compile = CompileOptions {
        locations: LocationChoice::Single,
        ..opts.compile_options(AutomataPolicy::Auto)?
    };
    Ok(compile_source(
        &read_source(path, opts.signature.as_deref())?,
        &compile,
    )?)
}

/// The model `path` as a Mermaid or PlantUML sequence diagram (`plantuml` chooses): a source
/// interaction as read, a compiled model from the interaction it keeps.
pub fn diagram_text(
    path: &Path,
    opts: &ModelOptions,
    plantuml: bool,
    note: &mut dyn FnMut(String),
) -> Result<String, OpenError> {
    let write = |sig: &Signature, store: &TermStore, root: TermId| {
        if plantuml {
            write_plantuml(store, sig, root)
        } else {
            write_mermaid(store, sig, root)
        }
        .map_err(OpenError::Text)
    };
    if is_artifact(path) {
        let model = open_model(path, opts, note)?;
        let Origin::Interaction {
            signature, term, ..
        } = &model.origin
        else {
            return Err(OpenError::Text(DrawError::NotAnInteraction));
        };
        let (store, root) = term.to_store();
        return write(signature, &store, root);
    }
    match read_source(path, opts.signature.as_deref())? {
        Source::Interaction(m) => write(&m.signature, &m.store, m.root),
        Source::Automaton { .. } => Err(OpenError::Text(DrawError::NotAnInteraction)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compile_options_with_a_compiled_model_are_named_with_how_to_apply_them() {
        let opts = ModelOptions {
            locations: Some("a b;c".into()),
            state_cap: Some(10),
            ..ModelOptions::default()
        };
        let e = opts.refuse_compile_options(Path::new("m.mtm")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "--locations, --state-cap: do not apply to the compiled model m.mtm (its locations, \
             signature and caps were fixed when it was compiled); drop them, or compile the \
             source again with them: `multitrace compile SOURCE --locations 'a b;c' \
             --state-cap 10 -o m.mtm`"
        );
        assert_eq!(
            ModelOptions::default().refuse_compile_options(Path::new("m.mtm")),
            Ok(())
        );
    }

    #[test]
    fn compiled_only_options_are_refused_with_a_source_model() {
        let opts = ModelOptions {
            allow_stale: true,
            ..ModelOptions::default()
        };
        let e = open_model(Path::new("m.hif"), &opts, &mut |_| {}).unwrap_err();
        assert!(
            matches!(e, OpenError::CompiledOnly { ref option, .. } if option == "--allow-stale")
        );
        let e = compile_model(Path::new("m.hif"), &opts, AutomataPolicy::Auto, &mut |_| {});
        assert!(matches!(e, Err(OpenError::NotWhenCompiling { .. })));
    }
}
