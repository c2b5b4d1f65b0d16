//! Model front ends: signatures (`.hsf`) and interactions (`.hif`) in HIBOU syntax.
//!
//! The readers are hand-written, report every error as a [`ParseError`] with file, line and
//! column, never panic, and use explicit stacks rather than recursion, so no input can
//! overflow the stack. [`read_interaction`] ties them together: it reads an interaction file,
//! finds its signature ([`find_signature`]) or infers the names from the interaction, and
//! returns an [`InteractionModel`].

mod interaction;
mod lexer;
mod locations;
mod signature;
mod timbuk;

pub use interaction::{parse_interaction, parse_interaction_with_loops, LoopPosition, MAX_NESTING};
pub use locations::{parse_locations_spec, random_partition};
pub use multitrace_runtime::syntax::ParseError;
pub use signature::parse_signature;
pub use timbuk::{parse_timbuk, TimbukAutomaton};

use multitrace_runtime::signature::Signature;
use multitrace_runtime::term::{TermId, TermStore};
use std::fmt;
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
    /// Digest of the interaction and signature texts.
    pub digest: u64,
}

/// Why a model could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModelError {
    /// A file could not be read.
    Io {
        /// The file.
        path: PathBuf,
        /// The system's explanation.
        message: String,
    },
    /// A file was read but is not valid.
    Parse(ParseError),
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModelError::Io { path, message } => {
                write!(f, "{}: cannot read: {message}", path.display())
            }
            ModelError::Parse(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ModelError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ModelError::Io { .. } => None,
            ModelError::Parse(e) => Some(e),
        }
    }
}

impl From<ParseError> for ModelError {
    fn from(e: ParseError) -> Self {
        ModelError::Parse(e)
    }
}

/// Reads a text file for a reader.
///
/// A leading byte-order mark is dropped. An empty file is an error ("empty file" at 1:1), as
/// are invalid UTF-8 (at the line and column of the first invalid byte), a NUL byte and other
/// control characters that do not occur in text (a binary file).
///
/// A file larger than [`MAX_TEXT_BYTES`] is refused (also an endless one such as `/dev/zero`):
/// reading stops one byte past the limit.
pub fn read_text(path: &Path) -> Result<String, ModelError> {
    read_text_limited(path, MAX_TEXT_BYTES)
}

/// Largest text input (model, signature or multitrace file) the readers accept: 1 GiB, about
/// 110 million actions in one `.htf` file. Larger local traces are split across files or
/// checked as prefixes.
pub const MAX_TEXT_BYTES: u64 = 1 << 30;

fn read_text_limited(path: &Path, limit: u64) -> Result<String, ModelError> {
    use std::io::Read;
    let io = |e: std::io::Error| ModelError::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let hint = file.metadata().map_or(0, |m| m.len()).min(limit + 1);
    let mut bytes = Vec::with_capacity(usize::try_from(hint).unwrap_or(0));
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > limit {
        return Err(ModelError::Io {
            path: path.to_path_buf(),
            message: format!(
                "larger than {} bytes, the largest text input multitrace reads; split it",
                limit
            ),
        });
    }
    text_of_bytes(&path.display().to_string(), bytes).map_err(ModelError::Parse)
}

/// The checks of [`read_text`] on bytes already read; `file` names them in errors.
fn text_of_bytes(file: &str, bytes: Vec<u8>) -> Result<String, ParseError> {
    if bytes.is_empty() {
        return Err(ParseError::at(file, "", 0, "empty file"));
    }
    let mut text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            let bytes = e.as_bytes();
            let valid = e.utf8_error().valid_up_to();
            let prefix = bytes
                .get(..valid)
                .and_then(|b| std::str::from_utf8(b).ok())
                .unwrap_or("");
            let bad = bytes.get(valid).copied().unwrap_or(0);
            return Err(ParseError::at(
                file,
                prefix,
                valid,
                format!("invalid UTF-8 (byte 0x{bad:02X}); is this a text file?"),
            ));
        }
    };
    if text.starts_with('\u{feff}') {
        text.drain(..'\u{feff}'.len_utf8());
    }
    if let Some((at, c)) = text
        .char_indices()
        .find(|&(_, c)| c.is_control() && !matches!(c, '\t' | '\n' | '\r' | '\u{c}'))
    {
        let what = if c == '\0' {
            "NUL byte".to_string()
        } else {
            format!("control character U+{:04X}", c as u32)
        };
        return Err(ParseError::at(
            file,
            &text,
            at,
            format!("{what}: this looks like a binary file, not text"),
        ));
    }
    Ok(text)
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

/// The digest of an interaction's text and its signature file's text (empty when the
/// signature is inferred): [`InteractionModel::digest`].
pub fn interaction_text_digest(text: &str, signature_text: &str) -> u64 {
    multitrace_runtime::artifact::digest(&[text.as_bytes(), signature_text.as_bytes()])
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
    let (mut sig, infer, sig_text) = match &signature_file {
        Some(p) => {
            let text = read_text(p)?;
            (
                parse_signature(&p.display().to_string(), &text)?,
                false,
                text,
            )
        }
        None => (Signature::new(), true, String::new()),
    };
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

    /// A fresh scratch directory under the system temp dir.
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "multitrace-compiler-syntax-{}-{name}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn text_checks() {
        let e = text_of_bytes("f", Vec::new()).unwrap_err();
        assert_eq!(e.to_string(), "f:1:1: empty file");
        let e = text_of_bytes("f", b"ab\ncd\xffe".to_vec()).unwrap_err();
        assert_eq!((e.line, e.column), (2, 3));
        assert!(e.message.contains("invalid UTF-8"), "{e}");
        let e = text_of_bytes("f", "∅\n∅é".bytes().chain([0xe2, 0x88]).collect()).unwrap_err();
        assert_eq!((e.line, e.column), (2, 3), "{e}");
        let e = text_of_bytes("f", b"o\n  \0".to_vec()).unwrap_err();
        assert_eq!((e.line, e.column), (2, 3));
        assert!(e.message.contains("NUL byte"), "{e}");
        let e = text_of_bytes("f", b"\x07".to_vec()).unwrap_err();
        assert!(e.message.contains("control character U+0007"), "{e}");
        assert_eq!(
            text_of_bytes("f", b"\xef\xbb\xbfo\r\n\t".to_vec()).unwrap(),
            "o\r\n\t"
        );
    }

    #[test]
    fn oversized_and_endless_inputs_are_refused() {
        let dir = scratch("big");
        let path = dir.join("t.htf");
        std::fs::write(&path, "{ [l1] l1!m }").unwrap();
        assert!(read_text_limited(&path, 13).is_ok());
        let e = read_text_limited(&path, 12).unwrap_err();
        assert!(
            e.to_string()
                .ends_with("t.htf: cannot read: larger than 12 bytes, the largest text input multitrace reads; split it"),
            "{e}"
        );
        // A device with no end stops at the limit instead of filling memory.
        let zero = Path::new("/dev/zero");
        if zero.exists() {
            let e = read_text_limited(zero, 1 << 16).unwrap_err();
            assert!(e.to_string().contains("larger than 65536 bytes"), "{e}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn io_errors_name_the_file() {
        let dir = scratch("io");
        let path = dir.join("missing.hif");
        let e = read_text(&path).unwrap_err();
        assert!(matches!(e, ModelError::Io { .. }));
        assert!(
            e.to_string()
                .starts_with(&format!("{}: cannot read: ", path.display())),
            "{e}"
        );
        let e = read_interaction(&path, None).unwrap_err();
        assert!(matches!(e, ModelError::Io { .. }));
        std::fs::write(dir.join("empty.hif"), "").unwrap();
        let e = read_text(&dir.join("empty.hif")).unwrap_err();
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
    #[ignore = "reads /work/shared/data/hibou-lfrem-sample when present"]
    fn real_sample_models() {
        let dir = Path::new("/work/shared/data/hibou-lfrem-sample/gen_ints");
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
