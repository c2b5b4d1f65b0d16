//! The header rows of CSV event sources that are followed line by line (the live monitor):
//! each source's columns of the run, the action and the order key, read from its first line
//! and read again when a file starts anew (line 1 after a rotation), or from the file's first
//! line when a source is resumed mid-file after a restart.
//!
//! Invariant: a source whose header cannot be read gives one `Error` record (at its line 1)
//! and its lines are skipped until a new first line; no event of it is read with a guessed
//! column.

use super::event::{EventOptions, EventReadError};
use super::read::{csv_columns, split_csv};
use multitrace_model::record::{ErrorRecord, Record};
use std::collections::HashMap;
use std::time::Duration;

/// A CSV header row: the columns of the run, the action and the order key, and its names.
type Header = ([Option<usize>; 3], Vec<String>);

/// The header rows of the CSV sources, by source name.
#[derive(Default)]
pub struct CsvHeaders {
    /// `None`: a header that cannot be read (the source's lines are skipped until a new
    /// first line).
    sources: HashMap<String, Option<Header>>,
}

impl CsvHeaders {
    /// The columns for line `line_no` of `source` (`text`), or `None` when the line is the
    /// header row (line 1: a new file, also after a rotation) or the source's header is bad
    /// (its Error record, once, pushed to `errors`). After a restart from a checkpoint the
    /// header is read from the file's first line.
    pub fn columns(
        &mut self,
        source: &str,
        line_no: Option<u32>,
        text: &str,
        opts: &EventOptions,
        errors: &mut Vec<Record>,
    ) -> Option<[Option<usize>; 3]> {
        let header = if line_no == Some(1) {
            Some(text.to_string())
        } else if !self.sources.contains_key(source) {
            // Resumed mid-file: its header is its first line.
            let first = std::fs::File::open(source).ok().and_then(|f| {
                let mut l = String::new();
                std::io::BufRead::read_line(&mut std::io::BufReader::new(f), &mut l).ok()?;
                Some(l.trim_end_matches(['\n', '\r']).to_string())
            });
            Some(first.unwrap_or_default())
        } else {
            None
        };
        if let Some(h) = header {
            let fields = split_csv(&h).unwrap_or_default();
            let entry = match csv_columns(&fields, opts) {
                Ok(cols) => Some((cols, fields.iter().map(|f| f.trim().to_string()).collect())),
                Err((field, role, present)) => {
                    let error = EventReadError::FieldAbsent {
                        file: source.to_string(),
                        field,
                        role,
                        present,
                        events: 0,
                    };
                    let e = ErrorRecord {
                        message: error.to_string(),
                        file: Some(source.to_string()),
                        line: Some(1),
                        column: None,
                    };
                    errors.push(Record::error(source.to_string(), None, e, Duration::ZERO));
                    None
                }
            };
            self.sources.insert(source.to_string(), entry);
            if line_no == Some(1) {
                return None;
            }
        }
        self.sources.get(source)?.as_ref().map(|(c, _)| *c)
    }

    /// Whether the CSV event `text` of `source` has column `field` set to `true`.
    pub fn end_flag(&self, source: &str, text: &str, field: &str) -> bool {
        let Some(Some((_, names))) = self.sources.get(source) else {
            return false;
        };
        let Some(i) = names.iter().position(|n| n == field) else {
            return false;
        };
        split_csv(text)
            .and_then(|f| f.get(i).map(|v| v.trim() == "true"))
            .unwrap_or(false)
    }
}
