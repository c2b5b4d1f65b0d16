//! The OTLP/HTTP server: `hyper` (HTTP/1) on a current-thread `tokio` runtime in a thread of
//! its own. A request's head is judged first ([`head`]: path, method, content type and
//! encoding, declared length), then its body read within the size limit and decoded
//! ([`body`]), and an accepted request put in the loop's bounded queue without waiting
//! (`503` when it is full). The replies are the module `receive`'s table.

use super::options::{Limits, Protocol, Queued, ReceiveError, Received};
use super::server::Server;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::header::{HeaderMap, HeaderValue, CONTENT_LENGTH, CONTENT_TYPE, RETRY_AFTER};
use hyper::{Method, Request, Response, StatusCode};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceResponse;
use prost::Message as _;
use std::io::Read as _;
use std::net::SocketAddr;
use std::sync::mpsc::{SyncSender, TrySendError};
use std::sync::Arc;

/// The path of trace exports.
pub(super) const TRACES: &str = "/v1/traces";
const PROTOBUF: &str = "application/x-protobuf";
const JSON: &str = "application/json";

/// What every connection shares: the queue and the limits.
pub(super) struct Shared {
    pub(super) tx: SyncSender<Queued>,
    pub(super) limits: Limits,
}

/// Listens on `addr` and serves OTLP/HTTP until stopped; the address listened on.
pub(super) fn start(
    addr: SocketAddr,
    limits: Limits,
    tx: SyncSender<Queued>,
) -> Result<(Server, SocketAddr), ReceiveError> {
    let shared = Arc::new(Shared { tx, limits });
    Server::start(Protocol::Http, addr, move |listener, stopped| async move {
        let accepting = tokio::spawn(accept(listener, shared));
        // A stop, or the Inbox gone: the connections' tasks end with the runtime.
        let _ = stopped.await;
        accepting.abort();
    })
}

/// Accepts connections, each served by a task of its own.
async fn accept(listener: tokio::net::TcpListener, shared: Arc<Shared>) {
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(_) => {
                // Out of descriptors and the like: try again a little later (no busy loop).
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                continue;
            }
        };
        let shared = Arc::clone(&shared);
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |req| {
                let shared = Arc::clone(&shared);
                async move { Ok::<_, std::convert::Infallible>(serve(req, &shared).await) }
            });
            let io = hyper_util::rt::TokioIo::new(stream);
            // A connection that breaks is the client's: nothing to record.
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(io, service)
                .await;
        });
    }
}

/// One request's reply.
async fn serve(req: Request<Incoming>, shared: &Shared) -> Response<Full<Bytes>> {
    let (parts, incoming) = req.into_parts();
    let max = shared.limits.max_body;
    let reply = match head(&parts.method, parts.uri.path(), &parts.headers, max) {
        Err(reply) => reply,
        Ok(h) => match Limited::new(incoming, max).collect().await {
            Ok(collected) => body(h, &collected.to_bytes(), shared),
            Err(e) if e.is::<http_body_util::LengthLimitError>() => too_large(h.json, max),
            Err(e) => status(
                StatusCode::BAD_REQUEST,
                h.json,
                format!("reading the body: {e}"),
            ),
        },
    };
    reply.response()
}

/// A reply before it is a response.
#[derive(Debug)]
pub(super) struct Reply {
    pub(super) status: StatusCode,
    pub(super) content_type: &'static str,
    /// `Retry-After: 1` (the queue is full).
    pub(super) retry: bool,
    pub(super) body: Vec<u8>,
}

impl Reply {
    fn response(self) -> Response<Full<Bytes>> {
        let mut r = Response::new(Full::new(Bytes::from(self.body)));
        *r.status_mut() = self.status;
        let h = r.headers_mut();
        h.insert(CONTENT_TYPE, HeaderValue::from_static(self.content_type));
        if self.retry {
            h.insert(RETRY_AFTER, HeaderValue::from_static("1"));
        }
        r
    }
}

/// `google.rpc.Status`, the body of an OTLP/HTTP error (its `details` left out).
#[derive(Clone, PartialEq, prost::Message)]
struct Status {
    #[prost(int32, tag = "1")]
    code: i32,
    #[prost(string, tag = "2")]
    message: String,
}

/// An error reply with a `Status` in the request's encoding (gRPC's code for the HTTP one).
pub(super) fn status(code: StatusCode, json: bool, message: String) -> Reply {
    let rpc = match code {
        StatusCode::BAD_REQUEST => 3,          // INVALID_ARGUMENT
        StatusCode::PAYLOAD_TOO_LARGE => 8,    // RESOURCE_EXHAUSTED
        StatusCode::SERVICE_UNAVAILABLE => 14, // UNAVAILABLE
        _ => 2,                                // UNKNOWN
    };
    let body = if json {
        serde_json::json!({ "code": rpc, "message": message })
            .to_string()
            .into_bytes()
    } else {
        Status { code: rpc, message }.encode_to_vec()
    };
    Reply {
        status: code,
        content_type: if json { JSON } else { PROTOBUF },
        retry: code == StatusCode::SERVICE_UNAVAILABLE,
        body,
    }
}

/// A plain-text reply (no encoding was agreed: a wrong path, method or content type).
fn plain(status: StatusCode, text: &str) -> Reply {
    Reply {
        status,
        content_type: "text/plain; charset=utf-8",
        retry: false,
        body: format!("{text}\n").into_bytes(),
    }
}

fn too_large(json: bool, max: usize) -> Reply {
    let why = format!("the body is over {max} bytes (the monitor's request size limit)");
    status(StatusCode::PAYLOAD_TOO_LARGE, json, why)
}

/// What a request's head says of its body.
#[derive(Clone, Copy, Debug)]
pub(super) struct Head {
    /// OTLP JSON (else protobuf).
    pub(super) json: bool,
    /// `Content-Encoding: gzip`.
    pub(super) gzip: bool,
}

/// Judges a request's head: `Ok` when its body is to be read, else the reply.
pub(super) fn head(
    method: &Method,
    path: &str,
    headers: &HeaderMap,
    max_body: usize,
) -> Result<Head, Reply> {
    if path == "/health" || path == "/healthz" {
        return Err(plain(StatusCode::OK, "ok"));
    }
    if path != TRACES {
        return Err(plain(
            StatusCode::NOT_FOUND,
            "not found (spans go to POST /v1/traces)",
        ));
    }
    if method != Method::POST {
        return Err(plain(StatusCode::METHOD_NOT_ALLOWED, "POST only"));
    }
    let text = |name| {
        headers
            .get(name)
            .and_then(|v: &HeaderValue| v.to_str().ok())
    };
    let kind = text(CONTENT_TYPE)
        .and_then(|t| t.split(';').next())
        .map(|t| t.trim().to_ascii_lowercase());
    let json = match kind.as_deref() {
        Some(PROTOBUF) => false,
        Some(JSON) => true,
        _ => {
            let why = format!("unsupported content type (OTLP/HTTP is {PROTOBUF} or {JSON})");
            return Err(plain(StatusCode::UNSUPPORTED_MEDIA_TYPE, &why));
        }
    };
    let gzip = match text(hyper::header::CONTENT_ENCODING).map(str::trim) {
        None | Some("identity") => false,
        Some(e) if e.eq_ignore_ascii_case("gzip") => true,
        Some(_) => {
            let why = "unsupported content encoding (gzip or none)";
            return Err(plain(StatusCode::UNSUPPORTED_MEDIA_TYPE, why));
        }
    };
    let declared = text(CONTENT_LENGTH).and_then(|n| n.parse::<u64>().ok());
    if declared.is_some_and(|n| n > max_body as u64) {
        return Err(too_large(json, max_body));
    }
    Ok(Head { json, gzip })
}

/// Decodes a body (at most the limit, read) and queues the request: the reply.
pub(super) fn body(head: Head, bytes: &[u8], shared: &Shared) -> Reply {
    let max = shared.limits.max_body;
    let unpacked;
    let bytes = if head.gzip {
        let mut out = Vec::new();
        let mut unzip = flate2::read::GzDecoder::new(bytes).take(max as u64 + 1);
        if let Err(e) = unzip.read_to_end(&mut out) {
            let why = format!("not a gzip body: {e}");
            return status(StatusCode::BAD_REQUEST, head.json, why);
        }
        if out.len() > max {
            return too_large(head.json, max);
        }
        unpacked = out;
        &unpacked[..]
    } else {
        bytes
    };
    let decoded = if head.json {
        serde_json::from_slice::<Received>(bytes)
            .map_err(|e| format!("not an OTLP JSON ExportTraceServiceRequest: {e}"))
    } else {
        Received::decode(bytes)
            .map_err(|e| format!("not an OTLP protobuf ExportTraceServiceRequest: {e}"))
    };
    let request = match decoded {
        Ok(r) => r,
        Err(why) => return status(StatusCode::BAD_REQUEST, head.json, why),
    };
    match shared.tx.try_send((Protocol::Http, request)) {
        Ok(()) => Reply {
            status: StatusCode::OK,
            content_type: if head.json { JSON } else { PROTOBUF },
            retry: false,
            // No partial success: every span is accepted (one the model cannot map is its
            // run's Error record, as in a file).
            body: if head.json {
                b"{}".to_vec()
            } else {
                ExportTraceServiceResponse::default().encode_to_vec()
            },
        },
        Err(TrySendError::Full(_)) => status(
            StatusCode::SERVICE_UNAVAILABLE,
            head.json,
            "the monitor's queue of requests is full: retry later".into(),
        ),
        Err(TrySendError::Disconnected(_)) => status(
            StatusCode::SERVICE_UNAVAILABLE,
            head.json,
            "the monitor is stopping".into(),
        ),
    }
}
