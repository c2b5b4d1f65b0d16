//! Checking one task: an input (a trace file, a multitrace in memory) or a chunk of JSON
//! lines, each line one record.

use super::order::Done;
use super::outcome::Outcome;
use super::run::Batch;
use super::source::{Chunk, Input, Task};
use multitrace_check::{CheckError, Choice, Scratch};
use multitrace_formats::entry::Item;
use multitrace_formats::input::{content_extension, read_input_text};
use multitrace_formats::input::{lines_of, split_chunk, BadText};
use multitrace_formats::{parse_htf, parse_jsonl_line, parse_mtf_indexed};
use multitrace_model::nfa::LetterId;
use multitrace_model::record::{ErrorRecord, Names, Record};
use multitrace_model::syntax::{is_ident_continue, ModelError, ParseError};
use multitrace_model::verdict::Procedure;
use multitrace_model::verdict::{Sym, Verdict};
use std::borrow::Cow;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// A checked multitrace: verdict, procedure, names of its components, whether it fell back
/// to term exploration.
type Checked<'m> = (Verdict, Procedure, Cow<'m, [String]>, bool);

impl Batch<'_> {
    /// Checks a task: its records in input order.
    pub(super) fn run_task(&self, scratch: &mut Scratch, task: Task) -> Done {
        match task {
            Task::One(input) => Done {
                outcomes: vec![self.check_guarded(scratch, input)],
                stream: None,
                stops: false,
            },
            Task::Files(paths) => Done {
                outcomes: paths
                    .into_iter()
                    .map(|p| self.check_guarded(scratch, Input::File(p)))
                    .collect(),
                stream: None,
                stops: false,
            },
            Task::Many(inputs) => Done {
                outcomes: inputs
                    .into_iter()
                    .map(|i| self.check_guarded(scratch, i))
                    .collect(),
                stream: None,
                stops: false,
            },
            Task::Lines(chunk) => self.check_chunk(scratch, chunk),
            Task::End(stream, name, e) => Done {
                outcomes: vec![Outcome {
                    record: Record::error(name, None, e, Duration::ZERO),
                    fallback: false,
                }],
                stream: Some(stream),
                stops: true,
            },
        }
    }

    /// Checks the lines of a chunk, one record per line that is not blank; a line that is
    /// not UTF-8 is an Error record and stops its stream.
    fn check_chunk(&self, scratch: &mut Scratch, chunk: Chunk) -> Done {
        let Chunk {
            stream,
            first_line,
            bytes,
        } = chunk;
        let file = stream.file.as_str();
        let (text, bad) = split_chunk(&bytes, first_line);
        let mut outcomes = Vec::new();
        for (line, text) in lines_of(text, first_line) {
            let outcome = self.guarded(
                scratch,
                || (format!("{file}:{line}"), None),
                |scratch| self.check_line(scratch, file, line, text),
            );
            outcomes.push(outcome);
        }
        if let Some(bad) = bad {
            // Not text: stop reading it, as the other readers refuse the file.
            stream.stopped.store(true, Ordering::Relaxed);
            let e = utf8_error(file, bad);
            let name = format!("{file}:{}", bad.line);
            outcomes.push(Outcome {
                record: Record::error(name, None, (&e).into(), Duration::ZERO),
                fallback: false,
            });
        }
        Done {
            outcomes,
            stops: bad.is_some(),
            stream: Some(stream),
        }
    }

    /// Checks one JSON line (`text`, without its line break).
    pub(super) fn check_line(
        &self,
        scratch: &mut Scratch,
        file: &str,
        line: usize,
        text: &str,
    ) -> Outcome {
        let start = Instant::now();
        let engine = self.engine();
        let model = engine.model();
        let trace = format!("{file}:{line}");
        let (id, outcome) =
            match parse_jsonl_line(file, line, text, &model.alphabet, &self.tables.names) {
                Ok((id, traces)) => {
                    let r = engine
                        .check_letters(scratch, &traces, &self.check)
                        .map(|(v, p)| (v, p, Cow::Borrowed(model.alphabet.location_names()), false))
                        .map_err(|e| ErrorRecord::message(format!("{trace}: {e}")));
                    // The id stands in for the line only when the line gave one.
                    ((id != trace).then_some(id), r)
                }
                Err(e) => (None, Err((&e).into())),
            };
        self.outcome(trace, id, outcome, start.elapsed())
    }

    /// [`Self::check_input`], with a panic (a bug) turned into an Error record.
    pub(super) fn check_guarded(&self, scratch: &mut Scratch, input: Input) -> Outcome {
        let name = match &input {
            Input::File(p) => multitrace_model::record::path_text(p),
            Input::Memory(item) => item.trace.clone(),
            Input::Letters(l) => l.trace.clone(),
            Input::Error(name, _) => name.clone(),
            Input::Run(run) => run.trace.clone(),
            Input::Record(r) => r.trace.clone(),
        };
        let id = match &input {
            Input::Memory(item) => item.id.clone(),
            Input::Letters(l) => l.id.clone(),
            Input::Run(run) => run.id.clone(),
            Input::Record(r) => r.id.clone(),
            _ => None,
        };
        self.guarded(
            scratch,
            move || (name, id),
            |scratch| self.check_input(scratch, input),
        )
    }

    /// Runs `check`, with a panic (a bug) turned into an Error record for the input `name`
    /// gives (trace and id), and the scratch state renewed.
    fn guarded(
        &self,
        scratch: &mut Scratch,
        name: impl FnOnce() -> (String, Option<String>),
        check: impl FnOnce(&mut Scratch) -> Outcome,
    ) -> Outcome {
        let start = Instant::now();
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(&mut *scratch)));
        match run {
            Ok(outcome) => outcome,
            Err(panic) => {
                *scratch = self.engine().scratch();
                let (name, id) = name();
                let what = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                let error = ErrorRecord::message(format!(
                    "{name}: internal error while checking this multitrace ({what}); please report it"
                ));
                Outcome {
                    record: Record::error(name, id, error, start.elapsed()),
                    fallback: false,
                }
            }
        }
    }

    pub(super) fn check_input(&self, scratch: &mut Scratch, input: Input) -> Outcome {
        let start = Instant::now();
        let (trace, id, outcome) = match input {
            Input::File(path) => (
                multitrace_model::record::path_text(&path),
                None,
                self.check_path(scratch, &path),
            ),
            Input::Error(name, e) => (name, None, Err(e)),
            Input::Memory(item) => {
                let r = self.check_memory(scratch, &item);
                (item.trace, item.id, r)
            }
            Input::Letters(l) => {
                let r = self.check_letters(scratch, &l.letters, &l.trace);
                (l.trace, l.id, r)
            }
            Input::Run(run) => {
                let model = self.engine().model();
                let r = crate::offline::check_run(self.engine(), scratch, &run, &self.check)
                    .map(|(v, p)| (v, p, Cow::Borrowed(model.alphabet.location_names()), false))
                    .map_err(|e| check_error(&run.trace, e));
                (run.trace, run.id, r)
            }
            Input::Record(record) => {
                return Outcome {
                    record: *record,
                    fallback: false,
                }
            }
        };
        self.outcome(trace, id, outcome, start.elapsed())
    }

    /// The record of a check.
    fn outcome(
        &self,
        trace: String,
        id: Option<String>,
        outcome: Result<Checked<'_>, ErrorRecord>,
        time: Duration,
    ) -> Outcome {
        match outcome {
            Ok((v, p, locations, fallback)) => {
                let model = self.engine().model();
                let render = |s: Sym| model.sym_name(s);
                let names = Names {
                    render: &render,
                    locations: &locations,
                };
                let mut record = Record::checked(trace, id, &v, p, &names, time);
                record.name_memory_budget(&self.check_options().budget);
                Outcome { record, fallback }
            }
            Err(e) => Outcome {
                record: Record::error(trace, id, e, time),
                fallback: false,
            },
        }
    }

    fn check_path(&self, scratch: &mut Scratch, path: &Path) -> Result<Checked<'_>, ErrorRecord> {
        let text = read_input_text(path).map_err(|e| text_error(&e))?;
        let file = multitrace_model::record::path_text(path);
        if content_extension(path) == Some("mtf") {
            let model = self.engine().model();
            let traces = parse_mtf_indexed(&file, &text, &model.alphabet, &self.tables.names)
                .map_err(|e| ErrorRecord::from(&e))?;
            return self.check_letters(scratch, &traces, &file);
        }
        self.check_htf(scratch, &file, &text, true)
    }

    fn check_letters(
        &self,
        scratch: &mut Scratch,
        traces: &[Vec<LetterId>],
        file: &str,
    ) -> Result<Checked<'_>, ErrorRecord> {
        let model = self.engine().model();
        let (v, p) = self
            .engine()
            .check_letters(scratch, traces, &self.check)
            .map_err(|e| check_error(file, e))?;
        Ok((v, p, Cow::Borrowed(model.alphabet.location_names()), false))
    }

    /// Checks `.htf` text; `positions`: whether the text is a file (its errors then carry the
    /// position) or was built from an [`Item`].
    fn check_htf(
        &self,
        scratch: &mut Scratch,
        file: &str,
        text: &str,
        positions: bool,
    ) -> Result<Checked<'_>, ErrorRecord> {
        let model = self.engine().model();
        let Some(sig) = model.signature() else {
            let mut r = ErrorRecord::message(format!(
                "{file}: this model is a raw automaton; give its multitraces as .mtf or JSON Lines"
            ));
            r.file = Some(file.to_string());
            return Err(r);
        };
        let (mt, htf_names) = parse_htf(file, text, sig).map_err(|e| {
            if positions {
                ErrorRecord::from(&e)
            } else {
                ErrorRecord::message(format!("{file}: {}", e.message))
            }
        })?;
        let matches = self.engine().matches_locations(&mt);
        let (v, p) = self
            .engine()
            .check_multitrace(scratch, &mt, &self.check)
            .map_err(|e| check_error(file, e))?;
        // Verdicts are indexed by compiled location when the components are the locations,
        // else by component of the file.
        let names = if matches {
            Cow::Borrowed(model.alphabet.location_names())
        } else {
            Cow::Owned(htf_names)
        };
        let fallback = !matches && self.check.choice == Choice::Auto && model.automata().is_some();
        Ok((v, p, names, fallback))
    }

    fn check_memory(&self, scratch: &mut Scratch, item: &Item) -> Result<Checked<'_>, ErrorRecord> {
        let model = self.engine().model();
        let alphabet = &model.alphabet;
        let name = &item.trace;
        let error = |message: String| ErrorRecord::message(format!("{name}: {message}"));
        if item
            .traces
            .iter()
            .all(|(loc, _)| self.tables.lookup.locations.contains_key(loc))
        {
            let mut traces = vec![Vec::new(); alphabet.locations()];
            let mut seen = vec![false; alphabet.locations()];
            for (loc, letters) in &item.traces {
                let k = self.tables.lookup.locations[loc];
                if std::mem::replace(&mut seen[k], true) {
                    return Err(error(format!("location `{loc}` listed twice")));
                }
                let trace = &mut traces[k];
                trace.reserve(letters.len());
                for (position, letter) in letters.iter().enumerate() {
                    let Some(&l) = self.tables.lookup.letters.get(letter) else {
                        return Err(error(format!(
                            "unknown {} `{letter}` at position {} of the trace of `{loc}`",
                            if model.signature().is_some() {
                                "action"
                            } else {
                                "letter"
                            },
                            position + 1
                        )));
                    };
                    if alphabet.location(l).index() != k {
                        return Err(error(format!(
                            "`{letter}` at position {} of the trace of `{loc}` belongs to location {}",
                            position + 1,
                            alphabet.location_name(alphabet.location(l))
                        )));
                    }
                    trace.push(l);
                }
            }
            return self.check_letters(scratch, &traces, name);
        }
        // Other components than the compiled locations: as the `.htf` file with these
        // components would be checked.
        let unknown = || {
            let loc = item
                .traces
                .iter()
                .map(|(l, _)| l)
                .find(|l| !self.tables.lookup.locations.contains_key(*l))
                .cloned()
                .unwrap_or_default();
            error(format!(
                "unknown location `{loc}`; {}locations are {}",
                multitrace_model::suggest::did_you_mean(
                    &loc,
                    alphabet.location_names().iter().map(String::as_str)
                ),
                alphabet.location_names().join(" ")
            ))
        };
        let Some(sig) = model.signature() else {
            return Err(unknown());
        };
        // Each component must be a group of the model's lifelines.
        if item.traces.iter().any(|(loc, _)| {
            loc.split(',')
                .any(|l| !sig.lifelines().iter().any(|x| x == l.trim()))
        }) {
            return Err(unknown());
        }
        let plain = |s: &str, extra: &str| {
            !s.is_empty()
                && s.bytes()
                    .all(|c| is_ident_continue(c) || extra.as_bytes().contains(&c))
        };
        let mut text = String::from("{");
        for (k, (loc, actions)) in item.traces.iter().enumerate() {
            if !plain(loc, ",") {
                return Err(unknown());
            }
            if let Some(a) = actions.iter().find(|a| !plain(a, "!?")) {
                return Err(error(format!(
                    "unknown action `{a}` in the trace of `{loc}`"
                )));
            }
            if k > 0 {
                text.push(';');
            }
            text.push_str(&format!("[{loc}] {}", actions.join(".")));
        }
        text.push('}');
        self.check_htf(scratch, name, &text, false)
    }
}

/// The error of a JSON line that is not UTF-8.
pub(super) fn utf8_error(file: &str, bad: BadText) -> ParseError {
    ParseError {
        file: file.to_string(),
        line: bad.line as u32,
        column: bad.column as u32,
        message: format!(
            "invalid UTF-8 (byte 0x{:02X}); JSON Lines must be UTF-8 text (the rest of this input is not read)",
            bad.byte
        ),
    }
}

/// The error record of a text file that could not be read.
pub fn text_error(e: &ModelError) -> ErrorRecord {
    match e {
        ModelError::Parse(p) => p.into(),
        ModelError::Io { path, .. } => {
            let mut r = ErrorRecord::message(e.to_string());
            r.file = Some(multitrace_model::record::path_text(path));
            r
        }
    }
}

fn check_error(file: &str, e: CheckError) -> ErrorRecord {
    let mut r = ErrorRecord::message(format!("{file}: {e}"));
    r.file = Some(file.to_string());
    r
}
