//! Followed directories: the files in them, picked up in natural order, leaving out
//! temporary names and the monitor's own files.

use super::identity::{file_id, fingerprint, first_bytes};
use super::Follower;
use multitrace_formats::input::natural_cmp;
use std::path::{Path, PathBuf};

/// Whether a file found in a followed directory is left out: hidden files (`.name`, which
/// editors and tools write beside a file), temporary names (`*.tmp`, `*.part`, `*.swp`,
/// `name~`): an atomic write's file is read once, under its final name.
fn ignored_name(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    name.starts_with('.')
        || name.ends_with('~')
        || [".tmp", ".part", ".swp"]
            .iter()
            .any(|s| name.to_ascii_lowercase().ends_with(s))
}

impl Follower {
    pub(super) fn scan_dirs(&mut self) {
        for d in self.dirs.clone() {
            let Ok(rd) = std::fs::read_dir(&d) else {
                continue;
            };
            let mut found: Vec<PathBuf> = Vec::new();
            for p in rd.filter_map(|e| e.ok().map(|e| e.path())) {
                // A name seen before is not looked at again (no stat, no canonical form).
                if ignored_name(&p) || self.known.contains(p.display().to_string().as_str()) {
                    continue;
                }
                let Ok(m) = std::fs::metadata(&p) else {
                    continue;
                };
                if !m.is_file() {
                    continue;
                }
                if self.is_read(&p, &m) {
                    // A file read under another name (rotated within the directory: renamed
                    // `NAME.1`): not read again from its start.
                    self.known.insert(p.display().to_string());
                    continue;
                }
                let excluded = !self.excluded.is_empty() && {
                    let c = std::fs::canonicalize(&p).unwrap_or_else(|_| p.clone());
                    self.excluded.iter().any(|e| c.starts_with(e))
                };
                if excluded {
                    self.known.insert(p.display().to_string());
                } else {
                    found.push(p);
                }
            }
            found.sort_by(|a, b| natural_cmp(&a.to_string_lossy(), &b.to_string_lossy()));
            for p in found {
                self.add(&p);
            }
        }
    }

    /// Whether the file `p` (of metadata `m`) is one read under another name: one open
    /// now (the name followed, or a rotated file read on: its inode cannot be another file's
    /// while it is open), or one read to its end (by inode and first bytes).
    fn is_read(&self, p: &Path, m: &std::fs::Metadata) -> bool {
        let id = file_id(m);
        if id == 0 {
            return false;
        }
        let open = self.files.iter().any(|x| {
            (x.file.is_some() && x.pos.id == id) || x.old.as_ref().is_some_and(|o| o.pos.id == id)
        });
        open || self
            .retired
            .iter()
            .filter(|&&(i, _, len)| i == id && len > 0)
            .any(|&(_, head, len)| {
                let h = first_bytes(p, len as usize);
                h.len() == len as usize && fingerprint(&h) == head
            })
    }
}
