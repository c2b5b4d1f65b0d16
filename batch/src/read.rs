//! Reading inputs into items without checking them, as a batch would check them.

use super::check::{text_error, utf8_error};
use super::run::Batch;
use super::source::{FileSource, Input, Source, Task};
use multitrace_formats::entry::Item;
use multitrace_formats::input::{content_extension, read_input_text};
use multitrace_formats::input::{lines_of, split_chunk};
use multitrace_formats::{parse_htf, parse_jsonl_line, parse_mtf_indexed};
use multitrace_model::nfa::LetterId;
use multitrace_model::record::ErrorRecord;
use std::path::Path;

impl Batch<'_> {
    /// Reads a multitrace file (`.htf`, `.mtf`, `.jsonl`) into items, as this batch would
    /// check them: `trace` and `id` as in the records of [`Batch::run`], local traces by
    /// location name (for an `.htf` file whose components are not the compiled locations,
    /// by component).
    ///
    /// The first input that cannot be read is the error (with its position).
    pub fn read_items(&self, path: &Path) -> Result<Vec<Item>, ErrorRecord> {
        let model = self.engine().model();
        let alphabet = &model.alphabet;
        let by_location = |trace: String, id: Option<String>, traces: &[Vec<LetterId>]| Item {
            trace,
            id,
            traces: alphabet
                .location_names()
                .iter()
                .zip(traces)
                .map(|(n, t)| {
                    (
                        n.clone(),
                        t.iter().map(|&l| alphabet.name(l).to_string()).collect(),
                    )
                })
                .collect(),
        };
        let mut source = FileSource::new(vec![path.to_path_buf()], self.options.max_line_bytes);
        let mut items = Vec::new();
        while let Some(task) = source.next() {
            let inputs = match task {
                Task::One(input) => vec![input],
                Task::Many(inputs) => inputs,
                Task::Files(paths) => {
                    // One file was given: never a group, but read them all the same.
                    for p in paths {
                        items.extend(self.read_items(&p)?);
                    }
                    continue;
                }
                Task::End(_, _, e) => return Err(e),
                Task::Lines(chunk) => {
                    let file = chunk.stream.file.as_str();
                    let (text, bad) = split_chunk(&chunk.bytes, chunk.first_line);
                    for (line, text) in lines_of(text, chunk.first_line) {
                        let trace = format!("{file}:{line}");
                        let (id, traces) =
                            parse_jsonl_line(file, line, text, alphabet, &self.tables.names)
                                .map_err(|e| ErrorRecord::from(&e))?;
                        let id = (id != trace).then_some(id);
                        items.push(by_location(trace, id, &traces));
                    }
                    if let Some(bad) = bad {
                        return Err((&utf8_error(file, bad)).into());
                    }
                    continue;
                }
            };
            for input in inputs {
                match input {
                    Input::Error(_, e) => return Err(e),
                    Input::Memory(item) => items.push(item),
                    Input::Letters(_) | Input::Run(_) | Input::Record(_) => {}
                    Input::File(path) => {
                        let text = read_input_text(&path).map_err(|e| text_error(&e))?;
                        let file = multitrace_model::record::path_text(&path);
                        if content_extension(&path) == Some("mtf") {
                            let traces =
                                parse_mtf_indexed(&file, &text, alphabet, &self.tables.names)
                                    .map_err(|e| ErrorRecord::from(&e))?;
                            items.push(by_location(file, None, &traces));
                            continue;
                        }
                        let Some(sig) = model.signature() else {
                            let mut r = ErrorRecord::message(format!(
                            "{file}: this model is a raw automaton; give its multitraces as .mtf or JSON Lines"
                        ));
                            r.file = Some(file);
                            return Err(r);
                        };
                        let (mt, names) =
                            parse_htf(&file, &text, sig).map_err(|e| ErrorRecord::from(&e))?;
                        if let Ok(traces) = model.letter_traces(&mt) {
                            items.push(by_location(file, None, &traces));
                        } else {
                            let traces = names
                                .into_iter()
                                .zip(&mt.components)
                                .map(|(n, c)| {
                                    (
                                        n,
                                        c.trace.iter().map(|&a| sig.action_to_string(a)).collect(),
                                    )
                                })
                                .collect();
                            items.push(Item {
                                trace: file,
                                id: None,
                                traces,
                            });
                        }
                    }
                }
            }
        }
        Ok(items)
    }
}
