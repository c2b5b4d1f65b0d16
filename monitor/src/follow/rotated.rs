//! The file a followed name held before it was rotated, read to its end before the name's new
//! file: a writer may still append to it after the rename (until it reopens its log), and a
//! restart may find the name rotated while the monitor was down, the old file renamed beside
//! it (`NAME.1`) or copied there before a truncation (copytruncate).
//!
//! The old file is found in the name's directory by its inode and the fingerprint of its first
//! bytes (a renamed file, under any name), or by that fingerprint alone under a rotated name of
//! it (a copy: `NAME.1`, `NAME-20241207`), at least as long as the position read in it. It is read until it has been quiet for [`DRAIN_QUIET`] (following) or
//! to its end (not following); a checkpoint keeps its position ([`Position::rotated`]), so a
//! restart while it is read goes on with it. When it cannot be found (compressed, removed),
//! the lines written to it after the position cannot be read: that is said, never skipped
//! silently.

use super::identity::{file_id, fingerprint, first_bytes, Position};
use super::lines::{Lines, Reading};
use std::fs::File;
use std::io::{Seek, SeekFrom};
use std::path::Path;
use std::time::{Duration, Instant};

/// How long a rotated file must stay quiet before it is left: a writer reopens its log within
/// that after a rotation (logrotate's `postrotate` signal, a logging library's check).
pub const DRAIN_QUIET: Duration = Duration::from_secs(2);

/// A rotated file being read to its end; its lines are named by the followed name, numbered
/// on from the lines read in it before.
pub(super) struct Old {
    pub(super) pos: Position,
    file: File,
    partial: Vec<u8>,
    last: Instant,
}

impl Old {
    /// The handle that was reading the name, `partial` the bytes read past its last line.
    pub(super) fn held(pos: Position, file: File, partial: Vec<u8>) -> Old {
        Old {
            pos,
            file,
            partial,
            last: Instant::now(),
        }
    }

    /// The file `pos` was reading, found beside `name` (see the module), opened at the
    /// position; `None` when no file there can be it.
    pub(super) fn find(name: &Path, pos: &Position, by_inode: bool) -> Option<Old> {
        let dir = match name.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let same_head = |p: &Path| {
            pos.head_len > 0 && {
                let h = first_bytes(p, pos.head_len as usize);
                h.len() == pos.head_len as usize && fingerprint(&h) == pos.head
            }
        };
        let mut copy = None;
        for e in std::fs::read_dir(dir).ok()?.flatten() {
            let p = e.path();
            if p.file_name() == name.file_name() {
                continue;
            }
            let Ok(m) = std::fs::metadata(&p) else {
                continue;
            };
            if !m.is_file() || m.len() < pos.offset {
                continue;
            }
            let inode = by_inode && pos.id != 0 && file_id(&m) == pos.id;
            if inode && (pos.head_len == 0 || same_head(&p)) {
                copy = Some(p);
                break;
            }
            // A copy is only looked for under the name's rotated names (`NAME.1`,
            // `NAME-20241207`): another log may begin with the same bytes.
            let rotated_name = p.file_name().zip(name.file_name()).is_some_and(|(a, b)| {
                let (a, b) = (a.to_string_lossy(), b.to_string_lossy());
                a.len() > b.len() && a.starts_with(b.as_ref())
            });
            if copy.is_none() && rotated_name && pos.offset > 0 && same_head(&p) {
                copy = Some(p);
            }
        }
        let mut file = File::open(copy?).ok()?;
        file.seek(SeekFrom::Start(pos.offset)).ok()?;
        Some(Old {
            pos: pos.clone(),
            file,
            partial: Vec::new(),
            last: Instant::now(),
        })
    }

    /// Reads what it has (its lines named `name`), up to about `budget` bytes in `out`;
    /// `false` once it is left: at its end when not following, else after [`DRAIN_QUIET`]
    /// without a byte (its last line, without a line break, is complete then).
    pub(super) fn read(
        &mut self,
        name: &str,
        budget: usize,
        follow: bool,
        spare: &mut Vec<Lines>,
        out: &mut Vec<Result<Lines, String>>,
    ) -> bool {
        let mut reading = Reading {
            name,
            partial: &mut self.partial,
            line: &mut self.pos.line,
            offset: &mut self.pos.offset,
        };
        match reading.read(&mut self.file, budget, spare, out) {
            Ok(got) => {
                if got.bytes {
                    self.last = Instant::now();
                }
                if got.full {
                    return true;
                }
            }
            Err(e) => {
                out.push(Err(format!("{name}: cannot read its rotated file: {e}")));
                return false;
            }
        }
        if follow && self.last.elapsed() < DRAIN_QUIET {
            return true;
        }
        reading.last_line(spare, out);
        false
    }
}

/// What is said when the file a position was reading is not found beside its name.
pub(super) fn lost(name: &str, pos: &Position) -> String {
    let dir = Path::new(name)
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .map_or(".".to_string(), |d| d.display().to_string());
    format!(
        "{name}: rotated or replaced while not read: the file read to line {} (byte {}) is not \
         in {dir} any more, under any name (compressed or removed); lines written to it after \
         that, if any, are not read. Keep the last rotated file uncompressed \
         (logrotate's `delaycompress`) for a restart to find it",
        pos.line, pos.offset
    )
}
