//! The compiled-model file format (`.mtm`).
//!
//! Layout (all integers little-endian):
//!
//! | bytes | content |
//! |---|---|
//! | 8 | magic `b"MTMODEL\0"` |
//! | 4 | format version ([`FORMAT_VERSION`]) |
//! | 1 | kind: 0 automata, 1 term-only |
//! | 3 | reserved, zero |
//! | 32 | SHA-256 of the source model and its locations ([`source_hash`]) |
//! | 8 | payload length |
//! | n | payload: the [`CompiledModel`], bincode 2 (standard configuration) through serde |
//! | 8 | checksum: FNV-1a 64 of every preceding byte |
//!
//! Loading checks, in order: length, magic, version, checksum, header/payload agreement, then
//! decodes with a size limit and validates every id against its table
//! ([`CompiledModel::validate`]), so a hostile file gives a [`LoadError`], never a panic.
//!
//! Threat model: the checksum detects corruption and the source hash detects a stale or
//! mismatched file (compiled from another source, or from one edited since). Neither is a
//! signature: whoever can write the file can give it any header. `multitrace verify`, which
//! compiles the source again and compares byte for byte, detects a deliberate forgery too.
//!
//! Version 1 carried an FNV-1a 64 digest of the sources in 8 bytes; version 2 carries their
//! SHA-256 (a cryptographic hash: two different sources cannot be made to share it).

pub use crate::hash::{source_hash, SourceHash};
use crate::model::{CompiledModel, InvalidModel, ModelKind};
use std::fmt;

/// First bytes of every artifact.
pub const MAGIC: &[u8; 8] = b"MTMODEL\0";
/// Version of the format written by this build; others are refused.
pub const FORMAT_VERSION: u32 = 2;
/// Where the source hash starts in the header.
const HASH_AT: usize = 16;
/// Where the payload length starts in the header.
const LEN_AT: usize = HASH_AT + 32;
const HEADER: usize = LEN_AT + 8;
/// Largest payload accepted (1 GiB).
pub const MAX_PAYLOAD: u64 = 1 << 30;
/// Largest artifact file: a header, [`MAX_PAYLOAD`] and the checksum.
pub const MAX_ARTIFACT_BYTES: u64 = HEADER as u64 + MAX_PAYLOAD + 8;

/// FNV-1a, 64 bits: the checksum of artifacts (it detects corruption, not forgery). Every
/// single-bit change of the input changes the result (each step is a bijection of the state).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Why an artifact could not be loaded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoadError {
    /// Shorter than a header and a checksum, or than its payload length says.
    Truncated {
        /// Bytes present.
        len: usize,
        /// Bytes needed.
        needed: usize,
    },
    /// Not an artifact.
    BadMagic,
    /// Written by another format version.
    Version {
        /// The file's version.
        found: u32,
    },
    /// The checksum does not match: the file was corrupted.
    Checksum,
    /// The header announces a payload larger than [`MAX_PAYLOAD`].
    PayloadTooLarge {
        /// The announced length.
        len: u64,
    },
    /// Bytes follow the checksum.
    AfterChecksum {
        /// How many.
        extra: usize,
    },
    /// The reserved bytes are not zero or the kind is unknown.
    BadHeader,
    /// The payload does not decode (the decoder's explanation).
    Decode(String),
    /// The payload decodes without using all its bytes.
    TrailingPayload,
    /// The header's kind or source hash is not the payload's.
    HeaderMismatch,
    /// The payload decodes but violates an invariant.
    Invalid(InvalidModel),
    /// The artifact was compiled from another source than the one named.
    DigestMismatch {
        /// The artifact's source hash.
        artifact: SourceHash,
        /// The named source's hash.
        source: SourceHash,
    },
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::Truncated { len, needed } => write!(
                f,
                "truncated compiled model: {len} bytes, at least {needed} needed; compile it again"
            ),
            LoadError::BadMagic => write!(
                f,
                "not a compiled model (.mtm): wrong magic bytes; produce one with `multitrace compile`"
            ),
            LoadError::Version { found } => write!(
                f,
                "compiled model format version {found}, this build reads version {FORMAT_VERSION}; compile the model again with this build"
            ),
            LoadError::Checksum => write!(
                f,
                "compiled model is corrupted (checksum mismatch); compile it again"
            ),
            LoadError::PayloadTooLarge { len } => {
                invalid(f, format_args!("payload of {len} bytes is too large"))
            }
            LoadError::AfterChecksum { extra } => {
                invalid(f, format_args!("{extra} bytes after the checksum"))
            }
            LoadError::BadHeader => invalid(f, format_args!("bad header fields")),
            LoadError::Decode(m) => invalid(f, format_args!("{m}")),
            LoadError::TrailingPayload => invalid(f, format_args!("trailing bytes in the payload")),
            LoadError::HeaderMismatch => {
                invalid(f, format_args!("header does not match the payload"))
            }
            LoadError::Invalid(e) => invalid(f, format_args!("{e}")),
            LoadError::DigestMismatch { artifact, source } => write!(
                f,
                "compiled model was built from another source (SHA-256 {artifact}, source {source}); compile it again"
            ),
        }
    }
}

impl std::error::Error for LoadError {}

/// A payload that is not a model this build wrote: what is wrong, and the way out.
fn invalid(f: &mut fmt::Formatter<'_>, what: fmt::Arguments<'_>) -> fmt::Result {
    write!(f, "invalid compiled model: {what}; compile it again")
}

fn config() -> impl bincode::config::Config {
    bincode::config::standard().with_limit::<{ MAX_PAYLOAD as usize }>()
}

/// Serializes a model into artifact bytes.
pub fn encode(model: &CompiledModel) -> Vec<u8> {
    // Serializing plain data structures cannot fail.
    let payload = bincode::serde::encode_to_vec(model, config()).unwrap_or_default();
    let mut out = Vec::with_capacity(HEADER + payload.len() + 8);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.push(match model.kind {
        ModelKind::Automata(_) => 0,
        ModelKind::TermOnly(_) => 1,
    });
    out.extend_from_slice(&[0, 0, 0]);
    out.extend_from_slice(&model.source_hash.0);
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&payload);
    let sum = fnv1a(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    let mut x = [0u8; 4];
    x.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(x)
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut x = [0u8; 8];
    x.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(x)
}

/// Reads the source hash of an artifact without decoding it (after the same checks as
/// [`decode`] up to the checksum).
pub fn peek_source_hash(bytes: &[u8]) -> Result<SourceHash, LoadError> {
    check_frame(bytes)?;
    Ok(hash_at(bytes))
}

fn hash_at(b: &[u8]) -> SourceHash {
    let mut h = [0u8; 32];
    h.copy_from_slice(&b[HASH_AT..HASH_AT + 32]);
    SourceHash(h)
}

fn check_frame(bytes: &[u8]) -> Result<usize, LoadError> {
    if bytes.len() < 8 || &bytes[..8] != MAGIC {
        if bytes.len() < 8 && MAGIC.starts_with(bytes) {
            return Err(LoadError::Truncated {
                len: bytes.len(),
                needed: HEADER + 8,
            });
        }
        return Err(LoadError::BadMagic);
    }
    if bytes.len() < HEADER + 8 {
        return Err(LoadError::Truncated {
            len: bytes.len(),
            needed: HEADER + 8,
        });
    }
    let version = u32_at(bytes, 8);
    if version != FORMAT_VERSION {
        return Err(LoadError::Version { found: version });
    }
    let len = u64_at(bytes, LEN_AT);
    if len > MAX_PAYLOAD {
        return Err(LoadError::PayloadTooLarge { len });
    }
    let needed = HEADER + len as usize + 8;
    if bytes.len() < needed {
        return Err(LoadError::Truncated {
            len: bytes.len(),
            needed,
        });
    }
    if bytes.len() > needed {
        return Err(LoadError::AfterChecksum {
            extra: bytes.len() - needed,
        });
    }
    let body = &bytes[..needed - 8];
    if fnv1a(body) != u64_at(bytes, needed - 8) {
        return Err(LoadError::Checksum);
    }
    Ok(len as usize)
}

/// Loads a model from artifact bytes, validating everything.
pub fn decode(bytes: &[u8]) -> Result<CompiledModel, LoadError> {
    let len = check_frame(bytes)?;
    let kind = bytes[12];
    if bytes[13..16] != [0, 0, 0] || kind > 1 {
        return Err(LoadError::BadHeader);
    }
    let payload = &bytes[HEADER..HEADER + len];
    let (mut model, used): (CompiledModel, usize) =
        bincode::serde::decode_from_slice(payload, config())
            .map_err(|e| LoadError::Decode(e.to_string()))?;
    if used != payload.len() {
        return Err(LoadError::TrailingPayload);
    }
    let payload_kind = u8::from(matches!(model.kind, ModelKind::TermOnly(_)));
    if payload_kind != kind || model.source_hash != hash_at(bytes) {
        return Err(LoadError::HeaderMismatch);
    }
    model.prepare().map_err(LoadError::Invalid)?;
    Ok(model)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{CompileStats, Origin, TermModel};
    use crate::nfa::{Alphabet, LocationId};
    use crate::signature::{Action, ActionKind, LifelineId, LifelineSet, MessageId, Signature};
    use crate::term::{Term, TermId};

    /// A term-only model over one lifeline `l` and one message `m` whose term is `nodes`.
    fn term_model(nodes: Vec<Term>) -> Result<CompiledModel, InvalidModel> {
        let mut signature = Signature::new();
        signature.add_lifeline("l").unwrap();
        signature.add_message("m");
        let alphabet = Alphabet::new(
            vec!["l!m".into(), "l?m".into()],
            vec![LocationId(0), LocationId(0)],
            vec!["l".into()],
        )
        .unwrap();
        let act = |kind| Action {
            lifeline: LifelineId(0),
            kind,
            message: MessageId(0),
        };
        CompiledModel::new(
            alphabet,
            Origin::Interaction {
                signature,
                letter_actions: vec![act(ActionKind::Emission), act(ActionKind::Reception)],
                location_lifelines: vec![LifelineSet::single(LifelineId(0))],
                term: TermModel { nodes },
            },
            ModelKind::TermOnly("test".into()),
            CompileStats::default(),
            source_hash(&[b"l!m;l?m"]),
        )
    }

    fn emission() -> Term {
        Term::Act(Action {
            lifeline: LifelineId(0),
            kind: ActionKind::Emission,
            message: MessageId(0),
        })
    }

    /// Artifact bytes of a model edited as JSON (the fields a hostile file controls), with a
    /// correct header and checksum.
    fn tampered(model: &CompiledModel, edit: impl FnOnce(&mut serde_json::Value)) -> Vec<u8> {
        let mut json = serde_json::to_value(model).unwrap();
        edit(&mut json);
        let payload = bincode::serde::encode_to_vec(json_model(json), config()).unwrap();
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        out.extend_from_slice(&[1, 0, 0, 0]);
        out.extend_from_slice(&model.source_hash.0);
        out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        out.extend_from_slice(&payload);
        let sum = fnv1a(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Deserializes without validation, as `decode` does before validating.
    fn json_model(json: serde_json::Value) -> CompiledModel {
        serde_json::from_value(json).unwrap()
    }

    fn invalid(bytes: &[u8]) -> String {
        match decode(bytes) {
            Err(LoadError::Invalid(m)) => m.to_string(),
            other => panic!("expected an invalid model, got {other:?}"),
        }
    }

    #[test]
    fn a_model_round_trips() {
        let model = term_model(vec![emission()]).unwrap();
        let back = decode(&encode(&model)).unwrap();
        assert_eq!(back, model);
        assert_eq!(peek_source_hash(&encode(&model)), Ok(model.source_hash));
        assert_eq!(model.digest, model.source_hash.digest());
        // The tampering helper itself produces loadable bytes when nothing is changed.
        assert_eq!(decode(&tampered(&model, |_| {})).unwrap(), model);
    }

    #[test]
    fn the_source_hash_is_sha256_of_the_length_prefixed_parts() {
        // `printf '\x03\0\0\0\0\0\0\0abc\x00\0\0\0\0\0\0\0' | sha256sum`, computed outside Rust.
        let h = source_hash(&[b"abc", b""]);
        assert_eq!(
            h.to_string(),
            "3e2f8940c3a0e0fd6f6e07bbf07f015dd7c147431e5fa14bf3f225d782641540"
        );
        assert_eq!(format!("{:016x}", h.digest()), h.to_string()[..16]);
        // The length prefix separates the parts: the same bytes cut elsewhere differ.
        assert_ne!(source_hash(&[b"ab", b"c"]), source_hash(&[b"a", b"bc"]));
    }

    #[test]
    fn the_header_holds_the_whole_hash_and_a_forged_one_is_refused() {
        let model = term_model(vec![emission()]).unwrap();
        let bytes = encode(&model);
        assert_eq!(u32_at(&bytes, 8), 2);
        assert_eq!(&bytes[HASH_AT..HASH_AT + 32], &model.source_hash.0);
        // Another hash in the header (checksum made valid): the payload disagrees.
        let mut forged = bytes.clone();
        forged[HASH_AT + 31] ^= 1;
        let body = forged.len() - 8;
        let sum = fnv1a(&forged[..body]);
        forged[body..].copy_from_slice(&sum.to_le_bytes());
        assert_eq!(decode(&forged).unwrap_err(), LoadError::HeaderMismatch);
        // A version 1 file is refused with the message that says to compile again.
        let mut v1 = bytes;
        v1[8] = 1;
        let e = decode(&v1).unwrap_err();
        assert_eq!(e, LoadError::Version { found: 1 });
        assert!(e.to_string().contains("compile the model again"), "{e}");
    }

    #[test]
    fn inconsistent_alphabet_tables_are_refused() {
        // Regression (fuzz target `mtm`): a letter id out of range among the letters of a
        // location passed validation, and checking a multitrace indexed out of bounds.
        let model = term_model(vec![emission()]).unwrap();
        let bytes = tampered(&model, |j| {
            j["alphabet"]["location_letters"][0]
                .as_array_mut()
                .unwrap()
                .push(5.into())
        });
        assert!(invalid(&bytes).contains("letters of each location"));
        let bytes = tampered(&model, |j| j["alphabet"]["location"][1] = 3.into());
        assert!(invalid(&bytes).contains("out of range"));
        let bytes = tampered(&model, |j| j["alphabet"]["local_index"][1] = 0.into());
        assert!(invalid(&bytes).contains("letters of each location"));
    }

    #[test]
    fn bad_locations_and_names_are_refused() {
        let model = term_model(vec![emission()]).unwrap();
        // A location naming lifeline 5 of a signature with one lifeline.
        let bytes = tampered(&model, |j| {
            j["origin"]["Interaction"]["location_lifelines"][0] = (1u64 << 5 | 1).into()
        });
        assert!(
            invalid(&bytes).contains("unknown ones"),
            "{}",
            invalid(&bytes)
        );
        let bytes = tampered(&model, |j| {
            j["origin"]["Interaction"]["signature"]["messages"] = serde_json::json!(["m", "m"])
        });
        assert!(invalid(&bytes).contains("message name occurs twice"));
    }

    #[test]
    fn unnormalized_deep_terms_are_refused_not_a_stack_overflow() {
        // A right spine `seq(a, seq(a, ... a))` of 200,000 nodes is a normal form and loads.
        let n = 200_000u32;
        let mut nodes = vec![emission(), Term::Seq(TermId(0), TermId(0))];
        for i in 1..n {
            nodes.push(Term::Seq(TermId(0), TermId(i)));
        }
        let model = term_model(nodes.clone()).unwrap();
        let (store, root) = model.term().unwrap();
        assert_eq!(store.depth(root), n + 1);
        // `seq(spine, a)`: no store holds it; rebuilding it would recurse 200,000 deep.
        nodes.push(Term::Seq(TermId(n), TermId(0)));
        let e = term_model(nodes).unwrap_err();
        assert_eq!(
            e,
            InvalidModel::TermNotNormal {
                node: n as usize + 1
            }
        );
        assert!(e.to_string().contains("not in normal form"), "{e}");
        // The same through a coreg whose region the operands do not share.
        let mut nodes = vec![emission(), Term::Seq(TermId(0), TermId(0))];
        for i in 1..n {
            nodes.push(Term::Seq(TermId(0), TermId(i)));
        }
        nodes.push(Term::Coreg(LifelineSet::EMPTY, TermId(n), TermId(0)));
        let e = term_model(nodes).unwrap_err();
        assert_eq!(
            e,
            InvalidModel::TermNotNormal {
                node: n as usize + 1
            }
        );
    }
}
