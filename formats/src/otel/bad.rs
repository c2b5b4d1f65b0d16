//! What a line of OTLP JSON that cannot be read still tells: the runs (traces) it held.
//!
//! The line's spans are not used (a request is read whole or not at all), so every run with a
//! span on it is missing data. Which runs those are:
//!
//! - a line that is JSON but not a request (a field of the wrong type, a trace id that is not
//!   hex): when its shape is the request's (`resourceSpans`, `scopeSpans`, `spans`, no other
//!   keys at those levels) and every span's run can be read (its `traceId`, or the attribute
//!   of `run =`), those runs are all the runs it touched ([`LineRuns::All`]);
//! - anything else (a line cut short, bytes that are not JSON, a shape of its own): the runs
//!   whose trace ids a byte scan finds in it are touched, but the part that cannot be read may
//!   hold spans of any other trace ([`LineRuns::Some`]).

use crate::events::{EventError, Lost, RawEvent};
use serde_json::Value;

/// A line of OTLP JSON that is not a request: why, where in the line, and the runs it held.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadLine {
    /// The column (from 1) where reading it failed.
    pub column: u32,
    /// Why it is not a request (without the place).
    pub why: String,
    /// The runs it held.
    pub runs: LineRuns,
}

impl BadLine {
    /// The line `bytes` that is not a request (`why`, at `column`), with the runs it held
    /// (`run_key`: the attribute of `run =`).
    pub fn new(bytes: &[u8], run_key: Option<&str>, column: u32, why: String) -> BadLine {
        BadLine {
            column,
            why,
            runs: line_runs(bytes, run_key),
        }
    }

    /// The message of the line's own `Error` record (it is line `line` of `file`).
    pub fn message(&self, file: &str, line: u32) -> String {
        let then = match &self.runs {
            LineRuns::All(r) => format!(
                "the {} runs it holds get an Error record, the other runs are checked",
                r.len()
            ),
            LineRuns::Some(_) => {
                "no run gets a verdict, since the part not read may hold spans of any trace".into()
            }
        };
        format!("{file}:{line}:{}: {}; {then}", self.column, self.why)
    }

    /// The bad events of the runs the line names (each makes its run an `Error` record).
    pub fn events(&self, file: &str, line: u32) -> impl Iterator<Item = RawEvent> + '_ {
        let named = match &self.runs {
            LineRuns::All(r) | LineRuns::Some(r) => r,
        };
        let (file, at) = (file.to_string(), format!("{file}:{line}"));
        named.iter().map(move |run| RawEvent {
            at: at.clone(),
            file: file.clone(),
            line,
            run: Some(run.clone()),
            body: Err(EventError::Unreadable(self.why.clone())),
        })
    }

    /// The line as a part of the input that may hold spans of any run, unless it names all
    /// of its runs.
    pub fn lost(&self, file: &str, line: u32) -> Option<Lost> {
        matches!(self.runs, LineRuns::Some(_)).then(|| Lost {
            file: file.to_string(),
            line: Some(line),
            column: Some(self.column),
            why: self.why.clone(),
        })
    }
}

/// The runs a line that cannot be read held.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LineRuns {
    /// Exactly these runs (in the order of their first span on the line).
    All(Vec<String>),
    /// These runs, and perhaps any other.
    Some(Vec<String>),
}

/// The run of a trace id as written: hex (an optional `0x`, as the OTLP reader accepts it),
/// as [`super`] writes it (lower case); `None` for anything the reader would refuse.
fn trace_run(text: &str) -> Option<String> {
    let hex = text.strip_prefix("0x").unwrap_or(text);
    (!hex.is_empty() && hex.len().is_multiple_of(2) && hex.bytes().all(|b| b.is_ascii_hexdigit()))
        .then(|| hex.to_ascii_lowercase())
}

/// The value of attribute `key` in an OTLP JSON attribute list, as [`super`] reads it; `None`
/// when it is absent or of another kind; `Err` when the list cannot be read.
fn attribute(attrs: Option<&Value>, key: &str) -> Result<Option<String>, ()> {
    let Some(attrs) = attrs else { return Ok(None) };
    let list = attrs.as_array().ok_or(())?;
    for kv in list {
        if kv.get("key").and_then(Value::as_str) != Some(key) {
            continue;
        }
        let v = kv.get("value").and_then(Value::as_object).ok_or(())?;
        return match (v.get("stringValue"), v.get("intValue"), v.get("boolValue")) {
            (Some(Value::String(s)), None, None) => Ok(Some(s.clone())),
            (None, Some(Value::String(s)), None) => Ok(Some(s.clone())),
            (None, Some(Value::Number(n)), None) if n.is_i64() => Ok(Some(n.to_string())),
            (None, None, Some(Value::Bool(b))) => Ok(Some(b.to_string())),
            _ => Err(()),
        };
    }
    Ok(None)
}

/// The elements of `v[key]` (absent: none), when `v` is an object with no keys but `keys`.
fn items<'v>(v: &'v Value, keys: &[&str], key: &str) -> Result<&'v [Value], ()> {
    let obj = v.as_object().ok_or(())?;
    if obj.keys().any(|k| !keys.contains(&k.as_str())) {
        return Err(());
    }
    match obj.get(key) {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(a)) => Ok(a),
        Some(_) => Err(()),
    }
}

/// Every run of a request given as JSON, or `Err` when one of them cannot be read.
fn json_runs(v: &Value, run_key: Option<&str>) -> Result<Vec<String>, ()> {
    let mut runs: Vec<String> = Vec::new();
    for rs in items(v, &["resourceSpans"], "resourceSpans")? {
        let res_attrs = rs.get("resource").and_then(|r| r.get("attributes"));
        for ss in items(rs, &["resource", "scopeSpans", "schemaUrl"], "scopeSpans")? {
            for span in items(ss, &["scope", "spans", "schemaUrl"], "spans")? {
                let run = match run_key {
                    None => span
                        .get("traceId")
                        .and_then(Value::as_str)
                        .and_then(trace_run),
                    Some(k) => match attribute(span.get("attributes"), k)? {
                        Some(r) => Some(r),
                        None => attribute(res_attrs, k)?,
                    },
                };
                let run = run.ok_or(())?;
                if !runs.contains(&run) {
                    runs.push(run);
                }
            }
        }
    }
    Ok(runs)
}

/// The trace ids a byte scan finds in `bytes`: each `"traceId"`, `:` and a whole string of
/// hex after it (white space between them allowed).
fn scanned_runs(bytes: &[u8]) -> Vec<String> {
    const KEY: &[u8] = b"\"traceId\"";
    let mut runs: Vec<String> = Vec::new();
    let skip = |mut i: usize| {
        while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        i
    };
    let mut from = 0;
    while let Some(k) = memchr::memmem::find(&bytes[from..], KEY) {
        let mut i = skip(from + k + KEY.len());
        from += k + KEY.len();
        if bytes.get(i) != Some(&b':') {
            continue;
        }
        i = skip(i + 1);
        if bytes.get(i) != Some(&b'"') {
            continue;
        }
        let start = i + 1;
        let Some(len) = memchr::memchr(b'"', &bytes[start..]) else {
            continue;
        };
        let text = std::str::from_utf8(&bytes[start..start + len]).ok();
        if let Some(run) = text.and_then(trace_run) {
            if !runs.contains(&run) {
                runs.push(run);
            }
        }
    }
    runs
}

/// The runs of a line that is not a request (`run_key`: the attribute of `run =`, `None`: the
/// trace id). A byte scan finds trace ids only: with `run_key` a line that is not JSON names
/// no run.
pub fn line_runs(bytes: &[u8], run_key: Option<&str>) -> LineRuns {
    if let Ok(v) = serde_json::from_slice::<Value>(bytes) {
        if let Ok(runs) = json_runs(&v, run_key) {
            return LineRuns::All(runs);
        }
    }
    match run_key {
        None => LineRuns::Some(scanned_runs(bytes)),
        Some(_) => LineRuns::Some(Vec::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: &str = "5b8efff798038103d269b633813fc60c";

    #[test]
    fn a_json_line_of_the_request_shape_names_all_its_runs() {
        let line = format!(
            r#"{{"resourceSpans":[{{"resource":{{"attributes":[]}},"scopeSpans":[{{"spans":[{{"traceId":"{}","kind":"bad"}},{{"traceId":"0xAB"}}]}}]}}]}}"#,
            T.to_uppercase()
        );
        assert_eq!(
            line_runs(line.as_bytes(), None),
            LineRuns::All(vec![T.into(), "ab".into()])
        );
        // A span whose trace id cannot be read, or a key of another shape: any run.
        let odd = r#"{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"xyz"}]}]}]}"#;
        assert_eq!(line_runs(odd.as_bytes(), None), LineRuns::Some(vec![]));
        let other = format!(r#"{{"resource_spans":[{{"traceId":"{T}"}}]}}"#);
        assert_eq!(
            line_runs(other.as_bytes(), None),
            LineRuns::Some(vec![T.into()])
        );
    }

    #[test]
    fn a_cut_line_names_the_trace_ids_it_holds_whole() {
        let line = format!(
            r#"{{"resourceSpans":[{{"scopeSpans":[{{"spans":[{{"traceId" : "{T}","spanId":"1"}},{{"traceId":"0af76519"#
        );
        assert_eq!(
            line_runs(line.as_bytes(), None),
            LineRuns::Some(vec![T.into()])
        );
        assert_eq!(
            line_runs(line.as_bytes(), Some("session.id")),
            LineRuns::Some(vec![])
        );
    }

    #[test]
    fn the_run_attribute_is_read_from_the_span_or_its_resource() {
        let line = r#"{"resourceSpans":[{"resource":{"attributes":[{"key":"session.id","value":{"stringValue":"s1"}}]},"scopeSpans":[{"spans":[{"kind":"x"},{"attributes":[{"key":"session.id","value":{"intValue":"7"}}]}]}]}]}"#;
        assert_eq!(
            line_runs(line.as_bytes(), Some("session.id")),
            LineRuns::All(vec!["s1".into(), "7".into()])
        );
    }
}
