//! Reading a summary from its text: JSON errors located at their line, column and field, then
//! [`validate`](super::validate).

use super::error::{SummaryError, SummaryErrorKind};
use super::spans::Spans;
use super::validate::{validate, Summary};
use super::wire::{LocalSummary, FORMAT, VERSION};
use multitrace_model::model::CompiledModel;
use multitrace_model::syntax::{describe_char, line_column};
use serde::Deserialize;

/// Reads and validates the summary `text` (the contents of `file`) against `model`.
pub fn read_summary(
    file: &str,
    text: &str,
    model: &CompiledModel,
) -> Result<Summary, SummaryError> {
    let spans = Spans::of(text);
    // serde would also take a struct from an array of its fields: only an object is a summary.
    let start = text.len() - text.trim_start().len();
    if !text[start..].is_empty() && !text[start..].starts_with('{') {
        return Err(match serde_json::from_str::<serde_json::Value>(text) {
            Err(_) => {
                let found = text[start..]
                    .chars()
                    .next()
                    .map_or_else(String::new, describe_char);
                let message = format!("found {found}, expected `{{`");
                SummaryError::in_file(file, SummaryErrorKind::Syntax { message })
                    .at(text, Some(start))
            }
            Ok(v) => {
                let found = match v {
                    serde_json::Value::Array(_) => "an array",
                    serde_json::Value::String(_) => "a string",
                    serde_json::Value::Number(_) => "a number",
                    serde_json::Value::Bool(_) => "a boolean",
                    _ => "null",
                };
                let message = format!("found {found}, expected a JSON object");
                SummaryError::in_file(file, SummaryErrorKind::Shape { message })
                    .at(text, Some(start))
            }
        });
    }
    let wire: LocalSummary = match serde_json::from_str(text) {
        Ok(w) => w,
        Err(e) => return Err(json_error(file, text, &spans, &e)),
    };
    validate(file, text, &spans, &wire, model)
}

/// A serde error as a located [`SummaryError`].
fn json_error(file: &str, text: &str, spans: &Spans, e: &serde_json::Error) -> SummaryError {
    use serde_json::error::Category;
    // serde_json counts columns in bytes; locate the byte and count characters instead.
    // At the end of the input, point after its last character (serde points at it).
    let offset = match e.classify() {
        Category::Eof => text.len(),
        _ => byte_offset(text, e.line(), e.column()),
    };
    let message = e.to_string();
    let message = match message.rfind(" at line ") {
        Some(i) if e.line() > 0 => message[..i].to_string(),
        _ => message,
    };
    let kind = match e.classify() {
        Category::Eof if text.trim().is_empty() => SummaryErrorKind::Empty,
        Category::Eof => SummaryErrorKind::Truncated { message },
        Category::Syntax | Category::Io => SummaryErrorKind::Syntax { message },
        Category::Data => {
            // Say which version it is when the shape differs because the version does.
            #[derive(Deserialize)]
            struct Header {
                format: Option<serde_json::Value>,
                version: Option<serde_json::Value>,
            }
            if let Ok(h) = serde_json::from_str::<Header>(text) {
                if let Some(found) = h
                    .format
                    .as_ref()
                    .and_then(|f| f.as_str())
                    .filter(|&f| f != FORMAT)
                {
                    let found = found.to_string();
                    let mut err = SummaryError::in_file(file, SummaryErrorKind::Format { found });
                    err.field = Some("format");
                    return err.at(text, spans.value("format"));
                }
                if let Some(v) = h
                    .version
                    .as_ref()
                    .filter(|v| v.is_number() && v.as_u64() != Some(u64::from(VERSION)))
                {
                    let mut err = SummaryError::in_file(
                        file,
                        SummaryErrorKind::Version {
                            found: v.to_string(),
                        },
                    );
                    err.field = Some("version");
                    return err.at(text, spans.value("version"));
                }
            }
            SummaryErrorKind::Shape { message }
        }
    };
    let mut err = SummaryError::in_file(file, kind);
    if e.line() > 0 {
        err.field = spans.field_at(offset);
        let (line, column) = line_column(text, offset);
        err.position = Some((line, column));
    }
    err
}

/// The byte offset of serde_json's (line, column), both from 1 (column 0: start of line).
fn byte_offset(text: &str, line: usize, column: usize) -> usize {
    let start = if line <= 1 {
        0
    } else {
        text.match_indices('\n')
            .nth(line - 2)
            .map_or(text.len(), |(i, _)| i + 1)
    };
    start
        .saturating_add(column.saturating_sub(1))
        .min(text.len())
}
