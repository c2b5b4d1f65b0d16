//! Generated multitraces as text and as a directory: `.htf` and `.mtf` renderings, the files
//! of a set (`KIND-0001.htf`, ... or one `KIND.jsonl`) and the rows of its `manifest.tsv`
//! (the format is [`crate::manifest`]'s).
//!
//! Invariants of [`write_set`]:
//!
//! - the output is a function of the [`Generation`] only: the same generation gives
//!   byte-identical files (names numbered from 1 in generation order, a fixed JSON layout,
//!   manifest rows sorted by their text);
//! - a directory holds several kinds: writing a kind first removes the files an earlier run
//!   of that kind wrote ([`is_generated_file`]) and replaces that kind's manifest rows only,
//!   so a smaller set leaves no stale file or row behind;
//! - every row records the verdict the multitrace was checked to have, in the mode it holds
//!   in, with the reason as `compare` and `check --expect` read it ([`reason_label`]).

use super::kinds::Kind;
use super::spec::Generation;
use crate::manifest::{Manifest, ManifestRow, MANIFEST_FILE};
use multitrace_formats::{unwritable_name, write_jsonl_line, write_mtf};
use multitrace_model::model::{CompiledModel, Origin};
use multitrace_model::multitrace::{Component, Multitrace};
use multitrace_model::nfa::LetterId;
use multitrace_model::syntax::ModelError;
use multitrace_model::verdict::{Reason, Verdict};
use std::fmt;
use std::path::{Path, PathBuf};

/// The reason of a verdict as the manifest writes it: `-`, `LocalError(l2)`, `InterError`,
/// `CentralError`, `Budget`.
pub fn reason_label(model: &CompiledModel, v: &Verdict) -> String {
    match &v.reason {
        None => "-".into(),
        Some(Reason::LocalError { location, .. }) => {
            format!("LocalError({})", model.alphabet.location_name(*location))
        }
        Some(r) => r.name().into(),
    }
}

/// The multitrace of an interaction model (one component per location); `None` for a raw
/// automaton.
pub fn to_multitrace(model: &CompiledModel, traces: &[Vec<LetterId>]) -> Option<Multitrace> {
    let Origin::Interaction {
        letter_actions,
        location_lifelines,
        ..
    } = &model.origin
    else {
        return None;
    };
    Some(Multitrace {
        components: location_lifelines
            .iter()
            .enumerate()
            .map(|(k, &g)| Component {
                lifelines: g,
                trace: traces
                    .get(k)
                    .map(|t| t.iter().map(|l| letter_actions[l.index()]).collect())
                    .unwrap_or_default(),
            })
            .collect(),
    })
}

/// The `.htf` text of a multitrace of an interaction model (`None` for a raw automaton).
pub fn render_htf(model: &CompiledModel, traces: &[Vec<LetterId>]) -> Option<String> {
    let mt = to_multitrace(model, traces)?;
    let mut s = mt.to_htf(model.signature()?);
    s.push('\n');
    Some(s)
}

/// The `.mtf` text of a multitrace.
pub fn render_mtf(model: &CompiledModel, traces: &[Vec<LetterId>]) -> String {
    write_mtf(traces, &model.alphabet)
}

/// How a generated set is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetFormat {
    /// HIBOU `.htf`, one file per multitrace, one component per location (interaction models
    /// only).
    Htf,
    /// Seed 004's `.mtf`, one file per multitrace, one line per location.
    Mtf,
    /// One `KIND.jsonl` file, one multitrace per line.
    Jsonl,
    /// One `KIND.xes` event log (IEEE 1849), one trace per multitrace.
    Xes,
}

impl SetFormat {
    /// Every format, in the order the command line lists them.
    pub const ALL: [SetFormat; 4] = [
        SetFormat::Htf,
        SetFormat::Mtf,
        SetFormat::Jsonl,
        SetFormat::Xes,
    ];

    /// The name on the command line (`--format`).
    pub fn name(self) -> &'static str {
        match self {
            SetFormat::Htf => "htf",
            SetFormat::Mtf => "mtf",
            SetFormat::Jsonl => "jsonl",
            SetFormat::Xes => "xes",
        }
    }

    /// One line of help for the command line.
    pub fn help(self) -> &'static str {
        match self {
            SetFormat::Htf => "HIBOU `.htf`, one component per location (interaction models only)",
            SetFormat::Mtf => "`.mtf`, one line per location (for raw automata)",
            SetFormat::Jsonl => "One `KIND.jsonl` file, one multitrace per line",
            SetFormat::Xes => "One `KIND.xes` event log, one trace per multitrace (for pm4py)",
        }
    }

    /// The format of this name.
    pub fn from_name(name: &str) -> Option<Self> {
        SetFormat::ALL.into_iter().find(|f| f.name() == name)
    }

    /// `.htf` for an interaction model, `.mtf` for a raw automaton.
    pub fn default_for(model: &CompiledModel) -> Self {
        if model.signature().is_some() {
            SetFormat::Htf
        } else {
            SetFormat::Mtf
        }
    }

    /// Whether `model`'s multitraces can be written in this format (`.htf` needs an
    /// interaction).
    pub fn check(self, model: &CompiledModel) -> Result<(), SetError> {
        if self == SetFormat::Htf && model.signature().is_none() {
            return Err(SetError::HtfNeedsInteraction);
        }
        if self == SetFormat::Mtf {
            if let Some((what, name)) = unwritable_name(&model.alphabet) {
                return Err(SetError::MtfName {
                    what,
                    name: name.to_string(),
                });
            }
        }
        Ok(())
    }
}

/// Why a generated set could not be written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SetError {
    /// `.htf` was asked for a raw automaton.
    HtfNeedsInteraction,
    /// A file or directory could not be created, read, removed or written.
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What was tried: `create`, `read`, `remove` or `write`.
        action: &'static str,
        /// The system's explanation.
        message: String,
    },
    /// A name `.mtf` cannot hold (`.` separates letters there).
    MtfName {
        /// `letter` or `location`.
        what: &'static str,
        /// The name.
        name: String,
    },
    /// The directory's existing manifest could not be read.
    Manifest(ModelError),
}

impl fmt::Display for SetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetError::HtfNeedsInteraction => f.write_str(
                "--format htf needs an interaction model; this model is a raw automaton: use mtf or jsonl",
            ),
            SetError::MtfName { what, name } => write!(
                f,
                "the model's {what} {name:?} cannot be written in .mtf (a letter holds no \
                 whitespace, `.`, `[` or `]`; `.` separates letters): use --format jsonl"
            ),
            SetError::Io {
                path,
                action,
                message,
            } => write!(f, "{}: cannot {action}: {message}", path.display()),
            SetError::Manifest(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for SetError {}

fn io<'a>(path: &'a Path, action: &'static str) -> impl FnOnce(std::io::Error) -> SetError + 'a {
    move |e| SetError::Io {
        path: path.to_path_buf(),
        action,
        message: e.to_string(),
    }
}

/// The name of item `i` (from 0) of a kind, without extension: `KIND-0001`.
pub fn item_name(kind: Kind, i: usize) -> String {
    format!("{kind}-{:04}", i + 1)
}

/// Whether `name` is a file [`write_set`] writes for `kind` (`KIND-0001.htf`, `KIND.jsonl`).
pub fn is_generated_file(name: &str, kind: Kind) -> bool {
    if name == format!("{kind}.jsonl") || name == format!("{kind}.xes") {
        return true;
    }
    let Some(rest) = name.strip_prefix(&format!("{kind}-")) else {
        return false;
    };
    let Some((num, ext)) = rest.split_once('.') else {
        return false;
    };
    !num.is_empty() && num.bytes().all(|b| b.is_ascii_digit()) && (ext == "htf" || ext == "mtf")
}

/// Writes the multitraces of `generation` (all of kind `kind`) into `dir` (created if needed)
/// and merges their rows into `dir/manifest.tsv`.
pub fn write_set(
    model: &CompiledModel,
    generation: &Generation,
    kind: Kind,
    format: SetFormat,
    dir: &Path,
) -> Result<(), SetError> {
    format.check(model)?;
    std::fs::create_dir_all(dir).map_err(io(dir, "create"))?;
    // The rows of other kinds are kept; a file that is not a manifest stops everything before
    // any file is written.
    let manifest_path = dir.join(MANIFEST_FILE);
    let mut manifest = if manifest_path.exists() {
        Manifest::read(&manifest_path).map_err(SetError::Manifest)?
    } else {
        Manifest::default()
    };
    // Files of an earlier run of this kind would mix with this one: remove them.
    for entry in std::fs::read_dir(dir).map_err(io(dir, "read"))? {
        let path = entry.map_err(io(dir, "read"))?.path();
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        if name.is_some_and(|n| is_generated_file(&n, kind)) && path.is_file() {
            std::fs::remove_file(&path).map_err(io(&path, "remove"))?;
        }
    }
    let mut rows = Vec::with_capacity(generation.items.len());
    let mut jsonl = String::new();
    // (run id, (location, actions) per location) per multitrace.
    type Run = (String, Vec<(String, Vec<String>)>);
    let mut xes_runs: Vec<Run> = Vec::new();
    for (i, item) in generation.items.iter().enumerate() {
        let name = item_name(kind, i);
        let file = match format {
            SetFormat::Htf | SetFormat::Mtf => {
                let (file, text) = if format == SetFormat::Htf {
                    (
                        format!("{name}.htf"),
                        render_htf(model, &item.traces).ok_or(SetError::HtfNeedsInteraction)?,
                    )
                } else {
                    (format!("{name}.mtf"), render_mtf(model, &item.traces))
                };
                let path = dir.join(&file);
                std::fs::write(&path, text).map_err(io(&path, "write"))?;
                file
            }
            SetFormat::Jsonl => {
                jsonl.push_str(&write_jsonl_line(&name, &item.traces, &model.alphabet));
                jsonl.push('\n');
                format!("{kind}.jsonl#{name}")
            }
            SetFormat::Xes => {
                let a = &model.alphabet;
                let traces = (item.traces.iter().enumerate())
                    .map(|(k, t)| {
                        let names = t.iter().map(|&l| a.name(l).to_string()).collect();
                        (a.location_names()[k].clone(), names)
                    })
                    .collect();
                xes_runs.push((name.clone(), traces));
                format!("{kind}.xes#{name}")
            }
        };
        rows.push(ManifestRow {
            file,
            kind: kind.name().to_string(),
            length: item.len(),
            verdict: item.verdict.kind,
            reason: item
                .verdict
                .reason
                .as_ref()
                .map(|_| reason_label(model, &item.verdict)),
            mode: item.mode,
        });
    }
    if format == SetFormat::Jsonl {
        let path = dir.join(format!("{kind}.jsonl"));
        std::fs::write(&path, jsonl).map_err(io(&path, "write"))?;
    }
    if format == SetFormat::Xes {
        let path = dir.join(format!("{kind}.xes"));
        let mut out = Vec::new();
        multitrace_formats::xes::write_xes(
            &mut out,
            xes_runs.iter().map(|(id, t)| (id.clone(), t.as_slice())),
        )
        .map_err(io(&path, "write"))?;
        std::fs::write(&path, out).map_err(io(&path, "write"))?;
    }
    manifest.replace_kind(kind.name(), rows);
    std::fs::write(&manifest_path, manifest.to_text()).map_err(io(&manifest_path, "write"))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::tests::{engine, scratch_dir};
    use super::super::{generate, GenOptions};
    use super::*;
    use crate::manifest::MANIFEST_HEADER;
    use std::collections::BTreeMap;

    fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| {
                let p = e.unwrap().path();
                (
                    p.file_name().unwrap().to_string_lossy().into_owned(),
                    std::fs::read(&p).unwrap(),
                )
            })
            .collect()
    }

    fn gen_into(model: &CompiledModel, dir: &Path, kind: Kind, format: SetFormat, seed: u64) {
        let e = multitrace_check::Engine::new(model.clone());
        let g = generate(&e, &GenOptions::new(kind, 12, 6, 30, seed)).unwrap();
        write_set(model, &g, kind, format, dir).unwrap();
    }

    #[test]
    fn same_seed_gives_byte_identical_files() {
        for (model, format) in [
            ("seed004-fig3/model.timbuk", SetFormat::Mtf),
            ("seed004-mqtt/model.hif", SetFormat::Htf),
            ("seed004-mqtt/model.hif", SetFormat::Jsonl),
        ] {
            let m = engine(model).model().clone();
            let ext = format!("{format:?}").to_lowercase();
            let (a, b, c) = (
                scratch_dir(&format!("a-{ext}")),
                scratch_dir(&format!("b-{ext}")),
                scratch_dir(&format!("c-{ext}")),
            );
            for kind in [Kind::Pass, Kind::CentralError, Kind::SwapActions] {
                gen_into(&m, &a, kind, format, 7);
                gen_into(&m, &b, kind, format, 7);
                gen_into(&m, &c, kind, format, 8);
            }
            let (fa, fb, fc) = (files(&a), files(&b), files(&c));
            assert_eq!(fa, fb, "{model} {format:?}");
            assert_ne!(
                fa, fc,
                "{model} {format:?}: another seed, other multitraces"
            );
            let manifest = String::from_utf8(fa[MANIFEST_FILE].clone()).unwrap();
            assert!(manifest.starts_with(MANIFEST_HEADER));
            // 3 kinds of 12 multitraces share the directory.
            assert_eq!(manifest.lines().count(), 1 + 36, "{manifest}");
            if format != SetFormat::Jsonl {
                assert!(fa.contains_key(&format!("central-error-0012.{ext}")));
            }
            // Every row names a multitrace that reads back to its length.
            let rows = Manifest::read(&a.join(MANIFEST_FILE)).unwrap().rows;
            let e = multitrace_check::Engine::new(m.clone());
            let sets = crate::compare::read_sets(&e, std::slice::from_ref(&a), None).unwrap();
            let lengths: BTreeMap<&str, usize> = sets
                .iter()
                .flat_map(|s| &s.items)
                .map(|it| (it.name.rsplit('/').next().unwrap(), it.len()))
                .collect();
            for r in &rows {
                assert_eq!(lengths[r.file.as_str()], r.length, "{}", r.file);
            }
            // Regenerating a kind with fewer multitraces leaves no stale file or row behind.
            let g = generate(&e, &GenOptions::new(Kind::Pass, 2, 6, 30, 0)).unwrap();
            write_set(&m, &g, Kind::Pass, format, &a).unwrap();
            let text = std::fs::read_to_string(a.join(MANIFEST_FILE)).unwrap();
            assert_eq!(text.lines().count(), 1 + 26);
            if format != SetFormat::Jsonl {
                assert!(!a.join(format!("pass-0003.{ext}")).exists());
                assert!(a.join(format!("swap-actions-0012.{ext}")).exists());
            }
            for d in [a, b, c] {
                let _ = std::fs::remove_dir_all(d);
            }
        }
    }

    #[test]
    fn file_names_and_errors() {
        assert_eq!(item_name(Kind::Pass, 0), "pass-0001");
        assert!(is_generated_file("pass-0001.mtf", Kind::Pass));
        assert!(is_generated_file("pass.jsonl", Kind::Pass));
        assert!(!is_generated_file("pass-0001.txt", Kind::Pass));
        assert!(!is_generated_file("pass-.htf", Kind::Pass));
        assert!(!is_generated_file("prefix-0001.htf", Kind::Pass));
        assert!(!is_generated_file("manifest.tsv", Kind::Pass));
        // A raw automaton has no .htf rendering.
        let fig3 = engine("seed004-fig3/model.timbuk").model().clone();
        assert_eq!(SetFormat::default_for(&fig3), SetFormat::Mtf);
        let err = write_set(
            &fig3,
            &Generation::default(),
            Kind::Pass,
            SetFormat::Htf,
            Path::new("/nonexistent"),
        )
        .unwrap_err();
        assert_eq!(err, SetError::HtfNeedsInteraction);
        // A file that is not a manifest is not overwritten.
        let dir = scratch_dir("not-a-manifest");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(MANIFEST_FILE), "hello\n").unwrap();
        let err = write_set(
            &fig3,
            &Generation::default(),
            Kind::Pass,
            SetFormat::Mtf,
            &dir,
        )
        .unwrap_err();
        assert!(err.to_string().contains("not a gen manifest"), "{err}");
        assert_eq!(
            std::fs::read_to_string(dir.join(MANIFEST_FILE)).unwrap(),
            "hello\n"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
