//! OTLP JSON written as one document rather than one request per line: pretty-printed, as
//! the OpenTelemetry examples (`opentelemetry-proto`'s `examples/trace.json`) and most
//! exported files are; an array of requests; or Jaeger's API answer, which wraps OTLP in a
//! `result` (its `/api/v3`), read as the request it holds. Jaeger's own JSON (`data`,
//! `traceID`, `processes`: its `/api/traces`) is refused, saying what to export instead.
//!
//! Invariant: a file that starts like JSON is never reported as bad protobuf; every refusal
//! names the line and column where the document stops being what it should be.

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use serde_json::Value;

/// The most bytes of one JSON document read at once (a JSON Lines file has no such bound).
pub(super) const MAX_DOCUMENT: u64 = 1 << 30;

/// Why a document cannot be read: the line and column (from 1; 0 when not known) and what.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Refused {
    pub(super) line: u32,
    pub(super) column: u32,
    pub(super) why: String,
}

/// Whether the first bytes of a file are JSON: `{` or `[`, then (after white space) a key, a
/// close or another value. Protobuf cannot start so: `{` (0x7b) and `[` (0x5b) are fields
/// of wire type 3, which an ExportTraceServiceRequest has not.
pub(super) fn looks_like_json(head: &[u8]) -> bool {
    let mut it = head.iter().copied().filter(|b| !b.is_ascii_whitespace());
    matches!(it.next(), Some(b'{' | b'['))
        && matches!(it.next(), None | Some(b'"' | b'}' | b'{' | b']'))
}

/// The requests of one JSON document.
pub(super) fn requests(bytes: &[u8]) -> Result<Vec<ExportTraceServiceRequest>, Refused> {
    let v: Value = serde_json::from_slice(bytes).map_err(|e| Refused {
        line: e.line() as u32,
        column: e.column() as u32,
        why: format!("not a JSON document: {e}"),
    })?;
    let mut out = Vec::new();
    collect(v, &mut out)?;
    Ok(out)
}

fn collect(v: Value, out: &mut Vec<ExportTraceServiceRequest>) -> Result<(), Refused> {
    let refuse = |why: String| Refused {
        line: 0,
        column: 0,
        why,
    };
    match v {
        Value::Array(items) => {
            for item in items {
                collect(item, out)?;
            }
            Ok(())
        }
        Value::Object(mut map) => {
            if map.contains_key("resourceSpans") {
                let r = serde_json::from_value(Value::Object(map)).map_err(|e| {
                    refuse(format!("not an OTLP JSON ExportTraceServiceRequest: {e}"))
                })?;
                out.push(r);
                Ok(())
            } else if let Some(inner) = map.remove("result") {
                // Jaeger's `/api/v3` answer: `{"result": {"resourceSpans": [...]}}`.
                collect(inner, out)
            } else if map.contains_key("data") {
                Err(refuse(
                    "Jaeger's own JSON (`data`, `traceID`, `processes`), not OTLP: take the \
                     traces from Jaeger's OTLP API (`/api/v3/traces`) or an OpenTelemetry \
                     Collector's file exporter"
                        .into(),
                ))
            } else {
                let keys: Vec<&str> = map.keys().map(String::as_str).take(5).collect();
                Err(refuse(format!(
                    "a JSON object without `resourceSpans` (its keys: {}): not an OTLP \
                     ExportTraceServiceRequest",
                    keys.join(", ")
                )))
            }
        }
        other => Err(refuse(format!(
            "a JSON {} where an OTLP ExportTraceServiceRequest (an object) was expected",
            match other {
                Value::Null => "null",
                Value::Bool(_) => "boolean",
                Value::Number(_) => "number",
                _ => "string",
            }
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const REQUEST: &str = r#"{"resourceSpans":[{"resource":{"attributes":[]},"scopeSpans":[]}]}"#;

    #[test]
    fn documents_of_every_shape_read() {
        let pretty =
            serde_json::to_string_pretty(&serde_json::from_str::<Value>(REQUEST).unwrap()).unwrap();
        assert!(looks_like_json(pretty.as_bytes()));
        assert_eq!(requests(pretty.as_bytes()).unwrap().len(), 1);
        let array = format!("[{REQUEST},\n{REQUEST}]");
        assert!(looks_like_json(array.as_bytes()));
        assert_eq!(requests(array.as_bytes()).unwrap().len(), 2);
        let jaeger = format!("{{\"result\": {REQUEST}}}");
        assert_eq!(requests(jaeger.as_bytes()).unwrap().len(), 1);
        // Protobuf's first bytes are not JSON's.
        assert!(!looks_like_json(&[0x0a, 0x7b, 0x0a, 0x05]));
    }

    #[test]
    fn other_documents_are_refused_saying_why_and_where() {
        let e = requests(b"{\n  \"resourceSpans\": [\n  ,]\n}").unwrap_err();
        assert_eq!((e.line, e.column), (3, 3), "{e:?}");
        let e = requests(br#"{"data": [{"traceID": "1"}]}"#).unwrap_err();
        assert!(e.why.contains("Jaeger's own JSON"), "{e:?}");
        let e = requests(br#"{"spans": []}"#).unwrap_err();
        assert!(
            e.why.contains("without `resourceSpans`") && e.why.contains("spans"),
            "{e:?}"
        );
    }
}
