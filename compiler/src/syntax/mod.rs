//! Model front ends: signatures (`.hsf`) and interactions (`.hif`) in HIBOU syntax.
//!
//! The readers are hand-written, report every error as a [`ParseError`] with file, line and
//! column, never panic, and use explicit stacks rather than recursion, so no input can
//! overflow the stack. [`read_interaction`] ties them together: it reads an interaction file,
//! finds its signature ([`find_signature`]) or infers the names from the interaction, and
//! returns an [`InteractionModel`].

mod interaction;
mod locations;
mod signature;
mod timbuk;

pub use interaction::{
    parse_interaction, parse_interaction_tree, parse_interaction_with_loops, LoopPosition,
    Operator, SyntaxNode, SyntaxTree, MAX_NESTING,
};
pub use locations::{parse_locations_spec, random_partition, LocationsError};
// Text input (bounded reading, UTF-8 and binary checks) lives in the runtime, which reads
// trace files the same way; re-exported so that the compiler's callers keep their paths.
pub use multitrace_model::syntax::{read_text, ModelError, ParseError, MAX_TEXT_BYTES};
pub use signature::parse_signature;
pub use timbuk::{parse_timbuk, TimbukAutomaton};

use multitrace_model::artifact::{source_hash, SourceHash};
use multitrace_model::signature::Signature;
use multitrace_model::term::{TermId, TermStore};
use std::path::{Component, Path, PathBuf};

/// An interaction read from files: its names, its terms and its root.
#[derive(Clone, Debug)]
pub struct InteractionModel {
    /// Lifelines and messages (from the signature file, or inferred from the interaction).
    pub signature: Signature,
    /// The store holding the interaction's terms.
    pub store: TermStore,
    /// The interaction.
    pub root: TermId,
    /// The signature file that was read, `None` when the names were inferred.
    pub signature_file: Option<PathBuf>,
    /// Loop terms with the line and column of their keyword in the interaction file.
    pub loops: Vec<LoopPosition>,
    /// The interaction file's path as given.
    pub file: PathBuf,
    /// SHA-256 of the interaction and signature texts ([`interaction_text_digest`]).
    pub digest: SourceHash,
}

/// The signature of an interaction file: the first existing file among `<stem>.hsf` beside
/// it, `signature.hsf` beside it and `signature.hsf` in the parent directory.
pub fn find_signature(hif: &Path) -> Option<PathBuf> {
    let dir = hif.parent().unwrap_or(Path::new(""));
    let mut candidates = Vec::with_capacity(3);
    if let Some(stem) = hif.file_stem() {
        let mut name = stem.to_os_string();
        name.push(".hsf");
        candidates.push(dir.join(name));
    }
    candidates.push(dir.join("signature.hsf"));
    // The parent: lexically when the directory ends with a name, through `..` otherwise (a
    // root has none).
    let up = match dir.components().next_back() {
        Some(Component::Normal(_)) => dir.parent().map(Path::to_path_buf),
        Some(Component::RootDir | Component::Prefix(_)) => None,
        _ => Some(dir.join("..")),
    };
    if let Some(up) = up {
        candidates.push(up.join("signature.hsf"));
    }
    candidates.into_iter().find(|p| p.is_file())
}

/// The SHA-256 of an interaction's text and its signature file's text (empty when the
/// signature is inferred): [`InteractionModel::digest`].
pub fn interaction_text_digest(text: &str, signature_text: &str) -> SourceHash {
    source_hash(&[text.as_bytes(), signature_text.as_bytes()])
}

/// The signature an interaction is read with: `file`'s, parsed, with its text (for the
/// digest), or, without a file, an empty signature that the interaction's names are inferred
/// into (`true`: infer) and an empty text.
pub(crate) fn signature_or_inferred(
    file: Option<&Path>,
) -> Result<(Signature, bool, String), ModelError> {
    Ok(match file {
        Some(p) => {
            let text = read_text(p)?;
            (
                parse_signature(&p.display().to_string(), &text)?,
                false,
                text,
            )
        }
        None => (Signature::new(), true, String::new()),
    })
}

/// Reads an interaction file and its signature.
///
/// The signature is `signature` when given, else the one [`find_signature`] finds; with
/// neither, the lifelines and messages are inferred from the interaction, in order of first
/// occurrence.
pub fn read_interaction(
    hif: &Path,
    signature: Option<&Path>,
) -> Result<InteractionModel, ModelError> {
    let signature_file = signature
        .map(Path::to_path_buf)
        .or_else(|| find_signature(hif));
    let (mut sig, infer, sig_text) = signature_or_inferred(signature_file.as_deref())?;
    let text = read_text(hif)?;
    let mut store = TermStore::new();
    let (root, loops) = parse_interaction_with_loops(
        &hif.display().to_string(),
        &text,
        &mut sig,
        infer,
        &mut store,
    )?;
    let digest = interaction_text_digest(&text, &sig_text);
    Ok(InteractionModel {
        signature: sig,
        store,
        root,
        signature_file,
        loops,
        file: hif.to_path_buf(),
        digest,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        multitrace_model::testdata::scratch_dir("compiler-syntax", name)
    }

    /// The text checks are `read_text`'s (tested in the runtime); the reader passes their
    /// errors on.
    #[test]
    fn io_errors_name_the_file() {
        let dir = scratch("io");
        let path = dir.join("missing.hif");
        let e = read_interaction(&path, None).unwrap_err();
        assert!(matches!(e, ModelError::Io { .. }));
        assert_eq!(e, read_text(&path).unwrap_err());
        std::fs::write(dir.join("empty.hif"), "").unwrap();
        // Its own signature, found first (whatever the temporary directory holds).
        std::fs::write(dir.join("empty.hsf"), "@lifeline{a}").unwrap();
        let e = read_interaction(&dir.join("empty.hif"), None).unwrap_err();
        assert!(e.to_string().ends_with("empty.hif:1:1: empty file"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn signature_lookup_order() {
        let dir = scratch("find");
        let sub = dir.join("sub");
        std::fs::create_dir_all(&sub).unwrap();
        let hif = sub.join("i1.hif");
        std::fs::write(&hif, "l1 -- m1 -> l2").unwrap();
        assert_eq!(find_signature(&hif), None);
        std::fs::write(dir.join("signature.hsf"), "@lifeline{l1;l2}@message{m1}").unwrap();
        assert_eq!(find_signature(&hif), Some(dir.join("signature.hsf")));
        std::fs::write(sub.join("signature.hsf"), "@lifeline{l2;l1}@message{m1}").unwrap();
        assert_eq!(find_signature(&hif), Some(sub.join("signature.hsf")));
        std::fs::write(sub.join("i1.hsf"), "@lifeline{l2;l1;l3}@message{m0;m1}").unwrap();
        assert_eq!(find_signature(&hif), Some(sub.join("i1.hsf")));

        let model = read_interaction(&hif, None).unwrap();
        assert_eq!(model.signature_file, Some(sub.join("i1.hsf")));
        assert_eq!(model.signature.lifelines(), ["l2", "l1", "l3"]);
        let explicit = dir.join("signature.hsf");
        let model = read_interaction(&hif, Some(&explicit)).unwrap();
        assert_eq!(model.signature.lifelines(), ["l1", "l2"]);
        assert_eq!(model.store.lifelines(model.root).len(), 2);

        // Unknown names are errors when a signature is found.
        let bad = sub.join("bad.hif");
        std::fs::write(&bad, "seq(l1 -- m1 -> l2,\n l9 -- m1 ->|)").unwrap();
        let e = read_interaction(&bad, None).unwrap_err();
        assert!(
            e.to_string().contains("bad.hif:2:2: unknown lifeline `l9`"),
            "{e}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn names_are_inferred_without_signature() {
        let dir = scratch("infer");
        let hif = dir.join("x.hif");
        std::fs::write(&hif, "seq(b -- n -> a, /* c */ n -> c)").unwrap();
        // The parent directory of the scratch dir may hold a signature.hsf in odd setups; only
        // check inference when nothing is found.
        if find_signature(&hif).is_none() {
            let model = read_interaction(&hif, None).unwrap();
            assert_eq!(model.signature_file, None);
            assert_eq!(model.signature.lifelines(), ["b", "a", "c"]);
            assert_eq!(model.signature.messages(), ["n"]);
        }
        // A bad signature file is reported with its own name.
        let hsf = dir.join("x.hsf");
        std::fs::write(&hsf, "@lifeline{a;a}").unwrap();
        let e = read_interaction(&hif, None).unwrap_err();
        assert!(
            e.to_string().contains("x.hsf:1:13: duplicate lifeline `a`"),
            "{e}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn relative_paths() {
        // No directory part: candidates are in `.` and `..`; the lookup must not panic.
        let _ = find_signature(Path::new("i0.hif"));
        let _ = find_signature(Path::new("/i0.hif"));
        let _ = find_signature(Path::new(""));
        let _ = find_signature(Path::new(".."));
    }

    #[test]
    fn real_sample_models() {
        let Some(dir) =
            multitrace_model::testdata::data("hibou-lfrem-sample/gen_ints", "HIBOU sample models")
        else {
            return;
        };
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut count = 0;
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "hif") {
                let model = read_interaction(&path, None).unwrap_or_else(|e| panic!("{e}"));
                assert!(model.signature_file.is_some());
                count += 1;
            }
        }
        assert!(count > 0);
    }
}
