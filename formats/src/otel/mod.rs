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

pub mod bad;
mod document;
mod map;

pub use bad::{line_runs, BadLine, LineRuns};
pub use map::{parse_otel_map, read_otel_map, OtelMap};

use super::label_name;
use crate::events::{EventError, Field, Grouper, Lost, OrderKey, RawEvent, RunOut};
use multitrace_model::nfa::Alphabet;
use multitrace_model::record::Record;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{any_value::Value, KeyValue};
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;
use std::io::{BufRead, Read as _};
use std::path::{Path, PathBuf};
use std::time::Duration;

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

/// The `Error` record of a file, or of one of its lines, that cannot be read.
fn file_error(file: &str, line: Option<u32>, column: Option<u32>, message: String) -> RunOut {
    RunOut::Error(Box::new(multitrace_model::record::Record::error(
        file.to_string(),
        None,
        multitrace_model::record::ErrorRecord {
            message,
            file: Some(file.to_string()),
            line,
            column,
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
    /// Its kind, as OTLP names it without `SPAN_KIND_` (`SERVER`, `CLIENT`, ...).
    pub kind: &'static str,
    /// How many of the events pushed are this span's (they follow the previous span's).
    pub events: usize,
}

/// A span of kind `kind` has its parent in its own service (see [`SpanLink::local_parent`]).
fn local_parent(kind: SpanKind) -> bool {
    !matches!(kind, SpanKind::Server | SpanKind::Consumer)
}

fn kind_name(kind: SpanKind) -> &'static str {
    let name = kind.as_str_name();
    name.strip_prefix("SPAN_KIND_").unwrap_or(name)
}

/// Whether a span of the kind named `kind` (`SERVER`, `CLIENT`, `PRODUCER`, `CONSUMER`,
/// `INTERNAL` or `UNSPECIFIED`, in any case, with or without OTLP's `SPAN_KIND_` prefix, as
/// [`SpanLink::kind`] names it) has its parent in its own service, as the reader decides it
/// ([`SpanLink::local_parent`]). A kind not given or not known is taken as `UNSPECIFIED`
/// (the parent in its own service: the service's events may wait for it, never run ahead).
pub fn kind_parent_is_local(kind: Option<&str>) -> bool {
    let kind = kind.map(str::to_ascii_uppercase).and_then(|k| {
        let k = k.strip_prefix("SPAN_KIND_").unwrap_or(&k);
        SpanKind::from_str_name(&format!("SPAN_KIND_{k}"))
    });
    local_parent(kind.unwrap_or(SpanKind::Unspecified))
}

/// What was read of the span files: the events, the parts that could not be read, and their
/// `Error` records (one per file or line).
#[derive(Default)]
struct Read {
    events: Vec<RawEvent>,
    lost: Vec<Lost>,
    errors: Vec<RunOut>,
    silent: Vec<Silent>,
}

/// A span that gives no action (INTERNAL, or of no kind: the SDK's default when a span is
/// started without `kind=`), and where it was read.
struct Silent {
    run: String,
    at: String,
    file: String,
    line: u32,
}

impl Read {
    /// A file, or the rest of it from `line`, that cannot be read: an `Error` record, and its
    /// spans may be of any run.
    fn lose(&mut self, file: &str, line: Option<u32>, why: String) {
        let place = match line {
            Some(l) => format!("{file}:{l}"),
            None => file.to_string(),
        };
        self.errors.push(file_error(
            file,
            line,
            None,
            format!("{place}: {why}; no run gets a verdict, since the spans not read may be of any trace"),
        ));
        self.lost.push(Lost {
            file: file.to_string(),
            line,
            column: None,
            why,
        });
    }

    /// Line `line` of `file` is not a request (`why`, at `column`): an `Error` record for it,
    /// one for each run it names (see [`bad`]), and when those may not be all, no run gets a
    /// verdict.
    fn bad_line(
        &mut self,
        bytes: &[u8],
        map: &OtelMap,
        file: &str,
        line: u32,
        column: u32,
        why: String,
    ) {
        let bad = BadLine::new(bytes, map.run_key.as_deref(), column, why);
        self.errors.push(file_error(
            file,
            Some(line),
            Some(column),
            bad.message(file, line),
        ));
        self.events.extend(bad.events(file, line));
        self.lost.extend(bad.lost(file, line));
    }
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
    mut silent: Option<&mut Vec<Silent>>,
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
                        local_parent: local_parent(kind),
                        kind: kind_name(kind),
                        events: 0,
                    });
                }
                let (rule, message_key) = match kind {
                    SpanKind::Producer => ("PRODUCER", "messaging.destination.name"),
                    SpanKind::Consumer => ("CONSUMER", "messaging.destination.name"),
                    SpanKind::Client => ("CLIENT", "rpc.method"),
                    SpanKind::Server => ("SERVER", "rpc.method"),
                    _ => {
                        // INTERNAL or of no kind: no action (said when its trace has none).
                        if let (Some(s), Some(run)) = (silent.as_deref_mut(), &run) {
                            s.push(Silent {
                                run: run.clone(),
                                at: format!("{file}:{line}"),
                                file: file.to_string(),
                                line,
                            });
                        }
                        continue;
                    }
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

/// Why a line is not a request (a line of the Collector's file exporter).
const NOT_A_REQUEST: &str =
    "not an OTLP JSON ExportTraceServiceRequest (the Collector's file exporter writes one per line)";

/// Reads the spans of one file into `read`: every line that can be read is, and what cannot
/// be is recorded there.
fn read_file(path: &Path, map: &OtelMap, read: &mut Read) {
    let file = path.display().to_string();
    // Decompressed when the name says so (`.gz`, `.zst`: the Collector writes both).
    let mut reader = match crate::input::open_input(path) {
        Ok(f) => std::io::BufReader::new(f),
        Err(e) => return read.lose(&file, None, format!("cannot read: {e}")),
    };
    let head = match reader.fill_buf() {
        Ok(h) => h,
        Err(e) => return read.lose(&file, None, format!("cannot read: {e}")),
    };
    // JSON starts `{` or `[` (then a key, a close, a value); protobuf cannot.
    if document::looks_like_json(head) {
        // OTLP JSON, one request per line; a line that cannot be read does not stop the
        // others (read as bytes: a line that is not UTF-8 is one bad line).
        let mut line = 0u32;
        let mut buf = Vec::new();
        // Before the first line that is not blank.
        let mut first = true;
        loop {
            buf.clear();
            line += 1;
            match reader.read_until(b'\n', &mut buf) {
                Ok(0) => return,
                Ok(_) => {}
                Err(e) => {
                    return read.lose(
                        &file,
                        Some(line),
                        format!("cannot read from this line on: {e}"),
                    )
                }
            }
            if buf.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            // Without its line break: a cut line then ends where it was cut (the parser's
            // column is on the line, not after it).
            while matches!(buf.last(), Some(b'\n' | b'\r')) {
                buf.pop();
            }
            let text = match std::str::from_utf8(&buf) {
                Ok(t) => t,
                Err(e) => {
                    let column = String::from_utf8_lossy(&buf[..e.valid_up_to()])
                        .chars()
                        .count()
                        + 1;
                    let why = format!("{NOT_A_REQUEST}: bytes that are not UTF-8");
                    read.bad_line(&buf, map, &file, line, column as u32, why);
                    continue;
                }
            };
            let parsed = serde_json::from_str::<ExportTraceServiceRequest>(text);
            let was_first = std::mem::replace(&mut first, false);
            match parsed {
                Ok(req) => request_events(
                    &req,
                    map,
                    &file,
                    line,
                    &mut read.events,
                    None,
                    Some(&mut read.silent),
                ),
                // The first line is not a whole value: one document over many lines.
                Err(e) if e.is_eof() && was_first => {
                    return read_document(&mut reader, std::mem::take(&mut buf), map, &file, read);
                }
                Err(e) => {
                    let why = format!("{NOT_A_REQUEST}: {e}");
                    read.bad_line(&buf, map, &file, line, e.column() as u32, why);
                }
            }
            if read.events.len() > map.max_events {
                return read.lose(
                    &file,
                    Some(line + 1),
                    format!(
                        "more than {} span events to hold (--max-buffered-events): the rest of the file is not read",
                        map.max_events
                    ),
                );
            }
        }
    }
    // OTLP protobuf: one ExportTraceServiceRequest, or a sequence of them each preceded by
    // its length (4 bytes, big-endian), as the Collector's file exporter writes with
    // `format: proto`.
    let mut bytes = Vec::new();
    if let Err(e) = reader.read_to_end(&mut bytes) {
        return read.lose(&file, None, format!("cannot read: {e}"));
    }
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
        match decode(&bytes) {
            Ok(r) => vec![r],
            Err(e) => {
                return read.lose(
                    &file,
                    None,
                    format!("neither OTLP JSON (one ExportTraceServiceRequest per line) nor OTLP protobuf: {e}"),
                )
            }
        }
    };
    for (i, req) in requests.iter().enumerate() {
        request_events(
            req,
            map,
            &file,
            i as u32 + 1,
            &mut read.events,
            None,
            Some(&mut read.silent),
        );
    }
}

/// Reads the rest of a file whose first line (`first`) starts a JSON document that goes on
/// over more lines ([`document`]): its requests, or one `Error` saying where and why not.
fn read_document(
    reader: &mut impl std::io::Read,
    mut bytes: Vec<u8>,
    map: &OtelMap,
    file: &str,
    read: &mut Read,
) {
    bytes.push(b'\n');
    let limit = document::MAX_DOCUMENT;
    if let Err(e) = reader.take(limit).read_to_end(&mut bytes) {
        return read.lose(file, None, format!("cannot read: {e}"));
    }
    if bytes.len() as u64 >= limit {
        return read.lose(
            file,
            None,
            format!("a JSON document of more than {limit} bytes: write it as JSON Lines (`jq -c '.[]'` or the Collector's file exporter), one request per line"),
        );
    }
    match document::requests(&bytes) {
        Ok(requests) => {
            for req in &requests {
                request_events(
                    req,
                    map,
                    file,
                    1,
                    &mut read.events,
                    None,
                    Some(&mut read.silent),
                );
            }
        }
        Err(e) => {
            let line = (e.line > 0).then_some(e.line);
            let why = match e.column {
                0 => e.why,
                c => format!("column {c}: {}", e.why),
            };
            read.lose(file, line, why)
        }
    }
}

/// `out` with every run still to be checked made an `Error` record naming the first of
/// `lost` ([`crate::events::lost`]); runs already `Error` keep their own record.
fn withhold(out: Vec<RunOut>, lost: &[Lost]) -> Vec<RunOut> {
    let Some(first) = lost.first() else {
        return out;
    };
    out.into_iter()
        .map(|r| match r {
            RunOut::Item(item) => {
                let id = item.id.clone().unwrap_or_default();
                let e = first.error(&id, lost.len() - 1);
                RunOut::Error(Box::new(Record::error(
                    item.trace,
                    item.id,
                    e,
                    Duration::ZERO,
                )))
            }
            other => other,
        })
        .collect()
}

/// The runs of span files: every file is read (spans of a trace may be in several lines and
/// files), then grouped by run in the order of each run's first span; the `Error` records of
/// files and lines that cannot be read come after the runs. A run with a span on a line that
/// cannot be read gets an `Error` record naming it; when such a line (or the rest of a file,
/// or a file) may hold spans of runs it does not name, every run gets one (see [`bad`]).
pub fn read_otel_runs(alphabet: &Alphabet, files: &[PathBuf], map: &OtelMap) -> Vec<RunOut> {
    let mut read = Read::default();
    for f in files {
        read_file(f, map, &mut read);
    }
    // A span whose run is not known (no run attribute) is of some run: which is not known.
    let orphans = read.events.iter().filter(|e| e.run.is_none());
    let orphans: Vec<Lost> = orphans.map(Lost::of_orphan).collect();
    read.lost.extend(orphans);
    let mut out = withhold(Grouper::new(alphabet).group(read.events), &read.lost);
    // A trace whose spans give no action still gets a record, saying why: it was seen.
    let seen: rustc_hash::FxHashSet<String> = out
        .iter()
        .filter_map(|r| match r {
            RunOut::Item(i) => i.id.clone(),
            RunOut::Error(e) => e.id.clone(),
        })
        .collect();
    let mut silent: Vec<(String, (usize, &Silent))> = Vec::new();
    let mut index: rustc_hash::FxHashMap<&str, usize> = rustc_hash::FxHashMap::default();
    for s in &read.silent {
        if seen.contains(&s.run) {
            continue;
        }
        match index.get(s.run.as_str()) {
            Some(&i) => silent[i].1 .0 += 1,
            None => {
                index.insert(&s.run, silent.len());
                silent.push((s.run.clone(), (1, s)));
            }
        }
    }
    for (run, (n, s)) in silent {
        let message = format!(
            "{}: trace {run}: none of its spans gives an action: its {n} span{} {} INTERNAL or \
             of no kind (the SDK's default when a span is started without a kind), which give \
             none; start spans with kind SERVER or CLIENT for requests, PRODUCER or CONSUMER \
             for messages",
            s.at,
            if n == 1 { "" } else { "s" },
            if n == 1 { "is" } else { "are" },
        );
        out.push(RunOut::Error(Box::new(Record::error(
            s.at.clone(),
            Some(run),
            multitrace_model::record::ErrorRecord {
                message,
                file: Some(s.file.clone()),
                line: Some(s.line),
                column: None,
            },
            Duration::ZERO,
        ))));
    }
    out.extend(read.errors);
    out
}

/// The events of one OTLP JSON line (an `ExportTraceServiceRequest`), by the rules above,
/// before grouping (`file` and `line` name it in `at`): for front ends that take spans one
/// line at a time (Spark's `events_from_otel`). `Err` says where and why the line is not one
/// (what it means for the runs is the front end's: [`otel_json_line`]).
pub fn otel_json_events(
    text: &str,
    map: &OtelMap,
    file: &str,
    line: u32,
    out: &mut Vec<RawEvent>,
) -> Result<(), String> {
    otel_json_line(text, map, file, line, out)
        .map_err(|b| format!("{file}:{line}:{}: {}", b.column, b.why))
}

/// [`otel_json_events`], with what a line that is not a request still tells (the runs it
/// held: [`bad`]), for front ends that give those runs an `Error` record.
pub fn otel_json_line(
    text: &str,
    map: &OtelMap,
    file: &str,
    line: u32,
    out: &mut Vec<RawEvent>,
) -> Result<(), BadLine> {
    json_line(text, map, file, line, out, None)
}

/// [`otel_json_line`], and what each span says of its place in its trace ([`SpanLink`], in
/// the order of their events: the first link's events come first in `out`).
pub fn otel_json_spans(
    text: &str,
    map: &OtelMap,
    file: &str,
    line: u32,
    out: &mut Vec<RawEvent>,
    links: &mut Vec<SpanLink>,
) -> Result<(), BadLine> {
    json_line(text, map, file, line, out, Some(links))
}

/// [`otel_json_spans`] for a request already decoded (from OTLP protobuf or JSON, as an
/// OTLP/HTTP receiver gets it): the same events and links a line holding it gives, named
/// `file:line` alike. It cannot fail: a decoded request is one.
pub fn otel_request_spans(
    req: &ExportTraceServiceRequest,
    map: &OtelMap,
    file: &str,
    line: u32,
    out: &mut Vec<RawEvent>,
    links: &mut Vec<SpanLink>,
) {
    request_events(req, map, file, line, out, Some(links), None);
}

fn json_line(
    text: &str,
    map: &OtelMap,
    file: &str,
    line: u32,
    out: &mut Vec<RawEvent>,
    links: Option<&mut Vec<SpanLink>>,
) -> Result<(), BadLine> {
    let req: ExportTraceServiceRequest = serde_json::from_str(text).map_err(|e| {
        let why = format!("{NOT_A_REQUEST}: {e}");
        BadLine::new(
            text.as_bytes(),
            map.run_key.as_deref(),
            e.column() as u32,
            why,
        )
    })?;
    request_events(&req, map, file, line, out, links, None);
    Ok(())
}

#[cfg(test)]
mod tests;
