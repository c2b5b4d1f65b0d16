//! What identifies a followed file: its position (offset, line, inode, the fingerprint of its
//! first bytes), so a rotation or another file under the name is told apart.

use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::Read;
use std::path::Path;

/// Where reading of one file stands.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Position {
    /// The file.
    pub path: String,
    /// Bytes consumed (up to the end of the last complete line handed out).
    pub offset: u64,
    /// Lines consumed.
    pub line: u32,
    /// The file's identity (inode) when read, to notice a rotation.
    pub id: u64,
    /// A fingerprint of the file's first bytes (the first [`HEAD`], or all it had when
    /// first read): a file under the name whose first bytes differ is another file, even on
    /// the same inode (removed and created again, or copied and truncated, then grown past
    /// the offset): read from its start, never from the old offset.
    pub head: u64,
    /// How many first bytes `head` covers (0: none yet).
    pub head_len: u32,
    /// The file the name held before a rotation, while it is still read to its end (see
    /// [`super::DRAIN_QUIET`]): its position, `path` the followed name.
    pub rotated: Option<Box<Position>>,
}

/// The most first bytes of a file its fingerprint covers ([`Position::head`]).
pub const HEAD: usize = 256;

/// The fingerprint of `bytes` (FNV-1a: not for security, only to tell two files apart).
pub(super) fn fingerprint(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The first `n` bytes of the file at `path` (fewer when it is shorter).
pub(super) fn first_bytes(path: &Path, n: usize) -> Vec<u8> {
    let mut buf = Vec::with_capacity(n);
    if let Ok(f) = File::open(path) {
        let _ = f.take(n as u64).read_to_end(&mut buf);
    }
    buf
}

#[cfg(unix)]
pub(super) fn file_id(m: &std::fs::Metadata) -> u64 {
    use std::os::unix::fs::MetadataExt;
    m.ino()
}

#[cfg(not(unix))]
pub(super) fn file_id(_: &std::fs::Metadata) -> u64 {
    0
}
