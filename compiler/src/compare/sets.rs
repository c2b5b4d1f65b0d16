//! Reading the sets to compare: a directory's manifest, else its multitrace files.
//!
//! Invariants: a manifest row's multitrace is read from the manifest's directory (a JSON Lines
//! file is read once, whatever the number of its rows); a row keeps its expected verdict only
//! when it is checked in the manifest's mode; the first file that cannot be read is the
//! error, with its position.

use super::{CompareError, Item, Set};
use crate::generate::Kind;
use multitrace_runtime::manifest::{Manifest, MANIFEST_FILE};
use multitrace_runtime::model::CompiledModel;
use multitrace_runtime::nfa::LetterId;
use multitrace_runtime::syntax::{parse_htf, parse_jsonl_line, parse_mtf, read_text, NameIndex};
use multitrace_runtime::verdict::Mode;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Reads multitrace files (`.htf`, `.mtf`, or one line of a `.jsonl`) as letters.
struct Reader<'a> {
    model: &'a CompiledModel,
    names: NameIndex,
    jsonl: BTreeMap<PathBuf, BTreeMap<String, Vec<Vec<LetterId>>>>,
}

impl Reader<'_> {
    fn read(&self, path: &Path) -> Result<Vec<Vec<LetterId>>, CompareError> {
        let file = path.display().to_string();
        let model = self.model;
        match path.extension().and_then(|e| e.to_str()) {
            Some("mtf") => Ok(parse_mtf(&file, &read_text(path)?, &model.alphabet)?),
            Some("htf") => {
                let text = read_text(path)?;
                let Some(sig) = model.signature() else {
                    return Err(CompareError::HtfForAutomaton { file });
                };
                let (mt, _) = parse_htf(&file, &text, sig)?;
                model
                    .letter_traces(&mt)
                    .map_err(|mismatch| CompareError::Letters { file, mismatch })
            }
            _ => {
                read_text(path)?;
                Err(CompareError::Extension { file })
            }
        }
    }

    /// The multitraces of a JSON Lines file by id (read once).
    fn jsonl(
        &mut self,
        path: &Path,
    ) -> Result<&BTreeMap<String, Vec<Vec<LetterId>>>, CompareError> {
        if !self.jsonl.contains_key(path) {
            let file = path.display().to_string();
            let text = read_text(path)?;
            let mut lines = BTreeMap::new();
            for (i, line) in text.lines().enumerate() {
                if line.trim().is_empty() {
                    continue;
                }
                let (id, traces) =
                    parse_jsonl_line(&file, i + 1, line, &self.model.alphabet, &self.names)?;
                lines.insert(id, traces);
            }
            self.jsonl.insert(path.to_path_buf(), lines);
        }
        Ok(&self.jsonl[path])
    }

    /// The sets of one directory: one per category of its manifest, else the directory.
    fn sets(&mut self, dir: &Path, mode: Option<Mode>) -> Result<Vec<Set>, CompareError> {
        let manifest = dir.join(MANIFEST_FILE);
        if manifest.is_file() {
            let mut sets: Vec<Set> = Vec::new();
            for row in Manifest::read(&manifest)?.rows {
                let item_mode = mode.unwrap_or(row.mode);
                let traces = match row.file.split_once('#') {
                    Some((f, id)) => {
                        let path = dir.join(f);
                        let Some(traces) = self.jsonl(&path)?.get(id) else {
                            return Err(CompareError::NoSuchId {
                                path,
                                id: id.to_string(),
                            });
                        };
                        traces.clone()
                    }
                    None => self.read(&dir.join(&row.file))?,
                };
                let category = row.kind.clone();
                let item = Item {
                    name: format!("{}/{}", dir.display(), row.file),
                    traces,
                    mode: item_mode,
                    // A manifest verdict holds for the manifest's mode only.
                    expected: (item_mode == row.mode).then_some(row),
                };
                match sets.iter_mut().find(|s| s.category == category) {
                    Some(s) => s.items.push(item),
                    None => sets.push(Set {
                        category,
                        items: vec![item],
                    }),
                }
            }
            // Categories in the order of `Kind::ALL` (seed 004's first), others after.
            sets.sort_by_key(|s| Kind::from_name(&s.category).map_or(usize::MAX, |k| k as usize));
            return Ok(sets);
        }
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(|e| CompareError::Directory {
                path: dir.to_path_buf(),
                message: e.to_string(),
            })?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.is_file()
                    && p.extension()
                        .is_some_and(|e| e == "htf" || e == "mtf" || e == "jsonl")
            })
            .collect();
        files.sort();
        let mode = mode.unwrap_or(Mode::Complete);
        let mut items = Vec::new();
        for f in files {
            if f.extension().is_some_and(|e| e == "jsonl") {
                for (id, traces) in self.jsonl(&f)? {
                    items.push(Item {
                        name: format!("{}#{id}", f.display()),
                        traces: traces.clone(),
                        mode,
                        expected: None,
                    });
                }
            } else {
                items.push(Item {
                    name: f.display().to_string(),
                    traces: self.read(&f)?,
                    mode,
                    expected: None,
                });
            }
        }
        let category = dir.file_name().map_or_else(
            || dir.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        Ok(vec![Set { category, items }])
    }
}

/// The sets of `dirs`, in order (see the module documentation); `mode` overrides the
/// manifests' modes (and then only rows of that mode keep their expected verdict).
pub fn read_sets(
    model: &CompiledModel,
    dirs: &[PathBuf],
    mode: Option<Mode>,
) -> Result<Vec<Set>, CompareError> {
    let mut reader = Reader {
        model,
        names: NameIndex::new(&model.alphabet),
        jsonl: BTreeMap::new(),
    };
    let mut sets = Vec::new();
    for dir in dirs {
        sets.extend(reader.sets(dir, mode)?);
    }
    Ok(sets)
}

#[cfg(test)]
mod tests {
    use super::super::tests::{engine, scratch_dir};
    use super::super::{compare, CompareError, CompareOptions};
    use multitrace_runtime::manifest::MANIFEST_FILE;

    #[test]
    fn unreadable_sets_are_typed_errors() {
        let e = engine("seed004-mqtt/model.hif");
        let dir = scratch_dir("errors");
        let opts = CompareOptions::default();
        let err = compare(&e, std::slice::from_ref(&dir), &opts).unwrap_err();
        assert!(matches!(err, CompareError::Directory { .. }), "{err}");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join(MANIFEST_FILE),
            "file\tkind\tlength\tverdict\treason\tmode\nx.jsonl#x-1\tpass\t1\tPass\t-\tcomplete\n",
        )
        .unwrap();
        std::fs::write(dir.join("x.jsonl"), "{\"id\": \"x-2\", \"traces\": {}}\n").unwrap();
        let err = compare(&e, std::slice::from_ref(&dir), &opts).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "{}: no multitrace with id `x-1`",
                dir.join("x.jsonl").display()
            )
        );
        // A raw automaton's sets cannot be .htf files.
        let fig3 = engine("seed004-fig3/model.timbuk");
        std::fs::remove_file(dir.join(MANIFEST_FILE)).unwrap();
        std::fs::write(dir.join("a.htf"), "{ [l1] a }\n").unwrap();
        let err = compare(&fig3, std::slice::from_ref(&dir), &opts).unwrap_err();
        assert!(matches!(err, CompareError::HtfForAutomaton { .. }), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
