//! Reading the sets to compare: a directory's manifest, else its multitrace files.
//!
//! Invariants: a directory without a manifest is searched by `check`'s walk
//! ([`input::collect_traces`]: regular files only, recursively, in natural order, compressed
//! `.gz`/`.zst` files kept, the other files named in a note), so `compare` reads exactly what
//! `check` reads; multitrace files are read by the runtime's batch reader
//! ([`Batch::read_items`]), the one implementation of reading a multitrace by its extension;
//! a manifest row's multitrace is read from the manifest's directory (a JSON Lines file is
//! read once, whatever the number of its rows); a row keeps its expected verdict only when it
//! is checked in the manifest's mode; the first file that cannot be read is the error, with its
//! position.

use super::error::CompareError;
use crate::generate::Kind;
use crate::manifest::{Manifest, ManifestRow, MANIFEST_FILE};
use multitrace_batch::{Batch, BatchOptions};
use multitrace_check::{CheckOptions, Engine};
use multitrace_formats::input;
use multitrace_model::model::TraceMismatch;
use multitrace_model::nfa::LetterId;
use multitrace_model::verdict::Mode;
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A multitrace to compare on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    /// Where it was read: `DIR/FILE`, or `DIR/FILE.jsonl#ID`.
    pub name: String,
    /// One local trace per location of the model.
    pub traces: Vec<Vec<LetterId>>,
    /// The mode it is checked in.
    pub mode: Mode,
    /// Its manifest row, when its verdict is expected (checked in the manifest's mode).
    pub expected: Option<ManifestRow>,
}

impl Item {
    /// Total number of actions.
    pub fn len(&self) -> usize {
        self.traces.iter().map(Vec::len).sum()
    }

    /// Whether every local trace is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A set of multitraces: one category of a manifest, or a directory without one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Set {
    /// The category (`pass`, ...), or the directory's name.
    pub category: String,
    /// The multitraces.
    pub items: Vec<Item>,
}

/// Reads multitrace files (`.htf`, `.mtf`, or one line of a `.jsonl`) as letters.
struct Reader<'a> {
    batch: Batch<'a>,
    /// The model's letters by name, to turn the items read back into letters.
    letters: FxHashMap<&'a str, LetterId>,
    jsonl: BTreeMap<PathBuf, BTreeMap<String, Vec<Vec<LetterId>>>>,
    /// The notes of the directory walks (files skipped, directories without multitraces).
    notes: Vec<String>,
}

impl<'a> Reader<'a> {
    fn new(engine: &'a Engine) -> Self {
        let names = engine.model().alphabet.names();
        Reader {
            batch: Batch::new(engine, CheckOptions::default(), BatchOptions::default()),
            letters: names
                .iter()
                .enumerate()
                .map(|(i, n)| (n.as_str(), LetterId(i as u32)))
                .collect(),
            jsonl: BTreeMap::new(),
            notes: Vec::new(),
        }
    }

    /// The items of a multitrace file, as the batch reads them.
    fn items(&self, path: &Path) -> Result<Vec<multitrace_formats::entry::Item>, CompareError> {
        self.batch.read_items(path).map_err(CompareError::Input)
    }

    /// One local trace per location of an item read from `file`: the reader lists the
    /// locations in order, or (a `.htf` file that does not fit the compiled locations) the
    /// file's components, which is an error naming the first one that does not fit.
    fn letters(
        &self,
        file: &str,
        item: &multitrace_formats::entry::Item,
    ) -> Result<Vec<Vec<LetterId>>, CompareError> {
        let locations = self.batch.engine().model().alphabet.location_names();
        let mismatch = |mismatch| CompareError::Letters {
            file: file.to_string(),
            mismatch,
        };
        let mut out = vec![Vec::new(); locations.len()];
        for (component, trace) in &item.traces {
            let Some(k) = locations.iter().position(|l| l == component) else {
                if trace.is_empty() {
                    continue;
                }
                return Err(mismatch(TraceMismatch::NotALocation {
                    component: component.clone(),
                    locations: locations.to_vec(),
                }));
            };
            for action in trace {
                let letter = self.letters.get(action.as_str()).copied();
                out[k].push(
                    letter
                        .ok_or_else(|| mismatch(TraceMismatch::OutsideAlphabet(action.clone())))?,
                );
            }
        }
        Ok(out)
    }

    /// The multitrace of a `.htf` or `.mtf` file as letters.
    fn read(&self, path: &Path) -> Result<Vec<Vec<LetterId>>, CompareError> {
        let file = path.display().to_string();
        match input::content_extension(path) {
            Some("htf") if self.batch.engine().model().signature().is_none() => {
                Err(CompareError::HtfForAutomaton { file })
            }
            Some("htf" | "mtf") => {
                let items = self.items(path)?;
                match items.first() {
                    Some(item) => self.letters(&file, item),
                    None => Ok(vec![
                        Vec::new();
                        self.batch.engine().model().alphabet.locations()
                    ]),
                }
            }
            _ => Err(CompareError::Extension { file }),
        }
    }

    /// The multitraces of a JSON Lines file by id (read once).
    fn jsonl(
        &mut self,
        path: &Path,
    ) -> Result<&BTreeMap<String, Vec<Vec<LetterId>>>, CompareError> {
        if !self.jsonl.contains_key(path) {
            let file = path.display().to_string();
            let mut lines = BTreeMap::new();
            for item in self.items(path)? {
                let traces = self.letters(&file, &item)?;
                lines.insert(item.id.unwrap_or(item.trace), traces);
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
        if !dir.is_dir() {
            return Err(CompareError::Directory {
                path: dir.to_path_buf(),
                message: if dir.exists() {
                    "not a directory".into()
                } else {
                    "no such file or directory".into()
                },
            });
        }
        // `check`'s walk: regular files only, recursive, compressed files kept, the files of
        // other extensions named in a note.
        let notes = &mut self.notes;
        let files = input::collect_traces(std::slice::from_ref(&dir.to_path_buf()), &mut |n| {
            notes.push(n)
        })
        .map_err(|e| CompareError::Directory {
            path: e.path,
            message: e.message,
        })?;
        let mode = mode.unwrap_or(Mode::Complete);
        let mut items = Vec::new();
        for f in files {
            if input::content_extension(&f) == Some("jsonl") {
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

/// The sets of `dirs` for `engine`'s model, in order (see the module documentation); `mode` overrides the
/// manifests' modes (and then only rows of that mode keep their expected verdict).
pub fn read_sets(
    engine: &Engine,
    dirs: &[PathBuf],
    mode: Option<Mode>,
) -> Result<Vec<Set>, CompareError> {
    read_sets_noted(engine, dirs, mode).map(|(sets, _)| sets)
}

/// [`read_sets`], with the notes of the directory walks (as `check` gives them: the files of
/// other extensions, count and first few; the names that are not regular files; a directory
/// that holds no multitrace file).
pub fn read_sets_noted(
    engine: &Engine,
    dirs: &[PathBuf],
    mode: Option<Mode>,
) -> Result<(Vec<Set>, Vec<String>), CompareError> {
    let mut reader = Reader::new(engine);
    let mut sets = Vec::new();
    for dir in dirs {
        sets.extend(reader.sets(dir, mode)?);
    }
    Ok((sets, reader.notes))
}

#[cfg(test)]
mod tests {
    use super::super::tests::{engine, scratch_dir};
    use super::super::{compare, CompareError, CompareOptions};
    use crate::manifest::MANIFEST_FILE;

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
        // Multitraces are read by the batch reader: errors keep its position, and a `.htf`
        // file whose components are not the compiled locations names the first that is not.
        std::fs::remove_file(dir.join(MANIFEST_FILE)).unwrap();
        std::fs::remove_file(dir.join("x.jsonl")).unwrap();
        let htf = dir.join("a.htf");
        std::fs::write(&htf, "{ [clt1] clt1!begin; [brok] brok?nope }\n").unwrap();
        let err = compare(&e, std::slice::from_ref(&dir), &opts).unwrap_err();
        assert!(matches!(err, CompareError::Input(_)), "{err}");
        assert!(
            err.to_string()
                .starts_with(&format!("{}:1:", htf.display())),
            "{err}"
        );
        std::fs::write(&htf, "{ [clt1,brok] clt1!begin; [clt2] }\n").unwrap();
        let err = compare(&e, std::slice::from_ref(&dir), &opts).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "{}: component [clt1,brok] is not a location of the compiled model (locations: [clt1] [brok] [clt2]); compile with matching --locations",
                htf.display()
            )
        );
        // A raw automaton's sets cannot be .htf files.
        let fig3 = engine("seed004-fig3/model.timbuk");
        std::fs::write(dir.join("a.htf"), "{ [l1] a }\n").unwrap();
        let err = compare(&fig3, std::slice::from_ref(&dir), &opts).unwrap_err();
        assert!(matches!(err, CompareError::HtfForAutomaton { .. }), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
