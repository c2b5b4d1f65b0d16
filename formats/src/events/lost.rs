//! Parts of the input that could not be read and whose runs are not all known (a line that is
//! not JSON and names no run, the rest of a file after a read error, a file not read at all):
//! they may hold events of any run, since a run's events are gathered from every line and
//! file. No run then gets a verdict from what was read: each gets an `Error` record naming
//! the first such part ("verdicts never lie").

use super::event::{EventReadError, RawEvent};
use super::runs::Run;
use multitrace_model::record::ErrorRecord;

/// A part of the input that could not be read, where it is and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lost {
    /// The file.
    pub file: String,
    /// The line, from 1 (`None`: the whole file).
    pub line: Option<u32>,
    /// The column, from 1, when known.
    pub column: Option<u32>,
    /// Why it could not be read (without the place).
    pub why: String,
}

impl Lost {
    /// `FILE:LINE:COLUMN` (as much of it as is known).
    pub fn place(&self) -> String {
        match (self.line, self.column) {
            (Some(l), Some(c)) => format!("{}:{l}:{c}", self.file),
            (Some(l), None) => format!("{}:{l}", self.file),
            _ => self.file.clone(),
        }
    }

    /// The error of run `id`, which may have had events in this part; `more` is the number
    /// of other parts that could not be read.
    pub fn error(&self, id: &str, more: usize) -> ErrorRecord {
        let also = match more {
            0 => String::new(),
            n => format!(" ({n} more places of the input could not be read)"),
        };
        ErrorRecord {
            message: format!(
                "{}: {}; what could not be read there may hold events of run {id:?} (a run's \
                 events are gathered from every line and file), so the run gets no verdict from \
                 the rest: mend or remove that part of the input and check again{also}",
                self.place(),
                self.why
            ),
            file: Some(self.file.clone()),
            line: self.line,
            column: self.column,
        }
    }
}

impl Lost {
    /// The part of a file that a read error leaves unread.
    pub fn of_read_error(e: &EventReadError) -> Lost {
        let (file, line, why) = match e {
            EventReadError::Io { file, error } => (
                file,
                None,
                format!("cannot be read (from where the error came on): {error}"),
            ),
            EventReadError::LineTooLong { file, line, max } => (
                file,
                Some(*line),
                format!(
                    "line longer than {max} bytes (--max-line-bytes) whose run is not known; the \
                     rest of the file is not read"
                ),
            ),
            EventReadError::FieldAbsent { file, field, .. } => (
                file,
                None,
                format!("not read: no event has the field {field:?}"),
            ),
        };
        Lost {
            file: file.clone(),
            line,
            column: None,
            why,
        }
    }

    /// An event whose run is not known (`why`: what is wrong with it).
    pub fn of_orphan(ev: &RawEvent) -> Lost {
        let why = match &ev.body {
            Err(e) => e.to_string(),
            Ok(_) => "no run id".into(),
        };
        Lost {
            file: ev.file.clone(),
            line: Some(ev.line),
            column: None,
            why: format!("an event whose run is not known ({why})"),
        }
    }
}

/// Marks `run` bad for `lost` (a run already bad keeps its first bad event).
pub(super) fn withhold_run(run: &mut Run, lost: &Lost, more: usize) {
    if run.bad.is_none() {
        run.bad = Some((lost.error(&run.id, more), 1));
    }
}

#[cfg(test)]
mod tests {
    use crate::events::{read_runs, EventOptions, RunOut};
    use multitrace_model::artifact::decode;
    use multitrace_model::model::CompiledModel;

    fn mqtt() -> CompiledModel {
        decode(include_bytes!(
            "../../../fixtures/golden/seed004-mqtt.v2.mtm"
        ))
        .unwrap()
    }

    /// `(id, verdict kind, error line)` of each record of `text` read as one file.
    fn outs(text: &str, sorted: bool) -> Vec<(Option<String>, bool, Option<u32>)> {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("ev.jsonl");
        std::fs::write(&p, text).unwrap();
        let m = mqtt();
        let opts = EventOptions {
            sorted,
            ..EventOptions::default()
        };
        read_runs(&m.alphabet, &[p], &opts)
            .unwrap()
            .map(|r| match r {
                RunOut::Item(i) => (i.id, true, None),
                RunOut::Error(e) => (e.id.clone(), false, e.error.as_ref().and_then(|e| e.line)),
            })
            .collect()
    }

    const A: &str = "{\"run\":\"a\",\"action\":\"clt1!begin\",\"order\":1}\n";
    const C: &str = "{\"run\":\"c\",\"action\":\"clt1!begin\",\"order\":1}\n";

    #[test]
    fn a_line_that_names_its_run_fails_that_run_only() {
        let text = format!("{A}{{\"run\":\"b\",\"action\":\"clt1!be\n{C}");
        let got = outs(&text, false);
        let want = |id: &str, ok, line| (Some(id.to_string()), ok, line);
        assert_eq!(
            got,
            vec![
                want("a", true, None),
                want("b", false, Some(2)),
                want("c", true, None)
            ]
        );
    }

    #[test]
    fn a_line_whose_run_is_not_known_leaves_no_run_a_verdict() {
        let text = format!("{A}{{\"act\n{C}");
        let got = outs(&text, false);
        // Runs a and c, both Error naming line 2, and the line's own record, in place.
        assert_eq!(got.len(), 3, "{got:?}");
        assert!(
            got.iter().all(|(_, ok, line)| !ok && *line == Some(2)),
            "{got:?}"
        );
        // Sorted by run: the line may be an event of the run before it (b) or of a later one;
        // the runs before that (a) are complete and keep their verdicts.
        let b = A.replace("\"a\"", "\"b\"");
        let got = outs(&format!("{A}{b}{{\"act\n{C}"), true);
        assert_eq!(got[0], (Some("a".into()), true, None), "{got:?}");
        assert!(
            got[1..].iter().all(|(_, ok, line)| !ok && *line == Some(3)),
            "{got:?}"
        );
        assert_eq!(got.len(), 4, "{got:?}");
    }
}
