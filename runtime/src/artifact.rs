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
//! | 8 | digest of the source model ([`digest`]) |
//! | 8 | payload length |
//! | n | payload: the [`CompiledModel`], bincode 2 (standard configuration) through serde |
//! | 8 | checksum: FNV-1a 64 of every preceding byte |
//!
//! Loading checks, in order: length, magic, version, checksum, header/payload agreement, then
//! decodes with a size limit and validates every id against its table
//! ([`CompiledModel::validate`]), so a hostile file gives a [`LoadError`], never a panic.

use crate::model::{CompiledModel, ModelKind};
use std::fmt;

/// First bytes of every artifact.
pub const MAGIC: &[u8; 8] = b"MTMODEL\0";
/// Version of the format written by this build; others are refused.
pub const FORMAT_VERSION: u32 = 1;
const HEADER: usize = 8 + 4 + 4 + 8 + 8;
/// Largest payload accepted (1 GiB).
pub const MAX_PAYLOAD: u64 = 1 << 30;

/// FNV-1a, 64 bits: the digest of sources and the checksum of artifacts. Every single-bit
/// change of the input changes the result (each step is a bijection of the state).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Digest of a source model: its files' contents and the compile options, each prefixed by
/// its length so that concatenations cannot collide.
pub fn digest(parts: &[&[u8]]) -> u64 {
    let mut buf = Vec::new();
    for p in parts {
        buf.extend_from_slice(&(p.len() as u64).to_le_bytes());
        buf.extend_from_slice(p);
    }
    fnv1a(&buf)
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
    /// The payload does not decode or violates an invariant.
    Invalid(String),
    /// The artifact was compiled from another source than the one named.
    DigestMismatch {
        /// The artifact's digest.
        artifact: u64,
        /// The named source's digest.
        source: u64,
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
            LoadError::Invalid(m) => write!(f, "invalid compiled model: {m}; compile it again"),
            LoadError::DigestMismatch { artifact, source } => write!(
                f,
                "compiled model was built from another source (digest {artifact:016x}, source {source:016x}); compile it again"
            ),
        }
    }
}

impl std::error::Error for LoadError {}

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
    out.extend_from_slice(&model.digest.to_le_bytes());
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

/// Reads the digest of an artifact without decoding it (after the same checks as [`decode`]
/// up to the checksum).
pub fn peek_digest(bytes: &[u8]) -> Result<u64, LoadError> {
    check_frame(bytes)?;
    Ok(u64_at(bytes, 16))
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
    let len = u64_at(bytes, 24);
    if len > MAX_PAYLOAD {
        return Err(LoadError::Invalid(format!(
            "payload of {len} bytes is too large"
        )));
    }
    let needed = HEADER + len as usize + 8;
    if bytes.len() < needed {
        return Err(LoadError::Truncated {
            len: bytes.len(),
            needed,
        });
    }
    if bytes.len() > needed {
        return Err(LoadError::Invalid(format!(
            "{} bytes after the checksum",
            bytes.len() - needed
        )));
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
        return Err(LoadError::Invalid("bad header fields".into()));
    }
    let payload = &bytes[HEADER..HEADER + len];
    let (mut model, used): (CompiledModel, usize) =
        bincode::serde::decode_from_slice(payload, config())
            .map_err(|e| LoadError::Invalid(e.to_string()))?;
    if used != payload.len() {
        return Err(LoadError::Invalid("trailing bytes in the payload".into()));
    }
    let payload_kind = u8::from(matches!(model.kind, ModelKind::TermOnly(_)));
    if payload_kind != kind || model.digest != u64_at(bytes, 16) {
        return Err(LoadError::Invalid(
            "header does not match the payload".into(),
        ));
    }
    model.prepare().map_err(LoadError::Invalid)?;
    Ok(model)
}
