//! The local traces of the failures shown in full, read again when the batch ends
//! ([`TraceSource`], [`ReRead`]): the page keeps records, not traces, while the batch runs.

use multitrace_batch::Batch;
use multitrace_formats::{parse_jsonl_line, NameIndex};
use multitrace_model::record::Record;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::BufRead;
use std::path::Path;

/// Local traces by location name (the names the records use).
pub type LocalTraces = Vec<(String, Vec<String>)>;

/// Reads again the local traces of the failures shown in full, all at once (so that a JSON
/// Lines file is read once): one entry per record, `None` when they cannot be read again
/// (standard input, a file changed since). A closure `FnMut(&[&Record]) -> Vec<Option<..>>`
/// is one.
pub trait TraceSource {
    /// The local traces of each record, in order.
    fn traces(&mut self, records: &[&Record]) -> Vec<Option<LocalTraces>>;
}

impl<F: FnMut(&[&Record]) -> Vec<Option<LocalTraces>>> TraceSource for F {
    fn traces(&mut self, records: &[&Record]) -> Vec<Option<LocalTraces>> {
        self(records)
    }
}

/// Reads the traces of records written by [`Batch::run`] again: trace files (`.htf`, `.mtf`)
/// as the batch reads them ([`Batch::read_items`]), and lines of JSON Lines files (`FILE:LINE`),
/// each file read once. Standard input cannot be read again.
pub struct ReRead<'a, 'b> {
    batch: &'a Batch<'b>,
}

impl<'a, 'b> ReRead<'a, 'b> {
    /// Reads through `batch` (the one that checked the records, or one over the same model).
    pub fn new(batch: &'a Batch<'b>) -> Self {
        ReRead { batch }
    }
}

/// `FILE:LINE` of a JSON Lines record.
fn jsonl_line(trace: &str) -> Option<(&str, usize)> {
    let (file, line) = trace.rsplit_once(':')?;
    let line = line.parse().ok()?;
    Path::new(file)
        .extension()
        .is_some_and(|e| e == "jsonl")
        .then_some((file, line))
}

impl TraceSource for ReRead<'_, '_> {
    fn traces(&mut self, records: &[&Record]) -> Vec<Option<LocalTraces>> {
        let model = self.batch.engine().model();
        let alphabet = &model.alphabet;
        let mut out: Vec<Option<LocalTraces>> = vec![None; records.len()];
        let mut lines: BTreeMap<&str, Vec<(usize, usize)>> = BTreeMap::new();
        for (k, r) in records.iter().enumerate() {
            if let Some((file, line)) = jsonl_line(&r.trace) {
                lines.entry(file).or_default().push((line, k));
                continue;
            }
            let path = Path::new(&r.trace);
            if path.is_file() {
                out[k] = self
                    .batch
                    .read_items(path)
                    .ok()
                    .and_then(|mut v| (v.len() == 1).then(|| v.remove(0).traces));
            }
        }
        let names = NameIndex::new(alphabet);
        for (file, mut wanted) in lines {
            wanted.sort_unstable();
            let Ok(f) = File::open(file) else { continue };
            let mut reader = std::io::BufReader::new(f);
            let mut text = String::new();
            let mut number = 0;
            for (line, k) in wanted {
                while number < line {
                    text.clear();
                    match reader.read_line(&mut text) {
                        Ok(0) | Err(_) => break,
                        Ok(_) => number += 1,
                    }
                }
                if number != line {
                    break;
                }
                if let Ok((_, traces)) =
                    parse_jsonl_line(file, line, text.trim_end(), alphabet, &names)
                {
                    out[k] = Some(
                        alphabet
                            .location_names()
                            .iter()
                            .zip(&traces)
                            .map(|(n, t)| {
                                (
                                    n.clone(),
                                    t.iter().map(|&l| alphabet.name(l).to_string()).collect(),
                                )
                            })
                            .collect(),
                    );
                }
            }
        }
        out
    }
}
