//! Followed directories: the files in them, picked up in natural order, leaving out
//! temporary names and the monitor's own files.

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
            let excluded = &self.excluded;
            let mut found: Vec<PathBuf> = rd
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file() && !ignored_name(p))
                .filter(|p| {
                    excluded.is_empty() || {
                        let c = std::fs::canonicalize(p).unwrap_or_else(|_| p.clone());
                        !excluded.iter().any(|e| c.starts_with(e))
                    }
                })
                .collect();
            found.sort_by(|a, b| natural_cmp(&a.to_string_lossy(), &b.to_string_lossy()));
            for p in found {
                self.add(&p);
            }
        }
    }
}
