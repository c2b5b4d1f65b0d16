//! The SHA-256 of a model's sources, recorded in a compiled model (`.mtm`) and compared with
//! its source on every use (the staleness check). A cryptographic hash: a source edited or
//! swapped cannot keep the hash of the one a model was compiled from. It is not a signature
//! (see [`crate::artifact`] for the threat model).

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::fmt;

/// The SHA-256 of a source model: its files' contents and the compile options that decide
/// its language (the locations), see [`source_hash`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SourceHash(pub [u8; 32]);

impl SourceHash {
    /// The first 8 bytes, big-endian: the short digest that summaries, Python and `inspect`
    /// show. Its 16 hexadecimal digits are the first 16 of the hash's.
    pub fn digest(&self) -> u64 {
        let mut x = [0u8; 8];
        x.copy_from_slice(&self.0[..8]);
        u64::from_be_bytes(x)
    }
}

impl fmt::Display for SourceHash {
    /// 64 lowercase hexadecimal digits, as `sha256sum` prints.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for b in self.0 {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

/// The checksum of a file's bytes (a monitor's checkpoint): the first 8 bytes of their
/// SHA-256, enough to tell a file changed, cut or damaged since it was written.
pub fn checksum(bytes: &[u8]) -> [u8; 8] {
    let h = Sha256::digest(bytes);
    let mut c = [0u8; 8];
    c.copy_from_slice(&h[..8]);
    c
}

/// SHA-256 of a source model's parts (file contents, the locations), each prefixed by its
/// length as 8 bytes little-endian so that concatenations cannot collide.
pub fn source_hash(parts: &[&[u8]]) -> SourceHash {
    let mut h = Sha256::new();
    for p in parts {
        h.update((p.len() as u64).to_le_bytes());
        h.update(p);
    }
    SourceHash(h.finalize().into())
}
