//! OpenTelemetry spans in: OTLP JSON (the Collector's file exporter: one
//! `ExportTraceServiceRequest` per line) and OTLP protobuf, turned into the events that
//! `check --events` groups ([`RawEvent`]). The OTLP types are `opentelemetry-proto`'s.
//!
//! # Mapping (OpenTelemetry semantic conventions; [`OtelMap`] overrides it)
//!
//! - lifeline: the resource's `service.name` (or another resource or span attribute);
//! - message: `messaging.destination.name` for `PRODUCER`/`CONSUMER` spans and `rpc.method`
//!   for `CLIENT`/`SERVER` spans when present, else the span name; made a name by
//!   [`label_name`] (`POST /pay` is `POST_pay`), as diagram labels are; the reply is the
//!   message followed by [`OtelMap::reply_suffix`] (`_reply`);
//! - `PRODUCER`: emission `l!m` at its start; `CONSUMER`: reception `l?m` at its start;
//!   `CLIENT`: `l!m` at its start and `l?m_reply` at its end; `SERVER`: `l?m` at its start and
//!   `l!m_reply` at its end; `INTERNAL` and unspecified spans are no action;
//! - run: the trace id (hex), or the value of [`OtelMap::run_key`];
//! - order: the span's start (or end) time in nanoseconds. Only the order within each
//!   location counts: clocks of different hosts need not agree.
//!
//! An action the model does not have gives its run an `Error` record that names the span
//! (trace id, span id, service, span name) and the rule that made the action; a span without
//! the lifeline attribute does too. Nothing is dropped silently.

mod map;

pub use map::{parse_otel_map, read_otel_map, OtelMap};

use super::label_name;
use crate::events::{EventError, Field, Grouper, OrderKey, RawEvent, RunOut};
use multitrace_model::nfa::Alphabet;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{any_value::Value, KeyValue};
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;
use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};

/// The value of attribute `key` as text.
fn attribute(attrs: &[KeyValue], key: &str) -> Option<String> {
    let v = attrs
        .iter()
        .find(|kv| kv.key == key)?
        .value
        .as_ref()?
        .value
        .as_ref()?;
    Some(match v {
        Value::StringValue(s) => s.clone(),
        Value::IntValue(i) => i.to_string(),
        Value::BoolValue(b) => b.to_string(),
        Value::DoubleValue(d) => d.to_string(),
        _ => return None,
    })
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Why a file of spans cannot be read (its spans read before still count).
fn file_error(file: &str, line: Option<u32>, message: String) -> RunOut {
    RunOut::Error(Box::new(multitrace_model::record::Record::error(
        file.to_string(),
        None,
        multitrace_model::record::ErrorRecord {
            message,
            file: Some(file.to_string()),
            line,
            column: None,
        },
        std::time::Duration::ZERO,
    )))
}

/// What a span says of its place in its trace, for a reader that follows spans as they are
/// exported (`monitor --otel`): a span is exported when it ends, so a span whose parent in
/// its own service has not come tells that an earlier action of that service (the parent's
/// start) is still to come.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpanLink {
    /// Its run (as its events have it).
    pub run: Option<String>,
    /// Its lifeline (the service), as written.
    pub lifeline: Option<String>,
    /// Its span id (hex).
    pub id: String,
    /// Its parent's span id (hex), when it has one.
    pub parent: Option<String>,
    /// Its parent is in its own service by the conventions: a `CLIENT`, `PRODUCER` or
    /// `INTERNAL` span (a `SERVER` or `CONSUMER` span's parent is its caller's).
    pub local_parent: bool,
    /// How many of the events pushed are this span's (they follow the previous span's).
    pub events: usize,
}

/// The events of one request's spans (`at` is `FILE:LINE`), and what each span says of its
/// place in its trace (when `links` is given).
fn request_events(
    req: &ExportTraceServiceRequest,
    map: &OtelMap,
    file: &str,
    line: u32,
    out: &mut Vec<RawEvent>,
    mut links: Option<&mut Vec<SpanLink>>,
) {
    for rs in &req.resource_spans {
        let res_attrs: &[KeyValue] = rs.resource.as_ref().map_or(&[], |r| &r.attributes);
        for ss in &rs.scope_spans {
            for span in &ss.spans {
                let kind = SpanKind::try_from(span.kind).unwrap_or(SpanKind::Unspecified);
                let trace_id = hex(&span.trace_id);
                let lifeline = attribute(&span.attributes, &map.lifeline_key)
                    .or_else(|| attribute(res_attrs, &map.lifeline_key));
                let run = match &map.run_key {
                    None => Some(trace_id.clone()),
                    Some(k) => attribute(&span.attributes, k).or_else(|| attribute(res_attrs, k)),
                };
                let before = out.len();
                if let Some(links) = links.as_deref_mut() {
                    links.push(SpanLink {
                        run: run.clone(),
                        lifeline: lifeline.clone(),
                        id: hex(&span.span_id),
                        parent: (!span.parent_span_id.is_empty())
                            .then(|| hex(&span.parent_span_id)),
                        local_parent: !matches!(kind, SpanKind::Server | SpanKind::Consumer),
                        events: 0,
                    });
                }
                let (rule, message_key) = match kind {
                    SpanKind::Producer => ("PRODUCER", "messaging.destination.name"),
                    SpanKind::Consumer => ("CONSUMER", "messaging.destination.name"),
                    SpanKind::Client => ("CLIENT", "rpc.method"),
                    SpanKind::Server => ("SERVER", "rpc.method"),
                    _ => continue,
                };
                let span_id = hex(&span.span_id);
                let service = lifeline.clone().unwrap_or_else(|| "(none)".into());
                let text = match &map.message_key {
                    Some(k) => attribute(&span.attributes, k),
                    None => attribute(&span.attributes, message_key),
                }
                .unwrap_or_else(|| span.name.clone());
                let at = |what: &str| {
                    format!(
                        "{file}:{line}: span {span_id} of trace {trace_id} (service {service:?}, span name {:?}, rule: {rule} span, {what})",
                        span.name
                    )
                };
                let mut push = |emission: bool, reply: bool, nanos: u64, what: &str| {
                    let body = match (&lifeline, label_name(&text)) {
                        (None, _) => Err(EventError::Missing {
                            field: map.lifeline_key.clone(),
                            role: Field::Action,
                        }),
                        (_, None) => Err(EventError::Missing {
                            field: "span name".into(),
                            role: Field::Action,
                        }),
                        (Some(l), Some(m)) => {
                            let l = label_name(l).unwrap_or_else(|| l.clone());
                            let m = if reply {
                                format!("{m}{}", map.reply_suffix)
                            } else {
                                m
                            };
                            Ok((
                                format!("{l}{}{m}", if emission { '!' } else { '?' }),
                                OrderKey::Time(i128::from(nanos)),
                            ))
                        }
                    };
                    out.push(RawEvent {
                        at: at(what),
                        file: file.to_string(),
                        line,
                        run: run.clone(),
                        body,
                    });
                };
                let (start, end) = (span.start_time_unix_nano, span.end_time_unix_nano);
                match kind {
                    SpanKind::Producer => push(
                        true,
                        false,
                        start,
                        "its start is the emission of the message",
                    ),
                    SpanKind::Consumer => push(
                        false,
                        false,
                        start,
                        "its start is the reception of the message",
                    ),
                    SpanKind::Client => {
                        push(
                            true,
                            false,
                            start,
                            "its start is the emission of the request",
                        );
                        if !map.reply_suffix.is_empty() {
                            push(false, true, end, "its end is the reception of the reply");
                        }
                    }
                    _ => {
                        push(
                            false,
                            false,
                            start,
                            "its start is the reception of the request",
                        );
                        if !map.reply_suffix.is_empty() {
                            push(true, true, end, "its end is the emission of the reply");
                        }
                    }
                }
                if let Some(link) = links.as_deref_mut().and_then(|l| l.last_mut()) {
                    link.events = out.len() - before;
                }
            }
        }
    }
}

/// Reads the spans of one file into `out`; `Err` is an `Error` record for what could not be
/// read (the spans before it count).
fn read_file(path: &Path, map: &OtelMap, out: &mut Vec<RawEvent>) -> Result<(), RunOut> {
    let file = path.display().to_string();
    let mut reader = std::io::BufReader::new(
        std::fs::File::open(path)
            .map_err(|e| file_error(&file, None, format!("{file}: cannot read: {e}")))?,
    );
    let head = reader
        .fill_buf()
        .map_err(|e| file_error(&file, None, format!("{file}: cannot read: {e}")))?;
    // A JSON line starts `{"` (or `{}`); protobuf cannot: after the bytes 0x0a 0x7b (a
    // 123-byte first field), `"` (0x22) would be a field ResourceSpans does not have.
    let start = head
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(head.len());
    let json = head.get(start) == Some(&b'{') && matches!(head.get(start + 1), Some(b'"' | b'}'));
    if json {
        // OTLP JSON, one request per line.
        let mut line = 0u32;
        let mut buf = String::new();
        loop {
            buf.clear();
            line += 1;
            match reader.read_line(&mut buf) {
                Ok(0) => return Ok(()),
                Ok(_) => {}
                Err(e) => {
                    return Err(file_error(
                        &file,
                        Some(line),
                        format!("{file}:{line}: cannot read: {e}"),
                    ))
                }
            }
            if buf.trim().is_empty() {
                continue;
            }
            let req: ExportTraceServiceRequest = serde_json::from_str(&buf).map_err(|e| {
                file_error(&file, Some(line), format!(
                    "{file}:{line}:{}: not an OTLP JSON ExportTraceServiceRequest (the Collector's file exporter writes one per line): {e}",
                    e.column()
                ))
            })?;
            request_events(&req, map, &file, line, out, None);
            if out.len() > map.max_events {
                return Err(file_error(
                    &file,
                    Some(line),
                    format!(
                        "{file}:{line}: more than {} span events to hold (--max-buffered-events)",
                        map.max_events
                    ),
                ));
            }
        }
    }
    // OTLP protobuf: one ExportTraceServiceRequest, or a sequence of them each preceded by
    // its length (4 bytes, big-endian), as the Collector's file exporter writes with
    // `format: proto`.
    let mut bytes = Vec::new();
    reader
        .read_to_end(&mut bytes)
        .map_err(|e| file_error(&file, None, format!("{file}: cannot read: {e}")))?;
    let decode = |b: &[u8]| <ExportTraceServiceRequest as prost::Message>::decode(b);
    let mut framed = Vec::new();
    let mut rest = bytes.as_slice();
    while rest.len() >= 4 {
        let n = u32::from_be_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
        let Some(msg) = rest.get(4..4 + n) else { break };
        match decode(msg) {
            Ok(r) => framed.push(r),
            Err(_) => break,
        }
        rest = &rest[4 + n..];
    }
    let requests = if rest.is_empty() && !framed.is_empty() {
        framed
    } else {
        vec![decode(&bytes).map_err(|e| {
            file_error(&file, None, format!(
                "{file}: neither OTLP JSON (one ExportTraceServiceRequest per line) nor OTLP protobuf: {e}"
            ))
        })?]
    };
    for (i, req) in requests.iter().enumerate() {
        request_events(req, map, &file, i as u32 + 1, out, None);
    }
    Ok(())
}

/// The runs of span files: every file is read (spans of a trace may be in several lines and
/// files), then grouped by run in the order of each run's first span; an unreadable file is
/// an `Error` record after the runs.
pub fn read_otel_runs(alphabet: &Alphabet, files: &[PathBuf], map: &OtelMap) -> Vec<RunOut> {
    let mut events = Vec::new();
    let mut errors = Vec::new();
    for f in files {
        if let Err(e) = read_file(f, map, &mut events) {
            errors.push(e);
        }
    }
    let mut out = Grouper::new(alphabet).group(events);
    out.extend(errors);
    out
}

/// The events of one OTLP JSON line (an `ExportTraceServiceRequest`), by the rules above,
/// before grouping (`file` and `line` name it in `at`): for front ends that take spans one
/// line at a time (Spark's `events_from_otel`). `Err` says why the line is not one.
pub fn otel_json_events(
    text: &str,
    map: &OtelMap,
    file: &str,
    line: u32,
    out: &mut Vec<RawEvent>,
) -> Result<(), String> {
    let req: ExportTraceServiceRequest = serde_json::from_str(text).map_err(|e| {
        format!(
            "{file}:{line}:{}: not an OTLP JSON ExportTraceServiceRequest (the Collector's file exporter writes one per line): {e}",
            e.column()
        )
    })?;
    request_events(&req, map, file, line, out, None);
    Ok(())
}

/// [`otel_json_events`], and what each span says of its place in its trace ([`SpanLink`],
/// in the order of their events: the first link's events come first in `out`).
pub fn otel_json_spans(
    text: &str,
    map: &OtelMap,
    file: &str,
    line: u32,
    out: &mut Vec<RawEvent>,
    links: &mut Vec<SpanLink>,
) -> Result<(), String> {
    let req: ExportTraceServiceRequest = serde_json::from_str(text).map_err(|e| {
        format!(
            "{file}:{line}:{}: not an OTLP JSON ExportTraceServiceRequest (the Collector's file exporter writes one per line): {e}",
            e.column()
        )
    })?;
    request_events(&req, map, file, line, out, Some(links));
    Ok(())
}

#[cfg(test)]
mod tests;
